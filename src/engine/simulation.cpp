#include <sonicsim/engine/simulation.hpp>

#include <sonicsim/engine/autoscaler.hpp>
#include <sonicsim/engine/batcher.hpp>
#include <sonicsim/engine/event_queue.hpp>
#include <sonicsim/util/numbers.hpp>
#include <sonicsim/util/rng.hpp>

#include "parts.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <limits>
#include <stdexcept>

namespace sonicsim::engine {

struct Simulation::Impl : Parts {
  using Parts::Parts;
};

Simulation::Simulation(const scenario::Scenario& s) : impl_(std::make_unique<Impl>(s)) {}
Simulation::~Simulation() = default;

void Simulation::set_transport(Transport* t, bool to_servers, bool to_clients) {
  impl_->network.set_transport(t, to_servers, to_clients);
}

double Simulation::next_time() const {
  if (impl_->queue.empty() || impl_->queue.top_time() > impl_->end) return kInf;
  return impl_->queue.top_time();
}

void Simulation::process_through(double until) {
  impl_->process_through(until);
}
void Simulation::set_trace(const TraceSettings& t) {
  impl_->sampling.set_trace(t);
}

void Simulation::hold_at(double t) {
  impl_->limit = std::min(impl_->limit, t);
}
void Simulation::run() {
  impl_->process_through(impl_->end);
}
RunMetrics Simulation::finish() {
  return impl_->finish();
}

void Simulation::on_transfer_done(std::uint32_t token, double now) {
  impl_->queue.push(now + impl_->network.overhead_after_transfer(token), EventKind::TransferDone,
                    token);
}

}  // namespace sonicsim::engine
