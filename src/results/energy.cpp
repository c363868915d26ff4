#include <sonicsim/results/energy.hpp>

#include <sonicsim/results_format/keys.hpp>
#include <sonicsim/util/format.hpp>

namespace sonicsim::results {

using energy::Account;
using energy::Machines;
using ojson = nlohmann::ordered_json;

namespace {

energy::PoolUse pool_use(const engine::RunMetrics::Pool& p) {
  return {p.utilization, p.host_utilization, p.operated, p.replica_seconds_up};
}

}  // namespace

std::vector<Machines> measured_machines(const scenario::Scenario& s, const engine::RunMetrics& m) {
  std::vector<Machines> out;
  const double span = m.span();
  for (std::size_t i = 0; i < s.servers.size() && i < m.pools.size(); ++i)
    energy::pool_machines(s, s.servers[i], pool_use(m.pools[i]), span, out);
  for (std::size_t i = 0; i < s.workloads.size() && i < m.workloads.size(); ++i)
    energy::core_machines(s, s.workloads[i], static_cast<double>(s.workloads[i].n_threads()),
                          m.workloads[i].cpu_busy_seconds, span, out);
  return out;
}

Account run_account(const scenario::Scenario& s, const engine::RunMetrics& m) {
  double egress = 0.0;
  for (std::size_t a = 0; a < m.egress_bytes.size() && a < s.sites.size(); ++a)
    if (const auto& per_gb = s.sites[a].egress_price_per_gb)
      for (double bytes : m.egress_bytes[a]) egress += *per_gb * bytes / 1e9;
  return energy::account(measured_machines(s, m), m.span(), static_cast<double>(m.events_completed),
                         s, egress);
}

void add_energy_and_cost(const scenario::Scenario& s, const engine::RunMetrics& m, ojson& results) {
  const Account a = run_account(s, m);
  if (a.powered) results[keys::top::energy] = energy_json(a);
  if (a.priced) results[keys::top::cost] = cost_json(a);
}

std::vector<std::string> energy_summary(const scenario::Scenario& s, const engine::RunMetrics& m) {
  const Account a = run_account(s, m);
  std::vector<std::string> lines;
  const auto per_event = [&](double x, const char* format) {
    const auto v = a.per_event(x);
    return v ? util::formatted(format, *v) : std::string("n/a (no event)");
  };
  if (a.powered) {
    const double total = a.total_joules();
    const auto share = [&](std::size_t c) {
      return util::percent(total > 0.0 ? a.joules[c] / total : 0.0, "%.0f");
    };
    lines.push_back("energy     " + per_event(total, "%.4g J/event") + ", mean " +
                    util::formatted("%.4g W", a.mean_power_w()) + " (devices " + share(0) +
                    ", hosts " + share(1) + ", client cores " + share(2) + ")");
  }
  if (a.priced)
    lines.push_back("cost       " + per_event(a.total_cost() * 1e6, "%.4g per million events") +
                    ", " + util::formatted("%.4g per hour", a.hourly_cost()));
  return lines;
}

}  // namespace sonicsim::results
