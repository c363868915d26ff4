// The fault kinds the loader reads (the `kFaultKinds` table of src/scenario/load_faults.cpp):
// each kind's name and its keys beside `kind`, for the schema test and for messages.
#pragma once

#include <string_view>
#include <vector>

namespace sonicsim::scenario {

struct FaultKindKeys {
  std::string_view name;
  std::vector<std::string_view> keys;
};
std::vector<FaultKindKeys> fault_kinds();

}  // namespace sonicsim::scenario
