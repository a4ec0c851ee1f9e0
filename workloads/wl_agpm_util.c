/* persim: the CTA-level undo-logging wrapper of the AGPM kernels (wl_agpm.h), their build,
 * verify and recover hooks (each kernel's file registers it: AG_WORKLOAD). */
#include <stdlib.h>
#include <string.h>

#include "wl_agpm.h"

/* ---- one pending op of a warp (a CTA is buffered whole: its log comes first in every warp) ---- */
typedef struct ag_pop {
    uint8_t  kind;           /* OPK_LD, OPK_ST, OPK_COMPUTE, OPK_SYNC */
    uint8_t  nlanes;
    uint32_t stride;
    uint64_t addr;           /* LD/ST; COMPUTE: instructions */
    uint64_t vi;             /* ST: first value in the warp's value pool */
} ag_pop;

typedef struct ag_wbuf {
    ag_pop   *o;  size_t n, cap;
    uint32_t *v;  size_t nv, capv;
    uint64_t  stw;           /* PM words stored */
} ag_wbuf;

struct ag_em {
    ag_ctx      *c;
    persim_prog *p;          /* NULL when redoing (recovery) */
    mem_image   *img;        /* model memory */
    int          redo;
    uint32_t     nblk, wpb, kern;
    uint64_t     flags;      /* flag array of the kernel */
    uint32_t     blk, cur;
    int          in_cta;
    uint64_t     gcta;       /* CTA index over the whole program */
    ag_wbuf      w[32];
    uint32_t    *ids;  size_t nids, capids;   /* op ids of the stores of the warp being emitted */
    int          oom;
};

static int grow(void **a, size_t *cap, size_t need, size_t elsz)
{
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 64;
    while (c < need) c *= 2;
    void *n = realloc(*a, c * elsz);
    if (!n) return -1;
    *a = n;
    *cap = c;
    return 0;
}

/* ---- setup helpers ---- */
int ag_array(ag_ctx *c, uint64_t words, int pm, uint32_t maxval)
{
    if (c->na >= AG_MAXA) return -1;
    int s = c->na++;
    c->len[s] = words;
    c->pm[s] = pm;
    c->addr[s] = pm ? wl_alloc_pm(&c->al, 4 * words) : wl_alloc_vol(&c->al, 4 * words);
    c->h[s] = (uint32_t *)calloc(words ? words : 1, 4);
    if (!c->h[s]) return -1;
    if (maxval)
        for (uint64_t i = 0; i < words; i++) c->h[s][i] = (uint32_t)wl_rng_below(&c->rng, maxval);
    return s;
}

void ag_set(ag_ctx *c, int s, uint64_t i, uint32_t v) { c->h[s][i] = v; }

uint32_t ag_tpb(const ag_ctx *c, uint32_t want)
{
    uint32_t t = want < c->tpb ? want : c->tpb;
    t -= t % PERSIM_WARP_SIZE;
    return t ? t : PERSIM_WARP_SIZE;
}

/* ---- emitter ---- */
uint32_t ag_rd(const ag_em *e, uint64_t addr) { return mem_read_u32(e->img, addr); }

void ag_kernel(ag_em *e, const char *name, uint32_t nblocks, uint32_t tpb)
{
    ag_ctx *c = e->c;
    e->nblk = nblocks;
    e->wpb = (tpb + PERSIM_WARP_SIZE - 1) / PERSIM_WARP_SIZE;
    if (e->wpb > 32) e->wpb = 32;
    if (!e->redo) {
        prog_kernel(e->p, name, nblocks, tpb);
        if (c->logging) e->flags = wl_alloc_pm(&c->al, 4ull * nblocks);
    }
    e->kern++;
}

int ag_cta(ag_em *e, uint32_t block)
{
    ag_ctx *c = e->c;
    e->blk = block;
    e->cur = 0;
    for (uint32_t w = 0; w < e->wpb; w++) { e->w[w].n = 0; e->w[w].nv = 0; e->w[w].stw = 0; }
    if (e->redo) {
        const ag_ctarec *t = &c->cta[e->gcta];
        int todo = mem_read_u32(e->img, t->flag) != AG_FLAG_DONE;
        if (!todo) e->gcta++;
        e->in_cta = todo;
        return todo;
    }
    e->in_cta = 1;
    return 1;
}

void ag_warp(ag_em *e, uint32_t warp) { e->cur = warp < e->wpb ? warp : e->wpb - 1; }

static ag_pop *push(ag_em *e, uint8_t kind)
{
    ag_wbuf *b = &e->w[e->cur];
    if (grow((void **)&b->o, &b->cap, b->n + 1, sizeof *b->o) != 0) { e->oom = 1; return NULL; }
    ag_pop *o = &b->o[b->n++];
    memset(o, 0, sizeof *o);
    o->kind = kind;
    return o;
}

void ag_ld(ag_em *e, uint64_t addr, uint32_t nlanes, uint32_t stride)
{
    ag_pop *o = push(e, OPK_LD);
    if (!o) return;
    o->addr = addr;
    o->nlanes = (uint8_t)nlanes;
    o->stride = nlanes > 1 ? stride : 4;
}

void ag_st(ag_em *e, uint64_t addr, uint32_t nlanes, uint32_t stride, const uint32_t *vals)
{
    ag_wbuf *b = &e->w[e->cur];
    if (grow((void **)&b->v, &b->capv, b->nv + nlanes, sizeof *b->v) != 0) { e->oom = 1; return; }
    ag_pop *o = push(e, OPK_ST);
    if (!o) return;
    o->addr = addr;
    o->nlanes = (uint8_t)nlanes;
    o->stride = nlanes > 1 ? stride : 4;
    o->vi = b->nv;
    memcpy(b->v + b->nv, vals, nlanes * sizeof *vals);
    b->nv += nlanes;
    b->stw += nlanes;
}

void ag_comp(ag_em *e, uint64_t n)
{
    ag_pop *o = push(e, OPK_COMPUTE);
    if (o) o->addr = n;
}

void ag_sync(ag_em *e) { push(e, OPK_SYNC); }

static void note_id(ag_em *e, uint32_t id)
{
    if (grow((void **)&e->ids, &e->capids, e->nids + 1, sizeof *e->ids) != 0) { e->oom = 1; return; }
    e->ids[e->nids++] = id;
}

/* The body; the ids of its stores go to e->ids (from index 0 on). */
static void emit_body(ag_em *e, const ag_wbuf *b)
{
    uint64_t v[PERSIM_WARP_SIZE];
    e->nids = 0;
    for (size_t i = 0; i < b->n; i++) {
        const ag_pop *o = &b->o[i];
        switch (o->kind) {
        case OPK_LD: op_ld(e->p, o->addr, 4, o->nlanes, o->stride); break;
        case OPK_ST:
            for (uint32_t l = 0; l < o->nlanes; l++) v[l] = b->v[o->vi + l];
            note_id(e, op_st(e->p, o->addr, 4, o->nlanes, o->stride, v));
            break;
        case OPK_COMPUTE: op_compute(e->p, o->addr); break;
        default: op_sync(e->p, SCOPE_BLOCK); break;
        }
    }
}

static void apply_stores(ag_em *e)
{
    for (uint32_t w = 0; w < e->wpb; w++) {
        const ag_wbuf *b = &e->w[w];
        for (size_t i = 0; i < b->n; i++) {
            const ag_pop *o = &b->o[i];
            if (o->kind != OPK_ST) continue;
            for (uint32_t l = 0; l < o->nlanes; l++)
                mem_write_u32(e->img, o->addr + (uint64_t)l * o->stride, b->v[o->vi + l]);
        }
    }
}

void ag_cta_end(ag_em *e)
{
    ag_ctx *c = e->c;
    if (!e->in_cta || e->oom) return;
    e->in_cta = 0;
    if (e->redo) {   /* recovery: the CTA's stores and its flag, on the model image */
        apply_stores(e);
        mem_write_u32(e->img, c->cta[e->gcta].flag, AG_FLAG_DONE);
        e->gcta++;
        return;
    }
    if (!c->logging) {
        for (uint32_t w = 0; w < e->wpb; w++) {
            prog_warp(e->p, e->blk, w);
            emit_body(e, &e->w[w]);
        }
        apply_stores(e);
        return;
    }
    uint64_t words = 0;
    for (uint32_t w = 0; w < e->wpb; w++) words += e->w[w].stw;
    if (grow((void **)&c->cta, &c->capcta, c->ncta + 1, sizeof *c->cta) != 0 ||
        grow((void **)&c->logw, &c->caplogw, c->nlogw + words, sizeof *c->logw) != 0) {
        e->oom = 1;
        return;
    }
    ag_ctarec *t = &c->cta[c->ncta++];
    t->flag = e->flags + 4ull * e->blk;
    t->log = wl_alloc_pm(&c->al, words ? 4 * words : 4);
    t->lw0 = c->nlogw;
    t->nlw = (uint32_t)words;
    /* what recovery relies on, as checker requirements (persim check, docs/checking.md): every log
     * store durable before the "in transaction" flag, the flag before every output store, every
     * output store before the "complete" flag (the requires of warp w sit in warp w's stream; the
     * flags' ids are warp 0's, emitted first) */
    uint32_t flag1 = 0, flag2 = 0;
    uint64_t off = 0;
    for (uint32_t w = 0; w < e->wpb; w++) {
        const ag_wbuf *b = &e->w[w];
        prog_warp(e->p, e->blk, w);
        /* the log: read the old value of every output (`ld log`), write it to the warp's slice of the log,
         * 32 words per (coalesced) log store */
        uint64_t chunk[PERSIM_WARP_SIZE], at = off;
        uint32_t nc = 0;
        e->nids = 0;   /* the log stores' ids */
        for (size_t i = 0; i < b->n; i++) {
            const ag_pop *o = &b->o[i];
            if (o->kind != OPK_ST) continue;
            /* the log update reads the data it protects (AGPM sections III, IV-B: the log is a
             * copy of the data to be updated): `ld log`, so AGPM's buffers see the data block */
            op_ld_log(e->p, o->addr, 4, o->nlanes, o->stride);
            for (uint32_t l = 0; l < o->nlanes; l++) {
                uint64_t a = o->addr + (uint64_t)l * o->stride;
                chunk[nc++] = mem_read_u32(e->img, a);
                c->logw[c->nlogw++] = a;
                if (nc == PERSIM_WARP_SIZE) {
                    note_id(e, op_st_log(e->p, t->log + 4 * at, 4, nc, 4, chunk));
                    at += nc;
                    nc = 0;
                }
            }
        }
        if (nc) note_id(e, op_st_log(e->p, t->log + 4 * at, 4, nc, 4, chunk));
        off += b->stw;
        op_durable(e->p);
        op_sync(e->p, SCOPE_BLOCK);
        if (w == 0) {
            flag1 = op_st_bcast(e->p, t->flag, 4, 1, 4, AG_FLAG_INTX);
            op_durable(e->p);
        }
        for (size_t k = 0; k < e->nids; k++) op_require(e->p, e->ids[k], flag1);
        op_sync(e->p, SCOPE_BLOCK);
        emit_body(e, b);
        op_durable(e->p);
        op_sync(e->p, SCOPE_BLOCK);
        if (w == 0) {
            flag2 = op_st_bcast(e->p, t->flag, 4, 1, 4, AG_FLAG_DONE);
            op_durable(e->p);
        }
        for (size_t k = 0; k < e->nids; k++) {
            op_require(e->p, flag1, e->ids[k]);
            op_require(e->p, e->ids[k], flag2);
        }
    }
    apply_stores(e);
    mem_write_u32(e->img, t->flag, AG_FLAG_DONE);
}

static void em_free(ag_em *e)
{
    free(e->ids);
    for (uint32_t w = 0; w < 32; w++) { free(e->w[w].o); free(e->w[w].v); }
}

/* ---- check helper ---- */
int ag_check_gemm(const ag_ctx *c, const mem_image *img, uint32_t a, uint32_t b, char *msg, size_t n)
{
    const uint64_t N = (uint64_t)c->p[0];
    uint32_t *want = (uint32_t *)malloc(N * 4);
    if (!want) return wl_err(msg, n, "out of memory");
    int rc = 0;
    for (uint64_t i = 0; i < N && !rc; i++) {
        for (uint64_t j = 0; j < N; j++) {
            uint32_t s = 0;
            for (uint64_t k = 0; k < N; k++) s += c->h[0][i * N + k] * c->h[1][k * N + j];
            want[j] = a * s + b * c->h[2][i * N + j];
        }
        rc = ag_cmp(c, img, 2, i * N, want, N, "C", msg, n);
    }
    free(want);
    return rc;
}

int ag_cmp(const ag_ctx *c, const mem_image *img, int s, uint64_t from, const uint32_t *want, uint64_t words,
           const char *what, char *msg, size_t msglen)
{
    for (uint64_t i = 0; i < words; i++) {
        uint32_t got = mem_read_u32(img, ag_at(c, s, from + i));
        if (got != want[i])
            return wl_err(msg, msglen, "agpm-%s: %s[%llu] = %u (0x%08x), expected %u (0x%08x)", c->def->id, what,
                          (unsigned long long)(from + i), got, got, want[i], want[i]);
    }
    return 0;
}

/* ---- workload hooks ---- */
void ag_free(void *vc)
{
    ag_ctx *c = (ag_ctx *)vc;
    if (!c) return;
    for (int i = 0; i < c->na; i++) free(c->h[i]);
    free(c->cta);
    free(c->logw);
    free(c);
}

int ag_build(const ag_def *d, int logging, const wl_params *prm, persim_prog *p, mem_image *init, void **ctxp,
             char *err, size_t errlen)
{
    *ctxp = NULL;
    if (prm->size < d->min_size || prm->size > d->max_size)
        return wl_err(err, errlen, "agpm-%s: size must be in %llu..%llu, got %llu", d->id,
                      (unsigned long long)d->min_size, (unsigned long long)d->max_size, (unsigned long long)prm->size);
    if (prm->max_threads_per_block < PERSIM_WARP_SIZE)
        return wl_err(err, errlen, "agpm-%s: max_threads_per_block %u < 32", d->id, prm->max_threads_per_block);
    ag_ctx *c = (ag_ctx *)calloc(1, sizeof *c);
    if (!c) return wl_err(err, errlen, "agpm-%s: out of memory", d->id);
    c->def = d;
    c->logging = logging;
    c->n = prm->size;
    c->seed = prm->seed;
    c->tpb = prm->max_threads_per_block;
    wl_alloc_init(&c->al, prm);
    wl_rng_seed(&c->rng, prm->seed ^ 0x6167706d6b65726eull);
    if (d->setup(c, err, errlen) != 0) { ag_free(c); return -1; }
    for (int i = 0; i < c->na; i++) {
        if (!c->h[i]) { ag_free(c); return wl_err(err, errlen, "agpm-%s: out of memory", d->id); }
        mem_write(init, c->addr[i], c->h[i], 4 * c->len[i]);
    }
    ag_em e;
    memset(&e, 0, sizeof e);
    e.c = c;
    e.p = p;
    e.img = mem_clone(init);
    if (!e.img) { ag_free(c); return wl_err(err, errlen, "agpm-%s: out of memory", d->id); }
    d->gen(c, &e);
    em_free(&e);
    mem_free(e.img);
    if (e.oom) { ag_free(c); return wl_err(err, errlen, "agpm-%s: out of memory", d->id); }
    *ctxp = c;
    return 0;
}

int ag_verify(const void *vc, const mem_image *img, char *msg, size_t msglen)
{
    const ag_ctx *c = (const ag_ctx *)vc;
    if (c->def->check(c, img, msg, msglen) != 0) return -1;
    for (uint64_t i = 0; i < c->ncta; i++) {
        uint32_t f = mem_read_u32(img, c->cta[i].flag);
        if (f != AG_FLAG_DONE)
            return wl_err(msg, msglen, "agpm-%s: CTA %llu's flag is %u, not %u (complete)", c->def->id,
                          (unsigned long long)i, f, AG_FLAG_DONE);
    }
    return 0;
}

/* Lin et al.'s recovery: a CTA whose flag is "in transaction" has its outputs restored from its
 * log (the log words in reverse order, so the first-logged old value wins; kernel agpm_recover,
 * which reads every flag and the logs of those CTAs), and its flag cleared; then every CTA not
 * complete is run again, kernel by kernel, on the restored state (kernel agpm_resume: the same
 * generator computes the CTA's outputs from what the image holds). */
int ag_recover(const void *vc, const mem_image *durable, persim_prog *p, mem_image *img, char *err, size_t errlen)
{
    const ag_ctx *c = (const ag_ctx *)vc;
    (void)img;
    if (!c->logging) return wl_err(err, errlen, "agpm-%s-nolog: the plain kernel keeps no log (not recoverable)", c->def->id);
    mem_image *restored = mem_clone(durable), *cleared = NULL, *work = NULL;
    size_t nr = 0, nreads = 0;
    wl_range *rg = (wl_range *)malloc(((size_t)c->na + c->ncta + 1) * sizeof *rg);
    wl_range *reads = (wl_range *)malloc(((size_t)c->ncta * 2 + 1) * sizeof *reads);
    int rc = 0;
    if (!restored || !rg || !reads) { rc = wl_err(err, errlen, "agpm-%s recover: out of memory", c->def->id); goto out; }
    for (int i = 0; i < c->na; i++)
        if (c->pm[i]) rg[nr++] = (wl_range){ c->addr[i], 4 * c->len[i] };
    const size_t nfirst = nr;
    for (uint64_t i = 0; i < c->ncta; i++) {   /* flags: 4 B each, contiguous per kernel */
        if (i == 0 || c->cta[i].flag != c->cta[i - 1].flag + 4) rg[nr++] = (wl_range){ c->cta[i].flag, 4 };
        else rg[nr - 1].len += 4;
    }
    for (size_t i = nfirst; i < nr; i++) reads[nreads++] = rg[i];   /* every flag */
    for (uint64_t i = 0; i < c->ncta; i++) {
        const ag_ctarec *t = &c->cta[i];
        uint32_t f = mem_read_u32(durable, t->flag);
        if (f != AG_FLAG_INTX) continue;
        if (t->nlw) reads[nreads++] = (wl_range){ t->log, 4ull * t->nlw };
        for (uint64_t k = t->nlw; k-- > 0;)
            mem_write_u32(restored, c->logw[t->lw0 + k], mem_read_u32(durable, t->log + 4 * k));
    }
    cleared = mem_clone(restored);
    if (!cleared) { rc = wl_err(err, errlen, "agpm-%s recover: out of memory", c->def->id); goto out; }
    for (uint64_t i = 0; i < c->ncta; i++)
        if (mem_read_u32(durable, c->cta[i].flag) == AG_FLAG_INTX) mem_write_u32(cleared, c->cta[i].flag, 0);
    if (wl_emit_recovery(p, "agpm_recover", reads, nreads, durable, restored, cleared, rg, nr) != 0) {
        rc = wl_err(err, errlen, "agpm-%s recover: out of memory", c->def->id);
        goto out;
    }
    work = mem_clone(cleared);
    if (!work) { rc = wl_err(err, errlen, "agpm-%s recover: out of memory", c->def->id); goto out; }
    {
        ag_em e;
        memset(&e, 0, sizeof e);
        e.c = (ag_ctx *)c;
        e.redo = 1;
        e.img = work;
        c->def->gen((ag_ctx *)c, &e);
        em_free(&e);
        if (e.oom || e.gcta != c->ncta) {
            rc = wl_err(err, errlen, "agpm-%s recover: redo went wrong (%llu of %llu CTAs)", c->def->id,
                        (unsigned long long)e.gcta, (unsigned long long)c->ncta);
            goto out;
        }
    }
    if (wl_emit_phase(p, "agpm_resume", cleared, work, rg, nr) != 0)
        rc = wl_err(err, errlen, "agpm-%s recover: out of memory", c->def->id);
out:
    free(rg);
    free(reads);
    if (restored) mem_free(restored);
    if (cleared) mem_free(cleared);
    if (work) mem_free(work);
    return rc;
}
