/* persim workload "reduction": SBRP Figures 2/3, the artifact's reduceSinglePass.
 *
 * size = ints to reduce (volatile input). The input is reduced in launches of up to
 * RED_LAUNCH ints (artifact: 4M ints as 16 launches of 256K), each a kernel of nb x T threads
 * (artifact: 60 x 512; nb = min(60, n_L / 2T) like the artifact's getNumBlocksAndThreads, so
 * the grid grows with size). Per launch L:
 *   - thread t of block b sums in[i] + in[i+T] for i = b*2T + t, i += 2T*nb (grid stride);
 *   - per-block tree in PM (pArr, T uint32 per block, reused by every launch): the upper half
 *     [T/2,T) writes its sums, __syncthreads; then for h = T/4 .. 1 the threads [0,2h) add
 *     pArr[t+2h] (acquiring at block scope the flag released by the writers of [2h,4h)), and
 *     the upper part [h,2h) writes its sum to pArr[t] + block-scope release of its flag;
 *     thread 0 acquires flag 1, adds pArr[1], writes pArr[0] = block sum, and publishes the
 *     block result with a release of scope `final_scope` (DEVICE; Figure 3 line 24) whose flag
 *     is outSum[L][b] itself (value = the block sum);
 *   - the LAST block (highest index) acquires every block's outSum at device scope, reduces
 *     them, adds the previous launch's running total and writes final[L] (PM) + durable.
 * Flags: the artifact keeps the tree's lock bytes in shared memory; persim has no shared
 * memory, so they live in volatile memory (one 4 B flag per thread index, of which a warp
 * releases the one of its first writing thread; value = launch + 1, so flags are reused).
 * Sums are uint32 without wrap: inputs are drawn from [1, INT32_MAX/size] as in the artifact
 * (rand() % (INT_MAX/size)), so every block sum is nonzero (the acquire value never equals the
 * zeroed initial flag). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

#define RED_THREADS    512u      /* threads per block (artifact NTHREADS) */
#define RED_MAX_BLOCKS 60u       /* artifact NBLOCKS */
#define RED_LAUNCH     262144u   /* ints per launch: 4M / 16 */

typedef struct red_ctx {
    uint64_t  n;             /* ints */
    uint32_t *in;            /* copy of the input */
    uint32_t  T;             /* threads per block */
    uint32_t  nlaunch;
    uint32_t  maxnb;
    uint32_t *nb;            /* blocks of each launch */
    uint64_t  parr;          /* PM: maxnb x T uint32 */
    uint64_t *outsum;        /* PM: per launch, nb[L] uint32 */
    uint64_t  final;         /* PM: nlaunch uint32 */
} red_ctx;

static void red_free(void *vc)
{
    red_ctx *c = (red_ctx *)vc;
    if (!c) return;
    free(c->in);
    free(c->nb);
    free(c->outsum);
    free(c);
}

/* Lanes of warp w inside thread range [t0, t1): returns the count, *lo = first thread. */
static uint32_t red_part(uint32_t w, uint32_t t0, uint32_t t1, uint32_t *lo)
{
    uint32_t a = w * PERSIM_WARP_SIZE, b = a + PERSIM_WARP_SIZE;
    if (t0 > a) a = t0;
    if (t1 < b) b = t1;
    if (a >= b) return 0;
    *lo = a;
    return b - a;
}

static uint64_t red_launch_len(uint64_t n, uint32_t L)
{
    uint64_t base = (uint64_t)L * RED_LAUNCH;
    uint64_t r = n - base;
    return r < RED_LAUNCH ? r : RED_LAUNCH;
}

static uint32_t red_blocks(uint64_t nL, uint32_t T)
{
    uint64_t nb = nL / (2ull * T);
    if (nb < 1) nb = 1;
    if (nb > RED_MAX_BLOCKS) nb = RED_MAX_BLOCKS;
    return (uint32_t)nb;
}

/* Sum of thread t of block b (grid-stride loop, two elements per step as in the artifact). */
static uint32_t red_thread_sum(const uint32_t *in, uint64_t nL, uint32_t T, uint32_t nb,
                               uint32_t b, uint32_t t)
{
    uint32_t s = 0;
    for (uint64_t i = (uint64_t)b * 2 * T + t; i < nL; i += 2ull * T * nb) {
        s += in[i];
        if (i + T < nL) s += in[i + T];
    }
    return s;
}

/* The values of launch L: pst[b*T + t] = what thread t of block b stores to pArr[t] (the thread
 * sums of the upper half, then the tree levels, pArr[0] = the block sum), bsum[b] = block sums;
 * returns the launch sum. s, acc: T scratch entries each. */
static uint32_t red_launch_values(const red_ctx *c, uint32_t L, uint32_t *pst, uint32_t *bsum, uint32_t *s,
                                  uint32_t *acc)
{
    const uint32_t T = c->T, nb = c->nb[L];
    const uint64_t base = (uint64_t)L * RED_LAUNCH, nL = red_launch_len(c->n, L);
    const uint32_t *inL = c->in + base;
    uint32_t lsum = 0;
    for (uint32_t b = 0; b < nb; b++) {
        uint32_t *ps = pst + (size_t)b * T;
        for (uint32_t t = 0; t < T; t++) acc[t] = s[t] = red_thread_sum(inL, nL, T, nb, b, t);
        for (uint32_t t = T / 2; t < T; t++) ps[t] = acc[t];
        for (uint32_t h = T / 4; h >= 1; h /= 2) {
            for (uint32_t t = 0; t < 2 * h; t++) acc[t] += acc[t + 2 * h];
            for (uint32_t t = h; t < 2 * h; t++) ps[t] = acc[t];
        }
        ps[0] = acc[0] + acc[1];
        bsum[b] = ps[0];
        lsum += bsum[b];
    }
    return lsum;
}

static int reduction_build_scoped(const wl_params *prm, persim_prog *p, mem_image *init,
                                  void **ctxp, char *err, size_t errlen, persim_scope final_scope)
{
    *ctxp = NULL;
    if (prm->size < 1) return wl_err(err, errlen, "reduction: size must be >= 1 int");
    if (prm->size > 0x7fffffffull) return wl_err(err, errlen, "reduction: size %llu too large (max 2^31-1)",
                                                  (unsigned long long)prm->size);
    if (prm->max_threads_per_block < PERSIM_WARP_SIZE)
        return wl_err(err, errlen, "reduction: max_threads_per_block %u < 32", prm->max_threads_per_block);
    uint32_t T = PERSIM_WARP_SIZE;
    while (T * 2 <= RED_THREADS && T * 2 <= prm->max_threads_per_block) T *= 2;
    const uint32_t W = T / PERSIM_WARP_SIZE;

    red_ctx *c = (red_ctx *)calloc(1, sizeof *c);
    if (!c) return wl_err(err, errlen, "reduction: out of memory");
    c->n = prm->size;
    c->T = T;
    c->nlaunch = (uint32_t)((c->n + RED_LAUNCH - 1) / RED_LAUNCH);
    c->in = (uint32_t *)malloc((size_t)c->n * sizeof *c->in);
    c->nb = (uint32_t *)calloc(c->nlaunch, sizeof *c->nb);
    c->outsum = (uint64_t *)calloc(c->nlaunch, sizeof *c->outsum);
    uint32_t *s = (uint32_t *)malloc(T * sizeof *s);
    uint32_t *acc = (uint32_t *)malloc(T * sizeof *acc);
    uint32_t *pst = (uint32_t *)malloc((size_t)RED_MAX_BLOCKS * T * sizeof *pst);
    uint32_t *bsum = (uint32_t *)malloc(RED_MAX_BLOCKS * sizeof *bsum);
    uint32_t root_id[RED_MAX_BLOCKS];
    if (!c->in || !c->nb || !c->outsum || !s || !acc || !pst || !bsum) {
        free(s); free(acc); free(pst); free(bsum);
        red_free(c);
        return wl_err(err, errlen, "reduction: out of memory");
    }

    /* input */
    wl_rng rng;
    wl_rng_seed(&rng, prm->seed ^ 0x52454455ull);
    uint64_t bound = 0x7fffffffull / c->n;
    if (bound < 1) bound = 1;
    for (uint64_t i = 0; i < c->n; i++) c->in[i] = (uint32_t)(1 + wl_rng_below(&rng, bound));

    for (uint32_t L = 0; L < c->nlaunch; L++) {
        c->nb[L] = red_blocks(red_launch_len(c->n, L), T);
        if (c->nb[L] > c->maxnb) c->maxnb = c->nb[L];
    }

    wl_alloc al;
    wl_alloc_init(&al, prm);
    uint64_t in_addr = wl_alloc_vol(&al, c->n * 4);
    uint64_t flags = wl_alloc_vol(&al, (uint64_t)c->maxnb * T * 4);
    c->parr = wl_alloc_pm(&al, (uint64_t)c->maxnb * T * 4);
    for (uint32_t L = 0; L < c->nlaunch; L++) c->outsum[L] = wl_alloc_pm(&al, (uint64_t)c->nb[L] * 4);
    c->final = wl_alloc_pm(&al, (uint64_t)c->nlaunch * 4);
    mem_write(init, in_addr, c->in, (size_t)c->n * 4);

    uint64_t vals[PERSIM_WARP_SIZE];
    uint32_t running = 0;
    for (uint32_t L = 0; L < c->nlaunch; L++) {
        const uint64_t base = (uint64_t)L * RED_LAUNCH, nL = red_launch_len(c->n, L);
        const uint32_t nb = c->nb[L];
        const uint32_t flagv = L + 1;
        /* functional model of the tree: pst[b*T + t] = value thread t stores to pArr[t] */
        running += red_launch_values(c, L, pst, bsum, s, acc);

        char kname[32];
        snprintf(kname, sizeof kname, "reduce%u", L);
        prog_kernel(p, kname, nb, T);
        const uint64_t G2 = 2ull * T * nb;
        for (uint32_t b = 0; b < nb; b++) {
            const uint32_t *ps = pst + (size_t)b * T;
            const uint64_t pa = c->parr + (uint64_t)b * T * 4, fl = flags + (uint64_t)b * T * 4;
            for (uint32_t w = 0; w < W; w++) {
                prog_warp(p, b, w);
                /* grid-stride input loop (volatile loads) */
                for (uint64_t i0 = (uint64_t)b * 2 * T + (uint64_t)w * PERSIM_WARP_SIZE; i0 < nL; i0 += G2) {
                    uint64_t r = nL - i0;
                    op_ld(p, in_addr + 4 * (base + i0), 4, r < 32 ? (uint32_t)r : 32, 4);
                    if (i0 + T < nL) {
                        r = nL - (i0 + T);
                        op_ld(p, in_addr + 4 * (base + i0 + T), 4, r < 32 ? (uint32_t)r : 32, 4);
                    }
                    op_compute(p, 6);
                }
                uint32_t lo, n;
                /* upper half writes its sums, then __syncthreads */
                if ((n = red_part(w, T / 2, T, &lo)) != 0) {
                    for (uint32_t l = 0; l < n; l++) vals[l] = ps[lo + l];
                    op_st(p, pa + 4ull * lo, 4, n, 4, vals);
                }
                op_sync(p, SCOPE_BLOCK);
                /* tree levels with block-scope release/acquire */
                for (uint32_t h = T / 4; h >= 1; h /= 2) {
                    if ((n = red_part(w, 0, 2 * h, &lo)) == 0) break;
                    if (h < T / 4) {
                        /* writers of [2h,4h) released per warp (flag of its first thread) or,
                         * inside warp 0, the flag of thread 2h */
                        uint64_t src = 2 * h >= PERSIM_WARP_SIZE ? lo + 2 * h : 2 * h;
                        op_acquire(p, fl + 4 * src, 4, flagv, SCOPE_BLOCK);
                    }
                    op_ld(p, pa + 4ull * (lo + 2 * h), 4, n, 4);
                    op_compute(p, 3);
                    uint32_t lo2, n2 = red_part(w, h, 2 * h, &lo2);
                    if (n2) {
                        for (uint32_t l = 0; l < n2; l++) vals[l] = ps[lo2 + l];
                        op_st(p, pa + 4ull * lo2, 4, n2, 4, vals);
                        op_release(p, fl + 4ull * lo2, 4, flagv, SCOPE_BLOCK);
                    }
                }
                if (w == 0) {
                    op_acquire(p, fl + 4, 4, flagv, SCOPE_BLOCK);
                    op_ld(p, pa + 4, 4, 1, 4);
                    op_compute(p, 2);
                    root_id[b] = op_st_bcast(p, pa, 4, 1, 4, ps[0]);
                    /* Figure 3 line 24: pRel_dev(outSum[blkId], sum) */
                    op_release(p, c->outsum[L] + 4ull * b, 4, bsum[b], final_scope);
                }
                if (b == nb - 1) {
                    /* the last block reduces every block's result */
                    uint32_t nch = (nb + PERSIM_WARP_SIZE - 1) / PERSIM_WARP_SIZE;
                    for (uint32_t ch = 0; ch < nch; ch++) {
                        if (ch % W != w) continue;
                        uint32_t j0 = ch * PERSIM_WARP_SIZE, j1 = j0 + PERSIM_WARP_SIZE;
                        if (j1 > nb) j1 = nb;
                        for (uint32_t j = j0; j < j1; j++)
                            op_acquire(p, c->outsum[L] + 4ull * j, 4, bsum[j], SCOPE_DEVICE);
                        op_ld(p, c->outsum[L] + 4ull * j0, 4, j1 - j0, 4);
                        op_compute(p, 8);
                    }
                    op_sync(p, SCOPE_BLOCK);
                    if (w == 0) {
                        op_compute(p, 2ull * W + 4);
                        if (L > 0) op_ld(p, c->final + 4ull * (L - 1), 4, 1, 4);
                        uint32_t fin = op_st_bcast(p, c->final + 4ull * L, 4, 1, 4, running);
                        op_durable(p);
                        /* recovery trusts every block sum once the launch's final sum is durable */
                        for (uint32_t j = 0; j < nb; j++) op_require(p, root_id[j], fin);
                    }
                }
            }
        }
    }
    free(s);
    free(acc);
    free(pst);
    free(bsum);
    *ctxp = c;
    return 0;
}

/* Independent check: block sums from the input; pArr[t] (t >= 1) must hold the sum of the
 * thread sums s_j with j == t mod 2^(floor(log2 t)+1), pArr[0] the block sum (closed form of
 * the tree, computed from the last launch that ran block b). */
static int reduction_verify(const void *vc, const mem_image *img, char *msg, size_t msglen)
{
    const red_ctx *c = (const red_ctx *)vc;
    const uint32_t T = c->T;
    uint32_t *expp = (uint32_t *)calloc((size_t)c->maxnb * T, sizeof *expp);
    uint32_t *s = (uint32_t *)malloc(T * sizeof *s);
    int rc = 0;
    if (!expp || !s) { rc = wl_err(msg, msglen, "reduction verify: out of memory"); goto out; }
    uint64_t total = 0;
    for (uint64_t i = 0; i < c->n; i++) total += c->in[i];
    uint32_t running = 0;
    for (uint32_t L = 0; L < c->nlaunch && !rc; L++) {
        const uint64_t base = (uint64_t)L * RED_LAUNCH, nL = red_launch_len(c->n, L);
        const uint32_t nb = c->nb[L];
        uint32_t lsum = 0;
        for (uint32_t b = 0; b < nb; b++) {
            uint32_t bs = 0;
            for (uint32_t t = 0; t < T; t++) {
                s[t] = red_thread_sum(c->in + base, nL, T, nb, b, t);
                bs += s[t];
            }
            uint32_t *e = expp + (size_t)b * T;
            e[0] = bs;
            for (uint32_t t = 1; t < T; t++) {
                uint32_t m = 1;
                while (m * 2 <= t) m *= 2;
                m *= 2;                       /* 2 * highest power of two <= t */
                uint32_t v = 0;
                for (uint32_t j = t; j < T; j += m) v += s[j];
                e[t] = v;
            }
            uint32_t got = mem_read_u32(img, c->outsum[L] + 4ull * b);
            if (got != bs) {
                rc = wl_err(msg, msglen, "reduction: launch %u block %u result outSum = %u, expected %u",
                             L, b, got, bs);
                break;
            }
            lsum += bs;
        }
        if (rc) break;
        running += lsum;
        uint32_t got = mem_read_u32(img, c->final + 4ull * L);
        if (got != running) {
            rc = wl_err(msg, msglen, "reduction: launch %u final sum = %u, expected %u", L, got, running);
            break;
        }
    }
    if (!rc && (uint64_t)running != total)
        rc = wl_err(msg, msglen, "reduction: final sum %u != sum of inputs %llu", running,
                     (unsigned long long)total);
    for (uint32_t b = 0; b < c->maxnb && !rc; b++)
        for (uint32_t t = 0; t < T; t++) {
            uint32_t got = mem_read_u32(img, c->parr + 4ull * ((uint64_t)b * T + t));
            if (got != expp[(size_t)b * T + t]) {
                rc = wl_err(msg, msglen, "reduction: block %u partial sum pArr[%u] = %u, expected %u", b, t,
                             got, expp[(size_t)b * T + t]);
                break;
            }
        }
out:
    free(expp);
    free(s);
    return rc;
}

/* Native resume (SBRP section 5.1, Figure 3): a launch whose final sum is durable is finished;
 * recovery starts again from the first launch without one. The program orders every block's tree
 * values pArr[0 .. T/2) (written before its release, through the tree's block-scope chains) before
 * the final sum: the device-scope release of the block result and the last block's device-scope
 * acquire (the `require`s). So for the last finished launch recovery trusts those values and
 * republishes a block result outSum that is not durable from the block sum pArr[0]; the upper half
 * pArr[T/2 .. T), written before an execution barrier only, is recomputed from the input (which the
 * host reloads). The unfinished launches run again. With a block-scope release (the scoped
 * persistency bug of section 5.3) the final sum can be durable before another block's tree: the
 * republished result and the trusted partial sums are then stale. */
static int reduction_recover(const void *vc, const mem_image *durable, persim_prog *p, mem_image *img,
                             char *err, size_t errlen)
{
    const red_ctx *c = (const red_ctx *)vc;
    const uint32_t T = c->T;
    (void)img;
    uint32_t *pst = (uint32_t *)malloc((size_t)c->maxnb * T * sizeof *pst);
    uint32_t *bsum = (uint32_t *)malloc(RED_MAX_BLOCKS * sizeof *bsum);
    uint32_t *s = (uint32_t *)malloc(T * sizeof *s), *acc = (uint32_t *)malloc(T * sizeof *acc);
    wl_range *rg = (wl_range *)malloc((c->nlaunch + 2) * sizeof *rg);
    mem_image *work = mem_clone(durable), *before = NULL;
    int rc = 0;
    if (!pst || !bsum || !s || !acc || !rg || !work) {
        rc = wl_err(err, errlen, "reduction recover: out of memory");
        goto out;
    }
    size_t nr = 0;
    rg[nr++] = (wl_range){ c->parr, (uint64_t)c->maxnb * T * 4 };
    rg[nr++] = (wl_range){ c->final, (uint64_t)c->nlaunch * 4 };
    for (uint32_t L = 0; L < c->nlaunch; L++) rg[nr++] = (wl_range){ c->outsum[L], (uint64_t)c->nb[L] * 4 };
    uint32_t first = 0;   /* first launch whose final sum is not durable */
    while (first < c->nlaunch && mem_read_u32(durable, c->final + 4ull * first) != 0) first++;
    if (first > 0) {
        const uint32_t L = first - 1;
        red_launch_values(c, L, pst, bsum, s, acc);
        for (uint32_t b = 0; b < c->nb[L]; b++) {
            const uint64_t pa = c->parr + 4ull * b * T;
            if (mem_read_u32(work, c->outsum[L] + 4ull * b) == 0)
                mem_write_u32(work, c->outsum[L] + 4ull * b, mem_read_u32(work, pa));
            for (uint32_t t = T / 2; t < T; t++) mem_write_u32(work, pa + 4ull * t, pst[(size_t)b * T + t]);
        }
    }
    {   /* recovery reads every launch's final sum, and for the last finished launch the block
         * results and block sums it republishes from */
        wl_range reads[3] = { { c->final, (uint64_t)c->nlaunch * 4 } };
        size_t nreads = 1;
        if (first > 0) {
            reads[nreads++] = (wl_range){ c->outsum[first - 1], (uint64_t)c->nb[first - 1] * 4 };
            reads[nreads++] = (wl_range){ c->parr, (uint64_t)c->nb[first - 1] * T * 4 };
        }
        if (wl_emit_recovery(p, "reduction_recover", reads, nreads, durable, work, NULL, rg, nr) != 0) {
            rc = wl_err(err, errlen, "reduction recover: out of memory");
            goto out;
        }
    }
    before = mem_clone(work);
    uint32_t running = first > 0 ? mem_read_u32(work, c->final + 4ull * (first - 1)) : 0;
    for (uint32_t L = first; L < c->nlaunch; L++) {
        running += red_launch_values(c, L, pst, bsum, s, acc);
        for (uint32_t b = 0; b < c->nb[L]; b++) {
            for (uint32_t t = 0; t < T; t++) mem_write_u32(work, c->parr + 4ull * ((uint64_t)b * T + t), pst[(size_t)b * T + t]);
            mem_write_u32(work, c->outsum[L] + 4ull * b, bsum[b]);
        }
        mem_write_u32(work, c->final + 4ull * L, running);
    }
    if (wl_emit_phase(p, "reduction_resume", before, work, rg, nr) != 0)
        rc = wl_err(err, errlen, "reduction recover: out of memory");
out:
    free(pst); free(bsum); free(s); free(acc); free(rg);
    if (work) mem_free(work);
    if (before) mem_free(before);
    return rc;
}

/* One line per variant: REDUCTION_WORKLOAD(symbol, name, desc, scope of the block-result release),
 * plus its entry in registry.c. */
#define REDUCTION_WORKLOAD(sym, name_, desc_, scope_)                                          \
    static int sym##_build(const wl_params *prm, persim_prog *p, mem_image *init, void **ctx,   \
                           char *err, size_t errlen)                                            \
    { return reduction_build_scoped(prm, p, init, ctx, err, errlen, scope_); }                  \
    const persim_workload sym = {                                                               \
        .name = name_, .desc = desc_,                                                           \
        .size_desc = "ints reduced (volatile input; launches of 256K ints)",                   \
        .pmo = "block/device inter-thread", .recovery = "native",                              \
        .default_size = 4194304, .small_size = 262144,                                          \
        .build = sym##_build, .verify = reduction_verify, .free_ctx = red_free,                 \
        .recover = reduction_recover,                                                           \
    };

REDUCTION_WORKLOAD(wl_reduction_workload, "reduction",
                   "parallel sum: per-block tree in PM (block-scope rel/acq), device-scope release "
                   "of block results, last block reduces",
                   SCOPE_DEVICE)
PERSIM_WORKLOAD(wl_reduction_workload, WL_GPU, 40);

/* The scoped persistency bug of SBRP section 5.3: the same program with a block-scope release of
 * the block results (Figure 3 line 24), so the last block's final sum is not ordered after the
 * other blocks' trees under SBRP. */
REDUCTION_WORKLOAD(wl_reduction_blkscope_bug_workload, "reduction-blkscope-bug",
                   "reduction with the scoped persistency bug of SBRP section 5.3: block-scope release of "
                   "the block results (persim check: not guaranteed; persim crash: fails)",
                   SCOPE_BLOCK)
PERSIM_WORKLOAD(wl_reduction_blkscope_bug_workload, WL_VARIANT, 10);
