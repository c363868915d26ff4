// Every file sonicsim writes and can read is read back by sonicsim's own reader before it is
// put in place (util/files.hpp: Output, write_all_or_none): one read-back per kind of file,
// here, so that each writer names the reader its users will meet.
#pragma once

#include <optional>
#include <string>

#include <sonicsim/util/files.hpp>

namespace sonicsim::cli {

// A scenario (import supersonic, calibrate scan): the loader, from the file's own folder.
ReadBack scenario_read_back();

// A calibration file (calibrate perf-analyzer, calibrate prometheus): loaded by a scenario whose
// one model takes its service time, and its request overheads and host cost when the file has
// them, from the file, on a pool of the file's device.
ReadBack calibration_read_back();

// An overlap curve (calibrate overlap): the file's `overlap` as `devices.D.overlap` of a
// scenario, D being the file's device.
ReadBack overlap_read_back();

// A worker node's fit (calibrate nodes): its `workload` fragment merged into a scenario's
// workload, as a user pastes it.
ReadBack node_read_back();

// A measurements file (import prometheus): the reader calibrate prometheus and compare use.
ReadBack measurements_read_back();

// A measured client load (import prometheus --flow-overlay): laid over a scenario as the JSON
// merge patch import supersonic --overlay lays, the scenario must load.
ReadBack flow_overlay_read_back();

// A perf_analyzer CSV (perf-analyzer -o): the reader of calibrate perf-analyzer, at the batch
// size of the emulated runs.
ReadBack perf_analyzer_csv_read_back(int batch_size);

}  // namespace sonicsim::cli
