/* persim: the BROI workloads' stream set-up and logged transactions (see wl_broi.h). */
#include "wl_broi.h"

#include <stdlib.h>
#include <string.h>

int bx_gen_init(cpu_gen *g, const char *wl, const wl_params *prm, int need_remote, const mem_image *init,
                char *err, size_t errlen)
{
    const uint32_t nr = prm->num_remote;
    if (cpu_gen_init_streams(g, wl, prm, nr <= BX_MAX_REMOTE ? nr : 0, init, err, errlen) != 0) return -1;
    if (nr <= BX_MAX_REMOTE && (nr || !need_remote)) return 0;
    cpu_gen_free(g);
    if (nr > BX_MAX_REMOTE)
        return wl_err(err, errlen, "%s: num_remote %u out of range (0..%u RDMA channels)", wl, nr, BX_MAX_REMOTE);
    return wl_err(err, errlen, "%s: needs remote streams (RDMA channels): num_remote is 0 (set wl_params.num_remote "
                  "to 1..%u)", wl, BX_MAX_REMOTE);
}

void bx_init(bx *b, cpu_gen *g, uint32_t stream, int remote, int redo, uint64_t log)
{
    memset(b, 0, sizeof *b);
    b->g = g;
    b->s = stream;
    b->remote = remote;
    b->redo = redo;
    b->log = log;
}

static int bx_find(const bx *b, uint64_t addr)
{
    for (uint32_t i = 0; i < b->nw; i++)
        if (b->wa[i] == addr) return (int)i;
    return -1;
}

uint64_t bx_peek(const bx *b, uint64_t addr)
{
    const int i = bx_find(b, addr);
    return i >= 0 ? b->wv[i] : cpu_peek(b->g, addr, 8);
}

uint64_t bx_rd(bx *b, uint64_t addr)
{
    if (!b->remote && bx_find(b, addr) < 0) {
        uint32_t i = 0;
        while (i < b->nr && b->ra[i] != addr) i++;
        if (i == b->nr) {
            cpu_ld(b->g, b->s, addr, 8);
            if (b->nr < BX_MAXR) b->ra[b->nr++] = addr;
        }
    }
    return bx_peek(b, addr);
}

void bx_wr(bx *b, uint64_t addr, uint64_t val)
{
    const int i = bx_find(b, addr);
    if (i >= 0) { b->wv[i] = val; return; }
    if (b->nw == BX_MAXW) { b->overflow = 1; return; }
    b->wa[b->nw] = addr;
    b->wv[b->nw++] = val;
}

void bx_set(bx *b, uint64_t addr, uint64_t val)
{
    if (bx_peek(b, addr) != val) bx_wr(b, addr, val);
}

/* The persist barrier (epoch boundary): an `order` op in the stream. */
void bx_order(cpu_gen *g, uint32_t t) { cpu_order(g, t); }

static void order(bx *b) { bx_order(b->g, b->s); }

static int cmp_u64(const void *x, const void *y)
{
    const uint64_t a = *(const uint64_t *)x, c = *(const uint64_t *)y;
    return a < c ? -1 : a > c;
}

void bx_commit(bx *b)
{
    if (b->nw == 0) { b->nr = 0; return; }
    cpu_gen *g = b->g;
    const uint64_t seq = ++b->seq;
    /* log records: one epoch (locally) / one rdma_pwrite (remote: contiguous) */
    for (uint32_t i = 0; i < b->nw; i++) {
        const uint64_t r = b->log + 16 + (uint64_t)i * BX_REC;
        const uint64_t v = b->redo ? b->wv[i] : cpu_peek(g, b->wa[i], 8);
        cpu_st(g, b->s, r, 8, b->wa[i]);
        cpu_st(g, b->s, r + 8, 8, v);
        cpu_st(g, b->s, r + 16, 8, seq);
        cpu_st(g, b->s, r + 24, 8, bx_check(b->wa[i], v, seq));
    }
    order(b);
    if (b->redo) {                     /* commit record */
        cpu_st(g, b->s, b->log, 8, seq);
        order(b);
    }
    if (!b->remote) {                  /* in place, program order */
        for (uint32_t i = 0; i < b->nw; i++) cpu_st(g, b->s, b->wa[i], 8, b->wv[i]);
        order(b);
    } else {                           /* one rdma_pwrite per contiguous run */
        uint64_t *idx = (uint64_t *)malloc(b->nw * 2 * sizeof *idx);
        if (!idx) { g->oom = 1; return; }
        for (uint32_t i = 0; i < b->nw; i++) { idx[2 * i] = b->wa[i]; idx[2 * i + 1] = b->wv[i]; }
        qsort(idx, b->nw, 2 * sizeof *idx, cmp_u64);
        for (uint32_t i = 0; i < b->nw; i++) {
            cpu_st(g, b->s, idx[2 * i], 8, idx[2 * i + 1]);
            if (i + 1 == b->nw || idx[2 * i + 2] != idx[2 * i] + 8) order(b);
        }
        free(idx);
    }
    cpu_st(g, b->s, b->redo ? b->log + 8 : b->log, 8, seq);   /* undo: commit; redo: applied (clear) */
    order(b);
    b->nw = 0;
    b->nr = 0;
}
