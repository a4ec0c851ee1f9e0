/* persim: the AGPM paper's Polybench kernels (docs/workloads-agpm.md): 2MM1, 3MM1, GEMM, ATAX1,
 * ATAX2, MVT1, GESUMMV, 2DCONV, as in Polybench/GPU's CUDA versions (one thread per output element,
 * 256-thread blocks), on 32-bit integers (exact, so verify compares bit for bit). */
#include <stdlib.h>

#include "wl_agpm.h"

#define VMAX 16u   /* input values in [0, 16) */

static int need_mult32(const ag_ctx *c, char *err, size_t n)
{
    if (c->n % 32) return wl_err(err, n, "agpm-%s: size must be a multiple of 32, got %llu", c->def->id, (unsigned long long)c->n);
    return 0;
}

/* threads per block: the largest multiple of 32 <= want (and the target's limit) dividing total */
static uint32_t tpb_div(const ag_ctx *c, uint32_t want, uint64_t total)
{
    uint32_t t = ag_tpb(c, want);
    while (t > 32 && total % t) t -= 32;
    return t;
}

/* ---------------- matrix products: C = alpha * A.B (+ beta * C) ----------------
 * p: 0 N (NI = NJ = NK), 1 alpha, 2 beta, 3 C is read (GEMM). Arrays: 0 A, 1 B (volatile inputs),
 * 2 C (PM). Thread (i, j), j along the lanes (Polybench's 32 x 8 blocks): per k, A[i][k] is one
 * broadcast load, B[k][j..j+31] one coalesced load; C[i][j..] one coalesced store. */
static int mm_setup(ag_ctx *c, int64_t alpha, int64_t beta, int readc, char *err, size_t n)
{
    if (need_mult32(c, err, n)) return -1;
    const uint64_t N = c->n;
    c->p[0] = (int64_t)N; c->p[1] = alpha; c->p[2] = beta; c->p[3] = readc;
    ag_array(c, N * N, 0, VMAX);
    ag_array(c, N * N, 0, VMAX);
    ag_array(c, N * N, 1, readc ? VMAX : 0);
    return 0;
}
static int gemm_setup(ag_ctx *c, char *e, size_t n) { return mm_setup(c, 3, 2, 1, e, n); }
static int mm2_setup(ag_ctx *c, char *e, size_t n) { return mm_setup(c, 5, 0, 0, e, n); }
static int mm3_setup(ag_ctx *c, char *e, size_t n) { return mm_setup(c, 1, 0, 0, e, n); }

static void mm_gen(ag_ctx *c, ag_em *e)
{
    const uint64_t N = (uint64_t)c->p[0];
    const uint32_t al = (uint32_t)c->p[1], be = (uint32_t)c->p[2];
    const uint32_t tpb = tpb_div(c, 256, N), wpb = tpb / 32;
    const uint64_t ct = N / 32, rt = N / wpb;
    const uint32_t *A = c->h[0], *B = c->h[1];
    ag_kernel(e, c->def->id, (uint32_t)(rt * ct), tpb);
    for (uint64_t b = 0; b < rt * ct; b++) {
        if (!ag_cta(e, (uint32_t)b)) continue;
        for (uint32_t w = 0; w < wpb; w++) {
            ag_warp(e, w);
            const uint64_t i = (b / ct) * wpb + w, j0 = (b % ct) * 32;
            uint32_t acc[32] = { 0 };
            for (uint64_t k = 0; k < N; k++) {
                ag_ld(e, ag_at(c, 0, i * N + k), 1, 4);
                ag_ld(e, ag_at(c, 1, k * N + j0), 32, 4);
                for (uint32_t l = 0; l < 32; l++) acc[l] += A[i * N + k] * B[k * N + j0 + l];
                if (k % 8 == 7) ag_comp(e, 8);
            }
            if (c->p[3]) ag_ld(e, ag_at(c, 2, i * N + j0), 32, 4);
            for (uint32_t l = 0; l < 32; l++)
                acc[l] = al * acc[l] + (c->p[3] ? be * ag_rd(e, ag_at(c, 2, i * N + j0 + l)) : 0);
            ag_comp(e, 2);
            ag_st(e, ag_at(c, 2, i * N + j0), 32, 4, acc);
        }
        ag_cta_end(e);
    }
}

static int mm_check(const ag_ctx *c, const mem_image *img, char *msg, size_t n)
{
    return ag_check_gemm(c, img, (uint32_t)c->p[1], c->p[3] ? (uint32_t)c->p[2] : 0, msg, n);
}

/* ---------------- matrix-vector kernels ----------------
 * ATAX1  tmp[i] = sum_j A[i][j] x[j]             thread i: A row-wise per thread (stride N: uncoalesced)
 * ATAX2  y[j]   = sum_i A[i][j] tmp[i]           thread j: A column j (coalesced)
 * MVT1   x1[i] = x1[i] + sum_j A[i][j] y1[j]     thread i: uncoalesced, x1 updated in place
 * GESUMMV y[i] = 3 sum_j A[i][j] x[j] + 2 sum_j B[i][j] x[j]   thread i: uncoalesced, two matrices
 * p: 0 N, 1 kind (0 atax1, 1 atax2, 2 mvt1, 3 gesummv). Arrays: 0 A, 1 vector, 2 out (PM), 3 B. */
static int mv_setup(ag_ctx *c, int kind, char *err, size_t n)
{
    if (need_mult32(c, err, n)) return -1;
    const uint64_t N = c->n;
    c->p[0] = (int64_t)N; c->p[1] = kind;
    ag_array(c, N * N, 0, VMAX);
    ag_array(c, N, 0, VMAX);
    ag_array(c, N, 1, kind == 2 ? VMAX : 0);
    if (kind == 3) ag_array(c, N * N, 0, VMAX);
    return 0;
}
static int atax1_setup(ag_ctx *c, char *e, size_t n) { return mv_setup(c, 0, e, n); }
static int atax2_setup(ag_ctx *c, char *e, size_t n) { return mv_setup(c, 1, e, n); }
static int mvt1_setup(ag_ctx *c, char *e, size_t n) { return mv_setup(c, 2, e, n); }
static int gesummv_setup(ag_ctx *c, char *e, size_t n) { return mv_setup(c, 3, e, n); }

static void mv_gen(ag_ctx *c, ag_em *e)
{
    const uint64_t N = (uint64_t)c->p[0];
    const int kind = (int)c->p[1];
    const uint32_t tpb = tpb_div(c, 256, N), wpb = tpb / 32, nb = (uint32_t)(N / tpb);
    const uint32_t *A = c->h[0], *x = c->h[1], *B = kind == 3 ? c->h[3] : NULL;
    ag_kernel(e, c->def->id, nb, tpb);
    for (uint32_t b = 0; b < nb; b++) {
        if (!ag_cta(e, b)) continue;
        for (uint32_t w = 0; w < wpb; w++) {
            ag_warp(e, w);
            const uint64_t t0 = ((uint64_t)b * wpb + w) * 32;
            uint32_t acc[32] = { 0 }, acc2[32] = { 0 };
            for (uint64_t k = 0; k < N; k++) {
                if (kind == 1) {   /* column t of A, row k: coalesced */
                    ag_ld(e, ag_at(c, 0, k * N + t0), 32, 4);
                    for (uint32_t l = 0; l < 32; l++) acc[l] += A[k * N + t0 + l] * x[k];
                } else {           /* row t of A, column k: one row per lane (stride N) */
                    ag_ld(e, ag_at(c, 0, t0 * N + k), 32, (uint32_t)(4 * N));
                    for (uint32_t l = 0; l < 32; l++) acc[l] += A[(t0 + l) * N + k] * x[k];
                    if (kind == 3) {
                        ag_ld(e, ag_at(c, 3, t0 * N + k), 32, (uint32_t)(4 * N));
                        for (uint32_t l = 0; l < 32; l++) acc2[l] += B[(t0 + l) * N + k] * x[k];
                    }
                }
                ag_ld(e, ag_at(c, 1, k), 1, 4);
                if (k % 8 == 7) ag_comp(e, 8);
            }
            if (kind == 2) {
                ag_ld(e, ag_at(c, 2, t0), 32, 4);
                for (uint32_t l = 0; l < 32; l++) acc[l] += ag_rd(e, ag_at(c, 2, t0 + l));
            }
            if (kind == 3)
                for (uint32_t l = 0; l < 32; l++) acc[l] = 3 * acc[l] + 2 * acc2[l];
            ag_comp(e, 2);
            ag_st(e, ag_at(c, 2, t0), 32, 4, acc);
        }
        ag_cta_end(e);
    }
}

static int mv_check(const ag_ctx *c, const mem_image *img, char *msg, size_t n)
{
    const uint64_t N = (uint64_t)c->p[0];
    const int kind = (int)c->p[1];
    uint32_t *want = (uint32_t *)calloc(N, 4);
    if (!want) return wl_err(msg, n, "out of memory");
    for (uint64_t t = 0; t < N; t++) {
        uint32_t s = 0, s2 = 0;
        for (uint64_t k = 0; k < N; k++) {
            if (kind == 1) s += c->h[0][k * N + t] * c->h[1][k];
            else s += c->h[0][t * N + k] * c->h[1][k];
            if (kind == 3) s2 += c->h[3][t * N + k] * c->h[1][k];
        }
        want[t] = kind == 2 ? c->h[2][t] + s : kind == 3 ? 3 * s + 2 * s2 : s;
    }
    int rc = ag_cmp(c, img, 2, 0, want, N, kind == 1 ? "y" : kind == 2 ? "x1" : kind == 3 ? "y" : "tmp", msg, n);
    free(want);
    return rc;
}

/* ---------------- 2DCONV: B[i][j] = sum of the 3x3 neighbourhood of A[i][j] with Polybench's
 * coefficients (x10, integers), 1 <= i, j < N-1. One block per row i, one warp per 32 columns
 * from j = 1: nine coalesced (unaligned) loads per warp, one coalesced store. p: 0 N. Arrays:
 * 0 A (volatile), 1 B (PM). */
static const int32_t conv_c[3][3] = { { 2, 5, -8 }, { -3, 6, -9 }, { 4, 7, 1 } };

static int conv_setup(ag_ctx *c, char *err, size_t n)
{
    const uint64_t N = c->n, tiles = (N - 2 + 31) / 32;
    if (tiles * 32 > c->tpb)
        return wl_err(err, n, "agpm-2dconv: size %llu needs %llu threads per block (one row), more than %u",
                      (unsigned long long)N, (unsigned long long)tiles * 32, c->tpb);
    c->p[0] = (int64_t)N;
    ag_array(c, N * N, 0, VMAX);
    ag_array(c, N * N, 1, 0);
    return 0;
}

static void conv_gen(ag_ctx *c, ag_em *e)
{
    const uint64_t N = (uint64_t)c->p[0];
    const uint32_t tiles = (uint32_t)((N - 2 + 31) / 32);
    const uint32_t *A = c->h[0];
    ag_kernel(e, "2dconv", (uint32_t)(N - 2), tiles * 32);
    for (uint64_t i = 1; i + 1 < N; i++) {
        if (!ag_cta(e, (uint32_t)(i - 1))) continue;
        for (uint32_t w = 0; w < tiles; w++) {
            ag_warp(e, w);
            const uint64_t j0 = 1 + 32ull * w;
            const uint32_t nl = (uint32_t)(N - 1 - j0 < 32 ? N - 1 - j0 : 32);
            uint32_t v[32] = { 0 };
            for (int di = -1; di <= 1; di++)
                for (int dj = -1; dj <= 1; dj++) {
                    ag_ld(e, ag_at(c, 0, (i + di) * N + j0 + dj), nl, 4);
                    for (uint32_t l = 0; l < nl; l++)
                        v[l] += (uint32_t)conv_c[di + 1][dj + 1] * A[(i + di) * N + j0 + l + dj];
                }
            ag_comp(e, 18);
            ag_st(e, ag_at(c, 1, i * N + j0), nl, 4, v);
        }
        ag_cta_end(e);
    }
}

static int conv_check(const ag_ctx *c, const mem_image *img, char *msg, size_t n)
{
    const uint64_t N = (uint64_t)c->p[0];
    uint32_t *want = (uint32_t *)calloc(N, 4);
    if (!want) return wl_err(msg, n, "out of memory");
    int rc = 0;
    for (uint64_t i = 0; i < N && !rc; i++) {
        for (uint64_t j = 0; j < N; j++) {
            want[j] = 0;
            if (i == 0 || j == 0 || i + 1 == N || j + 1 == N) continue;
            for (int di = -1; di <= 1; di++)
                for (int dj = -1; dj <= 1; dj++) want[j] += (uint32_t)conv_c[di + 1][dj + 1] * c->h[0][(i + di) * N + j + dj];
        }
        rc = ag_cmp(c, img, 1, i * N, want, N, "B", msg, n);
    }
    free(want);
    return rc;
}

#define MM_DESC(k) "Polybench " k ": thread per output, per k a broadcast A load + coalesced B row load; coalesced C store"
AG_WORKLOAD(mm2, "2mm1", MM_DESC("2MM kernel 1 (tmp = 5 A.B)"), "N (NxN matrices; multiple of 32)", 128, 32, 32, 1024,
            mm2_setup, mm_gen, mm_check);
AG_WORKLOAD(mm3, "3mm1", MM_DESC("3MM kernel 1 (E = A.B)"), "N (NxN matrices; multiple of 32)", 128, 32, 32, 1024,
            mm3_setup, mm_gen, mm_check);
AG_WORKLOAD(gemm, "gemm", MM_DESC("GEMM (C = 3 A.B + 2 C, C in place)"), "N (NxN matrices; multiple of 32)", 128, 32, 32,
            1024, gemm_setup, mm_gen, mm_check);
AG_WORKLOAD(atax1, "atax1", "Polybench ATAX kernel 1 (tmp = A.x): thread per row, loads with stride N (uncoalesced)",
            "N (NxN matrix; multiple of 32)", 1024, 384, 32, 8192, atax1_setup, mv_gen, mv_check);
AG_WORKLOAD(atax2, "atax2", "Polybench ATAX kernel 2 (y = A^T.tmp): thread per column, coalesced row loads",
            "N (NxN matrix; multiple of 32)", 1024, 384, 32, 8192, atax2_setup, mv_gen, mv_check);
AG_WORKLOAD(mvt1, "mvt1", "Polybench MVT kernel 1 (x1 += A.y1, in place): thread per row, stride-N loads",
            "N (NxN matrix; multiple of 32)", 1024, 384, 32, 8192, mvt1_setup, mv_gen, mv_check);
AG_WORKLOAD(gesummv, "gesummv", "Polybench GESUMMV (y = 3 A.x + 2 B.x): thread per row, two stride-N loads per step",
            "N (NxN matrices; multiple of 32)", 1024, 384, 32, 8192, gesummv_setup, mv_gen, mv_check);
AG_WORKLOAD(conv2d, "2dconv", "Polybench 2DCONV (3x3 convolution): block per row, 9 unaligned coalesced loads per warp",
            "N (NxN image)", 512, 64, 8, 1026, conv_setup, conv_gen, conv_check);
