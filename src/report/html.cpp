// The HTML page of `sonicsim report --format html`: everything inline (styles, SVG), so the one
// file can be mailed or attached to a ticket and opened offline.
#include <sonicsim/report/chart.hpp>
#include <sonicsim/report/energy_report.hpp>
#include <sonicsim/report/panels.hpp>
#include <sonicsim/report/plan_report.hpp>
#include <sonicsim/report/report.hpp>
#include <sonicsim/report/server_report.hpp>
#include <sonicsim/report/site_panels.hpp>

namespace sonicsim::report {

namespace {

using chart::escape;

const char* const kStyle = R"(
body { font-family: sans-serif; margin: 1.5em auto; max-width: 1400px; padding: 0 1em;
       color: #222; line-height: 1.4; }
h1 { font-size: 1.5em; } h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; }
thead th { background: #f0f0f0; }
tbody th { font-weight: normal; background: #fafafa; }
.panels { display: grid; grid-template-columns: repeat(auto-fill, minmax(560px, 1fr));
          gap: 1em; }
figure { margin: 0; border: 1px solid #e4e4e4; padding: 0.5em; }
svg.chart { width: 100%; height: auto; }
p.skipped { color: #777; font-style: italic; }
code { background: #f4f4f4; padding: 0 0.2em; }
)";

std::string sentences_html(const std::vector<std::pair<std::string, std::string>>& said) {
  std::string out = "<ul>\n";
  for (const auto& [who, what] : said)
    out += "<li><strong>" + escape(who) + "</strong>: " + escape(what) + ".</li>\n";
  return out + "</ul>\n";
}

std::string runs_section(const std::vector<RunFigures>& runs) {
  std::string out = "<section id=\"runs\">\n<h2>Runs</h2>\n" + to_html(figures_table(runs));
  if (runs.size() > 1) {
    std::vector<std::pair<std::string, std::string>> said;
    for (std::size_t i = 1; i < runs.size(); ++i)
      said.push_back(
          {runs[i].file + " against " + runs[0].file, join_clauses(changes(runs[0], runs[i]))});
    out += "<h3>What changed</h3>\n" + sentences_html(said);
    out += "<h3>Side by side</h3>\n" + panels_html(comparison_panels(runs));
  }
  for (const auto& r : runs) {
    out += "<h3>" + escape(r.file) + (r.scenario.empty() ? "" : " (" + escape(r.scenario) + ")") +
           "</h3>\n" + panels_html(run_panels(r));
    if (const auto servers = server_panels(r); !servers.empty())
      out += "<h4>" + escape(r.file) + ": servers</h4>\n" + panels_html(servers);
    if (const auto energy = energy_panels(r); !energy.empty())
      out += "<h4>" + escape(r.file) + ": energy</h4>\n" + panels_html(energy);
    if (!r.sites.empty())
      out += "<h4>" + escape(r.file) + ": sites and the WAN</h4>\n" + panels_html(site_panels(r));
  }
  return out + "</section>\n";
}

std::string sweeps_section(const std::vector<SweepData>& sweeps) {
  std::vector<SweepFigures> figures;
  for (const auto& s : sweeps) figures.push_back(sweep_figures(s));
  std::string out = "<section id=\"sweeps\">\n<h2>Sweeps</h2>\n" + to_html(sweeps_table(figures));
  if (sweeps.size() > 1) {
    std::vector<std::pair<std::string, std::string>> said;
    for (std::size_t i = 1; i < figures.size(); ++i)
      said.push_back({figures[i].file + " against " + figures[0].file,
                      join_clauses(sweep_changes(figures[0], figures[i]))});
    out += "<h3>What changed</h3>\n" + sentences_html(said);
  }
  out += "<h3>" + std::string(sweeps.size() > 1 ? "Overlaid on the same axes" : "Charts") +
         "</h3>\n" + panels_html(sweep_panels(sweeps));
  for (const auto& s : sweeps)
    if (has_energy(s))
      out +=
          "<h3>Energy and cost per event: " + escape(s.file) + "</h3>\n" + to_html(energy_table(s));
  return out + "</section>\n";
}

}  // namespace

std::string panels_html(const std::vector<Panel>& panels) {
  std::string out = "<div class=\"panels\">\n";
  std::string skipped;
  for (const auto& p : panels) {
    if (p.svg.empty())
      skipped += "<p class=\"skipped\">" + escape(p.title) + ": " + escape(p.skipped) + "</p>\n";
    else
      out += "<figure>\n" + p.svg + "</figure>\n";
  }
  return out + "</div>\n" + skipped;
}

std::string html_report(const Inputs& in) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
      "<title>sonicsim report</title>\n<style>" +
      std::string(kStyle) + "</style>\n</head>\n<body>\n<h1>sonicsim report</h1>\n<p>Inputs: ";
  std::vector<std::string> files;
  for (const auto& r : in.runs) files.push_back(r.file);
  for (const auto& s : in.sweeps) files.push_back(s.file);
  for (const auto& p : in.plans) files.push_back(p.file);
  for (std::size_t i = 0; i < files.size(); ++i)
    out += (i ? ", " : "") + std::string("<code>") + escape(files[i]) + "</code>";
  out += ". Written by <code>sonicsim report</code> " SONICSIM_VERSION
         "; chart definitions and data sources: docs/report.md.</p>\n";
  if (!in.runs.empty()) out += runs_section(in.runs);
  if (!in.sweeps.empty()) out += sweeps_section(in.sweeps);
  out += plan_html(in.plans);
  return out + "</body>\n</html>\n";
}

}  // namespace sonicsim::report
