// Loading Accel-Sim GPU traces (kernelslist.g, .traceg, .traceg.xz) for persim run / check:
// the `accelsim` config table and the call into the C reader (workloads/accelsim.h).
// docs/trace-format-accelsim.md.
#pragma once
#include <string>
#include "config.h"
extern "C" {
#include "trace.h"
}

namespace persim {

// 1 if `path` is an Accel-Sim trace (by name or first bytes; accelsim_path_is_trace).
bool accelsim_is_trace(const std::string &path);

// Reads the Accel-Sim trace at `path` under `cfg` (accelsim.* keys, system.pm_base) into td: the
// program, an empty initial image, no expects. Throws ConfigError naming the file and line of a
// malformed input. `summary` gets a one-line account of the lowering.
void accelsim_load(const Config &cfg, const std::string &path, trace_data *td, std::string *summary);

// The note a run prints and records: Accel-Sim traces hold no values.
extern const char *const kAccelsimNoValues;

} // namespace persim
