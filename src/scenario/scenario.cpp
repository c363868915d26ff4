#include <sonicsim/scenario/scenario.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace sonicsim::scenario {

double Workload::offload_fraction() const {
  double p = 0.0;
  for (const RequestSpec& r : requests) p += r.offload_fraction;
  return p;
}

double JobFlow::start_of(std::int64_t job, std::int64_t jobs) const {
  switch (start) {
    case Start::Together:
      return 0.0;
    case Start::Waves:
      return first + static_cast<double>(job / wave_size) * wave_every;
    case Start::Ramp:
      return jobs > 0 ? ramp_over * static_cast<double>(job) / static_cast<double>(jobs) : 0.0;
    case Start::Times:
    case Start::Running:
      return static_cast<std::size_t>(job) < start_times.size() ? start_times[job] : 0.0;
  }
  return 0.0;
}

double ServiceCurve::at(double batch_size) const {
  if (batch.empty()) return 0.0;
  const std::size_t n = batch.size();
  // NaN takes the first point too: the search below would find no segment for it.
  if (n == 1 || !(batch_size > batch.front())) return seconds.front();
  if (batch_size >= batch.back()) {
    const double slope = (seconds[n - 1] - seconds[n - 2]) / (batch[n - 1] - batch[n - 2]);
    // A last segment that goes down (measurement noise) would extrapolate to free or negative
    // executions; hold its end value instead.
    return seconds[n - 1] + std::max(slope, 0.0) * (batch_size - batch[n - 1]);
  }
  const auto upper = std::upper_bound(batch.begin(), batch.end(), batch_size);
  const std::size_t i = static_cast<std::size_t>(upper - batch.begin());
  const double t = (batch_size - batch[i - 1]) / (batch[i] - batch[i - 1]);
  return seconds[i - 1] + t * (seconds[i] - seconds[i - 1]);
}

double OverheadPhase::at(double items) const {
  if (batch.empty()) return fixed + per_item * items;
  double t;
  if (items <= batch.front()) {
    t = seconds.front() - per_item * (batch.front() - items);
  } else if (items >= batch.back()) {
    t = seconds.back() + per_item * (items - batch.back());
  } else {
    const auto upper = std::upper_bound(batch.begin(), batch.end(), items);
    const std::size_t i = static_cast<std::size_t>(upper - batch.begin());
    const double f = (items - batch[i - 1]) / (batch[i] - batch[i - 1]);
    t = seconds[i - 1] + f * (seconds[i] - seconds[i - 1]);
  }
  return std::max(0.0, t);
}

OverheadPhase OverheadPhase::shifted(double delta) const {
  OverheadPhase p = *this;
  p.fixed = std::max(0.0, p.fixed + delta);
  for (double& t : p.seconds) t = std::max(0.0, t + delta);
  return p;
}

bool OverheadPhase::is_zero() const {
  return fixed == 0.0 && per_item == 0.0 &&
         std::all_of(seconds.begin(), seconds.end(), [](double t) { return t == 0.0; });
}

double Network::path_latency() const {
  double sum = 0.0;
  for (LinkClass c : kLinkClasses)
    if (const auto& l = link(c)) sum += l->latency;
  return sum;
}

double Network::path_bandwidth() const {
  double narrowest = std::numeric_limits<double>::infinity();
  for (LinkClass c : kLinkClasses)
    if (const auto& l = link(c)) narrowest = std::min(narrowest, l->bandwidth);
  return narrowest;
}

namespace {
template <class Targets>
std::vector<std::pair<double, double>> factors_of(const std::vector<Faults::LinkDegradation>& links,
                                                  Targets targets) {
  std::vector<double> cuts = {0.0};
  for (const auto& l : links)
    if (targets(l)) {
      cuts.push_back(l.at);
      cuts.push_back(l.at + l.duration);
    }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  std::vector<std::pair<double, double>> steps;
  for (double t : cuts) {
    double factor = 1.0;
    for (const auto& l : links)
      if (targets(l) && l.at <= t && t < l.at + l.duration)
        factor = std::min(factor, l.bandwidth_factor);
    if (steps.empty() || steps.back().second != factor) steps.emplace_back(t, factor);
  }
  return steps;
}
}  // namespace

std::vector<std::pair<double, double>> Faults::link_factors(LinkClass link) const {
  return factors_of(links, [link](const LinkDegradation& l) {
    return l.site < 0 && l.wan_link < 0 && l.link == link;
  });
}

std::vector<std::pair<double, double>> Faults::site_link_factors(int site, LinkClass link) const {
  return factors_of(links, [site, link](const LinkDegradation& l) {
    return l.site == site && l.wan_link < 0 && l.link == link;
  });
}

std::vector<std::pair<double, double>> Faults::wan_link_factors(int wan_link) const {
  return factors_of(links, [wan_link](const LinkDegradation& l) { return l.wan_link == wan_link; });
}

std::vector<std::pair<double, double>> narrowest_bandwidth_steps(
    const std::vector<DegradedLink>& links) {
  std::vector<double> cuts = {0.0};
  for (const auto& l : links)
    for (const auto& step : l.factors) cuts.push_back(step.first);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  std::vector<std::pair<double, double>> steps;
  for (double t : cuts) {
    double narrowest = std::numeric_limits<double>::infinity();
    for (const auto& l : links) {
      double factor = 1.0;
      for (const auto& step : l.factors)
        if (step.first <= t) factor = step.second;
      narrowest = std::min(narrowest, l.bandwidth * factor);
    }
    if (steps.empty() || steps.back().second != narrowest) steps.emplace_back(t, narrowest);
  }
  return steps;
}

std::vector<std::pair<double, double>> path_bandwidth_steps(const Network& net,
                                                            const Faults& faults) {
  std::vector<DegradedLink> links;
  for (LinkClass c : kLinkClasses)
    if (const auto& link = net.link(c)) links.push_back({link->bandwidth, faults.link_factors(c)});
  return narrowest_bandwidth_steps(links);
}

double TensorSpec::bytes() const {
  double size = 0.0;
  if (dtype == "FP32" || dtype == "INT32" || dtype == "UINT32") {
    size = 4;
  } else if (dtype == "FP16" || dtype == "BF16" || dtype == "INT16" || dtype == "UINT16") {
    size = 2;
  } else if (dtype == "FP64" || dtype == "INT64" || dtype == "UINT64") {
    size = 8;
  } else if (dtype == "INT8" || dtype == "UINT8" || dtype == "BOOL") {
    size = 1;
  }
  // In double: a product of int64 dimensions could overflow before the loader's bound applies.
  for (std::int64_t dim : shape) size *= static_cast<double>(dim);
  return size;
}

const ServiceCurve& Model::curve_for(const std::string& device) const {
  if (auto it = service_time.find(device); it != service_time.end()) return it->second;
  if (auto it = service_time.find("*"); it != service_time.end()) return it->second;
  throw std::out_of_range("model `" + name + "` has no service-time curve for device `" + device +
                          "`");
}

std::int64_t Scenario::total_jobs() const {
  std::int64_t n = 0;
  for (const auto& w : workloads) n += w.jobs;
  return n;
}

std::int64_t Scenario::total_threads() const {
  std::int64_t n = 0;
  for (const auto& w : workloads) n += w.n_threads();
  return n;
}

std::int64_t Scenario::client_nodes() const {
  std::int64_t n = 0;
  for (const auto& w : workloads) n += w.n_nodes();
  return n;
}

const Model* Scenario::find_model(const std::string& model_name) const {
  const int i = model_index(model_name);
  return i < 0 ? nullptr : &models[static_cast<std::size_t>(i)];
}

const DeviceSpec* Scenario::find_device(const std::string& device_name) const {
  for (const DeviceSpec& d : devices)
    if (d.name == device_name) return &d;
  return nullptr;
}

int Scenario::model_index(const std::string& model_name) const {
  // Linear: a handful of models, and scenarios built in code need not keep them sorted.
  for (std::size_t i = 0; i < models.size(); ++i)
    if (models[i].name == model_name) return static_cast<int>(i);
  return -1;
}

int Scenario::devices_hosting(const std::string& model,
                              std::optional<std::size_t> for_workload) const {
  int devices = 0;
  for (const ServerPool& pool : servers)
    if (std::find(pool.models.begin(), pool.models.end(), model) != pool.models.end() &&
        (!for_workload || !pool.attached || pool.attached == for_workload))
      devices += pool.count;
  return devices;
}

double Scenario::fastest_event_without_cpu(const Workload& w) const {
  double total = 0.0;
  for (const RequestSpec& r : w.requests) {
    if (devices_hosting(r.model) == 0) continue;
    const Model* m = find_model(r.model);
    if (!m) continue;
    double fastest = std::numeric_limits<double>::infinity();
    for (const auto& [device, curve] : m->service_time)
      for (double t : curve.seconds) fastest = std::min(fastest, t);
    for (const auto& [device, timing] : m->pipeline_time)
      fastest = std::min(fastest, timing.latency);
    if (!std::isfinite(fastest)) fastest = 0.0;
    total += r.per_event * (fastest + 2.0 * network.path_latency());
  }
  return total;
}

// The most executions a pool's device runs at once is the instances of its models.
device_kinds::PoolFacts Scenario::device_facts(const ServerPool& pool) const {
  device_kinds::PoolFacts f;
  int k = 0;
  for (const auto& name : pool.models)
    if (const Model* m = find_model(name)) k += m->instances;
  f.most_executions = k > 0 ? k : 1;
  if (!pool.models.empty())
    if (const Model* m = find_model(pool.models.front())) {
      const auto it = m->pipeline_time.find(pool.device);
      if (it != m->pipeline_time.end()) f.timing = &it->second;
    }
  return f;
}

device_kinds::Execution Scenario::execution_of(const ServerPool& pool) const {
  const DeviceSpec* d = find_device(pool.device);
  return d ? device_kinds::execution(d->kind, device_facts(pool)) : device_kinds::Execution{};
}

}  // namespace sonicsim::scenario
