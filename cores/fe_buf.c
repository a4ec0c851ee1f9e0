/* persim core: LightWSP front-end buffer with buffer snooping (see fe_buf.h).
 *
 * Storage: a ring of cfg.entries slots holding the live entries oldest first (head .. head+count).
 * The first nsent live entries are the sent ones (sends are in FIFO order and only sent entries
 * are removed, so sent entries always form the oldest prefix). Removing the entry at live
 * position k shifts the k older entries one slot towards the tail and advances head: O(1) for
 * in-order ACKs, O(k) otherwise; no tombstones, so the capacity is exact. seq grows by one per
 * push, so the live entries are sorted by seq and an ACK is found by binary search. */
#include "fe_buf.h"
#include <string.h>

#define FE_MAX_SCAN 256u        /* ways scanned by fe_buf_victim at most (stack array) */

struct fe_buf {
    fe_buf_cfg   cfg;
    fe_buf_stats stats;
    uint32_t head, count, nsent, line_shift;
    uint64_t next_seq;
    fe_buf_entry q[];           /* cfg.entries slots */
};

static int pow2(uint32_t x) { return x && !(x & (x - 1)); }

static int cfg_ok(const fe_buf_cfg *cfg)
{
    return cfg && cfg->entries >= 1 && cfg->entries <= 4096 && pow2(cfg->line_bytes) &&
           cfg->line_bytes >= 8 && cfg->line_bytes <= 128;
}

size_t fe_buf_bytes(const fe_buf_cfg *cfg)
{
    if (!cfg_ok(cfg)) return 0;
    return sizeof(fe_buf) + (size_t)cfg->entries * sizeof(fe_buf_entry);
}

int fe_buf_init(void *mem, const fe_buf_cfg *cfg)
{
    if (!mem || ((uintptr_t)mem & 7u) != 0 || !cfg_ok(cfg)) return -1;
    fe_buf *b = (fe_buf *)mem;
    memset(b, 0, fe_buf_bytes(cfg));
    b->cfg = *cfg;
    while ((8u << b->line_shift) < cfg->line_bytes) b->line_shift++;   /* words per line */
    return 0;
}

const fe_buf_cfg *fe_buf_config(const fe_buf *b) { return &b->cfg; }

static uint32_t slot(const fe_buf *b, uint32_t pos)
{
    uint32_t s = b->head + pos;
    return s >= b->cfg.entries ? s - b->cfg.entries : s;
}

int fe_buf_push(fe_buf *b, uint64_t word_addr, uint64_t data, uint32_t region, uint64_t *seq)
{
    if (b->count >= b->cfg.entries) { b->stats.full++; return 0; }
    fe_buf_entry *e = &b->q[slot(b, b->count)];
    e->word_addr = word_addr;
    e->data = data;
    e->seq = b->next_seq++;
    e->region = (uint16_t)region;
    e->sent = 0;
    b->count++;
    b->stats.pushes++;
    if (seq) *seq = e->seq;
    return 1;
}

int fe_buf_peek(const fe_buf *b, fe_buf_entry *e)
{
    if (b->nsent >= b->count) return 0;
    if (e) *e = b->q[slot(b, b->nsent)];
    return 1;
}

int fe_buf_next_send(fe_buf *b, fe_buf_entry *e)
{
    if (b->nsent >= b->count) return 0;
    fe_buf_entry *x = &b->q[slot(b, b->nsent)];
    x->sent = 1;
    b->nsent++;
    b->stats.sends++;
    if (e) *e = *x;
    return 1;
}

int fe_buf_ack(fe_buf *b, uint64_t seq)
{
    /* binary search among the sent prefix (sorted by seq) */
    uint32_t lo = 0, hi = b->nsent;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (b->q[slot(b, mid)].seq < seq) lo = mid + 1;
        else hi = mid;
    }
    if (lo >= b->nsent || b->q[slot(b, lo)].seq != seq) { b->stats.unknown_acks++; return 0; }
    for (uint32_t k = lo; k > 0; k--) b->q[slot(b, k)] = b->q[slot(b, k - 1)];
    memset(&b->q[b->head], 0, sizeof(fe_buf_entry));
    b->head = slot(b, 1);
    b->count--;
    b->nsent--;
    b->stats.acks++;
    if (b->count == 0) b->head = 0;
    return 1;
}

uint32_t fe_buf_count(const fe_buf *b) { return b->count; }
uint32_t fe_buf_unsent(const fe_buf *b) { return b->count - b->nsent; }
int fe_buf_full(const fe_buf *b) { return b->count >= b->cfg.entries; }

int fe_buf_entry_at(const fe_buf *b, uint32_t pos, fe_buf_entry *e)
{
    if (pos >= b->count) return -1;
    *e = b->q[slot(b, pos)];
    return 0;
}

int fe_buf_conflict(const fe_buf *b, uint64_t line_addr)
{
    for (uint32_t k = 0; k < b->count; k++)
        if ((b->q[slot(b, k)].word_addr >> b->line_shift) == line_addr) return 1;
    return 0;
}

int32_t fe_buf_victim(fe_buf *b, const cache *c, uint64_t line_addr, int policy, uint32_t *conflicts)
{
    if (conflicts) *conflicts = 0;
    if (!c) return -1;
    if (policy == FE_VICTIM_NONE) return cache_victim(c, line_addr);
    const cache_cfg *cc = cache_config(c);
    uint32_t ways = cc->assoc ? cc->assoc : cache_num_lines(c);
    uint32_t limit;
    switch (policy) {
    case FE_VICTIM_FULL: limit = ways; break;
    case FE_VICTIM_HALF: limit = ways / 2 ? ways / 2 : 1; break;
    case FE_VICTIM_ZERO: limit = 1; break;
    default: return -1;
    }
    if (limit > FE_MAX_SCAN) limit = FE_MAX_SCAN;
    int32_t order[FE_MAX_SCAN];
    uint32_t n = cache_set_ways_lru(c, line_addr, order, limit);
    uint32_t seen = 0;
    for (uint32_t k = 0; k < n; k++) {
        int32_t w = order[k];
        if (!cache_line_present(c, w) || !cache_line_dirty(c, w)) {
            if (conflicts) *conflicts = seen;
            return w;
        }
        b->stats.conflict_checks++;
        if (!fe_buf_conflict(b, cache_line_tag(c, w))) {
            if (conflicts) *conflicts = seen;
            return w;
        }
        b->stats.conflicts++;
        seen++;
    }
    if (conflicts) *conflicts = seen;
    b->stats.victim_waits++;
    return -1;
}

const fe_buf_stats *fe_buf_get_stats(const fe_buf *b) { return &b->stats; }
