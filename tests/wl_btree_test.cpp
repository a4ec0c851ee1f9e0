// The scoped-persist-barrier workloads (workloads/wl_btree.c: btree-kr = Algorithm 1, btree-wg =
// Algorithm 2; workloads/wl_hashtable.c: hashtable-wi): valid programs that the functional
// executor runs to a final image their verifiers accept, for many shapes; the verifiers reject
// wrong trees and tables; the barrier structure each algorithm states; deterministic builds;
// bad parameters are errors.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "func_exec.h"
#include "workload.h"
#include "wl_test_util.h"

namespace {

using namespace wltest;

const char *const kNames[] = { "btree-kr", "btree-wg", "hashtable-wi", "btree-wg-wi-bug", "btree-kr-log", "btree-wg-log" };

wl_params params(uint64_t size, uint64_t seed = 1, uint32_t sms = 4, uint32_t maxw = 40, uint32_t tpb = 1024)
{
    return make_params(size, seed, sms, tpb, maxw);
}

Img run(const persim_prog *p, const mem_image *init, std::string *err) { return run_prog(p, init, 0, err); }

// (kernel, kind, scope) -> ops
std::map<std::tuple<uint32_t, int, int>, uint64_t> count(const persim_prog *p)
{
    std::map<std::tuple<uint32_t, int, int>, uint64_t> c;
    for (uint32_t k = 0; k < p->nkernels; k++) {
        const persim_kernel &kk = p->kernels[k];
        for (uint32_t b = 0; b < kk.nblocks; b++)
            for (uint32_t w = 0; w < kk.warps_per_block; w++) {
                const persim_stream *s = prog_stream(p, &kk, b, w);
                for (uint64_t i = s->begin; i < s->end; i++) c[{ k, p->ops[i].kind, p->ops[i].scope }]++;
            }
    }
    return c;
}

uint64_t N(std::map<std::tuple<uint32_t, int, int>, uint64_t> &c, uint32_t k, int kind, int scope)
{
    return c[std::make_tuple(k, kind, scope)];
}

// Header words of the final tree: root, height, nodes, keys (first PM allocation).
void header(const mem_image *img, uint32_t h[4]) { mem_read(img, PERSIM_PM_BASE, h, 16); }

class Sb : public ::testing::TestWithParam<const char *> {};
std::string pname(const ::testing::TestParamInfo<const char *> &i)
{
    std::string s = i.param;
    for (auto &ch : s) if (ch == '-') ch = '_';
    return s;
}

} // namespace

TEST(WlScopedRegistry, RegisteredAfterTheSbrpSix)
{
    const persim_workload *const *all = wl_all();
    std::vector<std::string> names;
    for (size_t n = 0; all[n]; n++) names.push_back(all[n]->name);
    ASSERT_EQ(names.size(), 11u);
    const char *const order[] = { "btree-kr", "btree-wg", "hashtable-wi", "btree-kr-log", "btree-wg-log" };
    for (int i = 0; i < 5; i++) EXPECT_EQ(names[6 + i], order[i]);
    for (const char *n : kNames) {
        const persim_workload *w = wl_find(n);
        ASSERT_NE(w, nullptr);
        // the paper's measured programs have no recovery procedure; the logged ones (section 8.3) do
        const bool logged = std::strstr(n, "-log") || std::strstr(n, "-bug");
        EXPECT_STREQ(w->recovery, logged ? "logging" : "native") << n;
        EXPECT_EQ(w->recover != nullptr, logged) << n;
        EXPECT_LE(w->small_size, w->default_size);
    }
    // the workitem-scope bug is a variant (docs/checking.md), with the other deliberate bugs
    bool variant = false;
    for (const persim_workload *const *w = wl_variants(); *w; ++w) variant |= std::string((*w)->name) == "btree-wg-wi-bug";
    EXPECT_TRUE(variant);
}

TEST_P(Sb, SmallBuildsRunsAndVerifies)
{
    const persim_workload *w = wl_find(GetParam());
    auto b = build(GetParam(), params(w->small_size));
    ASSERT_EQ(b->rc, 0) << b->err;
    char err[512] = "";
    ASSERT_EQ(prog_validate(b->p, err, sizeof err), 0) << err;
    std::string e;
    Img fin = run(b->p, b->init, &e);
    ASSERT_TRUE(fin) << e;
    EXPECT_EQ(verify(*b, fin.get()), "ok");
    EXPECT_NE(verify(*b, b->init), "ok") << "the initial image is not the result";
}

// Shapes: tiny trees (a single leaf root that splits), sizes around node boundaries, other GPUs.
TEST_P(Sb, OtherShapesRunAndVerify)
{
    for (uint64_t size : { 1ull, 2ull, 12ull, 13ull, 60ull, 157ull, 1000ull, 5000ull, 20000ull })
        for (auto prm : { params(size, 3), params(size, 5, 1, 4, 128), params(size, 7, 2, 32, 1024) }) {
            SCOPED_TRACE(std::string(GetParam()) + " size " + std::to_string(size) + " sms " +
                         std::to_string(prm.num_sms) + " maxw " + std::to_string(prm.max_warps_per_sm));
            auto b = build(GetParam(), prm);
            ASSERT_EQ(b->rc, 0) << b->err;
            char err[512] = "";
            ASSERT_EQ(prog_validate(b->p, err, sizeof err), 0) << err;
            for (uint32_t k = 0; k < b->p->nkernels; k++)
                EXPECT_LE(b->p->kernels[k].warps_per_block * PERSIM_WARP_SIZE, prm.max_threads_per_block);
            std::string e;
            Img fin = run(b->p, b->init, &e);
            ASSERT_TRUE(fin) << e;
            EXPECT_EQ(verify(*b, fin.get()), "ok");
        }
}

TEST_P(Sb, DeterministicInSizeAndSeed)
{
    const persim_workload *w = wl_find(GetParam());
    auto a = build(GetParam(), params(w->small_size, 7)), b = build(GetParam(), params(w->small_size, 7)),
         c = build(GetParam(), params(w->small_size, 8));
    ASSERT_EQ(a->rc, 0);
    ASSERT_EQ(b->rc, 0);
    ASSERT_EQ(c->rc, 0);
    ASSERT_EQ(a->p->nops, b->p->nops);
    for (uint64_t i = 0; i < a->p->nops; i++) {
        ASSERT_EQ(a->p->ops[i].kind, b->p->ops[i].kind);
        ASSERT_EQ(a->p->ops[i].addr, b->p->ops[i].addr);
    }
    std::string e;
    Img fa = run(a->p, a->init, &e);
    ASSERT_TRUE(fa) << e;
    EXPECT_EQ(verify(*b, fa.get()), "ok");
    EXPECT_NE(verify(*c, fa.get()), "ok") << "another seed's keys or values";
}

// Any byte of any PM store that survives in the final image is checked.
TEST_P(Sb, VerifyRejectsCorruptedStores)
{
    const persim_workload *w = wl_find(GetParam());
    auto b = build(GetParam(), params(w->small_size));
    ASSERT_EQ(b->rc, 0) << b->err;
    std::string e;
    Img fin = run(b->p, b->init, &e);
    ASSERT_TRUE(fin) << e;
    // the result's stores; of a B+tree: 4-byte PM stores that are not undo-log entries (an entry's
    // old node is followed by its `order`; tags, epoch status and pending items are 8-byte stores)
    const bool btree = std::strncmp(GetParam(), "btree", 5) == 0;
    std::vector<uint64_t> st;
    for (uint64_t i = 0; i < b->p->nops; i++)
        if (b->p->ops[i].kind == OPK_ST && b->p->ops[i].addr >= PERSIM_PM_BASE &&
            (!btree || (b->p->ops[i].elem == 4 && !(i + 1 < b->p->nops && b->p->ops[i + 1].kind == OPK_ORDER))))
            st.push_back(i);
    ASSERT_FALSE(st.empty());
    int tried = 0;
    for (int k = 0; k < 24; k++) {
        const persim_op &o = b->p->ops[st[st.size() * k / 24]];
        for (uint32_t lane : { 0u, (uint32_t)o.nlanes - 1 }) {
            Img bad(mem_clone(fin.get()));
            uint64_t at = o.addr + (uint64_t)lane * o.stride;
            uint8_t x;
            mem_read(bad.get(), at, &x, 1);
            x ^= 0x21;
            mem_write(bad.get(), at, &x, 1);
            tried++;
            EXPECT_NE(verify(*b, bad.get()), "ok") << "op " << o.id << " lane " << lane;
        }
    }
    EXPECT_GT(tried, 0);
}

TEST_P(Sb, RejectsBadParameters)
{
    for (auto prm : { params(0), params(1ull << 40), params(100, 1, 4, 40, 64), params(100, 1, 0) }) {
        auto b = build(GetParam(), prm);
        EXPECT_NE(b->rc, 0) << "size " << prm.size << " tpb " << prm.max_threads_per_block;
        EXPECT_FALSE(b->err.empty());
        EXPECT_EQ(b->ctx, nullptr);
    }
}

INSTANTIATE_TEST_SUITE_P(All, Sb, ::testing::ValuesIn(kNames), pname);

// Algorithm 1: one kernel of resident workgroups; a device-scope sync + persist barrier after
// every level; the header persisted last by a workitem-scope barrier.
TEST(WlBtree, KernelScopeStructure)
{
    auto b = build("btree-kr", params(100000));
    ASSERT_EQ(b->rc, 0) << b->err;
    ASSERT_EQ(b->p->nkernels, 1u);
    EXPECT_EQ(b->p->kernels[0].nblocks, 4u * 10u) << "4 CUs x 40 wavefronts / 4 per workgroup";
    EXPECT_EQ(b->p->kernels[0].warps_per_block, 4u);
    auto c = count(b->p);
    const uint64_t waves = 160;
    uint32_t h[4];
    header(b->init, h);
    const uint32_t levels = h[1];
    EXPECT_EQ(N(c, 0, OPK_PBARRIER, SCOPE_DEVICE), waves * levels);
    EXPECT_EQ(N(c, 0, OPK_PBARRIER, SCOPE_BLOCK), 0u);
    EXPECT_EQ(N(c, 0, OPK_PBARRIER, SCOPE_WARP), 1u);
    EXPECT_EQ(N(c, 0, OPK_SYNC, SCOPE_DEVICE), waves * (2 * levels + 1)) << "search; then before and after each barrier";
    std::string e;
    Img fin = run(b->p, b->init, &e);
    ASSERT_TRUE(fin) << e;
    uint32_t f[4];
    header(fin.get(), f);
    EXPECT_EQ(f[3], 100000u + 25000u);
    EXPECT_GT(f[2], h[2]) << "the insertions split nodes";
}

// Algorithm 2: one workgroup per subtree below depth d with workgroup-scope barriers, then the
// levels above d with kernel-scope ones in a resident kernel.
TEST(WlBtree, WorkgroupScopeStructure)
{
    auto b = build("btree-wg", params(100000));
    ASSERT_EQ(b->rc, 0) << b->err;
    ASSERT_EQ(b->p->nkernels, 2u);
    uint32_t h[4];
    header(b->init, h);
    auto c = count(b->p);
    const uint64_t wg_waves = (uint64_t)b->p->kernels[0].nblocks * 4, top_waves = 160;
    EXPECT_GE(b->p->kernels[0].nblocks, 25000u / 256) << "n_wgs_est = keys / 256 workitems";
    const uint64_t wg_levels = N(c, 0, OPK_PBARRIER, SCOPE_BLOCK) / wg_waves;
    const uint64_t kr_levels = N(c, 1, OPK_PBARRIER, SCOPE_DEVICE) / top_waves;
    EXPECT_EQ(wg_levels * wg_waves, N(c, 0, OPK_PBARRIER, SCOPE_BLOCK));
    EXPECT_EQ(kr_levels * top_waves, N(c, 1, OPK_PBARRIER, SCOPE_DEVICE));
    EXPECT_GE(wg_levels, 1u);
    EXPECT_GE(kr_levels, 1u);
    EXPECT_EQ(wg_levels + kr_levels, h[1]) << "every level of the initial tree, once";
    EXPECT_EQ(N(c, 0, OPK_PBARRIER, SCOPE_DEVICE) + N(c, 0, OPK_SYNC, SCOPE_DEVICE), 0u) << "no kernel-wide wait below d";
    EXPECT_EQ(N(c, 1, OPK_PBARRIER, SCOPE_WARP), 1u);
}

// workload.btree_wgs_est (wl_params.btree_wgs_est) replaces Algorithm 2's n_wgs_est: fewer
// workgroups (a shallower depth d) put more levels under workgroup scope; 0 is the paper's rule.
// Fails if the parameter is ignored (the same workgroup count for every value).
TEST(WlBtree, WorkgroupCountKeySetsTheDepth)
{
    struct Shape { uint64_t nwg, wg_levels, kr_levels; };
    auto shape = [](uint64_t est, std::string *why) -> Shape {
        wl_params prm = params(100000);
        prm.btree_wgs_est = est;
        auto b = build("btree-wg", prm);
        if (b->rc != 0) { *why = b->err; return {0, 0, 0}; }
        std::string err;
        Img img = run(b->p, b->init, &err);
        if (!img) { *why = err; return {0, 0, 0}; }
        *why = verify(*b, img.get());
        auto c = count(b->p);
        const uint64_t nwg = b->p->kernels[0].nblocks;
        const uint64_t krl = b->p->nkernels > 1 ? N(c, 1, OPK_PBARRIER, SCOPE_DEVICE) / 160 : 0;
        return {nwg, N(c, 0, OPK_PBARRIER, SCOPE_BLOCK) / (4 * nwg), krl};
    };
    std::string why;
    const Shape def = shape(0, &why);
    ASSERT_EQ(why, "ok");
    // 100000 keys: levels of 8334 (leaves), 642, 50, 4, 1 nodes; 25000 inserts / 256 -> 98 -> 642
    EXPECT_EQ(def.nwg, 642u);
    EXPECT_EQ(def.wg_levels, 2u);
    const Shape paper = shape(98, &why);                       // the paper's estimate, given explicitly
    ASSERT_EQ(why, "ok");
    EXPECT_EQ(paper.nwg, def.nwg);
    const Shape s50 = shape(50, &why);
    ASSERT_EQ(why, "ok");
    EXPECT_EQ(s50.nwg, 50u);
    EXPECT_EQ(s50.wg_levels, 3u);
    const Shape s3 = shape(3, &why);
    ASSERT_EQ(why, "ok");
    EXPECT_EQ(s3.nwg, 4u) << "the shallowest level with at least 3 nodes";
    EXPECT_EQ(s3.wg_levels, 4u);
    for (const Shape &s : {def, s50, s3}) EXPECT_EQ(s.wg_levels + s.kr_levels, 5u) << "every level once";
    const Shape leaves = shape(1000000, &why);                 // more than any level: the leaves
    ASSERT_EQ(why, "ok");
    EXPECT_EQ(leaves.nwg, 8334u);
    EXPECT_EQ(leaves.wg_levels, 1u);
}

// hashtable-wi: per wavefront operation, 32 values, a workitem-scope barrier, 32 commit words.
TEST(WlHashtable, ValueBeforeCommitPerWavefront)
{
    auto b = build("hashtable-wi", params(4096));
    ASSERT_EQ(b->rc, 0) << b->err;
    auto c = count(b->p);
    EXPECT_EQ(N(c, 0, OPK_PBARRIER, SCOPE_WARP), 4096u / 32);
    EXPECT_EQ(N(c, 0, OPK_ST, SCOPE_NONE), 2u * 4096 / 32);
    // each store covers 32 different lines (one per region)
    for (uint64_t i = 0; i < b->p->nops; i++)
        if (b->p->ops[i].kind == OPK_ST) {
            EXPECT_EQ(b->p->ops[i].nlanes, 32u);
            EXPECT_GE(b->p->ops[i].stride, 128u);
        }
}

// Two builds that differ only in the algorithm insert the same keys into the same initial tree
// and produce trees holding the same keys.
TEST(WlBtree, BothAlgorithmsBuildTheSameKeySet)
{
    auto a = build("btree-kr", params(30000)), b = build("btree-wg", params(30000));
    ASSERT_EQ(a->rc, 0);
    ASSERT_EQ(b->rc, 0);
    std::string e;
    Img fa = run(a->p, a->init, &e), fb = run(b->p, b->init, &e);
    ASSERT_TRUE(fa && fb) << e;
    EXPECT_EQ(verify(*a, fb.get()), "ok");
    EXPECT_EQ(verify(*b, fa.get()), "ok");
}

// The bug variant is Algorithm 2 with workitem scope in the workgroup phase (and so without the
// rendezvous after each of those barriers), nothing else.
TEST(WlBtree, WiBugVariantDiffersOnlyInScope)
{
    auto a = build("btree-wg-log", params(20000)), b = build("btree-wg-wi-bug", params(20000));
    ASSERT_EQ(a->rc, 0);
    ASSERT_EQ(b->rc, 0);
    auto ca = count(a->p), cb = count(b->p);
    const uint64_t wg = N(ca, 0, OPK_PBARRIER, SCOPE_BLOCK);
    EXPECT_GT(wg, 0u);
    EXPECT_EQ(N(cb, 0, OPK_PBARRIER, SCOPE_BLOCK), 0u);
    EXPECT_EQ(N(cb, 0, OPK_PBARRIER, SCOPE_WARP), N(ca, 0, OPK_PBARRIER, SCOPE_WARP) + wg);
    EXPECT_EQ(N(cb, 0, OPK_SYNC, SCOPE_BLOCK) + wg, N(ca, 0, OPK_SYNC, SCOPE_BLOCK));
    for (int k : { (int)OPK_LD, (int)OPK_ST, (int)OPK_COMPUTE, (int)OPK_REQUIRE })
        for (uint32_t kk = 0; kk < 2; kk++) EXPECT_EQ(N(ca, kk, k, SCOPE_NONE), N(cb, kk, k, SCOPE_NONE)) << k;
    EXPECT_EQ(N(ca, 1, OPK_PBARRIER, SCOPE_DEVICE), N(cb, 1, OPK_PBARRIER, SCOPE_DEVICE));
    EXPECT_GT(N(ca, 1, OPK_REQUIRE, SCOPE_NONE), 0u) << "split-before-parent requirements";
}

// The logged programs (section 8.3) are the paper's programs plus the undo log: before every
// in-place node update its wavefront stores the node's old contents (from the initial tree) to a
// log entry, `order`, the entry's tag {epoch, node}, a workitem-scope persist barrier, and then
// the node; one epoch status store per epoch and workgroup (Algorithm 2's subtree phase) or per
// epoch (kernel scope). Nothing else of the program changes: the same node stores, barriers and
// final tree.
TEST(WlBtree, LoggedProgramsAddTheUndoLog)
{
    for (auto [plain, logged] : { std::make_pair("btree-kr", "btree-kr-log"), std::make_pair("btree-wg", "btree-wg-log") }) {
        SCOPED_TRACE(logged);
        auto a = build(plain, params(20000)), b = build(logged, params(20000));
        ASSERT_EQ(a->rc, 0) << a->err;
        ASSERT_EQ(b->rc, 0) << b->err;
        const persim_prog *p = b->p;
        const uint64_t pool = PERSIM_PM_BASE + 128;
        uint64_t entries = 0, node_stores_a = 0, node_stores_b = 0, est = 0;
        for (uint64_t i = 0; i < a->p->nops; i++)
            node_stores_a += a->p->ops[i].kind == OPK_ST && a->p->ops[i].addr >= PERSIM_PM_BASE && a->p->ops[i].nlanes == 32;
        for (uint64_t i = 0; i + 5 < p->nops; i++) {
            const persim_op &o = p->ops[i];
            if (o.kind != OPK_ST || o.addr < PERSIM_PM_BASE) continue;
            if (o.elem == 8 && o.nlanes == 1 && i > 0 && p->ops[i - 1].kind != OPK_ORDER) est++;
            if (o.nlanes != 32 || o.elem != 4) continue;
            if (p->ops[i + 1].kind != OPK_ORDER) {
                node_stores_b++;
                continue;
            }
            entries++;
            const persim_op &tag = p->ops[i + 2], &bar = p->ops[i + 3], &upd = p->ops[i + 5];
            ASSERT_EQ(tag.kind, OPK_ST);
            ASSERT_EQ(tag.addr, o.addr + 128);
            ASSERT_EQ(bar.kind, OPK_PBARRIER);
            EXPECT_EQ(bar.scope, SCOPE_WARP);
            ASSERT_EQ(upd.kind, OPK_ST);
            const uint64_t t = op_lane_val(p, &tag, 0);
            EXPECT_GE((uint32_t)t, 1u);
            EXPECT_EQ(upd.addr, pool + (t >> 32) * 128) << "the entry covers the node updated next";
            bool same_as_init = true, same_as_new = true;
            for (uint32_t l = 0; l < 32; l++) {
                uint32_t w0;
                mem_read(b->init, pool + (t >> 32) * 128 + 4 * l, &w0, 4);
                same_as_init &= (uint32_t)op_lane_val(p, &o, l) == w0;
                same_as_new &= op_lane_val(p, &o, l) == op_lane_val(p, &upd, l);
            }
            EXPECT_TRUE(same_as_init) << "the old contents";
            EXPECT_FALSE(same_as_new);
        }
        EXPECT_GT(entries, 0u);
        EXPECT_EQ(node_stores_b, node_stores_a);
        auto ca = count(a->p), cb = count(b->p);
        for (uint32_t k = 0; k < a->p->nkernels; k++) {
            for (int s : { (int)SCOPE_BLOCK, (int)SCOPE_DEVICE }) {
                EXPECT_EQ(N(ca, k, OPK_PBARRIER, s), N(cb, k, OPK_PBARRIER, s));
                EXPECT_EQ(N(ca, k, OPK_SYNC, s), N(cb, k, OPK_SYNC, s));
            }
        }
        uint32_t h[4];
        header(b->init, h);
        if (std::string(plain) == "btree-kr") {
            EXPECT_EQ(est, h[1]) << "one epoch status store per level";
        } else {
            const uint64_t nwg = b->p->kernels[0].nblocks, wgl = N(ca, 0, OPK_PBARRIER, SCOPE_BLOCK) / (4 * nwg);
            EXPECT_EQ(est, nwg * wgl + (h[1] - wgl)) << "per workgroup and level below d, per level above";
        }
        std::string e;
        Img fa = run(a->p, a->init, &e), fb = run(b->p, b->init, &e);
        ASSERT_TRUE(fa && fb) << e;
        EXPECT_EQ(verify(*a, fb.get()), "ok");
    }
}
