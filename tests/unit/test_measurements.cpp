// Measured scans (CSV) for `compare` and `calibrate scan`: what is accepted, and that every bad
// input names the file, the line and the column with what was found and what was expected.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <sonicsim/calibration/measurements.hpp>
#include <sonicsim/scenario/loader.hpp>

using namespace sonicsim::calibration;
using sonicsim::scenario::InputError;

namespace {

MeasurementOptions jobs_options(std::string metric = {}, std::size_t min_rows = 2) {
  MeasurementOptions o;
  o.vary = "workload.jobs";
  o.metric = std::move(metric);
  o.min_rows = min_rows;
  return o;
}

// The message of the InputError that parsing `text` throws ("" if it parses).
std::string error_of(const std::string& text, const MeasurementOptions& o = jobs_options()) {
  try {
    parse_measurements(text, "scan.csv", o);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a scan with comments, blank lines and stddev columns is read", "[measurements]") {
  const auto m = parse_measurements(
      "# measured on the test bed\n"
      "\n"
      "jobs, per_job_throughput_per_s ,per_job_throughput_per_s_stddev\r\n"
      "1,29.9,0.2\n"
      "   # a comment inside\n"
      "2,30.1,0.3\n"
      "4,20.5,0.1\n",
      "scan.csv", jobs_options());
  CHECK(m.x_column == "jobs");
  CHECK(m.x_index == 1);
  CHECK(m.metric == Metric::PerJobThroughput);
  CHECK(m.metric_index == 2);
  CHECK(m.has_stddev);
  REQUIRE(m.rows.size() == 3);
  CHECK(m.rows[1].x == 2.0);
  CHECK(m.rows[1].value == 30.1);
  CHECK(m.rows[1].stddev == 0.3);
  CHECK(m.rows[1].line == 6);  // lines count comments and blanks, as an editor shows them
}

TEST_CASE("the x column is the last part of --vary, the whole path, or --x", "[measurements]") {
  MeasurementOptions o = jobs_options();
  o.vary = "servers.0.count";
  CHECK(parse_measurements("count,throughput_per_s\n1,10\n2,20\n", "f", o).x_column == "count");
  CHECK(parse_measurements("servers.0.count,throughput_per_s\n1,10\n2,20\n", "f", o).x_column ==
        "servers.0.count");
  o.x_column = "gpus";
  const auto m = parse_measurements("throughput_per_s,gpus\n10,1\n20,2\n", "f", o);
  CHECK(m.x_index == 2);
  CHECK(m.rows[1].x == 2.0);
  CHECK(m.rows[1].value == 20.0);
}

TEST_CASE("every metric is read under its results name; --metric picks one of several",
          "[measurements]") {
  for (Metric metric : all_metrics()) {
    const std::string name = metric_name(metric);
    const auto m = parse_measurements("jobs," + name + "\n1,0.5\n2,0.25\n", "f", jobs_options());
    CHECK(m.metric == metric);
    CHECK(metric_from_name(name) == metric);
  }
  const std::string both = "jobs,time_per_event_s,throughput_per_s\n1,0.06,16\n2,0.06,32\n";
  CHECK_THAT(error_of(both), Catch::Contains("scan.csv: line 1: found several metric columns") &&
                                 Catch::Contains("--metric"));
  const auto m = parse_measurements(both, "f", jobs_options("throughput_per_s"));
  CHECK(m.metric == Metric::Throughput);
  CHECK(m.rows[1].value == 32.0);
  // The other metric's cells are not needed, but may not be garbage either.
  CHECK_THAT(error_of("jobs,time_per_event_s,throughput_per_s\n1,fast,16\n2,0.06,32\n",
                      jobs_options("throughput_per_s")),
             Catch::Contains("line 2, column 2 (`time_per_event_s`): found `fast`"));
}

TEST_CASE("metrics are read from results JSON and derived from a throughput", "[measurements]") {
  const auto results = nlohmann::json::parse(R"({"events": {"throughput_per_s": 100,
      "per_job_throughput_per_s": 25, "time_per_event_s": {"mean": 0.2, "p50": 0.1},
      "thread_time_per_event_s": 0.21}})");
  CHECK(metric_of_results(results, Metric::Throughput) == 100.0);
  CHECK(metric_of_results(results, Metric::PerJobThroughput) == 25.0);
  CHECK(metric_of_results(results, Metric::TimePerEvent) == 0.2);
  CHECK(metric_of_results(results, Metric::ThreadTimePerEvent) == 0.21);
  CHECK(std::isnan(metric_of_results(nlohmann::json::object(), Metric::Throughput)));
  // 20 threads in 4 jobs at 100 events/s: 25 per job, 0.2 s per event per thread.
  CHECK(metric_of_throughput(Metric::PerJobThroughput, 100, 20, 4) == 25.0);
  CHECK(metric_of_throughput(Metric::TimePerEvent, 100, 20, 4) == 0.2);
}

TEST_CASE("x values become --set values the scenario accepts", "[measurements]") {
  CHECK(format_x(4.0) == "4");
  CHECK(format_x(-2.0) == "-2");
  CHECK(format_x(0.25) == "0.25");
  CHECK(default_x_column("workload.jobs") == "jobs");
  CHECK(default_x_column("seed") == "seed");
}

TEST_CASE("a missing, unreadable or empty file is named", "[measurements][bad]") {
  const std::string missing = "/nonexistent/scan.csv";
  CHECK_THROWS_WITH(read_measurements(missing, jobs_options()),
                    Catch::Contains(missing) && Catch::Contains("cannot read"));
  CHECK_THROWS_WITH(read_measurements("/tmp", jobs_options()),
                    Catch::Contains("/tmp") && Catch::Contains("directory"));
  CHECK_THAT(error_of(""), Catch::Contains("scan.csv") && Catch::Contains("no header"));
  CHECK_THAT(error_of("# only comments\n\n"), Catch::Contains("no header"));
  // A file that starts with data has lost its header.
  CHECK_THAT(error_of("1,29.9\n2,30.1\n"),
             Catch::Contains("scan.csv: line 1: found a row of numbers, expected a header row"));
}

TEST_CASE("header problems name the line, the column and the likely fix", "[measurements][bad]") {
  CHECK_THAT(error_of("jbos,per_job_throughput_per_s\n1,29.9\n2,30.1\n"),
             Catch::Contains("scan.csv: line 1: no column `jobs`") &&
                 Catch::Contains("did you mean `jobs`?") && Catch::Contains("--x"));
  CHECK_THAT(error_of("jobs,per_job_througput_per_s\n1,29.9\n2,30.1\n"),
             Catch::Contains("scan.csv: line 1, column 2 (`per_job_througput_per_s`): unknown "
                             "column; did you mean `per_job_throughput_per_s`?"));
  CHECK_THAT(error_of("jobs,gpus\n1,2\n2,2\n"),
             Catch::Contains("column 2 (`gpus`): unknown column") &&
                 Catch::Contains("line 1: no metric column"));
  CHECK_THAT(error_of("jobs,throughput_per_s,time_per_event_s_stddev\n1,2,0.1\n2,3,0.1\n"),
             Catch::Contains("column 3 (`time_per_event_s_stddev`): found a standard deviation "
                             "without its metric column"));
  CHECK_THAT(error_of("jobs,throughput_per_s,jobs\n1,2,1\n2,3,2\n"),
             Catch::Contains("column 3 (`jobs`): found the column a second time"));
  CHECK_THAT(error_of("jobs,throughput_per_s\n1,2\n2,3\n", jobs_options("throughput")),
             Catch::Contains("--metric: found `throughput`") &&
                 Catch::Contains("did you mean `throughput_per_s`?"));
  CHECK_THAT(error_of("jobs,throughput_per_s\n1,2\n2,3\n", jobs_options("time_per_event_s")),
             Catch::Contains("scan.csv: line 1: no column `time_per_event_s` for --metric"));
}

TEST_CASE("bad cells name their line and column", "[measurements][bad]") {
  const std::string header = "# scan\njobs,time_per_event_s,time_per_event_s_stddev\n";
  CHECK_THAT(error_of(header + "1,0.06,0.001\n2,62ms,0.001\n"),
             Catch::Contains("scan.csv: line 4, column 2 (`time_per_event_s`): found `62ms`, "
                             "expected a number in seconds (no unit)"));
  CHECK_THAT(error_of(header + "1,0.06,0.001\nfour,0.06,0.001\n"),
             Catch::Contains("line 4, column 1 (`jobs`): found `four`, expected a number"));
  CHECK_THAT(error_of(header + "1,,0.001\n2,0.06,0.001\n"),
             Catch::Contains("line 3, column 2 (`time_per_event_s`): found an empty cell"));
  CHECK_THAT(error_of(header + "1,0.06\n2,0.06,0.001\n"),
             Catch::Contains("line 3: found 2 cells, expected 3"));
  CHECK_THAT(error_of(header + "1,-0.06,0.001\n2,0.06,0.001\n"),
             Catch::Contains("line 3, column 2 (`time_per_event_s`): found -0.06, expected a "
                             "positive time"));
  CHECK_THAT(error_of(header + "1,0.06,0\n2,0.06,0.001\n"),
             Catch::Contains("line 3, column 3 (`time_per_event_s_stddev`): found 0, expected a "
                             "positive standard deviation"));
  CHECK_THAT(error_of(header + "1,0.06,0.001\n2,nan,0.001\n"),
             Catch::Contains("line 4, column 2") && Catch::Contains("found `nan`"));
  // Every problem at once, not one per run.
  const std::string all = error_of(header + "x,0.06,0.001\n2,y,0.001\n");
  CHECK_THAT(all, Catch::Contains("line 3, column 1") && Catch::Contains("line 4, column 2"));
}

TEST_CASE("too few rows name how many are needed and why", "[measurements][bad]") {
  CHECK_THAT(error_of("jobs,throughput_per_s\n1,2\n"),
             Catch::Contains("scan.csv: found 1 data row, expected at least 2"));
  MeasurementOptions o = jobs_options({}, 4);
  o.min_rows_reason = "3 free parameters + 1";
  CHECK_THAT(error_of("jobs,throughput_per_s\n1,2\n2,3\n3,4\n", o),
             Catch::Contains("found 3 data rows, expected at least 4 (3 free parameters + 1)"));
  CHECK(error_of("jobs,throughput_per_s\n1,2\n2,3\n3,4\n4,5\n", o).empty());
}
