// Region formation on CPU op streams (workloads/region_form.h), LightWSP IV-A.
#include <gtest/gtest.h>
extern "C" {
#include "op.h"
#include "region_form.h"
}

namespace {

struct Prog {
    persim_prog *p = prog_new();
    ~Prog() { prog_free(p); }
};

region_form_cfg cfg(uint32_t th, uint32_t lo = 0, uint32_t ipl = 16) { return region_form_cfg{th, lo, ipl}; }

std::vector<region_bdry> form(const persim_prog *p, const region_form_cfg &c)
{
    region_plan pl{};
    EXPECT_EQ(region_form(p, 0, p->nops, &c, &pl), 0);
    std::vector<region_bdry> v(pl.b, pl.b + pl.n);
    region_plan_free(&pl);
    return v;
}

void one_thread(persim_prog *p)
{
    prog_kernel(p, "main", 1, 32);
    prog_warp(p, 0, 0);
}

} // namespace

TEST(RegionForm, StoreThresholdCountsCheckpointAndPcStores)
{
    Prog g;
    one_thread(g.p);
    for (int i = 0; i < 100; ++i) op_st_bcast(g.p, PERSIM_PM_BASE + 8 * i, 8, 1, 8, i);
    for (uint32_t th : {2u, 8u, 32u}) {
        auto b = form(g.p, cfg(th, 0));
        ASSERT_FALSE(b.empty());
        uint64_t stores = 0;
        for (auto &r : b) {
            EXPECT_LE(r.stores + r.ckpt + 1, th) << "threshold " << th;   // + the PC store
            stores += r.stores;
        }
        EXPECT_EQ(stores, 100u);
        EXPECT_EQ(b.back().op, g.p->nops);                 // the stream ends a region
        EXPECT_EQ(b.size(), (100 + (th - 2)) / (th - 1));  // as many regions as the threshold forces
    }
}

TEST(RegionForm, CheckpointEstimateGrowsWithInstructionsUpToTheCap)
{
    Prog g;
    one_thread(g.p);
    op_compute(g.p, 160);
    op_st_bcast(g.p, PERSIM_PM_BASE, 8, 1, 8, 1);
    auto b = form(g.p, cfg(64, 8, 16));
    ASSERT_EQ(b.size(), 1u);
    EXPECT_EQ(b[0].ckpt, 8u);                              // ceil(161 / 16) = 11, capped at 8
    b = form(g.p, cfg(64, 20, 16));
    EXPECT_EQ(b[0].ckpt, 11u);
    b = form(g.p, cfg(64, 20, 100));
    EXPECT_EQ(b[0].ckpt, 2u);
}

TEST(RegionForm, LockAndFenceOpsAlwaysEndRegions)
{
    Prog g;
    one_thread(g.p);
    op_st_bcast(g.p, PERSIM_PM_BASE, 8, 1, 8, 1);                       // 0
    op_acquire(g.p, PERSIM_PM_BASE + 0x1000, 4, 0, SCOPE_SYSTEM);       // 1
    op_st_bcast(g.p, PERSIM_PM_BASE + 8, 8, 1, 8, 2);                   // 2
    op_release(g.p, PERSIM_PM_BASE + 0x1000, 4, 1, SCOPE_SYSTEM);       // 3
    op_st_bcast(g.p, PERSIM_PM_BASE + 16, 8, 1, 8, 3);                  // 4
    op_order(g.p);                                                      // 5
    op_st_bcast(g.p, PERSIM_PM_BASE + 24, 8, 1, 8, 4);                  // 6
    auto b = form(g.p, cfg(32, 0));
    std::vector<uint64_t> at;
    for (auto &r : b) at.push_back(r.op);
    // before and after the acquire and the release (III-D), at the fence, and at the end
    EXPECT_EQ(at, (std::vector<uint64_t>{1, 2, 3, 4, 5, 7}));
}

TEST(RegionForm, MarkersCutOnlyWhenTheNextPieceWouldNotFit)
{
    Prog g;
    one_thread(g.p);
    for (int it = 0; it < 8; ++it) {          // 8 loop iterations of 3 stores each
        op_mark(g.p, MARK_LOOP);
        for (int k = 0; k < 3; ++k) op_st_bcast(g.p, PERSIM_PM_BASE + 8 * (3 * it + k), 8, 1, 8, 1);
    }
    // threshold 10, no checkpoints: 3 iterations (9 stores) + PC store fit, a 4th does not
    auto b = form(g.p, cfg(10, 0));
    ASSERT_EQ(b.size(), 3u);
    EXPECT_EQ(b[0].stores, 9u);
    EXPECT_EQ(b[0].op, 12u);                  // cut at the 4th loop marker (op index 12)
    EXPECT_EQ(b[1].stores, 9u);
    EXPECT_EQ(b[2].stores, 6u);
    // a large threshold merges every iteration (the combining that stands in for unrolling)
    EXPECT_EQ(form(g.p, cfg(64, 0)).size(), 1u);
}

TEST(RegionForm, RejectsBadConfig)
{
    Prog g;
    one_thread(g.p);
    op_st_bcast(g.p, PERSIM_PM_BASE, 8, 1, 8, 1);
    region_plan pl{};
    region_form_cfg c = cfg(1);
    EXPECT_EQ(region_form(g.p, 0, g.p->nops, &c, &pl), -1);
    c = cfg(8, 0, 0);
    EXPECT_EQ(region_form(g.p, 0, g.p->nops, &c, &pl), -1);
    c = cfg(8);
    EXPECT_EQ(region_form(g.p, 0, g.p->nops + 1, &c, &pl), -1);
    region_plan_free(&pl);
}
