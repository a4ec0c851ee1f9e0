// The broi_sched block behind the device-under-test interface (tb/dut.h): traits, the RTL presets
// the block tests use, and the C backend. The RTL lockstep backend is in tb/broi_sched_cosim.cpp
// (the lockstep bench, tb/broi_sched_bench.h, is shared with tb/broi_sched_plant.cpp).
#pragma once
#include "dut.h"
extern "C" {
#include "broi_sched.h"
#include "rtl_presets.h"
}

namespace dut {

PERSIM_DUT_TRAITS(BroiTraits, broi_sched);
using BroiDut = Dut<BroiTraits>;

// The presets of configs/rtl_presets.json the block tests run on (of the "cosim" list of broi_sched).
#define BROI_PRESETS(X) X(table2, broi_table2) X(table2_order, broi_table2_order) X(small, broi_small) \
    X(table2_serial, broi_table2_serial) X(table2_merge, broi_table2_merge)
PERSIM_DUT_PRESETS(BroiPreset, broi_preset_cfg, broi_sched_cfg, BROI_PRESETS)

// C backend of the typed broi_sched block tests.
struct BroiC : CBackend<BroiTraits, BroiPreset, broi_preset_cfg> {};

} // namespace dut
