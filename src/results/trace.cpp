#include <sonicsim/results/trace.hpp>

#include <cmath>

#include <nlohmann/json.hpp>

namespace sonicsim::results {

namespace {

using ojson = nlohmann::ordered_json;

constexpr int kClientsPid = 1;

ojson async_event(const char* ph, const std::string& name, const std::string& cat, std::size_t id,
                  double t, std::uint32_t tid) {
  return ojson{{"name", name},       {"cat", cat}, {"ph", ph}, {"ts", t * 1e6},
               {"pid", kClientsPid}, {"tid", tid}, {"id", id}};
}

}  // namespace

std::string to_chrome_trace(const scenario::Scenario& s, const engine::RunMetrics& m) {
  ojson events = ojson::array();
  events.push_back({{"name", "process_name"},
                    {"ph", "M"},
                    {"pid", kClientsPid},
                    {"args", {{"name", "sonicsim: " + s.name + " (sampled requests)"}}}});
  for (std::size_t i = 0; i < m.trace.size(); ++i) {
    const auto& r = m.trace[i];
    if (std::isnan(r.back)) continue;  // still in flight at the end: no complete picture
    const std::string& model = s.models.at(r.model).name;
    const std::string cat = "request," + model;
    ojson begin = async_event("b", "request " + model, cat, i, r.sent, r.thread);
    begin["args"] = {{"model", model},
                     {"items", r.items},
                     {"thread", r.thread},
                     {"device", r.device},
                     {"failed", r.failed}};
    if (r.batch_items > 0) begin["args"]["batch_items"] = r.batch_items;
    events.push_back(begin);
    // Phases in time order; a rejected request has no execution, only its way there and back.
    struct Phase {
      const char* name;
      double from, to;
    };
    const bool executed = !std::isnan(r.exec_start) && !std::isnan(r.exec_end);
    const double reply_from = executed ? r.exec_end : r.at_server;
    const Phase phases[] = {
        {"to server", r.sent, r.at_server},
        {"queue", r.at_server, executed ? r.exec_start : NAN},
        {"compute", r.exec_start, r.exec_end},
        {r.failed && !executed ? "rejected, to client" : "to client", reply_from, r.back}};
    for (const auto& p : phases) {
      if (std::isnan(p.from) || std::isnan(p.to)) continue;
      events.push_back(async_event("b", p.name, cat, i, p.from, r.thread));
      events.push_back(async_event("e", p.name, cat, i, p.to, r.thread));
    }
    events.push_back(async_event("e", "request " + model, cat, i, r.back, r.thread));
  }
  ojson doc{{"traceEvents", events},
            {"displayTimeUnit", "ms"},
            {"otherData",
             {{"scenario", s.name},
              {"seed", s.seed},
              {"sampled_requests", m.trace.size()},
              {"time_unit", "simulated microseconds since the start of the run"}}}};
  return doc.dump() + "\n";
}

}  // namespace sonicsim::results
