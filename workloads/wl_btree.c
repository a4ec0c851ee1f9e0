/* persim workloads "btree-kr" and "btree-wg": parallel insertion of keys into a persistent
 * B+tree, Algorithms 1 and 2 of the scoped persist barriers paper
 * (the scoped persist barriers paper (docs/papers.md), sections 4, 5.1, 7.1), and their
 * recoverable variants with the undo log of section 8.3 (see below).
 *
 * size = keys in the initial tree (bulk-loaded in PM, nodes 12/15 full); size/4 (at least 1)
 * further keys are inserted. Keys are distinct uint32 in [1, 2^31), values val(key) (a hash).
 *
 * Node (PM, 128 B = 32 uint32 words, two 64 B lines): w[0] = number of keys n (1..15),
 * w[1..n] = keys ascending; internal: w[16..16+n] = child node indices; leaf: w[16..15+n] = the
 * keys' values; unused words are 0. A child holds the keys in [its separator, the next one).
 * Header (PM): root index, height (levels), nodes, keys. Nodes live in a pool (index * 128 B).
 *
 * Workgroups are 4 wavefronts (256 workitems); one persim warp stands for one 64-wide wavefront
 * (its memory ops move 64 workitems' data as 32 lanes of 8 bytes).
 *   1. search (findLeafNode): each wavefront takes 64 sorted keys at a time, loads the nodes they
 *      pass from the root to their leaves (one load per distinct node and level) and records each
 *      key's leaf (leaf.new_keys.append: a leaf's keys are contiguous in the sorted key array);
 *   2. level by level from the leaves up (Algorithm 1 lines 8-21): every node with pending keys
 *      is updated by one wavefront (round robin in key order): it loads its pending items and the
 *      node, merges, and stores the node; if it overflows it splits evenly into as many nodes as
 *      needed (new nodes from the pool) and appends (separator, new child) items to the parent's
 *      pending list (volatile; the slot an atomic append would return is computed here); a root
 *      split makes a new root. After each level: sync + persist barrier.
 * btree-kr (Algorithm 1): one kernel of persistent workgroups, all resident (the kernel-wide waits
 *   need it; the paper preempts instead): NWG = SMs x (resident warps per SM / 4), keys split
 *   evenly over the wavefronts; every level ends with sync(device) + pbarrier(device).
 * btree-wg (Algorithm 2): n_wgs_est = inserted keys / 256 (or wl_params.btree_wgs_est, config key
 *   workload.btree_wgs_est, when non-zero); d = the shallowest depth with at least n_wgs_est nodes; kernel 1 has one workgroup per subtree rooted at depth d, which searches the
 *   keys below it and updates its levels (leaves .. d) with sync(block) + pbarrier(block)
 *   (p_barrier_wg; lines 7-25); kernel 2 (NWG resident workgroups) does the levels above d with
 *   sync(device) + pbarrier(device) (lines 26-33). The kernel-wide wait between the phases is the
 *   kernel boundary.
 * A workgroup- or kernel-scope persist barrier resumes its whole scope together once everything
 * before it is durable; the program states that rendezvous as a sync after the barrier (free in
 * hardware: everybody leaves the barrier at once), so that the functional executor and the checker
 * (persim check) see it. A workitem-scope barrier has no rendezvous.
 * Finally wavefront 0 stores the header and issues pbarrier(warp).
 * The generator performs the insertion itself (the stores carry the real node contents); verify
 * checks the final image independently: sorted, balanced (every leaf at depth height-1), every
 * key present once with its value, node counts and unused words, header.
 *
 * btree-kr-log, btree-wg-log: the same programs made recoverable with the undo log and epoch status
 * table (EST) of section 8.3 (btree-kr and btree-wg are exactly the paper's measured programs).
 * Epoch e = the e-th level from the leaves (1..height). Per update of an existing node (a split
 * overwrites it in place with its left part):
 *   log entry (the node's old 128 B, into the wavefront's slot of the epoch's parity), order,
 *   entry tag {e, node} (8 B), pbarrier(warp), then the node. Workitem scope suffices: the entry
 *   and the update are the same wavefront's. New nodes from the pool need no entry.
 * The pending (separator, child) items go to PM with a tag {e, wavefront} (a recovery needs them:
 * a split-off node is reachable only once its parent is updated in the next epoch); a root split
 * also writes items for its new root's children (reachable only once the header is).
 * After the epoch's barrier and its rendezvous, one wavefront notes the epoch complete in the EST
 * (8 B): entry 0 for kernel-scope epochs (wavefront 0 after sync + pbarrier(device) + sync), entry
 * 1 + w for workgroup w of Algorithm 2's subtree phase (its wavefront 0 after sync(block) +
 * pbarrier(block) + sync(block)): the scope of that barrier must cover every wavefront whose writes
 * the entry vouches for. The entry of epoch e is durable before the log slots of parity e are
 * reused (epoch e+2), by the barrier of epoch e+1. The header is ordered after the last EST store.
 * btree-wg-wi-bug is btree-wg-log with pbarrier(warp) (and so no rendezvous) where pbarrier(block)
 * is needed: the workgroup's EST entry can then be durable before another wavefront's nodes.
 * bt_recover rolls back the entries of incomplete epochs, checks that the result is a B+tree (with
 * the items of completed epochs) and resumes (see there). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

#define BT_K      15u      /* max keys per node */
#define BT_WORDS  32u      /* uint32 words per node */
#define BT_NODE   128u     /* bytes per node */
#define BT_FILL   12u      /* keys per node of the initial tree */
#define BT_WAVES  4u       /* wavefronts per workgroup (256 workitems) */
#define BT_ROUND  64u      /* keys a wavefront searches at a time (64 workitems) */
#define BT_NONE   0xFFFFFFFFu
#define BT_MAX_SIZE 8388608ull
#define BT_LOGENT 256u     /* undo-log entry: old node (128 B), then {epoch, node} (8 B) */
#define BT_ITEM_LOG 16u    /* pending item in PM (logged programs): {sep, child}, {epoch, wavefront} */

typedef struct bt_ctx {
    uint32_t *keys;          /* expected key set, sorted */
    uint64_t nkeys;
    uint64_t seed;
    uint64_t hdr, pool;      /* PM addresses */
    uint32_t cap;            /* pool capacity (nodes) */
    uint32_t height0, d, nwg;
    /* undo logging (section 8.3; the -log programs and btree-wg-wi-bug) */
    const char *name;
    int logged, alg2;
    uint32_t *ins;           /* the key batch (host input), sorted */
    uint64_t ni;
    uint64_t log, est, items; /* PM: log areas, epoch status table, pending items */
    uint32_t nwx, maxt, nest;
    uint64_t nitems;         /* item slots */
} bt_ctx;

static void bt_free(void *vc)
{
    bt_ctx *c = (bt_ctx *)vc;
    if (!c) return;
    free(c->keys);
    free(c->ins);
    free(c);
}

static uint32_t bt_val(uint32_t key, uint64_t seed)
{
    uint64_t z = key ^ (seed * 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (uint32_t)(z ^ (z >> 31)) | 1u;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* ---- host tree ---------------------------------------------------------------------------- */

typedef struct bt_tree {
    uint32_t (*w)[BT_WORDS];     /* node words */
    uint32_t *par, *sub;         /* parent (BT_NONE for the root), subtree (Algorithm 2) */
    uint32_t *minkey;            /* smallest key below the node (bulk load) */
    uint32_t n, cap;
    int oom;
} bt_tree;

static uint32_t bt_new(bt_tree *t)
{
    if (t->n == t->cap) {
        uint32_t nc = t->cap ? t->cap * 2 : 1024;
        void *w = realloc(t->w, (size_t)nc * sizeof *t->w);
        if (w) t->w = (uint32_t(*)[BT_WORDS])w;
        void *p = realloc(t->par, (size_t)nc * 4);
        if (p) t->par = (uint32_t *)p;
        void *s = realloc(t->sub, (size_t)nc * 4);
        if (s) t->sub = (uint32_t *)s;
        void *m = realloc(t->minkey, (size_t)nc * 4);
        if (m) t->minkey = (uint32_t *)m;
        if (!w || !p || !s || !m) { t->oom = 1; return BT_NONE; }
        t->cap = nc;
    }
    uint32_t i = t->n++;
    memset(t->w[i], 0, sizeof t->w[i]);
    t->par[i] = BT_NONE;
    t->sub[i] = 0;
    t->minkey[i] = 0;
    return i;
}

/* Growable arrays. */
typedef struct u32v { uint32_t *v; size_t n, cap; int oom; } u32v;
typedef struct u64v { uint64_t *v; size_t n, cap; int oom; } u64v;
static void u32_push(u32v *a, uint32_t x)
{
    if (a->n == a->cap) {
        size_t nc = a->cap ? a->cap * 2 : 256;
        void *p = realloc(a->v, nc * sizeof *a->v);
        if (!p) { a->oom = 1; return; }
        a->v = (uint32_t *)p;
        a->cap = nc;
    }
    a->v[a->n++] = x;
}
static void u64_push(u64v *a, uint64_t x)
{
    if (a->n == a->cap) {
        size_t nc = a->cap ? a->cap * 2 : 256;
        void *p = realloc(a->v, nc * sizeof *a->v);
        if (!p) { a->oom = 1; return; }
        a->v = (uint64_t *)p;
        a->cap = nc;
    }
    a->v[a->n++] = x;
}

/* One node update (a task of a level). */
typedef struct bt_task {
    uint32_t node, depth, owner;      /* owner: workgroup (wg phase) or BT_NONE (all wavefronts) */
    uint32_t wave;                    /* executing wavefront (global id) */
    uint32_t nin, in_leaf;            /* pending items; leaf: keys [in_first, +nin) of the sorted inserts */
    uint64_t in_first;                /* leaf: first key index; internal: first item index */
    uint32_t merged;                  /* keys after the merge (before splitting) */
    uint32_t out_first, nout;         /* nodes stored: outs[out_first .. +nout) */
    uint64_t item_first;              /* items appended for the parent: items[item_first .. +nitems) */
    uint32_t nitems;
    uint32_t parent;                  /* the node the items go to (BT_NONE: a root split) */
} bt_task;

typedef struct bt_plan {
    bt_task *t; size_t n, cap;
    u32v outs;                        /* node indices stored by tasks */
    u64v items;                       /* (separator | child << 32) items, in key order per level */
    int oom;
} bt_plan;

static bt_task *plan_add(bt_plan *pl)
{
    if (pl->n == pl->cap) {
        size_t nc = pl->cap ? pl->cap * 2 : 1024;
        void *p = realloc(pl->t, nc * sizeof *pl->t);
        if (!p) { pl->oom = 1; return NULL; }
        pl->t = (bt_task *)p;
        pl->cap = nc;
    }
    bt_task *t = &pl->t[pl->n++];
    memset(t, 0, sizeof *t);
    return t;
}

/* Even split of `total` units into `m` parts: size of part i. */
static uint32_t part(uint32_t total, uint32_t m, uint32_t i) { return total / m + (i < total % m); }

/* ---- build -------------------------------------------------------------------------------- */

typedef struct bt_gen {
    const wl_params *prm;
    bt_tree T;
    uint32_t root, height;            /* current */
    uint32_t *ins; uint64_t ni;       /* sorted insert keys */
    uint32_t *leaf_of;                /* leaf of each insert key */
    u32v *levels;                     /* node indices per depth, key order (initial tree + splits) */
    uint32_t nlev;
} bt_gen;

/* Bulk-loads keys[0..n) (sorted) as a tree of nodes BT_FILL full; returns the root. */
static uint32_t bt_bulk(bt_gen *g, const uint32_t *keys, uint64_t n, uint64_t seed, u32v **levels_out,
                        uint32_t *height)
{
    bt_tree *t = &g->T;
    u32v cur = {0}, next = {0};
    uint32_t m = (uint32_t)((n + BT_FILL - 1) / BT_FILL);
    uint64_t k = 0;
    for (uint32_t i = 0; i < m; i++) {
        uint32_t c = part((uint32_t)n, m, i), x = bt_new(t);
        if (x == BT_NONE) return BT_NONE;
        t->w[x][0] = c;
        for (uint32_t j = 0; j < c; j++, k++) {
            t->w[x][1 + j] = keys[k];
            t->w[x][16 + j] = bt_val(keys[k], seed);
        }
        t->minkey[x] = t->w[x][1];
        u32_push(&cur, x);
    }
    /* levels bottom-up, reversed at the end */
    u32v *lv = NULL;
    uint32_t nl = 0;
    for (;;) {
        lv = (u32v *)realloc(lv, (nl + 1) * sizeof *lv);
        if (!lv) return BT_NONE;
        lv[nl++] = cur;
        if (cur.n == 1) break;
        uint32_t pm = (uint32_t)((cur.n + BT_FILL) / (BT_FILL + 1));
        size_t ci = 0;
        memset(&next, 0, sizeof next);
        for (uint32_t i = 0; i < pm; i++) {
            uint32_t c = part((uint32_t)cur.n, pm, i), x = bt_new(t);
            if (x == BT_NONE) return BT_NONE;
            t->w[x][0] = c - 1;
            for (uint32_t j = 0; j < c; j++, ci++) {
                uint32_t ch = cur.v[ci];
                t->w[x][16 + j] = ch;
                t->par[ch] = x;
                if (j > 0) t->w[x][j] = t->minkey[ch];
            }
            t->minkey[x] = t->minkey[t->w[x][16]];
            u32_push(&next, x);
        }
        cur = next;
    }
    /* depth 0 = root */
    u32v *rev = (u32v *)malloc(nl * sizeof *rev);
    if (!rev) { free(lv); return BT_NONE; }
    for (uint32_t i = 0; i < nl; i++) rev[i] = lv[nl - 1 - i];
    free(lv);
    *levels_out = rev;
    *height = nl;
    return rev[0].v[0];
}

/* Leaf of `key`; path[0..height) receives the nodes from the root to the leaf. */
static uint32_t bt_find(const bt_tree *t, uint32_t root, uint32_t height, uint32_t key, uint32_t *path)
{
    uint32_t x = root;
    for (uint32_t d = 0; d + 1 < height; d++) {
        path[d] = x;
        uint32_t n = t->w[x][0], i = 0;
        while (i < n && key >= t->w[x][1 + i]) i++;
        x = t->w[x][16 + i];
    }
    path[height - 1] = x;
    return x;
}

/* ---- emission ------------------------------------------------------------------------------ */

typedef struct bt_emit {
    persim_prog *p;
    const bt_gen *G;
    const bt_plan *PL;
    const size_t *order, *wstart;
    uint32_t nwx, H;
    const uint32_t *path;            /* initial-tree path of every insert key (H nodes each) */
    uint64_t pool, keys_vol, leaf_vol, pend_vol;
    uint32_t *sid;                    /* out: op id of each node's store */
    /* undo logging (logged programs only; pend_vol is then the PM item area) */
    int logged;
    const mem_image *init;            /* the initial tree: a node's old contents */
    uint64_t log, root_items;         /* log areas; item index of a root split's items */
    uint32_t maxt;                    /* log slots per wavefront and epoch parity */
    uint32_t *log_id, *tag_id;        /* out: op ids of each node's log entry stores */
} bt_emit;

/* findLeafNode for keys [k0, k1) of the sorted inserts, 64 at a time (one wavefront). */
static void emit_search(const bt_emit *E, uint64_t k0, uint64_t k1)
{
    uint64_t vals[PERSIM_WARP_SIZE];
    for (uint64_t r = k0; r < k1; r += BT_ROUND) {
        const uint64_t e = r + BT_ROUND < k1 ? r + BT_ROUND : k1;
        const uint32_t cnt = (uint32_t)(e - r), lanes = (cnt + 1) / 2;
        op_ld(E->p, E->keys_vol + 4 * r, 8, lanes, 8);
        for (uint32_t lv = 0; lv < E->H; lv++) {
            /* one load per distinct node the sorted keys pass at this depth */
            uint32_t last = BT_NONE, distinct = 0;
            for (uint64_t i = r; i < e; i++) {
                uint32_t x = E->path[i * E->H + lv];
                if (x == last) continue;
                op_ld(E->p, E->pool + (uint64_t)x * BT_NODE, 4, BT_WORDS, 4);
                last = x;
                distinct++;
            }
            op_compute(E->p, 2 + 4ull * distinct);
        }
        for (uint32_t l = 0; l < lanes; l++) {
            uint64_t i = r + 2 * l;
            vals[l] = E->G->leaf_of[i] | (i + 1 < e ? (uint64_t)E->G->leaf_of[i + 1] << 32 : 0);
        }
        op_st(E->p, E->leaf_vol + 4 * r, 8, lanes, 8, vals);    /* leaf_node.new_keys.append */
    }
}

/* The node updates of level L that wavefront gw executes. */
static void emit_tasks(const bt_emit *E, uint32_t L, uint32_t gw)
{
    persim_prog *p = E->p;
    uint64_t vals[PERSIM_WARP_SIZE], wv[BT_WORDS];
    const size_t at = (size_t)L * E->nwx + gw;
    const uint32_t ep = E->H - L;                 /* epoch: levels from the leaves, 1.. */
    for (size_t q = E->wstart[at]; q < E->wstart[at + 1]; q++) {
        const bt_task *tk = &E->PL->t[E->order[q]];
        if (tk->in_leaf) {
            for (uint32_t o = 0; o < tk->nin; o += BT_ROUND) {
                uint32_t cnt = tk->nin - o < BT_ROUND ? tk->nin - o : BT_ROUND;
                op_ld(p, E->leaf_vol + 4 * (tk->in_first + o), 8, (cnt + 1) / 2, 8);
                op_ld(p, E->keys_vol + 4 * (tk->in_first + o), 8, (cnt + 1) / 2, 8);
            }
        } else if (!E->logged) {
            for (uint32_t o = 0; o < tk->nin; o += PERSIM_WARP_SIZE) {
                uint32_t cnt = tk->nin - o < PERSIM_WARP_SIZE ? tk->nin - o : PERSIM_WARP_SIZE;
                op_ld(p, E->pend_vol + 8 * (tk->in_first + o), 8, cnt, 8);
            }
        } else {
            for (uint32_t o = 0; o < tk->nin; o += PERSIM_WARP_SIZE / 2) {
                uint32_t cnt = tk->nin - o < PERSIM_WARP_SIZE / 2 ? tk->nin - o : PERSIM_WARP_SIZE / 2;
                op_ld(p, E->pend_vol + BT_ITEM_LOG * (tk->in_first + o), 8, 2 * cnt, 8);
            }
        }
        op_ld(p, E->pool + (uint64_t)tk->node * BT_NODE, 4, BT_WORDS, 4);
        if (E->logged) {
            /* undo log (section 8.3): the node's old contents into this wavefront's slot of the
             * epoch's parity, ordered before the entry's tag {epoch, node}; a workitem-scope persist
             * barrier makes the entry durable before the in-place update (the log is this
             * wavefront's own: no wider scope is needed). New nodes need no entry. */
            const uint64_t ent = E->log + (((uint64_t)gw * 2 + (ep & 1)) * E->maxt + (q - E->wstart[at])) * BT_LOGENT;
            uint32_t old[BT_WORDS];
            mem_read(E->init, E->pool + (uint64_t)tk->node * BT_NODE, old, sizeof old);
            for (uint32_t k = 0; k < BT_WORDS; k++) wv[k] = old[k];
            E->log_id[tk->node] = op_st(p, ent, 4, BT_WORDS, 4, wv);
            op_order(p);
            E->tag_id[tk->node] = op_st_bcast(p, ent + BT_NODE, 8, 1, 8, ep | (uint64_t)tk->node << 32);
            op_pbarrier(p, SCOPE_WARP);
        }
        op_compute(p, 8ull + 2ull * tk->merged + 4ull * tk->nout);
        for (uint32_t o = 0; o < tk->nout; o++) {        /* updateNode / splitAndUpdateNode */
            uint32_t y = E->PL->outs.v[tk->out_first + o];
            for (uint32_t k = 0; k < BT_WORDS; k++) wv[k] = E->G->T.w[y][k];
            E->sid[y] = op_st(p, E->pool + (uint64_t)y * BT_NODE, 4, BT_WORDS, 4, wv);
        }
        if (!E->logged) {
            for (uint32_t o = 0; o < tk->nitems; o += PERSIM_WARP_SIZE) {   /* parent.new_keys.append */
                uint32_t cnt = tk->nitems - o < PERSIM_WARP_SIZE ? tk->nitems - o : PERSIM_WARP_SIZE;
                for (uint32_t l = 0; l < cnt; l++) vals[l] = E->PL->items.v[tk->item_first + o + l];
                op_st(p, E->pend_vol + 8 * (tk->item_first + o), 8, cnt, 8, vals);
            }
            continue;
        }
        /* logged: the items are persistent (a recovery resumes from them), tagged with the epoch
         * and the wavefront (whose epoch status entry says whether the epoch completed); a root
         * split's items (the new root is reachable only once the header is) go after the others */
        uint64_t first = tk->item_first;
        uint32_t nit = tk->nitems;
        const uint32_t *rootw = NULL;
        if (tk->parent == BT_NONE && tk->nout >= 2) {
            rootw = E->G->T.w[E->PL->outs.v[tk->out_first + tk->nout - 1]];
            first = E->root_items;
            nit = rootw[0];
        }
        for (uint32_t o = 0; o < nit; o += PERSIM_WARP_SIZE / 2) {
            uint32_t cnt = nit - o < PERSIM_WARP_SIZE / 2 ? nit - o : PERSIM_WARP_SIZE / 2;
            for (uint32_t l = 0; l < cnt; l++) {
                vals[2 * l] = rootw ? (uint64_t)rootw[1 + o + l] | (uint64_t)rootw[16 + 1 + o + l] << 32
                                    : E->PL->items.v[first + o + l];
                vals[2 * l + 1] = ep | (uint64_t)gw << 32;
            }
            op_st(p, E->pend_vol + BT_ITEM_LOG * (first + o), 8, 2 * cnt, 8, vals);
        }
    }
}

/* The header (root, height, nodes, keys), persisted after everything below it. Logged programs:
 * the header (which is not logged) is ordered after the epoch status entry of the last epoch, which
 * the same wavefront wrote: a durable header must not name a root whose epoch is rolled back. */
static uint32_t emit_header(persim_prog *p, uint64_t hdr, const uint64_t h[4], int logged)
{
    if (logged) op_order(p);
    uint32_t id = op_st(p, hdr, 4, 4, 4, h);
    op_pbarrier(p, SCOPE_WARP);
    return id;
}

/* Nodes of the tree bt_bulk builds from n keys. */
static uint64_t bt_bulk_nodes(uint64_t n)
{
    uint64_t m = (n + BT_FILL - 1) / BT_FILL, tot = m;
    while (m > 1) {
        m = (m + BT_FILL) / (BT_FILL + 1);
        tot += m;
    }
    return tot;
}

/* bt_build_alg's state, shared by its steps: the parameters, the host tree and the plan of node
 * updates, the key arrays and the layout. Each step returns 0, or -1 with err set. */
typedef struct bt_build {
    const wl_params *prm;
    const char *nm;
    int alg2, logged;
    persim_scope wg_scope;
    char *err;
    size_t errlen;
    bt_ctx *c;
    bt_gen G;
    bt_plan PL;
    uint32_t *all, *init_keys, *path;  /* all: the key array (init_keys = all, G.ins = all + n0) */
    uint64_t *wg_first;                /* Algorithm 2: first insert key of each subtree */
    uint32_t NS;                       /* Algorithm 2: subtrees = workgroups of the first kernel */
    uint64_t n0, ni, nall;
    uint32_t NWG, NW, H, n_init_nodes, d, NWX;
    uint64_t keys_vol, leaf_vol, pend_vol;
} bt_build;

static int bt_oom(const bt_build *B) { return wl_err(B->err, B->errlen, "%s: out of memory", B->nm); }

/* The keys: nall distinct values in [1, 2^31), shuffled; the first n0 form the initial tree, the
 * other ni are inserted (each part sorted); the context keeps the sorted key set and the batch. */
static int bt_make_keys(bt_build *B)
{
    bt_ctx *c = B->c;
    const uint64_t n0 = B->n0, ni = B->ni, nall = B->nall;
    wl_rng rng;
    wl_rng_seed(&rng, B->prm->seed ^ 0x42545245ull);
    uint32_t *all = B->all = (uint32_t *)malloc(nall * 4);
    if (!all) return bt_oom(B);
    uint64_t have = 0;
    while (have < nall) {
        for (uint64_t i = have; i < nall; i++) all[i] = 1 + (uint32_t)wl_rng_below(&rng, 0x7FFFFFFEull);
        qsort(all, nall, 4, cmp_u32);
        uint64_t u = 0;
        for (uint64_t i = 0; i < nall; i++)
            if (u == 0 || all[i] != all[u - 1]) all[u++] = all[i];
        have = u;
    }
    c->keys = (uint32_t *)malloc(nall * 4);
    if (!c->keys) return bt_oom(B);
    memcpy(c->keys, all, nall * 4);
    c->nkeys = nall;
    for (uint64_t i = nall - 1; i > 0; i--) {           /* Fisher-Yates */
        uint64_t j = wl_rng_below(&rng, i + 1);
        uint32_t x = all[i]; all[i] = all[j]; all[j] = x;
    }
    qsort(all, n0, 4, cmp_u32);
    qsort(all + n0, ni, 4, cmp_u32);                      /* sortAscending(keys_to_insert) */
    B->init_keys = all;
    B->G.ins = all + n0;
    B->G.ni = ni;
    c->ins = (uint32_t *)malloc(ni * 4);
    if (!c->ins) return bt_oom(B);
    memcpy(c->ins, B->G.ins, ni * 4);
    c->ni = ni;
    return 0;
}

/* The initial tree, and the search on it: every insert key's path from the root to its leaf. */
static int bt_initial_tree(bt_build *B)
{
    bt_gen *G = &B->G;
    G->root = bt_bulk(G, B->init_keys, B->n0, B->prm->seed, &G->levels, &G->height);
    if (G->root == BT_NONE || G->T.oom) return bt_oom(B);
    G->nlev = G->height;
    B->c->height0 = G->height;
    const uint32_t H = B->H = G->height;
    B->n_init_nodes = G->T.n;
    B->path = (uint32_t *)malloc((size_t)B->ni * H * 4);
    G->leaf_of = (uint32_t *)malloc(B->ni * 4);
    if (!B->path || !G->leaf_of) return bt_oom(B);
    for (uint64_t i = 0; i < B->ni; i++) G->leaf_of[i] = bt_find(&G->T, G->root, H, G->ins[i], B->path + i * H);
    return 0;
}

/* Algorithm 2: depth d and the subtrees of each workgroup (lines 2-5): n_wgs_est = n_keys /
 * wg_size; d = the shallowest depth with at least that many nodes; one workgroup per subtree
 * rooted at depth d, with the keys below it (contiguous in the sorted inserts). */
static int bt_subtrees(bt_build *B)
{
    bt_gen *G = &B->G;
    const uint32_t H = B->H;
    /* workload.btree_wgs_est (wl_params.btree_wgs_est) overrides n_wgs_est: a sensitivity knob
     * for the number of workgroups (0 = the paper's keys / 256) */
    const uint64_t est = B->prm->btree_wgs_est ? B->prm->btree_wgs_est
                                               : (B->ni + BT_WAVES * BT_ROUND - 1) / (BT_WAVES * BT_ROUND);
    uint32_t d = H - 1;
    for (uint32_t x = 0; x < H; x++)
        if (G->levels[x].n >= est) { d = x; break; }
    B->d = d;
    const u32v *S = &G->levels[d];
    const uint32_t NS = B->NS = (uint32_t)S->n;
    for (size_t q = 0; q < S->n; q++) G->T.sub[S->v[q]] = (uint32_t)q;
    for (uint32_t x = d + 1; x < H; x++)
        for (size_t j = 0; j < G->levels[x].n; j++) {
            uint32_t nd = G->levels[x].v[j];
            G->T.sub[nd] = G->T.sub[G->T.par[nd]];
        }
    B->wg_first = (uint64_t *)calloc((size_t)NS + 1, 8);
    if (!B->wg_first) return bt_oom(B);
    for (uint64_t i = 0; i < B->ni; i++) B->wg_first[G->T.sub[G->leaf_of[i]] + 1]++;
    for (uint32_t q = 0; q < NS; q++) B->wg_first[q + 1] += B->wg_first[q];
    return 0;
}

/* Scratch of the level-by-level insertion. */
typedef struct bt_scratch {
    uint64_t *pfirst;                 /* pending items of the level: per node [first, count) in PL.items */
    uint32_t *pcount;
    uint32_t *merged, *mch;           /* a node's keys after the merge, and its values or children */
    size_t mcap;                      /* (grown on demand) */
    uint64_t leaf_pos;                /* walks the sorted inserts */
    uint32_t *wg_rr, grr;             /* round robin over the wavefronts: per workgroup, kernel-wide */
} bt_scratch;

/* Merges node x's keys with its nin pending keys (leaf) or (separator, child) items into
 * S->merged / S->mch; -1: out of memory (PL.oom set). */
static int bt_merge(bt_build *B, bt_scratch *S, uint32_t x, int leaf, uint64_t first, uint32_t nin)
{
    bt_gen *G = &B->G;
    const uint32_t n = G->T.w[x][0];
    uint32_t tot = n + nin;
    if (tot + 2 > S->mcap) {
        S->mcap = (size_t)tot * 2 + 2;
        uint32_t *a = (uint32_t *)realloc(S->merged, S->mcap * 4), *b = (uint32_t *)realloc(S->mch, S->mcap * 4);
        if (a) S->merged = a;
        if (b) S->mch = b;
        if (!a || !b) { B->PL.oom = 1; return -1; }
    }
    uint32_t *merged = S->merged, *mch = S->mch;
    if (leaf) {
        uint32_t a = 0, b = 0, o = 0;
        const uint32_t *nk = G->ins + first;
        while (a < n || b < nin) {
            if (b >= nin || (a < n && G->T.w[x][1 + a] < nk[b])) {
                merged[o] = G->T.w[x][1 + a]; mch[o] = G->T.w[x][16 + a]; a++;
            } else {
                merged[o] = nk[b]; mch[o] = bt_val(nk[b], B->prm->seed); b++;
            }
            o++;
        }
    } else {
        /* keys k1..kn with children c0..cn; items (s, child) go right of s */
        uint32_t a = 0, b = 0, o = 0;
        mch[0] = G->T.w[x][16];
        while (a < n || b < nin) {
            uint64_t it = b < nin ? B->PL.items.v[first + b] : 0;
            uint32_t s = (uint32_t)it;
            if (b >= nin || (a < n && G->T.w[x][1 + a] < s)) {
                merged[o] = G->T.w[x][1 + a]; mch[o + 1] = G->T.w[x][16 + a + 1]; a++;
            } else {
                merged[o] = s; mch[o + 1] = (uint32_t)(it >> 32); b++;
            }
            o++;
        }
    }
    return 0;
}

/* Splits the merged node x (tot keys) evenly into as many nodes as needed (new ones from the pool,
 * appended to newlist), records the nodes stored and the (separator, child) items for the parent,
 * and makes a new root above a split root. 0, -1: out of memory (flags set), -2: err set. */
static int bt_split(bt_build *B, bt_scratch *S, bt_task *tk, uint32_t x, int leaf, uint32_t tot, u32v *newlist)
{
    bt_gen *G = &B->G;
    bt_plan *PL = &B->PL;
    const uint32_t *merged = S->merged, *mch = S->mch;
    uint32_t m = leaf ? (tot + BT_K - 1) / BT_K : (tot + 1 + BT_K) / (BT_K + 1);
    uint32_t nodes[64];
    uint32_t seps[64];
    uint32_t *nodesv = nodes, *sepsv = seps;
    if (m > 64) {
        nodesv = (uint32_t *)malloc((size_t)m * 4);
        sepsv = (uint32_t *)malloc((size_t)m * 4);
        if (!nodesv || !sepsv) { free(nodesv); free(sepsv); PL->oom = 1; return -1; }
    }
    nodesv[0] = x;
    for (uint32_t i = 1; i < m; i++) {
        nodesv[i] = bt_new(&G->T);
        if (nodesv[i] == BT_NONE) break;
        G->T.par[nodesv[i]] = G->T.par[x];
        G->T.sub[nodesv[i]] = G->T.sub[x];
        u32_push(newlist, nodesv[i]);
    }
    if (G->T.oom) { if (m > 64) { free(nodesv); free(sepsv); } return -1; }
    if (leaf) {
        uint32_t o = 0;
        for (uint32_t i = 0; i < m; i++) {
            uint32_t y = nodesv[i], cnt = part(tot, m, i);
            memset(G->T.w[y], 0, sizeof G->T.w[y]);
            G->T.w[y][0] = cnt;
            for (uint32_t q = 0; q < cnt; q++, o++) {
                G->T.w[y][1 + q] = merged[o];
                G->T.w[y][16 + q] = mch[o];
            }
            sepsv[i] = G->T.w[y][1];
        }
    } else {
        uint32_t ci = 0;     /* child index into mch[0..tot] */
        for (uint32_t i = 0; i < m; i++) {
            uint32_t y = nodesv[i], cc = part(tot + 1, m, i);
            if (i > 0) sepsv[i] = merged[ci - 1];       /* promoted key */
            memset(G->T.w[y], 0, sizeof G->T.w[y]);
            G->T.w[y][0] = cc - 1;
            for (uint32_t q = 0; q < cc; q++, ci++) {
                G->T.w[y][16 + q] = mch[ci];
                G->T.par[mch[ci]] = y;
                if (q > 0) G->T.w[y][q] = merged[ci - 1];
            }
        }
    }
    for (uint32_t i = 0; i < m; i++) u32_push(&PL->outs, nodesv[i]);
    if (m > 1) {
        if (G->T.par[x] != BT_NONE) {
            for (uint32_t i = 1; i < m; i++) u64_push(&PL->items, (uint64_t)sepsv[i] | (uint64_t)nodesv[i] << 32);
            tk->nitems = m - 1;
        } else {
            /* root split: a new root above (Algorithm 1 at the root level) */
            uint32_t r = bt_new(&G->T);
            if (r == BT_NONE) { if (m > 64) { free(nodesv); free(sepsv); } return -1; }
            G->T.w[r][0] = m - 1;
            for (uint32_t i = 0; i < m; i++) {
                G->T.w[r][16 + i] = nodesv[i];
                G->T.par[nodesv[i]] = r;
                if (i > 0) G->T.w[r][i] = sepsv[i];
            }
            if (m - 1 > BT_K) {
                /* would need another level: the size limit keeps this from happening */
                if (m > 64) { free(nodesv); free(sepsv); }
                wl_err(B->err, B->errlen, "%s: root split into %u nodes (too many keys per insert)", B->nm, m);
                return -2;
            }
            u32_push(&PL->outs, r);
            G->root = r;
            G->height++;
        }
    }
    tk->nout = (uint32_t)(PL->outs.n - tk->out_first);
    if (m > 64) { free(nodesv); free(sepsv); }
    return 0;
}

/* Node x of level L: if it has pending keys or items, its task (owner and executing wavefront),
 * the merge and the split. 0, -1: out of memory (flags set), -2: err set. */
static int bt_plan_node(bt_build *B, bt_scratch *S, u32v *newlist, int L, uint32_t x)
{
    bt_gen *G = &B->G;
    const int leaf = L == (int)B->H - 1;
    const int wgphase = B->alg2 && (uint32_t)L >= B->d;
    uint32_t nin;
    uint64_t first;
    if (leaf) {
        first = S->leaf_pos;
        while (S->leaf_pos < B->ni && G->leaf_of[S->leaf_pos] == x) S->leaf_pos++;
        nin = (uint32_t)(S->leaf_pos - first);
    } else {
        nin = (x < G->T.n && S->pcount) ? S->pcount[x] : 0;
        first = nin ? S->pfirst[x] : 0;
    }
    if (nin == 0) return 0;
    bt_task *tk = plan_add(&B->PL);
    if (!tk) return -1;
    tk->node = x;
    tk->depth = (uint32_t)L;
    tk->nin = nin;
    tk->parent = G->T.par[x];
    tk->in_leaf = (uint32_t)leaf;
    tk->in_first = first;
    if (wgphase) {
        uint32_t gg = G->T.sub[x];
        tk->owner = gg;
        tk->wave = gg * BT_WAVES + (S->wg_rr[gg]++ % BT_WAVES);
    } else {
        tk->owner = BT_NONE;
        tk->wave = S->grr++ % B->NW;
    }
    const uint32_t tot = G->T.w[x][0] + nin;
    if (bt_merge(B, S, x, leaf, first, nin) != 0) return -1;
    tk->merged = tot;
    tk->out_first = (uint32_t)B->PL.outs.n;
    tk->item_first = B->PL.items.n;
    return bt_split(B, S, tk, x, leaf, tot, newlist);
}

/* Level by level from the leaves up: the functional insertion and the plan of tasks. 0 (out of
 * memory leaves the plan's and tree's flags set), or -1 with err set. */
static int bt_plan_levels(bt_build *B)
{
    bt_gen *G = &B->G;
    bt_plan *PL = &B->PL;
    bt_scratch S;
    memset(&S, 0, sizeof S);
    S.merged = (uint32_t *)malloc((BT_K + 1) * 64 * 4);
    S.mcap = (BT_K + 1) * 64;
    S.mch = (uint32_t *)malloc(S.mcap * 4);
    if (!S.merged || !S.mch) { free(S.merged); free(S.mch); return bt_oom(B); }
    S.wg_rr = (uint32_t *)calloc(B->alg2 ? B->NS : 1, 4);
    if (!S.wg_rr) { free(S.merged); free(S.mch); return bt_oom(B); }
    int rc = 0;
    for (int L = (int)B->H - 1; L >= 0; L--) {
        u32v newlist = {0};
        uint64_t items_base = PL->items.n;     /* items this level produces (for depth L-1) */
        for (uint32_t gg = 0; gg < (B->alg2 ? B->NS : 1); gg++) S.wg_rr[gg] = 0;
        S.grr = 0;
        for (size_t j = 0; j < G->levels[L].n; j++) {
            const uint32_t x = G->levels[L].v[j];
            u32_push(&newlist, x);
            const int r = bt_plan_node(B, &S, &newlist, L, x);
            if (r == -2) { free(newlist.v); rc = -1; goto done; }
            if (r < 0) break;
        }
        free(G->levels[L].v);
        G->levels[L] = newlist;
        if (PL->oom || G->T.oom || PL->outs.oom || PL->items.oom) break;
        /* index the items produced here by parent node (the parents' tasks at depth L-1) */
        free(S.pfirst);
        free(S.pcount);
        S.pfirst = (uint64_t *)calloc(G->T.n, 8);
        S.pcount = (uint32_t *)calloc(G->T.n, 4);
        if (!S.pfirst || !S.pcount) { PL->oom = 1; break; }
        for (uint64_t q = items_base; q < PL->items.n; q++) {
            /* items of one parent are contiguous: children are in key order */
            uint32_t child = (uint32_t)(PL->items.v[q] >> 32), par = G->T.par[child];
            /* the child's parent may have been set by this level's splits only for new nodes of
             * the same parent: par[] of the new node is the origin's parent */
            if (par == BT_NONE) continue;
            if (S.pcount[par] == 0) S.pfirst[par] = q;
            S.pcount[par]++;
        }
    }
done:
    free(S.pfirst);
    free(S.pcount);
    free(S.merged);
    free(S.mch);
    free(S.wg_rr);
    return rc;
}

/* The memory layout: header, node pool, the volatile key and leaf arrays, and the pending items
 * (volatile), or for logged programs the log areas, the epoch status table and the PM items. */
static int bt_layout(bt_build *B)
{
    bt_ctx *c = B->c;
    const bt_plan *PL = &B->PL;
    wl_alloc al;
    wl_alloc_init(&al, B->prm);
    c->hdr = wl_alloc_pm(&al, 128);
    c->cap = B->G.T.n;
    if (B->logged && bt_bulk_nodes(B->nall) > c->cap) c->cap = (uint32_t)bt_bulk_nodes(B->nall);   /* a recovery rebuild */
    c->pool = wl_alloc_pm(&al, (uint64_t)c->cap * BT_NODE);
    B->keys_vol = wl_alloc_vol(&al, B->ni * 4 + 8);
    B->leaf_vol = wl_alloc_vol(&al, B->ni * 4 + 8);
    B->pend_vol = 0;
    if (!B->logged) {
        B->pend_vol = wl_alloc_vol(&al, (PL->items.n + 1) * 8);
        return 0;
    }
    /* section 8.3: per wavefront, two log areas (epoch parity) of maxt entries (the most node
     * updates it does in one level); the epoch status table: entry 0 for the kernel-scope
     * epochs, then one per workgroup of the subtree phase (Algorithm 2: wavefront 0 notes
     * the workgroup's epoch complete after the workgroup-scope barrier; the workitem-scope
     * variant does the same after its too narrow barrier); the pending items, with a root
     * split's at the end */
    const uint32_t NWX = B->NWX;
    uint32_t *cnt = (uint32_t *)calloc((size_t)B->H * NWX, 4);
    if (!cnt) return bt_oom(B);
    c->maxt = 1;
    for (size_t i = 0; i < PL->n; i++) {
        uint32_t k = ++cnt[(size_t)PL->t[i].depth * NWX + PL->t[i].wave];
        if (k > c->maxt) c->maxt = k;
    }
    free(cnt);
    c->nwx = NWX;
    c->height0 = B->H;
    c->nest = 1 + (B->alg2 ? B->NS : 0);
    c->nitems = PL->items.n + BT_K + 1;
    c->log = wl_alloc_pm(&al, (uint64_t)NWX * 2 * c->maxt * BT_LOGENT);
    c->est = wl_alloc_pm(&al, (uint64_t)c->nest * 8);
    c->items = wl_alloc_pm(&al, c->nitems * BT_ITEM_LOG);
    B->pend_vol = c->items;
    return 0;
}

/* The initial image: the insert keys, and the initial tree (nodes that existed before the
 * insertion, with their initial contents: the insertion changed them in place, so the initial
 * tree is rebuilt) with its header. */
static int bt_write_initial(bt_build *B, mem_image *init)
{
    bt_ctx *c = B->c;
    mem_write(init, B->keys_vol, B->G.ins, (size_t)B->ni * 4);
    bt_gen G0;
    memset(&G0, 0, sizeof G0);
    u32v *lv0 = NULL;
    uint32_t h0;
    uint32_t r0 = bt_bulk(&G0, B->init_keys, B->n0, B->prm->seed, &lv0, &h0);
    if (r0 == BT_NONE || G0.T.n != B->n_init_nodes) {
        if (lv0) for (uint32_t i = 0; i < h0; i++) free(lv0[i].v);
        free(lv0); free(G0.T.w); free(G0.T.par); free(G0.T.sub); free(G0.T.minkey);
        return bt_oom(B);
    }
    mem_write(init, c->pool, G0.T.w, (size_t)G0.T.n * BT_NODE);
    uint32_t h[4] = {r0, h0, G0.T.n, (uint32_t)B->n0};
    mem_write(init, c->hdr, h, sizeof h);
    for (uint32_t i = 0; i < h0; i++) free(lv0[i].v);
    free(lv0); free(G0.T.w); free(G0.T.par); free(G0.T.sub); free(G0.T.minkey);
    return 0;
}

/* The kernels: Algorithm 1 (one kernel, a kernel-scope barrier after every level) or Algorithm 2
 * (a workgroup per subtree, then the levels above d kernel-wide); logged programs note each
 * durable epoch in the EST (est_id: op ids per EST entry and epoch). Returns the header's op id. */
static uint32_t bt_emit_kernels(const bt_build *B, const bt_emit *E, uint32_t *est_id)
{
    persim_prog *p = E->p;
    const bt_ctx *c = B->c;
    const bt_gen *G = &B->G;
    const uint32_t H = B->H, NWG = B->NWG, NW = B->NW, NS = B->NS, d = B->d;
    const uint64_t ni = B->ni;
    const int logged = B->logged;
    const persim_scope wg_scope = B->wg_scope;
    uint32_t hdr_id = 0;
    const uint64_t hdr[4] = {G->root, G->height, G->T.n, B->nall};
    const uint32_t tpb = BT_WAVES * PERSIM_WARP_SIZE;
    if (!B->alg2) {
        /* Algorithm 1: one kernel; kernel-scope barrier after every level */
        prog_kernel(p, "btree_insert_kr", NWG, tpb);
        for (uint32_t b = 0; b < NWG; b++)
            for (uint32_t w = 0; w < BT_WAVES; w++) {
                const uint32_t gw = b * BT_WAVES + w;
                prog_warp(p, b, w);
                emit_search(E, ni * gw / NW, ni * (gw + 1) / NW);
                op_sync(p, SCOPE_DEVICE);
                for (int L = (int)H - 1; L >= 0; L--) {
                    emit_tasks(E, (uint32_t)L, gw);
                    op_sync(p, SCOPE_DEVICE);              /* sync_barrier_kr */
                    op_pbarrier(p, SCOPE_DEVICE);          /* p_barrier_kr */
                    op_sync(p, SCOPE_DEVICE);              /* its rendezvous (see below) */
                    if (logged && gw == 0)                 /* the epoch is durable: EST */
                        est_id[H - L] = op_st_bcast(p, c->est, 8, 1, 8, H - (uint32_t)L);
                }
                if (gw == 0) hdr_id = emit_header(p, c->hdr, hdr, logged);
            }
        return hdr_id;
    }
    /* Algorithm 2: one workgroup per subtree (lines 7-25), then the levels above d with
     * every wavefront (lines 26-33). The kernel-wide wait between the two phases is a
     * kernel boundary here (the paper's single kernel waits by preemption). */
    prog_kernel(p, "btree_insert_wg", NS, tpb);
    for (uint32_t sb = 0; sb < NS; sb++)
        for (uint32_t w = 0; w < BT_WAVES; w++) {
            const uint32_t gw = sb * BT_WAVES + w;
            const uint64_t a0 = B->wg_first[sb], z0 = B->wg_first[sb + 1];
            prog_warp(p, sb, w);
            emit_search(E, a0 + (z0 - a0) * w / BT_WAVES, a0 + (z0 - a0) * (w + 1) / BT_WAVES);
            op_sync(p, SCOPE_BLOCK);
            for (int L = (int)H - 1; L >= (int)d; L--) {
                emit_tasks(E, (uint32_t)L, gw);
                op_sync(p, SCOPE_BLOCK);               /* sync_barrier_wg */
                op_pbarrier(p, wg_scope);              /* p_barrier_wg */
                if (wg_scope != SCOPE_WARP) op_sync(p, SCOPE_BLOCK);   /* its rendezvous */
                if (logged && w == 0)                  /* the workgroup's epoch is durable: EST */
                    est_id[(size_t)(1 + sb) * (H + 1) + H - L] =
                        op_st_bcast(p, c->est + 8ull * (1 + sb), 8, 1, 8, H - (uint32_t)L);
            }
            if (d == 0 && gw == 0) hdr_id = emit_header(p, c->hdr, hdr, logged);
        }
    if (d > 0) {
        prog_kernel(p, "btree_insert_top", NWG, tpb);
        for (uint32_t b = 0; b < NWG; b++)
            for (uint32_t w = 0; w < BT_WAVES; w++) {
                const uint32_t gw = b * BT_WAVES + w;
                prog_warp(p, b, w);
                for (int L = (int)d - 1; L >= 0; L--) {
                    emit_tasks(E, (uint32_t)L, gw);
                    op_sync(p, SCOPE_DEVICE);          /* sync_barrier_kr */
                    op_pbarrier(p, SCOPE_DEVICE);      /* p_barrier_kr */
                    op_sync(p, SCOPE_DEVICE);          /* its rendezvous */
                    if (logged && gw == 0) est_id[H - L] = op_st_bcast(p, c->est, 8, 1, 8, H - (uint32_t)L);
                }
                if (gw == 0) hdr_id = emit_header(p, c->hdr, hdr, logged);
            }
    }
    return hdr_id;
}

/* What a recovery would rely on (checked by `persim check`, docs/checking.md): the nodes a
 * split writes are durable before any node their parent's update writes (which may point
 * to them); the root level's nodes before the header that makes a new root reachable.
 * Appended to the last warp's stream (not executed). */
static void bt_emit_requires(const bt_build *B, persim_prog *p, const uint32_t *sid, const uint32_t *task_of,
                             const uint32_t *log_id, const uint32_t *tag_id, const uint32_t *est_id, uint32_t hdr_id)
{
    const bt_plan *PL = &B->PL;
    const uint32_t H = B->H, d = B->d;
    const int logged = B->logged, alg2 = B->alg2;
    for (size_t i = 0; i < PL->n; i++) {
        const bt_task *tk = &PL->t[i];
        if (tk->nout < 2) continue;
        if (tk->parent == BT_NONE) {
            for (uint32_t o = 0; o < tk->nout; o++) op_require(p, sid[PL->outs.v[tk->out_first + o]], hdr_id);
            continue;
        }
        const uint32_t pt = task_of[tk->parent];
        if (pt == BT_NONE) continue;
        const bt_task *up = &PL->t[pt];
        for (uint32_t o = 0; o < tk->nout; o++)
            for (uint32_t q = 0; q < up->nout; q++)
                op_require(p, sid[PL->outs.v[tk->out_first + o]], sid[PL->outs.v[up->out_first + q]]);
    }
    /* logged: an undo-log entry is durable before its tag, the tag before the node's in-place
     * update; every node an epoch writes is durable before the epoch status entry saying that
     * the epoch completed (for the wavefront that wrote it) */
    for (size_t i = 0; logged && i < PL->n; i++) {
        const bt_task *tk = &PL->t[i];
        op_require(p, log_id[tk->node], tag_id[tk->node]);
        op_require(p, tag_id[tk->node], sid[tk->node]);
        const uint32_t ep = H - tk->depth;
        const uint32_t ei = !alg2 || tk->depth < d ? 0 : 1 + tk->wave / BT_WAVES;
        const uint32_t eid = est_id[(size_t)ei * (H + 1) + ep];
        for (uint32_t o = 0; o < tk->nout && eid; o++) op_require(p, sid[PL->outs.v[tk->out_first + o]], eid);
    }
    if (logged) {
        const uint32_t last = est_id[(size_t)(alg2 && d == 0 ? 1 : 0) * (H + 1) + H];
        if (last) op_require(p, last, hdr_id);
    }
}

/* The program: the tasks ordered by (level, executing wavefront), the kernels, then the
 * requirements. */
static int bt_emit_program(bt_build *B, persim_prog *p, const mem_image *init)
{
    const bt_plan *PL = &B->PL;
    const bt_gen *G = &B->G;
    bt_ctx *c = B->c;
    const uint32_t NWX = B->NWX;
    const size_t nidx = (size_t)B->H * NWX;
    size_t *order = (size_t *)malloc((PL->n + 1) * sizeof *order);
    size_t *wstart = (size_t *)calloc(nidx + 1, sizeof *wstart);
    size_t *fill = (size_t *)malloc((nidx + 1) * sizeof *fill);
    if (!order || !wstart || !fill) {
        free(order); free(wstart); free(fill);
        return bt_oom(B);
    }
    /* tasks by (level, executing wavefront) */
    for (size_t i = 0; i < PL->n; i++) wstart[(size_t)PL->t[i].depth * NWX + PL->t[i].wave + 1]++;
    for (size_t i = 0; i < nidx; i++) wstart[i + 1] += wstart[i];
    memcpy(fill, wstart, (nidx + 1) * sizeof *fill);
    for (size_t i = 0; i < PL->n; i++) order[fill[(size_t)PL->t[i].depth * NWX + PL->t[i].wave]++] = i;
    free(fill);
    uint32_t *sid = (uint32_t *)calloc(G->T.n, 4), *task_of = (uint32_t *)malloc((size_t)G->T.n * 4);
    if (!sid || !task_of) {
        free(order); free(wstart); free(sid); free(task_of);
        return bt_oom(B);
    }
    for (uint32_t i = 0; i < G->T.n; i++) task_of[i] = BT_NONE;
    for (size_t i = 0; i < PL->n; i++) task_of[PL->t[i].node] = (uint32_t)i;
    uint32_t *log_id = NULL, *tag_id = NULL, *est_id = NULL;
    if (B->logged) {
        log_id = (uint32_t *)calloc(G->T.n, 4);
        tag_id = (uint32_t *)calloc(G->T.n, 4);
        est_id = (uint32_t *)calloc((size_t)c->nest * (B->H + 1), 4);
        if (!log_id || !tag_id || !est_id) {
            free(order); free(wstart); free(sid); free(task_of); free(log_id); free(tag_id); free(est_id);
            return bt_oom(B);
        }
    }
    bt_emit E = {p, G, PL, order, wstart, NWX, B->H, B->path, c->pool, B->keys_vol, B->leaf_vol, B->pend_vol, sid,
                 B->logged, init, c->log, PL->items.n, c->maxt, log_id, tag_id};
    const uint32_t hdr_id = bt_emit_kernels(B, &E, est_id);
    bt_emit_requires(B, p, sid, task_of, log_id, tag_id, est_id, hdr_id);
    free(log_id);
    free(tag_id);
    free(est_id);
    free(sid);
    free(task_of);
    free(order);
    free(wstart);
    return 0;
}

static int bt_build_alg(const wl_params *prm, persim_prog *p, mem_image *init, void **ctxp, char *err,
                        size_t errlen, const char *nm, int alg2, persim_scope wg_scope, int logged)
{
    *ctxp = NULL;
    if (prm->size < 1 || prm->size > BT_MAX_SIZE)
        return wl_err(err, errlen, "%s: size %llu out of range (initial keys, 1..%llu)", nm,
                      (unsigned long long)prm->size, BT_MAX_SIZE);
    if (prm->max_threads_per_block < BT_WAVES * PERSIM_WARP_SIZE)
        return wl_err(err, errlen, "%s: max_threads_per_block %u < %u (a workgroup is %u wavefronts)", nm,
                      prm->max_threads_per_block, BT_WAVES * PERSIM_WARP_SIZE, BT_WAVES);
    if (prm->num_sms < 1) return wl_err(err, errlen, "%s: num_sms must be >= 1", nm);
    uint32_t per_sm = prm->max_warps_per_sm ? prm->max_warps_per_sm / BT_WAVES : 8;
    if (per_sm < 1)
        return wl_err(err, errlen, "%s: %u resident warps per SM cannot hold a workgroup of %u wavefronts", nm,
                      prm->max_warps_per_sm, BT_WAVES);

    const uint64_t ni = prm->size / 4 ? prm->size / 4 : 1;
    bt_build B = {.prm = prm, .nm = nm, .alg2 = alg2, .logged = logged, .wg_scope = wg_scope, .err = err,
                  .errlen = errlen, .G = {.prm = prm}, .n0 = prm->size, .ni = ni, .nall = prm->size + ni,
                  .NWG = prm->num_sms * per_sm, .NW = prm->num_sms * per_sm * BT_WAVES};
    int rc = -1;
    bt_ctx *c = B.c = (bt_ctx *)calloc(1, sizeof *c);
    if (!c) return wl_err(err, errlen, "%s: out of memory", nm);
    c->seed = prm->seed;
    c->name = nm;
    c->logged = logged;
    c->alg2 = alg2;

    if (bt_make_keys(&B) != 0 || bt_initial_tree(&B) != 0) goto out;
    if (alg2 && bt_subtrees(&B) != 0) goto out;
    c->d = B.d;
    c->nwg = alg2 ? B.NS : B.NWG;
    B.NWX = alg2 && B.NS * BT_WAVES > B.NW ? B.NS * BT_WAVES : B.NW;   /* wavefront ids of either kernel */
    if (bt_plan_levels(&B) != 0) goto out;
    if (B.PL.oom || B.G.T.oom || B.PL.outs.oom || B.PL.items.oom) { bt_oom(&B); goto out; }
    if (bt_layout(&B) != 0 || bt_write_initial(&B, init) != 0 || bt_emit_program(&B, p, init) != 0) goto out;
    *ctxp = c;
    B.c = NULL;
    rc = 0;
out:
    if (B.G.levels) for (uint32_t i = 0; i < B.G.nlev; i++) free(B.G.levels[i].v);
    free(B.G.levels);
    free(B.G.T.w); free(B.G.T.par); free(B.G.T.sub); free(B.G.T.minkey);
    free(B.G.leaf_of);
    free(B.all); free(B.path); free(B.wg_first);
    free(B.PL.t); free(B.PL.outs.v); free(B.PL.items.v);
    bt_free(B.c);
    return rc;
}

/* ---- verify ------------------------------------------------------------------------------- */

typedef struct bt_frame { uint32_t node, depth; uint64_t lo, hi; } bt_frame;

/* Independent check of the final image: the header names a root and a height; every node
 * reachable from the root is visited once; keys strictly increase inside a node and lie within
 * the separators above it; unused words are zero; every leaf is at depth height-1 (balanced); the
 * leaves' keys, left to right, are exactly the expected keys, each with its value. */
static int bt_verify(const void *vc, const mem_image *img, char *msg, size_t msglen)
{
    const bt_ctx *c = (const bt_ctx *)vc;
    uint32_t h[4];
    mem_read(img, c->hdr, h, sizeof h);
    const uint32_t root = h[0], height = h[1], nnodes = h[2], nkeys = h[3];
    if (height < 1 || height > 32)
        return wl_err(msg, msglen, "btree: header height %u (expected 1..32)", height);
    if (nnodes > c->cap || root >= nnodes)
        return wl_err(msg, msglen, "btree: header root %u / nodes %u outside the pool of %u nodes", root, nnodes, c->cap);
    if (nkeys != c->nkeys)
        return wl_err(msg, msglen, "btree: header says %u keys, expected %llu", nkeys, (unsigned long long)c->nkeys);
    uint8_t *seen = (uint8_t *)calloc(nnodes, 1);
    bt_frame *st = (bt_frame *)malloc(((size_t)height * (BT_K + 1) + 1) * sizeof *st);
    if (!seen || !st) {
        free(seen);
        free(st);
        return wl_err(msg, msglen, "btree verify: out of memory");
    }
    int rc = 0;
    uint64_t next_key = 0, visited = 0;
    size_t sp = 0;
    st[sp++] = (bt_frame){root, 0, 0, 1ull << 32};
    while (sp && !rc) {
        bt_frame f = st[--sp];
        if (f.node >= nnodes) { rc = wl_err(msg, msglen, "btree: child index %u outside the %u nodes", f.node, nnodes); break; }
        if (seen[f.node]) { rc = wl_err(msg, msglen, "btree: node %u reached twice", f.node); break; }
        seen[f.node] = 1;
        visited++;
        uint32_t w[BT_WORDS];
        mem_read(img, c->pool + (uint64_t)f.node * BT_NODE, w, sizeof w);
        const uint32_t n = w[0];
        const int leaf = f.depth + 1 == height;
        if (n < 1 || n > BT_K) { rc = wl_err(msg, msglen, "btree: node %u at depth %u holds %u keys (1..%u)", f.node, f.depth, n, BT_K); break; }
        for (uint32_t i = 0; i < n && !rc; i++) {
            uint64_t k = w[1 + i];
            if (k < f.lo || k >= f.hi || (i > 0 && k <= w[i]) || (!leaf && i == 0 && k <= f.lo))
                rc = wl_err(msg, msglen, "btree: node %u key %u = %llu out of order / outside [%llu, %llu)", f.node, i,
                            (unsigned long long)k, (unsigned long long)f.lo, (unsigned long long)f.hi);
        }
        if (rc) break;
        const uint32_t used = leaf ? n : n + 1;
        for (uint32_t i = n + 1; i < 16 && !rc; i++)
            if (w[i]) rc = wl_err(msg, msglen, "btree: node %u unused key word %u = %u (expected 0)", f.node, i, w[i]);
        for (uint32_t i = 16 + used; i < BT_WORDS && !rc; i++)
            if (w[i]) rc = wl_err(msg, msglen, "btree: node %u unused word %u = %u (expected 0)", f.node, i, w[i]);
        if (rc) break;
        if (leaf) {
            for (uint32_t i = 0; i < n && !rc; i++) {
                if (next_key >= c->nkeys || w[1 + i] != c->keys[next_key])
                    rc = wl_err(msg, msglen, "btree: leaf %u key %u = %u, expected %s%llu", f.node, i, w[1 + i],
                                next_key >= c->nkeys ? "no more keys after " : "",
                                (unsigned long long)(next_key < c->nkeys ? c->keys[next_key] : c->keys[c->nkeys - 1]));
                else if (w[16 + i] != bt_val(w[1 + i], c->seed))
                    rc = wl_err(msg, msglen, "btree: leaf %u value of key %u = %u, expected %u", f.node, w[1 + i],
                                w[16 + i], bt_val(w[1 + i], c->seed));
                next_key++;
            }
        } else {
            /* children pushed right to left so that leaves are visited in key order */
            for (uint32_t i = n + 1; i-- > 0;) {
                uint64_t lo = i == 0 ? f.lo : w[i], hi = i == n ? f.hi : w[1 + i];
                st[sp++] = (bt_frame){w[16 + i], f.depth + 1, lo, hi};
            }
        }
    }
    if (!rc && next_key != c->nkeys)
        rc = wl_err(msg, msglen, "btree: the leaves hold %llu keys, expected %llu", (unsigned long long)next_key,
                    (unsigned long long)c->nkeys);
    if (!rc && visited != nnodes)
        rc = wl_err(msg, msglen, "btree: %llu nodes reachable, header says %u", (unsigned long long)visited, nnodes);
    free(seen);
    free(st);
    return rc;
}

/* ---- recovery (section 8.3) ------------------------------------------------------------- */

/* The epoch status entry that says whether wavefront gw's writes of epoch ep are complete
 * (BT_NONE: no wavefront of the program writes that epoch). */
static uint32_t bt_est_index(const bt_ctx *c, uint32_t gw, uint32_t ep)
{
    if (!c->alg2 || ep > c->height0 - c->d) return 0;
    return 1 + gw / BT_WAVES < c->nest ? 1 + gw / BT_WAVES : BT_NONE;
}

typedef struct bt_walk {
    const bt_ctx *c;
    const mem_image *img;
    uint8_t *seen;
    u64v kv;                       /* key << 32 | value of every leaf entry found */
    bt_frame *st;
    char *err;
    size_t errlen;
} bt_walk;

/* Walks the subtree of `node` (`levels` levels down to its leaves, keys in [lo, hi)) with the
 * checks of bt_verify, collecting the leaves' entries. 0, or -1 with the reason. */
static int bt_walk_sub(bt_walk *W, uint32_t node, uint32_t levels, uint64_t lo, uint64_t hi)
{
    const bt_ctx *c = W->c;
    size_t sp = 0;
    W->st[sp++] = (bt_frame){node, levels, lo, hi};
    while (sp) {
        bt_frame f = W->st[--sp];
        if (f.node >= c->cap) return wl_err(W->err, W->errlen, "child index %u outside the pool of %u nodes", f.node, c->cap);
        if (W->seen[f.node]) return wl_err(W->err, W->errlen, "node %u reached twice", f.node);
        W->seen[f.node] = 1;
        uint32_t w[BT_WORDS];
        mem_read(W->img, c->pool + (uint64_t)f.node * BT_NODE, w, sizeof w);
        const uint32_t n = w[0];
        const int leaf = f.depth == 1;
        if (n < 1 || n > BT_K)
            return wl_err(W->err, W->errlen, "node %u (%u levels above the leaves) holds %u keys (1..%u)", f.node,
                          f.depth - 1, n, BT_K);
        for (uint32_t i = 0; i < n; i++) {
            uint64_t k = w[1 + i];
            if (k < f.lo || k >= f.hi || (i > 0 && k <= w[i]) || (!leaf && i == 0 && k <= f.lo))
                return wl_err(W->err, W->errlen, "node %u key %u = %llu out of order / outside [%llu, %llu)", f.node, i,
                              (unsigned long long)k, (unsigned long long)f.lo, (unsigned long long)f.hi);
        }
        const uint32_t used = leaf ? n : n + 1;
        for (uint32_t i = n + 1; i < 16; i++)
            if (w[i]) return wl_err(W->err, W->errlen, "node %u unused key word %u = %u", f.node, i, w[i]);
        for (uint32_t i = 16 + used; i < BT_WORDS; i++)
            if (w[i]) return wl_err(W->err, W->errlen, "node %u unused word %u = %u", f.node, i, w[i]);
        if (leaf) {
            for (uint32_t i = 0; i < n; i++) {
                if (w[16 + i] != bt_val(w[1 + i], c->seed))
                    return wl_err(W->err, W->errlen, "leaf %u key %u has value %u, expected %u", f.node, w[1 + i], w[16 + i],
                                  bt_val(w[1 + i], c->seed));
                u64_push(&W->kv, (uint64_t)w[1 + i] << 32 | w[16 + i]);
            }
        } else {
            for (uint32_t i = n + 1; i-- > 0;) {
                uint64_t l = i == 0 ? f.lo : w[i], h = i == n ? f.hi : w[1 + i];
                W->st[sp++] = (bt_frame){w[16 + i], f.depth - 1, l, h};
            }
        }
    }
    return 0;
}

typedef struct bt_undo { uint32_t ep, node; uint64_t at; } bt_undo;
typedef struct bt_item { uint32_t ep, sep, child; uint64_t idx; } bt_item;

static int cmp_undo(const void *a, const void *b)   /* newest epoch first, then log position */
{
    const bt_undo *x = (const bt_undo *)a, *y = (const bt_undo *)b;
    if (x->ep != y->ep) return x->ep > y->ep ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}
static int cmp_item(const void *a, const void *b)   /* nearest the root first */
{
    const bt_item *x = (const bt_item *)a, *y = (const bt_item *)b;
    if (x->ep != y->ep) return x->ep > y->ep ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Recovery step 1 (bt_recover): the log entries of epochs the epoch status table (est) does not mark
 * complete are restored into `work`, oldest first, and the recovery kernel that does so is emitted. */
static int bt_rollback(const bt_ctx *c, const mem_image *durable, mem_image *work, const uint64_t *est, bt_undo *un,
                       persim_prog *p, const wl_range rg[5], char *err, size_t errlen)
{
    const uint32_t H0 = c->height0;
    const uint64_t nslots = (uint64_t)c->nwx * 2 * c->maxt;
    size_t nu = 0;
    for (uint64_t sl = 0; sl < nslots; sl++) {
        const uint64_t at = c->log + sl * BT_LOGENT;
        const uint64_t tag = mem_read_u64(durable, at + BT_NODE);
        const uint32_t ep = (uint32_t)tag, node = (uint32_t)(tag >> 32), gw = (uint32_t)(sl / (2ull * c->maxt));
        if (ep == 0) continue;
        if (ep > H0 || node >= c->cap || (ep & 1) != (sl / c->maxt) % 2 || bt_est_index(c, gw, ep) == BT_NONE) {
            wl_err(err, errlen, "%s recover: log entry %llu names epoch %u node %u (not an entry of this program)", c->name,
                   (unsigned long long)sl, ep, node);
            return -1;
        }
        if (ep <= est[bt_est_index(c, gw, ep)]) continue;     /* its epoch completed */
        un[nu++] = (bt_undo){ep, node, at};
    }
    qsort(un, nu, sizeof *un, cmp_undo);
    for (size_t i = 0; i < nu; i++) {
        uint8_t old[BT_NODE];
        mem_read(durable, un[i].at, old, BT_NODE);
        mem_write(work, c->pool + (uint64_t)un[i].node * BT_NODE, old, BT_NODE);
    }
    /* the recovery kernel reads the epoch status table and the undo log, then restores */
    const wl_range reads[2] = { { c->est, (uint64_t)c->nest * 8 }, { c->log, nslots * BT_LOGENT } };
    if (wl_emit_recovery(p, "btree_recover_rollback", reads, 2, durable, work, NULL, rg, 5) != 0) {
        wl_err(err, errlen, "%s recover: out of memory", c->name);
        return -1;
    }
    return 0;
}

/* Undo-log recovery (section 8.3). Reads the epoch status table; every log entry whose epoch the
 * EST does not mark complete (for the wavefront that wrote it) is rolled back, newest epoch first
 * (recovery kernel "btree_recover_rollback": it loads the status table and the log, then
 * restores). The rolled-back state must be the tree of the last completed epochs:
 * the tree reachable from the header plus the subtrees the pending items of completed epochs name
 * (split-off nodes whose parent's update was rolled back or not done). It is checked like
 * bt_verify checks a tree (a state that is not a B+tree is reported: the recovery gives up).
 * Resuming the insertion: the host merges the keys found with the key batch (its input) and
 * bulk-loads the finished tree; kernel "btree_resume" stores the difference and clears the log,
 * the EST and the items. */
static int bt_recover(const void *vc, const mem_image *durable, persim_prog *p, mem_image *img, char *err, size_t errlen)
{
    const bt_ctx *c = (const bt_ctx *)vc;
    (void)img;
    const uint32_t H0 = c->height0;
    const uint64_t nslots = (uint64_t)c->nwx * 2 * c->maxt;
    mem_image *work = mem_clone(durable), *before = NULL;
    uint64_t *est = (uint64_t *)malloc((size_t)c->nest * 8);
    bt_undo *un = (bt_undo *)malloc((size_t)nslots * sizeof *un);
    bt_item *it = (bt_item *)malloc((size_t)c->nitems * sizeof *it);
    bt_walk W;
    memset(&W, 0, sizeof W);
    W.c = c;
    W.err = err;
    W.errlen = errlen;
    W.seen = (uint8_t *)calloc(c->cap, 1);
    W.st = (bt_frame *)malloc(((size_t)(H0 + 1) * (BT_K + 1) + 1) * sizeof *W.st);
    uint32_t *keys = NULL;
    bt_gen G2;
    memset(&G2, 0, sizeof G2);
    u32v *lv2 = NULL;
    uint32_t h2 = 0;
    int rc = -1;
    const wl_range rg[5] = { { c->hdr, 16 }, { c->pool, (uint64_t)c->cap * BT_NODE }, { c->log, nslots * BT_LOGENT },
                             { c->est, (uint64_t)c->nest * 8 }, { c->items, c->nitems * BT_ITEM_LOG } };
    if (!work || !est || !un || !it || !W.seen || !W.st) { wl_err(err, errlen, "%s recover: out of memory", c->name); goto out; }
    mem_read(durable, c->est, est, (size_t)c->nest * 8);
    for (uint32_t i = 0; i < c->nest; i++)
        if (est[i] > H0) {
            wl_err(err, errlen, "%s recover: epoch status entry %u = %llu (epochs are 1..%u)", c->name, i,
                   (unsigned long long)est[i], H0);
            goto out;
        }

    /* 1. roll back the partially persisted epochs */
    if (bt_rollback(c, durable, work, est, un, p, rg, err, errlen) != 0) goto out;

    /* 2. the tree of the completed epochs: from the header, then the pending items */
    W.img = work;
    uint32_t h[4];
    mem_read(work, c->hdr, h, sizeof h);
    if (h[1] < 1 || h[1] > H0 + 1 || h[0] >= c->cap) {
        wl_err(err, errlen, "%s recover: header root %u height %u (pool of %u nodes, height %u or %u)", c->name, h[0], h[1],
               c->cap, H0, H0 + 1);
        goto out;
    }
    char why[512] = "";
    W.err = why;
    W.errlen = sizeof why;
    if (bt_walk_sub(&W, h[0], h[1], 0, 1ull << 32) != 0) goto invalid;
    size_t nit = 0;
    for (uint64_t i = 0; i < c->nitems; i++) {
        uint32_t e[4];   /* sep, child, epoch, wavefront */
        mem_read(work, c->items + i * BT_ITEM_LOG, e, sizeof e);
        if (e[2] == 0) continue;
        if (e[2] > H0 || e[3] >= c->nwx || bt_est_index(c, e[3], e[2]) == BT_NONE) {
            wl_err(err, errlen, "%s recover: pending item %llu names epoch %u wavefront %u", c->name, (unsigned long long)i,
                   e[2], e[3]);
            goto out;
        }
        if (e[2] > est[bt_est_index(c, e[3], e[2])]) continue;   /* rolled back */
        it[nit++] = (bt_item){e[2], e[0], e[1], i};
    }
    qsort(it, nit, sizeof *it, cmp_item);
    for (size_t i = 0; i < nit; i++) {
        if (it[i].child < c->cap && W.seen[it[i].child]) continue;    /* its parent was updated */
        if (bt_walk_sub(&W, it[i].child, it[i].ep, it[i].sep, 1ull << 32) != 0) goto invalid;
    }
    if (W.kv.oom) { wl_err(err, errlen, "%s recover: out of memory", c->name); goto out; }
    qsort(W.kv.v, W.kv.n, 8, cmp_u64);
    for (size_t i = 1; i < W.kv.n; i++)
        if (W.kv.v[i] >> 32 == W.kv.v[i - 1] >> 32) {
            snprintf(why, sizeof why, "key %u is in two leaves", (uint32_t)(W.kv.v[i] >> 32));
            goto invalid;
        }

    /* 3. resume: the keys found and the batch, bulk-loaded */
    keys = (uint32_t *)malloc((W.kv.n + c->ni + 1) * 4);
    if (!keys) { wl_err(err, errlen, "%s recover: out of memory", c->name); goto out; }
    size_t nk = 0, a = 0, b = 0;
    while (a < W.kv.n || b < c->ni) {
        uint32_t ka = a < W.kv.n ? (uint32_t)(W.kv.v[a] >> 32) : BT_NONE, kb = b < c->ni ? c->ins[b] : BT_NONE;
        uint32_t k = ka < kb ? ka : kb;
        keys[nk++] = k;
        if (ka == k) a++;
        if (kb == k) b++;
    }
    const uint32_t root = bt_bulk(&G2, keys, nk, c->seed, &lv2, &h2);
    if (root == BT_NONE || G2.T.oom) { wl_err(err, errlen, "%s recover: out of memory", c->name); goto out; }
    if (G2.T.n > c->cap) {
        wl_err(err, errlen, "%s recover: %zu keys need %u nodes, the pool has %u", c->name, nk, G2.T.n, c->cap);
        goto out;
    }
    before = mem_clone(work);
    if (!before) { wl_err(err, errlen, "%s recover: out of memory", c->name); goto out; }
    mem_write(work, c->pool, G2.T.w, (size_t)G2.T.n * BT_NODE);
    {
        const uint32_t nh[4] = {root, h2, G2.T.n, (uint32_t)nk};
        mem_write(work, c->hdr, nh, sizeof nh);
        static const uint8_t zero[BT_LOGENT] = {0};
        for (uint64_t sl = 0; sl < nslots; sl++) mem_write(work, c->log + sl * BT_LOGENT, zero, BT_LOGENT);
        for (uint32_t i = 0; i < c->nest; i++) mem_write(work, c->est + 8ull * i, zero, 8);
        for (uint64_t i = 0; i < c->nitems; i++) mem_write(work, c->items + i * BT_ITEM_LOG, zero, BT_ITEM_LOG);
    }
    if (wl_emit_phase(p, "btree_resume", before, work, rg, 5) != 0) {
        wl_err(err, errlen, "%s recover: out of memory", c->name);
        goto out;
    }
    rc = 0;
    goto out;
invalid:
    wl_err(err, errlen, "%s recover: after rolling back the epochs the epoch status table does not mark complete, "
           "the persistent state is not a B+tree (%s)", c->name, why);
out:
    if (lv2) for (uint32_t i = 0; i < h2; i++) free(lv2[i].v);
    free(lv2);
    free(G2.T.w); free(G2.T.par); free(G2.T.sub); free(G2.T.minkey);
    free(keys);
    free(W.kv.v);
    free(W.seen);
    free(W.st);
    free(est);
    free(un);
    free(it);
    if (work) mem_free(work);
    if (before) mem_free(before);
    return rc;
}

static int bt_build_kr(const wl_params *prm, persim_prog *p, mem_image *init, void **ctx, char *err, size_t errlen)
{
    return bt_build_alg(prm, p, init, ctx, err, errlen, "btree-kr", 0, SCOPE_DEVICE, 0);
}

static int bt_build_wg(const wl_params *prm, persim_prog *p, mem_image *init, void **ctx, char *err, size_t errlen)
{
    return bt_build_alg(prm, p, init, ctx, err, errlen, "btree-wg", 1, SCOPE_BLOCK, 0);
}

static int bt_build_kr_log(const wl_params *prm, persim_prog *p, mem_image *init, void **ctx, char *err, size_t errlen)
{
    return bt_build_alg(prm, p, init, ctx, err, errlen, "btree-kr-log", 0, SCOPE_DEVICE, 1);
}

static int bt_build_wg_log(const wl_params *prm, persim_prog *p, mem_image *init, void **ctx, char *err, size_t errlen)
{
    return bt_build_alg(prm, p, init, ctx, err, errlen, "btree-wg-log", 1, SCOPE_BLOCK, 1);
}

const persim_workload wl_btree_kr_workload = {
    .name = "btree-kr",
    .desc = "parallel B+tree insertion, Algorithm 1: kernel-scope persist barrier after every level "
            "(scoped persist barriers paper, section 5.1); the measured program, no recovery procedure (btree-kr-log has one)",
    .size_desc = "keys in the initial tree (size/4 more are inserted)",
    .pmo = "kernel-scope persist barriers",
    .recovery = "native",
    .default_size = 1048576,
    .small_size = 8192,
    .build = bt_build_kr,
    .verify = bt_verify,
    .free_ctx = bt_free,
};
PERSIM_WORKLOAD(wl_btree_kr_workload, WL_GPU, 70);

const persim_workload wl_btree_wg_workload = {
    .name = "btree-wg",
    .desc = "parallel B+tree insertion, Algorithm 2: workgroup-scope persist barriers over disjoint "
            "subtrees below depth d, kernel scope above (section 5.1); the measured program, no recovery procedure "
            "(btree-wg-log has one)",
    .size_desc = "keys in the initial tree (size/4 more are inserted)",
    .pmo = "workgroup/kernel-scope persist barriers",
    .recovery = "native",
    .default_size = 1048576,
    .small_size = 8192,
    .build = bt_build_wg,
    .verify = bt_verify,
    .free_ctx = bt_free,
};
PERSIM_WORKLOAD(wl_btree_wg_workload, WL_GPU, 80);

/* The recoverable programs: Algorithms 1 and 2 with the undo log and epoch status table of
 * section 8.3 (see emit_tasks and bt_recover). */
const persim_workload wl_btree_kr_log_workload = {
    .name = "btree-kr-log",
    .desc = "btree-kr with the undo log and epoch status table of section 8.3 (recoverable: persim crash)",
    .size_desc = "keys in the initial tree (size/4 more are inserted)",
    .pmo = "kernel-scope persist barriers",
    .recovery = "logging",
    .default_size = 1048576,
    .small_size = 8192,
    .build = bt_build_kr_log,
    .verify = bt_verify,
    .free_ctx = bt_free,
    .recover = bt_recover,
};
PERSIM_WORKLOAD(wl_btree_kr_log_workload, WL_GPU, 100);

const persim_workload wl_btree_wg_log_workload = {
    .name = "btree-wg-log",
    .desc = "btree-wg with the undo log and epoch status table of section 8.3 (recoverable: persim crash)",
    .size_desc = "keys in the initial tree (size/4 more are inserted)",
    .pmo = "workgroup/kernel-scope persist barriers",
    .recovery = "logging",
    .default_size = 1048576,
    .small_size = 8192,
    .build = bt_build_wg_log,
    .verify = bt_verify,
    .free_ctx = bt_free,
    .recover = bt_recover,
};
PERSIM_WORKLOAD(wl_btree_wg_log_workload, WL_GPU, 110);

/* The scoped persistency bug of the paper's point 1 (sections 1, 4): btree-wg-log with workitem
 * scope where workgroup scope is needed (sync(block) then pbarrier(warp) after each level of a
 * subtree; each wavefront then notes its own epoch complete in the EST). A parent node updated by
 * one wavefront may then persist before the children another wavefront of its workgroup split
 * off: `persim check` reports the split-before-parent requirements as not guaranteed, and
 * `persim crash --images model` finds crash states whose rolled-back tree is not a B+tree. */
static int bt_build_wg_wi_bug(const wl_params *prm, persim_prog *p, mem_image *init, void **ctx, char *err,
                              size_t errlen)
{
    return bt_build_alg(prm, p, init, ctx, err, errlen, "btree-wg-wi-bug", 1, SCOPE_WARP, 1);
}

const persim_workload wl_btree_wg_wi_bug_workload = {
    .name = "btree-wg-wi-bug",
    .desc = "btree-wg-log with workitem-scope persist barriers where workgroup scope is needed (deliberate "
            "scoped persistency bug, the paper's point 1; persim check: not guaranteed; persim crash: fails on model "
            "images)",
    .size_desc = "keys in the initial tree (size/4 more are inserted)",
    .pmo = "workitem/kernel-scope persist barriers (too narrow)",
    .recovery = "logging",
    .default_size = 1048576,
    .small_size = 8192,
    .build = bt_build_wg_wi_bug,
    .verify = bt_verify,
    .free_ctx = bt_free,
    .recover = bt_recover,
};
PERSIM_WORKLOAD(wl_btree_wg_wi_bug_workload, WL_VARIANT, 30);
