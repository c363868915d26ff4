#include <sonicsim/results/prometheus.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <sonicsim/scenario/sites.hpp>
#include <sonicsim/util/format.hpp>

#include "exposition.hpp"

namespace sonicsim::results {

namespace {

using exposition::Family;
using exposition::label;
using exposition::number;

class Writer {
 public:
  void family(const Family& f) {
    out_ += std::string("# HELP ") + f.name + " " + f.help + "\n";
    out_ += std::string("# TYPE ") + f.name + " " + f.type + "\n";
  }
  void sample(const char* name, const std::string& labels, double value) {
    out_ += std::string(name) + "{" + labels + "} " + number(value) + "\n";
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

std::string model_labels(const std::string& model) {
  // Triton labels every inference metric with the model and its version; sonicsim's models
  // have one version.
  return "model=\"" + label(model) + "\",version=\"1\"";
}

std::string site_label(const scenario::Scenario& s, std::size_t site) {
  return "site=\"" + label(s.sites[site].name) + "\"";
}

// The site whose Triton servers would export a model's counters: with sites, the one site of
// every device hosting it (a model served at several sites has no single one, since the engine
// counts a model over all its pools).
std::optional<std::size_t> model_site(const scenario::Scenario& s,
                                      const std::vector<std::uint32_t>& device_site,
                                      const std::string& model) {
  std::optional<std::size_t> site;
  std::size_t first = 0;
  for (const auto& pool : s.servers) {
    const auto devices = static_cast<std::size_t>(pool.count);
    if (std::find(pool.models.begin(), pool.models.end(), model) != pool.models.end())
      for (std::size_t d = first; d < first + devices; ++d) {
        if (site && *site != device_site[d]) return std::nullopt;
        site = device_site[d];
      }
    first += devices;
  }
  return site;
}

}  // namespace

std::string to_prometheus(const scenario::Scenario& s, const runner::RunOutput& run) {
  const auto& m = run.metrics;
  const bool sites = !s.sites.empty();
  // A dashboard filters one site's servers by the `site` label a scrape config would give
  // them; one site has none, as before sites.
  const std::vector<std::uint32_t> device_site =
      sites ? scenario::device_sites(s) : std::vector<std::uint32_t>{};
  std::vector<std::string> labels_of_model;
  for (const auto& mm : m.models) {
    std::string labels = model_labels(mm.name);
    if (sites)
      if (const auto site = model_site(s, device_site, mm.name))
        labels += "," + site_label(s, *site);
    labels_of_model.push_back(std::move(labels));
  }
  Writer w;
  using Model = engine::RunMetrics::Model;
  // Each of Triton's counters (exposition::kTriton, in its order) from a model's totals.
  double (*const value[exposition::kTritonCounters])(const Model&) = {
      [](const Model& mm) { return static_cast<double>(mm.requests); },
      [](const Model& mm) { return static_cast<double>(mm.rejected()); },
      [](const Model& mm) { return static_cast<double>(mm.items); },
      [](const Model& mm) { return static_cast<double>(mm.executions); },
      [](const Model& mm) {
        return mm.queue_time.mean() * static_cast<double>(mm.queue_time.count()) * 1e6 +
               mm.executed_request_seconds * 1e6;
      },
      [](const Model& mm) {
        return mm.queue_time.mean() * static_cast<double>(mm.queue_time.count()) * 1e6;
      },
      [](const Model&) { return 0.0; },
      [](const Model& mm) { return mm.executed_request_seconds * 1e6; },
      [](const Model&) { return 0.0; },
  };
  for (int f = 0; f < exposition::kTritonCounters; ++f) {
    w.family(exposition::kTriton[f]);
    for (std::size_t i = 0; i < m.models.size(); ++i)
      w.sample(exposition::kTriton[f].name, labels_of_model[i], value[f](m.models[i]));
  }

  // One GPU per device of every pool; Triton names them by UUID, sonicsim by pool and index.
  w.family({service_metrics::kGpuUtilization, "gauge",
            "GPU utilization rate [0.0 - 1.0), mean over the measured span"});
  std::size_t first = 0;  // the pool's first device in device_sites' numbering
  for (std::size_t p = 0; p < m.pools.size(); ++p) {
    const auto& pool = m.pools[p];
    for (std::size_t d = 0; d < pool.utilization.size(); ++d) {
      std::string labels = "gpu_uuid=\"" + label(pool.name + "-" + std::to_string(d)) + "\"";
      if (sites) labels += "," + site_label(s, device_site[first + d]);
      w.sample(service_metrics::kGpuUtilization, labels, pool.utilization[d]);
    }
    first += static_cast<std::size_t>(s.servers[p].count);
  }

  // Not Triton's: the span the counters cover, so that rates can be taken from one scrape.
  w.family({"sonicsim_measured_span_seconds", "gauge",
            "Simulated seconds the counters above cover (after warm-up)"});
  w.sample("sonicsim_measured_span_seconds", "scenario=\"" + label(s.name) + "\"", m.span());
  return w.take();
}

}  // namespace sonicsim::results
