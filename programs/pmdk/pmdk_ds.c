/* pmdk_ds: persistent data structures on libpmemobj's transactional API, for tracing with
 * `persim trace-program` (docs/real-programs.md, scripts/real_programs.py).
 *
 *   pmdk_ds STRUCT POOLFILE [-n OPS] [-t THREADS] [-s SEED] [-l global|striped]
 *
 * STRUCT: hashmap (chained hash table, 1024 buckets), queue (linked FIFO, enqueue/dequeue),
 * bstree (unbalanced binary search tree, insert/update; a stand-in for PMDK's ctree example, not
 * a crit-bit tree), array (SPS-style random swaps of 64-byte records), rbtree (red-black tree,
 * insert/update, CLRS fix-up with every changed node snapshotted), btree (B-tree of minimum
 * degree 4, insert/update with preemptive splits). Every operation is one
 * transaction (TX_BEGIN/TX_END with pmemobj_tx_add_range_direct undo logging and
 * pmemobj_tx_zalloc for new nodes) under one pthread mutex per structure (PMDK transactions give
 * failure atomicity, not isolation). THREADS threads take OPS operations in total, dealt
 * round-robin by a shared ticket. Keys are a deterministic hash of (SEED, op number).
 * -l striped (hashmap only): 64 stripe locks instead of the one lock, and each thread works on
 * its own keys (operations t, t+T, ...), so threads update the table in parallel.
 *
 * The pool is created fresh (the file is removed first), 16 MiB. Run with PMEM_IS_PMEM_FORCE=1 so
 * that PMDK flushes with cache-line flushes instead of msync. The program tells the tool the pool
 * mapping (PT_PM_RANGE) and records only the operations (PT_START after the pool is created and
 * the structure initialised, PT_STOP before it is closed): run the tool with --start=request.
 * At the end it checks the structure against a volatile replay and exits 1 on a mismatch. */
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libpmemobj.h>
#include "persimtrace.h"

#define POOL_SIZE (16u << 20)
#define NBUCKETS 1024u
#define NRECORDS 256u

struct hm_entry { uint64_t key, val; PMEMoid next; };
struct q_node { uint64_t val; PMEMoid next; };
struct bst_node { uint64_t key, val; PMEMoid left, right; };
struct record { uint64_t id, version, payload[6]; };
struct rb_node { uint64_t key, val, red; PMEMoid parent, left, right; };
#define BT_T 4                   /* minimum degree: 3..7 keys per node (root: 1..7) */
#define BT_MAX (2 * BT_T - 1)
struct bt_node { uint64_t n, leaf, key[BT_MAX], val[BT_MAX]; PMEMoid child[BT_MAX + 1]; };

struct root {
    uint64_t kind, count, sum;
    PMEMoid buckets;            /* hashmap: NBUCKETS PMEMoids */
    PMEMoid head, tail;         /* queue */
    PMEMoid tree;               /* bstree */
    PMEMoid records;            /* array */
};

static PMEMobjpool *pop;
static struct root *R;
static pthread_mutex_t big_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t n_ops = 2000, seed = 1, next_op = 0;
static uint64_t mix(uint64_t x);
static int kind, striped = 0, n_threads = 1;
#define NSTRIPES 64u
static pthread_mutex_t stripe_lock[NSTRIPES];

/* The key of operation i (hashmap, bstree). Striped mode: thread i % T owns the keys k with
 * k % T == i % T, so a key is only ever written by one thread, in its program order. */
static uint64_t key_of(uint64_t i)
{
    uint64_t h = mix(seed * 0x100000001b3ull + i);
    if (!striped) return h % (n_ops / 2 + 1) + 1;
    uint64_t T = (uint64_t)n_threads, per = n_ops / 2 / T + 1;
    return (h % per) * T + i % T + 1;
}

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

#define D(oid) pmemobj_direct(oid)
#define ADD(p, n) pmemobj_tx_add_range_direct((p), (n))

static void hm_put(uint64_t k, uint64_t v)
{
    PMEMoid *b = (PMEMoid *)D(R->buckets) + (k % NBUCKETS);
    TX_BEGIN(pop) {
        for (PMEMoid e = *b; !OID_IS_NULL(e); e = ((struct hm_entry *)D(e))->next) {
            struct hm_entry *p = D(e);
            if (p->key == k) {
                ADD(&p->val, 8);
                p->val = v;
                goto done;
            }
        }
        PMEMoid n = pmemobj_tx_zalloc(sizeof(struct hm_entry), 1);
        struct hm_entry *p = D(n);
        p->key = k;
        p->val = v;
        p->next = *b;
        ADD(b, sizeof *b);
        *b = n;
        ADD(&R->count, 8);
        R->count++;
    done:;
    } TX_END
}

static void q_op(uint64_t k)
{
    TX_BEGIN(pop) {
        if ((k & 3) != 0 || OID_IS_NULL(R->head)) {      /* 3/4 enqueue */
            PMEMoid n = pmemobj_tx_zalloc(sizeof(struct q_node), 2);
            ((struct q_node *)D(n))->val = k;
            ADD(&R->head, 2 * sizeof(PMEMoid));
            if (OID_IS_NULL(R->tail)) R->head = n;
            else {
                struct q_node *t = D(R->tail);
                ADD(&t->next, sizeof(PMEMoid));
                t->next = n;
            }
            R->tail = n;
            ADD(&R->count, 16);
            R->count++;
            R->sum += k;
        } else {                                          /* dequeue */
            PMEMoid h = R->head;
            struct q_node *p = D(h);
            ADD(&R->head, 2 * sizeof(PMEMoid));
            R->head = p->next;
            if (OID_IS_NULL(R->head)) R->tail = OID_NULL;
            ADD(&R->count, 16);
            R->count--;
            R->sum -= p->val;
            pmemobj_tx_free(h);
        }
    } TX_END
}

static void bst_put(uint64_t k, uint64_t v)
{
    TX_BEGIN(pop) {
        PMEMoid *link = &R->tree;
        while (!OID_IS_NULL(*link)) {
            struct bst_node *p = D(*link);
            if (p->key == k) {
                ADD(&p->val, 8);
                p->val = v;
                goto done;
            }
            link = k < p->key ? &p->left : &p->right;
        }
        PMEMoid n = pmemobj_tx_zalloc(sizeof(struct bst_node), 3);
        struct bst_node *p = D(n);
        p->key = k;
        p->val = v;
        ADD(link, sizeof *link);
        *link = n;
        ADD(&R->count, 8);
        R->count++;
    done:;
    } TX_END
}


/* ---- red-black tree (CLRS insert; every node a transaction snapshot before it changes) ---- */
#define RB(o) ((struct rb_node *)D(o))
static int oid_eq(PMEMoid a, PMEMoid b) { return a.off == b.off && a.pool_uuid_lo == b.pool_uuid_lo; }
static void rb_snap(PMEMoid o)
{
    if (!OID_IS_NULL(o)) ADD(D(o), sizeof(struct rb_node));
}
static void rb_set_child(PMEMoid parent, PMEMoid old, PMEMoid nw)
{
    if (OID_IS_NULL(parent)) {
        ADD(&R->tree, sizeof(PMEMoid));
        R->tree = nw;
    } else {
        rb_snap(parent);
        if (oid_eq(RB(parent)->left, old)) RB(parent)->left = nw;
        else RB(parent)->right = nw;
    }
}
static void rb_rotate(PMEMoid x, int left)
{
    struct rb_node *X = RB(x);
    PMEMoid y = left ? X->right : X->left;
    struct rb_node *Y = RB(y);
    rb_snap(x);
    rb_snap(y);
    PMEMoid inner = left ? Y->left : Y->right;
    if (left) X->right = inner;
    else X->left = inner;
    if (!OID_IS_NULL(inner)) {
        rb_snap(inner);
        RB(inner)->parent = x;
    }
    Y->parent = X->parent;
    rb_set_child(X->parent, x, y);
    if (left) Y->left = x;
    else Y->right = x;
    X->parent = y;
}
static int rb_red(PMEMoid o) { return !OID_IS_NULL(o) && RB(o)->red; }

static void rb_put(uint64_t k, uint64_t v)
{
    TX_BEGIN(pop) {
        PMEMoid parent = OID_NULL, cur = R->tree;
        while (!OID_IS_NULL(cur)) {
            struct rb_node *p = RB(cur);
            if (p->key == k) {
                ADD(&p->val, 8);
                p->val = v;
                goto done;
            }
            parent = cur;
            cur = k < p->key ? p->left : p->right;
        }
        PMEMoid z = pmemobj_tx_zalloc(sizeof(struct rb_node), 6);
        RB(z)->key = k;
        RB(z)->val = v;
        RB(z)->red = 1;
        RB(z)->parent = parent;
        if (OID_IS_NULL(parent)) {
            ADD(&R->tree, sizeof(PMEMoid));
            R->tree = z;
        } else {
            rb_snap(parent);
            if (k < RB(parent)->key) RB(parent)->left = z;
            else RB(parent)->right = z;
        }
        while (rb_red(RB(z)->parent)) {
            PMEMoid p = RB(z)->parent, g = RB(p)->parent;
            int pleft = oid_eq(RB(g)->left, p);
            PMEMoid u = pleft ? RB(g)->right : RB(g)->left;
            if (rb_red(u)) {
                rb_snap(p);
                rb_snap(u);
                rb_snap(g);
                RB(p)->red = 0;
                RB(u)->red = 0;
                RB(g)->red = 1;
                z = g;
            } else {
                if (oid_eq(pleft ? RB(p)->right : RB(p)->left, z)) {
                    z = p;
                    rb_rotate(z, pleft);
                    p = RB(z)->parent;
                    g = RB(p)->parent;
                }
                rb_snap(p);
                rb_snap(g);
                RB(p)->red = 0;
                RB(g)->red = 1;
                rb_rotate(g, !pleft);
            }
        }
        rb_snap(R->tree);
        RB(R->tree)->red = 0;
        ADD(&R->count, 8);
        R->count++;
    done:;
    } TX_END
}

/* black height of the subtree, or -1 if a red-black or order property fails */
static int rb_check(PMEMoid o, uint64_t lo, uint64_t hi, const uint64_t *val, uint64_t nk, uint64_t *seen)
{
    if (OID_IS_NULL(o)) return 1;
    struct rb_node *n = RB(o);
    if (n->key <= lo || n->key >= hi || n->key >= nk || val[n->key] != n->val) return -1;
    if (n->red && (rb_red(n->left) || rb_red(n->right))) return -1;
    (*seen)++;
    int l = rb_check(n->left, lo, n->key, val, nk, seen), r = rb_check(n->right, n->key, hi, val, nk, seen);
    if (l < 0 || r < 0 || l != r) return -1;
    return l + !n->red;
}


/* ---- B-tree (CLRS insert with preemptive splits; nodes snapshotted before they change) ---- */
#define BT(o) ((struct bt_node *)D(o))
static void bt_split_child(PMEMoid x, unsigned i)
{
    struct bt_node *X = BT(x);
    PMEMoid y = X->child[i];
    struct bt_node *Y = BT(y);
    PMEMoid z = pmemobj_tx_zalloc(sizeof(struct bt_node), 7);
    struct bt_node *Z = BT(z);
    ADD(X, sizeof *X);
    ADD(Y, sizeof *Y);
    Z->leaf = Y->leaf;
    Z->n = BT_T - 1;
    for (unsigned j = 0; j < BT_T - 1; j++) {
        Z->key[j] = Y->key[j + BT_T];
        Z->val[j] = Y->val[j + BT_T];
    }
    if (!Y->leaf)
        for (unsigned j = 0; j < BT_T; j++) Z->child[j] = Y->child[j + BT_T];
    Y->n = BT_T - 1;
    for (unsigned j = (unsigned)X->n + 1; j > i + 1; j--) X->child[j] = X->child[j - 1];
    X->child[i + 1] = z;
    for (unsigned j = (unsigned)X->n; j > i; j--) {
        X->key[j] = X->key[j - 1];
        X->val[j] = X->val[j - 1];
    }
    X->key[i] = Y->key[BT_T - 1];
    X->val[i] = Y->val[BT_T - 1];
    X->n++;
}

static void bt_put(uint64_t k, uint64_t v)
{
    TX_BEGIN(pop) {
        for (PMEMoid c = R->tree; !OID_IS_NULL(c);) {          /* an update? */
            struct bt_node *N = BT(c);
            unsigned i = 0;
            while (i < N->n && k > N->key[i]) i++;
            if (i < N->n && N->key[i] == k) {
                ADD(&N->val[i], 8);
                N->val[i] = v;
                goto done;
            }
            if (N->leaf) break;
            c = N->child[i];
        }
        if (OID_IS_NULL(R->tree)) {
            PMEMoid r = pmemobj_tx_zalloc(sizeof(struct bt_node), 7);
            BT(r)->leaf = 1;
            ADD(&R->tree, sizeof(PMEMoid));
            R->tree = r;
        }
        PMEMoid x = R->tree;
        if (BT(x)->n == BT_MAX) {
            PMEMoid s = pmemobj_tx_zalloc(sizeof(struct bt_node), 7);
            BT(s)->child[0] = x;
            ADD(&R->tree, sizeof(PMEMoid));
            R->tree = s;
            bt_split_child(s, 0);
            x = s;
        }
        for (;;) {
            struct bt_node *X = BT(x);
            if (X->leaf) {
                ADD(X, sizeof *X);
                unsigned j = (unsigned)X->n;
                while (j > 0 && X->key[j - 1] > k) {
                    X->key[j] = X->key[j - 1];
                    X->val[j] = X->val[j - 1];
                    j--;
                }
                X->key[j] = k;
                X->val[j] = v;
                X->n++;
                break;
            }
            unsigned i = 0;
            while (i < X->n && k > X->key[i]) i++;
            if (BT(X->child[i])->n == BT_MAX) {
                bt_split_child(x, i);
                if (k > X->key[i]) i++;
            }
            x = X->child[i];
        }
        ADD(&R->count, 8);
        R->count++;
    done:;
    } TX_END
}

/* depth of the leaves under o, or -1 if an order, fill or value property fails */
static int bt_check(PMEMoid o, int root, uint64_t lo, uint64_t hi, const uint64_t *val, uint64_t nk, uint64_t *seen)
{
    struct bt_node *N = BT(o);
    if (N->n > BT_MAX || N->n < (root ? 1u : BT_T - 1u)) return -1;
    int depth = -2;
    for (unsigned i = 0; i <= N->n; i++) {
        uint64_t a = i == 0 ? lo : N->key[i - 1], b = i == N->n ? hi : N->key[i];
        if (i < N->n) {
            if (N->key[i] <= a || N->key[i] >= hi || N->key[i] >= nk || val[N->key[i]] != N->val[i]) return -1;
            (*seen)++;
        }
        if (!N->leaf) {
            int d = bt_check(N->child[i], 0, a, b, val, nk, seen);
            if (d < 0 || (depth != -2 && d != depth)) return -1;
            depth = d;
        }
    }
    return N->leaf ? 0 : depth + 1;
}

static void arr_swap(uint64_t k)
{
    struct record *r = D(R->records);
    uint64_t a = k % NRECORDS, b = (k >> 20) % NRECORDS;
    if (a == b) b = (b + 1) % NRECORDS;
    TX_BEGIN(pop) {
        ADD(&r[a], sizeof r[a]);
        ADD(&r[b], sizeof r[b]);
        struct record t = r[a];
        r[a].id = r[b].id;
        memcpy(r[a].payload, r[b].payload, sizeof t.payload);
        r[b].id = t.id;
        memcpy(r[b].payload, t.payload, sizeof t.payload);
        r[a].version++;
        r[b].version++;
    } TX_END
}

/* Striped mode (-l striped, hashmap only): thread t runs operations t, t+T, t+2T, ... of its own
 * keys, each under the lock of its bucket's stripe (64 stripes); threads run in parallel. */
static void *worker_striped(void *arg)
{
    uint64_t t = (uint64_t)(uintptr_t)arg;
    for (uint64_t i = t; i < n_ops; i += (uint64_t)n_threads) {
        uint64_t k = key_of(i);
        pthread_mutex_t *l = &stripe_lock[(k % NBUCKETS) % NSTRIPES];
        pthread_mutex_lock(l);
        hm_put(k, i + 1);
        pthread_mutex_unlock(l);
        sched_yield();
    }
    return NULL;
}

static void *worker(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&big_lock);
        uint64_t i = next_op++;
        if (i >= n_ops) {
            pthread_mutex_unlock(&big_lock);
            break;
        }
        uint64_t h = mix(seed * 0x100000001b3ull + i);
        switch (kind) {
        case 0: hm_put(key_of(i), i + 1); break;
        case 1: q_op(h | 0); break;
        case 2: bst_put(key_of(i), i + 1); break;
        case 4: rb_put(key_of(i), i + 1); break;
        case 5: bt_put(key_of(i), i + 1); break;
        default: arr_swap(h); break;
        }
        pthread_mutex_unlock(&big_lock);
        /* Valgrind runs one thread at a time and switches rarely: yield so that the recorded
         * threads take turns op by op, as they would on a multicore (the lock's ticket chain in
         * the trace keeps the recorded order) */
        sched_yield();
    }
    return NULL;
}

/* Volatile replay of the operations in ticket order (single lock: the order is the ticket order). */
static int verify(void)
{
    uint64_t count = 0, sum = 0;
    if (kind == 5) {
        uint64_t nk = n_ops / 2 + 2, seen = 0;
        uint64_t *val = calloc(nk, 8);
        for (uint64_t i = 0; i < n_ops; i++) val[key_of(i)] = i + 1;
        for (uint64_t k = 1; k < nk; k++) count += val[k] != 0;
        int d = OID_IS_NULL(R->tree) ? 0 : bt_check(R->tree, 1, 0, UINT64_MAX, val, nk, &seen);
        free(val);
        if (d < 0 || seen != count || R->count != count) {
            fprintf(stderr, "pmdk_ds: btree is not a valid B-tree of the expected keys (%" PRIu64 " keys, %" PRIu64 " expected)\n", seen, count);
            return 1;
        }
    } else if (kind == 4) {
        uint64_t nk = n_ops / 2 + 2, seen = 0;
        uint64_t *val = calloc(nk, 8);
        for (uint64_t i = 0; i < n_ops; i++) val[key_of(i)] = i + 1;
        for (uint64_t k = 1; k < nk; k++) count += val[k] != 0;
        int bh = rb_check(R->tree, 0, UINT64_MAX, val, nk, &seen);
        free(val);
        if (bh < 0 || rb_red(R->tree) || seen != count || R->count != count) {
            fprintf(stderr, "pmdk_ds: rbtree is not a valid red-black tree of the expected keys (%" PRIu64 " nodes, %" PRIu64 " expected)\n", seen, count);
            return 1;
        }
    } else if (kind == 0 || kind == 2) {
        uint64_t nk = striped ? (n_ops / 2 / (uint64_t)n_threads + 1) * (uint64_t)n_threads + 2 : n_ops / 2 + 2;
        uint64_t *val = calloc(nk, 8);
        for (uint64_t i = 0; i < n_ops; i++) val[key_of(i)] = i + 1;
        uint64_t seen = 0;
        for (uint64_t k = 1; k < nk; k++) count += val[k] != 0;
        if (kind == 0) {
            PMEMoid *b = D(R->buckets);
            for (unsigned j = 0; j < NBUCKETS; j++)
                for (PMEMoid e = b[j]; !OID_IS_NULL(e); e = ((struct hm_entry *)D(e))->next) {
                    struct hm_entry *p = D(e);
                    if (p->key >= nk || val[p->key] != p->val || p->key % NBUCKETS != j) {
                        fprintf(stderr, "pmdk_ds: hashmap key %" PRIu64 " holds %" PRIu64 "\n", p->key, p->val);
                        free(val);
                        return 1;
                    }
                    seen++;
                }
        } else {
            /* iterative in-order walk with an explicit stack */
            PMEMoid stack[4096];
            int sp = 0;
            PMEMoid cur = R->tree;
            uint64_t last = 0;
            while (sp || !OID_IS_NULL(cur)) {
                while (!OID_IS_NULL(cur)) {
                    if (sp == 4096) { free(val); fprintf(stderr, "pmdk_ds: tree too deep\n"); return 1; }
                    stack[sp++] = cur;
                    cur = ((struct bst_node *)D(cur))->left;
                }
                struct bst_node *p = D(stack[--sp]);
                if (p->key <= last || p->key >= nk || val[p->key] != p->val) {
                    fprintf(stderr, "pmdk_ds: bstree key %" PRIu64 " out of order or holds %" PRIu64 "\n", p->key, p->val);
                    free(val);
                    return 1;
                }
                last = p->key;
                seen++;
                cur = p->right;
            }
        }
        free(val);
        if (seen != count || R->count != count) {
            fprintf(stderr, "pmdk_ds: %" PRIu64 " entries, count %" PRIu64 ", expected %" PRIu64 "\n", seen, R->count, count);
            return 1;
        }
    } else if (kind == 1) {
        uint64_t *q = malloc(n_ops * 8), h = 0, t = 0;
        for (uint64_t i = 0; i < n_ops; i++) {
            uint64_t k = mix(seed * 0x100000001b3ull + i);
            if ((k & 3) != 0 || h == t) q[t++] = k, sum += k;
            else sum -= q[h++];
        }
        count = t - h;
        uint64_t n = 0;
        for (PMEMoid e = R->head; !OID_IS_NULL(e); e = ((struct q_node *)D(e))->next, n++)
            if (h + n >= t || ((struct q_node *)D(e))->val != q[h + n]) {
                fprintf(stderr, "pmdk_ds: queue slot %" PRIu64 " differs\n", n);
                free(q);
                return 1;
            }
        free(q);
        if (n != count || R->count != count || R->sum != sum) {
            fprintf(stderr, "pmdk_ds: queue has %" PRIu64 " nodes, count %" PRIu64 ", expected %" PRIu64 "\n", n, R->count, count);
            return 1;
        }
    } else {
        struct record *r = D(R->records);
        uint64_t ids = 0, vers = 0;
        for (unsigned j = 0; j < NRECORDS; j++) {
            ids += r[j].id;
            vers += r[j].version;
            if (r[j].payload[0] != r[j].id * 7) {
                fprintf(stderr, "pmdk_ds: record %u payload does not match its id\n", j);
                return 1;
            }
        }
        if (ids != (uint64_t)NRECORDS * (NRECORDS - 1) / 2 || vers != 2 * n_ops) {
            fprintf(stderr, "pmdk_ds: array ids/versions do not add up\n");
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    static const char *names[] = {"hashmap", "queue", "bstree", "array", "rbtree", "btree"};
    static int threads = 1;
    if (argc < 3) {
        fprintf(stderr, "usage: pmdk_ds hashmap|queue|bstree|array|rbtree|btree POOLFILE [-n OPS] [-t THREADS] [-s SEED] [-l global|striped]\n");
        return 2;
    }
    kind = -1;
    for (int k = 0; k < 6; k++)
        if (!strcmp(argv[1], names[k])) kind = k;
    if (kind < 0) {
        fprintf(stderr, "pmdk_ds: unknown structure '%s' (hashmap, queue, bstree, array, rbtree, btree)\n", argv[1]);
        return 2;
    }
    for (int i = 3; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-n")) n_ops = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "-t")) threads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-s")) seed = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "-l")) {
            if (!strcmp(argv[i + 1], "striped")) striped = 1;
            else if (strcmp(argv[i + 1], "global")) {
                fprintf(stderr, "pmdk_ds: -l takes global or striped\n");
                return 2;
            }
        }
        else {
            fprintf(stderr, "pmdk_ds: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    if (striped && kind != 0) {
        fprintf(stderr, "pmdk_ds: -l striped is for the hashmap only\n");
        return 2;
    }
    n_threads = threads;
    for (unsigned j = 0; j < NSTRIPES; j++) pthread_mutex_init(&stripe_lock[j], NULL);
    if (n_ops < 1 || threads < 1 || threads > 32) {
        fprintf(stderr, "pmdk_ds: need OPS >= 1 and 1 <= THREADS <= 32\n");
        return 2;
    }
    unlink(argv[2]);
    pop = pmemobj_create(argv[2], "persim_pmdk_ds", POOL_SIZE, 0666);
    if (!pop) {
        fprintf(stderr, "pmdk_ds: pmemobj_create(%s): %s\n", argv[2], pmemobj_errormsg());
        return 2;
    }
    R = D(pmemobj_root(pop, sizeof(struct root)));
    TX_BEGIN(pop) {
        ADD(R, sizeof *R);
        R->kind = (uint64_t)kind;
        if (kind == 0) R->buckets = pmemobj_tx_zalloc(NBUCKETS * sizeof(PMEMoid), 4);
        if (kind == 3) {
            R->records = pmemobj_tx_zalloc(NRECORDS * sizeof(struct record), 5);
            struct record *r = D(R->records);
            for (unsigned j = 0; j < NRECORDS; j++) {
                r[j].id = j;
                for (int p = 0; p < 6; p++) r[j].payload[p] = j * 7;
            }
        }
    } TX_END
    PT_PM_RANGE(pop, POOL_SIZE);
    PT_START();
    pthread_t t[32];
    for (int i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, striped ? worker_striped : worker, (void *)(uintptr_t)i);
    for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    PT_STOP();
    int bad = verify();
    printf("pmdk_ds %s: %" PRIu64 " ops, %d threads, count %" PRIu64 ": %s\n", names[kind], n_ops, threads, R->count,
           bad ? "MISMATCH" : "ok");
    pmemobj_close(pop);
    return bad;
}
