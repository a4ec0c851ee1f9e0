/* persim: the AGPM paper's Rodinia kernels (docs/workloads-agpm.md): Backprop1
 * (bpnn_layerforward), Backprop2 (bpnn_adjust_weights), Pathfinder (dynproc), NW (needle, both
 * triangles, one kernel per block diagonal), BFS (one expansion kernel per level), with Rodinia's
 * thread mapping and integer data. */
#include <stdlib.h>
#include <string.h>

#include "wl_agpm.h"

#define HID 16u       /* Rodinia backprop: hidden units, and HEIGHT (input units per block) */
#define ETA 3u
#define MOMENTUM 2u

static uint32_t tpb_div(const ag_ctx *c, uint32_t want, uint64_t total)
{
    uint32_t t = ag_tpb(c, want);
    while (t > 32 && total % t) t -= 32;
    return t;
}

/* ---------------- Backprop ----------------
 * Weights: (n_in + 1) rows of HID + 1 words (row 0 and column 0: bias), in PM, updated in place.
 * Block by (n_in / 16 blocks of 16 x 16 threads; warp w = rows ty 2w, 2w+1): thread (ty, tx) owns
 * w[(by*16 + ty + 1)][tx + 1] (index = 17*16*by + 17*ty + tx + 1 + 17).
 * p: 0 n_in. Arrays: 0 input (n_in+1, volatile), 1 w (PM), 2 hidden_partial_sum (n_in, PM) |
 * 1 w, 2 oldw (PM), 3 delta (HID+1), 4 ly (= input). */
static int bp_setup(ag_ctx *c, int adjust, char *err, size_t n)
{
    if (c->n % HID) return wl_err(err, n, "agpm-%s: size (input units) must be a multiple of 16", c->def->id);
    if (c->tpb < 256) return wl_err(err, n, "agpm-%s: needs 256 threads per block", c->def->id);
    const uint64_t N = c->n;
    c->p[0] = (int64_t)N;
    ag_array(c, N + 1, 0, 16);
    ag_array(c, (N + 1) * (HID + 1), 1, 16);
    if (!adjust) { ag_array(c, N, 1, 0); return 0; }
    ag_array(c, (N + 1) * (HID + 1), 1, 16);
    ag_array(c, HID + 1, 0, 16);
    return 0;
}
static int bp1_setup(ag_ctx *c, char *e, size_t n) { return bp_setup(c, 0, e, n); }
static int bp2_setup(ag_ctx *c, char *e, size_t n) { return bp_setup(c, 1, e, n); }

static uint64_t bp_index(uint64_t by, uint32_t ty, uint32_t tx) { return (HID + 1) * HID * by + (HID + 1) * ty + tx + 1 + (HID + 1); }

static void bp1_gen(ag_ctx *c, ag_em *e)
{
    const uint64_t nb = (uint64_t)c->p[0] / HID;
    ag_kernel(e, "bpnn_layerforward", (uint32_t)nb, 256);
    for (uint64_t by = 0; by < nb; by++) {
        if (!ag_cta(e, (uint32_t)by)) continue;
        uint32_t m[HID][HID];
        for (uint32_t ty = 0; ty < HID; ty++)
            for (uint32_t tx = 0; tx < HID; tx++)
                m[ty][tx] = ag_rd(e, ag_at(c, 1, bp_index(by, ty, tx))) * c->h[0][HID * by + ty + 1];
        for (uint32_t p2 = 2; p2 <= HID; p2 *= 2)
            for (uint32_t ty = 0; ty < HID; ty += p2)
                for (uint32_t tx = 0; tx < HID; tx++) m[ty][tx] += m[ty + p2 / 2][tx];
        for (uint32_t w = 0; w < 8; w++) {
            ag_warp(e, w);
            const uint32_t ty = 2 * w;
            ag_ld(e, ag_at(c, 0, HID * by + ty + 1), 2, 4);            /* input_node[ty] (tx == 0) */
            ag_sync(e);
            ag_ld(e, ag_at(c, 1, bp_index(by, ty, 0)), 16, 4);          /* weight_matrix[ty][tx] */
            ag_ld(e, ag_at(c, 1, bp_index(by, ty + 1, 0)), 16, 4);
            ag_sync(e);
            ag_comp(e, 2);
            ag_sync(e);
            for (int i = 1; i <= 4; i++) { ag_comp(e, 3); ag_sync(e); }  /* the reduction in shared memory */
            ag_st(e, ag_at(c, 1, bp_index(by, ty, 0)), 16, 4, m[ty]);
            ag_st(e, ag_at(c, 1, bp_index(by, ty + 1, 0)), 16, 4, m[ty + 1]);
            ag_sync(e);
            uint32_t ps[2] = { m[0][ty], m[0][ty + 1] };                 /* hidden_partial_sum (tx == 0) */
            ag_st(e, ag_at(c, 2, by * HID + ty), 2, 4, ps);
        }
        ag_cta_end(e);
    }
}

/* reference: after the tree, row ty holds the sum of rows ty .. ty + lowbit(ty) - 1 (lowbit(0) = 16) */
static int bp1_check(const ag_ctx *c, const mem_image *img, char *msg, size_t n)
{
    const uint64_t nb = (uint64_t)c->p[0] / HID;
    int rc = 0;
    for (uint64_t by = 0; by < nb && !rc; by++) {
        uint32_t col[HID] = { 0 };
        for (uint32_t ty = 0; ty < HID && !rc; ty++) {
            uint32_t span = ty ? (ty & (0u - ty)) : HID, want[HID];
            for (uint32_t tx = 0; tx < HID; tx++) {
                want[tx] = 0;
                for (uint32_t r = ty; r < ty + span; r++)
                    want[tx] += c->h[1][bp_index(by, r, tx)] * c->h[0][HID * by + r + 1];
                if (ty == 0) col[tx] = want[tx];
            }
            rc = ag_cmp(c, img, 1, bp_index(by, ty, 0), want, HID, "weights", msg, n);
        }
        if (!rc) rc = ag_cmp(c, img, 2, by * HID, col, HID, "hidden_partial_sum", msg, n);
    }
    if (!rc) {   /* row 0 and column 0 are not touched */
        rc = ag_cmp(c, img, 1, 0, c->h[1], HID + 1, "weights row 0", msg, n);
        for (uint64_t r = 1; r <= (uint64_t)c->p[0] && !rc; r++)
            rc = ag_cmp(c, img, 1, r * (HID + 1), &c->h[1][r * (HID + 1)], 1, "weights column 0", msg, n);
    }
    return rc;
}

static void bp2_gen(ag_ctx *c, ag_em *e)
{
    const uint64_t nb = (uint64_t)c->p[0] / HID;
    const uint32_t *delta = c->h[3], *ly = c->h[0];
    ag_kernel(e, "bpnn_adjust_weights", (uint32_t)nb, 256);
    for (uint64_t by = 0; by < nb; by++) {
        if (!ag_cta(e, (uint32_t)by)) continue;
        for (uint32_t w = 0; w < 8; w++) {
            ag_warp(e, w);
            ag_ld(e, ag_at(c, 3, 1), 16, 4);                               /* delta[tx + 1] */
            ag_ld(e, ag_at(c, 0, HID * by + 2 * w + 1), 2, 4);             /* ly[index_y] */
            for (uint32_t r = 0; r < 2; r++) {
                const uint32_t ty = 2 * w + r;
                const uint64_t i0 = bp_index(by, ty, 0);
                uint32_t nw[HID], no[HID];
                ag_ld(e, ag_at(c, 1, i0), 16, 4);
                ag_ld(e, ag_at(c, 2, i0), 16, 4);
                for (uint32_t tx = 0; tx < HID; tx++) {
                    uint32_t d = ETA * delta[tx + 1] * ly[HID * by + ty + 1] + MOMENTUM * ag_rd(e, ag_at(c, 2, i0 + tx));
                    nw[tx] = ag_rd(e, ag_at(c, 1, i0 + tx)) + d;
                    no[tx] = d;
                }
                ag_comp(e, 6);
                ag_st(e, ag_at(c, 1, i0), 16, 4, nw);
                ag_st(e, ag_at(c, 2, i0), 16, 4, no);
            }
            ag_sync(e);
            if (by == 0 && w == 0) {   /* the bias row: ty == 0 && by == 0 */
                uint32_t nw[HID], no[HID];
                ag_ld(e, ag_at(c, 1, 1), 16, 4);
                ag_ld(e, ag_at(c, 2, 1), 16, 4);
                for (uint32_t tx = 0; tx < HID; tx++) {
                    uint32_t d = ETA * delta[tx + 1] + MOMENTUM * ag_rd(e, ag_at(c, 2, 1 + tx));
                    nw[tx] = ag_rd(e, ag_at(c, 1, 1 + tx)) + d;
                    no[tx] = d;
                }
                ag_st(e, ag_at(c, 1, 1), 16, 4, nw);
                ag_st(e, ag_at(c, 2, 1), 16, 4, no);
            }
        }
        ag_cta_end(e);
    }
}

static int bp2_check(const ag_ctx *c, const mem_image *img, char *msg, size_t n)
{
    const uint64_t N = (uint64_t)c->p[0], W = (N + 1) * (HID + 1);
    uint32_t *ww = (uint32_t *)malloc(W * 4), *wo = (uint32_t *)malloc(W * 4);
    int rc = 0;
    if (!ww || !wo) { free(ww); free(wo); return wl_err(msg, n, "out of memory"); }
    memcpy(ww, c->h[1], W * 4);
    memcpy(wo, c->h[2], W * 4);
    for (uint64_t j = 1; j <= N; j++)          /* w[j][k] += ETA delta[k] ly[j] + MOMENTUM oldw[j][k] */
        for (uint32_t k = 1; k <= HID; k++) {
            uint64_t i = j * (HID + 1) + k;
            uint32_t d = ETA * c->h[3][k] * c->h[0][j] + MOMENTUM * wo[i];
            ww[i] += d;
            wo[i] = d;
        }
    for (uint32_t k = 1; k <= HID; k++) {      /* the bias row (ly[0] treated as 1, as the kernel does) */
        uint32_t d = ETA * c->h[3][k] + MOMENTUM * wo[k];
        ww[k] += d;
        wo[k] = d;
    }
    rc = ag_cmp(c, img, 1, 0, ww, W, "w", msg, n);
    if (!rc) rc = ag_cmp(c, img, 2, 0, wo, W, "oldw", msg, n);
    free(ww);
    free(wo);
    return rc;
}

/* ---------------- Pathfinder (dynproc_kernel) ----------------
 * rows x cols grid of wall weights; result[r][x] = wall[r][x] + min(result[r-1][x-1..x+1]).
 * Kernels of PYR rows each (Rodinia's pyramid), 256-thread blocks covering 256 - 2 PYR columns
 * with a halo; the rows in between live in shared memory. p: 0 cols, 1 kernels. Arrays: 0 wall
 * (volatile), 1 result[0] (PM, = wall row 0), 2 result[1] (PM). */
#define PYR 4u
#define PF_KERNELS 5u
#define PF_BS 256u

static int pf_setup(ag_ctx *c, char *err, size_t n)
{
    if (c->tpb < PF_BS) return wl_err(err, n, "agpm-pathfinder: needs 256 threads per block");
    const uint64_t C = c->n, R = 1 + PYR * PF_KERNELS;
    c->p[0] = (int64_t)C;
    c->p[1] = PF_KERNELS;
    ag_array(c, R * C, 0, 10);
    ag_array(c, C, 1, 0);
    ag_array(c, C, 1, 0);
    memcpy(c->h[1], c->h[0], C * 4);
    return 0;
}

static void pf_gen(ag_ctx *c, ag_em *e)
{
    const int64_t C = c->p[0], K = c->p[1], small = PF_BS - 2 * PYR;
    const uint32_t nb = (uint32_t)((C + small - 1) / small);
    for (int64_t t = 0; t < K; t++) {
        const int src = 1 + (int)(t % 2), dst = 1 + (int)((t + 1) % 2);
        ag_kernel(e, "dynproc", nb, PF_BS);
        for (uint32_t bx = 0; bx < nb; bx++) {
            if (!ag_cta(e, bx)) continue;
            const int64_t base = (int64_t)bx * small - PYR;
            int64_t vmin = base < 0 ? -base : 0, vmax = base + PF_BS - 1 >= C ? C - 1 - base : PF_BS - 1;
            uint32_t prev[PF_BS], res[PF_BS];
            int computed[PF_BS] = { 0 };
            for (int64_t tx = vmin; tx <= vmax; tx++) prev[tx] = ag_rd(e, ag_at(c, src, (uint64_t)(base + tx)));
            for (uint32_t i = 0; i < PYR; i++) {
                for (int64_t tx = 0; tx < PF_BS; tx++) {
                    computed[tx] = 0;
                    if (tx < (int64_t)i + 1 || tx > (int64_t)PF_BS - (int64_t)i - 2 || tx < vmin || tx > vmax) continue;
                    int64_t W = tx - 1 < vmin ? vmin : tx - 1, E = tx + 1 > vmax ? vmax : tx + 1;
                    uint32_t s = prev[W] < prev[tx] ? prev[W] : prev[tx];
                    s = s < prev[E] ? s : prev[E];
                    res[tx] = s + c->h[0][(uint64_t)(t * PYR + i + 1) * (uint64_t)C + (uint64_t)(base + tx)];
                    computed[tx] = 1;
                }
                if (i + 1 < PYR)
                    for (int64_t tx = 0; tx < PF_BS; tx++) if (computed[tx]) prev[tx] = res[tx];
            }
            for (uint32_t w = 0; w < PF_BS / 32; w++) {
                ag_warp(e, w);
                const int64_t l0 = 32 * w, lo = l0 > vmin ? l0 : vmin, hi = l0 + 31 < vmax ? l0 + 31 : vmax;
                if (lo <= hi) ag_ld(e, ag_at(c, src, (uint64_t)(base + lo)), (uint32_t)(hi - lo + 1), 4);
                ag_sync(e);
                for (uint32_t i = 0; i < PYR; i++) {
                    int64_t a = lo > (int64_t)i + 1 ? lo : (int64_t)i + 1, z = hi < (int64_t)PF_BS - i - 2 ? hi : (int64_t)PF_BS - i - 2;
                    if (a <= z) ag_ld(e, ag_at(c, 0, (uint64_t)(t * PYR + i + 1) * (uint64_t)C + (uint64_t)(base + a)), (uint32_t)(z - a + 1), 4);
                    ag_comp(e, 6);
                    ag_sync(e);
                    if (i + 1 < PYR) ag_sync(e);
                }
                int64_t a = lo > (int64_t)PYR ? lo : (int64_t)PYR, z = hi < (int64_t)(PF_BS - PYR - 1) ? hi : (int64_t)(PF_BS - PYR - 1);
                if (a <= z) ag_st(e, ag_at(c, dst, (uint64_t)(base + a)), (uint32_t)(z - a + 1), 4, &res[a]);
            }
            ag_cta_end(e);
        }
    }
}

static int pf_check(const ag_ctx *c, const mem_image *img, char *msg, size_t n)
{
    const uint64_t C = (uint64_t)c->p[0], R = 1 + PYR * (uint64_t)c->p[1];
    uint32_t *a = (uint32_t *)malloc(C * 4), *b = (uint32_t *)malloc(C * 4);
    if (!a || !b) { free(a); free(b); return wl_err(msg, n, "out of memory"); }
    memcpy(a, c->h[0], C * 4);
    for (uint64_t r = 1; r < R; r++) {
        for (uint64_t x = 0; x < C; x++) {
            uint32_t m = a[x];
            if (x > 0 && a[x - 1] < m) m = a[x - 1];
            if (x + 1 < C && a[x + 1] < m) m = a[x + 1];
            b[x] = c->h[0][r * C + x] + m;
        }
        uint32_t *t = a; a = b; b = t;
    }
    int rc = ag_cmp(c, img, 1 + (int)((uint64_t)c->p[1] % 2), 0, a, C, "result", msg, n);
    free(a);
    free(b);
    return rc;
}

/* ---------------- NW (needle_cuda_shared_1 / _2) ----------------
 * (N+1) x (N+1) score matrix in PM, row 0 / column 0 initialised to -i*penalty; 16 x 16 blocks
 * of 16 threads, one kernel per block anti-diagonal (upper-left triangle, then lower-right). Per
 * block: 16 coalesced loads of the reference block, the north row (coalesced) and the west column
 * (stride N+1: uncoalesced), the wavefront in shared memory (31 steps), 16 row stores.
 * p: 0 N, 1 penalty. Arrays: 0 reference (volatile), 1 matrix (PM). */
#define NW_BS 16u

static int nw_setup(ag_ctx *c, char *err, size_t n)
{
    if (c->n % NW_BS) return wl_err(err, n, "agpm-nw: size must be a multiple of 16");
    const uint64_t N = c->n, cols = N + 1;
    c->p[0] = (int64_t)N;
    c->p[1] = 10;
    int r = ag_array(c, cols * cols, 0, 15);
    ag_array(c, cols * cols, 1, 0);
    for (uint64_t i = 0; i < cols * cols; i++) c->h[r][i] -= 4;   /* [-4, 10] */
    for (uint64_t i = 0; i < cols; i++) {
        c->h[1][i] = (uint32_t)(-(int32_t)(i * 10));
        c->h[1][i * cols] = (uint32_t)(-(int32_t)(i * 10));
    }
    return 0;
}

static int32_t max3(int32_t a, int32_t b, int32_t d) { int32_t m = a > b ? a : b; return m > d ? m : d; }

static void nw_block(ag_ctx *c, ag_em *e, uint64_t bx, uint64_t by, uint32_t cta)
{
    const uint64_t cols = (uint64_t)c->p[0] + 1;
    const int32_t pen = (int32_t)c->p[1];
    if (!ag_cta(e, cta)) return;
    const uint64_t inw = cols * NW_BS * by + NW_BS * bx, index = inw + cols + 1;
    int32_t t[NW_BS + 1][NW_BS + 1];
    t[0][0] = (int32_t)ag_rd(e, ag_at(c, 1, inw));
    for (uint32_t k = 0; k < NW_BS; k++) {
        t[k + 1][0] = (int32_t)ag_rd(e, ag_at(c, 1, inw + cols * (k + 1)));
        t[0][k + 1] = (int32_t)ag_rd(e, ag_at(c, 1, inw + k + 1));
    }
    for (uint32_t y = 1; y <= NW_BS; y++)
        for (uint32_t x = 1; x <= NW_BS; x++)
            t[y][x] = max3(t[y - 1][x - 1] + (int32_t)c->h[0][index + cols * (y - 1) + x - 1], t[y][x - 1] - pen, t[y - 1][x] - pen);
    ag_warp(e, 0);
    ag_ld(e, ag_at(c, 1, inw), 1, 4);
    for (uint32_t y = 0; y < NW_BS; y++) ag_ld(e, ag_at(c, 0, index + cols * y), NW_BS, 4);
    ag_sync(e);
    ag_ld(e, ag_at(c, 1, inw + cols), NW_BS, (uint32_t)(4 * cols));   /* west column */
    ag_ld(e, ag_at(c, 1, inw + 1), NW_BS, 4);                         /* north row */
    ag_sync(e);
    for (uint32_t s = 0; s < 2 * NW_BS - 1; s++) { ag_comp(e, 4); ag_sync(e); }
    for (uint32_t y = 0; y < NW_BS; y++) {
        uint32_t v[NW_BS];
        for (uint32_t x = 0; x < NW_BS; x++) v[x] = (uint32_t)t[y + 1][x + 1];
        ag_st(e, ag_at(c, 1, index + cols * y), NW_BS, 4, v);
    }
    ag_cta_end(e);
}

static void nw_gen(ag_ctx *c, ag_em *e)
{
    const uint64_t bw = (uint64_t)c->p[0] / NW_BS;
    for (uint64_t i = 1; i <= bw; i++) {
        ag_kernel(e, "needle_1", (uint32_t)i, NW_BS);
        for (uint64_t bx = 0; bx < i; bx++) nw_block(c, e, bx, i - 1 - bx, (uint32_t)bx);
    }
    for (uint64_t i = bw - 1; i >= 1; i--) {
        ag_kernel(e, "needle_2", (uint32_t)i, NW_BS);
        for (uint64_t bx = 0; bx < i; bx++) nw_block(c, e, bx + bw - i, bw - bx - 1, (uint32_t)bx);
    }
}

static int nw_check(const ag_ctx *c, const mem_image *img, char *msg, size_t n)
{
    const uint64_t cols = (uint64_t)c->p[0] + 1;
    const int32_t pen = (int32_t)c->p[1];
    uint32_t *m = (uint32_t *)malloc(cols * cols * 4);
    if (!m) return wl_err(msg, n, "out of memory");
    memcpy(m, c->h[1], cols * cols * 4);
    for (uint64_t i = 1; i < cols; i++)
        for (uint64_t j = 1; j < cols; j++)
            m[i * cols + j] = (uint32_t)max3((int32_t)m[(i - 1) * cols + j - 1] + (int32_t)c->h[0][i * cols + j],
                                             (int32_t)m[i * cols + j - 1] - pen, (int32_t)m[(i - 1) * cols + j] - pen);
    int rc = ag_cmp(c, img, 1, 0, m, cols * cols, "score", msg, n);
    free(m);
    return rc;
}

/* ---------------- BFS (Kernel of Rodinia's bfs, one launch per level) ----------------
 * n nodes, 1..6 random out-edges each (CSR: node i = {start, degree}, 8 B), source 0. Level L:
 * thread per node; loads its cost (coalesced); a frontier node (cost == L) loads its {start,
 * degree} (stride 8) and, per edge, the neighbour id and the neighbour's cost (per-lane scattered,
 * one op per lane) and stores cost = L + 1 into an unvisited one. p: 0 n, 1 levels.
 * Arrays: 0 nodes (volatile), 1 edges (volatile), 2 cost (PM; -1 = unvisited). */
#define BFS_INF 0xFFFFFFFFu

static int bfs_levels(const ag_ctx *c, uint32_t *cost)
{
    const uint64_t N = (uint64_t)c->p[0];
    uint32_t *q = (uint32_t *)malloc(N * 4);
    if (!q) return -1;
    for (uint64_t i = 0; i < N; i++) cost[i] = BFS_INF;
    uint64_t h = 0, t = 0;
    cost[0] = 0;
    q[t++] = 0;
    while (h < t) {
        uint32_t u = q[h++];
        for (uint32_t k = 0; k < c->h[0][2 * u + 1]; k++) {
            uint32_t v = c->h[1][c->h[0][2 * u] + k];
            if (cost[v] == BFS_INF) { cost[v] = cost[u] + 1; q[t++] = v; }
        }
    }
    free(q);
    return 0;
}

static int bfs_setup(ag_ctx *c, char *err, size_t n)
{
    if (c->n % 32) return wl_err(err, n, "agpm-bfs: size (nodes) must be a multiple of 32");
    const uint64_t N = c->n;
    c->p[0] = (int64_t)N;
    int nd = ag_array(c, 2 * N, 0, 0);
    uint64_t ne = 0;
    for (uint64_t i = 0; i < N; i++) {
        uint32_t d = 1 + (uint32_t)wl_rng_below(&c->rng, 6);
        ag_set(c, nd, 2 * i, (uint32_t)ne);
        ag_set(c, nd, 2 * i + 1, d);
        ne += d;
    }
    int ed = ag_array(c, ne, 0, (uint32_t)N);
    int co = ag_array(c, N, 1, 0);
    for (uint64_t i = 0; i < N; i++) c->h[co][i] = i ? BFS_INF : 0;
    uint32_t *cost = (uint32_t *)malloc(N * 4);
    if (ed < 0 || co < 0 || !cost || bfs_levels(c, cost) != 0) { free(cost); return wl_err(err, n, "agpm-bfs: out of memory"); }
    uint32_t lv = 0;
    for (uint64_t i = 0; i < N; i++) if (cost[i] != BFS_INF && cost[i] > lv) lv = cost[i];
    c->p[1] = lv;
    free(cost);
    return 0;
}

static void bfs_gen(ag_ctx *c, ag_em *e)
{
    const uint64_t N = (uint64_t)c->p[0];
    const uint32_t tpb = tpb_div(c, 256, N), wpb = tpb / 32, nb = (uint32_t)(N / tpb);
    const uint32_t *nd = c->h[0], *ed = c->h[1];
    for (uint32_t L = 0; L < (uint32_t)c->p[1]; L++) {
        ag_kernel(e, "bfs_kernel", nb, tpb);
        for (uint32_t b = 0; b < nb; b++) {
            if (!ag_cta(e, b)) continue;
            for (uint32_t w = 0; w < wpb; w++) {
                ag_warp(e, w);
                const uint64_t t0 = ((uint64_t)b * wpb + w) * 32;
                ag_ld(e, ag_at(c, 2, t0), 32, 4);
                uint32_t front[32], nf = 0, maxd = 0;
                for (uint32_t l = 0; l < 32; l++)
                    if (ag_rd(e, ag_at(c, 2, t0 + l)) == L) {
                        front[nf++] = l;
                        if (nd[2 * (t0 + l) + 1] > maxd) maxd = nd[2 * (t0 + l) + 1];
                    }
                ag_comp(e, 2);
                if (!nf) continue;
                ag_ld(e, ag_at(c, 0, 2 * t0), 32, 8);
                ag_ld(e, ag_at(c, 0, 2 * t0 + 1), 32, 8);
                for (uint32_t k = 0; k < maxd; k++) {
                    for (uint32_t f = 0; f < nf; f++) {
                        const uint64_t u = t0 + front[f];
                        if (k < nd[2 * u + 1]) ag_ld(e, ag_at(c, 1, nd[2 * u] + k), 1, 4);
                    }
                    for (uint32_t f = 0; f < nf; f++) {
                        const uint64_t u = t0 + front[f];
                        if (k < nd[2 * u + 1]) ag_ld(e, ag_at(c, 2, ed[nd[2 * u] + k]), 1, 4);
                    }
                    ag_comp(e, 3);
                    for (uint32_t f = 0; f < nf; f++) {
                        const uint64_t u = t0 + front[f];
                        if (k >= nd[2 * u + 1]) continue;
                        const uint32_t v = ed[nd[2 * u] + k], nv = L + 1;
                        if (ag_rd(e, ag_at(c, 2, v)) == BFS_INF) ag_st(e, ag_at(c, 2, v), 1, 4, &nv);
                    }
                }
            }
            ag_cta_end(e);
        }
    }
}

static int bfs_check(const ag_ctx *c, const mem_image *img, char *msg, size_t n)
{
    uint32_t *cost = (uint32_t *)malloc((uint64_t)c->p[0] * 4);
    if (!cost || bfs_levels(c, cost) != 0) { free(cost); return wl_err(msg, n, "out of memory"); }
    int rc = ag_cmp(c, img, 2, 0, cost, (uint64_t)c->p[0], "cost", msg, n);
    free(cost);
    return rc;
}

AG_WORKLOAD(bp1, "backprop1", "Rodinia Backprop bpnn_layerforward: 16x16 blocks, weights loaded/stored as 16-lane rows "
            "(rows of 17), shared-memory reduction, weights written back in place + partial sums",
            "input units (multiple of 16)", 16384, 256, 16, 1u << 20, bp1_setup, bp1_gen, bp1_check);
AG_WORKLOAD(bp2, "backprop2", "Rodinia Backprop bpnn_adjust_weights: w and oldw updated in place, 16-lane rows",
            "input units (multiple of 16)", 16384, 256, 16, 1u << 20, bp2_setup, bp2_gen, bp2_check);
AG_WORKLOAD(pf, "pathfinder", "Rodinia Pathfinder dynproc: 5 kernels of a 4-row pyramid, 256-thread blocks with halo, "
            "coalesced wall-row loads, result row in PM (ping-pong)",
            "columns (21 rows)", 16384, 512, 8, 1u << 22, pf_setup, pf_gen, pf_check);
AG_WORKLOAD(nw, "nw", "Rodinia NW needle: 16-thread blocks per 16x16 tile, one kernel per tile diagonal, west column "
            "loads with stride N+1, wavefront in shared memory",
            "sequence length N (multiple of 16)", 512, 64, 16, 4096, nw_setup, nw_gen, nw_check);
AG_WORKLOAD(bfs, "bfs", "Rodinia BFS: one kernel per level, coalesced cost loads, per-lane scattered neighbour loads "
            "and cost stores", "nodes (multiple of 32; 1-6 random out-edges each)", 16384, 1024, 32, 1u << 22,
            bfs_setup, bfs_gen, bfs_check);
