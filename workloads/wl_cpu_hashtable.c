/* persim workload "cpu-hashtable": a persistent chained hash table shared by all CPU threads,
 * with striped ticket-ordered locks (docs/workloads-cpu.md).
 *
 * PM layout: buckets[B] u64 (address of the first node, 0 = empty; B = a power of two >= size/4,
 * at least 64); HT_STRIPES lock words (bucket b is guarded by lock b % HT_STRIPES); per thread t
 * a line {allocated u64, lookup hits u64} and a node pool of ceil(size/T) nodes of
 * {key u64, val u64, next u64} (32 bytes each; nodes are never reused).
 * size = operations in total; operation i is by thread i % T on key 1 + mix % (size/2 + 1):
 * 50% insert-or-update (value mix(seed, i) | 1), 30% lookup, 20% delete. Each operation:
 *   mark loop; compute 6; mark func; compute 12 (hash); acquire(stripe, k)
 *   ld bucket; walk the chain: ld key (+ ld next to go on)        (read-only loop: no marker)
 *   insert, key found:   st val
 *   insert, new key:     ld allocated_t; st node {key, val, next = old head}; st bucket; st allocated_t
 *   lookup:              ld val when found
 *   delete, found:       ld next; st prev.next (or the bucket)
 *   release(stripe, k + 1); compute 2; mark ret; lookup hit: ld hits_t; st hits_t + 1
 * verify replays the operations on plain arrays (nodes numbered per thread, no memory image) and
 * compares every bucket head, every node {key, val, next} (unlinked ones too), the per-thread
 * counters and the lock words (critical sections per stripe) with the image. */
#include <stdlib.h>
#include <string.h>

#include "wl_cpu.h"

#define H_NAME     "cpu-hashtable"
#define HT_STRIPES 16u
#define H_MAX      (1ull << 24)
#define H_NODE     32u

enum { H_INS, H_LOOK, H_DEL };

typedef struct h_ctx {
    uint32_t T;
    uint64_t n, seed, B, K, pool_len;
    uint64_t buckets, locks, thr, pools;
} h_ctx;

static void h_free(void *c) { free(c); }

static int h_kind(uint64_t seed, uint64_t i)
{
    uint64_t r = cpu_mix(seed ^ 0x4854ull, i) % 100;
    return r < 50 ? H_INS : r < 80 ? H_LOOK : H_DEL;
}
static uint64_t h_key(const h_ctx *c, uint64_t i) { return 1 + cpu_mix(c->seed ^ 0x4B4559ull, i) % c->K; }
static uint64_t h_val(uint64_t seed, uint64_t i) { return cpu_mix(seed, i) | 1; }
static uint64_t h_bucket(const h_ctx *c, uint64_t key) { return cpu_mix(key, 0xB0C4E7ull) & (c->B - 1); }

static int h_build(const wl_params *prm, persim_prog *p, mem_image *init, void **ctxp, char *err, size_t errlen)
{
    *ctxp = NULL;
    if (prm->size < 1 || prm->size > H_MAX)
        return wl_err(err, errlen, H_NAME ": size %llu out of range (operations, 1..%llu)",
                      (unsigned long long)prm->size, H_MAX);
    cpu_gen g;
    if (cpu_gen_init(&g, H_NAME, prm, init, err, errlen)) return -1;
    h_ctx *c = (h_ctx *)calloc(1, sizeof *c);
    if (!c) { cpu_gen_free(&g); return wl_err(err, errlen, H_NAME ": out of memory"); }
    const uint32_t T = g.nthreads;
    c->T = T;
    c->n = prm->size;
    c->seed = prm->seed;
    c->K = prm->size / 2 + 1;
    for (c->B = 64; c->B < prm->size / 4; c->B *= 2) {}
    c->pool_len = (prm->size + T - 1) / T;
    wl_alloc al;
    wl_alloc_init(&al, prm);
    c->buckets = wl_alloc_pm(&al, c->B * 8);
    c->locks = wl_alloc_pm(&al, HT_STRIPES * 4);
    c->thr = wl_alloc_pm(&al, (uint64_t)T * 128);
    c->pools = wl_alloc_pm(&al, (uint64_t)T * c->pool_len * H_NODE);

    for (uint64_t i = 0; i < c->n; i++) {
        const uint32_t t = (uint32_t)(i % T);
        const uint64_t key = h_key(c, i), b = h_bucket(c, key), lock = c->locks + (b % HT_STRIPES) * 4;
        const uint64_t bw = c->buckets + b * 8, tl = c->thr + (uint64_t)t * 128;
        const int kind = h_kind(c->seed, i);
        cpu_mark(&g, t, MARK_LOOP);
        cpu_compute(&g, t, 6);
        cpu_mark(&g, t, MARK_FUNC);
        cpu_compute(&g, t, 12);
        cpu_lock(&g, t, lock);
        uint64_t prev = 0, n = cpu_ld(&g, t, bw, 8);
        while (n) {
            if (cpu_ld(&g, t, n, 8) == key) break;
            cpu_compute(&g, t, 2);
            prev = n;
            n = cpu_ld(&g, t, n + 16, 8);
        }
        int hit = 0;
        if (kind == H_INS) {
            if (n) {
                cpu_st(&g, t, n + 8, 8, h_val(c->seed, i));
            } else {
                const uint64_t a = cpu_ld(&g, t, tl, 8), node = c->pools + ((uint64_t)t * c->pool_len + a) * H_NODE;
                const uint64_t head = cpu_peek(&g, bw, 8);
                cpu_st(&g, t, node, 8, key);
                cpu_st(&g, t, node + 8, 8, h_val(c->seed, i));
                cpu_st(&g, t, node + 16, 8, head);
                cpu_st(&g, t, bw, 8, node);
                cpu_st(&g, t, tl, 8, a + 1);
            }
        } else if (kind == H_LOOK) {
            if (n) { cpu_ld(&g, t, n + 8, 8); hit = 1; }
        } else if (n) {
            const uint64_t next = cpu_ld(&g, t, n + 16, 8);
            cpu_st(&g, t, prev ? prev + 16 : bw, 8, next);
        }
        cpu_unlock(&g, t, lock);
        cpu_compute(&g, t, 2);
        cpu_mark(&g, t, MARK_RET);
        if (hit) cpu_st(&g, t, tl + 8, 8, cpu_ld(&g, t, tl + 8, 8) + 1);
    }
    int rc = cpu_gen_emit(&g, p, "main", err, errlen);
    cpu_gen_free(&g);
    if (rc) { free(c); return -1; }
    *ctxp = c;
    return 0;
}

/* The reference: the same operations on plain arrays (nodes by (thread, index), links by node
 * number + 1), then every bucket, node, counter and lock word of the image compared with it. */
static int h_verify(const void *vc, const mem_image *img, char *msg, size_t msglen)
{
    const h_ctx *c = (const h_ctx *)vc;
    const uint64_t NN = (uint64_t)c->T * c->pool_len;
    uint64_t *nkey = (uint64_t *)calloc(NN + 1, 8), *nval = (uint64_t *)calloc(NN + 1, 8);
    uint64_t *nnext = (uint64_t *)calloc(NN + 1, 8), *head = (uint64_t *)calloc(c->B, 8);
    uint64_t *alloc = (uint64_t *)calloc(c->T, 8), *hits = (uint64_t *)calloc(c->T, 8);
    uint64_t locks[HT_STRIPES] = { 0 };
    int rc = 0;
    if (!nkey || !nval || !nnext || !head || !alloc || !hits) { rc = wl_err(msg, msglen, H_NAME ": out of memory"); goto out; }
    for (uint64_t i = 0; i < c->n; i++) {
        const uint32_t t = (uint32_t)(i % c->T);
        const uint64_t key = h_key(c, i), b = h_bucket(c, key);
        locks[b % HT_STRIPES]++;
        uint64_t prev = 0, n = head[b];              /* node numbers + 1 */
        while (n && nkey[n - 1] != key) { prev = n; n = nnext[n - 1]; }
        switch (h_kind(c->seed, i)) {
        case H_INS:
            if (n) { nval[n - 1] = h_val(c->seed, i); break; }
            n = (uint64_t)t * c->pool_len + alloc[t]++ + 1;
            nkey[n - 1] = key;
            nval[n - 1] = h_val(c->seed, i);
            nnext[n - 1] = head[b];
            head[b] = n;
            break;
        case H_LOOK: hits[t] += n != 0; break;
        default:
            if (n) { if (prev) nnext[prev - 1] = nnext[n - 1]; else head[b] = nnext[n - 1]; }
            break;
        }
    }
#define H_ADDR(n) ((n) ? c->pools + ((n) - 1) * H_NODE : 0)
    for (uint32_t s = 0; s < HT_STRIPES && !rc; s++) {
        uint32_t x = mem_read_u32(img, c->locks + s * 4);
        if (x != locks[s]) rc = wl_err(msg, msglen, H_NAME ": stripe lock %u word %u, expected %llu", s, x, (unsigned long long)locks[s]);
    }
    for (uint32_t t = 0; t < c->T && !rc; t++) {
        uint64_t a = mem_read_u64(img, c->thr + (uint64_t)t * 128), h = mem_read_u64(img, c->thr + (uint64_t)t * 128 + 8);
        if (a != alloc[t]) rc = wl_err(msg, msglen, H_NAME ": thread %u allocated %llu nodes, expected %llu", t, (unsigned long long)a, (unsigned long long)alloc[t]);
        else if (h != hits[t]) rc = wl_err(msg, msglen, H_NAME ": thread %u lookup hits %llu, expected %llu", t, (unsigned long long)h, (unsigned long long)hits[t]);
    }
    for (uint64_t b = 0; b < c->B && !rc; b++) {
        uint64_t x = mem_read_u64(img, c->buckets + b * 8);
        if (x != H_ADDR(head[b]))
            rc = wl_err(msg, msglen, H_NAME ": bucket %llu head 0x%llx, expected 0x%llx", (unsigned long long)b,
                        (unsigned long long)x, (unsigned long long)H_ADDR(head[b]));
    }
    for (uint64_t n = 1; n <= NN && !rc; n++) {
        const uint64_t a = H_ADDR(n), k = mem_read_u64(img, a), v = mem_read_u64(img, a + 8), nx = mem_read_u64(img, a + 16);
        if (k != nkey[n - 1] || v != nval[n - 1] || nx != H_ADDR(nnext[n - 1]))
            rc = wl_err(msg, msglen, H_NAME ": node %llu of thread %llu at 0x%llx is {key %llu, val 0x%llx, next 0x%llx}, "
                        "expected {%llu, 0x%llx, 0x%llx}", (unsigned long long)((n - 1) % c->pool_len),
                        (unsigned long long)((n - 1) / c->pool_len), (unsigned long long)a, (unsigned long long)k,
                        (unsigned long long)v, (unsigned long long)nx, (unsigned long long)nkey[n - 1],
                        (unsigned long long)nval[n - 1], (unsigned long long)H_ADDR(nnext[n - 1]));
    }
#undef H_ADDR
out:
    free(nkey); free(nval); free(nnext); free(head); free(alloc); free(hits);
    return rc;
}

const persim_workload wl_cpu_hashtable_workload = {
    .name = H_NAME,
    .desc = "CPU: persistent chained hash table (insert/lookup/delete) shared by all threads, 16 striped ticket locks",
    .size_desc = "operations in total (50% insert-or-update, 30% lookup, 20% delete)",
    .pmo = "system acquire/release (ticket locks)",
    .recovery = "native",
    .default_size = 8000,
    .small_size = 800,
    .build = h_build,
    .verify = h_verify,
    .free_ctx = h_free,
};
PERSIM_WORKLOAD(wl_cpu_hashtable_workload, WL_CPU, 20);
