// run --samples N: the scenario once per sample of its uncertainty block, each run in its own
// child (uncertainty/sampled_run.hpp, docs/uncertainty-samples.md). Flags and printing only.
#include <iostream>
#include <limits>
#include <memory>

#include <sonicsim/pipeline/status_line.hpp>
#include <sonicsim/uncertainty/sampled_run.hpp>

#include "checks.hpp"
#include "command.hpp"

namespace sonicsim::cli {

namespace {

// The flags that only mean something with --samples.
void check_sample_flags(const SampleArgs& s) {
  const std::vector<std::pair<const char*, bool>> needs{{"--sampling", !s.sampling.empty()},
                                                        {"--uncertainty", !s.block.empty()},
                                                        {"--sobol", s.sobol},
                                                        {"--workers", s.workers > 0},
                                                        {"--sampling-seed", s.sampling_seed >= 0}};
  for (const auto& [flag, given] : needs)
    if (given && s.samples == 0)
      throw UsageError(std::string("run: found ") + flag +
                       " without --samples, expected --samples N with it");
}

uncertainty::SampledRequest request_of(const ScenarioArgs& a, const SampleArgs& s) {
  uncertainty::SampledRequest q;
  q.scenario_path = a.scenario_path;
  q.common = overrides_of(a);
  const auto spec = uncertainty::load_spec(a.scenario_path, q.common, s.block);
  if (!spec)
    throw scenario::InputError(
        a.scenario_path,
        {{"uncertainty", "--samples " + std::to_string(s.samples) +
                             ": found no `uncertainty` block, expected one listing the uncertain "
                             "inputs (docs/uncertainty.md), or --uncertainty FILE naming a file "
                             "that has one"}});
  q.spec = *spec;
  q.samples = s.samples;
  q.method =
      uncertainty::method_from_name(s.sampling.empty() ? q.spec.method : s.sampling,
                                    s.sampling.empty() ? "uncertainty.method" : "--sampling");
  // The design's seed: --sampling-seed, else the block's, else the scenario's (after --seed), as
  // plan --confidence takes it.
  if (s.sampling_seed >= 0)
    q.seed = static_cast<std::uint64_t>(s.sampling_seed);
  else
    q.seed = q.spec.seed ? *q.spec.seed : load(a).seed;
  q.sobol = s.sobol;
  q.workers = s.workers;
  uncertainty::check_request(q);
  return q;
}

points::PointsWatch watch_on(pipeline::StatusLine& line, long long runs) {
  points::PointsWatch watch;
  if (!line.on()) return watch;
  auto done = std::make_shared<std::size_t>(0);
  const auto draw = [&line, runs, done] {
    const double f = static_cast<double>(*done) / static_cast<double>(runs);
    const double elapsed = line.elapsed_s();
    line.show(f, "samples " + std::to_string(*done) + "/" + std::to_string(runs),
              f > 0 ? elapsed / f * (1.0 - f) : -1.0);
  };
  watch.on_done = [draw, done](std::size_t finished) {
    *done = finished;
    draw();
  };
  watch.on_tick = [draw, &line] {
    if (line.due()) draw();
  };
  return watch;
}

}  // namespace

bool sample_flags_given(const SampleArgs& s) {
  check_sample_flags(s);
  return s.samples > 0;
}

int cmd_run_samples(const ScenarioArgs& a, const SampleArgs& s, const std::string& output,
                    bool json, bool quiet) {
  const auto q = request_of(a, s);
  if (!output.empty()) check_writable(output);
  pipeline::StatusLine line(!quiet && !json);
  const auto run = uncertainty::run_samples(pipeline::simulator(), q, watch_on(line, q.runs()));
  line.finish(false);
  const std::string text = uncertainty::to_json(run).dump(2) + "\n";
  if (!output.empty()) write_all_or_none({{output, text}});
  if (json)
    std::cout << text;
  else if (!quiet) {
    std::cout << uncertainty::to_text(run);
    if (!output.empty()) std::cout << "samples    written to " << output << "\n";
  }
  return 0;
}

void add_sample_args(CLI::App* cmd, SampleArgs& s) {
  cmd->add_option("--samples", s.samples,
                  "Run the scenario once per sample of its uncertainty block (N samples; with "
                  "--sobol N base rows, N (inputs + 2) runs); -o writes the samples document "
                  "(docs/uncertainty-samples.md)")
      ->check(whole_number(1, uncertainty::kMaxSamples));
  cmd->add_option("--sampling", s.sampling,
                  "--samples: the design, lhs (Latin hypercube) or sobol (default: the block's "
                  "method, else lhs)");
  cmd->add_option("--uncertainty", s.block,
                  "--samples: take the uncertainty block from this file instead of the scenario");
  cmd->add_option("--sampling-seed", s.sampling_seed,
                  "--samples: the design's seed (default: the block's, else the scenario's)")
      ->check(whole_number(0, std::numeric_limits<std::int64_t>::max()));
  cmd->add_flag("--sobol", s.sobol,
                "--samples: Saltelli's design and each input's first and total Sobol indices");
  cmd->add_option("--workers", s.workers,
                  "--samples: simulations at once, each in its own process (default: the cores)")
      ->check(whole_number(1, 4096));
}

}  // namespace sonicsim::cli
