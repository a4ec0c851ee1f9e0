// Program builder (workloads/op.c) and generator helpers (workloads/wl_util.c).
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>

#include "op.h"
#include "workload.h"

namespace {

struct Prog {
    persim_prog *p = prog_new();
    ~Prog() { prog_free(p); }
    persim_prog *operator->() const { return p; }
    operator persim_prog *() const { return p; }
};

std::string validate(const persim_prog *p)
{
    char err[256] = "";
    return prog_validate(p, err, sizeof err) == 0 ? std::string("ok") : std::string(err);
}

}  // namespace

TEST(ProgBuilder, KernelsPreCreateEmptyStreams)
{
    Prog p;
    EXPECT_EQ(prog_kernel(p, "first", 3, 40), 0u);     // 40 threads -> 2 warps
    EXPECT_EQ(p->nkernels, 1u);
    EXPECT_EQ(p->kernels[0].warps_per_block, 2u);
    EXPECT_EQ(p->kernels[0].nblocks, 3u);
    EXPECT_EQ(p->kernels[0].first_stream, 0u);
    EXPECT_EQ(p->nstreams, 6u);
    EXPECT_STREQ(p->kernels[0].name, "first");
    for (uint64_t s = 0; s < 6; s++) EXPECT_EQ(p->streams[s].begin, p->streams[s].end);
    EXPECT_EQ(prog_kernel(p, "second-kernel-with-a-very-long-name-truncated", 1, 32), 1u);
    EXPECT_EQ(p->kernels[1].first_stream, 6u);
    EXPECT_EQ(p->kernels[1].warps_per_block, 1u);
    EXPECT_EQ(std::strlen(p->kernels[1].name), 31u);
    EXPECT_EQ(p->nstreams, 7u);
    EXPECT_EQ(validate(p), "ok");
}

TEST(ProgBuilder, StreamsIdsAndValues)
{
    Prog p;
    prog_kernel(p, "k", 2, 64);
    prog_warp(p, 0, 0);
    EXPECT_EQ(op_ld(p, 0x1000, 4, 32, 4), 1u);
    uint64_t vals[4] = { 1, 2, 0x1FF, 4 };
    EXPECT_EQ(op_st(p, 0x2000, 1, 4, 1, vals), 2u);
    vals[0] = 99;                                       // the builder copied the values
    prog_warp(p, 1, 0);                                 // (0,1) skipped: stays empty
    EXPECT_EQ(op_st_bcast(p, 0x3000, 2, 8, 2, 0x12345), 3u);
    EXPECT_EQ(op_compute(p, 50), 4u);
    EXPECT_EQ(op_order(p), 5u);
    EXPECT_EQ(op_release(p, PERSIM_PM_BASE, 4, 0x100000001ull, SCOPE_DEVICE), 6u);
    prog_warp(p, 1, 1);
    EXPECT_EQ(op_acquire(p, PERSIM_PM_BASE, 8, 7, SCOPE_SYSTEM), 7u);
    EXPECT_EQ(op_durable(p), 8u);
    EXPECT_EQ(op_sync(p, SCOPE_BLOCK), 9u);
    EXPECT_EQ(op_pbarrier(p, SCOPE_WARP), 10u);
    EXPECT_EQ(op_require(p, 2, 3), 11u);

    ASSERT_EQ(p->nops, 11u);
    const persim_kernel *k = &p->kernels[0];
    EXPECT_EQ(prog_stream(p, k, 0, 0)->begin, 0u);
    EXPECT_EQ(prog_stream(p, k, 0, 0)->end, 2u);
    EXPECT_EQ(prog_stream(p, k, 0, 1)->begin, prog_stream(p, k, 0, 1)->end);
    EXPECT_EQ(prog_stream(p, k, 1, 0)->begin, 2u);
    EXPECT_EQ(prog_stream(p, k, 1, 0)->end, 6u);
    EXPECT_EQ(prog_stream(p, k, 1, 1)->begin, 6u);
    EXPECT_EQ(prog_stream(p, k, 1, 1)->end, 11u);
    for (uint64_t s = 1; s < p->nstreams; s++) EXPECT_LE(p->streams[s - 1].begin, p->streams[s].begin);

    const persim_op *ld = &p->ops[0];
    EXPECT_EQ(ld->kind, OPK_LD);
    EXPECT_EQ(ld->elem, 4);
    EXPECT_EQ(ld->nlanes, 32);
    EXPECT_EQ(ld->stride, 4u);
    EXPECT_EQ(ld->addr, 0x1000u);
    const persim_op *st = &p->ops[1];
    ASSERT_NE(st->vals, PERSIM_NOVALS);
    EXPECT_EQ(op_lane_val(p, st, 0), 1u);
    EXPECT_EQ(op_lane_val(p, st, 1), 2u);
    EXPECT_EQ(op_lane_val(p, st, 2), 0xFFu);             // truncated to 1 byte
    EXPECT_EQ(op_lane_val(p, st, 3), 4u);
    const persim_op *bc = &p->ops[2];
    EXPECT_EQ(bc->vals, PERSIM_NOVALS);
    for (uint32_t l = 0; l < 8; l++) EXPECT_EQ(op_lane_val(p, bc, l), 0x2345u);
    EXPECT_EQ(p->ops[3].val, 50u);
    EXPECT_EQ(op_instructions(&p->ops[3]), 50u);
    EXPECT_EQ(op_instructions(&p->ops[4]), 1u);
    EXPECT_EQ(p->ops[5].val, 1u);                        // release value truncated to 4 bytes
    EXPECT_EQ(p->ops[5].scope, SCOPE_DEVICE);
    EXPECT_EQ(p->ops[5].elem, 4);
    EXPECT_EQ(p->ops[6].val, 7u);
    EXPECT_EQ(p->ops[8].scope, SCOPE_BLOCK);
    EXPECT_EQ(p->ops[9].scope, SCOPE_WARP);
    EXPECT_EQ(p->ops[10].val, 2u);                       // before
    EXPECT_EQ(p->ops[10].addr, 3u);                      // after
    EXPECT_EQ(validate(p), "ok");
}

TEST(ProgBuilder, SingleLaneStoreIsCanonicalBroadcast)
{
    Prog p;
    prog_kernel(p, "k", 1, 32);
    prog_warp(p, 0, 0);
    uint64_t v = 0x1234;
    op_st(p, 0x100, 2, 1, 2, &v);
    EXPECT_EQ(p->ops[0].vals, PERSIM_NOVALS);
    EXPECT_EQ(p->ops[0].val, 0x1234u);
    EXPECT_EQ(p->nvals, 0u);
}

TEST(ProgBuilder, AppendKeepsGivenIdsAndAutoIdsFollowMax)
{
    Prog p;
    prog_kernel(p, "k", 1, 32);
    prog_warp(p, 0, 0);
    persim_op o;
    std::memset(&o, 0, sizeof o);
    o.kind = OPK_ORDER;
    o.vals = PERSIM_NOVALS;
    o.id = 10;
    EXPECT_EQ(op_append(p, &o, nullptr), 10u);
    EXPECT_EQ(op_durable(p), 11u);
    o.id = 5;
    EXPECT_EQ(op_append(p, &o, nullptr), 5u);
    EXPECT_EQ(op_order(p), 12u);
    op_append(p, &p->ops[0], nullptr);                  // same id 10 again: a duplicate
    EXPECT_NE(validate(p).find("duplicate op id 10"), std::string::npos) << validate(p);
}

TEST(ProgBuilder, AppendFromInsideTheOpsArraySurvivesRealloc)
{
    Prog p;
    prog_kernel(p, "k", 1, 32);
    prog_warp(p, 0, 0);
    uint64_t v[2] = { 5, 6 };
    op_st(p, 0x40, 4, 2, 4, v);
    p->ops[0].id = 0;                                    // id 0: appended copies get fresh ids
    for (int i = 0; i < 1000; i++) op_append(p, &p->ops[0], v);
    ASSERT_EQ(p->nops, 1001u);
    std::set<uint32_t> ids;
    for (uint64_t i = 1; i < p->nops; i++) {
        EXPECT_EQ(p->ops[i].addr, 0x40u);
        EXPECT_EQ(op_lane_val(p, &p->ops[i], 1), 6u);
        ids.insert(p->ops[i].id);
    }
    EXPECT_EQ(ids.size(), 1000u);
    EXPECT_EQ(validate(p), "ok");
}

TEST(ProgBuilder, NamesOfKindsAndScopes)
{
    const char *kinds[] = { "ld", "st", "compute", "order", "release", "acquire", "durable",
                            "sync", "pbarrier", "require", "mark" };
    static_assert(sizeof kinds / sizeof kinds[0] == OPK__COUNT, "a name per op kind");
    for (unsigned k = 0; k < OPK__COUNT; k++) EXPECT_STREQ(op_kind_name(k), kinds[k]);
    EXPECT_STREQ(op_kind_name(OPK__COUNT), "?");
    EXPECT_STREQ(scope_name(SCOPE_WARP), "warp");
    EXPECT_STREQ(scope_name(SCOPE_BLOCK), "block");
    EXPECT_STREQ(scope_name(SCOPE_DEVICE), "device");
    EXPECT_STREQ(scope_name(SCOPE_SYSTEM), "system");
    EXPECT_STREQ(scope_name(SCOPE__COUNT), "?");
    EXPECT_STREQ(mark_name(MARK_FUNC), "func");
    EXPECT_STREQ(mark_name(MARK_RET), "ret");
    EXPECT_STREQ(mark_name(MARK_LOOP), "loop");
    EXPECT_STREQ(mark_name(0), "?");
    EXPECT_STREQ(mark_name(MARK__COUNT), "?");
}

TEST(ProgBuilderDeathTest, OutOfOrderOrRangeWarpsAbort)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH({
        persim_prog *p = prog_new();
        prog_kernel(p, "k", 2, 64);
        prog_warp(p, 1, 0);
        prog_warp(p, 0, 1);
    }, "out of order");
    EXPECT_DEATH({
        persim_prog *p = prog_new();
        prog_kernel(p, "k", 2, 64);
        prog_warp(p, 0, 2);
    }, "out of range");
    EXPECT_DEATH({
        persim_prog *p = prog_new();
        prog_kernel(p, "k", 2, 64);
        op_order(p);
    }, "no open warp stream");
}

// ---- validation ----

namespace {

// One kernel of 2 blocks x 2 warps; the op under test is the third op of block 1 warp 0.
std::string validate_one(const persim_op &bad, const uint64_t *vals = nullptr)
{
    Prog p;
    prog_kernel(p, "vk", 2, 64);
    prog_warp(p, 0, 0);
    op_order(p);
    prog_warp(p, 1, 0);
    op_compute(p, 1);
    op_compute(p, 2);
    op_append(p, &bad, vals);
    return validate(p);
}

persim_op mk(persim_op_kind k, uint32_t elem, uint32_t lanes, uint32_t stride, persim_scope s = SCOPE_NONE)
{
    persim_op o;
    std::memset(&o, 0, sizeof o);
    o.kind = (uint8_t)k;
    o.elem = (uint8_t)elem;
    o.nlanes = (uint8_t)lanes;
    o.stride = stride;
    o.scope = (uint8_t)s;
    o.addr = 0x1000;
    o.vals = PERSIM_NOVALS;
    return o;
}

void expect_bad(const std::string &msg, const char *what)
{
    EXPECT_NE(msg, "ok");
    EXPECT_NE(msg.find("kernel 0 ('vk') block 1 warp 0 op 2"), std::string::npos) << msg;
    EXPECT_NE(msg.find(what), std::string::npos) << msg;
}

}  // namespace

TEST(ProgValidate, AcceptsLegalShapes)
{
    EXPECT_EQ(validate_one(mk(OPK_LD, 8, 32, 8)), "ok");
    EXPECT_EQ(validate_one(mk(OPK_LD, 4, 32, 4096)), "ok");   // lanes spread over many lines
    EXPECT_EQ(validate_one(mk(OPK_LD, 2, 1, 0)), "ok");       // one lane: stride irrelevant
    EXPECT_EQ(validate_one(mk(OPK_ST, 1, 3, 1)), "ok");
    EXPECT_EQ(validate_one(mk(OPK_LD, 4, 4, 2 + 2)), "ok");
    for (persim_scope s : { SCOPE_BLOCK, SCOPE_DEVICE, SCOPE_SYSTEM }) {
        EXPECT_EQ(validate_one(mk(OPK_RELEASE, 4, 1, 4, s)), "ok");
        EXPECT_EQ(validate_one(mk(OPK_ACQUIRE, 8, 1, 8, s)), "ok");
    }
    EXPECT_EQ(validate_one(mk(OPK_SYNC, 0, 0, 0, SCOPE_BLOCK)), "ok");
    EXPECT_EQ(validate_one(mk(OPK_SYNC, 0, 0, 0, SCOPE_DEVICE)), "ok");
    for (persim_scope s : { SCOPE_WARP, SCOPE_BLOCK, SCOPE_DEVICE })
        EXPECT_EQ(validate_one(mk(OPK_PBARRIER, 0, 0, 0, s)), "ok");
}

TEST(ProgValidate, RejectsBadElemLanesStride)
{
    expect_bad(validate_one(mk(OPK_LD, 3, 1, 3)), "element size 3");
    expect_bad(validate_one(mk(OPK_ST, 16, 1, 16)), "element size 16");
    expect_bad(validate_one(mk(OPK_LD, 4, 0, 4)), "0 lanes");
    expect_bad(validate_one(mk(OPK_LD, 4, 33, 4)), "33 lanes");
    expect_bad(validate_one(mk(OPK_ST, 4, 2, 2)), "stride 2 smaller than element size 4");
    persim_op wrap = mk(OPK_LD, 8, 2, 8);
    wrap.addr = UINT64_MAX - 8;
    expect_bad(validate_one(wrap), "wraps");
}

TEST(ProgValidate, RejectsScopesIllegalForTheKind)
{
    expect_bad(validate_one(mk(OPK_RELEASE, 4, 1, 4, SCOPE_WARP)), "scope 'warp' not allowed");
    expect_bad(validate_one(mk(OPK_ACQUIRE, 4, 1, 4, SCOPE_NONE)), "scope 'none' not allowed");
    expect_bad(validate_one(mk(OPK_SYNC, 0, 0, 0, SCOPE_SYSTEM)), "sync: scope 'system'");
    expect_bad(validate_one(mk(OPK_SYNC, 0, 0, 0, SCOPE_WARP)), "sync: scope 'warp'");
    expect_bad(validate_one(mk(OPK_PBARRIER, 0, 0, 0, SCOPE_SYSTEM)), "pbarrier: scope 'system'");
    // ld and st carry an access class (data, log) where other ops carry a scope: SCOPE_BLOCK's value
    // is no access class
    expect_bad(validate_one(mk(OPK_LD, 4, 1, 4, SCOPE_BLOCK)), "ld: unknown access class 2");
    persim_op o = mk(OPK_SYNC, 0, 0, 0, SCOPE_BLOCK);
    o.scope = 17;
    expect_bad(validate_one(o), "not allowed");
}

TEST(ProgValidate, RejectsBadFlags)
{
    expect_bad(validate_one(mk(OPK_RELEASE, 2, 1, 2, SCOPE_BLOCK)), "flag size 2");
    persim_op o = mk(OPK_ACQUIRE, 8, 1, 8, SCOPE_DEVICE);
    o.addr = 0x1004;
    expect_bad(validate_one(o), "not aligned");
}

TEST(ProgValidate, RejectsUnknownRequireIdsAndDuplicates)
{
    persim_op r = mk(OPK_REQUIRE, 0, 0, 0);
    r.val = 1;      // exists (the order op of block 0)
    r.addr = 99;    // does not
    expect_bad(validate_one(r), "require names unknown op id 99");
    r.addr = 2;
    r.val = 0;
    expect_bad(validate_one(r), "unknown op id 0");
    r.val = 1;
    EXPECT_EQ(validate_one(r), "ok");
    persim_op d = mk(OPK_COMPUTE, 0, 0, 0);
    d.id = 2;       // already used by "compute 1"
    std::string msg = validate_one(d);
    expect_bad(msg, "duplicate op id 2");
    EXPECT_NE(msg.find("block 1 warp 0 op 0"), std::string::npos) << msg;
}

// ---- wl_util ----

TEST(WlUtil, SplitMix64ReferenceAndDeterminism)
{
    wl_rng r;
    wl_rng_seed(&r, 0);
    EXPECT_EQ(wl_rng_next(&r), 0xE220A8397B1DCDAFull);   // splitmix64 reference output, seed 0
    EXPECT_EQ(wl_rng_next(&r), 0x6E789E6AA1B965F4ull);
    wl_rng a, b;
    wl_rng_seed(&a, 42);
    wl_rng_seed(&b, 42);
    for (int i = 0; i < 100; i++) EXPECT_EQ(wl_rng_next(&a), wl_rng_next(&b));
}

TEST(WlUtil, BelowIsInRangeAndRoughlyUniform)
{
    wl_rng r;
    wl_rng_seed(&r, 7);
    EXPECT_EQ(wl_rng_below(&r, 0), 0u);
    EXPECT_EQ(wl_rng_below(&r, 1), 0u);
    int count[3] = { 0, 0, 0 };
    for (int i = 0; i < 30000; i++) {
        uint64_t x = wl_rng_below(&r, 3);
        ASSERT_LT(x, 3u);
        count[x]++;
    }
    for (int c : count) { EXPECT_GT(c, 9500); EXPECT_LT(c, 10500); }
    uint64_t big = (1ull << 63) + 1;                     // rejection matters here
    for (int i = 0; i < 1000; i++) EXPECT_LT(wl_rng_below(&r, big), big);
}

TEST(WlUtil, BumpAllocatorAlignsAndStartsAtBases)
{
    wl_params prm;
    std::memset(&prm, 0, sizeof prm);
    prm.pm_base = PERSIM_PM_BASE;
    prm.vol_base = PERSIM_VOL_BASE + 5;                  // unaligned base is rounded up
    wl_alloc a;
    wl_alloc_init(&a, &prm);
    EXPECT_EQ(wl_alloc_pm(&a, 1), PERSIM_PM_BASE);
    EXPECT_EQ(wl_alloc_pm(&a, 200), PERSIM_PM_BASE + 128);
    EXPECT_EQ(wl_alloc_pm(&a, 128), PERSIM_PM_BASE + 384);
    EXPECT_EQ(wl_alloc_pm(&a, 8), PERSIM_PM_BASE + 512);
    EXPECT_EQ(wl_alloc_vol(&a, 10), PERSIM_VOL_BASE + 128);
    EXPECT_EQ(wl_alloc_vol(&a, 10), PERSIM_VOL_BASE + 256);
    for (int i = 0; i < 10; i++) EXPECT_EQ(wl_alloc_vol(&a, 1 + i * 77) % 128, 0u);
}

// The id check is linear (a hash set, no sort) and reports what the sorted check reported: the
// smallest duplicated id, at its first two ops in stream order; requires find ids among many.
TEST(ProgBuilder, ValidateReportsSmallestDuplicateAtItsFirstTwoOps)
{
    Prog p;
    prog_kernel(p, "k", 1, 1);
    prog_warp(p, 0, 0);
    persim_op o;
    std::memset(&o, 0, sizeof o);
    o.kind = OPK_ORDER;
    o.vals = PERSIM_NOVALS;
    for (uint32_t id : {50u, 7u, 9u, 50u, 9u, 7u, 9u}) {         // ops 0..6: 50 at 0,3; 9 at 2,4,6; 7 at 1,5
        o.id = id;
        op_append(p, &o, nullptr);
    }
    const std::string m = validate(p);
    EXPECT_NE(m.find("op 5: duplicate op id 7 (also used by kernel 0 ('k') block 0 warp 0 op 1)"), std::string::npos) << m;

    Prog q;                                                    // 100k ids and requires between them: valid
    prog_kernel(q, "k", 1, 1);
    prog_warp(q, 0, 0);
    for (uint32_t i = 0; i < 100000; ++i) op_order(q);
    const uint32_t a = q->ops[17].id, b = q->ops[99998].id;
    op_require(q, a, b);
    EXPECT_EQ(validate(q), "ok");
    op_require(q, a, 4000000000u);                             // an id no op has
    EXPECT_NE(validate(q).find("require names unknown op id 4000000000"), std::string::npos) << validate(q);
}
