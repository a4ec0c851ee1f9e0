// Crash recovery procedures of the workloads (persim_workload::recover, docs/checking.md): from a
// crash image where a prefix of the program's persists (in a functional execution order, i.e. a
// strict-persistency crash state, allowed by every model) is durable, the recovery program plus
// the rest of the work, run by the functional executor, gives a result the workload's
// verification accepts; and recovery really relies on the persistent state: images that break
// the order the program asks for (the scoped persistency bugs) are not recovered.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "func_exec.h"
#include "workload.h"
#include "wl_test_util.h"

namespace {

wl_params params(uint64_t size, uint64_t seed = 1) { return wltest::make_params(size, seed, 4, 1024, 0); }

using wltest::Img;

struct Built {
    const persim_workload *w = nullptr;
    persim_prog *p = prog_new();
    Img init{mem_new()};
    void *ctx = nullptr;
    std::vector<uint32_t> persists;   // PM-writing ops in functional execution order
    std::vector<uint32_t> kernel_of, block_of, warp_of;   // of each of them
    ~Built()
    {
        if (ctx && w) w->free_ctx(ctx);
        prog_free(p);
    }
};

bool writes_pm(const persim_op *o)
{
    if (o->kind == OPK_RELEASE) return o->addr >= PERSIM_PM_BASE;
    return o->kind == OPK_ST && o->addr + (uint64_t)(o->nlanes - 1) * o->stride + o->elem > PERSIM_PM_BASE;
}

void collect(void *ctx, const persim_op *o, uint32_t kernel, uint32_t block, uint32_t warp)
{
    auto *b = static_cast<Built *>(ctx);
    if (!writes_pm(o)) return;
    b->persists.push_back((uint32_t)(o - b->p->ops));
    b->kernel_of.push_back(kernel);
    b->block_of.push_back(block);
    b->warp_of.push_back(warp);
}

std::unique_ptr<Built> build(const char *name, uint64_t size)
{
    auto b = std::make_unique<Built>();
    b->w = wl_find(name);
    if (!b->w) return b;
    wl_params prm = params(size);
    char err[512] = "";
    EXPECT_EQ(b->w->build(&prm, b->p, b->init.get(), &b->ctx, err, sizeof err), 0) << err;
    Img scratch(mem_clone(b->init.get()));
    EXPECT_EQ(func_exec_cb_run(b->p, scratch.get(), 0, collect, b.get(), err, sizeof err), 0) << err;
    return b;
}

// The PM bytes of one store (or release flag) written into img.
void apply(const persim_prog *p, const persim_op &o, mem_image *img)
{
    uint8_t buf[8];
    if (o.kind == OPK_RELEASE) {
        for (uint32_t i = 0; i < o.elem; i++) buf[i] = (uint8_t)(o.val >> (8 * i));
        mem_write(img, o.addr, buf, o.elem);
        return;
    }
    for (uint32_t l = 0; l < o.nlanes; l++) {
        uint64_t v = op_lane_val(p, &o, l), a = o.addr + (uint64_t)l * o.stride;
        for (uint32_t i = 0; i < o.elem; i++) buf[i] = (uint8_t)(v >> (8 * i));
        if (a >= PERSIM_PM_BASE) mem_write(img, a, buf, o.elem);
    }
}

// Crash image: the initial image with the first n persists durable.
Img prefix_image(const Built &b, size_t n)
{
    Img img(mem_clone(b.init.get()));
    for (size_t i = 0; i < n && i < b.persists.size(); i++) apply(b.p, b.p->ops[b.persists[i]], img.get());
    return img;
}

// "ok", or what went wrong.
std::string recover(const Built &b, const mem_image *durable)
{
    persim_prog *rp = prog_new();
    Img img(mem_clone(durable));
    char err[1024] = "";
    std::string r = "ok";
    if (b.w->recover(b.ctx, durable, rp, img.get(), err, sizeof err) != 0) r = std::string("recover: ") + err;
    else if (func_exec(rp, img.get(), 0, err, sizeof err) != 0) r = std::string("func_exec: ") + err;
    else if ((b.w->verify_recovered ? b.w->verify_recovered : b.w->verify)(b.ctx, img.get(), err, sizeof err) != 0)
        r = err;
    prog_free(rp);
    return r;
}

struct Case { const char *name; uint64_t size; };
const Case kCases[] = { { "gpkvs", 512 }, { "hm", 600 },   { "srad", 64 },
                        { "reduction", 20000 }, { "mq", 40 }, { "scan", 4096 },
                        { "reduction-blkscope-bug", 20000 }, { "mq-noorder-bug", 40 },
                        { "btree-kr-log", 2000 }, { "btree-wg-log", 2000 }, { "btree-wg-wi-bug", 2000 } };

class Recover : public ::testing::TestWithParam<Case> {};

std::string case_name(const ::testing::TestParamInfo<Case> &i)
{
    std::string s = i.param.name;
    for (char &c : s)
        if (c == '-') c = '_';
    return s;
}

} // namespace

TEST(RecoverRegistry, EverySbrpWorkloadAndVariantHasARecoveryProcedure)
{
    for (const char *n : { "gpkvs", "hm", "srad", "reduction", "mq", "scan" }) {
        ASSERT_NE(wl_find(n), nullptr) << n;
        EXPECT_NE(wl_find(n)->recover, nullptr) << n;
    }
    size_t n = 0;
    for (const persim_workload *const *w = wl_variants(); *w; ++w, ++n) {
        EXPECT_NE((*w)->recover, nullptr) << (*w)->name;
        EXPECT_EQ(wl_find((*w)->name), *w);
    }
    EXPECT_GE(n, 2u);
    EXPECT_NE(wl_find("reduction-blkscope-bug"), nullptr);
    EXPECT_NE(wl_find("mq-noorder-bug"), nullptr);
}

// Every prefix of a strict-persistency execution is a crash state every model allows.
TEST_P(Recover, FromEveryPrefixOfAStrictExecution)
{
    auto b = build(GetParam().name, GetParam().size);
    ASSERT_NE(b->w, nullptr);
    ASSERT_GT(b->persists.size(), 10u);
    const size_t n = b->persists.size(), steps = 24;
    for (size_t k = 0; k <= steps; k++) {
        size_t cut = n * k / steps;
        Img img = prefix_image(*b, cut);
        EXPECT_EQ(recover(*b, img.get()), "ok") << GetParam().name << ": crash after " << cut << " of " << n
                                                << " persists";
    }
    // right after each of the first persists, and before the last ones
    for (size_t cut : { (size_t)1, (size_t)2, (size_t)3, n - 3, n - 2, n - 1 }) {
        Img img = prefix_image(*b, cut);
        EXPECT_EQ(recover(*b, img.get()), "ok") << GetParam().name << ": crash after " << cut << " persists";
    }
}

TEST_P(Recover, AppendsKernelsOnly)
{
    auto b = build(GetParam().name, GetParam().size);
    Img img = prefix_image(*b, b->persists.size() / 2);
    persim_prog *rp = prog_new();
    Img run(mem_clone(img.get()));
    char err[256] = "";
    ASSERT_EQ(b->w->recover(b->ctx, img.get(), rp, run.get(), err, sizeof err), 0) << err;
    EXPECT_GE(rp->nkernels, 1u);
    EXPECT_EQ(prog_validate(rp, err, sizeof err), 0) << err;
    // recover does not touch the image itself: the program does
    EXPECT_LT(mem_diff(img.get(), run.get(), PERSIM_PM_BASE, 64ull << 20), 0);
    prog_free(rp);
}

// The recovery kernels (named with WL_RECOVERY_TAG) come first; each loads from PM (the log or
// the progress markers it reads) and ends every warp with a durability point; the resumed work
// follows under other names.
TEST_P(Recover, RecoveryKernelsFirstLoadThenDurable)
{
    auto b = build(GetParam().name, GetParam().size);
    Img img = prefix_image(*b, b->persists.size() / 2);
    persim_prog *rp = prog_new();
    Img run(mem_clone(img.get()));
    char err[256] = "";
    ASSERT_EQ(b->w->recover(b->ctx, img.get(), rp, run.get(), err, sizeof err), 0) << err;
    ASSERT_GE(rp->nkernels, 1u);
    EXPECT_TRUE(wl_is_recovery_kernel(rp->kernels[0].name)) << rp->kernels[0].name;
    bool resumed = false;
    uint64_t loads = 0;
    for (uint32_t k = 0; k < rp->nkernels; ++k) {
        const persim_kernel &kr = rp->kernels[k];
        const bool rec = wl_is_recovery_kernel(kr.name);
        EXPECT_FALSE(rec && resumed) << kr.name << " follows a kernel of the resumed work";
        resumed |= !rec;
        if (!rec) continue;
        for (uint32_t bl = 0; bl < kr.nblocks; ++bl)
            for (uint32_t w = 0; w < kr.warps_per_block; ++w) {
                const persim_stream *st = prog_stream(rp, &kr, bl, w);
                ASSERT_GT(st->end, st->begin);
                EXPECT_EQ(rp->ops[st->end - 1].kind, OPK_DURABLE) << kr.name;
                for (uint64_t i = st->begin; i < st->end; ++i) loads += rp->ops[i].kind == OPK_LD;
            }
    }
    EXPECT_GT(loads, 0u) << "the recovery kernels read nothing from PM";
    prog_free(rp);
}

INSTANTIATE_TEST_SUITE_P(Wl, Recover, ::testing::ValuesIn(kCases), case_name);

// A large restore is spread over the warps of several blocks, each warp loading before it stores.
TEST(RecoverKernels, ParallelOverBlocks)
{
    Img from(mem_new()), to(mem_new());
    for (uint64_t i = 0; i < 4096; ++i) mem_write_u32(to.get(), PERSIM_PM_BASE + 8 * i, (uint32_t)i + 1);
    const wl_range r[1] = { { PERSIM_PM_BASE, 4096 * 8 } };
    const wl_range reads[1] = { { PERSIM_PM_BASE + (1u << 20), 4096 * 8 } };
    Img cleared(mem_clone(to.get()));
    persim_prog *p = prog_new();
    ASSERT_EQ(wl_emit_recovery(p, "x_recover", reads, 1, from.get(), to.get(), cleared.get(), r, 1), 0);
    ASSERT_EQ(p->nkernels, 1u + 1u);   // nothing to clear: an empty clear kernel still ends durable
    EXPECT_STREQ(p->kernels[1].name, "x_recover_clear");
    const persim_kernel &k = p->kernels[0];
    EXPECT_GT(k.nblocks, 1u);
    uint64_t ld_words = 0, st_words = 0;
    for (uint32_t b = 0; b < k.nblocks; ++b)
        for (uint32_t w = 0; w < k.warps_per_block; ++w) {
            const persim_stream *st = prog_stream(p, &k, b, w);
            bool stored = false;
            for (uint64_t i = st->begin; i < st->end; ++i) {
                const persim_op &o = p->ops[i];
                if (o.kind == OPK_LD) {
                    EXPECT_FALSE(stored) << "a load after a store in block " << b << " warp " << w;
                    ld_words += o.nlanes;
                } else if (o.kind == OPK_ST) {
                    stored = true;
                    st_words += o.nlanes;
                }
            }
            EXPECT_EQ(p->ops[st->end - 1].kind, OPK_DURABLE);
        }
    EXPECT_EQ(ld_words, 4096u * 2);
    EXPECT_EQ(st_words, 4096u);
    // the functional result is the restored image
    Img run(mem_clone(from.get()));
    char err[256] = "";
    ASSERT_EQ(func_exec(p, run.get(), 0, err, sizeof err), 0) << err;
    EXPECT_LT(mem_diff(run.get(), to.get(), PERSIM_PM_BASE, 1u << 16), 0);
    prog_free(p);
}

// The reduction's recovery trusts the block sums once the final sum is durable (what the
// device-scope release guarantees). A crash image where the final sum is durable but a block's
// tree is not (what the block-scope bug allows) is not recovered.
TEST(RecoverNegative, ReductionFinalSumWithoutTheBlockSums)
{
    auto b = build("reduction-blkscope-bug", 20000);
    // every persist durable except block 0's (the first persists of the program are block 0's tree)
    Img img(mem_clone(b->init.get()));
    uint32_t skipped = 0;
    for (uint32_t op : b->persists) {
        const persim_op &o = b->p->ops[op];
        bool block0_tree = o.kind == OPK_ST && o.addr >= PERSIM_PM_BASE && o.addr < PERSIM_PM_BASE + 4 * 512;
        bool block0_result = o.kind == OPK_RELEASE && o.scope == SCOPE_BLOCK && o.addr >= PERSIM_PM_BASE;
        if (block0_tree || (block0_result && skipped == 0)) {
            skipped++;
            continue;
        }
        apply(b->p, o, img.get());
    }
    ASSERT_GT(skipped, 0u);
    std::string r = recover(*b, img.get());
    EXPECT_NE(r, "ok");
    EXPECT_NE(r.find("reduction"), std::string::npos) << r;
}

// MQ's recovery trusts head/tail when a transaction's completion record is durable; a crash image
// with the completion record but without the tail update (what the missing ORDER allows) fails.
TEST(RecoverNegative, MqCompletionRecordWithoutTheTail)
{
    auto b = build("mq-noorder-bug", 40);
    // the first head/tail update (4-byte store) directly followed in its warp by the completion
    // record (8-byte store), and where they come in the functional order
    size_t hdr = 0, done = 0;
    for (uint64_t j = 0; j + 1 < b->p->nops && !done; j++) {
        const persim_op &o = b->p->ops[j], &n = b->p->ops[j + 1];
        if (o.kind == OPK_ST && o.elem == 4 && o.nlanes == 1 && o.addr >= PERSIM_PM_BASE && n.kind == OPK_ST &&
            n.elem == 8)
            for (size_t i = 0; i < b->persists.size(); i++) {
                if (b->persists[i] == j) hdr = i;
                if (b->persists[i] == j + 1) done = i;
            }
    }
    ASSERT_GT(done, hdr);
    const size_t cut = hdr + 1;
    Img img = prefix_image(*b, cut - 1);                      // everything before the tail update
    apply(b->p, b->p->ops[b->persists[done]], img.get());     // and the completion record
    EXPECT_NE(recover(*b, img.get()), "ok");
    Img good = prefix_image(*b, done + 1);                    // both: fine
    EXPECT_EQ(recover(*b, good.get()), "ok");
}

// The B+tree recovery (section 8.3 undo log) trusts a workgroup's epoch status entry: every node
// its wavefronts wrote in that epoch is durable (what the workgroup-scope persist barrier before
// the entry guarantees). A crash image with the entry and the split node's left part and pending
// item, but without the new node another wavefront of the workgroup split off (what the
// workitem-scope barrier of btree-wg-wi-bug allows), is reported as not a B+tree; without the
// entry the epoch is rolled back and the same image recovers.
TEST(RecoverNegative, BtreeEpochStatusWithoutASplitOffNode)
{
    auto b = build("btree-wg-wi-bug", 2000);
    const persim_op *ops = b->p->ops;
    auto pool_node_store = [&](uint32_t j) {
        return ops[j].kind == OPK_ST && ops[j].elem == 4 && ops[j].nlanes == 32 && ops[j].addr >= PERSIM_PM_BASE;
    };
    bool found = false;
    std::vector<bool> seen(1024, false);
    for (size_t e = 0; e < b->persists.size() && !found; e++) {
        const uint32_t est = b->persists[e];
        // a workgroup's first epoch status store (the leaf level): 8 bytes, one lane, in the
        // subtree kernel, not an undo-log tag (those follow `order`)
        if (b->kernel_of[e] != 0 || ops[est].kind != OPK_ST || ops[est].elem != 8 || ops[est].nlanes != 1 ||
            ops[est - 1].kind == OPK_ORDER)
            continue;
        ASSERT_LT(b->block_of[e], seen.size());
        if (seen[b->block_of[e]]) continue;
        seen[b->block_of[e]] = true;
        // a node split off by another wavefront of the workgroup before the entry (a node store
        // right after the split node's own store)
        size_t lost = 0;
        for (size_t i = 0; i < e && !lost; i++) {
            const uint32_t j = b->persists[i];
            if (b->block_of[i] == b->block_of[e] && b->warp_of[i] != b->warp_of[e] && pool_node_store(j) &&
                pool_node_store(j - 1))
                lost = i + 1;
        }
        if (!lost) continue;
        found = true;
        Img img(mem_clone(b->init.get())), no_est(mem_clone(b->init.get()));
        for (size_t i = 0; i <= e; i++) {
            if (i + 1 == lost) continue;
            apply(b->p, ops[b->persists[i]], img.get());
            if (i != e) apply(b->p, ops[b->persists[i]], no_est.get());
        }
        std::string r = recover(*b, img.get());
        EXPECT_NE(r.find("not a B+tree"), std::string::npos) << r;
        EXPECT_EQ(recover(*b, no_est.get()), "ok");
    }
    EXPECT_TRUE(found) << "no workgroup with a split by a wavefront other than the status writer";
}
