/* persim workloads "broi-hashtable", "broi-rbtree", "broi-sps", "broi-bptree", "broi-ssca2" and their
 * "-hybrid" variants: the local micro-benchmarks of the BROI paper (Hu et al., "Persistence
 * Parallelism Optimization", Table IV and section VI-B; the BROI paper (docs/papers.md))
 * as CPU programs (docs/workloads-cpu.md, "BROI workloads").
 *
 * Each operation is one logged transaction (wl_broi.h): its reads are loads, its writes are collected
 * in a write set and emitted as log records, order, in place, order, commit (undo), or log records,
 * order, commit, order, in place, order, clear (redo); op_order is the persist barrier that splits a
 * thread's persists into barrier epochs. Threads share one structure; shared words are under
 * ticket-ordered locks (cpu_lock/cpu_unlock). Operation i of n is by local thread i % T.
 *
 * Hybrid variants: the same, plus num_remote RDMA channels (remote streams after the T local ones),
 * each replicating its own instance of the same structure into a separate PM area (the paper's
 * replica-storage scenario, section V-A: "the log and data will be stored in the remote NVM memory
 * for backup replication"): channel r runs ceil(n / T) operations of its own key sequence, with
 * client think time (compute) between them, each transaction as rdma_pwrites (no loads, no locks).
 *
 * verify: for every instance an independent reference replays the operations on plain arrays / a
 * key set and checks the image semantically (chains, red-black and B+tree structure, key sets,
 * values, array contents, graph adjacency), then the whole PM range must equal the generator's
 * image (logs, unlinked nodes, lock words: words the semantic check cannot reach). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wl_broi.h"

enum { K_HASH, K_RBT, K_SPS, K_BPT, K_SSCA };

/* ---- parameters (one row per Table IV micro-benchmark) -------------------------------------------
 * footprint: Table IV's "Footprint" column. The paper gives no value sizes, epoch sizes or logging
 * kind per benchmark; the values below are ours:
 *  - logging: the paper does not say; our choice: undo for the search / insert / remove structures
 *    (hash, RB-tree, B+tree), redo for the swap and graph transactions (SPS, SSCA2), so both
 *    protocols of section II-A occur.
 *  - val: bytes of the value stored with a key / per array element (8 B: WHISPER [39] finds most
 *    epochs hold a single 8-byte persist).
 *  - the key range (entries, vertices) is the footprint's: K = 2 * footprint / element bytes (with
 *    insert-if-absent / remove-if-found half of the keys are present at steady state, which fills the
 *    footprint), capped at max(64, operations) so a short run reaches that steady state. */
typedef struct bk_row {
    const char *name, *row;
    int      kind, redo;
    uint64_t footprint_mb;
    uint32_t vw;            /* value words (8 B each) */
} bk_row;

static const bk_row bk_rows[] = {
    /* name              Table IV row     kind    redo  MB    vw */
    { "broi-hashtable", "Hash [13]",     K_HASH, 0,    256,  1 },
    { "broi-rbtree",    "RBTree [59]",   K_RBT,  0,    256,  1 },
    { "broi-sps",       "SPS [59]",      K_SPS,  1,    1024, 1 },
    { "broi-bptree",    "BTree [9]",     K_BPT,  0,    256,  1 },
    { "broi-ssca2",     "SSCA2 [7]",     K_SSCA, 1,    16,   0 },
};

#define BK_LOCKS     64u     /* hash / SPS / SSCA2 lock stripes */
#define BPT_M        8u      /* B+tree keys per node */
#define SSCA_C       8u      /* SSCA2 adjacency slots per vertex */
#define REMOTE_THINK 200u    /* client think time between remote transactions (instructions) */

/* One instance of a structure, operated on by streams first..first+ns-1. */
typedef struct binst {
    int      kind, local;
    uint64_t seed, n, K;
    uint32_t vw, ns, first;
    uint64_t root;           /* hash: buckets; rbt / bpt: root word; sps: array; ssca: vertices */
    uint64_t B;              /* hash buckets */
    uint64_t locks;          /* local only: BK_LOCKS (or 1) words */
    uint64_t meta;           /* per stream 64 B: {node alloc, record alloc} */
    uint64_t pools, pool_len, nb;       /* per-stream node pools */
    uint64_t rpools, rpool_len, rb;     /* B+tree value records */
} binst;

typedef struct bk_ctx {
    const bk_row *row;
    uint32_t ninst;
    binst   *in;
    mem_image *expect;       /* the generator's final image */
    uint64_t lo, hi;         /* the PM range allocated */
} bk_ctx;

static void bk_free(void *v)
{
    bk_ctx *c = (bk_ctx *)v;
    if (!c) return;
    if (c->expect) mem_free(c->expect);
    free(c->in);
    free(c);
}

/* ---- operation inputs (pure functions of the instance seed and the operation number) ---------- */
static uint64_t bk_key(const binst *I, uint64_t i) { return 1 + cpu_mix(I->seed ^ 0x4B4559ull, i) % I->K; }
static uint64_t bk_val(const binst *I, uint64_t i, uint32_t j) { return cpu_mix(I->seed ^ 0x56414Cull, i * 64 + j); }
static uint64_t hash_bucket(const binst *I, uint64_t key) { return cpu_mix(key, 0xB0C4E7ull) & (I->B - 1); }
static uint64_t sps_init(const binst *I, uint64_t e, uint32_t j) { return cpu_mix(I->seed ^ 0x535053ull, e * 8 + j); }
static void sps_pair(const binst *I, uint64_t i, uint64_t *a, uint64_t *b)
{
    *a = cpu_mix(I->seed ^ 0x5341ull, i) % I->K;
    *b = (*a + 1 + cpu_mix(I->seed ^ 0x5342ull, i) % (I->K - 1)) % I->K;
}
static void ssca_edge(const binst *I, uint64_t i, uint64_t *u, uint64_t *v, uint64_t *w, uint64_t *slot)
{
    const uint64_t r1 = cpu_mix(I->seed ^ 0x5331ull, i) % I->K, r2 = cpu_mix(I->seed ^ 0x5332ull, i) % I->K;
    *u = r1 < r2 ? r1 : r2;                      /* skewed: low vertices get more edges (scale-free-like) */
    *v = cpu_mix(I->seed ^ 0x5333ull, i) % I->K;
    *w = 1 + cpu_mix(I->seed ^ 0x5334ull, i) % 255;
    *slot = cpu_mix(I->seed ^ 0x5335ull, i) % SSCA_C;
}
#define SSCA_VB (16u + 16u * SSCA_C)

static uint64_t alloc_node(bx *b, const binst *I, uint32_t which)
{
    const uint32_t si = b->s - I->first;
    const uint64_t m = I->meta + (uint64_t)si * 64 + which * 8, a = bx_rd(b, m);
    bx_wr(b, m, a + 1);
    return which ? I->rpools + ((uint64_t)si * I->rpool_len + a) * I->rb : I->pools + ((uint64_t)si * I->pool_len + a) * I->nb;
}

/* ---- hash table: open chaining, node {key, next, val[vw]} --------------------------------------- */
static void hash_op(bx *b, const binst *I, uint64_t i)
{
    const uint64_t key = bk_key(I, i), bw = I->root + hash_bucket(I, key) * 8;
    uint64_t prev = 0, n = bx_rd(b, bw);
    while (n) {
        if (bx_rd(b, n) == key) break;
        prev = n;
        n = bx_rd(b, n + 8);
    }
    if (n) {                                          /* found: remove */
        bx_wr(b, prev ? prev + 8 : bw, bx_rd(b, n + 8));
    } else {                                          /* absent: insert at the head */
        const uint64_t node = alloc_node(b, I, 0), head = bx_rd(b, bw);
        bx_wr(b, node, key);
        bx_wr(b, node + 8, head);
        for (uint32_t j = 0; j < I->vw; j++) bx_wr(b, node + 16 + 8 * j, bk_val(I, i, j));
        bx_wr(b, bw, node);
    }
}

/* ---- red-black tree: left-leaning RB (Sedgewick), node {key, left, right, red, val[vw]} --------- */
#define RB_L(h) ((h) + 8)
#define RB_R(h) ((h) + 16)
#define RB_C(h) ((h) + 24)
static int rb_red(bx *b, uint64_t h) { return h && bx_rd(b, RB_C(h)) != 0; }
static uint64_t rb_rotl(bx *b, uint64_t h)
{
    const uint64_t x = bx_rd(b, RB_R(h));
    bx_set(b, RB_R(h), bx_rd(b, RB_L(x)));
    bx_set(b, RB_L(x), h);
    bx_set(b, RB_C(x), bx_rd(b, RB_C(h)));
    bx_set(b, RB_C(h), 1);
    return x;
}
static uint64_t rb_rotr(bx *b, uint64_t h)
{
    const uint64_t x = bx_rd(b, RB_L(h));
    bx_set(b, RB_L(h), bx_rd(b, RB_R(x)));
    bx_set(b, RB_R(x), h);
    bx_set(b, RB_C(x), bx_rd(b, RB_C(h)));
    bx_set(b, RB_C(h), 1);
    return x;
}
static void rb_flip(bx *b, uint64_t h)
{
    bx_set(b, RB_C(h), !bx_rd(b, RB_C(h)));
    const uint64_t l = bx_rd(b, RB_L(h)), r = bx_rd(b, RB_R(h));
    bx_set(b, RB_C(l), !bx_rd(b, RB_C(l)));
    bx_set(b, RB_C(r), !bx_rd(b, RB_C(r)));
}
static uint64_t rb_balance(bx *b, uint64_t h)
{
    if (rb_red(b, bx_rd(b, RB_R(h))) && !rb_red(b, bx_rd(b, RB_L(h)))) h = rb_rotl(b, h);
    if (rb_red(b, bx_rd(b, RB_L(h))) && rb_red(b, bx_rd(b, RB_L(bx_rd(b, RB_L(h)))))) h = rb_rotr(b, h);
    if (rb_red(b, bx_rd(b, RB_L(h))) && rb_red(b, bx_rd(b, RB_R(h)))) rb_flip(b, h);
    return h;
}
static uint64_t rb_put(bx *b, const binst *I, uint64_t h, uint64_t key, uint64_t i)
{
    if (!h) {
        const uint64_t n = alloc_node(b, I, 0);
        bx_wr(b, n, key);
        bx_wr(b, RB_L(n), 0);
        bx_wr(b, RB_R(n), 0);
        bx_wr(b, RB_C(n), 1);
        for (uint32_t j = 0; j < I->vw; j++) bx_wr(b, n + 32 + 8 * j, bk_val(I, i, j));
        return n;
    }
    if (key < bx_rd(b, h)) bx_set(b, RB_L(h), rb_put(b, I, bx_rd(b, RB_L(h)), key, i));
    else bx_set(b, RB_R(h), rb_put(b, I, bx_rd(b, RB_R(h)), key, i));
    return rb_balance(b, h);
}
static uint64_t rb_move_red_left(bx *b, uint64_t h)
{
    rb_flip(b, h);
    if (rb_red(b, bx_rd(b, RB_L(bx_rd(b, RB_R(h)))))) {
        bx_set(b, RB_R(h), rb_rotr(b, bx_rd(b, RB_R(h))));
        h = rb_rotl(b, h);
        rb_flip(b, h);
    }
    return h;
}
static uint64_t rb_move_red_right(bx *b, uint64_t h)
{
    rb_flip(b, h);
    if (rb_red(b, bx_rd(b, RB_L(bx_rd(b, RB_L(h)))))) {
        h = rb_rotr(b, h);
        rb_flip(b, h);
    }
    return h;
}
static uint64_t rb_del_min(bx *b, uint64_t h)
{
    if (!bx_rd(b, RB_L(h))) return 0;
    if (!rb_red(b, bx_rd(b, RB_L(h))) && !rb_red(b, bx_rd(b, RB_L(bx_rd(b, RB_L(h)))))) h = rb_move_red_left(b, h);
    bx_set(b, RB_L(h), rb_del_min(b, bx_rd(b, RB_L(h))));
    return rb_balance(b, h);
}
static uint64_t rb_del(bx *b, const binst *I, uint64_t h, uint64_t key)
{
    if (key < bx_rd(b, h)) {
        if (!rb_red(b, bx_rd(b, RB_L(h))) && !rb_red(b, bx_rd(b, RB_L(bx_rd(b, RB_L(h)))))) h = rb_move_red_left(b, h);
        bx_set(b, RB_L(h), rb_del(b, I, bx_rd(b, RB_L(h)), key));
    } else {
        if (rb_red(b, bx_rd(b, RB_L(h)))) h = rb_rotr(b, h);
        if (key == bx_rd(b, h) && !bx_rd(b, RB_R(h))) return 0;
        if (!rb_red(b, bx_rd(b, RB_R(h))) && !rb_red(b, bx_rd(b, RB_L(bx_rd(b, RB_R(h)))))) h = rb_move_red_right(b, h);
        if (key == bx_rd(b, h)) {
            uint64_t x = bx_rd(b, RB_R(h));
            while (bx_rd(b, RB_L(x))) x = bx_rd(b, RB_L(x));
            bx_set(b, h, bx_rd(b, x));
            for (uint32_t j = 0; j < I->vw; j++) bx_set(b, h + 32 + 8 * j, bx_rd(b, x + 32 + 8 * j));
            bx_set(b, RB_R(h), rb_del_min(b, bx_rd(b, RB_R(h))));
        } else {
            bx_set(b, RB_R(h), rb_del(b, I, bx_rd(b, RB_R(h)), key));
        }
    }
    return rb_balance(b, h);
}
static void rbt_op(bx *b, const binst *I, uint64_t i)
{
    const uint64_t key = bk_key(I, i);
    uint64_t h = bx_rd(b, I->root), root;
    while (h) {                                       /* search */
        const uint64_t k = bx_rd(b, h);
        if (k == key) break;
        h = bx_rd(b, key < k ? RB_L(h) : RB_R(h));
    }
    root = bx_rd(b, I->root);
    if (h) {                                          /* found: remove */
        if (!rb_red(b, bx_rd(b, RB_L(root))) && !rb_red(b, bx_rd(b, RB_R(root)))) bx_set(b, RB_C(root), 1);
        root = rb_del(b, I, root, key);
    } else {
        root = rb_put(b, I, root, key, i);
    }
    bx_set(b, I->root, root);
    if (root) bx_set(b, RB_C(root), 0);
}

/* ---- B+tree: node {nkeys, leaf, key[M], ptr[M+1]} (leaf: ptr[i] -> record {key, val[vw]},
 * ptr[M] = next leaf); top-down preemptive splits; removal without rebalancing (nodes may
 * underflow, as in PM B+trees that avoid merges) ---------------------------------------------- */
#define BP_N(x)    (x)
#define BP_LEAF(x) ((x) + 8)
#define BP_K(x, i) ((x) + 16 + 8 * (uint64_t)(i))
#define BP_P(x, i) ((x) + 16 + 8 * BPT_M + 8 * (uint64_t)(i))
#define BP_BYTES   (16 + 8 * BPT_M + 8 * (BPT_M + 1))
static void bp_split(bx *b, const binst *I, uint64_t p, uint32_t ci)
{
    const uint64_t c = bx_rd(b, BP_P(p, ci)), leaf = bx_rd(b, BP_LEAF(c)), n = alloc_node(b, I, 0);
    const uint32_t mid = BPT_M / 2;
    uint64_t sep;
    bx_wr(b, BP_LEAF(n), leaf);
    if (leaf) {
        for (uint32_t j = mid; j < BPT_M; j++) {
            bx_wr(b, BP_K(n, j - mid), bx_rd(b, BP_K(c, j)));
            bx_wr(b, BP_P(n, j - mid), bx_rd(b, BP_P(c, j)));
        }
        bx_wr(b, BP_N(n), BPT_M - mid);
        bx_wr(b, BP_P(n, BPT_M), bx_rd(b, BP_P(c, BPT_M)));
        bx_wr(b, BP_P(c, BPT_M), n);
        sep = bx_rd(b, BP_K(n, 0));
    } else {
        sep = bx_rd(b, BP_K(c, mid));
        for (uint32_t j = mid + 1; j < BPT_M; j++) bx_wr(b, BP_K(n, j - mid - 1), bx_rd(b, BP_K(c, j)));
        for (uint32_t j = mid + 1; j <= BPT_M; j++) bx_wr(b, BP_P(n, j - mid - 1), bx_rd(b, BP_P(c, j)));
        bx_wr(b, BP_N(n), BPT_M - mid - 1);
    }
    bx_wr(b, BP_N(c), mid);
    const uint32_t pn = (uint32_t)bx_rd(b, BP_N(p));
    for (uint32_t j = pn; j > ci; j--) {
        bx_wr(b, BP_K(p, j), bx_rd(b, BP_K(p, j - 1)));
        bx_wr(b, BP_P(p, j + 1), bx_rd(b, BP_P(p, j)));
    }
    bx_wr(b, BP_K(p, ci), sep);
    bx_wr(b, BP_P(p, ci + 1), n);
    bx_wr(b, BP_N(p), pn + 1);
}
static uint32_t bp_child(bx *b, uint64_t x, uint64_t key)
{
    const uint32_t n = (uint32_t)bx_rd(b, BP_N(x));
    uint32_t i = 0;
    while (i < n && key >= bx_rd(b, BP_K(x, i))) i++;
    return i;
}
static void bpt_op(bx *b, const binst *I, uint64_t i)
{
    const uint64_t key = bk_key(I, i);
    uint64_t x = bx_rd(b, I->root);
    while (!bx_rd(b, BP_LEAF(x))) x = bx_rd(b, BP_P(x, bp_child(b, x, key)));
    const uint32_t n = (uint32_t)bx_rd(b, BP_N(x));
    uint32_t at = 0;
    while (at < n && bx_rd(b, BP_K(x, at)) < key) at++;
    if (at < n && bx_peek(b, BP_K(x, at)) == key) {   /* found: remove from the leaf */
        for (uint32_t j = at; j + 1 < n; j++) {
            bx_wr(b, BP_K(x, j), bx_rd(b, BP_K(x, j + 1)));
            bx_wr(b, BP_P(x, j), bx_rd(b, BP_P(x, j + 1)));
        }
        bx_wr(b, BP_N(x), n - 1);
        return;
    }
    const uint64_t rec = alloc_node(b, I, 1);          /* absent: insert */
    bx_wr(b, rec, key);
    for (uint32_t j = 0; j < I->vw; j++) bx_wr(b, rec + 8 + 8 * j, bk_val(I, i, j));
    x = bx_rd(b, I->root);
    if (bx_rd(b, BP_N(x)) == BPT_M) {
        const uint64_t r = alloc_node(b, I, 0);
        bx_wr(b, BP_N(r), 0);
        bx_wr(b, BP_LEAF(r), 0);
        bx_wr(b, BP_P(r, 0), x);
        bp_split(b, I, r, 0);
        bx_wr(b, I->root, r);
        x = r;
    }
    while (!bx_rd(b, BP_LEAF(x))) {
        uint32_t ci = bp_child(b, x, key);
        if (bx_rd(b, BP_N(bx_rd(b, BP_P(x, ci)))) == BPT_M) {
            bp_split(b, I, x, ci);
            if (key >= bx_rd(b, BP_K(x, ci))) ci++;
        }
        x = bx_rd(b, BP_P(x, ci));
    }
    const uint32_t m = (uint32_t)bx_rd(b, BP_N(x));
    uint32_t j = m;
    while (j > 0 && bx_rd(b, BP_K(x, j - 1)) > key) {
        bx_wr(b, BP_K(x, j), bx_rd(b, BP_K(x, j - 1)));
        bx_wr(b, BP_P(x, j), bx_rd(b, BP_P(x, j - 1)));
        j--;
    }
    bx_wr(b, BP_K(x, j), key);
    bx_wr(b, BP_P(x, j), rec);
    bx_wr(b, BP_N(x), m + 1);
}

/* ---- SPS: swap two entries of the vector ----------------------------------------------------- */
static void sps_op(bx *b, const binst *I, uint64_t i)
{
    uint64_t e1, e2;
    sps_pair(I, i, &e1, &e2);
    const uint64_t a1 = I->root + e1 * 8 * I->vw, a2 = I->root + e2 * 8 * I->vw;
    for (uint32_t j = 0; j < I->vw; j++) {
        const uint64_t v1 = bx_rd(b, a1 + 8 * j), v2 = bx_rd(b, a2 + 8 * j);
        bx_wr(b, a1 + 8 * j, v2);
        bx_wr(b, a2 + 8 * j, v1);
    }
}

/* ---- SSCA2: add a weighted edge to u's adjacency array (or reweight one when it is full) ------- */
static void ssca_op(bx *b, const binst *I, uint64_t i)
{
    uint64_t u, v, w, slot;
    ssca_edge(I, i, &u, &v, &w, &slot);
    const uint64_t x = I->root + u * SSCA_VB, deg = bx_rd(b, x);
    if (deg < SSCA_C) {
        bx_wr(b, x + 16 + 16 * deg, v);
        bx_wr(b, x + 24 + 16 * deg, w);
        bx_wr(b, x, deg + 1);
    } else {
        bx_wr(b, x + 24 + 16 * slot, bx_rd(b, x + 24 + 16 * slot) + w);
    }
    bx_wr(b, x + 8, bx_rd(b, x + 8) + w);
}

/* The lock(s) of operation i on a local instance (ascending; second = first when only one). */
static void op_locks(const binst *I, uint64_t i, uint64_t *l1, uint64_t *l2)
{
    uint64_t s1 = 0, s2 = 0;
    switch (I->kind) {
    case K_HASH: s1 = s2 = hash_bucket(I, bk_key(I, i)) % BK_LOCKS; break;
    case K_SPS: {
        uint64_t a, c;
        sps_pair(I, i, &a, &c);
        s1 = a % BK_LOCKS;
        s2 = c % BK_LOCKS;
        if (s1 > s2) { uint64_t t = s1; s1 = s2; s2 = t; }
        break;
    }
    case K_SSCA: {
        uint64_t u, v, w, sl;
        ssca_edge(I, i, &u, &v, &w, &sl);
        s1 = s2 = u % BK_LOCKS;
        break;
    }
    default: break;                                   /* trees: one tree lock */
    }
    *l1 = I->locks + s1 * 4;
    *l2 = I->locks + s2 * 4;
}

static void run_op(bx *b, const binst *I, uint64_t i)
{
    switch (I->kind) {
    case K_HASH: hash_op(b, I, i); break;
    case K_RBT: rbt_op(b, I, i); break;
    case K_SPS: sps_op(b, I, i); break;
    case K_BPT: bpt_op(b, I, i); break;
    default: ssca_op(b, I, i); break;
    }
}

/* Lays out an instance for ns streams doing n operations. */
static void inst_setup(binst *I, const bk_row *row, wl_alloc *al, mem_image *init, uint64_t seed, uint64_t n,
                       uint32_t first, uint32_t ns, int local)
{
    memset(I, 0, sizeof *I);
    I->kind = row->kind;
    I->local = local;
    I->seed = seed;
    I->n = n;
    I->vw = row->vw;
    I->first = first;
    I->ns = ns;
    const uint64_t per = (n + ns - 1) / ns;
    uint64_t elem;
    switch (row->kind) {
    case K_HASH: elem = 16 + 8 * row->vw; break;
    case K_RBT: elem = 32 + 8 * row->vw; break;
    case K_SPS: elem = 8 * row->vw; break;
    case K_BPT: elem = 8 + 8 * row->vw + BP_BYTES / 4; break;
    default: elem = SSCA_VB; break;
    }
    const uint64_t kfull = 2 * (row->footprint_mb << 20) / elem, cap = n > 64 ? n : 64;
    I->K = kfull < cap ? kfull : cap;
    if (row->kind == K_SSCA) I->K = (row->footprint_mb << 20) / SSCA_VB < cap / 4 + 64 ? (row->footprint_mb << 20) / SSCA_VB
                                                                                     : cap / 4 + 64;
    if (local) I->locks = wl_alloc_pm(al, BK_LOCKS * 4);
    I->meta = wl_alloc_pm(al, (uint64_t)ns * 64);
    switch (row->kind) {
    case K_HASH:
        for (I->B = 64; I->B < I->K / 4; I->B *= 2) {}
        I->root = wl_alloc_pm(al, I->B * 8);
        I->nb = elem;
        I->pool_len = per;
        break;
    case K_RBT:
        I->root = wl_alloc_pm(al, 8);
        I->nb = elem;
        I->pool_len = per;
        break;
    case K_BPT: {
        I->root = wl_alloc_pm(al, 8);
        const uint64_t r0 = wl_alloc_pm(al, BP_BYTES);
        mem_write_u64(init, I->root, r0);
        mem_write_u64(init, BP_LEAF(r0), 1);
        I->nb = BP_BYTES;
        I->pool_len = n / 3 + 64;                     /* splits by one stream: at most one per M/2 inserts + depth */
        I->rb = 8 + 8 * row->vw;
        I->rpool_len = per;
        break;
    }
    case K_SPS:
        I->root = wl_alloc_pm(al, I->K * 8 * row->vw);
        for (uint64_t e = 0; e < I->K; e++)
            for (uint32_t j = 0; j < row->vw; j++) mem_write_u64(init, I->root + (e * row->vw + j) * 8, sps_init(I, e, j));
        break;
    default:
        I->root = wl_alloc_pm(al, I->K * SSCA_VB);
        break;
    }
    if (I->pool_len) I->pools = wl_alloc_pm(al, (uint64_t)ns * I->pool_len * I->nb);
    if (I->rpool_len) I->rpools = wl_alloc_pm(al, (uint64_t)ns * I->rpool_len * I->rb);
}

static int bk_build_row(const bk_row *row, int hybrid, const wl_params *prm, persim_prog *p, mem_image *init,
                        void **ctxp, char *err, size_t errlen)
{
    char name[64];
    snprintf(name, sizeof name, "%s%s", row->name, hybrid ? "-hybrid" : "");
    *ctxp = NULL;
    if (prm->size < 1 || prm->size > (1ull << 22))
        return wl_err(err, errlen, "%s: size %llu out of range (operations, 1..%llu)", name,
                      (unsigned long long)prm->size, 1ull << 22);
    cpu_gen g;
    if (bx_gen_init(&g, name, prm, hybrid, init, err, errlen)) return -1;
    const uint32_t T = prm->num_threads, R = hybrid ? prm->num_remote : 0;
    bk_ctx *c = (bk_ctx *)calloc(1, sizeof *c);
    bx *bs = (bx *)calloc(T + R, sizeof *bs);
    if (!c || !bs) {
        free(c);
        free(bs);
        cpu_gen_free(&g);
        return wl_err(err, errlen, "%s: out of memory", name);
    }
    c->row = row;
    c->ninst = 1 + R;
    c->in = (binst *)calloc(c->ninst, sizeof *c->in);
    if (!c->in) { free(bs); bk_free(c); cpu_gen_free(&g); return wl_err(err, errlen, "%s: out of memory", name); }
    wl_alloc al;
    wl_alloc_init(&al, prm);
    c->lo = al.pm_next;
    /* set up in the generator's shadow too: the instances write their initial contents into init */
    inst_setup(&c->in[0], row, &al, init, prm->seed, prm->size, 0, T, 1);
    const uint64_t nr = (prm->size + T - 1) / T;
    for (uint32_t r = 0; r < R; r++)
        inst_setup(&c->in[1 + r], row, &al, init, cpu_mix(prm->seed, 0x52454D4F5445ull + r), nr, T + r, 1, 0);
    for (uint32_t s = 0; s < T + R; s++) bx_init(&bs[s], &g, s, s >= T, row->redo, wl_alloc_pm(&al, BX_LOG_BYTES));
    c->hi = al.pm_next;
    mem_free(g.shadow);                               /* the shadow must hold the initial contents */
    g.shadow = mem_clone(init);
    int overflow = 0;
    if (!g.shadow) g.oom = 1;
    for (uint64_t i = 0; i < prm->size && !g.oom; i++) {   /* local: operation i by thread i % T */
        const binst *I = &c->in[0];
        const uint32_t t = (uint32_t)(i % T);
        uint64_t l1 = 0, l2 = 0;
        op_locks(I, i, &l1, &l2);
        cpu_mark(&g, t, MARK_LOOP);
        cpu_compute(&g, t, 6);
        cpu_mark(&g, t, MARK_FUNC);
        cpu_compute(&g, t, 12);
        cpu_lock(&g, t, l1);
        if (l2 != l1) cpu_lock(&g, t, l2);
        run_op(&bs[t], I, i);
        bx_commit(&bs[t]);
        overflow |= bs[t].overflow;
        if (l2 != l1) cpu_unlock(&g, t, l2);
        cpu_unlock(&g, t, l1);
        cpu_compute(&g, t, 2);
        cpu_mark(&g, t, MARK_RET);
    }
    for (uint32_t r = 0; r < R && !g.oom; r++) {      /* remote: channel r's replica */
        const binst *I = &c->in[1 + r];
        for (uint64_t i = 0; i < I->n; i++) {
            cpu_compute(&g, T + r, REMOTE_THINK);
            run_op(&bs[T + r], I, i);
            bx_commit(&bs[T + r]);
            overflow |= bs[T + r].overflow;
        }
    }
    free(bs);
    int rc = overflow ? wl_err(err, errlen, "%s: a transaction's write set exceeds %u words", name, BX_MAXW)
                      : cpu_gen_emit(&g, p, "main", err, errlen);
    if (!rc) {
        c->expect = g.shadow;
        g.shadow = NULL;
    }
    cpu_gen_free(&g);
    if (rc) { bk_free(c); return -1; }
    *ctxp = c;
    return 0;
}

/* ---- verification: independent references -------------------------------------------------- */
typedef struct vref {
    uint8_t  *present;       /* key -> present */
    uint64_t *op;            /* key -> operation that inserted it */
    uint64_t  count;
} vref;

static int ref_keys(const binst *I, vref *r)
{
    r->present = (uint8_t *)calloc(I->K + 1, 1);
    r->op = (uint64_t *)calloc(I->K + 1, 8);
    r->count = 0;
    if (!r->present || !r->op) return -1;
    for (uint64_t i = 0; i < I->n; i++) {
        const uint64_t k = bk_key(I, i);
        r->present[k] ^= 1;
        if (r->present[k]) { r->op[k] = i; r->count++; } else r->count--;
    }
    return 0;
}

typedef struct vwalk {
    const binst *I;
    const mem_image *img;
    vref *r;
    uint8_t *seen;
    uint64_t visited;
    const char *nm;
    char *msg; size_t ml;
} vwalk;

static int check_val(vwalk *w, uint64_t key, uint64_t vaddr, const char *what)
{
    if (key < 1 || key > w->I->K || !w->r->present[key])
        return wl_err(w->msg, w->ml, "%s: %s holds key %llu, which should not be present", w->nm, what, (unsigned long long)key);
    if (w->seen[key]++) return wl_err(w->msg, w->ml, "%s: key %llu appears twice", w->nm, (unsigned long long)key);
    for (uint32_t j = 0; j < w->I->vw; j++) {
        const uint64_t v = mem_read_u64(w->img, vaddr + 8 * j), e = bk_val(w->I, w->r->op[key], j);
        if (v != e)
            return wl_err(w->msg, w->ml, "%s: key %llu value word %u is 0x%llx, expected 0x%llx", w->nm,
                          (unsigned long long)key, j, (unsigned long long)v, (unsigned long long)e);
    }
    if (++w->visited > w->r->count)
        return wl_err(w->msg, w->ml, "%s: %s: more keys than the %llu present", w->nm, what, (unsigned long long)w->r->count);
    return 0;
}

/* Returns the black height, or -1 (message set). */
static int rb_walk(vwalk *w, uint64_t h, uint64_t lo, uint64_t hi, int parent_red, unsigned depth)
{
    if (!h) return 0;
    if (depth > 200) return wl_err(w->msg, w->ml, "%s: tree deeper than 200 (a cycle?)", w->nm), -1;
    const uint64_t k = mem_read_u64(w->img, h), l = mem_read_u64(w->img, RB_L(h)), r = mem_read_u64(w->img, RB_R(h));
    const uint64_t red = mem_read_u64(w->img, RB_C(h));
    if (red > 1) return wl_err(w->msg, w->ml, "%s: node 0x%llx colour word %llu", w->nm, (unsigned long long)h, (unsigned long long)red), -1;
    if (k <= lo || k >= hi) return wl_err(w->msg, w->ml, "%s: key %llu out of search-tree order", w->nm, (unsigned long long)k), -1;
    if (red && parent_red) return wl_err(w->msg, w->ml, "%s: red node (key %llu) with a red parent", w->nm, (unsigned long long)k), -1;
    if (r && mem_read_u64(w->img, RB_C(r)))
        return wl_err(w->msg, w->ml, "%s: red right link below key %llu (left-leaning RB tree)", w->nm, (unsigned long long)k), -1;
    if (check_val(w, k, h + 32, "the tree")) return -1;
    const int bl = rb_walk(w, l, lo, k, (int)red, depth + 1);
    if (bl < 0) return -1;
    const int br = rb_walk(w, r, k, hi, (int)red, depth + 1);
    if (br < 0) return -1;
    if (bl != br) return wl_err(w->msg, w->ml, "%s: black heights %d and %d below key %llu", w->nm, bl, br, (unsigned long long)k), -1;
    return bl + !red;
}

/* B+tree: returns the leaf depth (-1 on error); leaves are appended to w's chain check. */
static int bp_walk(vwalk *w, uint64_t x, uint64_t lo, uint64_t hi, unsigned depth, uint64_t *prev_leaf)
{
    if (depth > 64) return wl_err(w->msg, w->ml, "%s: tree deeper than 64", w->nm), -1;
    const uint64_t n = mem_read_u64(w->img, BP_N(x)), leaf = mem_read_u64(w->img, BP_LEAF(x));
    if (n > BPT_M || leaf > 1) return wl_err(w->msg, w->ml, "%s: node 0x%llx {nkeys %llu, leaf %llu}", w->nm, (unsigned long long)x,
                                             (unsigned long long)n, (unsigned long long)leaf), -1;
    uint64_t last = lo;
    for (uint64_t i = 0; i < n; i++) {
        const uint64_t k = mem_read_u64(w->img, BP_K(x, i));
        if (k < lo || k >= hi || (i && k <= last))
            return wl_err(w->msg, w->ml, "%s: node 0x%llx key %llu out of order or bounds", w->nm, (unsigned long long)x, (unsigned long long)k), -1;
        last = k;
    }
    if (leaf) {
        if (*prev_leaf && mem_read_u64(w->img, BP_P(*prev_leaf, BPT_M)) != x)
            return wl_err(w->msg, w->ml, "%s: leaf chain broken before leaf 0x%llx", w->nm, (unsigned long long)x), -1;
        *prev_leaf = x;
        for (uint64_t i = 0; i < n; i++) {
            const uint64_t k = mem_read_u64(w->img, BP_K(x, i)), rec = mem_read_u64(w->img, BP_P(x, i));
            if (mem_read_u64(w->img, rec) != k)
                return wl_err(w->msg, w->ml, "%s: record of key %llu holds key %llu", w->nm, (unsigned long long)k,
                              (unsigned long long)mem_read_u64(w->img, rec)), -1;
            if (check_val(w, k, rec + 8, "a leaf")) return -1;
        }
        return 0;
    }
    int d = -2;
    for (uint64_t i = 0; i <= n; i++) {
        const uint64_t clo = i ? mem_read_u64(w->img, BP_K(x, i - 1)) : lo, chi = i < n ? mem_read_u64(w->img, BP_K(x, i)) : hi;
        const int cd = bp_walk(w, mem_read_u64(w->img, BP_P(x, i)), clo, chi, depth + 1, prev_leaf);
        if (cd < 0) return -1;
        if (d != -2 && cd != d) return wl_err(w->msg, w->ml, "%s: leaves at different depths", w->nm), -1;
        d = cd;
    }
    return d + 1;
}

static int verify_inst(const bk_ctx *c, const binst *I, uint32_t idx, const mem_image *img, char *msg, size_t ml)
{
    char nm[96];
    if (idx) snprintf(nm, sizeof nm, "%s (replica of channel %u)", c->row->name, idx - 1);
    else snprintf(nm, sizeof nm, "%s", c->row->name);
    int rc = 0;
    if (I->kind == K_SPS) {                           /* replay the swaps on a plain array */
        uint64_t *a = (uint64_t *)malloc(I->K * I->vw * 8);
        if (!a) return wl_err(msg, ml, "%s: out of memory", nm);
        for (uint64_t e = 0; e < I->K; e++)
            for (uint32_t j = 0; j < I->vw; j++) a[e * I->vw + j] = sps_init(I, e, j);
        for (uint64_t i = 0; i < I->n; i++) {
            uint64_t e1, e2;
            sps_pair(I, i, &e1, &e2);
            for (uint32_t j = 0; j < I->vw; j++) {
                const uint64_t t = a[e1 * I->vw + j];
                a[e1 * I->vw + j] = a[e2 * I->vw + j];
                a[e2 * I->vw + j] = t;
            }
        }
        for (uint64_t x = 0; x < I->K * I->vw && !rc; x++) {
            const uint64_t v = mem_read_u64(img, I->root + 8 * x);
            if (v != a[x]) rc = wl_err(msg, ml, "%s: element %llu word %llu is 0x%llx, expected 0x%llx", nm,
                                       (unsigned long long)(x / I->vw), (unsigned long long)(x % I->vw),
                                       (unsigned long long)v, (unsigned long long)a[x]);
        }
        free(a);
        return rc;
    }
    if (I->kind == K_SSCA) {                          /* replay the edge updates on plain arrays */
        uint64_t *a = (uint64_t *)calloc(I->K, SSCA_VB);
        if (!a) return wl_err(msg, ml, "%s: out of memory", nm);
        const uint64_t W = SSCA_VB / 8;
        for (uint64_t i = 0; i < I->n; i++) {
            uint64_t u, v, w, slot;
            ssca_edge(I, i, &u, &v, &w, &slot);
            uint64_t *x = a + u * W;
            if (x[0] < SSCA_C) { x[2 + 2 * x[0]] = v; x[3 + 2 * x[0]] = w; x[0]++; }
            else x[3 + 2 * slot] += w;
            x[1] += w;
        }
        for (uint64_t u = 0; u < I->K && !rc; u++) {
            uint64_t sum = 0;
            for (uint64_t j = 0; j < W && !rc; j++) {
                const uint64_t v = mem_read_u64(img, I->root + u * SSCA_VB + 8 * j);
                if (j >= 2 && (j & 1)) sum += v;
                if (v != a[u * W + j])
                    rc = wl_err(msg, ml, "%s: vertex %llu word %llu (%s) is %llu, expected %llu", nm, (unsigned long long)u,
                                (unsigned long long)j, j == 0 ? "degree" : j == 1 ? "weight sum" : (j & 1) ? "edge weight" : "edge target",
                                (unsigned long long)v, (unsigned long long)a[u * W + j]);
            }
            if (!rc && sum != a[u * W + 1])
                rc = wl_err(msg, ml, "%s: vertex %llu edge weights sum to %llu, weight sum %llu", nm, (unsigned long long)u,
                            (unsigned long long)sum, (unsigned long long)a[u * W + 1]);
        }
        free(a);
        return rc;
    }
    vref r;
    vwalk w;
    memset(&w, 0, sizeof w);
    w.seen = (uint8_t *)calloc(I->K + 1, 1);
    if (ref_keys(I, &r) || !w.seen) { free(r.present); free(r.op); free(w.seen); return wl_err(msg, ml, "%s: out of memory", nm); }
    w.I = I; w.img = img; w.r = &r; w.nm = nm; w.msg = msg; w.ml = ml;
    if (I->kind == K_HASH) {
        for (uint64_t bk = 0; bk < I->B && !rc; bk++) {
            for (uint64_t n = mem_read_u64(img, I->root + bk * 8); n && !rc; n = mem_read_u64(img, n + 8)) {
                const uint64_t k = mem_read_u64(img, n);
                if (k >= 1 && k <= I->K && hash_bucket(I, k) != bk)
                    rc = wl_err(msg, ml, "%s: key %llu in bucket %llu, belongs in %llu", nm, (unsigned long long)k,
                                (unsigned long long)bk, (unsigned long long)hash_bucket(I, k));
                else rc = check_val(&w, k, n + 16, "a bucket chain");
            }
        }
    } else if (I->kind == K_RBT) {
        const uint64_t root = mem_read_u64(img, I->root);
        if (root && mem_read_u64(img, RB_C(root))) rc = wl_err(msg, ml, "%s: the root is red", nm);
        else if (rb_walk(&w, root, 0, ~0ull, 0, 0) < 0) rc = -1;
    } else {
        uint64_t prev = 0;
        if (bp_walk(&w, mem_read_u64(img, I->root), 0, ~0ull, 0, &prev) < 0) rc = -1;
        else if (mem_read_u64(img, BP_P(prev, BPT_M)) != 0) rc = wl_err(msg, ml, "%s: the last leaf has a next link", nm);
    }
    if (!rc && w.visited != r.count)
        rc = wl_err(msg, ml, "%s: %llu keys present, expected %llu", nm, (unsigned long long)w.visited, (unsigned long long)r.count);
    free(r.present); free(r.op); free(w.seen);
    return rc;
}

static int bk_verify(const void *vc, const mem_image *img, char *msg, size_t ml)
{
    const bk_ctx *c = (const bk_ctx *)vc;
    for (uint32_t i = 0; i < c->ninst; i++)
        if (verify_inst(c, &c->in[i], i, img, msg, ml)) return -1;
    return cpu_cmp_range(c->row->name, "PM image (logs, nodes, locks)", img, c->expect, c->lo, c->hi - c->lo, msg, ml);
}

#define BK_DEFINE(id, idx)                                                                                            \
    static int id##_build(const wl_params *prm, persim_prog *p, mem_image *init, void **ctx, char *e, size_t el)     \
    { return bk_build_row(&bk_rows[idx], 0, prm, p, init, ctx, e, el); }                                              \
    static int id##_hbuild(const wl_params *prm, persim_prog *p, mem_image *init, void **ctx, char *e, size_t el)    \
    { return bk_build_row(&bk_rows[idx], 1, prm, p, init, ctx, e, el); }

BK_DEFINE(hash, 0)
BK_DEFINE(rbt, 1)
BK_DEFINE(sps, 2)
BK_DEFINE(bpt, 3)
BK_DEFINE(ssca, 4)

const persim_workload wl_broi_hashtable_workload = {
    .name = "broi-hashtable", .desc = "BROI Table IV Hash: open-chain hash table, insert if absent / remove if found, undo log, 64 stripe locks",
    .size_desc = "operations in total (thread i % T does operation i)", .pmo = "persist barriers (order) between log, data and commit epochs; system acquire/release (ticket locks)",
    .recovery = "logging (undo)", .default_size = 5000, .small_size = 500, .build = hash_build, .verify = bk_verify, .free_ctx = bk_free };
PERSIM_WORKLOAD(wl_broi_hashtable_workload, WL_CPU, 130);
const persim_workload wl_broi_rbtree_workload = {
    .name = "broi-rbtree", .desc = "BROI Table IV RBTree: left-leaning red-black tree, insert if absent / remove if found, undo log, one tree lock",
    .size_desc = "operations in total (thread i % T does operation i)", .pmo = "persist barriers (order) between log, data and commit epochs; system acquire/release (ticket locks)",
    .recovery = "logging (undo)", .default_size = 1600, .small_size = 160, .build = rbt_build, .verify = bk_verify, .free_ctx = bk_free };
PERSIM_WORKLOAD(wl_broi_rbtree_workload, WL_CPU, 140);
const persim_workload wl_broi_sps_workload = {
    .name = "broi-sps", .desc = "BROI Table IV SPS: random swaps of vector entries, redo log, 64 stripe locks",
    .size_desc = "swaps in total (thread i % T does swap i)", .pmo = "persist barriers (order) between log, commit, data and clear epochs; system acquire/release (ticket locks)",
    .recovery = "logging (redo)", .default_size = 5000, .small_size = 500, .build = sps_build, .verify = bk_verify, .free_ctx = bk_free };
PERSIM_WORKLOAD(wl_broi_sps_workload, WL_CPU, 150);
const persim_workload wl_broi_bptree_workload = {
    .name = "broi-bptree", .desc = "BROI Table IV BTree: B+tree (8 keys/node), insert if absent / remove if found, undo log, one tree lock",
    .size_desc = "operations in total (thread i % T does operation i)", .pmo = "persist barriers (order) between log, data and commit epochs; system acquire/release (ticket locks)",
    .recovery = "logging (undo)", .default_size = 2200, .small_size = 220, .build = bpt_build, .verify = bk_verify, .free_ctx = bk_free };
PERSIM_WORKLOAD(wl_broi_bptree_workload, WL_CPU, 160);
const persim_workload wl_broi_ssca2_workload = {
    .name = "broi-ssca2", .desc = "BROI Table IV SSCA2: transactional weighted-graph edge insertions (adjacency arrays), redo log, 64 stripe locks",
    .size_desc = "edge updates in total (thread i % T does update i)", .pmo = "persist barriers (order) between log, commit, data and clear epochs; system acquire/release (ticket locks)",
    .recovery = "logging (redo)", .default_size = 4000, .small_size = 400, .build = ssca_build, .verify = bk_verify, .free_ctx = bk_free };
PERSIM_WORKLOAD(wl_broi_ssca2_workload, WL_CPU, 170);

#define BK_HYB(var, nm, base, fn, dflt, small)                                                                       \
    const persim_workload var = {                                                                                    \
        .name = nm,                                                                                                  \
        .desc = "BROI hybrid: " base " plus num_remote RDMA channels, each replicating its own instance (rdma_pwrites)", \
        .size_desc = "local operations in total; each RDMA channel replicates ceil(size / num_threads) operations",   \
        .pmo = "persist barriers (order): log/data/commit epochs locally, one per rdma_pwrite remotely; system "      \
               "acquire/release (local ticket locks)",                                                                \
        .recovery = "logging", .default_size = dflt, .small_size = small, .build = fn, .verify = bk_verify,           \
        .free_ctx = bk_free }

BK_HYB(wl_broi_hashtable_hybrid_workload, "broi-hashtable-hybrid", "broi-hashtable", hash_hbuild, 5000, 500);
PERSIM_WORKLOAD(wl_broi_hashtable_hybrid_workload, WL_CPU, 180);
BK_HYB(wl_broi_rbtree_hybrid_workload, "broi-rbtree-hybrid", "broi-rbtree", rbt_hbuild, 1600, 160);
PERSIM_WORKLOAD(wl_broi_rbtree_hybrid_workload, WL_CPU, 190);
BK_HYB(wl_broi_sps_hybrid_workload, "broi-sps-hybrid", "broi-sps", sps_hbuild, 5000, 500);
PERSIM_WORKLOAD(wl_broi_sps_hybrid_workload, WL_CPU, 200);
BK_HYB(wl_broi_bptree_hybrid_workload, "broi-bptree-hybrid", "broi-bptree", bpt_hbuild, 2200, 220);
PERSIM_WORKLOAD(wl_broi_bptree_hybrid_workload, WL_CPU, 210);
BK_HYB(wl_broi_ssca2_hybrid_workload, "broi-ssca2-hybrid", "broi-ssca2", ssca_hbuild, 4000, 400);
PERSIM_WORKLOAD(wl_broi_ssca2_hybrid_workload, WL_CPU, 220);
