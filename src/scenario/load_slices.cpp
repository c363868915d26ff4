// `devices.D.slice`: a MIG slice of a GPU (Kubernetes' nvidia.com/mig-<g>g.<m>gb resources), and
// the service times a slice takes from the whole device when the models give none of their own.
#include <algorithm>

#include "loader_impl.hpp"

namespace sonicsim::scenario::detail {

void Loader::device_slice(const json& v, const std::string& path, DeviceSpec& d) {
  if (!expect_object(v, path,
                     "an object {\"of\": \"A100\", \"fraction\": 0.142857} (the device this "
                     "is a slice of, and the share of its compute), or null"))
    return;
  check_keys(v, path, {"of", "fraction"});
  DeviceSpec::Slice sl;
  bool ok = true;
  if (const json* of = get(v, "of"); of && of->is_string() && !of->get<std::string>().empty()) {
    sl.of = of->get<std::string>();
    if (sl.of == d.name) {
      add(key_path(path, "of"), "found the device itself, expected another device's name");
      ok = false;
    }
  } else {
    add(key_path(path, "of"),
        std::string(of ? "found " + describe(*of) : "missing") +
            ", expected the name of the device this is a slice of (\"A100\")");
    ok = false;
  }
  if (const json* f = get(v, "fraction")) {
    if (auto x = number(*f, key_path(path, "fraction"), Range{0.0, 1.0, true, false},
                        "a share of the device's compute"))
      sl.fraction = *x;
    else
      ok = false;
  } else {
    missing(key_path(path, "fraction"),
            "the share of the device's compute, in (0, 1] (1/7: 1g of an A100)");
    ok = false;
  }
  if (!device_kinds::sliceable(d.kind)) {
    add(path, "found a slice of a " + std::string(device_kinds::name_of(d.kind)) +
                  " device, expected a GPU (MIG slices a GPU's compute)");
    ok = false;
  }
  if (ok) d.slice = sl;
}

// A model runs on a slice at `fraction` of its speed on the whole device: each execution takes
// 1 / fraction as long (the slice holds that share of the device's streaming multiprocessors).
// A service time the model gives for the slice itself wins.
void Loader::slice_service_times(Scenario& s) {
  for (const auto& d : s.devices) {
    if (!d.slice) continue;
    for (auto& m : s.models) {
      if (m.service_time.count(d.name)) continue;
      const auto whole = m.service_time.find(d.slice->of);
      if (whole == m.service_time.end()) continue;
      ServiceCurve c = whole->second;
      for (double& t : c.seconds) t /= d.slice->fraction;
      c.source = "slice of " + d.slice->of + " (" + whole->second.source + ", / " +
                 std::to_string(d.slice->fraction) + ")";
      m.service_time[d.name] = std::move(c);
    }
  }
}

}  // namespace sonicsim::scenario::detail
