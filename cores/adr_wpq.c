/* persim core: the ADR write-pending queue (see adr_wpq.h for the rules).
 * Layout of the caller-owned block: struct adr_wpq | adr_wpq_ent[entries]. */
#include "adr_wpq.h"

#include <string.h>

typedef struct adr_wpq_ent {
    uint64_t  line;         /* addr / line_bytes */
    persim_ps arrive_ps;
    persim_ps drain_ps;     /* device write (drain) finished */
} adr_wpq_ent;

struct adr_wpq {
    adr_wpq_cfg   cfg;
    adr_wpq_stats st;
    uint64_t      nwrites;        /* writes ever accepted (ring cursor) */
    persim_ps     last_drain_ps;  /* drain of the previous write (FIFO) */
};

#define ADR_WPQ_MAX (1u << 24)

static size_t align8(size_t x) { return (x + 7u) & ~(size_t)7u; }
static adr_wpq_ent *RING(const adr_wpq *q) { return (adr_wpq_ent *)((uintptr_t)q + align8(sizeof(struct adr_wpq))); }

size_t adr_wpq_bytes(const adr_wpq_cfg *cfg)
{
    if (!cfg || cfg->entries == 0 || cfg->entries > ADR_WPQ_MAX || cfg->line_bytes == 0) return 0;
    return align8(sizeof(struct adr_wpq)) + (size_t)cfg->entries * sizeof(adr_wpq_ent);
}

int adr_wpq_init(void *mem, const adr_wpq_cfg *cfg)
{
    size_t total = adr_wpq_bytes(cfg);
    if (!mem || ((uintptr_t)mem & 7u) != 0 || total == 0) return -1;
    memset(mem, 0, total);
    ((adr_wpq *)mem)->cfg = *cfg;
    return 0;
}

const adr_wpq_cfg *adr_wpq_config(const adr_wpq *q) { return q ? &q->cfg : NULL; }
const adr_wpq_stats *adr_wpq_get_stats(const adr_wpq *q) { return q ? &q->st : NULL; }

persim_ps adr_wpq_accept(adr_wpq *q, persim_ps t)
{
    const adr_wpq_ent *slot = &RING(q)[q->nwrites % q->cfg.entries];
    persim_ps accept = t;
    if (q->nwrites >= q->cfg.entries && slot->drain_ps > t) accept = slot->drain_ps;   /* full: wait */
    return accept;
}

persim_ps adr_wpq_commit(adr_wpq *q, uint64_t addr, persim_ps t, persim_ps accept, persim_ps device_done)
{
    adr_wpq_ent *slot = &RING(q)[q->nwrites % q->cfg.entries];
    if (accept > t) {
        q->st.full_stalls++;
        q->st.stall_ps += accept - t;
    }
    persim_ps drain = persim_max_ps(device_done, q->last_drain_ps);   /* FIFO drain */
    q->last_drain_ps = drain;
    slot->line = addr / q->cfg.line_bytes;
    slot->arrive_ps = t;
    slot->drain_ps = drain;
    q->nwrites++;
    q->st.writes++;
    return drain;
}

int adr_wpq_read(adr_wpq *q, persim_ps t, uint64_t addr, persim_ps *ready)
{
    const uint64_t line = addr / q->cfg.line_bytes;
    const uint64_t held = q->nwrites < q->cfg.entries ? q->nwrites : q->cfg.entries;
    const adr_wpq_ent *r = RING(q);
    for (uint64_t i = 0; i < held; i++) {
        if (r[i].line == line && r[i].arrive_ps <= t && r[i].drain_ps > t) {
            q->st.read_hits++;
            *ready = t + q->cfg.hit_latency_ps;
            return 1;
        }
    }
    return 0;
}

uint32_t adr_wpq_occupancy(const adr_wpq *q, persim_ps t)
{
    const uint64_t held = q->nwrites < q->cfg.entries ? q->nwrites : q->cfg.entries;
    const adr_wpq_ent *r = RING(q);
    uint32_t occ = 0;
    /* A slot whose current write arrived by t but is not yet accepted is still occupied by the
     * write it waits for (accept == that write's drain > t), so counting arrive <= t < drain per
     * slot is exact for any t no earlier than the latest write's arrival. */
    for (uint64_t i = 0; i < held; i++)
        if (r[i].arrive_ps <= t && r[i].drain_ps > t) occ++;
    return occ;
}
