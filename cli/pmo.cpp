#include "pmo.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <deque>
#include <unordered_map>
extern "C" {
#include "func_exec.h"
}

namespace persim {

namespace {

constexpr uint32_t kNone = UINT32_MAX;

uint64_t mask_val(uint64_t v, uint32_t elem) { return elem >= 8 ? v : (v & ((1ull << (8 * elem)) - 1)); }

struct Builder {
    const persim_prog *p;
    const OrderModel &m;
    uint64_t pm_base;
    PmoGraph &g;
    std::vector<uint32_t> scratch;

    struct Warp {
        std::vector<uint32_t> pend;   // STORE nodes since the last fence
        int32_t ord_s = -1;           // ordered before this warp's later persists (fences, scoped acquires)
        int32_t ord_d = -1;           // durable before this warp's next action (durability points, causality)
        uint32_t nsync_blk = 0, nsync_dev = 0;
    };
    struct Barrier { uint32_t inst = 0; int32_t acc = -1; };
    struct Msg { int32_t s, d; uint8_t scope; uint32_t kernel, block; uint64_t val; uint32_t op; };

    int64_t cur_k = -1;
    const persim_kernel *K = nullptr;
    int32_t kacc = -1;                // everything of the kernels that ended
    std::vector<Warp> ws;
    std::vector<Barrier> blk_bar;
    Barrier dev_bar;
    std::unordered_map<uint64_t, Msg> flags;

    Builder(const persim_prog *p_, const OrderModel &m_, uint64_t pm, PmoGraph &g_) : p(p_), m(m_), pm_base(pm), g(g_) {}

    // New node with the given predecessors (-1 skipped, duplicates removed). A join with a single
    // predecessor is that predecessor; with none, -1.
    // An ACQUIRE node is kept even with one predecessor (`via`, the release's side), so that
    // explanations show which release an order came through.
    int32_t node(PmoGraph::Kind kind, uint32_t op, const std::vector<int32_t> &preds, uint32_t aux = kNone,
                 int32_t via = -1)
    {
        scratch.clear();
        for (int32_t q : preds)
            if (q >= 0) scratch.push_back((uint32_t)q);
        std::sort(scratch.begin(), scratch.end());
        scratch.erase(std::unique(scratch.begin(), scratch.end()), scratch.end());
        if (kind != PmoGraph::STORE) {
            if (scratch.empty()) return -1;
            if (scratch.size() == 1 && !(kind == PmoGraph::ACQUIRE && via >= 0 && (int32_t)scratch[0] == via))
                return (int32_t)scratch[0];
        }
        int32_t id = (int32_t)g.kind.size();
        g.kind.push_back(kind);
        g.op.push_back(op);
        g.aux.push_back(aux);
        g.via.push_back(via);
        g.pred.insert(g.pred.end(), scratch.begin(), scratch.end());
        g.off.push_back((uint32_t)g.pred.size());
        return id;
    }

    void store(Warp &w, uint32_t idx)
    {
        int32_t n = node(PmoGraph::STORE, idx, {w.ord_s, w.ord_d});
        g.store_node[idx] = n;
        w.pend.push_back((uint32_t)n);
    }

    void fence(Warp &w, uint32_t idx)
    {
        if (w.pend.empty()) return;
        std::vector<int32_t> preds(w.pend.begin(), w.pend.end());
        preds.push_back(w.ord_s);
        w.ord_s = node(PmoGraph::FENCE, idx, preds);
        w.pend.clear();
    }

    void durable(Warp &w, uint32_t idx)
    {
        fence(w, idx);
        w.ord_d = node(PmoGraph::DURABLE, idx, {w.ord_d, w.ord_s});
        if (w.ord_d >= 0) g.dpoints.push_back(PmoGraph::DPoint{(uint32_t)w.ord_d, idx, -1});
    }

    void finish_kernel()
    {
        if (cur_k < 0) return;
        std::vector<int32_t> preds{kacc};
        for (Warp &w : ws) {
            preds.push_back(w.ord_s);
            preds.push_back(w.ord_d);
            for (uint32_t q : w.pend) preds.push_back((int32_t)q);
        }
        kacc = node(PmoGraph::KERNEL, (uint32_t)cur_k, preds);
        if (kacc >= 0) g.dpoints.push_back(PmoGraph::DPoint{(uint32_t)kacc, kNone, (int32_t)cur_k});
    }

    void start_kernel(uint32_t k)
    {
        finish_kernel();
        cur_k = k;
        K = &p->kernels[k];
        ws.assign((size_t)K->nblocks * K->warps_per_block, Warp{});
        for (Warp &w : ws) w.ord_d = kacc;
        blk_bar.assign(K->nblocks, Barrier{});
        dev_bar = Barrier{};
    }

    // Departure from an execution barrier: everything made durable before any member arrived.
    void sync(Warp &w, uint32_t idx, uint32_t b, bool device)
    {
        Barrier &x = device ? dev_bar : blk_bar[b];
        uint32_t n = device ? ++w.nsync_dev : ++w.nsync_blk;
        if (n > x.inst) {
            x.inst = n;
            std::vector<int32_t> preds;
            size_t lo = device ? 0 : (size_t)b * K->warps_per_block;
            size_t hi = device ? ws.size() : lo + K->warps_per_block;
            for (size_t i = lo; i < hi; ++i) preds.push_back(ws[i].ord_d);
            x.acc = node(PmoGraph::SYNC, idx, preds);
        }
        w.ord_d = node(PmoGraph::SYNC, idx, {w.ord_d, x.acc});
    }

    static bool scope_ok(uint8_t rel, uint8_t acq, const Msg &msg, uint32_t k, uint32_t b)
    {
        if (rel == SCOPE_NONE || acq == SCOPE_NONE) return false;
        if (msg.kernel != k) return false;
        if (rel <= SCOPE_BLOCK || acq <= SCOPE_BLOCK) return msg.block == b;
        return true;
    }

    void op(const persim_op *o, uint32_t k, uint32_t b, uint32_t wi)
    {
        if ((int64_t)k != cur_k) start_kernel(k);
        const uint32_t idx = (uint32_t)(o - p->ops);
        Warp &w = ws[(size_t)b * K->warps_per_block + wi];
        switch (o->kind) {
        case OPK_ST:
            if (op_writes_pm(*o, pm_base)) store(w, idx);
            return;
        case OPK_LD:
        case OPK_COMPUTE:
        case OPK_REQUIRE:
            return;
        default:
            break;
        }
        OrderAct acts[kMaxOrderActs];
        int n = m.acts(*o, acts);
        uint8_t rel_scope = SCOPE_NONE;
        const Msg *msg = nullptr;
        for (int i = 0; i < n; ++i) {
            switch (acts[i]) {
            case OrderAct::FENCE: fence(w, idx); break;
            case OrderAct::DURABLE: durable(w, idx); break;
            case OrderAct::RELEASE_BLOCK: fence(w, idx); rel_scope = SCOPE_BLOCK; break;
            case OrderAct::RELEASE_DEVICE: durable(w, idx); rel_scope = SCOPE_DEVICE; break;
            case OrderAct::ACQUIRE_BLOCK:
            case OrderAct::ACQUIRE_DEVICE: {
                uint8_t acq = acts[i] == OrderAct::ACQUIRE_BLOCK ? SCOPE_BLOCK : SCOPE_DEVICE;
                if (msg && scope_ok(msg->scope, acq, *msg, k, b))
                    w.ord_s = node(PmoGraph::ACQUIRE, idx, {w.ord_s, msg->s}, msg->op, msg->s);
                fence(w, idx);
                break;
            }
            case OrderAct::FLAG_STORE:
                flags[o->addr] = Msg{w.ord_s, w.ord_d, rel_scope, k, b, mask_val(o->val, o->elem), idx};
                if (op_writes_pm(*o, pm_base)) store(w, idx);
                break;
            case OrderAct::FLAG_WAIT: {
                auto it = flags.find(o->addr);
                if (it != flags.end() && it->second.kernel == k && it->second.val == mask_val(o->val, o->elem)) {
                    msg = &it->second;
                    w.ord_d = node(PmoGraph::ACQUIRE, idx, {w.ord_d, msg->d}, msg->op, msg->d);
                }
                break;
            }
            case OrderAct::SYNC: sync(w, idx, b, o->scope >= SCOPE_DEVICE); break;
            }
        }
    }

    static void cb(void *ctx, const persim_op *o, uint32_t k, uint32_t b, uint32_t w)
    {
        static_cast<Builder *>(ctx)->op(o, k, b, w);
    }
};

} // namespace

bool op_writes_pm(const persim_op &o, uint64_t pm_base)
{
    if (o.kind == OPK_RELEASE) return o.addr + o.elem > pm_base;
    if (o.kind != OPK_ST || o.nlanes == 0) return false;
    uint64_t last = o.addr + (uint64_t)(o.nlanes - 1) * o.stride + o.elem;
    return last > pm_base;
}

bool build_pmo(const persim_prog *p, const mem_image *init, const OrderModel &model, uint64_t pm_base,
               PmoGraph &g, std::string &err, bool validated)
{
    g = PmoGraph{};
    g.pm_base = pm_base;
    g.off.push_back(0);
    g.store_node.assign(p->nops, -1);
    g.op_stream.assign(p->nops, kNone);
    g.streams.assign(p->nstreams, PmoGraph::StreamInfo{0, 0, 0});
    for (uint32_t k = 0; k < p->nkernels; ++k) {
        const persim_kernel &K = p->kernels[k];
        for (uint32_t b = 0; b < K.nblocks; ++b)
            for (uint32_t w = 0; w < K.warps_per_block; ++w) {
                uint64_t si = K.first_stream + (uint64_t)b * K.warps_per_block + w;
                g.streams[si] = PmoGraph::StreamInfo{k, b, w};
                for (uint64_t o = p->streams[si].begin; o < p->streams[si].end; ++o) g.op_stream[o] = (uint32_t)si;
            }
    }
    for (uint64_t i = 0; i < p->nops; ++i)
        if (p->ops[i].kind == OPK_REQUIRE) g.requires_.push_back((uint32_t)i);
    Builder b(p, model, pm_base, g);
    mem_image *img = mem_clone(init);
    char e[1024] = {0};
    int rc = validated ? func_exec_cb_run_valid(p, img, 0, &Builder::cb, &b, e, sizeof e)
                       : func_exec_cb_run(p, img, 0, &Builder::cb, &b, e, sizeof e);
    mem_free(img);
    if (rc != 0) {
        err = std::string("functional execution of the program failed: ") + e;
        return false;
    }
    b.finish_kernel();
    return true;
}

bool PmoGraph::ordered(int32_t a, int32_t b, std::vector<uint32_t> &mark, uint32_t &epoch,
                       std::vector<uint32_t> *path) const
{
    if (a < 0 || b < 0) return false;
    if (a == b) {
        if (path) *path = {(uint32_t)a};
        return true;
    }
    if (a > b) return false;
    if (mark.size() < nodes()) mark.assign(nodes(), 0);
    if (++epoch == 0) {
        std::fill(mark.begin(), mark.end(), 0);
        epoch = 1;
    }
    std::unordered_map<uint32_t, uint32_t> parent;
    std::vector<uint32_t> stack{(uint32_t)b};
    mark[(size_t)b] = epoch;
    while (!stack.empty()) {
        uint32_t n = stack.back();
        stack.pop_back();
        for (uint32_t i = off[n]; i < off[n + 1]; ++i) {
            uint32_t q = pred[i];
            if ((int32_t)q < a || mark[q] == epoch) continue;
            mark[q] = epoch;
            if (path) parent[q] = n;
            if ((int32_t)q == a) {
                if (path) {
                    path->clear();
                    for (uint32_t x = q;; x = parent[x]) {
                        path->push_back(x);
                        if ((int32_t)x == b) break;
                    }
                }
                return true;
            }
            stack.push_back(q);
        }
    }
    return false;
}

std::string describe_op(const persim_prog *p, const PmoGraph &g, uint32_t i)
{
    if (i >= p->nops) return "op ?";
    const persim_op &o = p->ops[i];
    char buf[256];
    const PmoGraph::StreamInfo *s = i < g.op_stream.size() && g.op_stream[i] < g.streams.size() ? &g.streams[g.op_stream[i]] : nullptr;
    int n = std::snprintf(buf, sizeof buf, "op %u (", o.id);
    if (s) n += std::snprintf(buf + n, sizeof buf - n, "kernel %u block %u warp %u: ", s->kernel, s->block, s->warp);
    if (o.kind == OPK_ST)
        std::snprintf(buf + n, sizeof buf - n, "st 0x%" PRIx64 " %ux%u)", o.addr, (unsigned)o.elem, (unsigned)o.nlanes);
    else if (o.kind == OPK_RELEASE || o.kind == OPK_ACQUIRE)
        std::snprintf(buf + n, sizeof buf - n, "%s 0x%" PRIx64 " = %" PRIu64 " %s)", op_kind_name(o.kind), o.addr, o.val,
                      scope_name(o.scope));
    else
        std::snprintf(buf + n, sizeof buf - n, "%s)", op_kind_name(o.kind));
    return buf;
}

} // namespace persim
