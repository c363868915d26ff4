// The typed reader's views of the client side: the modules behind the request kinds
// (`modules`) and the worker nodes (`nodes`, docs/nodes.md).
#include <sonicsim/results_format/keys.hpp>
#include <sonicsim/results_format/reader.hpp>

namespace sonicsim::results {

namespace k = keys;

std::vector<Nodes> Document::nodes() const {
  std::vector<Nodes> out;
  if (!has(k::top::nodes)) return out;
  for (auto& v : elements(k::top::nodes)) out.emplace_back(std::move(v));
  return out;
}

std::vector<Module> Document::modules() const {
  std::vector<Module> out;
  if (!has(k::top::modules)) return out;
  for (auto& v : elements(k::top::modules)) out.emplace_back(std::move(v));
  return out;
}

std::optional<std::string> Module::workload() const {
  return text(k::module::workload);
}
double Module::request() const {
  return number(k::module::request);
}
std::optional<std::string> Module::model() const {
  return text(k::module::model);
}
bool Module::served() const {
  return flag(k::module::served).value_or(false);
}
Quantiles Module::wait_s() const {
  return Quantiles(at(k::module::wait_s));
}
double Module::module_cpu_time_s() const {
  return number(k::module::module_cpu_time_s);
}
Quantiles Module::module_time_s() const {
  return Quantiles(at(k::module::module_time_s));
}

std::optional<std::string> Nodes::workload() const {
  return text(k::nodes::workload);
}
double Nodes::count() const {
  return number(k::nodes::count);
}
double Nodes::hardware_threads() const {
  return number(k::nodes::hardware_threads);
}
double Nodes::mean_busy_threads() const {
  return number(k::nodes::mean_busy_threads);
}
double Nodes::mean_occupancy() const {
  return number(k::nodes::mean_occupancy);
}
double Nodes::mean_speed_factor() const {
  return number(k::nodes::mean_speed_factor);
}
double Nodes::cpu_only_speed_factor() const {
  return number(k::nodes::cpu_only_speed_factor);
}
double Nodes::cpu_only_throughput_per_s() const {
  return number(k::nodes::cpu_only_throughput_per_s);
}
std::optional<double> Nodes::speedup_vs_cpu_only() const {
  return nullable_number(k::nodes::speedup_vs_cpu_only);
}

}  // namespace sonicsim::results
