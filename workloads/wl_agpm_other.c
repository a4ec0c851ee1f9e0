/* persim: the AGPM paper's Parboil (SAD1, SGEMM, Stencil1), Lonestar (SSSP1, SSSP2) and
 * micro-benchmark (StreamTriad, RA, GRID1, GRID2) kernels (docs/workloads-agpm.md), on 32-bit
 * integers. */
#include <stdlib.h>
#include <string.h>

#include "wl_agpm.h"

static uint32_t tpb_div(const ag_ctx *c, uint32_t want, uint64_t total)
{
    uint32_t t = ag_tpb(c, want);
    while (t > 32 && total % t) t -= 32;
    return t;
}

/* ---------------- SAD1 (Parboil sad, mb_sad_calc) ----------------
 * W x W frame; per 4x4 block, the SAD against the reference frame at 32 search offsets
 * (dx -4..3, dy -2..1; lane = offset). One warp per 4x4 block, 8 per CTA: per pixel one broadcast
 * load of the current frame and 4 loads (one per dy) of 8 reference pixels; one coalesced store of
 * the 32 SADs. p: 0 W. Arrays: 0 cur (volatile), 1 ref padded by 4 (volatile), 2 sad (PM). */
static int sad_setup(ag_ctx *c, char *err, size_t n)
{
    if (c->n % 16) return wl_err(err, n, "agpm-sad1: size (frame width) must be a multiple of 16");
    const uint64_t W = c->n, P = W + 8;
    c->p[0] = (int64_t)W;
    ag_array(c, W * W, 0, 256);
    ag_array(c, P * P, 0, 256);
    ag_array(c, (W / 4) * (W / 4) * 32, 1, 0);
    return 0;
}

static uint32_t absd(uint32_t a, uint32_t b) { return a > b ? a - b : b - a; }

static void sad_gen(ag_ctx *c, ag_em *e)
{
    const uint64_t W = (uint64_t)c->p[0], P = W + 8, bw = W / 4, nblk4 = bw * bw;
    ag_kernel(e, "mb_sad_calc", (uint32_t)(nblk4 / 8), 256);
    for (uint64_t b = 0; b < nblk4 / 8; b++) {
        if (!ag_cta(e, (uint32_t)b)) continue;
        for (uint32_t w = 0; w < 8; w++) {
            ag_warp(e, w);
            const uint64_t blk = b * 8 + w, by = blk / bw, bx = blk % bw;
            uint32_t sad[32] = { 0 };
            for (uint32_t y = 0; y < 4; y++)
                for (uint32_t x = 0; x < 4; x++) {
                    const uint32_t cur = c->h[0][(by * 4 + y) * W + bx * 4 + x];
                    ag_ld(e, ag_at(c, 0, (by * 4 + y) * W + bx * 4 + x), 1, 4);
                    for (uint32_t g = 0; g < 4; g++) {   /* dy = g - 2, dx = -4..3 */
                        const uint64_t r0 = (by * 4 + y + g + 2) * P + bx * 4 + x;
                        ag_ld(e, ag_at(c, 1, r0), 8, 4);
                        for (uint32_t k = 0; k < 8; k++) sad[g * 8 + k] += absd(cur, c->h[1][r0 + k]);
                    }
                    ag_comp(e, 3);
                }
            ag_st(e, ag_at(c, 2, blk * 32), 32, 4, sad);
        }
        ag_cta_end(e);
    }
}

static int sad_check(const ag_ctx *c, const mem_image *img, char *msg, size_t n)
{
    const int64_t W = c->p[0], P = W + 8;
    int rc = 0;
    for (int64_t by = 0; by < W / 4 && !rc; by++)
        for (int64_t bx = 0; bx < W / 4 && !rc; bx++) {
            uint32_t want[32];
            for (int dy = -2; dy <= 1; dy++)
                for (int dx = -4; dx <= 3; dx++) {
                    uint32_t s = 0;
                    for (int64_t y = 0; y < 4; y++)
                        for (int64_t x = 0; x < 4; x++)
                            s += absd(c->h[0][(by * 4 + y) * W + bx * 4 + x], c->h[1][(by * 4 + y + dy + 4) * P + bx * 4 + x + dx + 4]);
                    want[(dy + 2) * 8 + dx + 4] = s;
                }
            rc = ag_cmp(c, img, 2, (uint64_t)(by * (W / 4) + bx) * 32, want, 32, "sad", msg, n);
        }
    return rc;
}

/* ---------------- SGEMM (Parboil, shared-memory tiles) ----------------
 * C = 2 A.B + C (N x N, C in place). 32 x 32 C tile per CTA of 8 warps (warp w: tile rows
 * 4w..4w+3); per 32-wide k tile, every warp loads 4 rows of the A tile and 4 of the B tile into
 * shared memory (coalesced), barrier, 32 x 4 products per lane from shared memory, barrier.
 * p: 0 N. Arrays: 0 A, 1 B (volatile), 2 C (PM). */
static int sg_setup(ag_ctx *c, char *err, size_t n)
{
    if (c->n % 32) return wl_err(err, n, "agpm-sgemm: size must be a multiple of 32");
    if (c->tpb < 256) return wl_err(err, n, "agpm-sgemm: needs 256 threads per block");
    const uint64_t N = c->n;
    c->p[0] = (int64_t)N;
    ag_array(c, N * N, 0, 16);
    ag_array(c, N * N, 0, 16);
    ag_array(c, N * N, 1, 16);
    return 0;
}

static void sg_gen(ag_ctx *c, ag_em *e)
{
    const uint64_t N = (uint64_t)c->p[0], T = N / 32;
    const uint32_t *A = c->h[0], *B = c->h[1];
    ag_kernel(e, "sgemm", (uint32_t)(T * T), 256);
    for (uint64_t b = 0; b < T * T; b++) {
        if (!ag_cta(e, (uint32_t)b)) continue;
        const uint64_t i0 = (b / T) * 32, j0 = (b % T) * 32;
        for (uint32_t w = 0; w < 8; w++) {
            ag_warp(e, w);
            uint32_t acc[4][32];
            memset(acc, 0, sizeof acc);
            for (uint64_t kt = 0; kt < T; kt++) {
                for (uint32_t r = 0; r < 4; r++) ag_ld(e, ag_at(c, 0, (i0 + 4 * w + r) * N + kt * 32), 32, 4);
                for (uint32_t r = 0; r < 4; r++) ag_ld(e, ag_at(c, 1, (kt * 32 + 4 * w + r) * N + j0), 32, 4);
                ag_sync(e);
                for (uint32_t r = 0; r < 4; r++)
                    for (uint32_t k = 0; k < 32; k++)
                        for (uint32_t l = 0; l < 32; l++)
                            acc[r][l] += A[(i0 + 4 * w + r) * N + kt * 32 + k] * B[(kt * 32 + k) * N + j0 + l];
                ag_comp(e, 4 * 32);
                ag_sync(e);
            }
            for (uint32_t r = 0; r < 4; r++) {
                const uint64_t row = (i0 + 4 * w + r) * N + j0;
                ag_ld(e, ag_at(c, 2, row), 32, 4);
                for (uint32_t l = 0; l < 32; l++) acc[r][l] = 2 * acc[r][l] + ag_rd(e, ag_at(c, 2, row + l));
                ag_st(e, ag_at(c, 2, row), 32, 4, acc[r]);
            }
        }
        ag_cta_end(e);
    }
}

static int sg_check(const ag_ctx *c, const mem_image *img, char *msg, size_t n)
{
    return ag_check_gemm(c, img, 2, 1, msg, n);       /* C = 2 * A.B + C0 */
}

/* ---------------- Stencil1 (Parboil stencil, 7-point) ----------------
 * n^3 grid; out = (sum of the 6 neighbours) - 6 in, interior points. A thread per (x, y) walks z:
 * per z, 7 coalesced loads and a coalesced store (warp = 32 x of one y row; 8 rows per CTA).
 * p: 0 n. Arrays: 0 in (volatile), 1 out (PM). */
static int st_setup(ag_ctx *c, char *err, size_t n)
{
    (void)err; (void)n;
    const uint64_t N = c->n;
    c->p[0] = (int64_t)N;
    ag_array(c, N * N * N, 0, 64);
    ag_array(c, N * N * N, 1, 0);
    return 0;
}

static void st_gen(ag_ctx *c, ag_em *e)
{
    const uint64_t N = (uint64_t)c->p[0], rows = N - 2, xt = (N - 2 + 31) / 32, yb = (rows + 7) / 8;
    const uint32_t *in = c->h[0];
    ag_kernel(e, "block2D_reg_tiling", (uint32_t)(xt * yb), 256);
    for (uint64_t b = 0; b < xt * yb; b++) {
        if (!ag_cta(e, (uint32_t)b)) continue;
        for (uint32_t w = 0; w < 8; w++) {
            ag_warp(e, w);
            const uint64_t y = 1 + (b / xt) * 8 + w, x0 = 1 + (b % xt) * 32;
            if (y + 1 >= N) continue;
            const uint32_t nl = (uint32_t)(N - 1 - x0 < 32 ? N - 1 - x0 : 32);
            for (uint64_t z = 1; z + 1 < N; z++) {
                const uint64_t c0 = (z * N + y) * N + x0;
                const int64_t off[7] = { 0, -1, 1, -(int64_t)N, (int64_t)N, -(int64_t)(N * N), (int64_t)(N * N) };
                uint32_t v[32];
                for (int k = 0; k < 7; k++) ag_ld(e, ag_at(c, 0, (uint64_t)((int64_t)c0 + off[k])), nl, 4);
                for (uint32_t l = 0; l < nl; l++) {
                    uint32_t s = 0;
                    for (int k = 1; k < 7; k++) s += in[(uint64_t)((int64_t)(c0 + l) + off[k])];
                    v[l] = s - 6 * in[c0 + l];
                }
                ag_comp(e, 8);
                ag_st(e, ag_at(c, 1, c0), nl, 4, v);
            }
        }
        ag_cta_end(e);
    }
}

static int st_check(const ag_ctx *c, const mem_image *img, char *msg, size_t n)
{
    const uint64_t N = (uint64_t)c->p[0];
    uint32_t *want = (uint32_t *)malloc(N * 4);
    if (!want) return wl_err(msg, n, "out of memory");
    int rc = 0;
    const uint32_t *a = c->h[0];
    for (uint64_t z = 0; z < N && !rc; z++)
        for (uint64_t y = 0; y < N && !rc; y++) {
            for (uint64_t x = 0; x < N; x++) {
                uint64_t i = (z * N + y) * N + x;
                if (x == 0 || y == 0 || z == 0 || x + 1 == N || y + 1 == N || z + 1 == N) { want[x] = 0; continue; }
                want[x] = a[i - 1] + a[i + 1] + a[i - N] + a[i + N] + a[i - N * N] + a[i + N * N] - 6 * a[i];
            }
            rc = ag_cmp(c, img, 1, (z * N + y) * N, want, N, "out", msg, n);
        }
    free(want);
    return rc;
}

/* ---------------- SSSP (Lonestar-style, topology-driven pull Bellman-Ford) ----------------
 * n nodes, 1..4 random in-edges each with weights 1..9, source 0. Round r: thread per node v reads
 * dist_r[v] and, per in-edge (u, w), the edge (per-lane scattered) and dist_r[u] (scattered);
 * dist_{r+1}[v] = min over them; it stores into the other array only where the value changes
 * (runs of changed lanes). SSSP1: the first round; SSSP2: rounds until nothing changes.
 * p: 0 n, 1 rounds. Arrays: 0 nodes {start, deg} (volatile), 1 edges {src, w} (volatile),
 * 2 dist A, 3 dist B (PM; INF but the source). */
#define SS_INF 0x3FFFFFFFu

static uint32_t ss_relax(const ag_ctx *c, const uint32_t *din, uint64_t v)
{
    uint32_t best = din[v];
    for (uint32_t k = 0; k < c->h[0][2 * v + 1]; k++) {
        const uint32_t *ed = &c->h[1][2 * (c->h[0][2 * v] + k)];
        if (din[ed[0]] != SS_INF && din[ed[0]] + ed[1] < best) best = din[ed[0]] + ed[1];
    }
    return best;
}

static int ss_setup(ag_ctx *c, int all, char *err, size_t n)
{
    if (c->n % 32) return wl_err(err, n, "agpm-%s: size (nodes) must be a multiple of 32", c->def->id);
    const uint64_t N = c->n;
    c->p[0] = (int64_t)N;
    int nd = ag_array(c, 2 * N, 0, 0);
    uint64_t ne = 0;
    for (uint64_t i = 0; i < N; i++) {
        uint32_t d = 1 + (uint32_t)wl_rng_below(&c->rng, 4);
        ag_set(c, nd, 2 * i, (uint32_t)ne);
        ag_set(c, nd, 2 * i + 1, d);
        ne += d;
    }
    int ed = ag_array(c, 2 * ne, 0, 0);
    if (ed < 0) return wl_err(err, n, "out of memory");
    for (uint64_t k = 0; k < ne; k++) {
        ag_set(c, ed, 2 * k, (uint32_t)wl_rng_below(&c->rng, N));
        ag_set(c, ed, 2 * k + 1, 1 + (uint32_t)wl_rng_below(&c->rng, 9));
    }
    for (int a = 0; a < 2; a++) {
        int s = ag_array(c, N, 1, 0);
        for (uint64_t i = 0; i < N; i++) c->h[s][i] = i ? SS_INF : 0;
    }
    /* rounds: 1, or until a round changes nothing */
    uint32_t *d = (uint32_t *)malloc(N * 4), *t = (uint32_t *)malloc(N * 4);
    if (!d || !t) { free(d); free(t); return wl_err(err, n, "out of memory"); }
    memcpy(d, c->h[2], N * 4);
    int64_t r = 0;
    for (;;) {
        int changed = 0;
        for (uint64_t v = 0; v < N; v++) { t[v] = ss_relax(c, d, v); changed |= t[v] != d[v]; }
        r++;
        memcpy(d, t, N * 4);
        if (!all || !changed) break;
    }
    c->p[1] = r;
    free(d);
    free(t);
    return 0;
}
static int ss1_setup(ag_ctx *c, char *e, size_t n) { return ss_setup(c, 0, e, n); }
static int ss2_setup(ag_ctx *c, char *e, size_t n) { return ss_setup(c, 1, e, n); }

static void ss_gen(ag_ctx *c, ag_em *e)
{
    const uint64_t N = (uint64_t)c->p[0];
    const uint32_t tpb = tpb_div(c, 256, N), wpb = tpb / 32, nb = (uint32_t)(N / tpb);
    const uint32_t *nd = c->h[0], *ed = c->h[1];
    for (int64_t r = 0; r < c->p[1]; r++) {
        const int in = 2 + (int)(r % 2), out = 2 + (int)((r + 1) % 2);
        ag_kernel(e, "sssp_relax", nb, tpb);
        for (uint32_t b = 0; b < nb; b++) {
            if (!ag_cta(e, b)) continue;
            for (uint32_t w = 0; w < wpb; w++) {
                ag_warp(e, w);
                const uint64_t t0 = ((uint64_t)b * wpb + w) * 32;
                uint32_t best[32], maxd = 0;
                ag_ld(e, ag_at(c, in, t0), 32, 4);
                ag_ld(e, ag_at(c, 0, 2 * t0), 32, 8);
                ag_ld(e, ag_at(c, 0, 2 * t0 + 1), 32, 8);
                for (uint32_t l = 0; l < 32; l++) {
                    best[l] = ag_rd(e, ag_at(c, in, t0 + l));
                    if (nd[2 * (t0 + l) + 1] > maxd) maxd = nd[2 * (t0 + l) + 1];
                }
                for (uint32_t k = 0; k < maxd; k++) {
                    for (uint32_t l = 0; l < 32; l++)
                        if (k < nd[2 * (t0 + l) + 1]) ag_ld(e, ag_at(c, 1, 2 * (nd[2 * (t0 + l)] + k)), 2, 4);
                    for (uint32_t l = 0; l < 32; l++) {
                        if (k >= nd[2 * (t0 + l) + 1]) continue;
                        const uint32_t *x = &ed[2 * (nd[2 * (t0 + l)] + k)];
                        ag_ld(e, ag_at(c, in, x[0]), 1, 4);
                        uint32_t du = ag_rd(e, ag_at(c, in, x[0]));
                        if (du != SS_INF && du + x[1] < best[l]) best[l] = du + x[1];
                    }
                    ag_comp(e, 4);
                }
                ag_ld(e, ag_at(c, out, t0), 32, 4);
                for (uint32_t l = 0; l < 32;) {   /* store the runs of changed lanes */
                    if (best[l] == ag_rd(e, ag_at(c, out, t0 + l))) { l++; continue; }
                    uint32_t z = l;
                    while (z < 32 && best[z] != ag_rd(e, ag_at(c, out, t0 + z))) z++;
                    ag_st(e, ag_at(c, out, t0 + l), z - l, 4, &best[l]);
                    l = z;
                }
            }
            ag_cta_end(e);
        }
    }
}

/* reference: SSSP1 one relaxation round of the initial distances; SSSP2 the shortest distances
 * (Gauss-Seidel relaxation to the fixpoint, a different iteration from the kernel's) */
static int ss_check(const ag_ctx *c, const mem_image *img, char *msg, size_t n)
{
    const uint64_t N = (uint64_t)c->p[0];
    uint32_t *d = (uint32_t *)malloc(N * 4);
    if (!d) return wl_err(msg, n, "out of memory");
    memcpy(d, c->h[2], N * 4);
    if (c->p[1] == 1) {
        uint32_t *t = (uint32_t *)malloc(N * 4);
        if (!t) { free(d); return wl_err(msg, n, "out of memory"); }
        for (uint64_t v = 0; v < N; v++) t[v] = ss_relax(c, d, v);
        free(d);
        d = t;
    } else {
        for (int changed = 1; changed;) {
            changed = 0;
            for (uint64_t v = 0; v < N; v++) {
                uint32_t x = ss_relax(c, d, v);
                if (x != d[v]) { d[v] = x; changed = 1; }
            }
        }
    }
    int rc = ag_cmp(c, img, 2 + (int)(c->p[1] % 2), 0, d, N, "dist", msg, n);
    /* the other array: the initial distances after one round, the fixpoint too after several */
    if (!rc) rc = ag_cmp(c, img, 2 + (int)((c->p[1] + 1) % 2), 0, c->p[1] == 1 ? c->h[2] : d, N, "dist (previous round)", msg, n);
    free(d);
    return rc;
}

/* ---------------- StreamTriad: a[i] = b[i] + 3 c[i] ----------------
 * thread per element, two coalesced loads, one coalesced store. p: 0 n. Arrays: 0 b, 1 c, 2 a (PM). */
static int tr_setup(ag_ctx *c, char *err, size_t n)
{
    if (c->n % 32) return wl_err(err, n, "agpm-streamtriad: size must be a multiple of 32");
    c->p[0] = (int64_t)c->n;
    ag_array(c, c->n, 0, 1000);
    ag_array(c, c->n, 0, 1000);
    ag_array(c, c->n, 1, 0);
    return 0;
}

static void tr_gen(ag_ctx *c, ag_em *e)
{
    const uint64_t N = (uint64_t)c->p[0];
    const uint32_t tpb = tpb_div(c, 256, N), wpb = tpb / 32, nb = (uint32_t)(N / tpb);
    ag_kernel(e, "triad", nb, tpb);
    for (uint32_t b = 0; b < nb; b++) {
        if (!ag_cta(e, b)) continue;
        for (uint32_t w = 0; w < wpb; w++) {
            ag_warp(e, w);
            const uint64_t t0 = ((uint64_t)b * wpb + w) * 32;
            uint32_t v[32];
            ag_ld(e, ag_at(c, 0, t0), 32, 4);
            ag_ld(e, ag_at(c, 1, t0), 32, 4);
            for (uint32_t l = 0; l < 32; l++) v[l] = c->h[0][t0 + l] + 3 * c->h[1][t0 + l];
            ag_comp(e, 1);
            ag_st(e, ag_at(c, 2, t0), 32, 4, v);
        }
        ag_cta_end(e);
    }
}

static int tr_check(const ag_ctx *c, const mem_image *img, char *msg, size_t n)
{
    const uint64_t N = (uint64_t)c->p[0];
    uint32_t *want = (uint32_t *)malloc(N * 4);
    if (!want) return wl_err(msg, n, "out of memory");
    for (uint64_t i = 0; i < N; i++) want[i] = c->h[0][i] + 3 * c->h[1][i];
    int rc = ag_cmp(c, img, 2, 0, want, N, "a", msg, n);
    free(want);
    return rc;
}

/* ---------------- RA (HPCC RandomAccess): T[idx_k] ^= ran_k ----------------
 * size-word table in PM, size/4 updates at distinct random indices (so that every CTA's outputs
 * are its own), 4 per thread: per update a coalesced load of idx and ran, then per lane a
 * scattered load and store of the table word. p: 0 table words, 1 updates. Arrays: 0 idx,
 * 1 ran (volatile), 2 T (PM). */
static int ra_setup(ag_ctx *c, char *err, size_t n)
{
    if (c->n % 512) return wl_err(err, n, "agpm-ra: size (table words) must be a multiple of 512");
    const uint64_t N = c->n, U = N / 4;
    c->p[0] = (int64_t)N;
    c->p[1] = (int64_t)U;
    int ix = ag_array(c, U, 0, 0);
    ag_array(c, U, 0, 0xFFFFFFFFu);
    int t = ag_array(c, N, 1, 0xFFFFFFFFu);
    uint32_t *perm = (uint32_t *)malloc(N * 4);
    if (ix < 0 || t < 0 || !perm) { free(perm); return wl_err(err, n, "agpm-ra: out of memory"); }
    for (uint64_t i = 0; i < N; i++) perm[i] = (uint32_t)i;
    for (uint64_t i = 0; i < U; i++) {   /* partial Fisher-Yates: U distinct indices */
        uint64_t j = i + wl_rng_below(&c->rng, N - i);
        uint32_t x = perm[i]; perm[i] = perm[j]; perm[j] = x;
        ag_set(c, ix, i, perm[i]);
    }
    free(perm);
    return 0;
}

#define RA_PER_THREAD 4u
static void ra_gen(ag_ctx *c, ag_em *e)
{
    const uint64_t U = (uint64_t)c->p[1], threads = U / RA_PER_THREAD;
    const uint32_t tpb = tpb_div(c, 128, threads), wpb = tpb / 32, nb = (uint32_t)(threads / tpb);
    ag_kernel(e, "RandomAccessUpdate", nb, tpb);
    for (uint32_t b = 0; b < nb; b++) {
        if (!ag_cta(e, b)) continue;
        for (uint32_t w = 0; w < wpb; w++) {
            ag_warp(e, w);
            const uint64_t t0 = ((uint64_t)b * wpb + w) * 32;
            for (uint32_t j = 0; j < RA_PER_THREAD; j++) {
                const uint64_t u0 = j * threads + t0;
                ag_ld(e, ag_at(c, 0, u0), 32, 4);
                ag_ld(e, ag_at(c, 1, u0), 32, 4);
                for (uint32_t l = 0; l < 32; l++) ag_ld(e, ag_at(c, 2, c->h[0][u0 + l]), 1, 4);
                ag_comp(e, 2);
                for (uint32_t l = 0; l < 32; l++) {
                    const uint32_t a = c->h[0][u0 + l], v = ag_rd(e, ag_at(c, 2, a)) ^ c->h[1][u0 + l];
                    ag_st(e, ag_at(c, 2, a), 1, 4, &v);
                }
            }
        }
        ag_cta_end(e);
    }
}

static int ra_check(const ag_ctx *c, const mem_image *img, char *msg, size_t n)
{
    const uint64_t N = (uint64_t)c->p[0];
    uint32_t *want = (uint32_t *)malloc(N * 4);
    if (!want) return wl_err(msg, n, "out of memory");
    memcpy(want, c->h[2], N * 4);
    for (uint64_t k = 0; k < (uint64_t)c->p[1]; k++) want[c->h[0][k]] ^= c->h[1][k];
    int rc = ag_cmp(c, img, 2, 0, want, N, "T", msg, n);
    free(want);
    return rc;
}

/* ---------------- GRID1 / GRID2: 2D grid relaxation ----------------
 * GRID1: out[i][j] = in[i-1][j] + in[i+1][j] + in[i][j-1] + in[i][j+1] - 4 in[i][j] (Jacobi sweep,
 *        out of place; block per row, 5 coalesced loads per warp, coalesced store).
 * GRID2: red half of a red-black Gauss-Seidel sweep, in place: u[i][j] = sum of the 4 (black)
 *        neighbours >> 2 at (i + j) even; lanes every other column: stride-8 loads and stores.
 * p: 0 N, 1 kind. Arrays: 0 in (volatile), 1 out | 0 u (PM). */
static int gr_setup(ag_ctx *c, int kind, char *err, size_t n)
{
    const uint64_t N = c->n, lanes = kind ? (N - 2 + 1) / 2 : N - 2, tiles = (lanes + 31) / 32;
    if (tiles * 32 > c->tpb) return wl_err(err, n, "agpm-%s: size %llu needs more threads per block than %u", c->def->id,
                                           (unsigned long long)N, c->tpb);
    c->p[0] = (int64_t)N;
    c->p[1] = kind;
    if (!kind) { ag_array(c, N * N, 0, 100); ag_array(c, N * N, 1, 0); }
    else ag_array(c, N * N, 1, 100);
    return 0;
}
static int gr1_setup(ag_ctx *c, char *e, size_t n) { return gr_setup(c, 0, e, n); }
static int gr2_setup(ag_ctx *c, char *e, size_t n) { return gr_setup(c, 1, e, n); }

static void gr_gen(ag_ctx *c, ag_em *e)
{
    const uint64_t N = (uint64_t)c->p[0];
    const int kind = (int)c->p[1];
    const uint32_t step = kind ? 2 : 1;
    const uint64_t lanes = kind ? (N - 2 + 1) / 2 : N - 2;
    const uint32_t tiles = (uint32_t)((lanes + 31) / 32);
    const int src = 0, dst = kind ? 0 : 1;
    ag_kernel(e, kind ? "grid_redblack" : "grid_jacobi", (uint32_t)(N - 2), tiles * 32);
    for (uint64_t i = 1; i + 1 < N; i++) {
        if (!ag_cta(e, (uint32_t)(i - 1))) continue;
        const uint64_t jfirst = kind ? (i % 2 ? 1 : 2) : 1;
        for (uint32_t w = 0; w < tiles; w++) {
            ag_warp(e, w);
            const uint64_t j0 = jfirst + (uint64_t)step * 32 * w;
            if (j0 + 1 >= N) continue;
            uint32_t nl = (uint32_t)((N - 2 - j0) / step + 1);
            if (nl > 32) nl = 32;
            const int64_t off[5] = { -(int64_t)N, (int64_t)N, -1, 1, 0 };
            uint32_t v[32];
            for (int k = 0; k < (kind ? 4 : 5); k++) ag_ld(e, ag_at(c, src, (uint64_t)((int64_t)(i * N + j0) + off[k])), nl, 4 * step);
            for (uint32_t l = 0; l < nl; l++) {
                const uint64_t x = i * N + j0 + (uint64_t)step * l;
                uint32_t s = 0;
                for (int k = 0; k < 4; k++) s += ag_rd(e, ag_at(c, src, (uint64_t)((int64_t)x + off[k])));
                v[l] = kind ? s >> 2 : s - 4 * ag_rd(e, ag_at(c, src, x));
            }
            ag_comp(e, 6);
            ag_st(e, ag_at(c, dst, i * N + j0), nl, 4 * step, v);
        }
        ag_cta_end(e);
    }
}

static int gr_check(const ag_ctx *c, const mem_image *img, char *msg, size_t n)
{
    const uint64_t N = (uint64_t)c->p[0];
    const int kind = (int)c->p[1];
    const uint32_t *a = c->h[0];
    uint32_t *want = (uint32_t *)malloc(N * 4);
    if (!want) return wl_err(msg, n, "out of memory");
    int rc = 0;
    for (uint64_t i = 0; i < N && !rc; i++) {
        for (uint64_t j = 0; j < N; j++) {
            const uint64_t x = i * N + j;
            const int interior = i > 0 && j > 0 && i + 1 < N && j + 1 < N;
            const uint32_t s = interior ? a[x - N] + a[x + N] + a[x - 1] + a[x + 1] : 0;
            if (!kind) want[j] = interior ? s - 4 * a[x] : 0;
            else want[j] = interior && (i + j) % 2 == 0 ? s >> 2 : a[x];
        }
        rc = ag_cmp(c, img, kind ? 0 : 1, i * N, want, N, kind ? "u" : "out", msg, n);
    }
    free(want);
    return rc;
}

AG_WORKLOAD(sad1, "sad1", "Parboil SAD mb_sad_calc: warp per 4x4 block, lane per search offset, 8-lane reference loads, "
            "coalesced SAD store", "frame width (multiple of 16)", 128, 32, 16, 2048, sad_setup, sad_gen, sad_check);
AG_WORKLOAD(sgemm, "sgemm", "Parboil SGEMM: 32x32 tiles through shared memory (barriers), coalesced tile loads, C in place",
            "N (NxN matrices; multiple of 32)", 128, 32, 32, 1024, sg_setup, sg_gen, sg_check);
AG_WORKLOAD(stencil1, "stencil1", "Parboil Stencil (7-point, 3D): thread per (x, y) walking z, 7 coalesced loads and a store "
            "per z", "n (n^3 grid)", 64, 24, 4, 512, st_setup, st_gen, st_check);
AG_WORKLOAD(sssp1, "sssp1", "Lonestar SSSP, first relaxation round (pull): per-lane scattered edge and distance loads, "
            "stores of changed distances only", "nodes (multiple of 32; 1-4 in-edges each)", 16384, 1024, 32, 1u << 22,
            ss1_setup, ss_gen, ss_check);
AG_WORKLOAD(sssp2, "sssp2", "Lonestar SSSP, relaxation rounds to the fixpoint (pull, ping-pong distance arrays)",
            "nodes (multiple of 32; 1-4 in-edges each)", 4096, 512, 32, 1u << 20, ss2_setup, ss_gen, ss_check);
AG_WORKLOAD(triad, "streamtriad", "STREAM triad a = b + 3c: thread per element, coalesced", "elements (multiple of 32)",
            262144, 8192, 32, 1u << 26, tr_setup, tr_gen, tr_check);
AG_WORKLOAD(ra, "ra", "HPCC RandomAccess T[idx] ^= ran: per-lane scattered load and store of the table, distinct indices",
            "table words (multiple of 512; size/4 updates)", 65536, 4096, 512, 1u << 26, ra_setup, ra_gen, ra_check);
AG_WORKLOAD(grid1, "grid1", "2D grid Jacobi sweep (5-point, out of place): block per row, 5 coalesced loads per warp",
            "N (NxN grid)", 512, 64, 4, 2048, gr1_setup, gr_gen, gr_check);
AG_WORKLOAD(grid2, "grid2", "2D grid red-black Gauss-Seidel, red half sweep in place: stride-8 loads and stores",
            "N (NxN grid)", 512, 64, 4, 4096, gr2_setup, gr_gen, gr_check);
