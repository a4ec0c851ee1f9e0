// Front end `wpq_gate`: LightWSP's region-gated write-pending queue (cores/wpq_gate) in front of a
// memory controller (docs/models/lightwsp.md); its typed config table.
#pragma once
#include "config_table.h"
#include "write_queue.h"
extern "C" {
#include "wpq_gate.h"
}

namespace persim {

extern const WriteQueueKind kWpqGateFe;

// wpq_gate.* keys into the core's struct (each a Verilog parameter of rtl/wpq_gate.v). The region ID
// width is also what the persist paths tag writes and boundaries with (cores/region_seq).
const ConfigTable<wpq_gate_cfg> &wpq_gate_table();

} // namespace persim
