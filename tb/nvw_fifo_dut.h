// The nvw_fifo block behind the device-under-test interface (tb/dut.h): traits, the RTL presets the
// block tests use, and the C backend. The RTL lockstep backend is in tb/nvw_fifo_cosim.cpp.
#pragma once
#include "dut.h"
extern "C" {
#include "nvw_fifo.h"
#include "rtl_presets.h"
}

namespace dut {

PERSIM_DUT_TRAITS(NvwTraits, nvw_fifo);
using NvwDut = Dut<NvwTraits>;

// The presets of configs/rtl_presets.json the block tests run on ("cosim" list of nvw_fifo).
enum class NvwPreset { l1, l2, small, l2_pipelined, small_pipelined };

inline nvw_fifo_cfg nvw_preset_cfg(NvwPreset p)
{
    switch (p) {
    case NvwPreset::l1: return rtlp_nvw_l1_cfg();
    case NvwPreset::l2: return rtlp_nvw_l2_cfg();
    case NvwPreset::small: return rtlp_nvw_small_cfg();
    case NvwPreset::l2_pipelined: return rtlp_nvw_l2_pipelined_cfg();
    case NvwPreset::small_pipelined: return rtlp_nvw_small_pipelined_cfg();
    }
    return rtlp_nvw_l1_cfg();
}

// C backend of the typed nvw_fifo block tests.
struct NvwC {
    static std::unique_ptr<NvwDut> make(NvwPreset p) { return std::make_unique<CoreDut<NvwTraits>>(nvw_preset_cfg(p)); }
};

} // namespace dut
