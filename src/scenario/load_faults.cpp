// The `faults` section: crashes, link degradations and preemptions, at given times or random.
#include <algorithm>
#include <string_view>
#include <vector>

#include <sonicsim/scenario/fault_kinds.hpp>

#include "loader_impl.hpp"

namespace sonicsim::scenario::detail {

namespace {

// Reads one fault object of a known kind: the keys every kind shares, and whether all its keys
// were valid (only a valid fault is added).
struct FaultReader {
  Loader& loader;
  const json& v;
  const std::string& path;
  Scenario& s;
  std::string kind;
  std::string& first_random_preemption;  // path of the first one, "" before it
  bool ok = true;

  // A required key: reported missing with what it expects.
  const json* need(const char* key, std::string_view expected) {
    const json* x = loader.get(v, key);
    if (!x) {
      loader.missing(key_path(path, key), expected);
      ok = false;
    }
    return x;
  }
  void time(const json* x, const char* key, Range range, double& out) {
    if (!x) return;
    if (auto t = loader.quantity(*x, key_path(path, key), Quantity::Time, range))
      out = *t;
    else
      ok = false;
  }
  // A mean time between random events: each one schedules the next.
  void recurring(const json* x, const char* key, double& out) {
    if (!x) return;
    const std::string kpath = key_path(path, key);
    const auto t = loader.quantity(*x, kpath, Quantity::Time, Range::positive());
    if (t && loader.at_least_tick(describe(*x), kpath, *t))
      out = *t;
    else
      ok = false;
  }
  const ServerPool* pool(std::size_t& out) {
    const json* x = need("pool", "the name of a pool in `servers`");
    if (!x) return nullptr;
    auto p = loader.pool_of(*x, key_path(path, "pool"), s);
    if (!p) {
      ok = false;
      return nullptr;
    }
    out = *p;
    return &s.servers[*p];
  }
  // With sites, a link is named as in the results: "SITE/CLASS" or "wan/NAME".
  void site_link(Faults::LinkDegradation& d) {
    std::vector<std::string> names;
    for (const auto& site : s.sites)
      for (LinkClass c : kLinkClasses)
        if (c != LinkClass::Wan && site.link(c) && !is_unnamed_site(site.name))
          names.push_back(site.name + "/" + link_class_name(c));
    for (const auto& l : s.wan.links) names.push_back("wan/" + l.name);
    const json* x = need("link",
                         "a link of the scenario's sites or WAN, \"SITE/CLASS\" or "
                         "\"wan/NAME\" as the results name them");
    if (!x) return;
    const std::string lpath = key_path(path, "link");
    const auto found =
        x->is_string() ? std::find(names.begin(), names.end(), x->get<std::string>()) : names.end();
    if (found == names.end()) {
      loader.add(lpath, "found " + describe(*x) +
                            ", expected a link of the scenario's sites or WAN as the results name "
                            "it: " +
                            (names.empty() ? std::string("the scenario has none") : join(names)));
      ok = false;
      return;
    }
    const std::string& name = *found;
    const auto slash = name.find('/');
    const std::string head = name.substr(0, slash), tail = name.substr(slash + 1);
    if (head == "wan") {  // no site may be called so (load_sites.cpp)
      for (std::size_t l = 0; l < s.wan.links.size(); ++l)
        if (s.wan.links[l].name == tail) d.wan_link = static_cast<int>(l);
      return;
    }
    for (std::size_t i = 0; i < s.sites.size(); ++i)
      if (s.sites[i].name == head) d.site = static_cast<int>(i);
    d.link = *link_class_named(tail);
  }
  void restart_after(double& out) {
    time(loader.get(v, "restart_after"), "restart_after", Range::at_least(0), out);
  }
  // Preemption takes client jobs: an open loop has none.
  bool need_jobs() {
    if (!s.workload().open_loop()) return true;
    loader.add(key_path(path, "kind"),
               "found \"" + kind +
                   "\" with an open loop (`workload.arrivals`), expected no "
                   "preemption: an open loop has no client jobs to preempt");
    return false;
  }

  void crash();
  void random_crashes();
  void link_fault();
  void preemption();
  void random_preemption();
};

// The fault kinds, one row each: its name, its keys beside `kind`, and its reader. A new kind is
// a row here, its reader above, its list in `Faults` (scenario.hpp), its schema entry, and the
// engine part that plays it (site_operations.cpp for servers, network_path.cpp and the flows for
// links, preemption.cpp for jobs). Every key is spelled here once: the keys another kind takes
// are refused by name ("does not apply to a KIND fault").
struct FaultKind {
  std::string_view name;
  std::vector<std::string_view> keys;
  void (FaultReader::*read)();
};
const FaultKind kFaultKinds[] = {
    {"crash", {"pool", "device", "at", "for"}, &FaultReader::crash},
    {"random_crashes", {"pool", "mtbf", "mttr"}, &FaultReader::random_crashes},
    {"link", {"link", "at", "duration", "bandwidth_factor"}, &FaultReader::link_fault},
    {"preemption", {"at", "jobs", "restart_after"}, &FaultReader::preemption},
    {"random_preemption", {"mtbf", "restart_after"}, &FaultReader::random_preemption},
};

// "kind" and every kind's keys, each once, in the table's order.
std::vector<std::string_view> every_fault_key() {
  std::vector<std::string_view> out{"kind"};
  for (const FaultKind& k : kFaultKinds)
    for (std::string_view key : k.keys)
      if (std::find(out.begin(), out.end(), key) == out.end()) out.push_back(key);
  return out;
}

std::vector<std::string_view> fault_kind_names() {
  std::vector<std::string_view> out;
  for (const FaultKind& k : kFaultKinds) out.push_back(k.name);
  return out;
}

// The keys of a fault of kind `k`: its own, and those of the other kinds, refused by name.
void check_fault_keys(Loader& loader, const json& v, const std::string& path, const FaultKind& k) {
  std::vector<std::string_view> own{"kind"}, others;
  own.insert(own.end(), k.keys.begin(), k.keys.end());
  for (std::string_view key : every_fault_key())
    if (std::find(own.begin(), own.end(), key) == own.end()) others.push_back(key);
  std::string listed;
  for (std::string_view key : own) listed += (listed.empty() ? "" : ", ") + std::string(key);
  loader.check_keys(v, path, own, others,
                    "does not apply to a " + std::string(k.name) + " fault (keys: " + listed + ")");
}

// {"kind": "crash"}: one device, or every device of a pool, down at a given time.
void FaultReader::crash() {
  Faults::Crash c;
  const ServerPool* p = pool(c.pool);
  if (const json* x = loader.get(v, "device"); x && !x->is_null()) {
    const std::string dpath = key_path(path, "device");
    const std::int64_t hi = p ? p->count - 1 : Limits::max_devices - 1;
    const std::string why =
        p ? "a device of pool `" + p->name + "`, which has " + std::to_string(p->count) +
                (p->count == 1 ? " device" : " devices") + "; absent: every device"
          : std::string("a device index in the pool; absent: every device");
    if (auto d = loader.integer(*x, dpath, 0, hi, why))
      c.device = static_cast<int>(*d);
    else
      ok = false;
    if (ok && p && p->host && p->host->devices > 1) {
      loader.add(dpath, "found device " + describe(*x) + " of pool `" + p->name + "`, whose " +
                            std::to_string(p->host->devices) +
                            " devices per host share one Triton server, expected no `device` "
                            "(the whole pool crashes; one device of a shared server is not "
                            "modelled)");
      ok = false;
    }
  }
  time(need("at", "the time of the crash, a time >= 0 such as \"10min\""), "at", Range::at_least(0),
       c.at);
  if (const json* x = loader.get(v, "for"); x && !x->is_null())
    time(x, "for", Range::positive(), c.down_for);
  if (ok) s.faults.crashes.push_back(c);
}

// {"kind": "random_crashes"}: every device of a pool fails and is repaired at random.
void FaultReader::random_crashes() {
  Faults::RandomCrashes r;
  if (const ServerPool* p = pool(r.pool); p && p->host && p->host->devices > 1) {
    loader.add(key_path(path, "pool"),
               "found pool `" + p->name + "`, whose " + std::to_string(p->host->devices) +
                   " devices per host share one Triton server, expected a pool of one device "
                   "per host (devices failing one by one under a shared server are not "
                   "modelled)");
    ok = false;
  }
  recurring(
      need("mtbf", "the mean time between failures of each device, a time > 0 such as \"2h\""),
      "mtbf", r.mtbf);
  recurring(need("mttr", "the mean time to repair a device, a time > 0 such as \"5min\""), "mttr",
            r.mttr);
  for (const auto& other : s.faults.random_crashes)
    if (ok && other.pool == r.pool) {
      loader.add(key_path(path, "pool"), "found a second \"random_crashes\" for pool `" +
                                             s.servers[r.pool].name +
                                             "`, expected at most one per pool: one mtbf and mttr "
                                             "apply to each of its devices");
      ok = false;
    }
  if (ok) s.faults.random_crashes.push_back(r);
}

// {"kind": "link"}: a link of `network` loses bandwidth for a while.
void FaultReader::link_fault() {
  Faults::LinkDegradation d;
  if (!s.sites.empty()) {
    site_link(d);
  } else if (const json* x =
                 need("link", "one of " + link_class_list("\"") + " (a link of `network`)")) {
    const std::string lpath = key_path(path, "link");
    if (auto name = loader.choice(
            *x, lpath,
            {link_class_name(LinkClass::ClientNic), link_class_name(LinkClass::SiteUplink),
             link_class_name(LinkClass::Wan), link_class_name(LinkClass::ServerNic)})) {
      std::vector<std::string> present;
      for (LinkClass c : kLinkClasses)
        if (s.network.link(c)) present.push_back(link_class_name(c));
      const LinkClass named = *link_class_named(*name);
      if (s.network.link(named)) {
        d.link = named;
      } else {
        loader.add(lpath,
                   "found " + describe(*x) +
                       ", expected a link present in `network`: the "
                       "scenario's network has no `" +
                       *name + "` link (" +
                       (present.empty() ? std::string("it has none") : "it has: " + join(present)) +
                       ")");
        ok = false;
      }
    } else {
      ok = false;
    }
  }
  time(need("at", "the time the degradation starts, a time >= 0 such as \"10min\""), "at",
       Range::at_least(0), d.at);
  time(need("duration", "how long the degradation lasts, a time > 0 such as \"5min\""), "duration",
       Range::positive(), d.duration);
  if (const json* x = loader.get(v, "bandwidth_factor")) {
    if (auto factor =
            loader.number(*x, key_path(path, "bandwidth_factor"), Range{0.0, 1.0, false, true},
                          "a fraction of the bandwidth left"))
      d.bandwidth_factor = *factor;
    else
      ok = false;
  }
  if (ok) s.faults.links.push_back(d);
}

// {"kind": "preemption"}: client jobs lose their slots at a given time.
void FaultReader::preemption() {
  Faults::Preemption pr;
  ok = need_jobs() && ok;
  time(need("at", "the time of the preemption, a time >= 0 such as \"10min\""), "at",
       Range::at_least(0), pr.at);
  if (const json* x = need("jobs", "the number of jobs preempted, an integer >= 1")) {
    if (!s.workload().open_loop()) {
      const std::int64_t hi = loader.jobs_.value_or(Limits::max_threads);
      if (auto n = loader.integer(
              *x, key_path(path, "jobs"), 1, hi,
              loader.jobs_ ? "jobs preempted, at most the scenario's jobs" : "jobs preempted"))
        pr.jobs = *n;
      else
        ok = false;
    }
  }
  restart_after(pr.restart_after);
  if (ok) s.faults.preemptions.push_back(pr);
}

// {"kind": "random_preemption"}: every running job is preempted at random.
void FaultReader::random_preemption() {
  Faults::RandomPreemption r;
  ok = need_jobs() && ok;
  std::string& first = first_random_preemption;
  if (!first.empty()) {
    loader.add(key_path(path, "kind"), "found a second \"random_preemption\" (the first is " +
                                           first +
                                           "), expected at most one: it applies to every job");
    ok = false;
  } else {
    first = path;
  }
  recurring(need("mtbf",
                 "the mean time between preemptions of each running job, a time > 0 such "
                 "as \"6h\""),
            "mtbf", r.mtbf);
  restart_after(r.restart_after);
  if (ok) s.faults.random_preemption = r;
}

}  // namespace

}  // namespace sonicsim::scenario::detail

namespace sonicsim::scenario {

std::vector<FaultKindKeys> fault_kinds() {
  std::vector<FaultKindKeys> out;
  for (const detail::FaultKind& k : detail::kFaultKinds) out.push_back({k.name, k.keys});
  return out;
}

}  // namespace sonicsim::scenario

namespace sonicsim::scenario::detail {

// A fault's `pool`: the index of the named pool in s.servers.
std::optional<std::size_t> Loader::pool_of(const json& v, const std::string& path,
                                           const Scenario& s) {
  const auto name = string(v, path);
  if (!name) return std::nullopt;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < s.servers.size(); ++i) {
    if (s.servers[i].name == *name) return i;
    if (!s.servers[i].name.empty()) names.push_back(s.servers[i].name);
  }
  std::string message = "found " + describe(v) + ", expected the name of a pool in `servers`";
  if (names.empty()) {
    message += " (none is defined)";
  } else {
    message += " (defined: " + join(names) + ")";
    if (const std::string hint = did_you_mean(*name, names); !hint.empty()) message += "; " + hint;
  }
  add(path, message);
  return std::nullopt;
}

// The top-level `faults`: crashes, link degradations and preemptions, at given times or random.
// Read after servers, network and workload, whose names and sizes it refers to.
void Loader::faults(const json& v, const std::string& path, Scenario& s) {
  if (v.is_null()) return;
  if (!v.is_array()) {
    add(path, "found " + describe(v) +
                  ", expected an array of faults such as [{\"kind\": \"crash\", \"pool\": "
                  "\"gpu\", \"at\": \"10min\"}], or null");
    return;
  }
  std::string random_preemption;  // path of the first one
  for (std::size_t i = 0; i < v.size(); ++i) fault(v[i], index_path(path, i), s, random_preemption);
}

void Loader::fault(const json& v, const std::string& path, Scenario& s,
                   std::string& random_preemption) {
  if (!expect_object(v, path, "a fault object {\"kind\": \"crash\", ...}")) return;
  const std::vector<std::string_view> names = fault_kind_names();
  const json* kind_value = get(v, "kind");
  if (!kind_value) {
    std::string kinds_text = "the kind of fault: one of ";
    for (std::size_t i = 0; i < names.size(); ++i)
      kinds_text += std::string(i ? ", " : "") + "\"" + std::string(names[i]) + "\"";
    missing(key_path(path, "kind"), kinds_text);
    check_keys(v, path, every_fault_key());
    return;
  }
  const auto kind = choice(*kind_value, key_path(path, "kind"), names);
  if (!kind) {
    check_keys(v, path, every_fault_key());
    return;
  }
  for (const FaultKind& k : kFaultKinds) {
    if (k.name != *kind) continue;
    check_fault_keys(*this, v, path, k);
    FaultReader f{*this, v, path, s, *kind, random_preemption};
    (f.*k.read)();
  }
}

}  // namespace sonicsim::scenario::detail
