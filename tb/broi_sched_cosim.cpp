// Lockstep co-simulation of rtl/broi_sched.v against cores/broi_sched.c (broi_sched_step): the RTL
// backend of the block tests written once (tb/dut.h; the directed scenarios are in
// tb/broi_sched_scenarios.h and run here as ctest cosim.BroiRtl.*), and random lockstep runs per
// preset.
#include "broi_sched_bench.h"
#include "broi_sched_scenarios.h"
#include "Vbroi_sched_broi_small.h"
#include "Vbroi_sched_broi_table2.h"
#include "Vbroi_sched_broi_table2_serial.h"
#include "Vbroi_sched_broi_small_serial.h"
#include "Vbroi_sched_broi_small_serial3.h"
#include "Vbroi_sched_broi_table2_merge.h"
#include "Vbroi_sched_broi_small_merge.h"
#include "Vbroi_sched_broi_small_serial3_merge.h"
#include "Vbroi_sched_broi_table2_order.h"

namespace {

using broi_bench::BroiBench;

// RTL lockstep backend of the typed block tests: a BroiBench of the preset's Verilated model.
#define BROI_RTL_(name, preset) \
    case dut::BroiPreset::name: return std::make_unique<BroiBench<Vbroi_sched_##preset>>(dut::broi_preset_cfg(p));
struct BroiRtl {
    static std::unique_ptr<dut::BroiDut> make(dut::BroiPreset p)
    {
        switch (p) { BROI_PRESETS(BROI_RTL_) }
        return nullptr;
    }
};

} // namespace

namespace broi_scen {
INSTANTIATE_TYPED_TEST_SUITE_P(BroiRtl, BroiBlock, ::testing::Types<BroiRtl>);
}

namespace {

// One random lockstep test per preset: PRESET's Verilated model against the C core on seeded traffic
// (seed offset K keeps the presets' streams apart).
#define BROI_RANDOM_TEST(PRESET, K)                                                      \
    TEST(BroiSched, Random_##PRESET)                                                     \
    {                                                                                    \
        uint64_t s = cosim::seed(), n = cosim::cycles();                                 \
        cosim::announce("broi_sched/" #PRESET, s, n);                                    \
        BroiBench<Vbroi_sched_##PRESET> b(rtlp_##PRESET##_cfg());                        \
        cosim::Speed sp("broi_sched", #PRESET);                                          \
        b.random(s + (K), n);                                                            \
        sp.print(n);                                                                     \
    }

BROI_RANDOM_TEST(broi_table2_serial, 2)

BROI_RANDOM_TEST(broi_small_serial, 3)

BROI_RANDOM_TEST(broi_small_serial3, 4)

BROI_RANDOM_TEST(broi_table2_merge, 5)

BROI_RANDOM_TEST(broi_small_merge, 6)

BROI_RANDOM_TEST(broi_small_serial3_merge, 7)

BROI_RANDOM_TEST(broi_table2, 0)

BROI_RANDOM_TEST(broi_table2_order, 8)

BROI_RANDOM_TEST(broi_small, 1)

} // namespace
