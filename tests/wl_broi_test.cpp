// The BROI paper's workloads as CPU programs (workloads/wl_broi*.c, docs/workloads-cpu.md "BROI
// workloads"): local micro-benchmarks (broi-hashtable, -rbtree, -sps, -bptree, -ssca2), their hybrid
// variants (+ RDMA channel streams replicating an instance each) and the remote client profiles
// (broi-ycsb, -tpcc, -ctree, -hashmap and its element-size variants, -memcached). Each builds for
// 1/4/8 threads and 0/2 RDMA channels as applicable, into one kernel of T local then R remote
// streams of scalar ops that prog_validate accepts; func_exec + verify pass; a flipped stored word
// fails verify; builds are deterministic; remote streams hold only st/order/compute with every
// rdma_pwrite (a contiguous run of stores) ended by order; the epochs have the configured sizes;
// the undo / redo log protocol has its shape (log records before the in-place update of the same
// transaction, separated by order); refusals name what is missing.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "func_exec.h"
#include "workload.h"
#include "wl_broi.h"
#include "wl_test_util.h"

namespace {

using namespace wltest;

const char *const kLocal[] = { "broi-hashtable", "broi-rbtree", "broi-sps", "broi-bptree", "broi-ssca2" };
const char *const kHybrid[] = { "broi-hashtable-hybrid", "broi-rbtree-hybrid", "broi-sps-hybrid", "broi-bptree-hybrid",
                                "broi-ssca2-hybrid" };
const char *const kRemote[] = { "broi-ycsb",          "broi-tpcc",          "broi-ctree",         "broi-hashmap",
                                "broi-hashmap-e128",  "broi-hashmap-e256",  "broi-hashmap-e512",  "broi-hashmap-e1024",
                                "broi-hashmap-e2048", "broi-hashmap-e4096", "broi-memcached" };
constexpr uint64_t kMaxSteps = 2000000000ull;

std::vector<const char *> all_names()
{
    std::vector<const char *> v;
    for (auto n : kLocal) v.push_back(n);
    for (auto n : kHybrid) v.push_back(n);
    for (auto n : kRemote) v.push_back(n);
    return v;
}
bool is_local(const std::string &n) { for (auto l : kLocal) if (n == l) return true; return false; }
bool is_hybrid(const std::string &n) { return n.size() > 7 && n.compare(n.size() - 7, 7, "-hybrid") == 0; }
bool is_remote(const std::string &n) { return !is_local(n) && !is_hybrid(n); }
bool is_redo(const std::string &n) { return n.find("sps") != std::string::npos || n.find("ssca2") != std::string::npos; }

wl_params bparams(uint64_t size, uint32_t T, uint32_t R, uint64_t seed = 1)
{
    wl_params p = make_params(size, seed, 4, 1024, 0);
    p.num_threads = T;
    p.num_remote = R;
    return p;
}

std::unique_ptr<Built> bbuild(const char *name, uint32_t T, uint32_t R, uint64_t seed = 1, uint64_t size = 0)
{
    const persim_workload *w = wl_find(name);
    return build(name, bparams(size ? size : (w ? w->small_size : 1), T, R, seed));
}

bool same_prog(const persim_prog *a, const persim_prog *b)
{
    if (a->nkernels != b->nkernels || a->nstreams != b->nstreams || a->nops != b->nops) return false;
    for (uint64_t i = 0; i < a->nops; i++) {
        const persim_op &x = a->ops[i], &y = b->ops[i];
        if (x.kind != y.kind || x.elem != y.elem || x.addr != y.addr || x.val != y.val) return false;
    }
    return true;
}

std::string tname(std::string s)
{
    for (auto &ch : s)
        if (ch == '-') ch = '_';
    return s;
}

// The stores of one stream split at its order ops: chunk k = the stores between order k-1 and k.
// The trailing chunk (after the last order) is returned separately.
struct Chunks { std::vector<std::vector<const persim_op *>> ep; std::vector<const persim_op *> tail; };
Chunks chunks(const persim_prog *p, uint32_t warp)
{
    Chunks c;
    const persim_stream *s = prog_stream(p, &p->kernels[0], 0, warp);
    std::vector<const persim_op *> cur;
    for (uint64_t i = s->begin; i < s->end; i++) {
        const persim_op &o = p->ops[i];
        if (o.kind == OPK_ST) cur.push_back(&o);
        if (o.kind == OPK_ORDER) { c.ep.push_back(cur); cur.clear(); }
    }
    c.tail = cur;
    return c;
}

// Parses a stream of logged transactions (wl_broi.h) and checks the protocol: undo = records | in
// place | commit, redo = records | commit | in place | clear; records {addr, value, seq} in a
// contiguous log; the in-place stores are exactly the logged addresses (redo: with the logged new
// values); the commit / clear word holds the transaction's seq. Remote streams split the in-place
// epoch into contiguous runs. Returns the number of transactions; sets *err on a mismatch.
uint64_t check_log_protocol(const persim_prog *p, uint32_t warp, bool redo, bool remote, std::string *err)
{
    Chunks c = chunks(p, warp);
    if (!c.tail.empty()) { *err = "stores after the last order"; return 0; }
    size_t k = 0;
    uint64_t tx = 0, last_seq = 0;
    while (k < c.ep.size()) {
        const auto &rec = c.ep[k++];
        if (rec.empty() || rec.size() % 4) { *err = "log epoch of " + std::to_string(rec.size()) + " stores"; return 0; }
        const size_t n = rec.size() / 4;
        std::map<uint64_t, uint64_t> logged;   // addr -> logged value
        const uint64_t seq = rec[2]->val;   // record {addr, value, seq, check}
        for (size_t i = 0; i < n; i++) {
            for (int f = 0; f < 4; f++)
                if (rec[4 * i + f]->addr != rec[0]->addr + 32 * i + 8 * f) { *err = "log records not contiguous"; return 0; }
            if (rec[4 * i + 2]->val != seq) { *err = "records of one transaction with different seq"; return 0; }
            if (rec[4 * i + 3]->val != bx_check(rec[4 * i]->val, rec[4 * i + 1]->val, seq)) { *err = "record check word"; return 0; }
            logged[rec[4 * i]->val] = rec[4 * i + 1]->val;
        }
        if (seq != last_seq + 1) { *err = "transaction seq " + std::to_string(seq) + " after " + std::to_string(last_seq); return 0; }
        last_seq = seq;
        const uint64_t log_base = rec[0]->addr - 16;
        if (redo) {
            if (k >= c.ep.size() || c.ep[k].size() != 1 || c.ep[k][0]->addr != log_base || c.ep[k][0]->val != seq) {
                *err = "redo: no commit epoch {commit_seq} after the records";
                return 0;
            }
            k++;
        }
        std::set<uint64_t> done;
        while (done.size() < n) {
            if (k >= c.ep.size()) { *err = "missing in-place epoch"; return 0; }
            const auto &e = c.ep[k++];
            if (e.empty()) { *err = "empty epoch"; return 0; }
            if (!remote && e.size() != n) { *err = "in-place epoch of " + std::to_string(e.size()) + " stores for " + std::to_string(n) + " records"; return 0; }
            for (size_t i = 0; i < e.size(); i++) {
                auto it = logged.find(e[i]->addr);
                if (it == logged.end()) { *err = "in-place store to an address that no record of its transaction logs"; return 0; }
                if (redo && it->second != e[i]->val) { *err = "redo: in-place value differs from the logged one"; return 0; }
                if (!done.insert(e[i]->addr).second) { *err = "address stored twice in place"; return 0; }
                if (remote && i && e[i]->addr != e[i - 1]->addr + 8) { *err = "an rdma_pwrite that is not contiguous"; return 0; }
            }
        }
        if (k >= c.ep.size() || c.ep[k].size() != 1 || c.ep[k][0]->addr != log_base + (redo ? 8 : 0) || c.ep[k][0]->val != seq) {
            *err = redo ? "redo: no clear epoch {applied_seq}" : "undo: no commit epoch {commit_seq}";
            return 0;
        }
        k++;
        tx++;
    }
    return tx;
}

class Broi : public ::testing::TestWithParam<const char *> {};
class BroiRemote : public ::testing::TestWithParam<const char *> {};   // hybrid + client profiles
class BroiLogged : public ::testing::TestWithParam<const char *> {};   // local + hybrid
class BroiClient : public ::testing::TestWithParam<const char *> {};   // client profiles
class BroiShape : public ::testing::TestWithParam<std::tuple<const char *, uint32_t, uint32_t>> {};

} // namespace

TEST(WlBroiRegistry, InTheCpuTableAfterTheOthers)
{
    const persim_workload *const *all = wl_cpu_all();
    std::vector<std::string> broi;
    size_t n = 0;
    for (; all[n]; n++) {
        if (std::strncmp(all[n]->name, "broi-", 5) == 0) broi.push_back(all[n]->name);
        else EXPECT_TRUE(broi.empty()) << "BROI workloads come last";
    }
    const auto names = all_names();
    ASSERT_EQ(broi.size(), names.size());
    for (size_t i = 0; i < names.size(); i++) {
        EXPECT_EQ(broi[i], names[i]);
        const persim_workload *w = wl_find(names[i]);
        ASSERT_NE(w, nullptr) << names[i];
        EXPECT_TRUE(w->desc && *w->desc && w->size_desc && *w->size_desc && w->pmo && *w->pmo && w->recovery);
        EXPECT_TRUE(w->build && w->verify && w->free_ctx);
        EXPECT_GT(w->small_size, 0u);
        EXPECT_LE(w->small_size, w->default_size);
    }
    for (const persim_workload *const *g = wl_all(); *g; ++g) EXPECT_NE(std::strncmp((*g)->name, "broi-", 5), 0);
}

// T local + R remote streams in one kernel; valid; scalar PM ops; runs and verifies.
TEST_P(BroiShape, BuildsValidScalarRunsAndVerifies)
{
    const char *name = std::get<0>(GetParam());
    const uint32_t T = std::get<1>(GetParam()), R = std::get<2>(GetParam());
    auto b = bbuild(name, T, R);
    ASSERT_EQ(b->rc, 0) << b->err;
    char err[512] = "";
    ASSERT_EQ(prog_validate(b->p, err, sizeof err), 0) << err;
    ASSERT_EQ(b->p->nkernels, 1u);
    EXPECT_EQ(b->p->kernels[0].nblocks, 1u);
    EXPECT_EQ(b->p->kernels[0].warps_per_block, T + R);
    for (uint64_t i = 0; i < b->p->nops; i++) {
        const persim_op &o = b->p->ops[i];
        if (o.kind == OPK_LD || o.kind == OPK_ST) {
            ASSERT_EQ(o.nlanes, 1u);
            ASSERT_EQ(o.elem, 8u);
            ASSERT_GE(o.addr, PERSIM_PM_BASE) << "all data lives in PM";
        }
        if (o.kind == OPK_ACQUIRE || o.kind == OPK_RELEASE) {
            ASSERT_EQ(o.scope, SCOPE_SYSTEM);
        }
    }
    const std::string n = name;
    for (uint32_t s = 0; s < T + R; s++) {
        const persim_stream *st = prog_stream(b->p, &b->p->kernels[0], 0, s);
        const bool busy = s < T ? !is_remote(n) : !is_local(n);
        if (busy) {
            EXPECT_GT(st->end, st->begin) << name << " stream " << s;
        } else {
            EXPECT_EQ(st->end, st->begin) << name << " stream " << s;
        }
    }
    std::string e;
    Img fin = run_prog(b->p, b->init, kMaxSteps, &e);
    ASSERT_TRUE(fin) << e;
    EXPECT_EQ(verify(*b, fin.get()), "ok");
}

TEST_P(Broi, VerifyRejectsAFlippedStoredWord)
{
    auto b = bbuild(GetParam(), 2, 2);
    ASSERT_EQ(b->rc, 0) << b->err;
    std::string e;
    Img fin = run_prog(b->p, b->init, kMaxSteps, &e);
    ASSERT_TRUE(fin) << e;
    ASSERT_EQ(verify(*b, fin.get()), "ok");
    std::vector<uint64_t> st;
    for (uint64_t i = 0; i < b->p->nops; i++)
        if (b->p->ops[i].kind == OPK_ST) st.push_back(i);
    ASSERT_FALSE(st.empty());
    for (uint64_t pick : { st.front(), st[st.size() / 3], st[st.size() / 2], st.back() }) {
        const persim_op &o = b->p->ops[pick];
        Img bad(mem_clone(fin.get()));
        mem_write_u64(bad.get(), o.addr, mem_read_u64(bad.get(), o.addr) ^ 1);
        const std::string r = verify(*b, bad.get());
        EXPECT_NE(r, "ok") << GetParam() << ": store op " << pick << " at 0x" << std::hex << o.addr;
        EXPECT_NE(r.find("broi-"), std::string::npos) << r;
    }
}

// The semantic checks alone catch a corrupted structure word (the image compare aside): flipping a
// word inside the live structure names the structure, not just "PM image".
TEST(WlBroi, SemanticCheckNamesTheStructure)
{
    for (const char *name : kLocal) {
        auto b = bbuild(name, 2, 0);
        ASSERT_EQ(b->rc, 0) << b->err;
        std::string e;
        Img fin = run_prog(b->p, b->init, kMaxSteps, &e);
        ASSERT_TRUE(fin) << e;
        // the last in-place store of thread 0 (the store before its final commit epoch)
        Chunks c = chunks(b->p, 0);
        ASSERT_GE(c.ep.size(), 3u);
        const persim_op *o = c.ep[c.ep.size() - 2].back();
        Img bad(mem_clone(fin.get()));
        mem_write_u64(bad.get(), o->addr, mem_read_u64(bad.get(), o->addr) + 12345);
        const std::string r = verify(*b, bad.get());
        EXPECT_NE(r, "ok") << name;
        EXPECT_EQ(r.find("PM image"), std::string::npos) << name << ": " << r;
    }
}

TEST_P(Broi, DeterministicInSeed)
{
    const uint32_t R = is_local(GetParam()) ? 0 : 2;
    auto a = bbuild(GetParam(), 4, R, 7), b = bbuild(GetParam(), 4, R, 7), c = bbuild(GetParam(), 4, R, 8);
    ASSERT_EQ(a->rc, 0) << a->err;
    ASSERT_EQ(b->rc, 0);
    ASSERT_EQ(c->rc, 0);
    EXPECT_TRUE(same_prog(a->p, b->p));
    EXPECT_FALSE(same_prog(a->p, c->p));
}

TEST_P(Broi, Refusals)
{
    const std::string n = GetParam();
    auto gpu = bbuild(GetParam(), 0, 2);
    EXPECT_NE(gpu->rc, 0);
    EXPECT_NE(gpu->err.find("system.kind=cpu"), std::string::npos) << gpu->err;
    EXPECT_NE(gpu->err.find(n), std::string::npos) << gpu->err;
    auto nor = bbuild(GetParam(), 2, 0);
    if (is_local(n)) {
        EXPECT_EQ(nor->rc, 0) << nor->err;
    } else {
        EXPECT_NE(nor->rc, 0);
        EXPECT_NE(nor->err.find("num_remote is 0"), std::string::npos) << nor->err;
        EXPECT_NE(nor->err.find(n), std::string::npos) << nor->err;
    }
    auto z = build(GetParam(), bparams(0, 2, 2));
    EXPECT_NE(z->rc, 0);
    EXPECT_NE(z->err.find("size 0"), std::string::npos) << z->err;
    auto many = bbuild(GetParam(), 2, 9);
    EXPECT_NE(many->rc, 0);
    EXPECT_NE(many->err.find("num_remote 9"), std::string::npos) << many->err;
}

// Remote streams: only st / order / compute; every rdma_pwrite is a contiguous run of stores ended
// by order (no store is left open before think time or at the end of the stream).
TEST_P(BroiRemote, RemoteStreamsArePwritesEndedByOrder)
{
    const uint32_t T = 2, R = 2;
    auto b = bbuild(GetParam(), T, R);
    ASSERT_EQ(b->rc, 0) << b->err;
    for (uint32_t r = 0; r < R; r++) {
        const persim_stream *s = prog_stream(b->p, &b->p->kernels[0], 0, T + r);
        bool open = false;
        uint64_t prev = 0, pwrites = 0;
        for (uint64_t i = s->begin; i < s->end; i++) {
            const persim_op &o = b->p->ops[i];
            ASSERT_TRUE(o.kind == OPK_ST || o.kind == OPK_ORDER || o.kind == OPK_COMPUTE)
                << GetParam() << " remote stream " << r << " has " << op_kind_name(o.kind);
            if (o.kind == OPK_ST) {
                if (open) {
                    ASSERT_EQ(o.addr, prev + 8) << "an rdma_pwrite is one contiguous block";
                }
                open = true;
                prev = o.addr;
            } else if (o.kind == OPK_ORDER) {
                ASSERT_TRUE(open) << "an order without a pwrite";
                open = false;
                pwrites++;
            } else {
                ASSERT_FALSE(open) << "think time inside an rdma_pwrite";
            }
        }
        EXPECT_FALSE(open) << "the last rdma_pwrite is not ended by order";
        EXPECT_GT(pwrites, 0u);
    }
}

// Local and hybrid: every stream follows the undo / redo protocol of wl_broi.h (hybrid remote
// streams too, with the in-place epoch split into contiguous pwrites); local streams take their
// ticket locks in pairs.
TEST_P(BroiLogged, LogProtocolShape)
{
    const std::string n = GetParam();
    const uint32_t T = 4, R = is_hybrid(n) ? 2 : 0;
    auto b = bbuild(GetParam(), T, R);
    ASSERT_EQ(b->rc, 0) << b->err;
    uint64_t tx = 0;
    for (uint32_t s = 0; s < T + R; s++) {
        std::string err;
        const uint64_t k = check_log_protocol(b->p, s, is_redo(n), s >= T, &err);
        ASSERT_TRUE(err.empty()) << n << " stream " << s << ": " << err;
        tx += k;
    }
    const persim_workload *w = wl_find(GetParam());
    EXPECT_EQ(tx, w->small_size + R * ((w->small_size + T - 1) / T)) << "one logged transaction per operation";
    // tickets: acquire (L, k) ... release (L, k+1), each ticket once
    std::map<uint64_t, std::set<uint64_t>> taken;
    for (uint32_t t = 0; t < T; t++) {
        const persim_stream *s = prog_stream(b->p, &b->p->kernels[0], 0, t);
        std::map<uint64_t, uint64_t> held;
        for (uint64_t i = s->begin; i < s->end; i++) {
            const persim_op &o = b->p->ops[i];
            if (o.kind == OPK_ACQUIRE) {
                ASSERT_EQ(held.count(o.addr), 0u);
                held[o.addr] = o.val;
                ASSERT_TRUE(taken[o.addr].insert(o.val).second);
            } else if (o.kind == OPK_RELEASE) {
                ASSERT_EQ(held.count(o.addr), 1u);
                ASSERT_EQ(o.val, held[o.addr] + 1);
                held.erase(o.addr);
            } else if (o.kind == OPK_ST) {
                ASSERT_FALSE(held.empty()) << "a store outside the operation's locks";
            }
        }
        EXPECT_TRUE(held.empty());
    }
    for (auto &[l, ks] : taken) EXPECT_EQ(*ks.rbegin() + 1, ks.size());
}

// A log record store precedes the in-place update of the same address in its transaction, with an
// order between them (stated directly on the op stream, without the parser above).
TEST(WlBroi, LogStoreThenOrderThenInPlace)
{
    for (const char *name : kLocal) {
        auto b = bbuild(name, 1, 0);
        ASSERT_EQ(b->rc, 0) << b->err;
        const persim_stream *s = prog_stream(b->p, &b->p->kernels[0], 0, 0);
        std::map<uint64_t, uint64_t> logged_in_epoch;   // address stored as a record's first word -> epoch
        uint64_t epoch = 0, in_place = 0;
        std::set<uint64_t> log_words;
        for (uint64_t i = s->begin; i < s->end; i++) {
            const persim_op &o = b->p->ops[i];
            if (o.kind == OPK_ORDER) { epoch++; continue; }
            if (o.kind == OPK_RELEASE) logged_in_epoch.clear();   // the next transaction
            if (o.kind != OPK_ST) continue;
            auto it = logged_in_epoch.find(o.addr);
            if (it != logged_in_epoch.end() && !log_words.count(o.addr)) {
                EXPECT_LT(it->second, epoch) << name << ": in-place store in the same epoch as its log record";
                in_place++;
            }
            if (o.val >= PERSIM_PM_BASE) { logged_in_epoch.emplace(o.val, epoch); }
            else log_words.insert(o.addr);
        }
        EXPECT_GT(in_place, b->w->small_size / 2) << name;
    }
}

// Undo records hold the value the word had before the transaction (and redo records the new one,
// checked in LogProtocolShape): one thread, so its stream order is the execution order.
TEST(WlBroi, UndoRecordsHoldTheOldValues)
{
    for (const char *name : kLocal) {
        if (is_redo(name)) continue;
        auto b = bbuild(name, 1, 0);
        ASSERT_EQ(b->rc, 0) << b->err;
        Img img(mem_clone(b->init));
        Chunks c = chunks(b->p, 0);
        ASSERT_EQ(c.ep.size() % 3, 0u);
        uint64_t checked = 0;
        for (size_t k = 0; k < c.ep.size(); k += 3) {
            const auto &rec = c.ep[k];
            for (size_t i = 0; i + 3 < rec.size(); i += 4) {
                ASSERT_EQ(mem_read_u64(img.get(), rec[i]->val), rec[i + 1]->val) << name << ": undo record " << i / 4;
                checked++;
            }
            for (size_t e = k; e < k + 3; e++)
                for (const persim_op *o : c.ep[e]) mem_write_u64(img.get(), o->addr, o->val);
        }
        EXPECT_GT(checked, 0u);
    }
}

// Crash consistency of the log protocol (wl_broi.h): one stream run alone (its stores in stream
// order), a crash after every epoch boundary of the first transactions with several subsets of the
// next epoch's stores persisted (none, the first, all but the last, every other one), then the
// recovery of wl_broi.h on the crash image: every word the transaction updates in place must hold
// its value from before the transaction, or, if the commit word reached PM, from after it.
namespace {
void crash_check(const char *name, const Built &b, uint32_t warp, bool redo, uint64_t max_tx)
{
    Chunks c = chunks(b.p, warp);
    Img cur(mem_clone(b.init));
    size_t k = 0;
    uint64_t tx = 0, crashes = 0;
    while (k < c.ep.size() && tx < max_tx) {
        // the epochs of this transaction
        const size_t n = c.ep[k].size() / 4;
        const uint64_t log = c.ep[k][0]->addr - 16;
        size_t end = k + 1 + (redo ? 1 : 0), inplace = 0;
        while (inplace < n) inplace += c.ep[end++].size();
        end++;   // commit / clear
        Img next(mem_clone(cur.get()));
        for (size_t e = k; e < end; e++)
            for (const persim_op *o : c.ep[e]) mem_write_u64(next.get(), o->addr, o->val);
        std::set<uint64_t> words;
        for (size_t i = 0; i < n; i++) words.insert(c.ep[k][4 * i]->val);
        for (size_t e = k; e < end; e++) {
            const auto &ep = c.ep[e];
            for (int variant = 0; variant < 4; variant++) {
                Img img(mem_clone(cur.get()));
                for (size_t f = k; f < e; f++)
                    for (const persim_op *o : c.ep[f]) mem_write_u64(img.get(), o->addr, o->val);
                for (size_t i = 0; i < ep.size(); i++) {
                    const bool keep = variant == 0 ? false : variant == 1 ? i == 0 : variant == 2 ? i + 1 < ep.size() : (i % 2) == 0;
                    if (keep) mem_write_u64(img.get(), ep[i]->addr, ep[i]->val);
                }
                // recovery
                const uint64_t commit = mem_read_u64(img.get(), log), applied = mem_read_u64(img.get(), log + 8);
                std::vector<std::pair<uint64_t, uint64_t>> recs;
                const uint64_t want_seq = redo ? commit : commit + 1;
                if (!redo || commit > applied)
                    for (uint64_t i = 0; i < BX_MAXW; i++) {
                        const uint64_t r = log + 16 + i * BX_REC, a = mem_read_u64(img.get(), r), v = mem_read_u64(img.get(), r + 8);
                        const uint64_t sq = mem_read_u64(img.get(), r + 16), ck = mem_read_u64(img.get(), r + 24);
                        if (sq == want_seq && ck == bx_check(a, v, sq)) recs.emplace_back(a, v);
                    }
                if (redo) for (auto &[a, v] : recs) mem_write_u64(img.get(), a, v);
                else for (auto it = recs.rbegin(); it != recs.rend(); ++it) mem_write_u64(img.get(), it->first, it->second);
                const bool committed = mem_read_u64(img.get(), log) == tx + 1;
                const mem_image *want = committed ? next.get() : cur.get();
                for (uint64_t a : words)
                    ASSERT_EQ(mem_read_u64(img.get(), a), mem_read_u64(want, a))
                        << name << " stream " << warp << ": transaction " << tx << ", crash in epoch " << e - k
                        << " (variant " << variant << "), " << (committed ? "committed" : "not committed") << ", word 0x"
                        << std::hex << a;
                crashes++;
            }
        }
        cur = std::move(next);
        k = end;
        tx++;
    }
    EXPECT_GT(crashes, 0u);
}
} // namespace

TEST(WlBroi, CrashRecovery)
{
    for (const char *name : kLocal) {
        auto b = bbuild(name, 1, 0);
        ASSERT_EQ(b->rc, 0) << b->err;
        crash_check(name, *b, 0, is_redo(name), 200);
    }
    for (const char *name : kHybrid) {   // a remote channel: the in-place words in several pwrites
        auto b = bbuild(name, 1, 1);
        ASSERT_EQ(b->rc, 0) << b->err;
        crash_check(name, *b, 1, is_redo(name), 200);
    }
}

// Client profiles: every write transaction is items x log pwrite (elem/8 + 2 stores), items x data
// pwrite (elem/8), [link (1)], commit (1); the write ratio of each channel is Table IV's.
TEST_P(BroiClient, RemoteEpochSizes)
{
    const std::string n = GetParam();
    struct Cfg { uint32_t items, elem, meta, wlo, whi; };
    std::map<std::string, Cfg> cfg = {
        { "broi-ycsb", { 1, 1024, 0, 50, 80 } },        { "broi-tpcc", { 3, 512, 1, 20, 40 } },
        { "broi-ctree", { 1, 64, 1, 100, 100 } },       { "broi-hashmap", { 1, 512, 1, 100, 100 } },
        { "broi-hashmap-e128", { 1, 128, 1, 100, 100 } }, { "broi-hashmap-e256", { 1, 256, 1, 100, 100 } },
        { "broi-hashmap-e512", { 1, 512, 1, 100, 100 } }, { "broi-hashmap-e1024", { 1, 1024, 1, 100, 100 } },
        { "broi-hashmap-e2048", { 1, 2048, 1, 100, 100 } }, { "broi-hashmap-e4096", { 1, 4096, 1, 100, 100 } },
        { "broi-memcached", { 1, 1024, 1, 5, 5 } },
    };
    ASSERT_EQ(cfg.count(n), 1u);
    const Cfg c = cfg[n];
    std::vector<size_t> pattern;
    for (uint32_t i = 0; i < c.items; i++) pattern.push_back(c.elem / 8 + 2);
    for (uint32_t i = 0; i < c.items; i++) pattern.push_back(c.elem / 8);
    if (c.meta) pattern.push_back(1);
    pattern.push_back(1);
    const uint32_t T = 1, R = 2;
    const uint64_t size = c.whi == c.wlo && c.wlo == 100 ? 40 : 2000;
    auto b = bbuild(GetParam(), T, R, 3, size);
    ASSERT_EQ(b->rc, 0) << b->err;
    uint64_t txs = 0;
    for (uint32_t r = 0; r < R; r++) {
        Chunks ch = chunks(b->p, T + r);
        ASSERT_TRUE(ch.tail.empty());
        ASSERT_EQ(ch.ep.size() % pattern.size(), 0u) << n;
        for (size_t k = 0; k < ch.ep.size(); k++) ASSERT_EQ(ch.ep[k].size(), pattern[k % pattern.size()]) << n << " epoch " << k;
        const persim_stream *s = prog_stream(b->p, &b->p->kernels[0], 0, T + r);
        uint64_t computes = 0;
        for (uint64_t i = s->begin; i < s->end; i++) computes += b->p->ops[i].kind == OPK_COMPUTE;
        txs += computes;
        const double wr = 100.0 * (double)(ch.ep.size() / pattern.size()) / (double)computes;
        const double want = c.wlo + (double)(c.whi - c.wlo) * r / (R - 1);
        EXPECT_NEAR(wr, want, c.wlo == 100 ? 0.0 : 6.0) << n << " channel " << r;
    }
    EXPECT_EQ(txs, size);
}

// Local workloads with num_remote > 0: the remote streams exist and are empty.
TEST(WlBroi, LocalWithRemoteChannelsLeavesThemEmpty)
{
    for (const char *name : kLocal) {
        auto a = bbuild(name, 2, 0), b = bbuild(name, 2, 2);
        ASSERT_EQ(b->rc, 0) << b->err;
        EXPECT_EQ(b->p->kernels[0].warps_per_block, 4u);
        EXPECT_EQ(a->p->nops, b->p->nops);
    }
}

TEST_P(Broi, DefaultSizeRunsAndVerifies)
{
    const persim_workload *w = wl_find(GetParam());
    ASSERT_NE(w, nullptr);
    auto b = bbuild(GetParam(), 4, is_local(GetParam()) ? 0 : 2, 3, w->default_size);
    ASSERT_EQ(b->rc, 0) << b->err;
    std::string e;
    Img fin = run_prog(b->p, b->init, kMaxSteps, &e);
    ASSERT_TRUE(fin) << e;
    EXPECT_EQ(verify(*b, fin.get()), "ok");
}

namespace {
std::string pname(const ::testing::TestParamInfo<const char *> &i) { return tname(i.param); }
std::vector<const char *> remote_names()
{
    std::vector<const char *> v(std::begin(kHybrid), std::end(kHybrid));
    v.insert(v.end(), std::begin(kRemote), std::end(kRemote));
    return v;
}
std::vector<const char *> logged_names()
{
    std::vector<const char *> v(std::begin(kLocal), std::end(kLocal));
    v.insert(v.end(), std::begin(kHybrid), std::end(kHybrid));
    return v;
}
} // namespace
INSTANTIATE_TEST_SUITE_P(All, Broi, ::testing::ValuesIn(all_names()), pname);
INSTANTIATE_TEST_SUITE_P(All, BroiRemote, ::testing::ValuesIn(remote_names()), pname);
INSTANTIATE_TEST_SUITE_P(All, BroiLogged, ::testing::ValuesIn(logged_names()), pname);
INSTANTIATE_TEST_SUITE_P(All, BroiClient, ::testing::ValuesIn(kRemote), pname);

namespace {
std::vector<std::tuple<const char *, uint32_t, uint32_t>> shapes()
{
    std::vector<std::tuple<const char *, uint32_t, uint32_t>> v;
    for (const char *n : all_names())
        for (uint32_t T : { 1u, 4u, 8u })
            for (uint32_t R : { 0u, 2u })
                if (R > 0 || is_local(n)) v.emplace_back(n, T, R);
    return v;
}
} // namespace

INSTANTIATE_TEST_SUITE_P(All, BroiShape, ::testing::ValuesIn(shapes()),
                         [](const ::testing::TestParamInfo<std::tuple<const char *, uint32_t, uint32_t>> &i) {
                             return tname(std::get<0>(i.param)) + "_T" + std::to_string(std::get<1>(i.param)) + "_R" +
                                    std::to_string(std::get<2>(i.param));
                         });
