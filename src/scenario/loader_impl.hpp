// The scenario loader's shared state and the readers of each section, private to src/scenario.
//
// One Loader reads one document and collects every problem with its JSON path (see Checker).
// Each section of a scenario has its own file, so that a new key lands next to its neighbours:
//
//   loader.cpp             entry points, the top-level keys and the order the sections are read
//   load_workload.cpp      workload / workloads: client jobs, job flow, open-loop arrivals,
//                          client policy, requests
//   load_distribution.cpp  random quantities (a number, a time or a distribution object)
//   load_models.cpp        models: payloads, tensors, batching, dynamic_batching
//   load_service_time.cpp  service-time curves, calibration files, request overheads
//   load_triton.cpp        a model's triton_config over its scenario keys (triton/ reads the file)
//   load_servers.cpp       server pools and their autoscalers
//   load_network.cpp       network links and flow model
//   load_sites.cpp         sites, the WAN between them, routing across sites, placements
//   load_hosts.cpp         devices, a pool's host, a model's host CPU cost
//   load_power.cpp         power of devices, hosts and client cores; prices
//   load_catalogue.cpp     the device catalogue's figures for the devices pools name
//   load_operations.cpp    load balancer: policy, capacity, admission
//   load_faults.cpp        crashes, link degradations, preemptions
//   cross_checks.cpp       checks between sections (request -> model, pool -> model curves)
//   time_checks.cpp        simulated time that must advance: zero-time events, the event budget
//   plausibility.cpp       warnings (not problems) for likely unit slips, from the quantities read
//
// Beside them: checker.cpp reads one value (a number, a time, a choice) and files its problems;
// overrides.cpp applies `--set` to the JSON before any section is read.
//
// The order in which a section's keys are read is the order of its messages: `validate` prints
// them as collected, and the tests compare them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/devices/catalogue.hpp>
#include <sonicsim/scenario/limits.hpp>
#include <sonicsim/scenario/scenario.hpp>
#include <sonicsim/scenario/triton_settings.hpp>
#include <sonicsim/triton/config_file.hpp>

#include "checker.hpp"

namespace sonicsim::scenario::detail {

// What a random quantity measures: times take unit strings, counts are plain numbers.
struct DistSpec {
  bool is_time = false;
  double floor = 0.0;  // smallest value a sample may have
  const char* noun = "a number";
};

inline const DistSpec kTimeDist{true, 0.0, "a time"};
inline const DistSpec kItemsDist{false, 1.0, "a number of items"};

// "a, b, c": the names a message lists.
std::string join(const std::vector<std::string>& items);

// A site whose name was refused (or missing) keeps a placeholder name, so that the indices of
// the others stay aligned while the rest is checked; it starts with a byte no JSON string name
// can hold unnoticed and never reaches a message (load_sites.cpp leaves it out of every list).
std::string unnamed_site(std::size_t index);
bool is_unnamed_site(const std::string& name);
// The names a message may list: every name but the placeholders.
std::vector<std::string> shown_names(const std::vector<std::string>& names);

// What a refusal of a Triton config advises a scenario's author (load_triton.cpp).
triton::Advice scenario_advice();

class Loader : public Checker {
 public:
  explicit Loader(std::string base_dir);

  // The whole document (loader.cpp): top-level keys, then each section, then the cross-checks.
  void scenario(const json& doc, Scenario& s);

  // Files the scenario names (calibrations, Triton configs), hashed into its identity.
  std::vector<Scenario::ReferencedFile> referenced_files;
  // What a refusal of a Triton config advises instead (a tool replaces it with its flags).
  triton::Advice advice;

  // The server settings of a Triton config alone, read as a model's `triton_config` is.
  TritonSettings settings_of(const std::string& file, bool instances_given);

  // --- loader.cpp: the top level
  void top_level(const json& doc, Scenario& s);
  void timeseries(const json& v, std::optional<double> duration, Scenario& s);

  // --- load_distribution.cpp
  std::optional<double> scalar(const json& v, const std::string& path, const DistSpec& spec,
                               Range range);
  std::optional<Distribution> distribution(const json& v, const std::string& path,
                                           const DistSpec& spec);
  bool empirical(const json& v, const std::string& path, const DistSpec& spec, Distribution& d);

  // --- load_workload.cpp
  void workloads(const json& doc, Scenario& s);
  void workload(const json& v, const std::string& path, Workload& w);
  void arrivals(const json& workload, const json& v, const std::string& wpath, Workload& w);
  void flow(const json& v, const std::string& wpath, Workload& w);
  void running_profile(const json& v, const std::string& path, JobFlow& f);
  void requests(const json& v, const std::string& path, Workload& w);
  void client(const json& v, const std::string& wpath, Workload& w);
  void fallback(const json& v, const std::string& path, Workload& w);
  // Each entry's own integer keys (util::IntKey) of an extension table beside its selector key
  // (`policy`, `fallback`): read into the chosen entry's settings, and refused by name with any
  // other entry.
  template <class Table>
  void entry_keys(const json& v, const std::string& path, std::string_view selector,
                  typename Table::Settings& chosen);
  void request(const json& v, const std::string& path, RequestSpec& r);

  // --- load_node.cpp
  void node(const json& v, const std::string& wpath, Workload& w);
  void node_speed(const json& v, const std::string& path, NodeSpec& n);
  void start_pattern(const json& v, const std::string& wpath, Workload& w);

  // --- load_models.cpp
  void models(const json& v, Scenario& s);
  void model(const json& v, const std::string& path, Model& m);
  double tensor_bytes(const json& v, const std::string& path, std::vector<TensorSpec>& tensors);
  void dynamic_batching(const json& v, const std::string& path, Model& m);
  bool queue_policy(const json& v, const std::string& path, QueuePolicy& p);
  bool time_or_microseconds(const json& v, const std::string& path, const std::string& key,
                            double& target);
  // Problems go to `path`'s keys, or (a Triton config, `config_in` naming it) to `path` itself.
  bool check_priority_levels(const DynamicBatching& db, const std::string& path,
                             const std::string& config_in = "");

  // --- load_triton.cpp: a model's Triton config, under the scenario's own keys
  std::optional<triton::ConfigFile> triton_config(const json& v, const std::string& path, Model& m);
  void config_instances(const triton::ConfigFile& src, bool overridden, const std::string& path,
                        Model& m);
  void config_batching(const triton::ConfigFile& src, const json& model, const std::string& path,
                       Model& m);
  double config_tensor_bytes(const triton::ConfigFile& src, bool input, const json* given,
                             const std::string& path, std::vector<TensorSpec>& tensors);
  // The shapes the scenario gives for the config's tensors, by name.
  struct GivenShape {
    std::vector<std::int64_t> dims;
    std::string path;
  };
  std::map<std::string, GivenShape> given_shapes(const triton::ConfigFile& src, bool input,
                                                 const json* given, const std::string& tpath);

  // --- load_service_time.cpp
  void service_time(const json& v, const std::string& path, Model& m);
  void spread(const json& st, const std::string& path, ServiceSpread& out, const char* of_what);
  std::optional<ServiceCurve> curve(const json& v, const std::string& path, bool in_device_map);
  // The batch/seconds arrays of a curve; overhead tables allow zero times.
  std::optional<ServiceCurve> table(const json& v, const std::string& path,
                                    bool zero_allowed = false);
  std::optional<ServiceCurve> calibration(const json& v, const std::string& path);
  template <class Extract>
  auto from_calibration(const json& v, const std::string& path, Extract extract)
      -> decltype(extract(std::declval<Loader&>(), std::declval<const json&>()));
  std::optional<OverheadPhase> overhead_phase(const json& v, const std::string& path);
  std::optional<RequestOverhead> overhead_table(const json& v, const std::string& path);
  void request_overhead(const json& v, const std::string& path, Model& m);
  // `host_cost: {"calibration": FILE}`: the file's `host_cost` block (load_hosts.cpp reads it).
  std::optional<HostCost> host_cost_calibration(const json& v, const std::string& path);

  // --- load_servers.cpp
  void servers(const json& v, const std::string& path, Scenario& s);
  // load_hosts.cpp: `devices`, `servers[i].host`, `models.M.host_cost`.
  void devices(const json& v, Scenario& s);
  void device(const json& v, const std::string& path, DeviceSpec& d);
  void server_host(const json& v, const std::string& path, ServerPool& pool);
  void host_cost(const json& v, const std::string& path, Model& m);
  std::optional<HostCost> host_cost_fields(const json& v, const std::string& path);
  // load_device_kinds.cpp: `devices.D.kind` and its kind's keys (the device-kind table,
  // include/sonicsim/device_kinds/), a kind's own timing of a model, their checks.
  static std::vector<std::string_view> device_kind_keys();
  void device_kind(const json& v, const std::string& path, DeviceSpec& d);
  bool kind_timing(const json& v, const std::string& path, const std::string& device, Model& m);
  static bool is_kind_timing(const json& v);
  void device_kind_checks(Scenario& s);
  // load_catalogue.cpp: the device catalogue's memory and power where the scenario leaves them
  // out, `devices.D.catalogue`.
  const devices::Entry* device_catalogue(const json& v, const std::string& path,
                                         const std::string& name);
  static std::optional<PowerSpec> catalogue_power(const devices::Entry& e);
  static void apply_catalogue(const devices::Entry& e, DeviceSpec& d);
  void catalogue_devices(Scenario& s);
  // load_power.cpp: `devices.D.power`, `servers[i].host.power`, `workload.core_power`; `prices`
  // (after the pools). With `fallback` (a device's catalogue power, named by `fallback_from`),
  // an {idle, busy} pair may leave out one of the two.
  std::optional<PowerSpec> power(const json& v, const std::string& path,
                                 const PowerSpec* fallback = nullptr,
                                 const std::string& fallback_from = "");
  std::optional<PowerSpec> power_curve(const json& v, const std::string& path);
  void prices(const json& v, Scenario& s);
  // load_memory.cpp: `devices.D.memory`, `models.M.memory` and `load_time`,
  // `servers[i].model_control`, and whether each pool's models fit on its device.
  void device_memory(const json& v, const std::string& path, DeviceSpec& d);
  void model_memory(const json& v, const std::string& path, Model& m);
  void model_control(const json& p, const std::string& ppath, ServerPool& pool);
  void memory_checks(const Scenario& s);
  // `count`: the pool's device count, nullopt when it was invalid (no check against it then).
  std::optional<Autoscaler> autoscaler(const json& v, const std::string& path,
                                       std::optional<int> count);
  std::optional<Autoscaler::Behavior> behavior(const json& v, const std::string& path,
                                               Autoscaler::Behavior b);

  // --- load_network.cpp
  void network(const json& v, const std::string& path, Network& n);
  std::optional<LinkSpec> link(const json& v, const std::string& path);
  // The bandwidth and latency keys of an object that may hold others (a WAN link).
  std::optional<LinkSpec> link_figures(const json& v, const std::string& path);

  // --- load_sites.cpp
  void sites(const json& doc, Scenario& s);
  void site_network(const json& v, const std::string& path, Site& site);
  void wan(const json& v, const std::string& path, Scenario& s);
  std::optional<SiteRouting> site_routing(const json& v, const std::string& path,
                                          const Scenario& s);
  void placements(const json& doc, Scenario& s);
  // `spill_over` {"queue_time", "in_flight"}: false when it was not valid.
  bool spill_over(const json& v, const std::string& path, std::optional<double>& queue_time,
                  std::optional<double>& in_flight);
  // --- load_attached.cpp
  // A pool's `attached` and `spill_over` (after the workloads): false when they were not valid.
  bool attached(const json& p, const std::string& path, const Scenario& s, ServerPool& pool);
  void workload_shares(const json& v, const std::string& path, const Scenario& s, Workload& w);
  std::optional<std::size_t> site_named(const json& v, const std::string& path, const Scenario& s);
  void site_checks(Scenario& s);

  // --- load_operations.cpp
  void load_balancer(const json& v, const std::string& path, Scenario& s);
  void admission(const json& v, const std::string& path, Scenario& s);
  // `devices.D.slice` and the service times a slice takes from its device (load_slices.cpp).
  void device_slice(const json& v, const std::string& path, DeviceSpec& d);
  void slice_service_times(Scenario& s);
  bool refuse_above(const json& v, const std::string& path, const Scenario& s, Admission& a);
  void balancer_capacity(const json& v, const std::string& path, LoadBalancer& lb);

  // --- load_faults.cpp
  void faults(const json& v, const std::string& path, Scenario& s);
  void fault(const json& v, const std::string& path, Scenario& s, std::string& random_preemption);
  std::optional<std::size_t> pool_of(const json& v, const std::string& path, const Scenario& s);

  // --- cross_checks.cpp
  void cross_check(const json& doc, Scenario& s);
  // --- time_checks.cpp (on a scenario whose sections are valid)
  void time_checks(const json& doc, const Scenario& s);

  // Whether `path` is among referenced_files already (a file may serve several keys).
  bool referenced(const std::string& path) const;

  std::string base_dir_;
  // Which models parsed cleanly, so cross-checks do not pile consequences onto a broken model.
  std::set<std::string> defined_models_;
  // The jobs of all workloads as read, if valid (a preemption may take at most that many).
  std::optional<std::int64_t> jobs_;
};

template <class Table>
void Loader::entry_keys(const json& v, const std::string& path, std::string_view selector,
                        typename Table::Settings& chosen) {
  const std::string_view name = Table::name_of(chosen);
  Table::each([&]<class E>() {
    for (const auto& k : E::keys) {
      const json* x = get(v, k.name);
      if (!x) continue;
      const std::string kpath = key_path(path, k.name);
      if (E::name != name) {
        add(kpath, "found " + std::string(k.name) + " with " + std::string(selector) +
                       " other than " + std::string(E::name) + ", expected it only with \"" +
                       std::string(selector) + "\": \"" + std::string(E::name) + "\"");
        continue;
      }
      if (auto n = integer(*x, kpath, k.lo, k.hi, k.unit))
        std::get<typename E::Settings>(chosen).*k.field = static_cast<int>(*n);
    }
  });
}

}  // namespace sonicsim::scenario::detail
