// The sbrp_pb block behind the device-under-test interface (tb/dut.h): traits, the RTL presets the
// block tests use, and the C backend. The RTL lockstep backend is in tb/sbrp_pb_cosim.cpp.
#pragma once
#include "dut.h"
extern "C" {
#include "rtl_presets.h"
#include "sbrp_pb.h"
}

namespace dut {

struct SbrpTraits {
    using In = sbrp_pb_in;
    using Out = sbrp_pb_out;
    using Core = sbrp_pb;
    using Cfg = sbrp_pb_cfg;
    static size_t bytes(const Cfg *c) { return sbrp_pb_bytes(c); }
    static int init(void *m, const Cfg *c) { return sbrp_pb_init(m, c); }
    static void step(Core *p, const In *in, Out *out) { sbrp_pb_step(p, in, out); }
};
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
