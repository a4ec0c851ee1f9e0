// The wpq_gate block behind the device-under-test interface (tb/dut.h): traits, the RTL presets the
// block tests use, and the C backend. The RTL lockstep backend is in tb/wpq_gate_cosim.cpp.
#pragma once
#include "dut.h"
extern "C" {
#include "rtl_presets.h"
#include "wpq_gate.h"
}

namespace dut {

PERSIM_DUT_TRAITS(WpqTraits, wpq_gate);
using WpqDut = Dut<WpqTraits>;

// The presets of configs/rtl_presets.json the block tests run on ("cosim" list of wpq_gate).
#define WPQ_PRESETS(X) X(table1, lightwsp_table1) X(small, wpq_small) X(table1_ungated, lightwsp_table1_ungated) \
    X(small_ungated, wpq_small_ungated) X(one_mc, wpq_1mc) X(one_mc_ungated, wpq_1mc_ungated)
PERSIM_DUT_PRESETS(WpqPreset, wpq_preset_cfg, wpq_gate_cfg, WPQ_PRESETS)

// C backend of the typed wpq_gate block tests.
struct WpqC : CBackend<WpqTraits, WpqPreset, wpq_preset_cfg> {};

} // namespace dut
