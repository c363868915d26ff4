// The releases of the SuperSONIC chart (private to src/deployment): which keys each one reads,
// how a values file written for an older release maps onto the names of the newest (0.3.1),
// what its templates render differently, and which release a file was written for.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "values.hpp"

namespace sonicsim::deployment {

// The releases, oldest first: "0.1.0" ... "0.3.1".
const std::vector<std::string>& chart_versions();
bool known_chart_version(const std::string& v);
// -1, 0, 1 as a is older, the same, newer than b (both known).
int compare_versions(const std::string& a, const std::string& b);

// What a release's templates render differently from 0.3.1's, for the keys sonicsim maps.
struct ChartTraits {
  std::string version;
  // The load query's rate window (_helpers.tpl / _scaling-metric.tpl), seconds; 0: no rate()
  // (0.1.1 divides the counters since each server started).
  double metric_window = 30.0;
  std::string metric_query;  // the query, as the template writes it (for the report)
  // envoy.grpc_route_timeout exists (0.1.1 on). Before 0.2.1 the probes were
  // triton.resetReadinessProbe and a fixed 10 s delay, which 0.3.1's defaults render alike.
  bool route_timeout = true;
  // values.yaml's defaults of the keys sonicsim maps, in 0.3.1's names.
  std::string defaults_yaml;
  // Where the templates are, below helm/supersonic/templates.
  std::string so_file, metric_file, deployment_file, envoy_file;
};
ChartTraits chart_traits(const std::string& version);

// A key of an older release read under its 0.3.1 name.
struct Renamed {
  std::string from, to;  // dotted key paths
  std::string since;     // the first release with the new name
  std::string where;     // file:line of the old key
};

// Which release a file's keys were written for: the newest release any key needs (keys of
// releases before it are leftovers that release ignores). nullopt: no key tells.
struct Detected {
  std::string version;   // the newest release consistent with that lower bound's evidence
  std::string range;     // "0.1.0-0.1.2", "0.3.x"
  std::string evidence;  // the key that decided, with its line
};
std::optional<Detected> detect_chart_version(const ValueNode& file);

// Renames the keys of `file` written for release `from` to their 0.3.1 names, in place.
std::vector<Renamed> migrate_to_current(ValueNode& file, const std::string& from);

// For an unknown key: the release that renamed it, and its new name ("" if none).
std::string renamed_hint(const std::string& dotted, const std::string& in_version);
// The name `in_version` reads an older release's key under ("" if it is no older name).
std::string renamed_to(const std::string& dotted, const std::string& in_version);

}  // namespace sonicsim::deployment
