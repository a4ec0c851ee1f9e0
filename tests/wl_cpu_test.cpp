// The CPU workloads and profiles (workloads/wl_cpu_*.c, docs/workloads-cpu.md): each builds for
// 1, 2 and 8 hardware threads into one kernel of scalar ops that prog_validate accepts; the
// functional executor runs it to a final image the verifier accepts, and the verifier rejects the
// image with one stored word flipped; builds are deterministic in (size, seed, threads); they refuse
// a GPU (num_threads 0), size 0 and more than 64 threads; structure markers are present and
// balanced; ticket locks pair acquire k with release k+1; the default sizes run and verify; a
// program round-trips through the text trace format.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "func_exec.h"
#include "trace.h"
#include "workload.h"
#include "wl_test_util.h"

namespace {

using namespace wltest;

const char *const kCpuNames[] = { "cpu-queue",        "cpu-hashtable",     "cpu-arrayswap", "cpu-btree",
                                  "cpu-txbank",       "prof-cpu2006-mem",  "prof-cpu2006-comp",
                                  "prof-cpu2017-mem", "prof-cpu2017-comp", "prof-npb",
                                  "prof-splash3",     "prof-whisper" };
constexpr uint64_t kMaxSteps = 2000000000ull;

wl_params cpu_params(uint64_t size, uint32_t threads, uint64_t seed = 1)
{
    wl_params p = make_params(size, seed, 4, 1024, 0);
    p.num_threads = threads;
    return p;
}

std::unique_ptr<Built> build_cpu(const char *name, uint32_t threads, uint64_t seed = 1, uint64_t size = 0)
{
    const persim_workload *w = wl_find(name);
    return build(name, cpu_params(size ? size : (w ? w->small_size : 1), threads, seed));
}

bool same_prog(const persim_prog *a, const persim_prog *b)
{
    if (a->nkernels != b->nkernels || a->nstreams != b->nstreams || a->nops != b->nops) return false;
    for (uint64_t s = 0; s < a->nstreams; s++) {
        const persim_stream &x = a->streams[s], &y = b->streams[s];
        if (x.end - x.begin != y.end - y.begin) return false;
        if (x.end != x.begin && x.begin != y.begin) return false;   // empty streams: any position
    }
    for (uint64_t i = 0; i < a->nops; i++) {
        const persim_op &x = a->ops[i], &y = b->ops[i];
        if (x.kind != y.kind || x.scope != y.scope || x.elem != y.elem || x.nlanes != y.nlanes || x.addr != y.addr ||
            x.id != y.id || (x.kind == OPK_ST ? op_lane_val(a, &x, 0) != op_lane_val(b, &y, 0) : x.val != y.val))
            return false;
    }
    return true;
}

class Cpu : public ::testing::TestWithParam<const char *> {};
class CpuThreads : public ::testing::TestWithParam<std::tuple<const char *, uint32_t>> {};

std::string name_of(const char *n)
{
    std::string s = n;
    for (auto &ch : s)
        if (ch == '-') ch = '_';
    return s;
}

} // namespace

TEST(WlCpuRegistry, KernelsThenProfilesAndGpuListUnchanged)
{
    const persim_workload *const *all = wl_cpu_all();
    size_t n = 0;
    for (; all[n] && std::strncmp(all[n]->name, "broi-", 5) != 0; n++) {   // broi-*: tests/wl_broi_test.cpp
        ASSERT_LT(n, sizeof kCpuNames / sizeof *kCpuNames);
        EXPECT_STREQ(all[n]->name, kCpuNames[n]);
        EXPECT_EQ(wl_find(kCpuNames[n]), all[n]);
        const persim_workload *w = all[n];
        EXPECT_TRUE(w->desc && *w->desc && w->size_desc && *w->size_desc && w->pmo && *w->pmo) << w->name;
        EXPECT_TRUE(w->build && w->verify && w->free_ctx) << w->name;
        EXPECT_GT(w->small_size, 0u);
        EXPECT_LE(w->small_size, w->default_size);
    }
    EXPECT_EQ(n, sizeof kCpuNames / sizeof *kCpuNames);
    for (const persim_workload *const *g = wl_all(); *g; ++g)
        for (const char *c : kCpuNames) EXPECT_STRNE((*g)->name, c);
}

// Builds with T threads: one kernel, one block, T warps; valid; scalar ops; runs and verifies.
TEST_P(CpuThreads, BuildsValidScalarRunsAndVerifies)
{
    const char *name = std::get<0>(GetParam());
    const uint32_t T = std::get<1>(GetParam());
    auto b = build_cpu(name, T);
    ASSERT_EQ(b->rc, 0) << b->err;
    char err[512] = "";
    ASSERT_EQ(prog_validate(b->p, err, sizeof err), 0) << err;
    ASSERT_EQ(b->p->nkernels, 1u);
    EXPECT_EQ(b->p->kernels[0].nblocks, 1u);
    EXPECT_EQ(b->p->kernels[0].warps_per_block, T);
    uint64_t mem_ops = 0;
    for (uint64_t i = 0; i < b->p->nops; i++) {
        const persim_op &o = b->p->ops[i];
        if (o.kind == OPK_LD || o.kind == OPK_ST) {
            mem_ops++;
            ASSERT_EQ(o.nlanes, 1u) << name << " op " << i;
            ASSERT_TRUE(o.elem == 1 || o.elem == 2 || o.elem == 4 || o.elem == 8) << name << " op " << i;
            ASSERT_GE(o.addr, PERSIM_PM_BASE) << name << ": all data lives in PM";
        }
        if (o.kind == OPK_ACQUIRE || o.kind == OPK_RELEASE) { ASSERT_EQ(o.scope, SCOPE_SYSTEM); }
    }
    EXPECT_GT(mem_ops, 0u);
    // every thread has work, except in the single-threaded profiles (SPEC CPU: thread 0 only)
    const bool single = std::strncmp(name, "prof-cpu20", 10) == 0;
    for (uint32_t t = 0; t < T; t++) {
        const persim_stream *s = prog_stream(b->p, &b->p->kernels[0], 0, t);
        if (single && t > 0)
            EXPECT_EQ(s->end, s->begin) << name << " thread " << t;
        else
            EXPECT_GT(s->end, s->begin) << name << " thread " << t;
    }
    std::string e;
    Img fin = run_prog(b->p, b->init, kMaxSteps, &e);
    ASSERT_TRUE(fin) << e;
    EXPECT_EQ(verify(*b, fin.get()), "ok");
}

// Flipping one stored word (first, middle or last store of a thread) makes verify fail.
TEST_P(Cpu, VerifyRejectsAFlippedStoredWord)
{
    auto b = build_cpu(GetParam(), 2);
    ASSERT_EQ(b->rc, 0) << b->err;
    std::string e;
    Img fin = run_prog(b->p, b->init, kMaxSteps, &e);
    ASSERT_TRUE(fin) << e;
    ASSERT_EQ(verify(*b, fin.get()), "ok");
    std::vector<uint64_t> st;
    for (uint64_t i = 0; i < b->p->nops; i++)
        if (b->p->ops[i].kind == OPK_ST) st.push_back(i);
    ASSERT_FALSE(st.empty());
    for (uint64_t pick : { st.front(), st[st.size() / 2], st.back() }) {
        const persim_op &o = b->p->ops[pick];
        Img bad(mem_clone(fin.get()));
        uint64_t v = 0;
        mem_read(bad.get(), o.addr, &v, o.elem);
        v ^= 1;
        mem_write(bad.get(), o.addr, &v, o.elem);
        const std::string r = verify(*b, bad.get());
        EXPECT_NE(r, "ok") << GetParam() << ": store op " << pick << " at 0x" << std::hex << o.addr;
        EXPECT_NE(r.find(GetParam()), std::string::npos) << r;
    }
}

TEST_P(Cpu, DeterministicInSeedAndThreads)
{
    auto a = build_cpu(GetParam(), 2, 7), b = build_cpu(GetParam(), 2, 7), c = build_cpu(GetParam(), 2, 8);
    ASSERT_EQ(a->rc, 0) << a->err;
    ASSERT_EQ(b->rc, 0);
    ASSERT_EQ(c->rc, 0);
    EXPECT_TRUE(same_prog(a->p, b->p));
    EXPECT_FALSE(same_prog(a->p, c->p)) << "seed 7 and 8 built the same program";
}

TEST_P(Cpu, RefusesAGpu)
{
    auto b = build_cpu(GetParam(), 0);
    EXPECT_NE(b->rc, 0);
    EXPECT_NE(b->err.find("system.kind=cpu"), std::string::npos) << b->err;
    EXPECT_NE(b->err.find(GetParam()), std::string::npos) << b->err;
}

TEST_P(Cpu, MarkersPresentAndBalanced)
{
    auto b = build_cpu(GetParam(), 2);
    ASSERT_EQ(b->rc, 0) << b->err;
    const bool single = std::strncmp(GetParam(), "prof-cpu20", 10) == 0;   // thread 0 only
    for (uint32_t t = 0; t < (single ? 1u : 2u); t++) {
        const persim_stream *s = prog_stream(b->p, &b->p->kernels[0], 0, t);
        uint64_t n[MARK__COUNT] = { 0 };
        int64_t depth = 0;
        for (uint64_t i = s->begin; i < s->end; i++) {
            const persim_op &o = b->p->ops[i];
            if (o.kind != OPK_MARK) continue;
            ASSERT_TRUE(o.val >= MARK_FUNC && o.val < MARK__COUNT);
            n[o.val]++;
            depth += o.val == MARK_FUNC ? 1 : o.val == MARK_RET ? -1 : 0;
            ASSERT_GE(depth, 0) << "ret without func, thread " << t;
        }
        EXPECT_GT(n[MARK_FUNC], 0u) << t;
        EXPECT_GT(n[MARK_LOOP], 0u) << t;
        EXPECT_EQ(n[MARK_FUNC], n[MARK_RET]) << t;
        EXPECT_EQ(depth, 0);
    }
}

// Ticket locks: every acquire (L, k) is followed in its own stream by exactly one release (L, k+1)
// before the next acquire of L; each ticket (L, k) is taken exactly once in the program; a lock's
// tickets are 0, 1, 2, ... without gaps.
TEST_P(Cpu, LockTicketsPairUp)
{
    auto b = build_cpu(GetParam(), 8);
    ASSERT_EQ(b->rc, 0) << b->err;
    std::map<uint64_t, std::set<uint64_t>> taken;
    uint64_t acquires = 0;
    for (uint32_t t = 0; t < 8; t++) {
        const persim_stream *s = prog_stream(b->p, &b->p->kernels[0], 0, t);
        std::map<uint64_t, uint64_t> held;   // lock -> ticket
        for (uint64_t i = s->begin; i < s->end; i++) {
            const persim_op &o = b->p->ops[i];
            if (o.kind == OPK_ACQUIRE) {
                acquires++;
                ASSERT_EQ(held.count(o.addr), 0u) << "lock 0x" << std::hex << o.addr << " acquired twice";
                held[o.addr] = o.val;
                ASSERT_TRUE(taken[o.addr].insert(o.val).second) << "ticket " << o.val << " taken twice";
            } else if (o.kind == OPK_RELEASE) {
                auto h = held.find(o.addr);
                ASSERT_NE(h, held.end()) << "release of a lock not held, thread " << t;
                ASSERT_EQ(o.val, h->second + 1) << "thread " << t;
                held.erase(h);
            }
        }
        EXPECT_TRUE(held.empty()) << "thread " << t << " ends holding a lock";
    }
    for (auto &[lock, ks] : taken) EXPECT_EQ(*ks.rbegin() + 1, ks.size()) << "gaps in the tickets of a lock";
    const std::string n = GetParam();
    if (n.rfind("cpu-", 0) == 0 || n == "prof-npb" || n == "prof-splash3" || n == "prof-whisper") {
        EXPECT_GT(acquires, 0u) << "a multi-threaded workload has shared updates";
    }
}

TEST_P(Cpu, RefusesBadSizeAndTooManyThreads)
{
    auto a = build_cpu(GetParam(), 65);
    EXPECT_NE(a->rc, 0);
    EXPECT_NE(a->err.find("cpu.cores is 65"), std::string::npos) << a->err;
    auto b = build(GetParam(), cpu_params(0, 2));
    EXPECT_NE(b->rc, 0);
    EXPECT_NE(b->err.find("size 0"), std::string::npos) << b->err;
}

// The default size (10x small) builds, runs and verifies with 4 threads.
TEST_P(Cpu, DefaultSizeRunsAndVerifies)
{
    const persim_workload *w = wl_find(GetParam());
    ASSERT_NE(w, nullptr);
    auto b = build_cpu(GetParam(), 4, 3, w->default_size);
    ASSERT_EQ(b->rc, 0) << b->err;
    std::string e;
    Img fin = run_prog(b->p, b->init, kMaxSteps, &e);
    ASSERT_TRUE(fin) << e;
    EXPECT_EQ(verify(*b, fin.get()), "ok");
}

// A CPU program (8 threads) survives the text trace format: written, read back, the same ops.
TEST_P(Cpu, TraceRoundTrip)
{
    auto b = build_cpu(GetParam(), 8);
    ASSERT_EQ(b->rc, 0) << b->err;
    char *buf = nullptr;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(trace_write_stream(f, b->p, b->init, nullptr, 0, GetParam()), 0);
    std::fclose(f);
    trace_data t{};
    char err[512] = "";
    const int rc = trace_read_string(GetParam(), buf, &t, err, sizeof err);
    std::free(buf);
    ASSERT_EQ(rc, 0) << err;
    EXPECT_TRUE(same_prog(b->p, t.prog));
    EXPECT_EQ(t.prog->kernels[0].warps_per_block, 8u);
    trace_data_free(&t);
}

INSTANTIATE_TEST_SUITE_P(All, Cpu, ::testing::ValuesIn(kCpuNames),
                         [](const ::testing::TestParamInfo<const char *> &i) { return name_of(i.param); });
INSTANTIATE_TEST_SUITE_P(All, CpuThreads, ::testing::Combine(::testing::ValuesIn(kCpuNames), ::testing::Values(1u, 2u, 8u)),
                         [](const ::testing::TestParamInfo<std::tuple<const char *, uint32_t>> &i) {
                             return name_of(std::get<0>(i.param)) + "_T" + std::to_string(std::get<1>(i.param));
                         });
