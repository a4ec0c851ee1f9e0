// Unit tests of the AGPM path selector core (cores/agpm_sel.{h,c}), with the AGPM buffer core
// (cores/agpm_buf.{h,c}) as the source of its inputs.
#include <gtest/gtest.h>
#include <string>
#include <vector>
extern "C" {
#include "agpm_buf.h"
#include "agpm_sel.h"
}

namespace {

struct Sel {
    std::vector<uint64_t> mem;
    agpm_sel *s;
    explicit Sel(agpm_sel_cfg c = agpm_sel_default_cfg())
    {
        mem.resize(agpm_sel_bytes() / 8 + 1);
        s = reinterpret_cast<agpm_sel *>(mem.data());
        EXPECT_EQ(agpm_sel_init(s, &c), 0);
    }
};

struct Buf {
    std::vector<uint64_t> mem;
    agpm_buf *b;
    Buf()
    {
        agpm_buf_cfg c{1024, 2, 128, 5, 5, 64};
        mem.resize(agpm_buf_bytes(&c) / 8 + 1);
        b = reinterpret_cast<agpm_buf *>(mem.data());
        EXPECT_EQ(agpm_buf_init(b, &c), 0);
    }
};

TEST(AgpmSel, DefaultsAreThePapers)
{
    agpm_sel_cfg c = agpm_sel_default_cfg();
    EXPECT_EQ(c.ratio_num * 4, c.ratio_den * 1);   // 0.25
    EXPECT_EQ(c.min_log, 100u);
    EXPECT_EQ(c.thr_init, 10000u);
    EXPECT_EQ(c.step_pct, 10u);
    Sel q;
    EXPECT_EQ(agpm_sel_threshold(q.s), 10000u);
    EXPECT_EQ(agpm_sel_path(q.s), AGPM_PATH_NT);
    EXPECT_EQ(agpm_sel_reason(q.s), AGPM_R_NONE);
}

TEST(AgpmSel, RejectsBadConfig)
{
    std::vector<uint64_t> mem(agpm_sel_bytes() / 8 + 1);
    auto bad = [&](void (*f)(agpm_sel_cfg &)) {
        agpm_sel_cfg c = agpm_sel_default_cfg();
        f(c);
        return agpm_sel_init(mem.data(), &c);
    };
    EXPECT_EQ(bad([](agpm_sel_cfg &) {}), 0);
    EXPECT_EQ(bad([](agpm_sel_cfg &c) { c.ratio_den = 0; }), -1);
    EXPECT_EQ(bad([](agpm_sel_cfg &c) { c.ratio_num = 5; }), -1);       // ratio > 1
    EXPECT_EQ(bad([](agpm_sel_cfg &c) { c.thr_min = 0; }), -1);
    EXPECT_EQ(bad([](agpm_sel_cfg &c) { c.thr_min = 20000; }), -1);     // init below min
    EXPECT_EQ(bad([](agpm_sel_cfg &c) { c.thr_max = 5000; }), -1);      // init above max
    EXPECT_EQ(bad([](agpm_sel_cfg &c) { c.step_pct = 101; }), -1);
    EXPECT_EQ(bad([](agpm_sel_cfg &c) { c.initial_path = AGPM_PATH_NONE; }), -1);
    agpm_sel_cfg c = agpm_sel_default_cfg();
    EXPECT_EQ(agpm_sel_init(nullptr, &c), -1);
    EXPECT_EQ(agpm_sel_init(mem.data(), nullptr), -1);
}

// Table II: the published variables of all 22 kernels classify to the published reason. The
// shared-memory flag is not in Table II; it is set for the two reason-h kernels (section III:
// "these kernels use the shared memory").
TEST(AgpmSel, TableIIRowsClassifyAsPublished)
{
    struct Row {
        const char *name;
        uint64_t v[10];   // l1d t_all t_log s_all s_log, l2 t_all t_log s_all s_log, all, log
        int shm;
        char reason;
    };
    const Row rows[] = {
        {"SAD1", {0, 0, 0, 0, 289160, 157652, 300509, 167001, 2288857, 324803}, 0, 'c'},
        {"Stencil1", {0, 0, 0, 0, 0, 0, 0, 0, 131871, 33849}, 0, 'f'},
        {"SGEMM", {0, 0, 0, 0, 0, 0, 0, 0, 3191435, 133274}, 1, 'h'},
        {"GRID1", {2398, 0, 3126, 0, 7495, 3483, 9588, 3930, 1047435, 662069}, 0, 'a'},
        {"GRID2", {47898, 0, 47898, 0, 140745, 64156, 140745, 64156, 591011, 200163}, 0, 'a'},
        {"2DCONV", {0, 0, 0, 0, 0, 0, 0, 0, 79334, 17060}, 0, 'f'},
        {"Backprop1", {0, 0, 7, 6, 0, 0, 153, 147, 88412, 65076}, 0, 'g'},
        {"Backprop2", {8764, 2671, 9476, 2987, 8958, 6330, 9707, 6920, 280763, 118159}, 0, 'b'},
        {"Pathfinder", {1221, 97, 1225, 101, 35000, 26646, 35843, 27229, 806640, 382582}, 0, 'd'},
        {"StreamTriad", {0, 0, 0, 0, 0, 0, 0, 0, 36000, 17476}, 0, 'f'},
        {"RA", {1, 1, 2, 2, 2, 1, 4, 2, 6644, 2676}, 0, 'b'},
        {"ATAX1", {45460, 45460, 45460, 45460, 135526, 89964, 135526, 89964, 1926411, 180170}, 0, 'b'},
        {"ATAX2", {89032, 45562, 134032, 45562, 135770, 90000, 135770, 90000, 545022, 180170}, 0, 'b'},
        {"NW", {82, 40, 154, 84, 204, 88, 426, 156, 3195, 1392}, 1, 'h'},
        {"BFS", {5, 0, 5, 0, 2, 1, 2, 1, 9528, 79}, 0, 'e'},
        {"SSSP1", {0, 0, 0, 0, 1, 0, 1, 0, 1007, 17}, 0, 'e'},
        {"SSSP2", {1028, 771, 1028, 771, 2570, 1285, 2570, 1285, 9509, 6168}, 0, 'b'},
        {"MVT", {63720, 63720, 63720, 63720, 196227, 130846, 196227, 130846, 9444863, 341037}, 0, 'b'},
        {"GESUMMV", {60929, 60929, 60929, 60929, 193639, 129104, 193639, 129104, 15752038, 281725}, 0, 'b'},
        {"2MM1", {1639464, 0, 2809772, 0, 5608094, 4905025, 6369854, 5416431, 95599514, 51796409}, 0, 'a'},
        {"3MM1", {28360, 0, 28608, 0, 441916, 411072, 449205, 418361, 7281497, 4458165}, 0, 'a'},
        {"GEMM", {33545, 2031, 34045, 2031, 1533475, 1501161, 1559512, 1527197, 7332760, 4503201}, 0, 'd'},
    };
    agpm_sel_cfg c = agpm_sel_default_cfg();
    for (const Row &r : rows) {
        agpm_sel_in in{{r.v[0], r.v[1], r.v[2], r.v[3]}, {r.v[4], r.v[5], r.v[6], r.v[7]},
                       r.v[8], r.v[9], r.shm};
        EXPECT_EQ(agpm_reason_letter(agpm_sel_classify(&c, &in)), r.reason) << r.name;
    }
}

// One op of a hand-made "kernel": a log update or another access, at the L1 and/or the L2 buffer.
struct Op {
    int level;   // 1 = L1 buffer, 2 = L2 buffer, 3 = both
    bool log;
    uint64_t addr;
    uint32_t len;
};

agpm_sel_in run(const std::vector<Op> &ops, uint64_t log_updates, int shm = 0)
{
    Buf l1, l2;
    for (const Op &o : ops)
        for (int lv = 1; lv <= 2; lv++) {
            if (!(o.level & lv)) continue;
            agpm_buf *b = lv == 1 ? l1.b : l2.b;
            if (o.log) EXPECT_EQ(agpm_buf_log_write(b, o.addr, o.len, AGPM_PATH_NT, AGPM_PATH_NT), 0);
            else EXPECT_GE(agpm_buf_access(b, o.addr, o.len), 0);
        }
    agpm_sel_in in{};
    agpm_buf_vars(l1.b, 1, &in.l1d);
    agpm_buf_vars(l2.b, 1, &in.l2);
    in.all = ops.size();
    in.log = log_updates;
    in.shm_used = shm;
    return in;
}

char classify(const agpm_sel_in &in)
{
    agpm_sel_cfg c = agpm_sel_default_cfg();
    return agpm_reason_letter(agpm_sel_classify(&c, &in));
}

const uint64_t X = 0x10000, Y = 0x20080, Z = 0x30100;   // three different sets

// Each reason a-h triggered by a small access sequence fed through real AGPM buffers.
TEST(AgpmSel, ReasonAFromDataReusingTheLoggedBytes)
{
    // log X once, then the data updates re-hit the logged bytes: L1 locality, none among the logs
    agpm_sel_in in = run({{3, true, X, 8}, {3, false, X, 8}, {3, false, X, 8}}, 500);
    EXPECT_GT(in.l1d.t_all, 0u);
    EXPECT_EQ(in.l1d.t_log + in.l1d.s_log, 0u);
    EXPECT_EQ(classify(in), 'a');
}

TEST(AgpmSel, ReasonBFromRepeatedLogUpdatesInL1)
{
    agpm_sel_in in = run({{3, true, X, 8}, {3, true, X, 8}, {3, false, X, 8}}, 500);
    EXPECT_GT(in.l1d.t_log * 4, in.l1d.t_all);   // >= 0.25 of the L1 temporal locality
    EXPECT_EQ(classify(in), 'b');
}

TEST(AgpmSel, ReasonCFromLocalityOnlyInL2)
{
    agpm_sel_in in = run({{1, true, X, 8}, {1, true, Y, 8}, {2, true, Z, 8}, {2, false, Z, 8}}, 500);
    EXPECT_EQ(in.l1d.t_all + in.l1d.t_log + in.l1d.s_all + in.l1d.s_log, 0u);
    EXPECT_GT(in.l2.t_all, 0u);
    EXPECT_EQ(classify(in), 'c');
}

TEST(AgpmSel, ReasonDFromASmallShareOfLogLocality)
{
    std::vector<Op> ops = {{3, true, X, 4}, {3, true, X, 4}, {3, true, Y, 64}};
    for (int i = 0; i < 3; i++) ops.push_back({3, false, Y, 64});
    agpm_sel_in in = run(ops, 500);
    EXPECT_EQ(in.l1d.t_log, 8u);                  // X's 4 bytes at 2
    EXPECT_EQ(in.l1d.t_all, 8u + 64u * 4);        // ... plus Y's 64 bytes at 4
    EXPECT_EQ(classify(in), 'd');
}

TEST(AgpmSel, ReasonEFromTooFewLogUpdates)
{
    agpm_sel_in in = run({{3, true, X, 8}, {3, true, X, 8}, {3, false, X, 8}}, 99);
    EXPECT_EQ(classify(in), 'e');
    in.log = 100;                                 // "too small (100)": 100 is enough
    EXPECT_EQ(classify(in), 'b');
}

TEST(AgpmSel, ReasonFFromNoLocalityAnywhere)
{
    agpm_sel_in in = run({{3, true, X, 8}, {3, true, Y, 8}, {3, false, Z, 8}}, 500);
    EXPECT_EQ(classify(in), 'f');
}

TEST(AgpmSel, ReasonGFromSpatialLocalityOnly)
{
    // data updates touch other bytes of the logged blocks: block counters only
    agpm_sel_in in = run({{3, true, X, 4}, {3, false, X + 64, 4}, {3, true, Y, 4}, {3, true, Y + 8, 4}}, 500);
    EXPECT_EQ(in.l1d.t_all + in.l1d.t_log + in.l2.t_all + in.l2.t_log, 0u);
    EXPECT_GT(in.l1d.s_log, 0u);
    EXPECT_EQ(classify(in), 'g');
}

TEST(AgpmSel, ReasonHFromSharedMemoryUse)
{
    agpm_sel_in in = run({{3, true, X, 8}, {3, false, X, 8}}, 500, 1);
    EXPECT_EQ(classify(in), 'h');
    in.shm_used = 0;
    EXPECT_EQ(classify(in), 'a');
    // persim's order where Table II does not decide (no kernel with both): h before e
    in.shm_used = 1;
    in.log = 10;
    EXPECT_EQ(classify(in), 'h');
}

// Where c and g overlap (no L1 locality; L2 spatial locality only) Table II does not decide
// either; persim checks c first (both choose T).
TEST(AgpmSel, OverlapOfCAndGIsC)
{
    agpm_sel_in in = run({{3, true, X, 4}, {2, false, X + 64, 4}}, 500);
    EXPECT_EQ(in.l1d.s_all + in.l2.t_all + in.l2.t_log, 0u);
    EXPECT_GT(in.l2.s_all, 0u);
    EXPECT_EQ(classify(in), 'c');
}

TEST(AgpmSel, PathPerReason)
{
    EXPECT_EQ(agpm_sel_path_for(AGPM_R_A), AGPM_PATH_T);
    EXPECT_EQ(agpm_sel_path_for(AGPM_R_C), AGPM_PATH_T);
    EXPECT_EQ(agpm_sel_path_for(AGPM_R_D), AGPM_PATH_T);
    EXPECT_EQ(agpm_sel_path_for(AGPM_R_G), AGPM_PATH_T);
    EXPECT_EQ(agpm_sel_path_for(AGPM_R_B), AGPM_PATH_NT);
    EXPECT_EQ(agpm_sel_path_for(AGPM_R_E), AGPM_PATH_NT);
    EXPECT_EQ(agpm_sel_path_for(AGPM_R_F), AGPM_PATH_NT);
    EXPECT_EQ(agpm_sel_path_for(AGPM_R_H), AGPM_PATH_NT);
    EXPECT_EQ(agpm_sel_path_for(AGPM_R_NONE), AGPM_PATH_NONE);
    EXPECT_EQ(agpm_reason_letter(AGPM_R_NONE), '-');
}

TEST(AgpmSel, RatioBoundaryIsExact)
{
    agpm_sel_cfg c = agpm_sel_default_cfg();
    agpm_sel_in in{{400, 100, 400, 0}, {0, 0, 0, 0}, 0, 1000, 0};
    EXPECT_EQ(agpm_sel_classify(&c, &in), AGPM_R_B);      // exactly 0.25
    in.l1d.t_log = 99;
    EXPECT_EQ(agpm_sel_classify(&c, &in), AGPM_R_D);
    in.l1d.s_log = 100;                                   // the spatial share alone reaches 0.25
    EXPECT_EQ(agpm_sel_classify(&c, &in), AGPM_R_B);
}

TEST(AgpmSel, PeriodEndsAtTheThreshold)
{
    agpm_sel_cfg c = agpm_sel_default_cfg();
    c.thr_init = 100;
    Sel q(c);
    for (int i = 1; i < 100; i++) ASSERT_EQ(agpm_sel_log_update(q.s), 0) << i;
    EXPECT_EQ(agpm_sel_log_update(q.s), 1);
    EXPECT_EQ(agpm_sel_period_logs(q.s), 100u);
    agpm_sel_in in{{10, 0, 10, 0}, {}, 0, agpm_sel_period_logs(q.s), 0};
    EXPECT_EQ(agpm_sel_end_period(q.s, &in), AGPM_PATH_T);     // reason a
    EXPECT_EQ(agpm_sel_reason(q.s), AGPM_R_A);
    EXPECT_EQ(agpm_sel_prev_path(q.s), AGPM_PATH_NT);
    EXPECT_EQ(agpm_sel_period_logs(q.s), 0u);
    EXPECT_EQ(agpm_sel_threshold(q.s), 100u);                  // first period: not adapted
    EXPECT_EQ(agpm_sel_get_stats(q.s)->path_changes, 1u);
    EXPECT_EQ(agpm_sel_get_stats(q.s)->reasons[AGPM_R_A], 1u);
}

void period(agpm_sel *s, std::initializer_list<uint64_t> waits)
{
    for (uint64_t w : waits) agpm_sel_pm_done(s, w);
    agpm_sel_in in{{}, {}, 0, 1000, 0};
    agpm_sel_end_period(s, &in);
}

// IV-A: "If the CWPPR of the sampling period is bigger than the previous period ... increased by
// 10% ... if the previous threshold is 10000, then the updated threshold is 11000. Otherwise, the
// threshold is decreased by 10%".
TEST(AgpmSel, ThresholdAdaptsUpAndDown)
{
    Sel q;
    period(q.s, {100, 100});                   // CWPPR 100, no previous period
    EXPECT_EQ(agpm_sel_threshold(q.s), 10000u);
    period(q.s, {150, 250});                   // 200 > 100: longer periods
    EXPECT_EQ(agpm_sel_threshold(q.s), 11000u);
    period(q.s, {150});                        // 150 < 200
    EXPECT_EQ(agpm_sel_threshold(q.s), 9900u);
    period(q.s, {100, 200});                   // 150 == 150: "otherwise", down
    EXPECT_EQ(agpm_sel_threshold(q.s), 8910u);
    period(q.s, {});                           // nothing completed: CWPPR 0, down
    EXPECT_EQ(agpm_sel_threshold(q.s), 8019u);
    period(q.s, {1});                          // 1 > 0: up
    EXPECT_EQ(agpm_sel_threshold(q.s), 8820u);
    EXPECT_EQ(agpm_sel_get_stats(q.s)->thr_up, 2u);
    EXPECT_EQ(agpm_sel_get_stats(q.s)->thr_down, 3u);
    EXPECT_EQ(agpm_sel_get_stats(q.s)->periods, 6u);
    uint64_t n, d;
    agpm_sel_cwppr(q.s, 1, &n, &d);
    EXPECT_EQ(n, 1u);
    EXPECT_EQ(d, 1u);
}

TEST(AgpmSel, ThresholdIsClampedAndComparedExactly)
{
    agpm_sel_cfg c = agpm_sel_default_cfg();
    c.thr_init = 105;
    c.thr_max = 110;
    Sel q(c);
    period(q.s, {10});
    period(q.s, {5});                          // 105 - 10 = 95 -> clamped to thr_min 100
    EXPECT_EQ(agpm_sel_threshold(q.s), 100u);
    period(q.s, {9});                          // 100 + 10 = 110
    period(q.s, {10});                         // 121 -> clamped to 110
    EXPECT_EQ(agpm_sel_threshold(q.s), 110u);
    // CWPPR compared exactly: 1.8e19 / 2 < 1e19 / 1, although 1e19 * 2 overflows 64 bits
    Sel big;
    period(big.s, {10000000000000000000ull});
    period(big.s, {9000000000000000000ull, 9000000000000000000ull});
    EXPECT_EQ(agpm_sel_threshold(big.s), 9000u);
    period(big.s, {9000000000000000001ull});                            // a hair above 9e18
    EXPECT_EQ(agpm_sel_threshold(big.s), 9900u);
    period(big.s, {6000000000000000000ull, 6000000000000000000ull, 6000000000000000000ull});
    period(big.s, {6100000000000000000ull, 6100000000000000000ull});   // both products overflow
    EXPECT_EQ(agpm_sel_threshold(big.s), 8910u + 891u);
}

// The NT -> T change of the log path: the program codes its log stores non-temporal (the usual
// choice, section I); the selector switches to T at a period end; the next log store is marked
// for a clwb-like write-back (IV-B); a switch back to NT marks T-coded stores to drop their clwb.
TEST(AgpmSel, NtToTChangeMarksAWriteBack)
{
    agpm_sel_cfg c = agpm_sel_default_cfg();
    c.thr_init = 100;
    Sel q(c);
    Buf l1;
    const uint64_t B = 0x5000;
    int ended = 0;
    for (int i = 0; i < 100 && !ended; i++) {
        ASSERT_EQ(agpm_buf_log_write(l1.b, B + (i % 16) * 8, 8, AGPM_PATH_NT, agpm_sel_path(q.s)), 0);
        agpm_buf_access(l1.b, B + 64, 8);      // data updates to the same block
        ended = agpm_sel_log_update(q.s);
    }
    ASSERT_TRUE(ended);
    EXPECT_EQ(agpm_buf_mark(l1.b, B), AGPM_MARK_NONE);         // NT as coded: nothing to do
    agpm_sel_in in{};
    agpm_buf_vars(l1.b, 1, &in.l1d);
    in.log = agpm_sel_period_logs(q.s);
    // the logs re-hit their own bytes: too-strong log locality in the L1 -> reason b, stay NT
    EXPECT_EQ(agpm_sel_end_period(q.s, &in), AGPM_PATH_NT);
    EXPECT_EQ(agpm_sel_reason(q.s), AGPM_R_B);
    agpm_buf_reset(l1.b);                                      // period end: buffers flushed
    // next period: locality from data updates only (reason a) -> T
    agpm_buf_log_write(l1.b, B, 8, AGPM_PATH_NT, agpm_sel_path(q.s));
    agpm_buf_access(l1.b, B, 8);
    agpm_buf_vars(l1.b, 1, &in.l1d);
    EXPECT_EQ(agpm_sel_end_period(q.s, &in), AGPM_PATH_T);
    EXPECT_EQ(agpm_sel_reason(q.s), AGPM_R_A);
    EXPECT_EQ(agpm_sel_prev_path(q.s), AGPM_PATH_NT);
    agpm_buf_reset(l1.b);
    ASSERT_EQ(agpm_buf_log_write(l1.b, B, 8, AGPM_PATH_NT, agpm_sel_path(q.s)), 0);
    EXPECT_EQ(agpm_buf_mark(l1.b, B), AGPM_MARK_NT_TO_T);      // add the write-back after the store
    agpm_buf_clear_mark(l1.b, B);
    // shared memory -> h -> NT: a T-coded log store's clwb is dropped
    in.shm_used = 1;
    EXPECT_EQ(agpm_sel_end_period(q.s, &in), AGPM_PATH_NT);
    ASSERT_EQ(agpm_buf_log_write(l1.b, B, 8, AGPM_PATH_T, agpm_sel_path(q.s)), 0);
    EXPECT_EQ(agpm_buf_mark(l1.b, B), AGPM_MARK_T_TO_NT);
    EXPECT_EQ(agpm_sel_get_stats(q.s)->path_changes, 2u);
}

}  // namespace

// The program's coding of its log stores (IV-B's path-change mark, persist.agpm.coded_path): the
// paper's programs persist the log with a clwb and a fence (II-A, Figure 1; V-A), so T by default;
// a coded path other than T / NT is refused.
TEST(AgpmSel, CodedPathDefaultsToTAndIsChecked)
{
    agpm_sel_cfg c = agpm_sel_default_cfg();
    EXPECT_EQ(c.coded_path, (uint32_t)AGPM_PATH_T);
    std::vector<uint64_t> mem(agpm_sel_bytes() / 8 + 1);
    c.coded_path = AGPM_PATH_NONE;
    EXPECT_EQ(agpm_sel_init(mem.data(), &c), -1);
    c.coded_path = AGPM_PATH_NT;
    EXPECT_EQ(agpm_sel_init(mem.data(), &c), 0);
    EXPECT_EQ(agpm_sel_config(reinterpret_cast<agpm_sel *>(mem.data()))->coded_path, (uint32_t)AGPM_PATH_NT);
}

// IV-A's rule for kernels with fewer log updates than the threshold ("initialized with a smaller
// value"; the value is persim's): max(min_log, ceil(per-SM log updates / small_periods)).
TEST(AgpmSel, SmallKernelRuleGivesASmallerThreshold)
{
    agpm_sel_cfg c = agpm_sel_default_cfg();
    EXPECT_EQ(c.small_periods, 4u);
    EXPECT_EQ(agpm_sel_kernel_threshold(&c, 10000), 10000u);   // not small
    EXPECT_EQ(agpm_sel_kernel_threshold(&c, 50000), 10000u);
    EXPECT_EQ(agpm_sel_kernel_threshold(&c, 9999), 2500u);     // ceil(9999 / 4)
    EXPECT_EQ(agpm_sel_kernel_threshold(&c, 1200), 300u);
    EXPECT_EQ(agpm_sel_kernel_threshold(&c, 250), 100u);       // floor: min_log (no period is reason e by construction)
    EXPECT_EQ(agpm_sel_kernel_threshold(&c, 0), 100u);
    c.min_log = 0;
    EXPECT_EQ(agpm_sel_kernel_threshold(&c, 0), 1u);
    EXPECT_EQ(agpm_sel_kernel_threshold(&c, 10), 3u);
    c.small_periods = 0;                                       // rule off
    EXPECT_EQ(agpm_sel_kernel_threshold(&c, 10), 10000u);
}

// A kernel start sets the launch's threshold, restarts the period and the CWPPR history (the first
// period of a launch is not adapted), keeps the path; periods then end at the small threshold; the
// adaptation clamps to the small threshold, not thr_min, while it is in force.
TEST(AgpmSel, KernelStartAppliesTheRuleAndRestartsThePeriod)
{
    agpm_sel_cfg c = agpm_sel_default_cfg();
    c.min_log = 1;
    Sel q(c);
    agpm_sel_in in{};
    in.log = 1000;   // no locality: reason f -> NT
    for (int i = 0; i < 7; ++i) EXPECT_EQ(agpm_sel_log_update(q.s), 0);
    EXPECT_EQ(agpm_sel_kernel_start(q.s, 40), 10u);             // ceil(40 / 4)
    EXPECT_EQ(agpm_sel_period_logs(q.s), 0u);                  // the 7 above belong to the last launch
    EXPECT_EQ(agpm_sel_threshold(q.s), 10u);
    for (int i = 0; i < 9; ++i) EXPECT_EQ(agpm_sel_log_update(q.s), 0);
    EXPECT_EQ(agpm_sel_log_update(q.s), 1);                    // the 10th ends the period
    agpm_sel_pm_done(q.s, 50);
    agpm_sel_end_period(q.s, &in);
    EXPECT_EQ(agpm_sel_threshold(q.s), 10u);                   // first period of the launch: not adapted
    agpm_sel_pm_done(q.s, 10);                                 // CWPPR fell: -10 %, to 9 (below thr_min 100)
    agpm_sel_end_period(q.s, &in);
    EXPECT_EQ(agpm_sel_threshold(q.s), 10u);                   // clamped at the launch's threshold
    EXPECT_EQ(agpm_sel_get_stats(q.s)->small_kernels, 1u);
    EXPECT_EQ(agpm_sel_get_stats(q.s)->kernels, 1u);
    // a large launch gets thr_init back
    EXPECT_EQ(agpm_sel_kernel_start(q.s, 20000), 10000u);
    EXPECT_EQ(agpm_sel_get_stats(q.s)->small_kernels, 1u);
    EXPECT_EQ(agpm_sel_get_stats(q.s)->kernels, 2u);
}
