/* persim workload "cpu-btree": a persistent B+tree (8 keys per node, top-down preemptive splits,
 * linked leaves) shared by all CPU threads under one ticket-ordered tree lock, like the lock-based
 * B+tree examples of persistent-memory libraries (docs/workloads-cpu.md).
 *
 * PM layout: header line {root u64, nodes u64, keys u64}; the tree lock (4 bytes, own line); per
 * thread t a line {lookup hits u64, sum of values found u64}; a node pool of size/2 + 16 nodes of
 * 256 bytes: {nkeys u64, leaf u64, key[8] u64, ptr[9] u64}; in a leaf ptr[j] is the value of
 * key[j] and ptr[8] the next leaf; in an inner node ptr[j] are the children. Slots past nkeys are
 * zero (a split clears the half it moves out). The tree starts as one empty leaf (node 0).
 * size = operations in total; operation i by thread i % T on key 1 + mix % size: 80% insert (or
 * update) of the value mix(seed, i) | 1, 20% lookup:
 *   mark loop; compute 8; mark func; acquire(tree lock, k); ld root
 *   full root: split it under a new root (st the new node, st root)
 *   descent, per level: mark loop; ld nkeys, leaf; ld keys until the first greater one; ld ptr;
 *     a full child is split first (ld the moved half, st it into a new node, st zeros over the
 *     moved-out slots, shift the parent's keys/ptrs: ld + st each, st separator, child, nkeys)
 *   leaf: update (st value) or shift the greater keys/values right (ld + st) and st key, value,
 *     nkeys, header keys + 1; a lookup loads the value
 *   release(tree lock, k + 1); compute 4; mark ret; lookup hit: ld + st the thread's hit line
 * verify is independent of the tree code: the expected key -> value map comes from replaying the
 * operations on a plain array indexed by key; the image's tree is walked and checked for B+tree
 * structure (key order, separators = the smallest key of their right subtree, node fill, all leaves at one depth, zero slots past
 * nkeys, the leaf chain), for exactly the expected keys and values, and for the header, lock and
 * per-thread words. */
#include <stdlib.h>
#include <string.h>

#include "wl_cpu.h"

#define BT_NAME "cpu-btree"
#define BT_M    8u                  /* keys per node */
#define BT_NODE 256u
#define BT_MAX  (1ull << 22)
#define O_NK    0u
#define O_LEAF  8u
#define O_KEY   16u
#define O_PTR   (16u + 8u * BT_M)
#define KEY(n, j) ((n) + O_KEY + 8u * (uint64_t)(j))
#define PTR(n, j) ((n) + O_PTR + 8u * (uint64_t)(j))

typedef struct bt_ctx {
    uint32_t T;
    uint64_t n, seed, K, pool_n;
    uint64_t hdr, lock, thr, pool;
} bt_ctx;

static void bt_free(void *c) { free(c); }
static int bt_is_ins(uint64_t seed, uint64_t i) { return cpu_mix(seed ^ 0x42545245ull, i) % 100 < 80; }
static uint64_t bt_key(const bt_ctx *c, uint64_t i) { return 1 + cpu_mix(c->seed ^ 0x4B4559ull, i) % c->K; }
static uint64_t bt_val(uint64_t seed, uint64_t i) { return cpu_mix(seed, i) | 1; }

typedef struct bt_gen { cpu_gen *g; uint32_t t; const bt_ctx *c; int full; } bt_gen;

static uint64_t bt_alloc(bt_gen *b)
{
    const uint64_t k = cpu_ld(b->g, b->t, b->c->hdr + 8, 8);
    if (k >= b->c->pool_n) { b->full = 1; return b->c->pool; }
    cpu_st(b->g, b->t, b->c->hdr + 8, 8, k + 1);
    return b->c->pool + k * BT_NODE;
}

/* Splits the full child (ptr[i] of parent, which is not full) into child + a new right node. */
static void bt_split(bt_gen *b, uint64_t parent, uint32_t i, uint64_t child)
{
    cpu_gen *g = b->g;
    const uint32_t t = b->t, H = BT_M / 2;
    const uint64_t nn = bt_alloc(b);
    if (b->full) return;
    const int leaf = cpu_ld(g, t, child + O_LEAF, 8) != 0;
    uint64_t sep;
    cpu_compute(g, t, 6);
    if (leaf) {
        sep = cpu_ld(g, t, KEY(child, H), 8);
        for (uint32_t j = H; j < BT_M; j++) {
            cpu_st(g, t, KEY(nn, j - H), 8, cpu_ld(g, t, KEY(child, j), 8));
            cpu_st(g, t, PTR(nn, j - H), 8, cpu_ld(g, t, PTR(child, j), 8));
            cpu_st(g, t, KEY(child, j), 8, 0);
            cpu_st(g, t, PTR(child, j), 8, 0);
        }
        cpu_st(g, t, PTR(nn, BT_M), 8, cpu_ld(g, t, PTR(child, BT_M), 8));   /* leaf chain */
        cpu_st(g, t, PTR(child, BT_M), 8, nn);
        cpu_st(g, t, nn + O_LEAF, 8, 1);
        cpu_st(g, t, nn + O_NK, 8, BT_M - H);
    } else {
        sep = cpu_ld(g, t, KEY(child, H), 8);
        cpu_st(g, t, KEY(child, H), 8, 0);
        for (uint32_t j = H + 1; j < BT_M; j++) {
            cpu_st(g, t, KEY(nn, j - H - 1), 8, cpu_ld(g, t, KEY(child, j), 8));
            cpu_st(g, t, KEY(child, j), 8, 0);
        }
        for (uint32_t j = H + 1; j <= BT_M; j++) {
            cpu_st(g, t, PTR(nn, j - H - 1), 8, cpu_ld(g, t, PTR(child, j), 8));
            cpu_st(g, t, PTR(child, j), 8, 0);
        }
        cpu_st(g, t, nn + O_NK, 8, BT_M - H - 1);
    }
    cpu_st(g, t, child + O_NK, 8, H);
    const uint32_t pn = (uint32_t)cpu_ld(g, t, parent + O_NK, 8);
    for (uint32_t j = pn; j > i; j--) {                  /* make room at key i, ptr i + 1 */
        cpu_st(g, t, KEY(parent, j), 8, cpu_ld(g, t, KEY(parent, j - 1), 8));
        cpu_st(g, t, PTR(parent, j + 1), 8, cpu_ld(g, t, PTR(parent, j), 8));
    }
    cpu_st(g, t, KEY(parent, i), 8, sep);
    cpu_st(g, t, PTR(parent, i + 1), 8, nn);
    cpu_st(g, t, parent + O_NK, 8, pn + 1);
}

/* One operation inside the tree lock. Returns 1 for a lookup hit (*found = the value). */
static int bt_op(bt_gen *b, uint64_t key, int ins, uint64_t val, uint64_t *found)
{
    cpu_gen *g = b->g;
    const uint32_t t = b->t;
    const bt_ctx *c = b->c;
    uint64_t n = cpu_ld(g, t, c->hdr, 8);
    if (ins && cpu_ld(g, t, n + O_NK, 8) == BT_M) {
        const uint64_t r = bt_alloc(b);
        if (b->full) return 0;
        cpu_st(g, t, PTR(r, 0), 8, n);
        bt_split(b, r, 0, n);
        cpu_st(g, t, c->hdr, 8, r);
        n = r;
    }
    for (;;) {
        if (b->full) return 0;
        cpu_mark(g, t, MARK_LOOP);
        const uint32_t nk = (uint32_t)cpu_ld(g, t, n + O_NK, 8);
        const int leaf = cpu_ld(g, t, n + O_LEAF, 8) != 0;
        uint32_t j = 0;
        uint64_t kj = 0;
        if (leaf) {
            while (j < nk && (kj = cpu_ld(g, t, KEY(n, j), 8)) < key) j++;
            cpu_compute(g, t, 2);
            const int hit = j < nk && kj == key;
            if (!ins) {
                if (hit) *found = cpu_ld(g, t, PTR(n, j), 8);
                return hit;
            }
            if (hit) {
                cpu_st(g, t, PTR(n, j), 8, val);
                return 0;
            }
            for (uint32_t m = nk; m > j; m--) {
                cpu_st(g, t, KEY(n, m), 8, cpu_ld(g, t, KEY(n, m - 1), 8));
                cpu_st(g, t, PTR(n, m), 8, cpu_ld(g, t, PTR(n, m - 1), 8));
            }
            cpu_st(g, t, KEY(n, j), 8, key);
            cpu_st(g, t, PTR(n, j), 8, val);
            cpu_st(g, t, n + O_NK, 8, nk + 1);
            cpu_st(g, t, c->hdr + 16, 8, cpu_ld(g, t, c->hdr + 16, 8) + 1);
            return 0;
        }
        while (j < nk && cpu_ld(g, t, KEY(n, j), 8) <= key) j++;
        cpu_compute(g, t, 2);
        uint64_t ch = cpu_ld(g, t, PTR(n, j), 8);
        if (ins && cpu_ld(g, t, ch + O_NK, 8) == BT_M) {
            bt_split(b, n, j, ch);
            if (b->full) return 0;
            if (key >= cpu_ld(g, t, KEY(n, j), 8)) ch = cpu_ld(g, t, PTR(n, j + 1), 8);
        }
        n = ch;
    }
}

static int bt_build(const wl_params *prm, persim_prog *p, mem_image *init, void **ctxp, char *err, size_t errlen)
{
    *ctxp = NULL;
    if (prm->size < 1 || prm->size > BT_MAX)
        return wl_err(err, errlen, BT_NAME ": size %llu out of range (operations, 1..%llu)", (unsigned long long)prm->size, BT_MAX);
    bt_ctx *c = (bt_ctx *)calloc(1, sizeof *c);
    if (!c) return wl_err(err, errlen, BT_NAME ": out of memory");
    c->n = prm->size;
    c->seed = prm->seed;
    c->K = prm->size;
    c->pool_n = prm->size / 2 + 16;
    wl_alloc al;
    wl_alloc_init(&al, prm);
    c->hdr = wl_alloc_pm(&al, 24);
    c->lock = wl_alloc_pm(&al, 4);
    c->thr = wl_alloc_pm(&al, (uint64_t)(prm->num_threads ? prm->num_threads : 1) * 128);
    c->pool = wl_alloc_pm(&al, c->pool_n * BT_NODE);
    mem_write_u64(init, c->hdr, c->pool);          /* root: node 0, an empty leaf */
    mem_write_u64(init, c->hdr + 8, 1);
    mem_write_u64(init, c->pool + O_LEAF, 1);
    cpu_gen g;
    if (cpu_gen_init(&g, BT_NAME, prm, init, err, errlen)) { free(c); return -1; }
    const uint32_t T = c->T = g.nthreads;
    for (uint64_t i = 0; i < c->n; i++) {
        const uint32_t t = (uint32_t)(i % T);
        bt_gen b = { &g, t, c, 0 };
        uint64_t found = 0;
        cpu_mark(&g, t, MARK_LOOP);
        cpu_compute(&g, t, 8);
        cpu_mark(&g, t, MARK_FUNC);
        cpu_lock(&g, t, c->lock);
        const int hit = bt_op(&b, bt_key(c, i), bt_is_ins(c->seed, i), bt_val(c->seed, i), &found);
        if (b.full) {
            cpu_gen_free(&g);
            free(c);
            return wl_err(err, errlen, BT_NAME ": node pool exhausted (internal error)");
        }
        cpu_unlock(&g, t, c->lock);
        cpu_compute(&g, t, 4);
        cpu_mark(&g, t, MARK_RET);
        if (hit) {
            const uint64_t tl = c->thr + (uint64_t)t * 128;
            cpu_st(&g, t, tl, 8, cpu_ld(&g, t, tl, 8) + 1);
            cpu_st(&g, t, tl + 8, 8, cpu_ld(&g, t, tl + 8, 8) + found);
        }
    }
    int rc = cpu_gen_emit(&g, p, "main", err, errlen);
    cpu_gen_free(&g);
    if (rc) { free(c); return -1; }
    *ctxp = c;
    return 0;
}

/* ---- verify: walk the image's tree ---- */
typedef struct bt_walk {
    const bt_ctx *c;
    const mem_image *img;
    const uint8_t *present;
    const uint64_t *val;
    uint64_t nodes, keys, next_key;   /* next_key: the smallest expected key not yet seen */
    uint64_t prev_leaf;               /* the last leaf visited (its ptr[M] must be the next one) */
    int leaf_depth;
    char *msg; size_t msglen;
} bt_walk;

static uint64_t bt_next_present(const bt_walk *w, uint64_t from)
{
    while (from <= w->c->K && !w->present[from]) from++;
    return from;
}

/* Checks the subtree at n (keys in [lo, hi)); *min receives its smallest key. */
static int bt_node(bt_walk *w, uint64_t n, uint64_t lo, uint64_t hi, int depth, uint64_t *min)
{
    const bt_ctx *c = w->c;
    if (n < c->pool || n >= c->pool + c->pool_n * BT_NODE || (n - c->pool) % BT_NODE)
        return wl_err(w->msg, w->msglen, BT_NAME ": pointer 0x%llx (depth %d) is not a node", (unsigned long long)n, depth);
    if (++w->nodes > c->pool_n) return wl_err(w->msg, w->msglen, BT_NAME ": more nodes reached than the pool holds (a cycle)");
    const uint64_t nk = mem_read_u64(w->img, n + O_NK), leaf = mem_read_u64(w->img, n + O_LEAF);
    const unsigned long long id = (unsigned long long)((n - c->pool) / BT_NODE);
    if (leaf > 1) return wl_err(w->msg, w->msglen, BT_NAME ": node %llu leaf flag %llu", id, (unsigned long long)leaf);
    if (nk > BT_M || (depth > 0 && nk < (leaf ? BT_M / 2 : BT_M / 2 - 1)) || (!leaf && nk == 0))
        return wl_err(w->msg, w->msglen, BT_NAME ": node %llu has %llu keys", id, (unsigned long long)nk);
    uint64_t k[BT_M], ptr[BT_M + 1];
    for (uint32_t j = 0; j < BT_M; j++) k[j] = mem_read_u64(w->img, KEY(n, j));
    for (uint32_t j = 0; j <= BT_M; j++) ptr[j] = mem_read_u64(w->img, PTR(n, j));
    for (uint32_t j = 0; j < BT_M; j++) {
        if (j >= nk && k[j]) return wl_err(w->msg, w->msglen, BT_NAME ": node %llu key slot %u past nkeys %llu is not zero", id, j, (unsigned long long)nk);
        if (j < nk && (k[j] < lo || k[j] >= hi || (j && k[j] <= k[j - 1])))
            return wl_err(w->msg, w->msglen, BT_NAME ": node %llu key %u = %llu out of order or outside [%llu, %llu)", id, j,
                          (unsigned long long)k[j], (unsigned long long)lo, (unsigned long long)hi);
    }
    if (leaf) {
        if (w->leaf_depth < 0) w->leaf_depth = depth;
        if (depth != w->leaf_depth) return wl_err(w->msg, w->msglen, BT_NAME ": leaf %llu at depth %d, others at %d", id, depth, w->leaf_depth);
        if (w->prev_leaf && mem_read_u64(w->img, PTR(w->prev_leaf, BT_M)) != n)
            return wl_err(w->msg, w->msglen, BT_NAME ": leaf chain: the leaf before leaf %llu does not link to it", id);
        w->prev_leaf = n;
        *min = k[0];
        for (uint32_t j = 0; j < BT_M; j++) {
            if (j >= nk) {
                if (ptr[j]) return wl_err(w->msg, w->msglen, BT_NAME ": leaf %llu value slot %u past nkeys is not zero", id, j);
                continue;
            }
            if (k[j] != w->next_key)
                return wl_err(w->msg, w->msglen, BT_NAME ": leaf %llu holds key %llu where key %llu was expected%s", id,
                              (unsigned long long)k[j], (unsigned long long)w->next_key, w->next_key > c->K ? " (none)" : "");
            if (ptr[j] != w->val[k[j]])
                return wl_err(w->msg, w->msglen, BT_NAME ": key %llu value 0x%llx, expected 0x%llx", (unsigned long long)k[j],
                              (unsigned long long)ptr[j], (unsigned long long)w->val[k[j]]);
            w->keys++;
            w->next_key = bt_next_present(w, k[j] + 1);
        }
        return 0;
    }
    for (uint32_t j = 0; j <= BT_M; j++) {
        if (j > nk) {
            if (ptr[j]) return wl_err(w->msg, w->msglen, BT_NAME ": node %llu child slot %u past nkeys is not zero", id, j);
            continue;
        }
        uint64_t cmin = 0;
        if (bt_node(w, ptr[j], j ? k[j - 1] : lo, j < nk ? k[j] : hi, depth + 1, &cmin)) return -1;
        if (j == 0) *min = cmin;
        else if (cmin != k[j - 1])   /* insert-only: a separator is the smallest key of its right subtree */
            return wl_err(w->msg, w->msglen, BT_NAME ": node %llu separator %u = %llu, but its right subtree starts at %llu",
                          id, j - 1, (unsigned long long)k[j - 1], (unsigned long long)cmin);
    }
    return 0;
}

static int bt_verify(const void *vc, const mem_image *img, char *msg, size_t msglen)
{
    const bt_ctx *c = (const bt_ctx *)vc;
    uint8_t *present = (uint8_t *)calloc(c->K + 2, 1);
    uint64_t *val = (uint64_t *)calloc(c->K + 2, 8), *hits = (uint64_t *)calloc(c->T, 8), *sum = (uint64_t *)calloc(c->T, 8);
    int rc = 0;
    if (!present || !val || !hits || !sum) { rc = wl_err(msg, msglen, BT_NAME ": out of memory"); goto out; }
    uint64_t nkeys = 0;
    for (uint64_t i = 0; i < c->n; i++) {          /* the reference: a map key -> value */
        const uint64_t key = bt_key(c, i);
        const uint32_t t = (uint32_t)(i % c->T);
        if (bt_is_ins(c->seed, i)) { nkeys += !present[key]; present[key] = 1; val[key] = bt_val(c->seed, i); }
        else if (present[key]) { hits[t]++; sum[t] += val[key]; }
    }
    bt_walk w = { c, img, present, val, 0, 0, 0, 0, -1, msg, msglen };
    w.next_key = bt_next_present(&w, 1);
    uint64_t x;
    if ((rc = bt_node(&w, mem_read_u64(img, c->hdr), 0, UINT64_MAX, 0, &x))) goto out;
    if (w.keys != nkeys)
        rc = wl_err(msg, msglen, BT_NAME ": the tree holds %llu keys, expected %llu (first missing: %llu)", (unsigned long long)w.keys,
                    (unsigned long long)nkeys, (unsigned long long)w.next_key);
    else if (mem_read_u64(img, PTR(w.prev_leaf, BT_M)) != 0)
        rc = wl_err(msg, msglen, BT_NAME ": the last leaf links to 0x%llx", (unsigned long long)mem_read_u64(img, PTR(w.prev_leaf, BT_M)));
    else if ((x = mem_read_u64(img, c->hdr + 8)) != w.nodes)
        rc = wl_err(msg, msglen, BT_NAME ": header node count %llu, %llu nodes in the tree", (unsigned long long)x, (unsigned long long)w.nodes);
    else if ((x = mem_read_u64(img, c->hdr + 16)) != nkeys)
        rc = wl_err(msg, msglen, BT_NAME ": header key count %llu, expected %llu", (unsigned long long)x, (unsigned long long)nkeys);
    else if ((x = mem_read_u32(img, c->lock)) != c->n)
        rc = wl_err(msg, msglen, BT_NAME ": tree lock word %llu, expected %llu", (unsigned long long)x, (unsigned long long)c->n);
    for (uint32_t t = 0; t < c->T && !rc; t++) {
        const uint64_t h = mem_read_u64(img, c->thr + (uint64_t)t * 128), s = mem_read_u64(img, c->thr + (uint64_t)t * 128 + 8);
        if (h != hits[t] || s != sum[t])
            rc = wl_err(msg, msglen, BT_NAME ": thread %u lookup hits %llu / value sum 0x%llx, expected %llu / 0x%llx", t,
                        (unsigned long long)h, (unsigned long long)s, (unsigned long long)hits[t], (unsigned long long)sum[t]);
    }
    /* nodes never allocated stay zero */
    for (uint64_t n = w.nodes; n < c->pool_n && !rc; n++) {
        static const uint8_t zero[BT_NODE];
        uint8_t buf[BT_NODE];
        mem_read(img, c->pool + n * BT_NODE, buf, BT_NODE);
        if (memcmp(buf, zero, BT_NODE)) rc = wl_err(msg, msglen, BT_NAME ": unallocated node %llu is not zero", (unsigned long long)n);
    }
out:
    free(present); free(val); free(hits); free(sum);
    return rc;
}

const persim_workload wl_cpu_btree_workload = {
    .name = BT_NAME,
    .desc = "CPU: persistent B+tree (8 keys/node, preemptive splits, linked leaves) under one ticket-ordered tree lock",
    .size_desc = "operations in total (80% insert-or-update, 20% lookup; keys 1..size)",
    .pmo = "system acquire/release (ticket lock)",
    .recovery = "native",
    .default_size = 4000,
    .small_size = 400,
    .build = bt_build,
    .verify = bt_verify,
    .free_ctx = bt_free,
};
PERSIM_WORKLOAD(wl_cpu_btree_workload, WL_CPU, 40);
