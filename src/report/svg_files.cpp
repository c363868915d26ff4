// Every chart of a report as its own SVG file: what a README or a slide embeds when a whole HTML
// page is too much (the gallery's plots).
#include <map>

#include <sonicsim/report/energy_report.hpp>
#include <sonicsim/report/panels.hpp>
#include <sonicsim/report/plan_report.hpp>
#include <sonicsim/report/report.hpp>
#include <sonicsim/report/server_report.hpp>
#include <sonicsim/report/site_panels.hpp>

namespace sonicsim::report {

namespace {

// "Request latency p50 (solid) and p99 (dashed)" -> "request-latency-p50-solid-and-p99-dashed".
std::string slug(const std::string& title) {
  std::string out;
  for (char c : title) {
    const bool word = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (c >= 'A' && c <= 'Z')
      out += static_cast<char>(c - 'A' + 'a');
    else if (word)
      out += c;
    else if (!out.empty() && out.back() != '-')
      out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "chart" : out;
}

// A chart's <svg> element as a standalone document: an image viewer needs the namespace the
// inline HTML element does without.
std::string standalone(const std::string& svg) {
  const std::string open = "<svg ";
  if (svg.rfind(open, 0) != 0 || svg.find("xmlns=") != std::string::npos) return svg;
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" " + svg.substr(open.size());
}

}  // namespace

std::vector<std::pair<std::string, std::string>> svg_files(const Inputs& in) {
  std::vector<Panel> panels;
  const auto add = [&](std::vector<Panel> more) {
    for (auto& p : more) panels.push_back(std::move(p));
  };
  if (in.runs.size() > 1) add(comparison_panels(in.runs));
  for (const auto& r : in.runs) {
    add(run_panels(r));
    add(server_panels(r));
    add(energy_panels(r));
    if (!r.sites.empty()) add(site_panels(r));
  }
  if (!in.sweeps.empty()) add(sweep_panels(in.sweeps));
  for (const auto& p : in.plans) add(plan_panels(p));
  std::vector<std::pair<std::string, std::string>> out;
  std::map<std::string, int> seen;
  for (const auto& p : panels) {
    if (p.svg.empty()) continue;
    std::string name = slug(p.title);
    if (const int n = ++seen[name]; n > 1) name.append("-").append(std::to_string(n));
    out.emplace_back(name + ".svg", standalone(p.svg) + "\n");
  }
  return out;
}

}  // namespace sonicsim::report
