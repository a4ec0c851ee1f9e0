// The AGPM paper's kernels (workloads/wl_agpm*.c, docs/workloads-agpm.md): every kernel builds,
// runs functionally and verifies against its host reference; a corrupted output is caught; the
// CTA-level undo log is made of STC_LOG stores that precede the CTA's data stores with a
// durability point between; recovery from crash images (prefixes of a strict execution, and
// mid-CTA) gives the right result, and the undo step restores the old values.
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "func_exec.h"
#include "workload.h"
#include "wl_test_util.h"

namespace {

using wltest::Img;

wl_params params(uint64_t size, uint64_t seed = 7) { return wltest::make_params(size, seed, 4, 1024, 0); }

std::vector<std::string> names()
{
    std::vector<std::string> v;
    for (const persim_workload *const *w = wl_agpm_all(); *w; ++w) v.push_back((*w)->name);
    return v;
}

std::string case_name(const ::testing::TestParamInfo<std::string> &i)
{
    std::string s = i.param.substr(5);
    for (char &c : s)
        if (!isalnum((unsigned char)c)) c = '_';
    return s;
}

bool writes_pm(const persim_op *o)
{
    return o->kind == OPK_ST && o->addr + (uint64_t)(o->nlanes - 1) * o->stride + o->elem > PERSIM_PM_BASE;
}

struct StrictRun {
    std::unique_ptr<wltest::Built> b;
    std::vector<uint32_t> persists;   // PM stores in functional execution order
};

void collect(void *ctx, const persim_op *o, uint32_t, uint32_t, uint32_t)
{
    auto *r = static_cast<StrictRun *>(ctx);
    if (writes_pm(o)) r->persists.push_back((uint32_t)(o - r->b->p->ops));
}

StrictRun strict(const std::string &name)
{
    StrictRun r;
    const persim_workload *w = wl_find(name.c_str());
    r.b = wltest::build(name.c_str(), params(w ? w->small_size : 1));
    if (r.b->rc != 0) return r;
    Img scratch(mem_clone(r.b->init));
    char err[512] = "";
    EXPECT_EQ(func_exec_cb_run(r.b->p, scratch.get(), 0, collect, &r, err, sizeof err), 0) << err;
    return r;
}

void apply(const persim_prog *p, const persim_op &o, mem_image *img)
{
    for (uint32_t l = 0; l < o.nlanes; l++) {
        uint64_t a = o.addr + (uint64_t)l * o.stride;
        if (a >= PERSIM_PM_BASE) mem_write_u32(img, a, (uint32_t)op_lane_val(p, &o, l));
    }
}

Img prefix(const StrictRun &r, size_t n)
{
    Img img(mem_clone(r.b->init));
    for (size_t i = 0; i < n && i < r.persists.size(); i++) apply(r.b->p, r.b->p->ops[r.persists[i]], img.get());
    return img;
}

// "ok" or what went wrong; *after_undo (if given) receives the image after the recovery kernels.
std::string recover(const StrictRun &r, const mem_image *durable, Img *after_undo = nullptr)
{
    persim_prog *rp = prog_new();
    Img img(mem_clone(durable));
    char err[1024] = "";
    std::string res = "ok";
    if (r.b->w->recover(r.b->ctx, durable, rp, img.get(), err, sizeof err) != 0) res = std::string("recover: ") + err;
    else {
        if (after_undo) {
            uint32_t nk = rp->nkernels, nrec = 0;
            while (nrec < nk && wl_is_recovery_kernel(rp->kernels[nrec].name)) nrec++;
            rp->nkernels = nrec;
            after_undo->reset(mem_clone(durable));
            if (func_exec(rp, after_undo->get(), 0, err, sizeof err) != 0) res = std::string("func_exec (undo): ") + err;
            rp->nkernels = nk;
        }
        if (res == "ok" && func_exec(rp, img.get(), 0, err, sizeof err) != 0) res = std::string("func_exec: ") + err;
        else if (res == "ok" && r.b->w->verify(r.b->ctx, img.get(), err, sizeof err) != 0) res = err;
    }
    prog_free(rp);
    return res;
}

class Agpm : public ::testing::TestWithParam<std::string> {};

} // namespace

TEST(AgpmTable, TwentyTwoKernelsFoundByNameNotInWlAll)
{
    auto v = names();
    EXPECT_EQ(v.size(), 22u);
    std::set<std::string> seen;
    for (auto &n : v) {
        EXPECT_EQ(n.rfind("agpm-", 0), 0u) << n;
        EXPECT_TRUE(seen.insert(n).second) << n;
        ASSERT_NE(wl_find(n.c_str()), nullptr) << n;
        EXPECT_NE(wl_find(n.c_str())->recover, nullptr) << n;
        EXPECT_NE(wl_find((n + "-nolog").c_str()), nullptr) << n;
        EXPECT_EQ(wl_find((n + "-nolog").c_str())->recover, nullptr) << n;
        for (const persim_workload *const *g = wl_all(); *g; ++g) EXPECT_NE(n, (*g)->name);
    }
    size_t nolog = 0;
    for (const persim_workload *const *w = wl_agpm_nolog_all(); *w; ++w) nolog++;
    EXPECT_EQ(nolog, v.size());
    for (const char *k : { "agpm-2mm1", "agpm-3mm1", "agpm-gemm", "agpm-atax1", "agpm-atax2", "agpm-mvt1",
                           "agpm-gesummv", "agpm-2dconv" })
        EXPECT_NE(wl_find(k), nullptr) << k;
}

TEST(AgpmTable, RejectsBadSizes)
{
    auto b = wltest::build("agpm-gemm", params(33));
    EXPECT_NE(b->rc, 0);
    EXPECT_NE(b->err.find("multiple of 32"), std::string::npos) << b->err;
    auto z = wltest::build("agpm-gemm", params(0));
    EXPECT_NE(z->rc, 0);
}

TEST_P(Agpm, BuildsRunsAndVerifiesLoggedAndPlain)
{
    for (std::string n : { GetParam(), GetParam() + "-nolog" }) {
        const persim_workload *w = wl_find(n.c_str());
        ASSERT_NE(w, nullptr);
        auto b = wltest::build(n.c_str(), params(w->small_size));
        ASSERT_EQ(b->rc, 0) << b->err;
        char err[512] = "";
        ASSERT_EQ(prog_validate(b->p, err, sizeof err), 0) << err;
        ASSERT_GT(b->p->nops, 0u);
        std::string e;
        Img fin = wltest::run_prog(b->p, b->init, 0, &e);
        ASSERT_TRUE(fin) << e;
        EXPECT_EQ(wltest::verify(*b, fin.get()), "ok") << n;
        // the initial image is not already the answer
        EXPECT_NE(wltest::verify(*b, b->init), "ok") << n;
        // every word an output store writes is checked: corrupting any one of them is caught
        std::vector<uint64_t> outs;
        for (uint64_t i = 0; i < b->p->nops; i++) {
            const persim_op &o = b->p->ops[i];
            if (o.kind == OPK_ST && o.st_class == STC_DATA && writes_pm(&o)) outs.push_back(o.addr + (o.nlanes - 1) * o.stride);
        }
        ASSERT_FALSE(outs.empty());
        for (size_t k : { (size_t)0, outs.size() / 2, outs.size() - 1 }) {
            Img bad(mem_clone(fin.get()));
            mem_write_u32(bad.get(), outs[k], mem_read_u32(bad.get(), outs[k]) ^ 0x10u);
            EXPECT_NE(wltest::verify(*b, bad.get()), "ok") << n << " store " << k;
        }
    }
}

TEST_P(Agpm, DeterministicInSeed)
{
    const persim_workload *w = wl_find(GetParam().c_str());
    auto a = wltest::build(GetParam().c_str(), params(w->small_size, 3));
    auto b = wltest::build(GetParam().c_str(), params(w->small_size, 3));
    ASSERT_EQ(a->rc, 0);
    ASSERT_EQ(a->p->nops, b->p->nops);
    EXPECT_EQ(std::memcmp(a->p->ops, b->p->ops, a->p->nops * sizeof(persim_op)), 0);
}

// Per warp of a logged CTA: log stores (STC_LOG, to PM) first, then a DURABLE, then the data
// stores; as many log words as output words; the plain variant has no log and no DURABLE.
TEST_P(Agpm, LogStoresPrecedeDataStoresWithDurableBetween)
{
    const persim_workload *w = wl_find(GetParam().c_str());
    auto b = wltest::build(GetParam().c_str(), params(w->small_size));
    ASSERT_EQ(b->rc, 0) << b->err;
    const persim_prog *p = b->p;
    uint64_t logs = 0, ctas = 0;
    for (uint32_t k = 0; k < p->nkernels; k++) {
        const persim_kernel &kr = p->kernels[k];
        for (uint32_t bl = 0; bl < kr.nblocks; bl++) {
            ctas++;
            for (uint32_t wi = 0; wi < kr.warps_per_block; wi++) {
                const persim_stream *s = prog_stream(p, &kr, bl, wi);
                int64_t last_log = -1, first_data = -1, durable_between = 0;
                uint64_t log_lanes = 0, data_lanes = 0, flag_stores = 0;
                for (uint64_t i = s->begin; i < s->end; i++) {
                    const persim_op &o = p->ops[i];
                    if (o.kind == OPK_ST && o.st_class == STC_LOG) {
                        EXPECT_TRUE(writes_pm(&o));
                        EXPECT_EQ(first_data, -1) << "log store after a data store, kernel " << k << " block " << bl;
                        last_log = (int64_t)i;
                        log_lanes += o.nlanes;
                        logs++;
                    } else if (o.kind == OPK_ST) {
                        if (o.nlanes == 1 && o.vals == PERSIM_NOVALS && (o.val == 1 || o.val == 2) && wi == 0 &&
                            flag_stores < 2 && i + 1 < s->end && p->ops[i + 1].kind == OPK_DURABLE) {
                            flag_stores++;   // the CTA's flag: in transaction, then complete
                            continue;
                        }
                        if (first_data < 0) first_data = (int64_t)i;
                        data_lanes += o.nlanes;
                    } else if (o.kind == OPK_DURABLE && last_log >= 0 && first_data < 0) {
                        durable_between = 1;
                    }
                }
                if (data_lanes) {
                    EXPECT_GE(last_log, 0) << "kernel " << k << " block " << bl << " warp " << wi;
                    EXPECT_TRUE(durable_between) << "kernel " << k << " block " << bl << " warp " << wi;
                }
                EXPECT_EQ(log_lanes, data_lanes) << "kernel " << k << " block " << bl << " warp " << wi;
                if (wi == 0) { EXPECT_EQ(flag_stores, 2u) << "kernel " << k << " block " << bl; }
            }
        }
    }
    EXPECT_GT(logs, 0u);
    EXPECT_GT(ctas, 0u);
    // what recovery relies on is stated for the checker: every log store before the CTA's first flag,
    // the flag before every output store, every output store before the second flag
    uint64_t reqs = 0, outs = 0;
    for (uint64_t i = 0; i < p->nops; i++) {
        reqs += p->ops[i].kind == OPK_REQUIRE;
        outs += p->ops[i].kind == OPK_ST && p->ops[i].st_class == STC_DATA;
    }
    EXPECT_EQ(reqs, logs + 2 * (outs - 2 * ctas));
    auto n = wltest::build((GetParam() + "-nolog").c_str(), params(w->small_size));
    ASSERT_EQ(n->rc, 0);
    for (uint64_t i = 0; i < n->p->nops; i++) {
        EXPECT_FALSE(n->p->ops[i].kind == OPK_ST && n->p->ops[i].st_class == STC_LOG);
        EXPECT_NE(n->p->ops[i].kind, OPK_DURABLE);
        EXPECT_NE(n->p->ops[i].kind, OPK_REQUIRE);
    }
}

// The log update reads the data it protects (AGPM sections III / V-A: the undo log is a copy of
// the data to be updated): per warp, the log-update reads (`ld log`, STC_LOG loads) are exactly the
// output stores' addresses and shapes, in order, all before the first log store's durable point;
// the plain variant has no such read.
TEST_P(Agpm, LogUpdateReadsTheDataItProtects)
{
    const persim_workload *w = wl_find(GetParam().c_str());
    auto b = wltest::build(GetParam().c_str(), params(w->small_size));
    ASSERT_EQ(b->rc, 0) << b->err;
    const persim_prog *p = b->p;
    uint64_t reads = 0;
    for (uint32_t k = 0; k < p->nkernels; k++) {
        const persim_kernel &kr = p->kernels[k];
        for (uint32_t bl = 0; bl < kr.nblocks; bl++)
            for (uint32_t wi = 0; wi < kr.warps_per_block; wi++) {
                const persim_stream *s = prog_stream(p, &kr, bl, wi);
                std::vector<const persim_op *> rd, out;
                bool durable_seen = false;
                for (uint64_t i = s->begin; i < s->end; i++) {
                    const persim_op &o = p->ops[i];
                    if (o.kind == OPK_DURABLE) durable_seen = true;
                    if (o.kind == OPK_LD && o.st_class == STC_LOG) {
                        EXPECT_FALSE(durable_seen) << "log read after the log's durable point, kernel " << k;
                        rd.push_back(&o);
                    }
                    if (o.kind == OPK_ST && o.st_class == STC_DATA) out.push_back(&o);
                }
                // output stores: warp 0's first and last data stores are the CTA's flag (in
                // transaction, complete), the others are the kernel's outputs
                if (wi == 0) {
                    ASSERT_GE(out.size(), 2u) << "kernel " << k << " block " << bl;
                    out.erase(out.begin());
                    out.pop_back();
                }
                ASSERT_EQ(rd.size(), out.size()) << "kernel " << k << " block " << bl << " warp " << wi;
                for (size_t j = 0; j < rd.size(); j++) {
                    EXPECT_EQ(rd[j]->addr, out[j]->addr);
                    EXPECT_EQ(rd[j]->nlanes, out[j]->nlanes);
                    EXPECT_EQ(rd[j]->stride, out[j]->stride);
                    EXPECT_EQ(rd[j]->elem, out[j]->elem);
                }
                reads += rd.size();
            }
    }
    EXPECT_GT(reads, 0u);
    auto n = wltest::build((GetParam() + "-nolog").c_str(), params(w->small_size));
    ASSERT_EQ(n->rc, 0);
    for (uint64_t i = 0; i < n->p->nops; i++)
        EXPECT_FALSE(n->p->ops[i].kind == OPK_LD && n->p->ops[i].st_class == STC_LOG);
}

// Prefixes of a strict execution are crash states every model allows.
TEST_P(Agpm, RecoversFromPrefixesOfAStrictExecution)
{
    StrictRun r = strict(GetParam());
    ASSERT_EQ(r.b->rc, 0) << r.b->err;
    const size_t n = r.persists.size(), steps = 10;
    ASSERT_GE(n, 6u);
    for (size_t k = 0; k <= steps; k++) {
        size_t cut = n * k / steps;
        Img img = prefix(r, cut);
        EXPECT_EQ(recover(r, img.get()), "ok") << GetParam() << ": crash after " << cut << " of " << n;
    }
    for (size_t cut : { (size_t)1, (size_t)2, n - 2, n - 1 }) {
        Img img = prefix(r, cut);
        EXPECT_EQ(recover(r, img.get()), "ok") << GetParam() << ": crash after " << cut << " of " << n;
    }
}

// A crash in the middle of a CTA's updates (its flag durable "in transaction", some of its outputs
// already overwritten): the recovery kernels put the old values back (checked against the
// initial image: these kernels' outputs are written by one CTA only, in one kernel), the rest of
// the work then completes it.
TEST(AgpmRecover, MidCtaCrashUndoesThePartialUpdate)
{
    for (const char *name : { "agpm-gemm", "agpm-mvt1", "agpm-atax1", "agpm-2dconv" }) {
        StrictRun r = strict(name);
        ASSERT_EQ(r.b->rc, 0) << r.b->err;
        const persim_prog *p = r.b->p;
        // the first data store (not a flag, not a log) after some flag=1 store
        size_t cut = 0;
        bool intx = false;
        for (size_t i = 0; i < r.persists.size() && !cut; i++) {
            const persim_op &o = p->ops[r.persists[i]];
            if (o.nlanes == 1 && o.vals == PERSIM_NOVALS && o.val == 1) intx = true;
            else if (intx && o.st_class == STC_DATA && o.nlanes > 1) cut = i + 1;
        }
        ASSERT_GT(cut, 0u) << name;
        // the data store just applied changed an output the initial image holds otherwise
        const persim_op &last = p->ops[r.persists[cut - 1]];
        Img img = prefix(r, cut);
        bool changed = false;
        for (uint32_t l = 0; l < last.nlanes; l++) {
            uint64_t a = last.addr + (uint64_t)l * last.stride;
            changed |= mem_read_u32(img.get(), a) != mem_read_u32(r.b->init, a);
        }
        ASSERT_TRUE(changed) << name;
        Img undone;
        EXPECT_EQ(recover(r, img.get(), &undone), "ok") << name;
        ASSERT_TRUE(undone);
        for (uint32_t l = 0; l < last.nlanes; l++) {
            uint64_t a = last.addr + (uint64_t)l * last.stride;
            EXPECT_EQ(mem_read_u32(undone.get(), a), mem_read_u32(r.b->init, a)) << name << " lane " << l;
        }
    }
}

TEST(AgpmRecover, PlainVariantIsNotRecoverableAndBrokenLogIsNotRecovered)
{
    StrictRun r = strict("agpm-gemm");
    ASSERT_EQ(r.b->rc, 0);
    // break the undo log: the CTA's flag says "in transaction" but its log never became durable
    // (a persist-order violation): recovery then cannot restore, and the result is wrong
    const persim_prog *p = r.b->p;
    Img img(mem_clone(r.b->init));
    size_t applied = 0;
    for (size_t i = 0; i < r.persists.size(); i++) {
        const persim_op &o = p->ops[r.persists[i]];
        if (o.st_class == STC_LOG) continue;   // the logs are lost
        apply(p, o, img.get());
        if (o.st_class == STC_DATA && o.nlanes > 1 && ++applied == 3) break;
    }
    EXPECT_NE(recover(r, img.get()), "ok");
}

INSTANTIATE_TEST_SUITE_P(Kernels, Agpm, ::testing::ValuesIn(names()), case_name);
