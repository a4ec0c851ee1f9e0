/* persim workload "scan": inclusive prefix sums of many arrays of 512 uints (the SBRP
 * artifact's scanExclusiveShort with block-scope persistent acquire/release).
 *
 * One block of T = 128 threads (4 warps; fewer if max_threads_per_block is smaller, always a
 * power of two) per array; grid = ceil(size / 512) blocks (artifact: 240 x 128 for 122,880
 * uints). Thread t owns the E = 512/T consecutive elements [E*t, E*t+E):
 *   - loads them from the volatile input (E/2 8-byte loads per warp, like the uint4 load),
 *     scans them locally, stores its total to the PM buffer step 0 and releases (block scope)
 *     its warp's step-0 flag;
 *   - steps k = 1 .. log2(T) (7 for T = 128): with d = 2^(k-1), the threads t >= d acquire the
 *     step-(k-1) flag of the warp(s) holding t-d (their own warp included when d < 32), read
 *     buf[k-1][t-d], add, and every thread stores buf[k][t] and releases its warp's step-k flag;
 *   - DURABLE (the artifact's final fence), then the inclusive results go to the volatile output.
 * The buffer and flags are in PM like the artifact's s_Data and locks. Simplifications: one
 * buffer and one flag per step and warp (the artifact double-buffers with per-thread lock bytes
 * and "consumed" acknowledgements); a warp's flag stands for its 32 lockstep threads. Sums wrap
 * modulo 2^32 (uint). The input is in volatile memory as in the artifact (cudaMalloc). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

#define SCAN_ARRAY   512u
#define SCAN_THREADS 128u

typedef struct scan_ctx {
    uint64_t  narrays;
    uint32_t  T, steps;
    uint32_t *in;            /* narrays * 512 */
    uint64_t  in_addr, out_addr, buf_addr, flag_addr;
} scan_ctx;

static void scan_free(void *vc)
{
    scan_ctx *c = (scan_ctx *)vc;
    if (!c) return;
    free(c->in);
    free(c);
}

static uint64_t scan_buf(const scan_ctx *c, uint64_t blk, uint32_t step, uint32_t t)
{
    return c->buf_addr + 4 * ((blk * (c->steps + 1) + step) * (uint64_t)c->T + t);
}

static uint64_t scan_flag(const scan_ctx *c, uint64_t blk, uint32_t step, uint32_t w)
{
    uint32_t W = c->T / PERSIM_WARP_SIZE;
    return c->flag_addr + 4 * ((blk * (c->steps + 1) + step) * (uint64_t)W + w);
}

static int scan_build(const wl_params *prm, persim_prog *p, mem_image *init, void **ctxp, char *err,
                      size_t errlen)
{
    *ctxp = NULL;
    if (prm->size < 1) return wl_err(err, errlen, "scan: size must be >= 1 uint");
    if (prm->max_threads_per_block < PERSIM_WARP_SIZE)
        return wl_err(err, errlen, "scan: max_threads_per_block %u < 32", prm->max_threads_per_block);
    uint64_t narr = (prm->size + SCAN_ARRAY - 1) / SCAN_ARRAY;
    if (narr > 0xFFFFFFFFull) return wl_err(err, errlen, "scan: too many arrays");
    uint32_t T = PERSIM_WARP_SIZE;
    while (T * 2 <= SCAN_THREADS && T * 2 <= prm->max_threads_per_block) T *= 2;
    const uint32_t W = T / PERSIM_WARP_SIZE, E = SCAN_ARRAY / T;
    uint32_t steps = 0;
    while ((1u << steps) < T) steps++;

    scan_ctx *c = (scan_ctx *)calloc(1, sizeof *c);
    uint32_t *tot = (uint32_t *)malloc((size_t)(steps + 1) * T * sizeof *tot);
    if (!c || !tot || !(c->in = (uint32_t *)malloc((size_t)narr * SCAN_ARRAY * 4))) {
        free(tot);
        scan_free(c);
        return wl_err(err, errlen, "scan: out of memory");
    }
    c->narrays = narr;
    c->T = T;
    c->steps = steps;
    wl_rng rng;
    wl_rng_seed(&rng, prm->seed ^ 0x5343414eull);
    for (uint64_t i = 0; i < narr * SCAN_ARRAY; i++) c->in[i] = (uint32_t)wl_rng_next(&rng);

    wl_alloc al;
    wl_alloc_init(&al, prm);
    c->in_addr = wl_alloc_vol(&al, narr * SCAN_ARRAY * 4);
    c->out_addr = wl_alloc_vol(&al, narr * SCAN_ARRAY * 4);
    c->buf_addr = wl_alloc_pm(&al, narr * (steps + 1) * T * 4);
    c->flag_addr = wl_alloc_pm(&al, narr * (steps + 1) * W * 4);
    mem_write(init, c->in_addr, c->in, (size_t)(narr * SCAN_ARRAY * 4));

    prog_kernel(p, "scan", (uint32_t)narr, T);
    uint64_t v[PERSIM_WARP_SIZE];
    for (uint64_t b = 0; b < narr; b++) {
        const uint32_t *a = c->in + b * SCAN_ARRAY;
        /* model: tot[k*T + t] = buf[k][t] */
        for (uint32_t t = 0; t < T; t++) {
            uint32_t s = 0;
            for (uint32_t j = 0; j < E; j++) s += a[t * E + j];
            tot[t] = s;
        }
        for (uint32_t k = 1; k <= steps; k++) {
            uint32_t d = 1u << (k - 1);
            for (uint32_t t = 0; t < T; t++)
                tot[k * T + t] = tot[(k - 1) * T + t] + (t >= d ? tot[(k - 1) * T + t - d] : 0);
        }
        for (uint32_t w = 0; w < W; w++) {
            prog_warp(p, (uint32_t)b, w);
            const uint32_t t0 = w * PERSIM_WARP_SIZE;
            const uint64_t inw = c->in_addr + 4 * (b * SCAN_ARRAY + (uint64_t)t0 * E);
            for (uint32_t j = 0; j < E; j += 2) op_ld(p, inw + 4 * j, 8, PERSIM_WARP_SIZE, 4 * E);
            op_compute(p, 2ull * E);
            for (uint32_t l = 0; l < PERSIM_WARP_SIZE; l++) v[l] = tot[t0 + l];
            op_st(p, scan_buf(c, b, 0, t0), 4, PERSIM_WARP_SIZE, 4, v);
            op_release(p, scan_flag(c, b, 0, w), 4, 1, SCOPE_BLOCK);
            for (uint32_t k = 1; k <= steps; k++) {
                const uint32_t d = 1u << (k - 1);
                const uint32_t lo = t0 > d ? t0 : d;                 /* first lane with t >= d */
                if (lo < t0 + PERSIM_WARP_SIZE) {
                    uint32_t wa = (lo - d) / PERSIM_WARP_SIZE, wz = (t0 + PERSIM_WARP_SIZE - 1 - d) / PERSIM_WARP_SIZE;
                    for (uint32_t ws = wa; ws <= wz; ws++) op_acquire(p, scan_flag(c, b, k - 1, ws), 4, 1, SCOPE_BLOCK);
                    op_ld(p, scan_buf(c, b, k - 1, lo - d), 4, t0 + PERSIM_WARP_SIZE - lo, 4);
                    op_compute(p, 3);
                }
                for (uint32_t l = 0; l < PERSIM_WARP_SIZE; l++) v[l] = tot[k * T + t0 + l];
                op_st(p, scan_buf(c, b, k, t0), 4, PERSIM_WARP_SIZE, 4, v);
                op_release(p, scan_flag(c, b, k, w), 4, 1, SCOPE_BLOCK);
            }
            op_durable(p);
            /* output: exclusive offset of the thread + its local inclusive scan */
            op_compute(p, 2ull * E);
            for (uint32_t j = 0; j < E; j += 2) {
                for (uint32_t l = 0; l < PERSIM_WARP_SIZE; l++) {
                    uint32_t t = t0 + l;
                    uint32_t run = tot[steps * T + t] - tot[t];   /* exclusive prefix of t */
                    for (uint32_t q = 0; q <= j; q++) run += a[t * E + q];
                    v[l] = (uint64_t)run | (uint64_t)(run + a[t * E + j + 1]) << 32;
                }
                op_st(p, c->out_addr + 4 * (b * SCAN_ARRAY + (uint64_t)t0 * E + j), 8, PERSIM_WARP_SIZE, 4 * E, v);
            }
        }
    }
    free(tot);
    *ctxp = c;
    return 0;
}

/* Independent check: output = inclusive prefix sums of each array; buf[k][t] = sum of the
 * thread totals of threads (t - 2^k, t]; every flag released. */
static int scan_verify(const void *vc, const mem_image *img, char *msg, size_t msglen)
{
    const scan_ctx *c = (const scan_ctx *)vc;
    const uint32_t T = c->T, E = SCAN_ARRAY / T, W = T / PERSIM_WARP_SIZE;
    uint32_t got[SCAN_ARRAY], pre[SCAN_ARRAY + 1];   /* pre: prefix sums (mod 2^32) */
    for (uint64_t b = 0; b < c->narrays; b++) {
        const uint32_t *a = c->in + b * SCAN_ARRAY;
        mem_read(img, c->out_addr + 4 * b * SCAN_ARRAY, got, sizeof got);
        pre[0] = 0;
        for (uint32_t i = 0; i < SCAN_ARRAY; i++) {
            pre[i + 1] = pre[i] + a[i];
            if (got[i] != pre[i + 1])
                return wl_err(msg, msglen, "scan: array %llu output[%u] = %u, expected %u",
                                (unsigned long long)b, i, got[i], pre[i + 1]);
        }
        for (uint32_t k = 0; k <= c->steps; k++) {
            uint32_t span = 1u << k;
            for (uint32_t t = 0; t < T; t++) {
                uint32_t want = pre[(t + 1) * E] - pre[(t + 1 > span ? t + 1 - span : 0) * E];
                uint32_t g = mem_read_u32(img, scan_buf(c, b, k, t));
                if (g != want)
                    return wl_err(msg, msglen, "scan: array %llu step %u partial[%u] = %u, expected %u",
                                    (unsigned long long)b, k, t, g, want);
            }
            for (uint32_t w = 0; w < W; w++)
                if (mem_read_u32(img, scan_flag(c, b, k, w)) != 1)
                    return wl_err(msg, msglen, "scan: array %llu step %u flag of warp %u not released",
                                    (unsigned long long)b, k, w);
        }
    }
    return 0;
}

/* Native resume: a warp's partial sums of step k are trusted where its step-k flag is durable
 * (the release that writes the flag orders them before it); the others are computed again, step
 * by step, from the recovered step k-1 (step 0 from the input, which the host reloads). The
 * output, in volatile memory, is computed again from the recovered sums. */
static int scan_recover(const void *vc, const mem_image *durable, persim_prog *p, mem_image *img, char *err,
                        size_t errlen)
{
    const scan_ctx *c = (const scan_ctx *)vc;
    (void)img;
    const uint32_t T = c->T, E = SCAN_ARRAY / T, W = T / PERSIM_WARP_SIZE;
    mem_image *work = mem_clone(durable);
    if (!work) return wl_err(err, errlen, "scan recover: out of memory");
    const wl_range rg[3] = { { c->buf_addr, c->narrays * (c->steps + 1) * T * 4 },
                             { c->flag_addr, c->narrays * (c->steps + 1) * W * 4 },
                             { c->out_addr, c->narrays * SCAN_ARRAY * 4 } };
    for (uint64_t b = 0; b < c->narrays; b++) {
        const uint32_t *a = c->in + b * SCAN_ARRAY;
        for (uint32_t k = 0; k <= c->steps; k++) {
            const uint32_t d = k ? 1u << (k - 1) : 0;
            for (uint32_t w = 0; w < W; w++) {
                if (mem_read_u32(durable, scan_flag(c, b, k, w)) == 1) continue;
                for (uint32_t t = w * PERSIM_WARP_SIZE; t < (w + 1) * PERSIM_WARP_SIZE; t++) {
                    uint32_t v = 0;
                    if (k == 0) {
                        for (uint32_t j = 0; j < E; j++) v += a[t * E + j];
                    } else {
                        v = mem_read_u32(work, scan_buf(c, b, k - 1, t));
                        if (t >= d) v += mem_read_u32(work, scan_buf(c, b, k - 1, t - d));
                    }
                    mem_write_u32(work, scan_buf(c, b, k, t), v);
                }
                mem_write_u32(work, scan_flag(c, b, k, w), 1);
            }
        }
        for (uint32_t t = 0; t < T; t++) {
            uint32_t run = mem_read_u32(work, scan_buf(c, b, c->steps, t)) - mem_read_u32(work, scan_buf(c, b, 0, t));
            for (uint32_t j = 0; j < E; j++) {
                run += a[t * E + j];
                mem_write_u32(work, c->out_addr + 4 * (b * SCAN_ARRAY + (uint64_t)t * E + j), run);
            }
        }
    }
    /* the recovery kernel reads every step flag (which partial sums are durable); the rest is
     * the resumed scan */
    int rc = wl_emit_recovery(p, "scan_recover", &rg[1], 1, durable, durable, NULL, rg, 0) != 0 ||
             wl_emit_phase(p, "scan_resume", durable, work, rg, 3) != 0;
    mem_free(work);
    return rc ? wl_err(err, errlen, "scan recover: out of memory") : 0;
}

const persim_workload wl_scan_workload = {
    .name = "scan",
    .desc = "inclusive scan of 512-uint arrays, one block each: log2 steps of block-scope acquire/release in PM",
    .size_desc = "uints scanned (arrays of 512; rounded up)",
    .pmo = "block inter-thread",
    .recovery = "native",
    .default_size = 122880,
    .small_size = 61440,
    .build = scan_build,
    .verify = scan_verify,
    .free_ctx = scan_free,
    .recover = scan_recover,
};
PERSIM_WORKLOAD(wl_scan_workload, WL_GPU, 60);
