/* persim: functional reference executor (see func_exec.h). */
#include "func_exec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STUCK_LISTED 8

enum { W_RUN = 0, W_SYNC_BLOCK, W_SYNC_DEVICE, W_DONE };

typedef struct kstate {
    const persim_prog   *p;
    const persim_kernel *k;
    uint32_t             kidx;
    mem_image           *img;
    func_exec_cb         cb;
    void                *ctx;
    uint64_t             nw;
    uint64_t            *pc;            /* next op (global index) per warp */
    uint8_t             *st;            /* W_* per warp */
    uint32_t            *blk_arrived;   /* warps waiting at a block sync, per block */
    uint32_t            *blk_done;      /* finished warps, per block */
    uint64_t             dev_arrived, dev_done;
    uint64_t            *steps;
} kstate;

static uint64_t read_le(const mem_image *img, uint64_t addr, unsigned elem)
{
    uint8_t b[8] = { 0 };
    mem_read(img, addr, b, elem);
    uint64_t v = 0;
    for (unsigned i = elem; i-- > 0;) v = v << 8 | b[i];
    return v;
}

static void put_le(uint8_t *b, uint64_t v, unsigned elem)
{
    for (unsigned i = 0; i < elem; i++) { b[i] = (uint8_t)v; v >>= 8; }
}

static void exec_effect(kstate *ks, const persim_op *o)
{
    if (o->kind == OPK_ST) {
        uint8_t buf[PERSIM_WARP_SIZE * 8];
        if (o->stride == o->elem) {           /* contiguous lanes: one write */
            for (uint32_t l = 0; l < o->nlanes; l++) put_le(buf + l * o->elem, op_lane_val(ks->p, o, l), o->elem);
            mem_write(ks->img, o->addr, buf, (size_t)o->nlanes * o->elem);
        } else {
            for (uint32_t l = 0; l < o->nlanes; l++) {
                put_le(buf, op_lane_val(ks->p, o, l), o->elem);
                mem_write(ks->img, o->addr + (uint64_t)l * o->stride, buf, o->elem);
            }
        }
    } else if (o->kind == OPK_RELEASE) {
        uint8_t buf[8];
        put_le(buf, o->val, o->elem);
        mem_write(ks->img, o->addr, buf, o->elem);
    }
}

static void warp_coords(const kstate *ks, uint64_t w, uint32_t *b, uint32_t *wi)
{
    *b = (uint32_t)(w / ks->k->warps_per_block);
    *wi = (uint32_t)(w % ks->k->warps_per_block);
}

static void settle(kstate *ks, uint32_t block);

/* The warp's current op has executed: report it and move on. */
static void advance(kstate *ks, uint64_t w)
{
    const persim_op *o = &ks->p->ops[ks->pc[w]];
    if (ks->cb) {
        uint32_t b, wi;
        warp_coords(ks, w, &b, &wi);
        ks->cb(ks->ctx, o, ks->kidx, b, wi);
    }
    (*ks->steps)++;
    ks->pc[w]++;
    uint32_t b, wi;
    warp_coords(ks, w, &b, &wi);
    if (ks->pc[w] == prog_stream(ks->p, ks->k, b, wi)->end) {
        ks->st[w] = W_DONE;
        ks->blk_done[b]++;
        ks->dev_done++;
        settle(ks, b);   /* a finished warp may complete a barrier */
    }
}

/* Releases the barriers of `block` and of the device when every unfinished warp waits at them. */
static void settle(kstate *ks, uint32_t block)
{
    uint32_t wpb = ks->k->warps_per_block;
    if (ks->blk_arrived[block] && ks->blk_arrived[block] + ks->blk_done[block] == wpb) {
        ks->blk_arrived[block] = 0;
        for (uint64_t w = (uint64_t)block * wpb; w < (uint64_t)(block + 1) * wpb; w++)
            if (ks->st[w] == W_SYNC_BLOCK) {
                ks->st[w] = W_RUN;
                advance(ks, w);
            }
    }
    if (ks->dev_arrived && ks->dev_arrived + ks->dev_done == ks->nw) {
        ks->dev_arrived = 0;
        for (uint64_t w = 0; w < ks->nw; w++)
            if (ks->st[w] == W_SYNC_DEVICE) {
                ks->st[w] = W_RUN;
                advance(ks, w);
            }
    }
}

/* Appends a description of why warp w is stuck to err at *off. */
static void describe_stuck(const kstate *ks, uint64_t w, char *err, size_t errlen, size_t *off)
{
    uint32_t b, wi;
    warp_coords(ks, w, &b, &wi);
    const persim_stream *s = prog_stream(ks->p, ks->k, b, wi);
    const persim_op *o = &ks->p->ops[ks->pc[w]];
    char what[160];
    if (ks->st[w] == W_SYNC_BLOCK)
        snprintf(what, sizeof what, "sync block (%u of %u warps arrived, %u finished)",
                 ks->blk_arrived[b], ks->k->warps_per_block, ks->blk_done[b]);
    else if (ks->st[w] == W_SYNC_DEVICE)
        snprintf(what, sizeof what, "sync device (%llu of %llu warps arrived, %llu finished)",
                 (unsigned long long)ks->dev_arrived, (unsigned long long)ks->nw,
                 (unsigned long long)ks->dev_done);
    else if (o->kind == OPK_ACQUIRE)
        snprintf(what, sizeof what, "acquire %s flag 0x%llx == %llu (holds %llu)", scope_name(o->scope),
                 (unsigned long long)o->addr, (unsigned long long)o->val,
                 (unsigned long long)read_le(ks->img, o->addr, o->elem));
    else
        snprintf(what, sizeof what, "%s", op_kind_name(o->kind));
    if (*off < errlen) {
        int n = snprintf(err + *off, errlen - *off, "; kernel %u ('%s') block %u warp %u op %llu (id %u): %s",
                         ks->kidx, ks->k->name, b, wi, (unsigned long long)(ks->pc[w] - s->begin),
                         o->id, what);
        if (n > 0) *off += (size_t)n;
    }
}

static int run_kernel(kstate *ks, uint64_t max_steps, char *err, size_t errlen)
{
    const persim_kernel *k = ks->k;
    uint64_t nw = ks->nw;
    uint64_t *active = (uint64_t *)malloc((size_t)nw * sizeof *active);
    ks->pc = (uint64_t *)malloc((size_t)nw * sizeof *ks->pc);
    ks->st = (uint8_t *)calloc((size_t)nw, 1);
    ks->blk_arrived = (uint32_t *)calloc(k->nblocks, sizeof *ks->blk_arrived);
    ks->blk_done = (uint32_t *)calloc(k->nblocks, sizeof *ks->blk_done);
    int rc = 0;
    if (!active || !ks->pc || !ks->st || !ks->blk_arrived || !ks->blk_done) {
        rc = prog_errf(err, errlen, "out of memory");
        goto out;
    }
    uint64_t nact = 0;
    for (uint64_t w = 0; w < nw; w++) {
        uint32_t b, wi;
        warp_coords(ks, w, &b, &wi);
        const persim_stream *s = prog_stream(ks->p, k, b, wi);
        ks->pc[w] = s->begin;
        if (s->begin == s->end) {
            ks->st[w] = W_DONE;
            ks->blk_done[b]++;
            ks->dev_done++;
        } else {
            active[nact++] = w;
        }
    }
    while (nact) {
        int progress = 0;
        for (uint64_t i = 0; i < nact; i++) {
            uint64_t w = active[i];
            if (ks->st[w] != W_RUN) continue;
            const persim_op *o = &ks->p->ops[ks->pc[w]];
            uint32_t b = (uint32_t)(w / k->warps_per_block);
            if (o->kind == OPK_ACQUIRE) {
                if (read_le(ks->img, o->addr, o->elem) != o->val) continue;
                progress = 1;
                advance(ks, w);
            } else if (o->kind == OPK_SYNC) {
                progress = 1;
                if (o->scope == SCOPE_BLOCK) { ks->st[w] = W_SYNC_BLOCK; ks->blk_arrived[b]++; }
                else { ks->st[w] = W_SYNC_DEVICE; ks->dev_arrived++; }
                settle(ks, b);
            } else {
                exec_effect(ks, o);
                progress = 1;
                advance(ks, w);
            }
            if (max_steps && *ks->steps > max_steps) {
                rc = prog_errf(err, errlen, "step limit of %llu ops exceeded in kernel %u ('%s')",
                          (unsigned long long)max_steps, ks->kidx, k->name);
                goto out;
            }
        }
        uint64_t m = 0;
        for (uint64_t i = 0; i < nact; i++)
            if (ks->st[active[i]] != W_DONE) active[m++] = active[i];
        nact = m;
        if (nact && !progress) {
            size_t off = 0;
            if (err && errlen) {
                int n = snprintf(err, errlen, "deadlock in kernel %u ('%s'): %llu warp%s cannot advance",
                                 ks->kidx, k->name, (unsigned long long)nact, nact == 1 ? "" : "s");
                off = n > 0 ? (size_t)n : 0;
                for (uint64_t i = 0; i < nact && i < MAX_STUCK_LISTED; i++)
                    describe_stuck(ks, active[i], err, errlen, &off);
                if (nact > MAX_STUCK_LISTED && off < errlen)
                    snprintf(err + off, errlen - off, "; ... and %llu more",
                             (unsigned long long)(nact - MAX_STUCK_LISTED));
            }
            rc = -1;
            goto out;
        }
    }
out:
    free(active);
    free(ks->pc);
    free(ks->st);
    free(ks->blk_arrived);
    free(ks->blk_done);
    return rc;
}

int func_exec_cb_run(const persim_prog *p, mem_image *img, uint64_t max_steps, func_exec_cb cb,
                     void *ctx, char *err, size_t errlen)
{
    char msg[256];
    if (prog_validate(p, msg, sizeof msg)) return prog_errf(err, errlen, "invalid program: %s", msg);
    return func_exec_cb_run_valid(p, img, max_steps, cb, ctx, err, errlen);
}

int func_exec_cb_run_valid(const persim_prog *p, mem_image *img, uint64_t max_steps, func_exec_cb cb,
                           void *ctx, char *err, size_t errlen)
{
    uint64_t steps = 0;
    for (uint32_t k = 0; k < p->nkernels; k++) {
        kstate ks;
        memset(&ks, 0, sizeof ks);
        ks.p = p;
        ks.k = &p->kernels[k];
        ks.kidx = k;
        ks.img = img;
        ks.cb = cb;
        ks.ctx = ctx;
        ks.nw = (uint64_t)ks.k->nblocks * ks.k->warps_per_block;
        ks.steps = &steps;
        if (run_kernel(&ks, max_steps, err, errlen)) return -1;
    }
    return 0;
}

int func_exec(const persim_prog *p, mem_image *img, uint64_t max_steps, char *err, size_t errlen)
{
    return func_exec_cb_run(p, img, max_steps, NULL, NULL, err, errlen);
}
