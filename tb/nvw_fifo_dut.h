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
#define NVW_PRESETS(X) X(l1, nvw_l1) X(l2, nvw_l2) X(small, nvw_small) \
    X(l2_pipelined, nvw_l2_pipelined) X(small_pipelined, nvw_small_pipelined)
PERSIM_DUT_PRESETS(NvwPreset, nvw_preset_cfg, nvw_fifo_cfg, NVW_PRESETS)

// C backend of the typed nvw_fifo block tests.
struct NvwC : CBackend<NvwTraits, NvwPreset, nvw_preset_cfg> {};

} // namespace dut
