// Front end `broi`: the BROI controller (cores/broi_sched) in front of a memory controller
// (docs/models/broi.md); its typed config tables.
#pragma once
#include <cstdint>
#include "config_table.h"
#include "write_queue.h"
extern "C" {
#include "broi_sched.h"
}

namespace persim {

extern const WriteQueueKind kBroiSchedFe;

// The front end's own keys (not the scheduler core's): its clock and the controller queue behind it.
struct BroiFeCfg {
    uint64_t period_ps = 400;     // broi.clock_ghz
    uint32_t mc_entries = 64;     // broi.mc_queue_entries
};

// broi.* keys of the scheduler core (each a Verilog parameter of rtl/broi_sched.v) and of the front end.
const ConfigTable<broi_sched_cfg> &broi_sched_table();
const ConfigTable<BroiFeCfg> &broi_fe_table();

} // namespace persim
