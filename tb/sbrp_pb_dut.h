// The sbrp_pb block behind the device-under-test interface (tb/dut.h): traits, the RTL presets the
// block tests use, and the C backend. The RTL lockstep backend is in tb/sbrp_pb_cosim.cpp.
#pragma once
#include "dut.h"
extern "C" {
#include "rtl_presets.h"
#include "sbrp_pb.h"
}

namespace dut {

PERSIM_DUT_TRAITS(SbrpTraits, sbrp_pb);
using SbrpDut = Dut<SbrpTraits>;

// The presets of configs/rtl_presets.json the block tests run on ("cosim" list of sbrp_pb).
enum class SbrpPreset { table1, small };

inline sbrp_pb_cfg sbrp_preset_cfg(SbrpPreset p)
{
    return p == SbrpPreset::table1 ? rtlp_sbrp_table1_cfg() : rtlp_sbrp_small_cfg();
}

// C backend of the typed sbrp_pb block tests.
struct SbrpC {
    static std::unique_ptr<SbrpDut> make(SbrpPreset p) { return std::make_unique<CoreDut<SbrpTraits>>(sbrp_preset_cfg(p)); }
};

} // namespace dut
