// Sweeps: parameter syntax, the grid, shards, replication seeds, the statistics and the table.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <set>

#include <catch2/catch.hpp>

#include <sonicsim/points/children.hpp>
#include <sonicsim/sweep/batch.hpp>
#include <sonicsim/sweep/sweep.hpp>
#include <sonicsim/util/csv.hpp>
#include <sonicsim/util/rng.hpp>

using namespace sonicsim;
using sweep::parse_parameter;
using Values = std::vector<std::string>;

namespace {

std::string param_error(const std::string& spec, const std::string& flag = "--param") {
  try {
    parse_parameter(spec, flag);
  } catch (const scenario::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("sweep parameters: lists, ranges, geometric and log ranges, units", "[sweep]") {
  CHECK(parse_parameter("servers.0.count=1,2,4").values == Values{"1", "2", "4"});
  CHECK(parse_parameter("servers.0.count=1, 2 ,4").values == Values{"1", "2", "4"});
  CHECK(parse_parameter("workload.jobs=50:600:50").values.size() == 12);
  CHECK(parse_parameter("workload.jobs=50:600:50").values.back() == "600");
  CHECK(parse_parameter("x=0:1:0.1").values ==
        Values{"0", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1"});
  CHECK(parse_parameter("x=10:1:-3").values == Values{"10", "7", "4", "1"});
  CHECK(parse_parameter("x=100us:400us:100us").values ==
        Values{"100us", "200us", "300us", "400us"});
  CHECK(parse_parameter("x=1Gbps:3Gbps:1").values == Values{"1Gbps", "2Gbps", "3Gbps"});
  CHECK(parse_parameter("x=1:1024:x2").values.size() == 11);
  CHECK(parse_parameter("x=1:1000:x2").values.back() == "512");
  CHECK(parse_parameter("x=log:1:1024:11").values ==
        Values{"1", "2", "4", "8", "16", "32", "64", "128", "256", "512", "1024"});
  // Integer bounds round to integers and drop the duplicates rounding makes.
  CHECK(parse_parameter("x=log:1:4:10").values == Values{"1", "2", "3", "4"});
  CHECK(parse_parameter("x=log:0.001:1:4").values == Values{"0.001", "0.01", "0.1", "1"});
  CHECK(parse_parameter("x=log:1ms:1000ms:4").values == Values{"1ms", "10ms", "100ms", "1000ms"});
  // List items may be any JSON value, with commas of their own.
  CHECK(parse_parameter("m.dynamic_batching=null,{\"preferred_batch_size\":[4,8]}").values ==
        Values{"null", "{\"preferred_batch_size\":[4,8]}"});
  CHECK(parse_parameter("workload.mode=sync,async").values == Values{"sync", "async"});
  CHECK(parse_parameter("duration=\"1min\",\"2min\"").values == Values{"\"1min\"", "\"2min\""});
}

TEST_CASE("sweep parameters: bad specs name the flag, what was found and what is expected",
          "[sweep]") {
  const auto check = [](const std::string& spec, const std::string& found,
                        const std::string& expected) {
    INFO(spec);
    const std::string e = param_error(spec);
    CHECK(e.rfind("--param: ", 0) == 0);
    CHECK(e.find(spec) != std::string::npos);
    CHECK(e.find(found) != std::string::npos);
    CHECK(e.find(expected) != std::string::npos);
  };
  check("workload.jobs", "found no PATH=", "expected PATH=LIST");
  check("workload.jobs=", "found no values", "expected PATH=LIST");
  check("workload.jobs=1,,2", "found an empty value", "expected values separated");
  check("workload.jobs=50:600", "found a range of 2 parts", "expected A:B:STEP");
  check("workload.jobs=a:600:50", "found A = \"a\"", "expected A:B:STEP");
  check("workload.jobs=50:600:0", "found STEP = 0", "expected a non-zero STEP");
  check("workload.jobs=50:600:-50", "moves away from B", "expected a STEP with the sign");
  check("x=1ms:1s:1ms", "found units \"ms\" and \"s\"", "expected the same unit");
  check("x=1ms:4ms:1us", "found STEP in \"us\"", "expected STEP in the bounds' unit");
  check("x=1:1024:x1", "found factor \"x1\"", "expected xF");
  check("x=log:1:1024:1", "found N = \"1\"", "expected an integer N >= 2");
  check("x=log:0:1024:5", "found bounds 0 and 1024", "expected A > 0 and B > 0");
  check("x=1:100000000000:1", "found a range of", "expected at most");
  CHECK(param_error("x=0x10:1:1").find("not a number") != std::string::npos);
  CHECK(param_error("x=inf:1:1").find("not a number") != std::string::npos);
}

TEST_CASE("sweep grid: Cartesian product, first parameter slowest; zipped parameters", "[sweep]") {
  const auto g = sweep::make_grid(
      {parse_parameter("a=1,2"), parse_parameter("b=x,y,z"), parse_parameter("c=10,20")}, {});
  REQUIRE(g.size() == 12);
  const auto p = g.point(5);  // a=1, b=z, c=20
  CHECK(p[0].value == "1");
  CHECK(p[1].value == "z");
  CHECK(p[2].value == "20");
  CHECK(g.point(6)[0].value == "2");
  CHECK(g.point(6)[1].value == "x");

  const auto z =
      sweep::make_grid({parse_parameter("jobs=8,16,32"), parse_parameter("mode=sync,async"),
                        parse_parameter("gpus=1,2,4")},
                       {"jobs,gpus"});
  REQUIRE(z.size() == 6);
  CHECK(z.point(0)[0].value == "8");
  CHECK(z.point(0)[2].value == "1");
  CHECK(z.point(5)[0].value == "32");
  CHECK(z.point(5)[1].value == "async");
  CHECK(z.point(5)[2].value == "4");
  CHECK(sweep::make_grid({}, {}).size() == 1);  // no parameter: replications of the scenario

  const auto zip_error = [](std::vector<std::string> params, std::string zip) {
    std::vector<sweep::Parameter> ps;
    for (const auto& p : params) ps.push_back(parse_parameter(p));
    try {
      sweep::make_grid(ps, {zip});
    } catch (const scenario::InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(zip_error({"a=1,2", "b=1,2,3"}, "a,b").find("found 2 values of `a` and 3 of `b`") !=
        std::string::npos);
  CHECK(zip_error({"a=1,2"}, "a,c").find("--zip: `a,c`: found `c`, which no --param sets") !=
        std::string::npos);
  CHECK(zip_error({"a=1,2"}, "a").find("expected two or more") != std::string::npos);
  CHECK(zip_error({"a=1,2", "a=3"}, "").find("given twice") != std::string::npos);
}

TEST_CASE("sweep shards: I/N is a round-robin slice; bad shards are refused", "[sweep]") {
  const auto s = sweep::parse_shard("2/3");
  CHECK(s.contains(1));
  CHECK(s.contains(4));
  CHECK_FALSE(s.contains(0));
  for (const char* bad : {"0/3", "4/3", "3", "a/b", "1/0", "/2", "1/"}) {
    INFO(bad);
    CHECK_THROWS_WITH(sweep::parse_shard(bad),
                      Catch::Contains("--shard: found") && Catch::Contains("expected I/N"));
  }
}

TEST_CASE("sweep seeds: replication 0 keeps the seed, the others are distinct and JSON-exact",
          "[sweep]") {
  CHECK(sweep::replication_seed(7, 0) == 7);
  std::set<std::uint64_t> seen{7};
  for (std::size_t r = 1; r < 1000; ++r) {
    const auto s = sweep::replication_seed(7, r);
    CHECK(s < (std::uint64_t{1} << 53));
    seen.insert(s);
  }
  CHECK(seen.size() == 1000);
  CHECK(sweep::replication_seed(7, 3) == sweep::replication_seed(7, 3));
  CHECK(sweep::replication_seed(7, 3) != sweep::replication_seed(8, 3));
}

TEST_CASE("sweep statistics: Student t intervals and their coverage", "[sweep]") {
  CHECK(sweep::student_t_975(1) == Approx(12.7062).epsilon(1e-4));
  CHECK(sweep::student_t_975(4) == Approx(2.7764).epsilon(1e-4));
  CHECK(sweep::student_t_975(1000) == Approx(1.9623).epsilon(1e-4));
  const auto s = sweep::summarize({1, 2, 3, 4, 5});
  CHECK(s.mean == 3);
  CHECK(s.ci95 == Approx(2.7764 * std::sqrt(2.5) / std::sqrt(5.0)).epsilon(1e-4));
  CHECK(std::isnan(sweep::summarize({4}).ci95));
  CHECK(std::isnan(sweep::summarize({}).mean));

  // Normal samples of 5: the interval holds the true mean 95% of the time (sd of the rate 0.5%).
  Rng rng(42);
  int hits = 0;
  const int trials = 20000;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> v;
    for (int i = 0; i < 5; ++i) v.push_back(10.0 + 2.0 * rng.normal());
    const auto m = sweep::summarize(v);
    hits += std::abs(m.mean - 10.0) <= m.ci95 ? 1 : 0;
  }
  CHECK(hits / double(trials) == Approx(0.95).margin(0.01));
}

TEST_CASE("sweep metrics: numeric leaves in document order, without perf and identity keys",
          "[sweep]") {
  const auto j = nlohmann::ordered_json::parse(
      R"({"sonicsim_version":"x","scenario":"s","seed":3,"events":{"completed":5,"t":{"mean":0.5}},
          "servers":[{"name":"gpu","utilization":0.9}],"analytic":{"saturated":true,"n":null},
          "perf":{"wall_time_s":1}})");
  const auto m = sweep::flatten_metrics(j);
  REQUIRE(m.size() == 4);
  CHECK(m[0].first == "events.completed");
  CHECK(m[1].first == "events.t.mean");
  CHECK(m[2].first == "servers.0.utilization");
  CHECK(m[3] == std::pair<std::string, double>{"analytic.saturated", 1.0});
}

TEST_CASE("sweep table: CSV quoting, rows and reading them back", "[sweep]") {
  CHECK(sweep::csv_cell("plain") == "plain");
  CHECK(sweep::csv_cell("a,b \"c\"\nd") == "\"a,b \"\"c\"\" | d\"");
  std::vector<std::string> cells;
  CHECK(util::split_csv_line("x,\"a,b \"\"c\"\"\",,3", cells));
  CHECK(cells == Values{"x", "a,b \"c\"", "", "3"});
  CHECK_FALSE(util::split_csv_line("x,\"open", cells));
  CHECK(sweep::format_number(0.1) == "0.1");
  CHECK(sweep::format_number(std::nan("")) == "");
  CHECK(sweep::param_cell("\"1min\"") == "1min");
  CHECK(sweep::param_cell("2.5ms") == "2.5ms");
  CHECK(sweep::param_cell("4") == "4");

  const auto grid = sweep::make_grid({parse_parameter("workload.jobs=1,2")}, {});
  sweep::Run a, b, c;
  a.ok = b.ok = true;
  a.replication = 0;
  b.replication = 1;
  a.has_seed = true;
  a.seed = 9;
  a.metrics = {{"x", 1.0}, {"y", 4.0}};
  b.metrics = {{"x", 3.0}, {"y", 4.0}};
  const auto row = sweep::make_row("abc", 2, 1, {"2"}, {&b, &a});
  CHECK(row.fixed == Values{"abc", "1", "2", "2", "2", "ok", "", "9"});
  REQUIRE(row.metrics.size() == 2);
  CHECK(row.metrics[0].second.first == "2.0");
  CHECK(row.metrics[0].second.second ==
        sweep::format_number(sweep::student_t_975(1) * std::sqrt(2.0) / std::sqrt(2.0)));
  c.error = "bad, very\nbad";
  const auto failed = sweep::make_row("abc", 2, 0, {"1"}, {&c});
  CHECK(failed.fixed[5] == "failed");
  CHECK(failed.fixed[6] == "bad, very\nbad");

  const auto fixed = sweep::fixed_header(grid);
  CHECK(fixed == Values{"sweep_id", "point", "n_points", "param.workload.jobs", "replications",
                        "status", "error", "seed"});
  const auto metrics = sweep::metric_union({failed, row});
  const std::string text = sweep::header_line(fixed, metrics) + sweep::row_line(failed, metrics) +
                           sweep::row_line(row, metrics) + "abc,1,2,";  // an interrupted line
  const std::string file = "sweep-table-test.csv";
  {
    std::FILE* f = std::fopen(file.c_str(), "w");
    REQUIRE(f);
    std::fputs(text.c_str(), f);
    std::fclose(f);
  }
  const auto t = sweep::read_table(file);
  std::remove(file.c_str());
  CHECK(t.truncated);
  CHECK(t.fixed == fixed);
  CHECK(t.metrics == Values{"x", "y"});
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[0].fixed[6] == "bad, very | bad");
  CHECK(t.rows[0].metrics.empty());
  CHECK(t.rows[1].metrics == row.metrics);
}

TEST_CASE("streaming runner: every item once, in completion order; a stop flag ends it early",
          "[sweep][runner]") {
  std::vector<std::size_t> indices = {4, 2, 7, 0};
  std::vector<std::size_t> seen;
  points::StreamHooks hooks;
  hooks.on_done = [&](std::size_t i, points::ChildOutcome&& o) {
    CHECK(o.ok);
    CHECK(o.output == "item " + std::to_string(i));
    seen.push_back(i);
  };
  const auto work = [](std::size_t i) { return "item " + std::to_string(i); };
  CHECK(points::run_in_children_streaming(indices, work, hooks, 2));
  std::sort(seen.begin(), seen.end());
  CHECK(seen == std::vector<std::size_t>{0, 2, 4, 7});

  // After the first result the flag goes up: the rest are killed, nothing more is reported.
  static volatile std::sig_atomic_t stop = 0;
  seen.clear();
  hooks.stop = &stop;
  hooks.on_done = [&](std::size_t i, points::ChildOutcome&&) {
    seen.push_back(i);
    stop = 1;
  };
  const auto slow = [](std::size_t i) {
    if (i != 0) ::sleep(30);
    return std::string("done");
  };
  const auto start = std::chrono::steady_clock::now();
  CHECK_FALSE(points::run_in_children_streaming({0, 1, 2}, slow, hooks, 3));
  CHECK(seen == std::vector<std::size_t>{0});
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
}

TEST_CASE("sweep id: the same sweep gives the same id; another scenario, spec or R another",
          "[sweep]") {
  const auto grid = sweep::make_grid({parse_parameter("workload.jobs=1:4:1")}, {});
  const auto id = sweep::fingerprint("abc", grid, {}, 3);
  CHECK(id.size() == 16);
  CHECK(id == sweep::fingerprint("abc", grid, {}, 3));
  CHECK(id != sweep::fingerprint("abd", grid, {}, 3));
  CHECK(id != sweep::fingerprint("abc", grid, {}, 4));
  const auto other = sweep::make_grid({parse_parameter("workload.jobs=1,2,3,4")}, {});
  CHECK(id != sweep::fingerprint("abc", other, {}, 3));
}

namespace {

// Runs `bash -c 'printf %s WORD'` on a quoted word and returns what the shell made of it.
std::string through_shell(const std::string& word) {
  const std::string command =
      "bash -c " + sweep::shell_quote("printf %s " + sweep::shell_quote(word));
  FILE* p = ::popen(command.c_str(), "r");
  REQUIRE(p);
  std::string out;
  char buffer[256];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, p)) > 0;) out.append(buffer, n);
  ::pclose(p);
  return out;
}

sweep::BatchJob example_job() {
  sweep::BatchJob job;
  job.sonicsim = "/opt/sonic sim/bin/sonicsim";
  job.workdir = "/home/planner/it's here";
  job.dir = "/scratch/s.batch";
  job.sweep_args = {"s.json", "--param", "workload.jobs=10:100:10", "--set", "note=\"$HOME\""};
  job.sweep_id = "0123456789abcdef";
  job.tasks = 7;
  job.max_running = 3;
  job.cpus_per_task = 4;
  job.partition = "cpu";
  job.time = "1:00:00";
  job.sbatch_options = {"--constraint=skylake"};
  job.request_memory = "2GB";
  job.condor_commands = {"+JobFlavour = \"longlunch\""};
  return job;
}

}  // namespace

TEST_CASE("batch files: shell quoting survives any text", "[sweep][batch]") {
  for (const std::string word : {"plain", "it's", "$HOME `id` \\ \"q\"", "a b\tc", "", "'''"})
    CHECK(through_shell(word) == word);
}

TEST_CASE("batch files: the Slurm script puts every directive before the first command",
          "[sweep][batch]") {
  const auto job = example_job();
  const std::string s = sweep::slurm_script(job);
  CHECK(s.find("#SBATCH --array=1-7%3\n") != std::string::npos);
  CHECK(s.find("#SBATCH --cpus-per-task=4\n") != std::string::npos);
  CHECK(s.find("#SBATCH --partition=cpu\n") != std::string::npos);
  CHECK(s.find("#SBATCH --time=1:00:00\n") != std::string::npos);
  CHECK(s.find("#SBATCH --constraint=skylake\n") != std::string::npos);
  CHECK(s.find("#SBATCH --output=/scratch/s.batch/logs/slurm-%A_%a.out\n") != std::string::npos);
  // sbatch stops reading directives at the first line that is neither a comment nor blank.
  const auto first_command = s.find("\nexec ");
  REQUIRE(first_command != std::string::npos);
  CHECK(s.rfind("#SBATCH") < first_command);
  CHECK(s.find("--account") == std::string::npos);  // not given: the site's default
}

TEST_CASE("batch files: the shard script runs shard I of N with the sweep's own arguments",
          "[sweep][batch]") {
  const auto job = example_job();
  const std::string s = sweep::shard_script(job);
  CHECK(s.rfind("#!/bin/bash\n", 0) == 0);
  CHECK(s.find("cd '/home/planner/it'\\''s here' || exit 2") != std::string::npos);
  CHECK(s.find("'/opt/sonic sim/bin/sonicsim' sweep 's.json' '--param' 'workload.jobs=10:100:10' "
               "'--set' 'note=\"$HOME\"'") != std::string::npos);
  CHECK(s.find("--shard \"$i/7\" --workers \"$workers\" --resume -o "
               "'/scratch/s.batch/shards/shard-'\"$i\".csv") != std::string::npos);
  CHECK(s.find("${SLURM_CPUS_PER_TASK:-4}") != std::string::npos);
  CHECK(sweep::shard_csv_path(job, 3) == "/scratch/s.batch/shards/shard-3.csv");
}

TEST_CASE("batch files: the HTCondor submit file queues N jobs numbered from 0", "[sweep][batch]") {
  const std::string s = sweep::condor_submit(example_job());
  for (const std::string line :
       {"executable = /scratch/s.batch/shard.sh\n", "arguments = --zero-based $(Process)\n",
        "request_cpus = 4\n", "request_memory = 2GB\n", "+JobFlavour = \"longlunch\"\n",
        "initialdir = /home/planner/it's here\n"})
    CHECK(s.find(line) != std::string::npos);
  CHECK(s.substr(s.size() - 8) == "queue 7\n");
}

TEST_CASE("batch files: an option with a line break is refused, naming the flag",
          "[sweep][batch]") {
  auto job = example_job();
  job.sbatch_options.push_back("--qos=a\necho injected");
  try {
    sweep::check_batch_options(job);
    FAIL("no error");
  } catch (const scenario::InputError& e) {
    CHECK(std::string(e.what()).find("--sbatch-option") != std::string::npos);
    CHECK(std::string(e.what()).find("line break") != std::string::npos);
  }
  CHECK_NOTHROW(sweep::check_batch_options(example_job()));
}
