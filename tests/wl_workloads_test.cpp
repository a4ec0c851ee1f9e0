// The six SBRP workload generators (workloads/wl_*.c, registry.c): each builds a valid program
// that the functional executor runs without deadlock to a final image its verifier accepts;
// builds are deterministic in (size, seed); the verifiers reject wrong images; every workload
// states the ordering intent the paper gives it; acquires only wait on earlier blocks.
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

const char *const kNames[] = { "gpkvs", "hm", "srad", "reduction", "mq", "scan" };
constexpr uint64_t kMaxSteps = 2000000000ull;
constexpr uint64_t kSpan = 64ull << 20;   // bytes compared from each allocation base

wl_params params(uint64_t size, uint64_t seed = 1, uint32_t max_tpb = 1024, uint32_t sms = 4)
{
    return make_params(size, seed, sms, max_tpb, 0);
}

Img run(const persim_prog *p, const mem_image *init, std::string *err) { return run_prog(p, init, kMaxSteps, err); }

bool same_image(const mem_image *a, const mem_image *b)
{
    return mem_diff(a, b, PERSIM_PM_BASE, kSpan) < 0 && mem_diff(a, b, PERSIM_VOL_BASE, kSpan) < 0;
}

bool same_prog(const persim_prog *a, const persim_prog *b)
{
    if (a->nkernels != b->nkernels || a->nstreams != b->nstreams || a->nops != b->nops) return false;
    for (uint32_t k = 0; k < a->nkernels; k++) {
        const persim_kernel &x = a->kernels[k], &y = b->kernels[k];
        if (std::strcmp(x.name, y.name) || x.nblocks != y.nblocks || x.warps_per_block != y.warps_per_block ||
            x.first_stream != y.first_stream)
            return false;
    }
    for (uint64_t s = 0; s < a->nstreams; s++)
        if (a->streams[s].begin != b->streams[s].begin || a->streams[s].end != b->streams[s].end) return false;
    for (uint64_t i = 0; i < a->nops; i++) {
        const persim_op &x = a->ops[i], &y = b->ops[i];
        if (x.kind != y.kind || x.scope != y.scope || x.elem != y.elem || x.nlanes != y.nlanes ||
            x.stride != y.stride || x.addr != y.addr || x.id != y.id)
            return false;
        if (x.kind == OPK_ST) {
            for (uint32_t l = 0; l < x.nlanes; l++)
                if (op_lane_val(a, &x, l) != op_lane_val(b, &y, l)) return false;
        } else if (x.val != y.val) {
            return false;
        }
    }
    return true;
}

// Copy of p without op `skip` (global op index).
persim_prog *without_op(const persim_prog *p, uint64_t skip)
{
    persim_prog *q = prog_new();
    for (uint32_t k = 0; k < p->nkernels; k++) {
        const persim_kernel &kk = p->kernels[k];
        prog_kernel(q, kk.name, kk.nblocks, kk.warps_per_block * PERSIM_WARP_SIZE);
        for (uint32_t b = 0; b < kk.nblocks; b++)
            for (uint32_t w = 0; w < kk.warps_per_block; w++) {
                prog_warp(q, b, w);
                const persim_stream *s = prog_stream(p, &kk, b, w);
                for (uint64_t i = s->begin; i < s->end; i++) {
                    if (i == skip) continue;
                    const persim_op &o = p->ops[i];
                    // a checker requirement naming the dropped op goes with it
                    if (o.kind == OPK_REQUIRE && (o.val == p->ops[skip].id || o.addr == p->ops[skip].id)) continue;
                    op_append(q, &o, o.vals == PERSIM_NOVALS ? nullptr : &p->vals[o.vals]);
                }
            }
    }
    return q;
}

struct Counts {
    std::map<std::pair<int, int>, uint64_t> n;   // (kind, scope) -> ops
    uint64_t of(int kind) const
    {
        uint64_t t = 0;
        for (auto &e : n) if (e.first.first == kind) t += e.second;
        return t;
    }
    uint64_t of(int kind, int scope) const
    {
        auto it = n.find({ kind, scope });
        return it == n.end() ? 0 : it->second;
    }
};

Counts count(const persim_prog *p)
{
    Counts c;
    for (uint64_t i = 0; i < p->nops; i++) c.n[{ p->ops[i].kind, p->ops[i].scope }]++;
    return c;
}

class Wl : public ::testing::TestWithParam<const char *> {};

std::string param_name(const ::testing::TestParamInfo<const char *> &i) { return i.param; }

}  // namespace

// The six SBRP workloads first, then the scoped-persist-barrier ones (tests/wl_btree_test.cpp).
TEST(WlRegistry, SixWorkloadsInFixedOrder)
{
    static const char *const kAfter[] = { "btree-kr", "btree-wg", "hashtable-wi", "btree-kr-log", "btree-wg-log" };
    const persim_workload *const *all = wl_all();
    size_t n = 0;
    for (; all[n]; n++) {
        ASSERT_LT(n, 11u);
        const char *want = n < 6 ? kNames[n] : kAfter[n - 6];
        EXPECT_STREQ(all[n]->name, want);
        EXPECT_EQ(wl_find(want), all[n]);
        const persim_workload *w = all[n];
        EXPECT_TRUE(w->desc && *w->desc && w->size_desc && *w->size_desc && w->pmo && *w->pmo);
        EXPECT_TRUE(!std::strcmp(w->recovery, "logging") || !std::strcmp(w->recovery, "native")) << w->name;
        EXPECT_GT(w->default_size, 0u);
        EXPECT_GT(w->small_size, 0u);
        EXPECT_LE(w->small_size, w->default_size);
        EXPECT_TRUE(w->build && w->verify && w->free_ctx);
    }
    EXPECT_EQ(n, 11u);
    EXPECT_EQ(wl_find("nope"), nullptr);
    EXPECT_EQ(wl_find(nullptr), nullptr);
    // SBRP Table 2 recovery column
    EXPECT_STREQ(wl_find("gpkvs")->recovery, "logging");
    EXPECT_STREQ(wl_find("hm")->recovery, "logging");
    EXPECT_STREQ(wl_find("srad")->recovery, "native");
    EXPECT_STREQ(wl_find("reduction")->recovery, "native");
    EXPECT_STREQ(wl_find("mq")->recovery, "logging");
    EXPECT_STREQ(wl_find("scan")->recovery, "native");
}

TEST_P(Wl, SmallSizeBuildsValidatesRunsAndVerifies)
{
    const persim_workload *w = wl_find(GetParam());
    ASSERT_NE(w, nullptr);
    auto b = build(GetParam(), params(w->small_size));
    ASSERT_EQ(b->rc, 0) << b->err;
    char err[512] = "";
    ASSERT_EQ(prog_validate(b->p, err, sizeof err), 0) << err;
    std::printf("[ info ] %s small_size=%llu: %u kernels, %llu warps, %llu ops\n", GetParam(),
                (unsigned long long)w->small_size, b->p->nkernels, (unsigned long long)b->p->nstreams,
                (unsigned long long)b->p->nops);
    EXPECT_GE(b->p->nops, 10000u);
    EXPECT_LE(b->p->nops, 120000u);
    std::string e;
    Img fin = run(b->p, b->init, &e);
    ASSERT_TRUE(fin) << e;
    EXPECT_EQ(verify(*b, fin.get()), "ok");
    // the untouched initial image is not a correct result
    EXPECT_NE(verify(*b, b->init), "ok");
}

TEST_P(Wl, DeterministicInSizeAndSeed)
{
    const persim_workload *w = wl_find(GetParam());
    auto a = build(GetParam(), params(w->small_size, 7));
    auto b = build(GetParam(), params(w->small_size, 7));
    auto c = build(GetParam(), params(w->small_size, 8));
    ASSERT_EQ(a->rc, 0) << a->err;
    ASSERT_EQ(b->rc, 0) << b->err;
    ASSERT_EQ(c->rc, 0) << c->err;
    EXPECT_TRUE(same_prog(a->p, b->p));
    EXPECT_TRUE(same_image(a->init, b->init));
    EXPECT_FALSE(same_prog(a->p, c->p) && same_image(a->init, c->init));
    // a result verified with one seed's context is rejected by the other's
    std::string e;
    Img fa = run(a->p, a->init, &e);
    ASSERT_TRUE(fa) << e;
    EXPECT_EQ(verify(*b, fa.get()), "ok");
    EXPECT_NE(verify(*c, fa.get()), "ok");
}

TEST_P(Wl, VerifyRejectsCorruptedResults)
{
    const persim_workload *w = wl_find(GetParam());
    auto b = build(GetParam(), params(w->small_size));
    ASSERT_EQ(b->rc, 0) << b->err;
    std::string e;
    Img fin = run(b->p, b->init, &e);
    ASSERT_TRUE(fin) << e;
    std::vector<uint64_t> st;
    for (uint64_t i = 0; i < b->p->nops; i++) if (b->p->ops[i].kind == OPK_ST) st.push_back(i);
    ASSERT_FALSE(st.empty());
    // corrupt one byte written by a store (first, spread, last): every store writes checked state
    std::set<uint64_t> pick = { st.front(), st.back() };
    for (int k = 1; k < 8; k++) pick.insert(st[st.size() * k / 8]);
    for (uint64_t i : pick) {
        const persim_op &o = b->p->ops[i];
        for (uint32_t lane : { 0u, (uint32_t)o.nlanes - 1 }) {
            Img bad(mem_clone(fin.get()));
            uint64_t at = o.addr + (uint64_t)lane * o.stride;
            uint8_t x;
            mem_read(bad.get(), at, &x, 1);
            x ^= 0x5A;
            mem_write(bad.get(), at, &x, 1);
            std::string v = verify(*b, bad.get());
            EXPECT_NE(v, "ok") << "op " << i << " lane " << lane << " addr 0x" << std::hex << at;
            EXPECT_FALSE(v.empty());
        }
    }
}

TEST_P(Wl, VerifyRejectsADroppedResultStore)
{
    const persim_workload *w = wl_find(GetParam());
    auto b = build(GetParam(), params(w->small_size));
    ASSERT_EQ(b->rc, 0) << b->err;
    std::string e;
    Img fin = run(b->p, b->init, &e);
    ASSERT_TRUE(fin) << e;
    // the last stores in program order, until one whose loss changes the final image
    int tried = 0, rejected = 0;
    for (uint64_t i = b->p->nops; i-- > 0 && tried < 40 && !rejected;) {
        if (b->p->ops[i].kind != OPK_ST) continue;
        tried++;
        persim_prog *q = without_op(b->p, i);
        Img got = run(q, b->init, &e);
        prog_free(q);
        ASSERT_TRUE(got) << "dropping op " << i << ": " << e;
        if (same_image(got.get(), fin.get())) continue;   // the store was redundant (e.g. re-clears)
        std::string v = verify(*b, got.get());
        EXPECT_NE(v, "ok") << "dropped op " << i;
        std::printf("[ info ] %s: dropping store op %llu -> \"%s\"\n", GetParam(), (unsigned long long)i, v.c_str());
        rejected = 1;
    }
    EXPECT_TRUE(rejected);
}

// A block may only wait on flags released (with that value) by itself, a lower-numbered block
// of the same kernel, or an earlier kernel: blocks are dispatched in index order.
TEST_P(Wl, AcquiresWaitOnlyOnEarlierBlocksOrKernels)
{
    const persim_workload *w = wl_find(GetParam());
    auto b = build(GetParam(), params(w->small_size));
    ASSERT_EQ(b->rc, 0) << b->err;
    std::set<std::pair<uint64_t, uint64_t>> before;   // released in earlier kernels
    uint64_t checked = 0;
    for (uint32_t k = 0; k < b->p->nkernels; k++) {
        const persim_kernel &kk = b->p->kernels[k];
        std::map<std::pair<uint64_t, uint64_t>, uint32_t> first;   // (flag, value) -> lowest block
        for (uint32_t blk = 0; blk < kk.nblocks; blk++)
            for (uint32_t wi = 0; wi < kk.warps_per_block; wi++) {
                const persim_stream *s = prog_stream(b->p, &kk, blk, wi);
                for (uint64_t i = s->begin; i < s->end; i++) {
                    const persim_op &o = b->p->ops[i];
                    if (o.kind == OPK_RELEASE && !first.count({ o.addr, o.val })) first[{ o.addr, o.val }] = blk;
                }
            }
        for (uint32_t blk = 0; blk < kk.nblocks; blk++)
            for (uint32_t wi = 0; wi < kk.warps_per_block; wi++) {
                const persim_stream *s = prog_stream(b->p, &kk, blk, wi);
                for (uint64_t i = s->begin; i < s->end; i++) {
                    const persim_op &o = b->p->ops[i];
                    if (o.kind != OPK_ACQUIRE) continue;
                    checked++;
                    auto it = first.find({ o.addr, o.val });
                    bool ok = before.count({ o.addr, o.val }) || (it != first.end() && it->second <= blk);
                    ASSERT_TRUE(ok) << "kernel " << k << " block " << blk << " warp " << wi << " acquires 0x"
                                    << std::hex << o.addr << " == " << std::dec << o.val
                                    << " released by no earlier block";
                }
            }
        for (auto &f : first) before.insert(f.first);
    }
    std::printf("[ info ] %s: %llu acquires checked\n", GetParam(), (unsigned long long)checked);
}

// Other block-size limits and sizes that are not multiples of the natural tiles.
TEST_P(Wl, OtherShapesRunAndVerify)
{
    static const std::map<std::string, std::vector<uint64_t>> odd = {
        { "gpkvs", { 1, 777, 5000 } },   { "hm", { 1, 333, 3001 } },
        { "srad", { 2, 45, 100 } },      { "reduction", { 1, 1000, 100003, 262145 } },
        { "mq", { 1, 37 } },             { "scan", { 1, 700, 5000 } },
    };
    for (uint32_t tpb : { 1024u, 256u, 64u, 32u })
        for (uint64_t size : odd.at(GetParam())) {
            SCOPED_TRACE(std::string(GetParam()) + " size " + std::to_string(size) + " max_tpb " + std::to_string(tpb));
            auto b = build(GetParam(), params(size, 3, tpb, 2));
            ASSERT_EQ(b->rc, 0) << b->err;
            for (uint32_t k = 0; k < b->p->nkernels; k++)
                EXPECT_LE(b->p->kernels[k].warps_per_block * PERSIM_WARP_SIZE, tpb);
            char err[512] = "";
            ASSERT_EQ(prog_validate(b->p, err, sizeof err), 0) << err;
            std::string e;
            Img fin = run(b->p, b->init, &e);
            ASSERT_TRUE(fin) << e;
            EXPECT_EQ(verify(*b, fin.get()), "ok");
        }
}

TEST_P(Wl, RejectsBadParameters)
{
    for (auto prm : { params(0), params(wl_find(GetParam())->small_size, 1, 16) }) {
        auto b = build(GetParam(), prm);
        EXPECT_NE(b->rc, 0);
        EXPECT_FALSE(b->err.empty());
        EXPECT_EQ(b->ctx, nullptr);
    }
}

INSTANTIATE_TEST_SUITE_P(All, Wl, ::testing::ValuesIn(kNames), param_name);

// The ordering intent of each application (SBRP Table 2, Section 7.1, artifact notes).
TEST(WlIntent, EachWorkloadStatesThePapersOrdering)
{
    std::map<std::string, Counts> c;
    std::map<std::string, uint32_t> nk;
    for (const char *n : kNames) {
        auto b = build(n, params(wl_find(n)->small_size));
        ASSERT_EQ(b->rc, 0) << b->err;
        c[n] = count(b->p);
        nk[n] = b->p->nkernels;
    }
    // gpKVS, HM: intra-thread ordering with logging, durable log clearing, no inter-thread PMO
    for (const char *n : { "gpkvs", "hm" }) {
        EXPECT_GT(c[n].of(OPK_ORDER), 0u) << n;
        EXPECT_GT(c[n].of(OPK_DURABLE), 0u) << n;
        EXPECT_EQ(c[n].of(OPK_RELEASE), 0u) << n;
        EXPECT_EQ(c[n].of(OPK_ACQUIRE), 0u) << n;
    }
    EXPECT_EQ(nk["gpkvs"], 2u);                            // insert + log clearing
    EXPECT_EQ(nk["hm"], 3u);                               // two batches + log clearing
    EXPECT_GT(c["hm"].of(OPK_SYNC, SCOPE_BLOCK), 0u);      // shared-memory cuckoo rounds
    // SRAD: two kernels, intra-thread only
    EXPECT_EQ(nk["srad"], 2u);
    EXPECT_GT(c["srad"].of(OPK_ORDER), 0u);
    EXPECT_GT(c["srad"].of(OPK_DURABLE), 0u);
    EXPECT_EQ(c["srad"].of(OPK_RELEASE), 0u);
    EXPECT_EQ(c["srad"].of(OPK_ACQUIRE), 0u);
    // Reduction: block-scope tree, device-scope block results, last block acquires at device scope
    EXPECT_GT(c["reduction"].of(OPK_RELEASE, SCOPE_BLOCK), 0u);
    EXPECT_GT(c["reduction"].of(OPK_ACQUIRE, SCOPE_BLOCK), 0u);
    EXPECT_GT(c["reduction"].of(OPK_RELEASE, SCOPE_DEVICE), 0u);
    EXPECT_EQ(c["reduction"].of(OPK_ACQUIRE, SCOPE_DEVICE), c["reduction"].of(OPK_RELEASE, SCOPE_DEVICE));
    EXPECT_GT(c["reduction"].of(OPK_DURABLE), 0u);
    // MQ: intra-thread ORDER + block-scope rel/acq, commits durable, nothing device-wide
    EXPECT_GT(c["mq"].of(OPK_ORDER), 0u);
    EXPECT_GT(c["mq"].of(OPK_RELEASE, SCOPE_BLOCK), 0u);
    EXPECT_GT(c["mq"].of(OPK_ACQUIRE, SCOPE_BLOCK), 0u);
    EXPECT_GT(c["mq"].of(OPK_DURABLE), 0u);
    EXPECT_GT(c["mq"].of(OPK_SYNC, SCOPE_BLOCK), 0u);
    EXPECT_EQ(c["mq"].of(OPK_RELEASE, SCOPE_DEVICE) + c["mq"].of(OPK_ACQUIRE, SCOPE_DEVICE), 0u);
    // Scan: block-scope rel/acq only, final durable
    EXPECT_GT(c["scan"].of(OPK_RELEASE, SCOPE_BLOCK), 0u);
    EXPECT_GT(c["scan"].of(OPK_ACQUIRE, SCOPE_BLOCK), 0u);
    EXPECT_GT(c["scan"].of(OPK_DURABLE), 0u);
    EXPECT_EQ(c["scan"].of(OPK_RELEASE, SCOPE_DEVICE) + c["scan"].of(OPK_ACQUIRE, SCOPE_DEVICE), 0u);
    EXPECT_EQ(c["scan"].of(OPK_ORDER), 0u);
    for (const char *n : kNames) EXPECT_GT(c[n].of(OPK_COMPUTE), 0u) << n;
}

// Reduction: one device-scope release per block and launch; the last block of each launch
// acquires all of them; the final sum equals the input sum (checked by verify).
TEST(WlReduction, DeviceScopeReleasePerBlockAndLastBlockAcquiresAll)
{
    auto b = build("reduction", params(600000));   // 3 launches (256K, 256K, 88K ints)
    ASSERT_EQ(b->rc, 0) << b->err;
    ASSERT_EQ(b->p->nkernels, 3u);
    for (uint32_t k = 0; k < b->p->nkernels; k++) {
        const persim_kernel &kk = b->p->kernels[k];
        for (uint32_t blk = 0; blk < kk.nblocks; blk++) {
            uint64_t rel_dev = 0, acq_dev = 0;
            for (uint32_t wi = 0; wi < kk.warps_per_block; wi++) {
                const persim_stream *s = prog_stream(b->p, &kk, blk, wi);
                for (uint64_t i = s->begin; i < s->end; i++) {
                    rel_dev += b->p->ops[i].kind == OPK_RELEASE && b->p->ops[i].scope == SCOPE_DEVICE;
                    acq_dev += b->p->ops[i].kind == OPK_ACQUIRE && b->p->ops[i].scope == SCOPE_DEVICE;
                }
            }
            EXPECT_EQ(rel_dev, 1u) << "kernel " << k << " block " << blk;
            EXPECT_EQ(acq_dev, blk + 1 == kk.nblocks ? kk.nblocks : 0u) << "kernel " << k << " block " << blk;
        }
    }
    std::string e;
    Img fin = run(b->p, b->init, &e);
    ASSERT_TRUE(fin) << e;
    EXPECT_EQ(verify(*b, fin.get()), "ok");
    // dropping the final-sum store (last store of warp 0 of the last block of the last launch)
    const persim_kernel &last = b->p->kernels[b->p->nkernels - 1];
    const persim_stream *s = prog_stream(b->p, &last, last.nblocks - 1, 0);
    uint64_t fst = UINT64_MAX;
    for (uint64_t i = s->begin; i < s->end; i++) if (b->p->ops[i].kind == OPK_ST) fst = i;
    ASSERT_NE(fst, UINT64_MAX);
    persim_prog *q = without_op(b->p, fst);
    Img got = run(q, b->init, &e);
    prog_free(q);
    ASSERT_TRUE(got) << e;
    std::string v = verify(*b, got.get());
    EXPECT_NE(v.find("final sum"), std::string::npos) << v;
}

// Paper-scale (default) sizes build valid programs (run by the simulator's benchmarks).
TEST(WlDefault, DefaultSizesBuildAndValidate)
{
    for (const char *n : kNames) {
        const persim_workload *w = wl_find(n);
        auto b = build(n, params(w->default_size, 1, 1024, 30));
        ASSERT_EQ(b->rc, 0) << n << ": " << b->err;
        char err[512] = "";
        EXPECT_EQ(prog_validate(b->p, err, sizeof err), 0) << n << ": " << err;
        std::printf("[ info ] %s default_size=%llu: %u kernels, %llu warps, %llu ops\n", n,
                    (unsigned long long)w->default_size, b->p->nkernels, (unsigned long long)b->p->nstreams,
                    (unsigned long long)b->p->nops);
    }
}
