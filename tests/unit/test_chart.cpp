// The report's SVG charts and HTML page: ticks, units, escaping, that every chart has axes,
// tick labels and data, and that the page is well-formed XML with no external reference.
#include <unistd.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <regex>
#include <string>
#include <tuple>
#include <vector>

#include <sonicsim/report/chart.hpp>
#include <sonicsim/report/panels.hpp>
#include <sonicsim/report/report.hpp>
#include <sonicsim/sweep/sweep.hpp>

using namespace sonicsim::report;
using namespace sonicsim::report::chart;

namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// XML well-formedness, as far as the report needs it: tags properly nested and closed, quoted
// attributes, only XML's own entities. "" when fine, else the first problem.
std::string xml_problem(const std::string& doc) {
  std::vector<std::string> open;
  for (std::size_t i = 0; i < doc.size();) {
    if (doc[i] == '&') {
      const auto end = doc.find(';', i);
      const std::string entity = end == std::string::npos ? "" : doc.substr(i, end - i + 1);
      if (!std::regex_match(entity, std::regex("&(amp|lt|gt|quot|apos|#[0-9]+);")))
        return "bad entity at " + std::to_string(i) + ": " + doc.substr(i, 12);
      i = end + 1;
      continue;
    }
    if (doc[i] == '>') return "a bare > at " + std::to_string(i);
    if (doc[i] != '<') {
      ++i;
      continue;
    }
    if (doc.compare(i, 9, "<!DOCTYPE") == 0) {
      i = doc.find('>', i) + 1;
      continue;
    }
    const auto end = doc.find('>', i);
    if (end == std::string::npos) return "an unclosed tag at " + std::to_string(i);
    const std::string tag = doc.substr(i + 1, end - i - 1);
    if (tag.find('<') != std::string::npos) return "a < inside a tag at " + std::to_string(i);
    if (count(tag, "\"") % 2 != 0) return "unbalanced quotes in <" + tag + ">";
    const bool closing = !tag.empty() && tag[0] == '/';
    const bool empty_element = !tag.empty() && tag.back() == '/';
    const std::string name =
        tag.substr(closing ? 1 : 0, tag.find_first_of(" /\n", closing ? 1 : 0) - (closing ? 1 : 0));
    if (name.empty()) return "a tag without a name at " + std::to_string(i);
    if (closing) {
      if (open.empty() || open.back() != name)
        return "</" + name + "> closes <" + (open.empty() ? "" : open.back()) + ">";
      open.pop_back();
    } else if (!empty_element) {
      open.push_back(name);
    }
    i = end + 1;
  }
  return open.empty() ? "" : "<" + open.back() + "> is never closed";
}

// Every chart: the two axis lines, tick labels, at least one data path or bar.
void check_chart(const std::string& svg) {
  INFO(svg.substr(0, 3000));
  CHECK(svg.rfind("<svg", 0) == 0);
  CHECK(count(svg, "class=\"axis") >= 2);
  CHECK(count(svg, "class=\"tick\"") >= 2);
  CHECK(count(svg, "class=\"series") >= 1);
  CHECK(xml_problem(svg).empty());
  // No coordinate or size from a missing value.
  CHECK(!std::regex_search(svg, std::regex("=\"[^\"]*(nan|inf)", std::regex::icase)));
}

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = "/tmp/sonicsim-chart-" + std::to_string(::getpid()) + "-" + name;
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("chart: nice ticks step by 1, 2 or 5 x 10^k and cover the range", "[chart]") {
  CHECK(nice_ticks(0, 97) == std::vector<double>{0, 20, 40, 60, 80, 100});
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> exponent(-9, 9), unit(0, 1);
  for (int k = 0; k < 2000; ++k) {
    const double scale = std::pow(10.0, exponent(rng));
    const double lo = (unit(rng) - 0.3) * scale, hi = lo + unit(rng) * scale + 1e-300;
    const auto t = nice_ticks(lo, hi);
    INFO(lo << " .. " << hi);
    REQUIRE(t.size() >= 2);
    CHECK(t.size() <= 12);
    CHECK(t.front() <= lo);
    CHECK(t.back() >= hi);
    const double step = t[1] - t[0];
    const double mantissa = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
    CHECK((std::abs(mantissa - 1) < 1e-6 || std::abs(mantissa - 2) < 1e-6 ||
           std::abs(mantissa - 5) < 1e-6));
    for (std::size_t i = 1; i < t.size(); ++i) CHECK(t[i] - t[i - 1] == Approx(step));
  }
  // One value: a range around it, never a single tick.
  CHECK(nice_ticks(5, 5).size() >= 2);
  CHECK(nice_ticks(0, 0).size() >= 2);
  CHECK(nice_ticks(NAN, 3).size() >= 2);
}

TEST_CASE("chart: units are SI-formatted for the axis and for single values", "[chart]") {
  CHECK(scale_for(Unit::Seconds, 0.0123).unit == "ms");
  CHECK(scale_for(Unit::Seconds, 4.5e-6).unit == "\xC2\xB5s");
  CHECK(scale_for(Unit::Seconds, 3600).unit == "s");
  CHECK(format_value(0.0123, Unit::Seconds) == "12.3 ms");
  CHECK(format_value(4.5e-6, Unit::Seconds) == "4.5 \xC2\xB5s");
  CHECK(format_value(0.38, Unit::Fraction) == "38%");
  CHECK(format_value(25000, Unit::Plain) == "25k");
  CHECK(format_value(4e7, Unit::BytesPerSecond) == "40 MB/s");
  CHECK(format_value(NAN, Unit::Plain) == "-");
  const Scale ms = scale_for(Unit::Seconds, 0.02);
  CHECK(tick_label(0.005, 0.005, ms) == "5");
  CHECK(tick_label(0.0025, 0.0005, ms) == "2.5");
  CHECK(tick_label(-1e-18, 0.005, ms) == "0");
  CHECK(tick_label(250000, 50000, scale_for(Unit::Plain, 250000)) == "250k");
}

TEST_CASE("chart: text is escaped in labels, titles and tooltips", "[chart]") {
  CHECK(escape("<a href=\"x\">&'") == "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
  XYChart c;
  c.title = "<script>alert('x')</script> & co";
  c.x = {"jobs <N>", Unit::Plain, false};
  c.y = {"\"quoted\"", Unit::Plain, true};
  c.series.push_back({"a&b", {1, 2, 3}, {1, 4, 9}, {}});
  c.markers.push_back({2, "knee <here>"});
  const auto svg = render(c);
  CHECK(svg.find("<script") == std::string::npos);
  CHECK_THAT(svg, Catch::Contains("&lt;script&gt;"));
  CHECK_THAT(svg, Catch::Contains("a&amp;b"));
  check_chart(svg);
}

TEST_CASE("chart: every kind of chart has axes, tick labels and data", "[chart]") {
  XYChart xy;
  xy.title = "Throughput";
  xy.x = {"jobs", Unit::Plain, false};
  xy.y = {"time", Unit::Seconds, true};
  xy.x2_label = "N_CPU/N_GPU";
  xy.x2_factor = 0.25;
  xy.series.push_back({"simulated", {10, 20, 30}, {0.01, 0.02, NAN}, {0.001, 0.002, 0.001}});
  xy.series.push_back({"formula", {10, 20, 30}, {0.01, 0.015, 0.03}, {}, Style::Dashed, 1});
  xy.markers.push_back({21.5, "knee 21.5"});
  const auto svg = render(xy);
  check_chart(svg);
  CHECK(count(svg, "class=\"band\"") == 1);
  CHECK(count(svg, "class=\"marker\"") == 2);  // the line and its label
  CHECK_THAT(svg, Catch::Contains("time (ms)"));
  CHECK_THAT(svg, Catch::Contains("N_CPU/N_GPU"));

  BarChart bars;
  bars.title = "p99 by model";
  bars.y = {"latency", Unit::Seconds, true};
  bars.categories = {"pn", "deepmet"};
  bars.series = {"a.json", "b.json"};
  bars.values = {{0.014, 0.003}, {0.009, NAN}};
  const auto bar_svg = render(bars);
  check_chart(bar_svg);
  CHECK(count(bar_svg, "class=\"series bar\"") == 3);  // NaN leaves a gap

  StackedBarChart stacked;
  stacked.title = "Where the time goes";
  stacked.x = {"time per event", Unit::Seconds, true};
  stacked.bars = {"simulated", "formula"};
  stacked.parts = {"CPU", "network", "queue", "compute"};
  stacked.values = {{0.9, 0.0025, 0.0005, 0.0115}, {0.897, 0.0024, NAN, 0.0078}};
  const auto stacked_svg = render(stacked);
  check_chart(stacked_svg);
  CHECK(count(stacked_svg, "class=\"series bar\"") == 7);

  // A chart without data still has its axes and no NaN coordinates.
  XYChart empty;
  empty.title = "nothing";
  const auto empty_svg = render(empty);
  CHECK(count(empty_svg, "class=\"axis") >= 2);
  CHECK(xml_problem(empty_svg).empty());
  CHECK(empty_svg.find("nan") == std::string::npos);
}

namespace {

// A sweep CSV over workload.jobs as `sonicsim sweep` writes it, with the columns the report
// reads: N_CPU = threads_per_job x jobs on `devices` devices, the knee at `knee_per_device`
// threads per device, throughput saturating at devices / t_gpu.
std::string sweep_csv(double devices, double knee_per_device, double threads_per_job,
                      double uplink_peak_per_job, int replications) {
  const std::vector<std::string> metrics{
      "analytic.n_cpu",        "analytic.n_gpu",           "analytic.saturation_n_cpu_per_gpu",
      "analytic.t_ideal_s",    "events.throughput_per_s",  "events.thread_time_per_event_s",
      "servers.0.utilization", "links.0.peak_utilization", "requests.latency_s.p99"};
  std::string csv = "sweep_id,point,n_points,param.workload.jobs,replications,status,error,seed";
  for (const auto& m : metrics) csv += "," + m + ".mean," + m + ".ci95";
  csv += "\n";
  const int points = 10;
  for (int i = 0; i < points; ++i) {
    const double jobs = 10.0 * (i + 1);
    const double threads = jobs * threads_per_job;
    const double t_ideal = 0.062, t_gpu = t_ideal / knee_per_device;
    const double throughput = std::min(threads / t_ideal, devices / t_gpu);
    const double values[] = {threads,
                             devices,
                             knee_per_device,
                             t_ideal,
                             throughput,
                             threads / throughput,
                             throughput * t_gpu / devices,
                             uplink_peak_per_job * jobs,
                             0.01 + 0.0001 * jobs};
    csv += "abc," + std::to_string(i) + "," + std::to_string(points) + "," +
           std::to_string(static_cast<int>(jobs)) + "," + std::to_string(replications) + ",ok,,1";
    for (double v : values) {
      csv += ',';
      csv += sonicsim::sweep::format_number(v);
      csv += ',';
      if (replications > 1) csv += sonicsim::sweep::format_number(v * 0.02);
    }
    csv += "\n";
  }
  return csv;
}

}  // namespace

TEST_CASE("report: sweep what-if sentences state the differences in the numbers", "[report]") {
  const double knee_a = 21.5, knee_b = 21.5;
  const auto a = write_file("a.csv", sweep_csv(8, knee_a, 2, 0.003, 3));
  const auto b = write_file("b.csv", sweep_csv(12, knee_b, 2, 0.0038, 3));
  // The link's name comes from the JSONL beside the CSV.
  const auto jsonl = write_file("a.jsonl", R"({"results":{"links":[{"name":"site_uplink"}]}})");
  const auto sa = read_sweep(a), sb = read_sweep(b);
  REQUIRE(sa.points.size() == 10);
  CHECK(sa.x_param == "workload.jobs");
  CHECK(sa.groups.size() == 1);
  // N_CPU = 2 x jobs: the knee in jobs is (knee per device x devices) / 2.
  CHECK(knee_x(sa, 0) == Approx(knee_a * 8 / 2));
  CHECK(threads_per_device_factor(sa) == Approx(2.0 / 8));
  const auto fa = sweep_figures(sa), fb = sweep_figures(sb);
  const auto said = join_clauses(sweep_changes(fa, fb));
  INFO(said);
  CHECK_THAT(said, Catch::Contains("adding 4 devices (8 -> 12)"));
  CHECK_THAT(said, Catch::Contains("moves the knee (formula) from " + num(knee_a * 8 / 2) + " to " +
                                   num(knee_b * 12 / 2) + " jobs"));
  const double peak_a = fa.peak_throughput, peak_b = fb.peak_throughput;
  CHECK(peak_a == Approx(8 / (0.062 / knee_a)));
  CHECK_THAT(said,
             Catch::Contains("changes the peak throughput by " + signed_pct(peak_b / peak_a - 1) +
                             " (" + num(peak_a) + " -> " + num(peak_b) + " events/s)"));
  // a has the name from its JSONL, b does not: its link is new.
  CHECK(fa.link_peak_utilization.count("site_uplink") == 1);
  CHECK_THAT(said, Catch::Contains("the link 0 peaks at " + pct(0.0038 * 100)));
  std::remove(jsonl.c_str());

  // Same sweep twice: nothing but "unchanged".
  const auto same = join_clauses(sweep_changes(fa, fa));
  CHECK_THAT(same, Catch::Contains("leaves the peak throughput unchanged"));
  CHECK_THAT(same, !Catch::Contains("knee"));

  const auto text = text_report(read_inputs({a, b}), Format::Text);
  CHECK_THAT(text, Catch::Contains("knee (formula)"));
  CHECK_THAT(text, Catch::Contains(num(knee_a * 8 / 2) + " jobs"));
  std::remove(a.c_str());
  std::remove(b.c_str());
}

TEST_CASE("report: a knee that moves with the devices is placed between the points", "[report]") {
  // servers.0.count swept at a fixed 200 threads: the knee is where 200 = 21.5 x devices.
  std::string csv =
      "sweep_id,point,n_points,param.servers.0.count,replications,status,error,seed,"
      "analytic.n_cpu.mean,analytic.n_cpu.ci95,analytic.n_gpu.mean,analytic.n_gpu."
      "ci95,analytic.saturation_n_cpu_per_gpu.mean,analytic.saturation_n_cpu_per_"
      "gpu.ci95\n";
  for (int g = 6; g <= 12; g += 2)
    csv += "x," + std::to_string(g / 2 - 3) + ",4," + std::to_string(g) + ",1,ok,,1,200,," +
           std::to_string(g) + ",,21.5,\n";
  const auto path = write_file("gpus.csv", csv);
  const auto s = read_sweep(path);
  CHECK(!s.x_log);  // 6..12: a linear axis
  const double k = knee_x(s, 0);
  CHECK(k > 8);
  CHECK(k < 10);
  CHECK(k == Approx(200 / 21.5).epsilon(0.02));
  CHECK(threads_per_device_factor(s) == 0.0);  // N_CPU/N_GPU is not proportional to x
  std::remove(path.c_str());
}

TEST_CASE("report: a multi-parameter sweep draws one line per value of the others", "[report]") {
  std::string csv =
      "sweep_id,point,n_points,param.workload.jobs,param.servers.0.count,replications,status,"
      "error,seed,events.throughput_per_s.mean,events.throughput_per_s.ci95\n";
  int point = 0;
  for (int g : {1, 2})
    for (int jobs : {10, 20, 30})
      csv += "x," + std::to_string(point++) + ",7," + std::to_string(jobs) + "," +
             std::to_string(g) + ",1,ok,,1," + std::to_string(jobs * g) + ",\n";
  csv += "x,6,7,40,2,1,failed,boom,1,,\n";
  const auto path = write_file("grid.csv", csv);
  const auto s = read_sweep(path);
  CHECK(s.x_param == "workload.jobs");
  CHECK(s.groups == std::vector<std::string>{"servers.0.count=1", "servers.0.count=2"});
  CHECK(s.failed == 1);
  const auto panels = sweep_panels({s});
  REQUIRE(!panels.empty());
  CHECK(count(panels.front().svg, "class=\"series\"") == 2);  // a line per device count
  // Charts whose columns the sweep lacks are skipped with a note, not drawn empty.
  CHECK(std::count_if(panels.begin(), panels.end(),
                      [](const Panel& p) { return !p.skipped.empty() && p.svg.empty(); }) == 5);
  std::remove(path.c_str());
}

TEST_CASE("report: the HTML page is well-formed and self-contained", "[report]") {
  const auto a = write_file("a.csv", sweep_csv(8, 21.5, 1, 0.003, 3));
  const auto b = write_file("b.csv", sweep_csv(10, 21.5, 1, 0.004, 1));
  const auto page = html_report(read_inputs({a, b}));
  INFO(xml_problem(page));
  CHECK(xml_problem(page).empty());
  CHECK(page.find("http://") == std::string::npos);
  CHECK(page.find("https://") == std::string::npos);
  CHECK(page.find("<script") == std::string::npos);
  CHECK(page.find("<link") == std::string::npos);
  CHECK(count(page, "<svg") >= 4);
  CHECK(count(page, "class=\"band\"") >= 1);  // a's replications give confidence bands
  CHECK_THAT(page, Catch::Contains("moves the knee (formula) from"));
  std::remove(a.c_str());
  std::remove(b.c_str());
}

TEST_CASE("report: bad inputs name the file and what was expected, and never crash", "[report]") {
  const auto text = write_file("notes.txt", "hello world\n");
  CHECK_THROWS_WITH(read_inputs({text}), Catch::Contains(text) &&
                                             Catch::Contains("found \"hello world") &&
                                             Catch::Contains("expected a results JSON"));
  const auto empty = write_file("empty.csv", "");
  CHECK_THROWS_WITH(read_inputs({empty}), Catch::Contains("an empty file"));
  const auto header_only =
      write_file("header.csv", "sweep_id,point,n_points,replications,status,error,seed\n");
  CHECK_THROWS_WITH(read_inputs({header_only}), Catch::Contains("no successful point"));

  // Every prefix of a valid sweep CSV and of a results-like JSON reads or is refused cleanly.
  const std::string csv = sweep_csv(8, 21.5, 1, 0.003, 2);
  const std::string json =
      R"({"events":{"throughput_per_s":1,"thread_time_per_event_s":1,"time_per_event_s":{"p99":1}},)"
      R"("timeseries":{"t_s":[1,2],"events_per_s":[1,"x"],"devices":[{"pool":"p"}]}})";
  for (const std::string& whole : {csv, json})
    for (std::size_t cut = 0; cut <= whole.size(); cut += 7) {
      const auto path = write_file("cut", whole.substr(0, cut));
      try {
        const auto in = read_inputs({path});
        (void)html_report(in);
      } catch (const sonicsim::scenario::InputError&) {
      }
      std::remove(path.c_str());
    }
  for (const auto& p : {text, empty, header_only}) std::remove(p.c_str());
}

TEST_CASE("chart: confidence bands stop at what the quantity can reach", "[chart]") {
  XYChart c;
  c.title = "utilization";
  c.x = {"jobs", Unit::Plain, false};
  c.y = {"utilization", Unit::Fraction, true};
  c.series.push_back({"gpu", {1, 2, 3}, {0.05, 0.6, 0.99}, {0.2, 0.2, 0.2}});
  const auto svg = render(c);
  check_chart(svg);
  // 0.99 + 0.2 would need a 120% tick and 0.05 - 0.2 a negative one: both are cut.
  CHECK_THAT(svg, Catch::Contains(">100</text>"));
  CHECK_THAT(svg, !Catch::Contains(">120</text>"));
  CHECK_THAT(svg, !Catch::Contains(">-20</text>"));
}

namespace {

// A results file with the keys the run panels read: two models, one device, one link, and
// (optionally) a time series of `windows` windows.
nlohmann::json run_results(const std::string& mode, int windows) {
  using nlohmann::json;
  json models = json::object(), per_model = json::object(), ts_models = json::object();
  const std::vector<double> window(windows, 1.0);
  for (const auto& [name, latency, queue, compute] :
       {std::tuple{"pn", 0.006, 0.0004, 0.005}, std::tuple{"met", 0.002, 0.0, 0.001}}) {
    models[name] = {{"latency_s", {{"p50", latency}, {"p99", 2 * latency}, {"mean", latency}}},
                    {"queue_time_s", {{"mean", queue}}},
                    {"compute_time_s", {{"mean", compute}}},
                    {"mean_batch_size", 4.0}};
    per_model[name] = {{"requests_per_event", name == std::string("pn") ? 2 : 1}};
    ts_models[name] = {{"inferences_per_s", window},
                       {"mean_batch_size", window},
                       {"latency_p50_s", window},
                       {"latency_p99_s", window},
                       {"executions_per_s", window}};
  }
  json doc = {{"scenario", "t"},
              {"warmup_s", 10.0},
              {"events",
               {{"throughput_per_s", 100.0},
                {"thread_time_per_event_s", 1.0},
                {"time_per_event_s", {{"p99", 2.0}}}}},
              {"requests",
               {{"sent", 10},
                {"failed", 0},
                {"fallback", 0},
                {"latency_s",
                 {{"p50", 0.004}, {"p90", 0.006}, {"p95", 0.007}, {"p99", 0.01}, {"max", 0.02}}}}},
              {"models", models},
              {"servers", json::array({{{"count", 1}, {"utilization", 0.5}}})},
              {"links", json::array({{{"name", "uplink"}, {"peak_utilization", 0.1}}})},
              {"analytic",
               {{"n_cpu", 100},
                {"n_gpu", 1},
                {"t_ideal_s", 0.95},
                {"t_sonic_s", 1.0},
                {"saturation_n_cpu_per_gpu", 90.0},
                {"mode", mode},
                {"t_cpu_s", 1.0},
                {"p", 0.1},
                {"t_gpu_s", 0.011},
                {"t_latency_s", 0.003},
                {"per_model", per_model}}}};
  if (windows > 0) {
    std::vector<double> t;
    for (int i = 1; i <= windows; ++i) t.push_back(10.0 * i);
    doc["timeseries"] = {
        {"t_s", t},
        {"events_per_s", window},
        {"devices",
         json::array(
             {{{"pool", "gpu"}, {"index", 0}, {"utilization", window}, {"queue_length", window}}})},
        {"models", ts_models},
        {"links", json::array({{{"name", "uplink"},
                                {"utilization", window},
                                {"bytes_per_s_to_servers", window},
                                {"bytes_per_s_to_clients", window}}})}};
  }
  return doc;
}

// The values of the stacked bar segments' tooltips, "BAR, PART: VALUE", in order.
std::vector<std::string> segments(const std::string& svg, const std::string& bar) {
  std::vector<std::string> out;
  const std::regex tooltip("<title>" + bar + ", ([^:<]+): ([^<]+)</title>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tooltip);
       it != std::sregex_iterator(); ++it)
    out.push_back((*it)[1].str() + "=" + (*it)[2].str());
  return out;
}

}  // namespace

TEST_CASE("report: a run's panels draw its time series and where an event's time goes",
          "[report]") {
  const auto path = write_file("run.json", run_results("sync", 6).dump());
  const auto run = read_results(path);
  REQUIRE(run.timeseries);
  const auto panels = run_panels(run);
  REQUIRE(panels.size() == 9);
  for (const auto& p : panels) {
    INFO(p.title << ": " << p.skipped);
    REQUIRE(!p.svg.empty());
    check_chart(p.svg);
  }
  // Sync: per event 2 x pn + 1 x met requests; CPU is the rest of the 1 s time per event.
  const double requests = 2 * 0.006 + 0.002, queue = 2 * 0.0004, compute = 2 * 0.005 + 0.001;
  const auto split = segments(panels.back().svg, "simulated");
  CHECK(split ==
        std::vector<std::string>{
            "CPU=" + format_value(1.0 - requests, Unit::Seconds),
            "network and overheads=" + format_value(requests - queue - compute, Unit::Seconds),
            "queue=" + format_value(queue, Unit::Seconds),
            "compute=" + format_value(compute, Unit::Seconds)});
  // The formula's bar: (1 - p) t_CPU, t_latency, t_GPU; no queue.
  const auto formula = segments(panels.back().svg, "formula \\(t_ideal\\)");
  CHECK(formula ==
        std::vector<std::string>{"CPU=" + format_value(0.9, Unit::Seconds),
                                 "network and overheads=" + format_value(0.003, Unit::Seconds),
                                 "compute=" + format_value(0.011, Unit::Seconds)});

  // Without a time series: one note instead of the seven panels; the rest is still drawn.
  const auto plain = write_file("plain.json", run_results("async", 0).dump());
  const auto quiet = run_panels(read_results(plain));
  REQUIRE(quiet.size() == 3);
  CHECK(quiet[0].svg.empty());
  CHECK_THAT(quiet[0].skipped, Catch::Contains("timeseries=true"));
  // Async: the CPU part is the formula's, the bar says why.
  CHECK(segments(quiet[2].svg, "simulated").front() == "CPU=" + format_value(0.9, Unit::Seconds));
  CHECK_THAT(quiet[2].svg, Catch::Contains("async"));

  // A time series without windows: every time panel is a note, none an empty chart.
  auto no_windows = run_results("sync", 0);
  no_windows["timeseries"] = {{"t_s", nlohmann::json::array()},
                              {"events_per_s", nlohmann::json::array()},
                              {"devices", nlohmann::json::array()},
                              {"models", nlohmann::json::object()},
                              {"links", nlohmann::json::array()}};
  const auto empty_path = write_file("empty-ts.json", no_windows.dump());
  const auto empty_panels = run_panels(read_results(empty_path));
  REQUIRE(empty_panels.size() == 9);
  for (std::size_t i = 0; i < 7; ++i)
    CHECK((empty_panels[i].svg.empty() && !empty_panels[i].skipped.empty()));
  std::remove(empty_path.c_str());

  // With the results' histogram, its bins replace the percentile curve: a bar per bin.
  auto with_bins = run_results("sync", 0);
  with_bins["requests"]["latency_s"]["histogram"] = {{"edges_s", {0.001, 0.01, 0.1}},
                                                     {"counts", {30, 7}}};
  const auto bins_path = write_file("bins.json", with_bins.dump());
  const auto binned = run_panels(read_results(bins_path));
  REQUIRE(binned.size() == 3);
  CHECK(binned[1].title == "Request latency histogram");
  check_chart(binned[1].svg);
  CHECK(count(binned[1].svg, "class=\"series bar\"") == 2);
  CHECK_THAT(binned[1].svg, Catch::Contains(">1 ms</text>") && Catch::Contains(">10 ms</text>"));
  CHECK(quiet[1].title == "Request latency at the stored percentiles");
  std::remove(bins_path.c_str());
  // A histogram whose edges do not bound its bins is bad input, named like any other key.
  with_bins["requests"]["latency_s"]["histogram"]["edges_s"] = {0.001, 0.01};
  const auto bad_path = write_file("bad-bins.json", with_bins.dump());
  CHECK_THROWS_WITH(read_results(bad_path),
                    Catch::Contains("/requests/latency_s/histogram/edges_s") &&
                        Catch::Contains("expected an array of 3 numbers"));
  std::remove(bad_path.c_str());

  // Two runs: grouped bars with a bar per run.
  const auto both = comparison_panels({read_results(path), read_results(plain)});
  REQUIRE(both.size() == 5);
  for (const auto& p : both) check_chart(p.svg);
  std::remove(path.c_str());
  std::remove(plain.c_str());
}

TEST_CASE("chart: a log axis ticks every decade and places positive values only", "[chart]") {
  CHECK(log_ticks(1e-5, 1e-2) == std::vector<double>{1e-5, 1e-4, 1e-3, 1e-2});
  CHECK(log_ticks(3, 40) == std::vector<double>{1, 2, 5, 10, 20, 50, 100});
  XYChart c;
  c.title = "batch delay";
  c.x = {"max_queue_delay", Unit::Seconds, false, true};
  c.y = {"events/s", Unit::Plain, true};
  c.series.push_back({"simulated", {0.0, 1e-5, 1e-4, 1e-3, 1e-2}, {1, 2, 3, 4, 5}, {}});
  const auto svg = render(c);
  check_chart(svg);
  // Four points placed (0 cannot be), ticks read in ms: 0.01 ... 10.
  CHECK(count(svg, "class=\"point\"") == 4);
  CHECK_THAT(svg, Catch::Contains(">0.01</text>") && Catch::Contains(">10</text>"));
  CHECK_THAT(svg, Catch::Contains("max_queue_delay (ms)"));
}

TEST_CASE("report: a swept quantity with a unit is read in SI and a log range drawn on a log axis",
          "[report]") {
  std::string csv =
      "sweep_id,point,n_points,param.models.m.dynamic_batching.max_queue_delay,replications,"
      "status,error,seed,events.throughput_per_s.mean,events.throughput_per_s.ci95\n";
  const char* delays[] = {"10us", "100us", "1000us", "10000us"};
  for (int i = 0; i < 4; ++i)
    csv += "x," + std::to_string(i) + ",4," + delays[i] + ",1,ok,,1," + std::to_string(700 + i) +
           ",\n";
  const auto path = write_file("delay.csv", csv);
  const auto s = read_sweep(path);
  CHECK(s.x_unit == Unit::Seconds);
  CHECK(s.x_log);
  REQUIRE(s.points.size() == 4);
  CHECK(s.points[1].x == Approx(100e-6));
  const auto f = sweep_figures(s);
  CHECK(f.peak_throughput == 703);
  const auto table = sweeps_table({f});
  const auto peak = std::find_if(table.rows.begin(), table.rows.end(),
                                 [](const auto& row) { return row[0] == "peak events/s"; });
  REQUIRE(peak != table.rows.end());
  CHECK((*peak)[1] == "703 at models.m.dynamic_batching.max_queue_delay = 10 ms");
  std::remove(path.c_str());
}
