// sweep --samples N (docs/uncertainty-samples.md): the samples of the scenario's uncertainty
// block as one more dimension of the grid, the last (fastest): a `sample` pseudo-parameter (the
// CSV's `param.sample`) zipped with one parameter per path the samples set. The grid stays a
// grid, so shards, --resume, Slurm arrays and merge need nothing else. After the table, the
// per-point quantiles: OUT.quantiles.csv, p05/p50/p95 over the samples of each grid point.
#include <algorithm>
#include <map>

#include <sonicsim/sweep/sweep.hpp>
#include <sonicsim/uncertainty/samples.hpp>
#include <sonicsim/uncertainty/stats.hpp>
#include <sonicsim/util/csv.hpp>
#include <sonicsim/util/format.hpp>
#include <sonicsim/util/sha256.hpp>

#include "sweep_steps.hpp"

namespace sonicsim::pipeline {

namespace sweep_samples_detail {

using scenario::InputError;

// The samples' overrides, one list per sample, every list setting the same paths in order.
std::vector<std::vector<scenario::Override>> sample_overrides(const SweepRequest& a,
                                                              const uncertainty::Spec& spec,
                                                              std::uint64_t seed) {
  const auto method =
      uncertainty::method_from_name(a.sampling.empty() ? spec.method : a.sampling,
                                    a.sampling.empty() ? "uncertainty.method" : "--sampling");
  std::vector<std::vector<scenario::Override>> out;
  for (const auto& u : uncertainty::design(method, static_cast<int>(a.samples), spec.dims(), seed))
    out.push_back(uncertainty::realise(spec, u).overrides);
  for (const auto& s : out) {
    bool same = s.size() == out.front().size();
    for (std::size_t i = 0; same && i < s.size(); ++i) same = s[i].path == out.front()[i].path;
    if (!same)
      throw InputError("--samples", {{"",
                                      "the samples set different scenario paths, expected "
                                      "the same paths in every sample (a sweep's columns)"}});
  }
  return out;
}

std::string quantile_cell(std::vector<double> values, double q) {
  return values.empty() ? "" : sweep::format_number(uncertainty::quantile_of(values, q));
}

struct QuantileGroup {
  std::vector<std::string> params;
  std::size_t samples = 0;
  std::map<std::string, std::vector<double>> values;  // metric -> the samples' means
};

std::vector<QuantileGroup> groups_of(const std::vector<sweep::TableRow>& rows, std::size_t first,
                                     std::size_t sample_column) {
  std::vector<QuantileGroup> groups;
  for (const auto& row : rows) {
    const std::vector<std::string> key(row.fixed.begin() + first,
                                       row.fixed.begin() + sample_column);
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const QuantileGroup& g) { return g.params == key; });
    if (it == groups.end()) it = groups.insert(groups.end(), {key, 0, {}});
    ++it->samples;
    for (const auto& [name, cells] : row.metrics)
      if (const auto v = util::parse_number(cells.first)) it->values[name].push_back(*v);
  }
  return groups;
}

}  // namespace sweep_samples_detail

using namespace sweep_samples_detail;

void add_sample_dimension(const SweepRequest& a, const std::vector<scenario::Override>& common,
                          std::uint64_t scenario_seed, std::vector<sweep::Parameter>& params,
                          std::vector<std::string>& zips) {
  const auto spec = uncertainty::load_spec(a.scenario.scenario_path, common, a.uncertainty);
  if (!spec)
    throw InputError(a.scenario.scenario_path,
                     {{"uncertainty", "--samples " + std::to_string(a.samples) +
                                          ": found no `uncertainty` block, expected one listing "
                                          "the uncertain inputs (docs/uncertainty.md), or "
                                          "--uncertainty FILE naming a file that has one"}});
  // The design's seed: --sampling-seed, else the block's, else the scenario's (after --seed), as
  // `run --samples` and `plan --confidence` take it.
  const std::uint64_t seed = a.sampling_seed >= 0 ? static_cast<std::uint64_t>(a.sampling_seed)
                                                  : spec->seed.value_or(scenario_seed);
  const auto sets = sample_overrides(a, *spec, seed);
  sweep::Parameter sample{kSampleParameter, "", {}};
  std::string all, zip = kSampleParameter;
  for (std::size_t k = 0; k < sets.size(); ++k) {
    sample.values.push_back(std::to_string(k));
    for (const auto& o : sets[k]) all += o.path + "=" + o.value + "\n";
  }
  // The sweep's identity (fingerprint) holds every sampled value through this spec.
  sample.spec = "samples:" + std::to_string(a.samples) + ":" + sha256_hex(all).substr(0, 16);
  params.push_back(std::move(sample));
  for (std::size_t i = 0; i < sets.front().size(); ++i) {
    sweep::Parameter p{sets.front()[i].path, "sampled", {}};
    for (const auto& s : sets) p.values.push_back(s[i].value);
    zip += "," + p.path;
    params.push_back(std::move(p));
  }
  zips.push_back(zip);
}

std::vector<scenario::Override> simulated(std::vector<scenario::Override> point) {
  point.erase(
      std::remove_if(point.begin(), point.end(),
                     [](const scenario::Override& o) { return o.path == kSampleParameter; }),
      point.end());
  return point;
}

std::string quantiles_path_of(const std::string& csv) {
  const std::string ext = ".csv";
  if (csv.size() > ext.size() && csv.compare(csv.size() - ext.size(), ext.size(), ext) == 0)
    return csv.substr(0, csv.size() - ext.size()) + ".quantiles.csv";
  return csv + ".quantiles.csv";
}

std::string quantiles_csv(const std::vector<std::string>& fixed,
                          const std::vector<std::string>& metrics,
                          const std::vector<sweep::TableRow>& rows) {
  const auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(fixed.begin(), fixed.end(), name) - fixed.begin());
  };
  const std::size_t sample_column =
      column(std::string(sweep::kParamColumnPrefix) + kSampleParameter);
  const std::size_t first = sweep::kLeadingColumns.size();
  if (sample_column >= fixed.size() || sample_column < first) return "";
  std::vector<std::string> header{sweep::kLeadingColumns.front()};
  header.insert(header.end(), fixed.begin() + first, fixed.begin() + sample_column);
  header.push_back("samples");
  for (const auto& m : metrics)
    for (const char* q : {".p05", ".p50", ".p95"}) header.push_back(m + q);
  std::string text;
  for (const auto& h : header) text += (text.empty() ? "" : ",") + sweep::csv_cell(h);
  text += "\n";
  const std::string id = rows.empty() ? "" : rows.front().fixed.front();
  for (const auto& g : groups_of(rows, first, sample_column)) {
    text += sweep::csv_cell(id);
    for (const auto& p : g.params) text += "," + sweep::csv_cell(p);
    text += "," + std::to_string(g.samples);
    for (const auto& m : metrics) {
      const auto it = g.values.find(m);
      const std::vector<double> v = it == g.values.end() ? std::vector<double>{} : it->second;
      for (double q : {0.05, 0.50, 0.95}) text += "," + quantile_cell(v, q);
    }
    text += "\n";
  }
  return text;
}

}  // namespace sonicsim::pipeline
