// A budget that an estimate must fit before any work starts, process-wide: the peak memory
// (`--memory-budget`, memory.hpp) and the wall time (`--time-budget`, work_estimate.hpp) are the
// two. Each is a quantity with its unit, a default, "unlimited", and whether the user gave it:
// forked children inherit the value, and a sweep's batch tasks are given it only when the user
// did (otherwise each takes its own node's default).
#pragma once

#include <string>

#include <sonicsim/scenario/units.hpp>

namespace sonicsim::runner {

class Budget {
 public:
  struct Spec {
    const char* flag;             // "--memory-budget"
    scenario::Quantity quantity;  // how a value is written: Size or Time
    double minimum;               // the smallest value accepted (a budget of 0 refuses all)
    const char* expected;         // "a size such as 512MiB, 8GiB or 2GB"
    double (*default_value)();    // read when first needed: the machine's memory, say
  };
  explicit Budget(Spec spec) : spec_(spec) {}

  double value();  // +inf: unlimited
  void set(double v);
  bool given() const { return given_; }
  const char* flag() const { return spec_.flag; }
  // The value as the flag takes it again ("unlimited", or whole bytes or seconds).
  std::string argument();

  // "512MiB", "6h", a bare number in the base unit, or "unlimited"; false with `error` saying
  // what was found and what is expected otherwise.
  bool parse(const std::string& text, double& v, std::string& error) const;

 private:
  Spec spec_;
  double value_ = -1.0;  // < 0: not read yet
  bool given_ = false;
};

}  // namespace sonicsim::runner
