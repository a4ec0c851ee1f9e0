/* persim workload "cpu-arrayswap": random swaps of records of a persistent array by all CPU
 * threads, the "SPS" microbenchmark of the persistent-memory literature (WHISPER-style), with
 * striped ticket-ordered locks (docs/workloads-cpu.md).
 *
 * PM layout: N = max(64, size / 2) records of 32 bytes {id u64, payload0 u64, payload1 u64,
 * version u64} (initially {r, mix(seed, r), mix(seed, N + r), 0}); AS_STRIPES lock words (record r
 * is guarded by lock r % AS_STRIPES). size = swaps in total; swap i is by thread i % T on two
 * different records a, b drawn from (seed, i):
 *   mark loop; compute 5; mark func; acquire the one or two stripe locks in address order
 *   ld the 4 words of a; ld the 4 words of b; compute 4
 *   st a.{id, payload0, payload1} = b's; st a.version + 1; the same for b
 *   release in reverse order; compute 2; mark ret
 * (6..8 stores per swap). verify replays the swaps on a plain array and compares every word of
 * every record and the lock words (critical sections per stripe). */
#include <stdlib.h>
#include <string.h>

#include "wl_cpu.h"

#define AS_NAME    "cpu-arrayswap"
#define AS_STRIPES 64u
#define AS_MAX     (1ull << 24)
#define AS_REC     32u

typedef struct as_ctx {
    uint32_t T;
    uint64_t n, seed, N, arr, locks;
} as_ctx;

static void as_free(void *c) { free(c); }

static void as_pick(const as_ctx *c, uint64_t i, uint64_t *a, uint64_t *b)
{
    *a = cpu_mix(c->seed ^ 0x53574150ull, 2 * i) % c->N;
    *b = cpu_mix(c->seed ^ 0x53574150ull, 2 * i + 1) % (c->N - 1);
    if (*b >= *a) ++*b;
}

static void as_init_rec(const as_ctx *c, uint64_t r, uint64_t w[4])
{
    w[0] = r;
    w[1] = cpu_mix(c->seed, r);
    w[2] = cpu_mix(c->seed, c->N + r);
    w[3] = 0;
}

static int as_build(const wl_params *prm, persim_prog *p, mem_image *init, void **ctxp, char *err, size_t errlen)
{
    *ctxp = NULL;
    if (prm->size < 1 || prm->size > AS_MAX)
        return wl_err(err, errlen, AS_NAME ": size %llu out of range (swaps, 1..%llu)", (unsigned long long)prm->size, AS_MAX);
    as_ctx *c = (as_ctx *)calloc(1, sizeof *c);
    if (!c) return wl_err(err, errlen, AS_NAME ": out of memory");
    c->n = prm->size;
    c->seed = prm->seed;
    c->N = prm->size / 2 < 64 ? 64 : prm->size / 2;
    wl_alloc al;
    wl_alloc_init(&al, prm);
    c->arr = wl_alloc_pm(&al, c->N * AS_REC);
    c->locks = wl_alloc_pm(&al, AS_STRIPES * 4);
    for (uint64_t r = 0; r < c->N; r++) {
        uint64_t w[4];
        as_init_rec(c, r, w);
        mem_write(init, c->arr + r * AS_REC, w, sizeof w);
    }
    cpu_gen g;
    if (cpu_gen_init(&g, AS_NAME, prm, init, err, errlen)) { free(c); return -1; }
    const uint32_t T = c->T = g.nthreads;
    for (uint64_t i = 0; i < c->n; i++) {
        const uint32_t t = (uint32_t)(i % T);
        uint64_t a, b;
        as_pick(c, i, &a, &b);
        uint64_t la = c->locks + (a % AS_STRIPES) * 4, lb = c->locks + (b % AS_STRIPES) * 4;
        if (la > lb) { uint64_t x = la; la = lb; lb = x; }
        cpu_mark(&g, t, MARK_LOOP);
        cpu_compute(&g, t, 5);
        cpu_mark(&g, t, MARK_FUNC);
        cpu_lock(&g, t, la);
        if (lb != la) cpu_lock(&g, t, lb);
        uint64_t wa[4], wb[4];
        const uint64_t ra = c->arr + a * AS_REC, rb = c->arr + b * AS_REC;
        for (uint32_t k = 0; k < 4; k++) wa[k] = cpu_ld(&g, t, ra + 8 * k, 8);
        for (uint32_t k = 0; k < 4; k++) wb[k] = cpu_ld(&g, t, rb + 8 * k, 8);
        cpu_compute(&g, t, 4);
        for (uint32_t k = 0; k < 3; k++) cpu_st(&g, t, ra + 8 * k, 8, wb[k]);
        cpu_st(&g, t, ra + 24, 8, wa[3] + 1);
        for (uint32_t k = 0; k < 3; k++) cpu_st(&g, t, rb + 8 * k, 8, wa[k]);
        cpu_st(&g, t, rb + 24, 8, wb[3] + 1);
        if (lb != la) cpu_unlock(&g, t, lb);
        cpu_unlock(&g, t, la);
        cpu_compute(&g, t, 2);
        cpu_mark(&g, t, MARK_RET);
    }
    int rc = cpu_gen_emit(&g, p, "main", err, errlen);
    cpu_gen_free(&g);
    if (rc) { free(c); return -1; }
    *ctxp = c;
    return 0;
}

static int as_verify(const void *vc, const mem_image *img, char *msg, size_t msglen)
{
    const as_ctx *c = (const as_ctx *)vc;
    uint64_t *w = (uint64_t *)malloc(c->N * 4 * 8), locks[AS_STRIPES] = { 0 };
    if (!w) return wl_err(msg, msglen, AS_NAME ": out of memory");
    for (uint64_t r = 0; r < c->N; r++) as_init_rec(c, r, w + 4 * r);
    for (uint64_t i = 0; i < c->n; i++) {
        uint64_t a, b;
        as_pick(c, i, &a, &b);
        locks[a % AS_STRIPES]++;
        if (b % AS_STRIPES != a % AS_STRIPES) locks[b % AS_STRIPES]++;
        for (uint32_t k = 0; k < 3; k++) { uint64_t x = w[4 * a + k]; w[4 * a + k] = w[4 * b + k]; w[4 * b + k] = x; }
        w[4 * a + 3]++;
        w[4 * b + 3]++;
    }
    static const char *const field[4] = { "id", "payload0", "payload1", "version" };
    int rc = 0;
    for (uint64_t r = 0; r < c->N && !rc; r++)
        for (uint32_t k = 0; k < 4 && !rc; k++) {
            uint64_t x = mem_read_u64(img, c->arr + r * AS_REC + 8 * k);
            if (x != w[4 * r + k])
                rc = wl_err(msg, msglen, AS_NAME ": record %llu %s 0x%llx, expected 0x%llx", (unsigned long long)r, field[k],
                            (unsigned long long)x, (unsigned long long)w[4 * r + k]);
        }
    for (uint32_t s = 0; s < AS_STRIPES && !rc; s++) {
        uint32_t x = mem_read_u32(img, c->locks + s * 4);
        if (x != locks[s]) rc = wl_err(msg, msglen, AS_NAME ": stripe lock %u word %u, expected %llu", s, x, (unsigned long long)locks[s]);
    }
    free(w);
    return rc;
}

const persim_workload wl_cpu_arrayswap_workload = {
    .name = AS_NAME,
    .desc = "CPU: random swaps of 32-byte records of a persistent array (SPS), 64 striped ticket locks",
    .size_desc = "swaps in total (array of max(64, size/2) records)",
    .pmo = "system acquire/release (ticket locks)",
    .recovery = "native",
    .default_size = 8000,
    .small_size = 800,
    .build = as_build,
    .verify = as_verify,
    .free_ctx = as_free,
};
PERSIM_WORKLOAD(wl_cpu_arrayswap_workload, WL_CPU, 30);
