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
enum class WpqPreset { table1, small, table1_ungated, small_ungated, one_mc, one_mc_ungated };

inline wpq_gate_cfg wpq_preset_cfg(WpqPreset p)
{
    switch (p) {
    case WpqPreset::table1: return rtlp_lightwsp_table1_cfg();
    case WpqPreset::small: return rtlp_wpq_small_cfg();
    case WpqPreset::table1_ungated: return rtlp_lightwsp_table1_ungated_cfg();
    case WpqPreset::small_ungated: return rtlp_wpq_small_ungated_cfg();
    case WpqPreset::one_mc: return rtlp_wpq_1mc_cfg();
    case WpqPreset::one_mc_ungated: return rtlp_wpq_1mc_ungated_cfg();
    }
    return rtlp_lightwsp_table1_cfg();
}

// C backend of the typed wpq_gate block tests.
struct WpqC {
    static std::unique_ptr<WpqDut> make(WpqPreset p) { return std::make_unique<CoreDut<WpqTraits>>(wpq_preset_cfg(p)); }
};

} // namespace dut
