#include <sonicsim/report/report.hpp>

#include <unistd.h>

#include <cerrno>

#include <sonicsim/report/energy_report.hpp>
#include <sonicsim/sweep/sweep.hpp>
#include <sonicsim/util/errors.hpp>
#include <sonicsim/util/files.hpp>

namespace sonicsim::report {

namespace {

enum class Kind { Results, Plan, Sweep };

// The first bytes decide; an extension only breaks the tie for a file that is neither.
Kind detect(const std::string& file) {
  std::string error;
  const int fd = open_regular_file(file, error);
  if (fd < 0)
    return file.size() > 4 && file.substr(file.size() - 4) == ".csv" ? Kind::Sweep : Kind::Results;
  std::string head(64, '\0');
  ssize_t n;
  do n = ::read(fd, head.data(), head.size());
  while (n < 0 && errno == EINTR);
  ::close(fd);
  head.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  const auto start = head.find_first_not_of(" \t\r\n\xEF\xBB\xBF");
  if (start != std::string::npos && head[start] == '{')
    return results::PlanDocument::is_plan_file(file) ? Kind::Plan : Kind::Results;
  if (head.rfind(sweep::kLeadingColumns.front(), 0) == 0) return Kind::Sweep;
  std::string found = start == std::string::npos ? "an empty file" : head.substr(start, 40);
  for (char& c : found)
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  throw scenario::InputError(
      file, {{"", "found " + (start == std::string::npos ? found : "\"" + found + "...\"") +
                      ", expected a results JSON (sonicsim run -o FILE.json), a plan JSON "
                      "(sonicsim plan -o FILE.json) or a sweep CSV (sonicsim sweep -o FILE.csv)"}});
}

}  // namespace

Inputs read_inputs(const std::vector<std::string>& files) {
  Inputs in;
  for (const auto& f : files) {
    switch (detect(f)) {
      case Kind::Results:
        in.runs.push_back(read_results(f));
        break;
      case Kind::Plan:
        in.plans.push_back(read_plan(f));
        break;
      case Kind::Sweep:
        in.sweeps.push_back(read_sweep(f));
        break;
    }
  }
  return in;
}

std::string text_report(const Inputs& in, Format format) {
  std::string out = whatif(in.runs, format);
  std::vector<SweepFigures> sweeps;
  for (const auto& s : in.sweeps) sweeps.push_back(sweep_figures(s));
  if (!out.empty() && !sweeps.empty()) out += "\n";
  out += sweep_summary(sweeps, format) + energy_tables(in.sweeps, format);
  const std::string plans = plan_text(in.plans, format);
  // The first section of a report of plans alone starts at its first line.
  return out + (out.empty() && !plans.empty() ? plans.substr(1) : plans);
}

std::vector<std::pair<std::string, std::string>> csv_tables(const Inputs& in) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!in.runs.empty()) out.push_back({"runs.csv", to_csv(figures_table(in.runs))});
  if (!in.sweeps.empty()) {
    std::vector<SweepFigures> sweeps;
    for (const auto& s : in.sweeps) sweeps.push_back(sweep_figures(s));
    out.push_back({"sweeps.csv", to_csv(sweeps_table(sweeps))});
  }
  return out;
}

}  // namespace sonicsim::report
