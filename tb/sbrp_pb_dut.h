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
#define SBRP_PRESETS(X) X(table1, sbrp_table1) X(small, sbrp_small)
PERSIM_DUT_PRESETS(SbrpPreset, sbrp_preset_cfg, sbrp_pb_cfg, SBRP_PRESETS)

// C backend of the typed sbrp_pb block tests.
struct SbrpC : CBackend<SbrpTraits, SbrpPreset, sbrp_preset_cfg> {};

} // namespace dut
