// What happens to the servers while the run goes on: the autoscaler (KEDA + HPA) asking for
// replicas, servers starting, draining and stopping, and server faults (scheduled and random
// crashes). Server states live with the devices (server_pools.hpp); this part decides when they
// change. A new server fault or a new way of scaling goes here; link faults are the network
// path's, job preemption is preemption.hpp's.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include <sonicsim/engine/autoscaler.hpp>
#include <sonicsim/util/rng.hpp>

#include "context.hpp"
#include "server_pools.hpp"

namespace sonicsim::engine {

class ServerPools;
class ModelMemory;

class SiteOperations {
 public:
  using State = ServerPools::State;

  // The parts this one calls, and no others: the engine's dependency graph is the list of
  // these structs (parts.hpp wires them).
  struct Uses {
    ServerPools& servers;
    ModelMemory& memory;
  };

  SiteOperations(Context& ctx, const Uses& uses) : ctx_(ctx), parts_(uses) {}
  // After the server pools: the initial replicas, the first polls and the planned crashes.
  void build();

  // EventKind::Operation.
  void on_operation(std::uint32_t id, std::uint32_t stamp);
  // The server goes away (Off: scaled down; Down: crashed): what it holds fails back to the
  // clients, who see the connection drop.
  void stop_server(std::uint32_t d, State next);

  // KEDA's activity: a request reached the pool, or found no server for its model there.
  void note_active(std::uint32_t pool) {
    if (operated_) pools_[pool].active = true;
  }
  void note_refused(std::uint32_t pool) { pools_[pool].refused = true; }
  // Whether an autoscaled pool's last reading was above its threshold (admission control).
  bool above_threshold() const;
  // Whether Prometheus, asked SuperSONIC's load query now, answers with a value within the
  // threshold (load_balancer.admission.refuse_above; prometheus_gate.cpp). No answer: false.
  bool query_within(const scenario::Admission::QueryGate& gate) const;
  int replicas_asked(std::uint32_t pool) const { return pools_[pool].asked; }
  int replicas_up(std::uint32_t pool) const { return pools_[pool].up; }
  // Explicit model control: batcher `bi`'s model has loaded at `at` (model_memory.hpp).
  void plan_model_loaded(std::uint32_t bi, Time at, std::uint32_t generation);

  // The end of the run: replica-seconds up.
  void finish();

 private:
  // What an EventKind::Operation does, in its stamp's low bits; the rest is the device's epoch,
  // so that an operation planned for a device that has since changed state is ignored.
  enum Op : std::uint32_t {
    kPoll,          // id: pool; the autoscaler reads its metric and decides
    kPollMark,      // id: pool; the start of the next poll's metric window
    kStarted,       // id: device; its server is ready (epoch)
    kDrainTimeout,  // id: device; the drain's grace period is over (epoch)
    kCrash,         // id: device; a scheduled crash
    kRestart,       // id: device; back after a scheduled crash (epoch)
    kRandomCrash,   // id: device; the next random crash
    kRandomRepair,  // id: device; back after a random crash (epoch)
    kModelLoaded,   // id: model batcher; its load on demand ends (the load's generation)
    kScrape,        // Prometheus scrapes the servers' counters (admission.refuse_above)
  };
  static constexpr std::uint32_t kOpBits = 4;
  static constexpr std::uint32_t kEpochMask = EventQueue::kStampMask >> kOpBits;
  static_assert(kEpochMask == ServerPools::kEpochMask,
                "a device's epoch fits an operation's stamp");
  static std::uint32_t op_stamp(Op op, std::uint32_t epoch) {
    return static_cast<std::uint32_t>(op) | (epoch << kOpBits);
  }

  // A pool's replicas and, with an autoscaler, the readings its metric takes.
  struct PoolOps {
    std::vector<std::uint32_t> devices;  // global indices, in pool order
    std::optional<Autoscaler> scaler;
    int asked = 0;  // replicas asked for (whatever their state but Off and Draining)
    int up = 0;     // replicas up
    // Cumulative over the whole run, for the metric's window.
    struct Mark {
      double queue_seconds, executions, busy_seconds;
    };
    std::deque<Mark> marks;  // at the start of each pending poll's window
    std::uint64_t polls = 0, marks_taken = 0;
    bool active = false, refused = false;  // since the last poll
    double last_metric = 0.0;              // read at the last poll (admission)
    Time up_since;                         // for replica_seconds_up
  };

  // Server states and faults (site_operations.cpp).
  const scenario::Faults::RandomCrashes& random_crashes_of(std::uint32_t d) const;
  // A device's next random crash is drawn when it starts serving (from off or down), and only a
  // serving device keeps one planned: an off device drawing a failure every MTBF was a busy loop
  // with a tiny MTBF (issue 35). The exponential has no memory, so the times are those of a
  // clock that runs while the device serves.
  void plan_random_crash(std::uint32_t d);
  void account_up(PoolOps& po);
  void set_state(std::uint32_t d, State next);
  void start_server(std::uint32_t d);
  void drain_server(std::uint32_t d);
  bool crash(std::uint32_t d, double down_for, Op back);
  // Whether an operation planned for device d in `epoch` still applies: d has stayed in `s`.
  bool in_state(std::uint32_t d, State s, std::uint32_t epoch) const;
  // The autoscaler (autoscaling.cpp).
  PoolOps::Mark pool_counters(std::uint32_t p) const;
  void schedule_mark(std::uint32_t p);
  void take_mark(std::uint32_t p);
  double read_metric(std::uint32_t p);
  void poll(std::uint32_t p);
  void scale_to(std::uint32_t p, int target);
  // Prometheus (prometheus_gate.cpp): the servers' counters at each scrape, summed over pools.
  struct Scrape {
    Time time;
    double queue_seconds, executions;
    int up;  // servers running: a scrape of none has no series
  };
  void scrape();

  std::deque<Scrape> scrapes_;  // the last window's worth, oldest first

  Context& ctx_;
  Uses parts_;
  std::vector<PoolOps> pools_;
  bool operated_ = false;                // some pool has an autoscaler or faults
  std::vector<Rng> fault_rngs_;          // per device: random crashes' times up and down
  std::vector<bool> crash_planned_;      // per device: a random crash is in the queue
  std::vector<bool> random_crash_pool_;  // per pool: it has random_crashes
};

}  // namespace sonicsim::engine
