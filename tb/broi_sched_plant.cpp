// Self-test of the broi_sched co-simulation: cores/broi_sched.c built with BROI_SCHED_PLANTS, one
// planted bug per decision that moved from the broi front end into the core (issue 22), each run
// in lockstep against rtl/broi_sched.v (preset broi_small_merge: ORDER 1, MERGE 1, 4 line slots).
// Each test passes only if the co-simulation reports a mismatch, on random traffic (the same
// generator as tb/broi_sched_cosim.cpp's Random_* tests) and, where one exists, on a directed test.
// Plant 0 (no bug) must run clean.
#include "broi_sched_bench.h"
#include "Vbroi_sched_plant.h"
#include <gtest/gtest-spi.h>

extern "C" int broi_sched_plant;

namespace {

using broi_bench::BroiBench;

// Runs `body` with plant n and returns the number of lockstep mismatches it reported.
template <class F>
int mismatches(int n, F body)
{
    broi_sched_plant = n;
    ::testing::TestPartResultArray res;
    {
        ::testing::ScopedFakeTestPartResultReporter rep(
            ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &res);
        body();
    }
    broi_sched_plant = 0;
    int m = 0;
    for (int i = 0; i < res.size(); i++) {
        const std::string msg = res.GetTestPartResult(i).message();
        if (msg.find("cosim mismatch") == std::string::npos) continue;
        if (!m++) {
            const size_t at = msg.find("cosim mismatch");
            std::printf("plant %d: %s\n", n, msg.substr(at, msg.find('\n', at) - at).c_str());
        }
    }
    return m;
}

int random_mismatches(int n)
{
    return mismatches(n, [] {
        BroiBench<Vbroi_sched_plant> b(rtlp_broi_small_merge_cfg());
        b.random(cosim::seed() + 6, 20000);
    });
}

TEST(BroiSchedPlant, NoPlantRunsClean) { EXPECT_EQ(random_mismatches(0), 0); }

// The barrier-set floor moves when a barrier is accepted instead of when it issues: a write of
// the set before the barrier still issuing waits for its own set's earlier writes.
TEST(BroiSchedPlant, FloorOneWriteEarlyCaught) { EXPECT_GT(random_mismatches(1), 0); }

// Two writes of one line complete out of order (the line table's completion is not applied).
TEST(BroiSchedPlant, LineOutOfOrderCaught)
{
    EXPECT_GT(random_mismatches(2), 0);
    EXPECT_GT(mismatches(2, [] {
                  BroiBench<Vbroi_sched_plant> b(rtlp_broi_small_merge_cfg());
                  broi_sched_in in{};
                  in.now = 10;
                  in.cpl_valid = 0x3;
                  in.cpl_line[0] = 5; in.cpl_time[0] = 500;
                  in.cpl_line[1] = 5; in.cpl_time[1] = 300;
                  b.step_in(in);
              }),
              0);
}

// epoch_merge: the global floor moves when an entry issues its barrier, before the global epoch
// closes.
TEST(BroiSchedPlant, GlobalFloorBeforeEpochClosesCaught) { EXPECT_GT(random_mismatches(3), 0); }

// epoch_merge: a remote entry's completion is counted in the global epoch (remote entries are
// not merged).
TEST(BroiSchedPlant, RemoteCompletionInGlobalEpochCaught) { EXPECT_GT(random_mismatches(4), 0); }

} // namespace
