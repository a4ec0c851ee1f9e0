/* persim: region formation on CPU op streams (region_form.h). */
#include "region_form.h"
#include <stdlib.h>

int region_sync_op(unsigned kind)
{
    return kind == OPK_ACQUIRE || kind == OPK_RELEASE || kind == OPK_ORDER || kind == OPK_DURABLE ||
           kind == OPK_SYNC || kind == OPK_PBARRIER;
}

static uint32_t op_stores(const persim_op *o)
{
    if (o->kind == OPK_ST) return o->nlanes;
    if (o->kind == OPK_RELEASE) return 1;
    return 0;
}

static uint64_t op_instr(const persim_op *o)
{
    switch (o->kind) {
    case OPK_LD: case OPK_ST: case OPK_ACQUIRE: case OPK_RELEASE: return 1;
    case OPK_COMPUTE: return o->val;
    default: return 0;
    }
}

static uint32_t ckpt_of(const region_form_cfg *c, uint64_t ins)
{
    uint64_t k = (ins + c->instr_per_live_out - 1) / c->instr_per_live_out;
    return k < c->max_live_outs ? (uint32_t)k : c->max_live_outs;
}

static int push(region_plan *pl, uint64_t op, uint32_t ckpt, uint32_t stores, uint64_t ins)
{
    if (pl->n == pl->cap) {
        size_t nc = pl->cap ? pl->cap * 2 : 64;
        region_bdry *nb = (region_bdry *)realloc(pl->b, nc * sizeof *nb);
        if (!nb) return -1;
        pl->b = nb;
        pl->cap = nc;
    }
    region_bdry *b = &pl->b[pl->n++];
    b->op = op;
    b->ckpt = ckpt;
    b->stores = stores;
    b->instructions = ins;
    return 0;
}

int region_form(const persim_prog *p, uint64_t begin, uint64_t end, const region_form_cfg *cfg, region_plan *out)
{
    if (!p || !cfg || !out || begin > end || end > p->nops || cfg->threshold < 2 || cfg->instr_per_live_out < 1)
        return -1;
    const uint64_t n = end - begin;
    uint32_t *after = (uint32_t *)malloc((n ? n : 1) * sizeof *after);
    if (!after) return -1;
    /* after[i]: program stores strictly between op i and the next possible boundary (mark, sync op, end) */
    uint64_t run = 0;
    for (uint64_t k = n; k-- > 0;) {
        const persim_op *o = &p->ops[begin + k];
        after[k] = run > UINT32_MAX ? UINT32_MAX : (uint32_t)run;
        if (o->kind == OPK_MARK || region_sync_op(o->kind)) run = 0;
        else run += op_stores(o);
    }
    uint64_t s = 0, ins = 0;
    int rc = 0;
#define CUT(at)                                                                            \
    do {                                                                                   \
        if (s || ins) {                                                                    \
            if (push(out, (at), ckpt_of(cfg, ins), (uint32_t)s, ins)) { rc = -1; goto done; } \
            s = 0;                                                                         \
            ins = 0;                                                                       \
        }                                                                                  \
    } while (0)
    for (uint64_t k = 0; k < n; ++k) {
        const uint64_t i = begin + k;
        const persim_op *o = &p->ops[i];
        if (region_sync_op(o->kind)) {
            CUT(i);
            s += op_stores(o);
            ins += op_instr(o);
            CUT(i + 1);
            continue;
        }
        if (o->kind == OPK_MARK) {
            if (s + after[k] + ckpt_of(cfg, ins) + 1 > cfg->threshold) CUT(i);
            continue;
        }
        const uint32_t st = op_stores(o);
        if (st && s && s + st + ckpt_of(cfg, ins + op_instr(o)) + 1 > cfg->threshold) CUT(i);
        s += st;
        ins += op_instr(o);
    }
    CUT(end);
#undef CUT
done:
    free(after);
    return rc;
}

void region_plan_free(region_plan *pl)
{
    if (!pl) return;
    free(pl->b);
    pl->b = NULL;
    pl->n = pl->cap = 0;
}
