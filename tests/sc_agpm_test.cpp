// SystemC tests of the two-data-path models (docs/models/agpm.md; sc_models/gpu/persist/data_path.h,
// agpm.cpp, bucl.cpp, ...): every model runs a small CTA-level undo-logged program and the final
// memory verifies; non-temporal log stores bypass the L1 (and the L2) and temporal ones do not; the
// write-back added when a log store's path changes from NT to T is counted; agpm switches the path
// when the locality of two program phases differs; the period threshold adapts; bad AGPM config
// values are refused naming the key. Each case runs in its own process (SystemC elaborates once).
#include <gtest/gtest.h>
#include <unistd.h>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>
#include "sc_fork.h"
#include "sim.h"
#include "sc_test_util.h"

using namespace persim;

namespace {

// The stats these tests read (a run happens in a forked child: SystemC elaborates once per process).
const std::vector<std::pair<std::string, std::string>> kKeys = {
    {"top.gpu.sm00.l1", "nt_log_stores"}, {"top.gpu.sm00.l1", "t_log_stores"}, {"top.gpu.sm00.l1", "store_misses"},
    {"top.gpu.sm00.l1", "pm_flushes"}, {"top.gpu.sm00.l1", "added_writebacks"},
    {"top.gpu.sm01.l1", "nt_log_stores"}, {"top.gpu.sm01.l1", "t_log_stores"}, {"top.gpu.sm01.l1", "store_misses"},
    {"top.gpu.sm01.l1", "pm_flushes"}, {"top.gpu.sm01.l1", "added_writebacks"},
    {"top.gpu.l2", "nt_writes"},
    {"*", "log_nt_lines"}, {"*", "log_t_lines"}, {"*", "log_t_wb_lines"}, {"*", "pm_flushes"}, {"*", "elided_fences"},
    {"*", "bypass_uncoalesced"}, {"*", "bypass_resv_fail"}, {"*", "periods"}, {"*", "reason_a"}, {"*", "reason_b"}, {"*", "reason_d"}, {"*", "reason_e"}, {"*", "reason_f"}, {"*", "reason_c"}, {"*", "reason_g"}, {"*", "path_switches"},
    {"*", "sms_on_nt"}, {"*", "threshold_up"}, {"*", "threshold_down"}, {"*", "threshold_min"},
    {"*", "l1d_t_log"}, {"*", "l1d_t_all"}, {"*", "l1d_s_log"}, {"*", "l2_t_log"},
    {"*", "dropped_clwbs"}, {"*", "small_kernels"}, {"*", "kernels"}, {"*", "log_reads"}, {"*", "l2_t_all"},
    {"*", "threshold_max"},
};

struct Res {
    int code = -1, verified = 0, threw = 0;
    uint64_t sim_ps = 0;
    double v[48] = {0};
    char msg[512] = {0};
};

std::string group_of(const std::string &model)
{
    std::string g = "top.gpu." + model;
    for (auto &c : g)
        if (c == '-') c = '_';
    return g;
}

Res run_trace(const std::string &model, const std::string &name, const std::string &text,
              const std::vector<std::string> &sets = {})
{
    const std::string path = write_trace("agpm_" + name, text);
    Res failed;
    failed.threw = 2;
    return run_in_child<Res>(
        [&]() {
            Res out;
            try {
                RunSpec s = small_spec(model, "", sets);
                s.trace = path;
                RunResult r = run_simulation(s);
                out.code = r.code;
                out.verified = r.verified;
                out.sim_ps = r.sim_ps;
                std::snprintf(out.msg, sizeof out.msg, "%s: %s", r.status.c_str(), r.message.c_str());
                for (size_t i = 0; i < kKeys.size(); ++i) {
                    const std::string g = kKeys[i].first == "*" ? group_of(model) : kKeys[i].first;
                    if (r.stats.contains(g) && r.stats[g].contains(kKeys[i].second))
                        out.v[i] = r.stats[g][kKeys[i].second]["value"].get<double>();
                }
            } catch (const std::exception &e) {
                out.threw = 1;
                std::snprintf(out.msg, sizeof out.msg, "%s", e.what());
            }
            return out;
        },
        failed);
}

// A stat of a run ("*": the model's own group), 0 if not reported.
double st(const Res &r, const std::string &group, const std::string &key)
{
    for (size_t i = 0; i < kKeys.size(); ++i)
        if (kKeys[i].first == group && kKeys[i].second == key) return r.v[i];
    ADD_FAILURE() << "test asks for an unlisted stat " << group << "." << key;
    return -1;
}

std::string hex(uint64_t a)
{
    char b[32];
    std::snprintf(b, sizeof b, "0x%llx", (unsigned long long)a);
    return b;
}

constexpr uint64_t kPm = 0x10000000000ull;

// CTA-level undo logging (AGPM paper section II-A, Figure 1; Lin et al.): per block, read the
// outputs, write their old values to the log, persist, set the in-transaction flag, persist, update
// the outputs, persist, mark complete. Two blocks on two SMs, 8 and 32 lanes; expects on the data,
// log and flags.
const char *kUndo = R"(persim-trace 1
data 0x10000100000 0100000002000000030000000400000005000000060000000700000008000000
kernel k blocks=2 threads=32
warp 0 0
ld 0x10000100000 4x8
st log 0x10000200000 4x8 = 1 2 3 4 5 6 7 8
durable
st 0x10000300000 4 = 1
durable
st 0x10000100000 4x8 = 11 12 13 14 15 16 17 18
durable
st 0x10000300000 4 = 2
warp 1 0
ld 0x10000110000 4x32
st log 0x10000210000 4x32 = 9
durable
st 0x10000310000 4 = 1
durable
st 0x10000110000 4x32 = 7
durable
st 0x10000310000 4 = 2
expect 0x10000100000 0b0000000c0000000d0000000e0000000f000000100000001100000012000000
expect 0x10000200000 0100000002000000030000000400000005000000060000000700000008000000
expect 0x10000210000 09000000090000000900000009000000
expect 0x10000110000 07000000070000000700000007000000
expect 0x10000300000 02000000
expect 0x10000310000 02000000
)";

} // namespace

// ---- every model runs the undo-logged program and the final memory verifies ----------------------

class AgpmModels : public ::testing::TestWithParam<std::string> {};

TEST_P(AgpmModels, UndoLogVerifies)
{
    const std::string m = GetParam();
    Res r = run_trace(m, "undo_" + m, kUndo);
    ASSERT_EQ(r.code, EXIT_OK) << r.msg;
    EXPECT_TRUE(r.verified) << r.msg;
    const std::string g = "*";
    // Two log-write lines (one per block), each on exactly one path.
    EXPECT_EQ(st(r, g, "log_nt_lines") + st(r, g, "log_t_lines") + st(r, g, "log_t_wb_lines"), 2) << m;
    EXPECT_GT(st(r, g, "pm_flushes"), 0) << m;
}

INSTANTIATE_TEST_SUITE_P(Sc, AgpmModels, ::testing::Values("static-nt", "static-t", "themis", "pmem-spec", "bucl", "agpm"),
                         [](const auto &i) {
                             std::string n = i.param;
                             for (auto &c : n)
                                 if (c == '-') c = '_';
                             return n;
                         });

// ---- the two paths ------------------------------------------------------------------------------

TEST(AgpmPaths, NtLogStoresBypassTheCachesTOnesDoNot)
{
    Res nt = run_trace("static-nt", "nt", kUndo);
    Res t = run_trace("static-t", "t", kUndo);
    ASSERT_TRUE(nt.verified && t.verified);
    for (const char *sm : {"top.gpu.sm00.l1", "top.gpu.sm01.l1"}) {
        EXPECT_EQ(st(nt, sm, "nt_log_stores"), 1) << sm;
        EXPECT_EQ(st(nt, sm, "t_log_stores"), 0) << sm;
        EXPECT_EQ(st(t, sm, "nt_log_stores"), 0) << sm;
        EXPECT_EQ(st(t, sm, "t_log_stores"), 1) << sm;
        // The T log line is allocated in the L1 (write miss), the NT one is not.
        EXPECT_EQ(st(t, sm, "store_misses"), st(nt, sm, "store_misses") + 1) << sm;
        // and the L1 writes more lines back under T (the log line's clwb).
        EXPECT_EQ(st(t, sm, "pm_flushes"), st(nt, sm, "pm_flushes") + 1) << sm;
    }
    EXPECT_EQ(st(nt, "top.gpu.l2", "nt_writes"), 2);   // around the L2 too
    EXPECT_EQ(st(t, "top.gpu.l2", "nt_writes"), 0);
    // pmem-spec: every PM store is NT (2 log + 2 data + 4 flag lines).
    Res ps = run_trace("pmem-spec", "ps", kUndo);
    EXPECT_EQ(st(ps, "top.gpu.l2", "nt_writes"), 8);
}

TEST(AgpmPaths, ThemisElidesTheFenceAfterNonTemporalLogs)
{
    Res th = run_trace("themis", "th", kUndo);
    Res nt = run_trace("static-nt", "nt2", kUndo);
    ASSERT_TRUE(th.verified && nt.verified);
    // The durable after the log stores has only NT stores outstanding: elided, one per block.
    EXPECT_EQ(st(th, "*", "elided_fences"), 2);
    EXPECT_EQ(st(nt, "*", "elided_fences"), 0);
    EXPECT_LT(th.sim_ps, nt.sim_ps);
}

TEST(AgpmPaths, BuclBypassesUncoalescedLogWrites)
{
    // One coalesced log write (1 line) and one strided over 32 lines.
    const std::string tr = std::string("persim-trace 1\nkernel k blocks=1 threads=32\nwarp 0 0\n") +
                           "st log " + hex(kPm + 0x200000) + " 4x32 = 1\n" +
                           "st log " + hex(kPm + 0x300000) + " 4x32+128 = 2\ndurable\n";
    Res r = run_trace("bucl", "bucl", tr);
    ASSERT_EQ(r.code, EXIT_OK) << r.msg;
    EXPECT_EQ(st(r, "*", "bypass_uncoalesced"), 32);
    EXPECT_EQ(st(r, "*", "log_nt_lines"), 32);
    EXPECT_EQ(st(r, "*", "log_t_lines"), 1);
    Res r2 = run_trace("bucl", "bucl2", tr, {"persist.bucl.coalesce_lines=32"});
    EXPECT_EQ(st(r2, "*", "log_nt_lines"), 0);
}

TEST(AgpmPaths, BuclBypassesOnAReservationFailure)
{
    // A 1 KB L1 (8 lines): warp 0 loads 32 lines, so every line of the L1 waits for its fill when
    // warp 1's coalesced log write misses: a reservation failure, bypassed.
    const std::string tr = std::string("persim-trace 1\nkernel k blocks=1 threads=64\nwarp 0 0\n") + "ld " +
                           hex(kPm + 0x400000) + " 4x32+128\nwarp 0 1\ncompute 40\nst log " + hex(kPm + 0x500000) +
                           " 4x32 = 3\ndurable\n";
    Res r = run_trace("bucl", "resv", tr, {"l1.size_kb=1"});
    ASSERT_EQ(r.code, EXIT_OK) << r.msg;
    EXPECT_EQ(st(r, "*", "bypass_resv_fail"), 1);
    EXPECT_EQ(st(r, "*", "log_nt_lines"), 1);
    // Without the loads nothing is in flight: temporal.
    const std::string quiet = std::string("persim-trace 1\nkernel k blocks=1 threads=64\nwarp 0 1\ncompute 40\nst log ") +
                              hex(kPm + 0x500000) + " 4x32 = 3\ndurable\n";
    Res c = run_trace("bucl", "resv0", quiet, {"l1.size_kb=1"});
    EXPECT_EQ(st(c, "*", "bypass_resv_fail"), 0);
    EXPECT_EQ(st(c, "*", "log_t_lines"), 1);
}

TEST(AgpmPaths, CodedPathPenaltyBothWays)
{
    // persist.agpm.coded_path = nt (the program wrote NT log stores) and agpm sends them over T:
    // every temporal log store is marked NT -> T by the L1 AGPM buffer and gets the added clwb-like
    // write-back (IV-B).
    Res a = run_trace("agpm", "ntt", kUndo, {"persist.agpm.initial_path=t", "persist.agpm.coded_path=nt"});
    ASSERT_TRUE(a.verified) << a.msg;
    EXPECT_EQ(st(a, "*", "log_t_wb_lines"), 2);
    EXPECT_EQ(st(a, "*", "log_t_lines"), 0);
    EXPECT_EQ(st(a, "top.gpu.sm00.l1", "added_writebacks"), 1);
    EXPECT_EQ(st(a, "top.gpu.sm01.l1", "added_writebacks"), 1);
    EXPECT_EQ(st(a, "*", "dropped_clwbs"), 0);
    // coded for T (the default, the paper's programs) and sent over T: nothing added, as static-t.
    Res t = run_trace("agpm", "ttt", kUndo, {"persist.agpm.initial_path=t"});
    ASSERT_TRUE(t.verified) << t.msg;
    EXPECT_EQ(st(t, "*", "log_t_wb_lines"), 0);
    EXPECT_EQ(st(t, "*", "log_t_lines"), 2);
    EXPECT_EQ(st(t, "top.gpu.sm00.l1", "added_writebacks"), 0);
    EXPECT_EQ(st(t, "*", "dropped_clwbs"), 0);
    Res st_t = run_trace("static-t", "ntt_t", kUndo);
    EXPECT_EQ(st(st_t, "top.gpu.sm00.l1", "added_writebacks"), 0);
    EXPECT_EQ(t.sim_ps, st_t.sim_ps);   // agpm on T with T-coded logs is static-t to the picosecond
    // vice versa: coded for T and sent over NT: the program's clwb is dropped (counted), nothing added;
    // coded for NT and sent over NT: nothing at all.
    Res tn = run_trace("agpm", "ttn", kUndo);
    ASSERT_TRUE(tn.verified) << tn.msg;
    EXPECT_EQ(st(tn, "*", "log_nt_lines"), 2);
    EXPECT_EQ(st(tn, "*", "dropped_clwbs"), 2);
    EXPECT_EQ(st(tn, "top.gpu.sm00.l1", "added_writebacks"), 0);
    Res nn = run_trace("agpm", "ntn", kUndo, {"persist.agpm.coded_path=nt"});
    EXPECT_EQ(st(nn, "*", "log_nt_lines"), 2);
    EXPECT_EQ(st(nn, "*", "dropped_clwbs"), 0);
    EXPECT_EQ(st(nn, "top.gpu.sm00.l1", "added_writebacks"), 0);
}

// The log update's read of the data it protects (`ld log`) is recorded as a log update on the data
// block, so the data store that follows re-hits its bytes: temporal locality in the all way (Table
// II's l1d_t_all), none among the log updates. The same program with a plain `ld` shows none.
TEST(AgpmPaths, LogUpdateReadSharesTheDataBlock)
{
    auto prog = [](bool log_read) {
        return std::string("persim-trace 1\ndata 0x10000100000 01000000\nkernel k blocks=1 threads=32\nwarp 0 0\n") +
               (log_read ? "ld log" : "ld") + " 0x10000100000 4x32\nst log 0x10000200000 4x32 = 1\ndurable\n"
               "st 0x10000300000 4 = 1\ndurable\nst 0x10000100000 4x32 = 5\ndurable\nst 0x10000300000 4 = 2\n";
    };
    Res r = run_trace("agpm", "ldlog", prog(true));
    ASSERT_EQ(r.code, EXIT_OK) << r.msg;
    EXPECT_EQ(st(r, "*", "log_reads"), 1);
    EXPECT_EQ(st(r, "*", "l1d_t_all"), 2 * 128);   // 128 bytes re-hit once: counters 2, summed
    EXPECT_EQ(st(r, "*", "l1d_t_log"), 0);
    Res p = run_trace("agpm", "ldplain", prog(false));
    ASSERT_EQ(p.code, EXIT_OK) << p.msg;
    EXPECT_EQ(st(p, "*", "log_reads"), 0);
    EXPECT_EQ(st(p, "*", "l1d_t_all"), 0);
}

// ---- agpm's adaptation -------------------------------------------------------------------------

namespace {
// Phase A: log writes to fresh lines, never touched again (no locality at all: reason f -> NT).
// Phase B: log writes to fresh lines, each read back twice by ordinary loads (locality in the all
// way, none among the log writes: reason a -> T).
std::string phases(int a, int b)
{
    std::string t = "persim-trace 1\nkernel k blocks=1 threads=32\nwarp 0 0\n";
    uint64_t line = 0;
    for (int i = 0; i < a; ++i) t += "st log " + hex(kPm + 0x400000 + 128 * line++) + " 4x32 = 5\n";
    for (int i = 0; i < b; ++i) {
        const std::string ad = hex(kPm + 0x400000 + 128 * line++);
        t += "st log " + ad + " 4x32 = 6\nld " + ad + " 4x32\nld " + ad + " 4x32\n";
    }
    t += "durable\n";
    return t;
}
const std::vector<std::string> kShort = {"persist.agpm.thr_init=4", "persist.agpm.thr_min=1", "persist.agpm.min_log=1",
                                         "persist.agpm.small_periods=0"};
} // namespace

TEST(AgpmAdapt, SwitchesPathWhenLocalityChanges)
{
    std::vector<std::string> sets = kShort;
    sets.push_back("persist.agpm.coded_path=nt");   // logs coded NT: the switch to T adds the write-backs
    Res r = run_trace("agpm", "two", phases(16, 16), sets);
    ASSERT_EQ(r.code, EXIT_OK) << r.msg;
    const std::string g = "*";
    EXPECT_GE(st(r, g, "periods"), 7);
    EXPECT_GE(st(r, g, "reason_f"), 4);       // phase A
    EXPECT_GE(st(r, g, "reason_a"), 2);       // phase B
    EXPECT_GE(st(r, g, "path_switches"), 1);  // NT -> T
    EXPECT_GE(st(r, g, "log_nt_lines"), 16);
    EXPECT_GT(st(r, g, "log_t_wb_lines"), 0); // temporal log stores in phase B, with the added write-back
    EXPECT_GT(st(r, "top.gpu.sm00.l1", "added_writebacks"), 0);
    EXPECT_EQ(st(r, g, "sms_on_nt"), 3);       // SM 0 ends on T; the 3 idle SMs of gpu_small stay on NT
    // Control: phase A alone never leaves NT.
    Res c = run_trace("agpm", "one", phases(32, 0), kShort);
    EXPECT_EQ(st(c, g, "path_switches"), 0);
    EXPECT_EQ(st(c, g, "reason_a"), 0);
    EXPECT_EQ(st(c, g, "log_t_lines") + st(c, g, "log_t_wb_lines"), 0);
    EXPECT_EQ(st(c, g, "sms_on_nt"), 4);
}

// Each reason persim's programs can reach from one SM, triggered by a small kernel (periods of two
// log updates; the period ends at its second log write, after the accesses between them):
//   b: a log line written twice (strong log-log locality, ratio 1 >= 0.25)            -> NT
//   d: a log line written, read 8 times, written again (ratio 2/10 < 0.25)            -> T
//   a: a log line written and read twice, then a fresh one (all-way locality only)   -> T
//   f: two fresh log lines (no locality)                                              -> NT
//   e: as f with the default min_log 100 (too few log updates)                        -> NT
// (c needs L2-only locality, i.e. another SM, and g spatial locality only: the next test; h needs
// shared memory, which persim does not have.)
TEST(AgpmAdapt, ReasonsFromSmallKernels)
{
    auto prog = [](char reason) {
        std::string t = "persim-trace 1\nkernel k blocks=1 threads=32\nwarp 0 0\n";
        uint64_t line = 0;
        for (int rep = 0; rep < 3; ++rep) {
            const std::string a = hex(kPm + 0x600000 + 128 * line++), b = hex(kPm + 0x600000 + 128 * line++);
            t += "st log " + a + " 4x32 = 1\n";
            const int loads = reason == 'd' ? 8 : reason == 'a' ? 2 : 0;
            for (int i = 0; i < loads; ++i) t += "ld " + a + " 4x32\n";
            t += "st log " + ((reason == 'b' || reason == 'd') ? a : b) + " 4x32 = 2\n";
        }
        return t + "durable\n";
    };
    const std::vector<std::string> sets = {"persist.agpm.thr_init=2", "persist.agpm.thr_min=1", "persist.agpm.step_pct=0",
                                           "persist.agpm.min_log=1", "persist.agpm.small_periods=0"};
    for (char c : std::string("bdaf")) {
        Res r = run_trace("agpm", std::string("reason_") + c, prog(c), sets);
        ASSERT_EQ(r.code, EXIT_OK) << r.msg;
        EXPECT_EQ(st(r, "*", "periods"), 3) << c;
        EXPECT_EQ(st(r, "*", std::string("reason_") + c), 3) << c;
    }
    Res e = run_trace("agpm", "reason_e", prog('f'), {"persist.agpm.thr_init=2", "persist.agpm.thr_min=1", "persist.agpm.small_periods=0"});
    EXPECT_EQ(st(e, "*", "reason_e"), 3);
    EXPECT_EQ(st(e, "*", "reason_f"), 0);
}

// The two reasons the single-SM kernels above cannot reach (periods of two log updates):
//   g: each log line written in two halves (spatial locality only, no byte written twice) -> T
//   c: two SMs write the same log line; the shared L2 buffer sees it twice, each L1 buffer once
//      (locality at the L2 only) when SM 0's period ends; SM 1's period, after the reset, has
//      none (f)                                                                        -> T
TEST(AgpmAdapt, ReasonsCAndGFromSmallKernels)
{
    const std::vector<std::string> sets = {"persist.agpm.thr_init=2", "persist.agpm.thr_min=1", "persist.agpm.step_pct=0",
                                           "persist.agpm.min_log=1", "persist.agpm.small_periods=0"};
    std::string g = "persim-trace 1\nkernel k blocks=1 threads=32\nwarp 0 0\n";
    for (int i = 0; i < 3; ++i)
        g += "st log " + hex(kPm + 0x900000 + 128 * i) + " 4x16 = 1\nst log " + hex(kPm + 0x900000 + 128 * i + 64) +
             " 4x16 = 2\n";
    Res rg = run_trace("agpm", "reason_g", g + "durable\n", sets);
    ASSERT_EQ(rg.code, EXIT_OK) << rg.msg;
    EXPECT_EQ(st(rg, "*", "periods"), 3);
    EXPECT_EQ(st(rg, "*", "reason_g"), 3);
    const std::string a = hex(kPm + 0xA00000), b0 = hex(kPm + 0xA00080), b1 = hex(kPm + 0xA00100);
    const std::string c = "persim-trace 1\nkernel k blocks=2 threads=32\nwarp 0 0\nst log " + a + " 4x32 = 1\ncompute 2000\n"
                          "st log " + b0 + " 4x32 = 1\ndurable\nwarp 1 0\nst log " + a + " 4x32 = 1\ncompute 6000\n"
                          "st log " + b1 + " 4x32 = 1\ndurable\n";
    Res rc = run_trace("agpm", "reason_c", c, sets);
    ASSERT_EQ(rc.code, EXIT_OK) << rc.msg;
    EXPECT_EQ(st(rc, "*", "periods"), 2);
    EXPECT_EQ(st(rc, "*", "reason_c"), 1);
    EXPECT_EQ(st(rc, "*", "reason_f"), 1);
}

TEST(AgpmAdapt, ThresholdAdaptsEveryPeriodAfterTheFirst)
{
    const std::vector<std::string> sets = {"persist.agpm.thr_init=50", "persist.agpm.thr_min=1", "persist.agpm.min_log=1",
                                           "persist.agpm.small_periods=0"};
    Res r = run_trace("agpm", "thr", phases(200, 0), sets);
    ASSERT_EQ(r.code, EXIT_OK) << r.msg;
    const std::string g = "*";
    const double periods = st(r, g, "periods");
    EXPECT_GE(periods, 3);
    EXPECT_EQ(st(r, g, "threshold_up") + st(r, g, "threshold_down"), periods - 1);
    EXPECT_NE(st(r, g, "threshold_min"), 50);
    // Fewer log updates than the threshold: no period ends, the threshold stays.
    Res c = run_trace("agpm", "thr0", phases(40, 0), sets);
    EXPECT_EQ(st(c, g, "periods"), 0);
    EXPECT_EQ(st(c, g, "threshold_min"), 50);
}

// IV-A's small-kernel rule (persim's value): a kernel with fewer log updates per SM than the
// threshold starts with max(min_log, ceil(its log updates per SM / small_periods)). 40 log lines on
// gpu_small's 4 SMs = 10 per SM; with min_log 1 and 4 periods the threshold is 3: 13 periods end on
// the one busy SM. Without the rule (small_periods 0) or with the default min_log (100), none.
TEST(AgpmAdapt, SmallKernelRuleStartsWithASmallerThreshold)
{
    const std::vector<std::string> sets = {"persist.agpm.min_log=1", "persist.agpm.step_pct=0"};
    Res r = run_trace("agpm", "small", phases(40, 0), sets);
    ASSERT_EQ(r.code, EXIT_OK) << r.msg;
    EXPECT_EQ(st(r, "*", "kernels"), 1);
    EXPECT_EQ(st(r, "*", "small_kernels"), 1);
    EXPECT_EQ(st(r, "*", "periods"), 13);
    EXPECT_EQ(st(r, "*", "threshold_max"), 3);
    std::vector<std::string> off = sets;
    off.push_back("persist.agpm.small_periods=0");
    Res o = run_trace("agpm", "small_off", phases(40, 0), off);
    EXPECT_EQ(st(o, "*", "small_kernels"), 0);
    EXPECT_EQ(st(o, "*", "periods"), 0);
    Res d = run_trace("agpm", "small_minlog", phases(40, 0));
    EXPECT_EQ(st(d, "*", "small_kernels"), 1);
    EXPECT_EQ(st(d, "*", "periods"), 0);   // threshold 100 (the min_log floor) > 40
    // A kernel with as many log updates per SM as thr_init is not small.
    Res big = run_trace("agpm", "small_big", phases(40, 0), {"persist.agpm.thr_init=10", "persist.agpm.thr_min=1", "persist.agpm.min_log=1", "persist.agpm.step_pct=0"});
    EXPECT_EQ(st(big, "*", "small_kernels"), 0);
    EXPECT_EQ(st(big, "*", "periods"), 4);
}

// Table II's locality variables are exported (summed over all periods, also the ones still open
// when the run ends): a log line written twice shows temporal log locality in the L1 buffer,
// fresh log lines show none; spatial locality: the second half of a line after its first half.
TEST(AgpmAdapt, TableIILocalityCountersAreReported)
{
    auto prog = [](bool again, bool halves) {
        std::string t = "persim-trace 1\nkernel k blocks=1 threads=32\nwarp 0 0\n";
        for (int i = 0; i < 4; ++i) {
            const std::string a = hex(kPm + 0x700000 + 128 * i);
            if (halves) t += "st log " + a + " 4x16 = 1\nst log " + hex(kPm + 0x700000 + 128 * i + 64) + " 4x16 = 1\n";
            else t += "st log " + a + " 4x32 = 1\n" + (again ? "st log " + a + " 4x32 = 2\n" : "");
        }
        return t + "durable\n";
    };
    Res twice = run_trace("agpm", "t2_twice", prog(true, false));      // default threshold: no period ends
    Res once = run_trace("agpm", "t2_once", prog(false, false));
    Res halves = run_trace("agpm", "t2_halves", prog(false, true));
    ASSERT_EQ(twice.code, EXIT_OK) << twice.msg;
    ASSERT_EQ(st(twice, "*", "periods"), 0);
    EXPECT_GT(st(twice, "*", "l1d_t_log"), 0);
    EXPECT_GT(st(twice, "*", "l2_t_log"), 0);
    EXPECT_EQ(st(once, "*", "l1d_t_log"), 0);
    EXPECT_EQ(st(once, "*", "l1d_s_log"), 0);
    EXPECT_GT(st(halves, "*", "l1d_s_log"), 0);
    EXPECT_EQ(st(halves, "*", "l1d_t_log"), 0);
}

// ---- bad config values name the key -------------------------------------------------------------

TEST(AgpmConfig, BadValuesNameTheKey)
{
    auto refused = [](const std::vector<std::string> &sets, const std::string &key) {
        Res r = run_trace("agpm", "bad", kUndo, sets);
        EXPECT_EQ(r.threw, 1) << key << ": " << r.msg;
        EXPECT_NE(std::string(r.msg).find(key), std::string::npos) << r.msg;
    };
    refused({"persist.agpm.buf_ways=3"}, "persist.agpm.buf_ways");
    refused({"persist.agpm.buf_ways=16", "persist.agpm.buf_entries=1000"}, "persist.agpm.buf_entries");
    refused({"persist.agpm.block_bytes=100"}, "persist.agpm.block_bytes");
    refused({"persist.agpm.thr_min=200", "persist.agpm.thr_init=150"}, "persist.agpm.thr_init");
    refused({"persist.agpm.step_pct=200"}, "persist.agpm.step_pct");
    refused({"persist.agpm.byte_ctr_bits=9"}, "persist.agpm.byte_ctr_bits");
    refused({"persist.agpm.initial_path=x"}, "persist.agpm.initial_path");
    refused({"persist.agpm.coded_path=x"}, "persist.agpm.coded_path");
    refused({"persist.agpm.small_periods=-1"}, "persist.agpm.small_periods");
}
