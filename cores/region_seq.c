/* persim core: the region sequencer (region_seq.h). */
#include "region_seq.h"
#include <string.h>

typedef struct rseq_rec {
    uint32_t writes, acked;
    uint32_t closed, pad;
    uint64_t end_ps, durable_ps;
} rseq_rec;

typedef struct rseq_thread {
    uint64_t open;          /* open region, RSEQ_NO_ID: none */
    uint64_t last_ended;    /* last region ended, RSEQ_NO_ID: none */
    uint64_t hold;          /* PATH_WAITS: the path waits until this region is durable, RSEQ_NO_ID: none */
} rseq_thread;

struct region_seq {
    region_seq_cfg cfg;
    uint64_t cap;           /* 2^rid_bits records: the live regions */
    uint64_t next, oldest;
    uint64_t tp_ps;
    rseq_thread *th;
    rseq_rec *rec;          /* rec[id & (cap - 1)] for oldest <= id < next */
};

static int cfg_ok(const region_seq_cfg *c)
{
    return c && c->threads >= 1 && c->threads <= 4096 && c->rid_bits >= 1 && c->rid_bits <= 16 &&
           c->policy <= RSEQ_PATH_WAITS && c->held < (1u << c->rid_bits);
}

static size_t align8(size_t n) { return (n + 7u) & ~(size_t)7u; }

size_t region_seq_bytes(const region_seq_cfg *c)
{
    if (!cfg_ok(c)) return 0;
    return align8(sizeof(region_seq)) + align8(sizeof(rseq_thread) * c->threads) +
           sizeof(rseq_rec) * ((size_t)1 << c->rid_bits);
}

int region_seq_init(void *mem, const region_seq_cfg *c)
{
    if (!mem || ((uintptr_t)mem & 7u) || !cfg_ok(c)) return -1;
    memset(mem, 0, region_seq_bytes(c));
    region_seq *s = (region_seq *)mem;
    s->cfg = *c;
    s->cap = (uint64_t)1 << c->rid_bits;
    s->th = (rseq_thread *)((char *)mem + align8(sizeof(region_seq)));
    s->rec = (rseq_rec *)((char *)s->th + align8(sizeof(rseq_thread) * c->threads));
    for (uint32_t t = 0; t < c->threads; ++t) s->th[t].open = s->th[t].last_ended = s->th[t].hold = RSEQ_NO_ID;
    return 0;
}

int rseq_ids_exhausted(const region_seq *s) { return s->next - s->oldest >= s->cap - s->cfg.held; }

static rseq_rec *rec(const region_seq *s, uint64_t id) { return &s->rec[id & (s->cap - 1)]; }

static int settled(const rseq_rec *r) { return r->closed && r->acked == r->writes; }

/* Regions become old (durable, their record free) in ID order; T_p sums their persistence latency. */
static void advance(region_seq *s)
{
    while (s->oldest < s->next) {
        const rseq_rec *r = rec(s, s->oldest);
        if (!settled(r)) break;
        if (r->durable_ps > r->end_ps) s->tp_ps += r->durable_ps - r->end_ps;
        ++s->oldest;
    }
}

uint64_t rseq_open(region_seq *s, uint32_t thread)
{
    rseq_thread *t = &s->th[thread];
    if (t->open != RSEQ_NO_ID) return t->open;
    if (rseq_ids_exhausted(s)) return RSEQ_NO_ID;     /* every usable tag is live */
    rseq_rec *r = rec(s, s->next);
    memset(r, 0, sizeof *r);
    t->open = s->next++;
    return t->open;
}

void rseq_write(region_seq *s, uint64_t id) { ++rec(s, id)->writes; }

uint64_t rseq_current(const region_seq *s, uint32_t thread) { return s->th[thread].open; }

uint32_t rseq_tag(const region_seq *s, uint64_t id) { return (uint32_t)(id & (s->cap - 1)); }

int rseq_end(region_seq *s, uint32_t thread, uint64_t t, uint64_t *id)
{
    rseq_thread *th = &s->th[thread];
    if (th->open == RSEQ_NO_ID) return 0;
    rseq_rec *r = rec(s, th->open);
    r->closed = 1;
    r->end_ps = t;
    *id = th->last_ended = th->open;
    th->open = RSEQ_NO_ID;
    advance(s);
    return 1;
}

void rseq_ack(region_seq *s, uint64_t id, uint64_t t)
{
    rseq_rec *r = rec(s, id);
    ++r->acked;
    if (t > r->durable_ps) r->durable_ps = t;
    advance(s);
}

int rseq_durable(const region_seq *s, uint64_t id)
{
    return id < s->oldest || (id < s->next && settled(rec(s, id)));
}

int rseq_durable_point(const region_seq *s, uint32_t thread)
{
    const uint64_t l = s->th[thread].last_ended;
    return l == RSEQ_NO_ID || rseq_durable(s, l);
}

int rseq_core_may_go(const region_seq *s, uint32_t thread)
{
    return s->cfg.policy != RSEQ_CORE_WAITS || rseq_durable_point(s, thread);
}

void rseq_boundary_sent(region_seq *s, uint32_t thread, uint64_t id)
{
    if (s->cfg.policy == RSEQ_PATH_WAITS) s->th[thread].hold = id;
}

int rseq_path_may_send(region_seq *s, uint32_t thread)
{
    rseq_thread *t = &s->th[thread];
    if (t->hold == RSEQ_NO_ID) return 1;
    if (!rseq_durable(s, t->hold)) return 0;
    t->hold = RSEQ_NO_ID;
    return 1;
}

int rseq_path_holds(const region_seq *s, uint32_t thread) { return s->th[thread].hold != RSEQ_NO_ID; }

void rseq_ckpt(const region_seq *s, uint32_t thread, uint32_t slot, uint64_t *addr, uint64_t *value)
{
    const uint64_t open = s->th[thread].open;
    *addr = s->cfg.ckpt_base + (uint64_t)thread * 512u + (uint64_t)slot * 8u;
    *value = (open == RSEQ_NO_ID ? 0 : open) << 8 | slot;
}

uint64_t rseq_taken(const region_seq *s) { return s->next; }
uint64_t rseq_oldest_live(const region_seq *s) { return s->oldest; }
int rseq_idle(const region_seq *s) { return s->oldest == s->next; }
uint64_t rseq_persist_latency_ps(const region_seq *s) { return s->tp_ps; }
const region_seq_cfg *rseq_config(const region_seq *s) { return &s->cfg; }
