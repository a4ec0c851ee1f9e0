// Functional reference executor (workloads/func_exec.c).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "func_exec.h"

namespace {

struct Ev {
    uint32_t kind, kernel, block, warp, id;
};

void record(void *ctx, const persim_op *op, uint32_t kernel, uint32_t block, uint32_t warp)
{
    static_cast<std::vector<Ev> *>(ctx)->push_back({ op->kind, kernel, block, warp, op->id });
}

size_t index_of(const std::vector<Ev> &ev, uint32_t id)
{
    for (size_t i = 0; i < ev.size(); i++)
        if (ev[i].id == id) return i;
    ADD_FAILURE() << "op id " << id << " never executed";
    return SIZE_MAX;
}

struct Exec {
    persim_prog *p = prog_new();
    mem_image *img = mem_new();
    std::vector<Ev> ev;
    char err[2048] = "";
    ~Exec() { prog_free(p); mem_free(img); }
    int go(uint64_t max_steps = 0) { return func_exec_cb_run(p, img, max_steps, record, &ev, err, sizeof err); }
};

const uint64_t PM = PERSIM_PM_BASE;

}  // namespace

TEST(FuncExec, StoresLandInTheImage)
{
    Exec r;
    prog_kernel(r.p, "st", 1, 32);
    prog_warp(r.p, 0, 0);
    uint64_t v[32];
    for (int i = 0; i < 32; i++) v[i] = 0x11223300u + (uint64_t)i;
    op_st(r.p, PM, 4, 32, 4, v);                                 // contiguous
    op_st(r.p, PM + 0x1000, 4, 4, 12, v);                        // strided: gaps stay zero
    op_st_bcast(r.p, PM + 0x2000 - 3, 8, 2, 8, 0x0807060504030201ull);  // crosses a page
    op_st_bcast(r.p, 0x5000, 2, 3, 2, 0xBEEF);                   // volatile memory too
    uint64_t ov[2] = { 1, 2 };
    op_st(r.p, 0x6000, 4, 2, 4, ov);
    op_st(r.p, 0x6002, 1, 2, 1, ov);                             // later store overwrites bytes
    op_ld(r.p, PM, 4, 32, 4);
    op_release(r.p, PM + 0x3000, 8, 0x1122334455667788ull, SCOPE_DEVICE);
    ASSERT_EQ(r.go(), 0) << r.err;
    for (uint32_t i = 0; i < 32; i++) EXPECT_EQ(mem_read_u32(r.img, PM + 4 * i), 0x11223300u + i);
    for (uint32_t i = 0; i < 4; i++) {
        EXPECT_EQ(mem_read_u32(r.img, PM + 0x1000 + 12 * i), 0x11223300u + i);
        EXPECT_EQ(mem_read_u32(r.img, PM + 0x1000 + 12 * i + 4), 0u);
    }
    EXPECT_EQ(mem_read_u64(r.img, PM + 0x2000 - 3), 0x0807060504030201ull);
    EXPECT_EQ(mem_read_u64(r.img, PM + 0x2000 + 5), 0x0807060504030201ull);
    uint8_t b[6];
    mem_read(r.img, 0x5000, b, 6);
    EXPECT_EQ(std::vector<uint8_t>(b, b + 6), (std::vector<uint8_t>{ 0xEF, 0xBE, 0xEF, 0xBE, 0xEF, 0xBE }));
    EXPECT_EQ(mem_read_u32(r.img, 0x6000), 0x02010001u);          // bytes 2,3 <- 1,2 (was 01 00 00 00)
    EXPECT_EQ(mem_read_u32(r.img, 0x6004), 2u);
    EXPECT_EQ(mem_read_u64(r.img, PM + 0x3000), 0x1122334455667788ull);
    EXPECT_EQ(r.ev.size(), 8u);
}

TEST(FuncExec, ReleaseAcquireHandOff)
{
    Exec r;
    prog_kernel(r.p, "handoff", 2, 32);
    // block 0 warp 0 is the consumer and comes first in round-robin order: it must wait
    prog_warp(r.p, 0, 0);
    uint32_t acq = op_acquire(r.p, PM + 0x100, 4, 1, SCOPE_DEVICE);
    uint32_t cons_st = op_st_bcast(r.p, PM, 4, 1, 4, 7);         // overwrites the producer's 5
    op_release(r.p, PM + 0x104, 4, 2, SCOPE_DEVICE);
    // block 1 warp 0 produces
    prog_warp(r.p, 1, 0);
    op_compute(r.p, 3);
    op_compute(r.p, 3);
    uint32_t prod_st = op_st_bcast(r.p, PM, 4, 1, 4, 5);
    uint32_t rel = op_release(r.p, PM + 0x100, 4, 1, SCOPE_DEVICE);
    uint32_t acq2 = op_acquire(r.p, PM + 0x104, 4, 2, SCOPE_DEVICE);
    uint32_t after = op_st_bcast(r.p, PM + 8, 4, 1, 4, 9);
    ASSERT_EQ(r.go(), 0) << r.err;
    EXPECT_EQ(mem_read_u32(r.img, PM), 7u);
    EXPECT_EQ(mem_read_u32(r.img, PM + 8), 9u);
    EXPECT_LT(index_of(r.ev, prod_st), index_of(r.ev, rel));
    EXPECT_LT(index_of(r.ev, rel), index_of(r.ev, acq));
    EXPECT_LT(index_of(r.ev, acq), index_of(r.ev, cons_st));
    EXPECT_LT(index_of(r.ev, acq2), index_of(r.ev, after));
    EXPECT_EQ(r.ev[index_of(r.ev, acq)].block, 0u);
    EXPECT_EQ(r.ev[index_of(r.ev, rel)].block, 1u);
    EXPECT_EQ(r.ev.size(), 9u);
}

TEST(FuncExec, AcquireSeesInitialImageAndEarlierKernels)
{
    Exec r;
    mem_write_u64(r.img, PM + 0x40, 3);
    prog_kernel(r.p, "k0", 1, 32);
    prog_warp(r.p, 0, 0);
    op_acquire(r.p, PM + 0x40, 8, 3, SCOPE_SYSTEM);              // satisfied by the initial image
    op_release(r.p, PM + 0x80, 4, 42, SCOPE_SYSTEM);
    prog_kernel(r.p, "k1", 1, 32);
    prog_warp(r.p, 0, 0);
    op_acquire(r.p, PM + 0x80, 4, 42, SCOPE_SYSTEM);             // set by kernel 0
    ASSERT_EQ(r.go(), 0) << r.err;
    ASSERT_EQ(r.ev.size(), 3u);
    EXPECT_EQ(r.ev[2].kernel, 1u);
}

TEST(FuncExec, BlockSyncWaitsForAllWarpsOfTheBlockOnly)
{
    Exec r;
    prog_kernel(r.p, "bsync", 2, 64);
    uint32_t pre[2], post[2][2];
    for (uint32_t b = 0; b < 2; b++) {
        prog_warp(r.p, b, 0);
        for (uint32_t i = 0; i < (b == 0 ? 6u : 1u); i++) pre[b] = op_compute(r.p, 1);   // warp 0 is slow
        op_sync(r.p, SCOPE_BLOCK);
        post[b][0] = op_st_bcast(r.p, PM + 64 * b, 4, 1, 4, 1);
        prog_warp(r.p, b, 1);
        op_sync(r.p, SCOPE_BLOCK);
        post[b][1] = op_st_bcast(r.p, PM + 64 * b + 4, 4, 1, 4, 1);
    }
    ASSERT_EQ(r.go(), 0) << r.err;
    for (uint32_t b = 0; b < 2; b++)
        for (uint32_t w = 0; w < 2; w++) EXPECT_LT(index_of(r.ev, pre[b]), index_of(r.ev, post[b][w]));
    // block 1 is not held back by block 0's slow warp
    EXPECT_LT(index_of(r.ev, post[1][1]), index_of(r.ev, pre[0]));
    size_t syncs = 0;
    for (const Ev &e : r.ev) syncs += e.kind == OPK_SYNC;
    EXPECT_EQ(syncs, 4u);
}

TEST(FuncExec, DeviceSyncWaitsForTheWholeKernel)
{
    Exec r;
    prog_kernel(r.p, "gsync", 3, 32);
    uint32_t last_pre = 0;
    std::vector<uint32_t> post;
    for (uint32_t b = 0; b < 3; b++) {
        prog_warp(r.p, b, 0);
        for (uint32_t i = 0; i <= 2 * b; i++) last_pre = op_compute(r.p, 1);
        op_sync(r.p, SCOPE_DEVICE);
        post.push_back(op_order(r.p));
    }
    ASSERT_EQ(r.go(), 0) << r.err;
    for (uint32_t id : post) EXPECT_LT(index_of(r.ev, last_pre), index_of(r.ev, id));
}

TEST(FuncExec, FinishedWarpsCountAsArrived)
{
    Exec r;
    prog_kernel(r.p, "exit", 1, 96);
    prog_warp(r.p, 0, 0);
    op_sync(r.p, SCOPE_BLOCK);
    op_sync(r.p, SCOPE_DEVICE);
    prog_warp(r.p, 0, 1);
    op_compute(r.p, 1);            // exits before warp 0's barriers; warp 2 is empty
    ASSERT_EQ(r.go(), 0) << r.err;
    EXPECT_EQ(r.ev.size(), 3u);
}

TEST(FuncExec, DeadlockNamesTheStuckWarp)
{
    Exec r;
    prog_kernel(r.p, "dl", 2, 64);
    prog_warp(r.p, 0, 0);
    op_order(r.p);
    prog_warp(r.p, 1, 1);
    op_compute(r.p, 1);
    op_acquire(r.p, PM + 0x10, 4, 5, SCOPE_BLOCK);
    mem_write_u32(r.img, PM + 0x10, 4);
    EXPECT_EQ(r.go(), -1);
    std::string m = r.err;
    EXPECT_NE(m.find("deadlock in kernel 0 ('dl'): 1 warp cannot advance"), std::string::npos) << m;
    EXPECT_NE(m.find("kernel 0 ('dl') block 1 warp 1 op 1 (id 3): acquire block flag 0x10000000010 == 5 (holds 4)"),
              std::string::npos) << m;
}

TEST(FuncExec, MismatchedBarriersDeadlock)
{
    Exec r;
    prog_kernel(r.p, "mm", 1, 64);
    prog_warp(r.p, 0, 0);
    op_sync(r.p, SCOPE_BLOCK);
    prog_warp(r.p, 0, 1);
    op_sync(r.p, SCOPE_DEVICE);
    EXPECT_EQ(r.go(), -1);
    std::string m = r.err;
    EXPECT_NE(m.find("block 0 warp 0 op 0 (id 1): sync block (1 of 2 warps arrived, 0 finished)"), std::string::npos) << m;
    EXPECT_NE(m.find("block 0 warp 1 op 0 (id 2): sync device (1 of 2 warps arrived, 0 finished)"), std::string::npos) << m;
}

TEST(FuncExec, DeadlockListsAtMostEightWarps)
{
    Exec r;
    prog_kernel(r.p, "many", 10, 32);
    for (uint32_t b = 0; b < 10; b++) {
        prog_warp(r.p, b, 0);
        op_acquire(r.p, PM, 4, 1, SCOPE_DEVICE);
    }
    EXPECT_EQ(r.go(), -1);
    std::string m = r.err;
    EXPECT_NE(m.find("10 warps cannot advance"), std::string::npos) << m;
    EXPECT_NE(m.find("block 7 warp 0"), std::string::npos) << m;
    EXPECT_EQ(m.find("block 8 warp 0"), std::string::npos) << m;
    EXPECT_NE(m.find("... and 2 more"), std::string::npos) << m;
}

TEST(FuncExec, StepLimitAndInvalidPrograms)
{
    Exec r;
    prog_kernel(r.p, "steps", 1, 32);
    prog_warp(r.p, 0, 0);
    for (int i = 0; i < 10; i++) op_order(r.p);
    EXPECT_EQ(r.go(3), -1);
    EXPECT_NE(std::string(r.err).find("step limit of 3 ops exceeded"), std::string::npos) << r.err;
    r.ev.clear();
    EXPECT_EQ(r.go(10), 0) << r.err;
    EXPECT_EQ(r.ev.size(), 10u);
    EXPECT_EQ(func_exec(r.p, r.img, 0, r.err, sizeof r.err), 0);
    op_ld(r.p, 0, 5, 1, 5);
    EXPECT_EQ(func_exec(r.p, r.img, 0, r.err, sizeof r.err), -1);
    EXPECT_NE(std::string(r.err).find("invalid program"), std::string::npos) << r.err;
}

TEST(FuncExec, EmptyProgramAndKernels)
{
    Exec r;
    EXPECT_EQ(r.go(), 0);
    prog_kernel(r.p, "none", 4, 128);
    EXPECT_EQ(r.go(), 0) << r.err;
    EXPECT_TRUE(r.ev.empty());
}
