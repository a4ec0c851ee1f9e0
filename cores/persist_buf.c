/* persim core: BROI persist buffer (see persist_buf.h).
 *
 * Storage: the live entries oldest first in q[0 .. count) (at most 64: removal shifts, which keeps
 * the order without tombstones; ids grow by one per entry, so the array is sorted by id). Sends
 * are in FIFO order, so the unsent entries are the youngest suffix and the head is the first entry
 * with sent == 0; sent stores leave at their acknowledgement, in any order. */
#include "persist_buf.h"
#include <string.h>

struct persist_buf {
    pbuf_cfg   cfg;
    pbuf_stats stats;
    uint32_t   count;
    uint64_t   next_id, epoch, epoch_stores;
    uint32_t   nraw;
    pbuf_dep   raw[PBUF_MAX_DEPS];
    pbuf_entry q[];
};

static int pow2(uint32_t x) { return x && !(x & (x - 1)); }

static int cfg_ok(const pbuf_cfg *c)
{
    return c && c->entries >= 1 && c->entries <= PBUF_MAX_ENTRIES && pow2(c->line_bytes) && c->line_bytes >= 8 &&
           c->line_bytes <= PBUF_MAX_LINE && c->coalesce <= 1 && c->ignore_deps <= 1;
}

size_t pbuf_bytes(const pbuf_cfg *cfg)
{
    if (!cfg_ok(cfg)) return 0;
    return sizeof(persist_buf) + (size_t)cfg->entries * sizeof(pbuf_entry);
}

int pbuf_init(void *mem, const pbuf_cfg *cfg)
{
    if (!mem || ((uintptr_t)mem & 7u) != 0 || !cfg_ok(cfg)) return -1;
    persist_buf *b = (persist_buf *)mem;
    memset(b, 0, pbuf_bytes(cfg));
    b->cfg = *cfg;
    return 0;
}

const pbuf_cfg *pbuf_config(const persist_buf *b) { return &b->cfg; }

/* Adds dependency d to the list (one per thread: the larger id covers the smaller one). */
static void dep_add(pbuf_dep *list, uint32_t *n, pbuf_dep d)
{
    for (uint32_t i = 0; i < *n; i++)
        if (list[i].thread == d.thread) {
            if (d.id > list[i].id) list[i].id = d.id;
            return;
        }
    if (*n < PBUF_MAX_DEPS) list[(*n)++] = d;
}

static uint32_t dep_drop(pbuf_dep *list, uint32_t *n, uint32_t thread, uint64_t live_min)
{
    uint32_t k = 0, dropped = 0;
    for (uint32_t i = 0; i < *n; i++) {
        if (list[i].thread == thread && list[i].id < live_min) { dropped++; continue; }
        list[k++] = list[i];
    }
    *n = k;
    return dropped;
}

static pbuf_entry *append(persist_buf *b, uint8_t kind)
{
    pbuf_entry *e = &b->q[b->count++];
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->id = b->next_id++;
    e->epoch = b->epoch;
    return e;
}

pbuf_result pbuf_store(persist_buf *b, uint64_t line, uint32_t off, uint32_t n, const uint8_t *data,
                       const pbuf_dep *deps, uint32_t nd, uint64_t *id)
{
    if (n == 0 || off >= b->cfg.line_bytes || n > b->cfg.line_bytes - off || (nd && !deps)) return PBUF_BAD;
    if (b->cfg.ignore_deps) nd = 0;
    pbuf_entry *e = NULL;
    if (b->cfg.coalesce && nd == 0 && b->nraw == 0) {
        /* the youngest entry of the block, if it is an unsent store of this epoch */
        for (uint32_t i = b->count; i-- > 0;) {
            pbuf_entry *x = &b->q[i];
            if (x->kind == PBUF_FENCE) break;          /* a fence after it: no joining across */
            if (x->line != line) continue;
            if (!x->sent && x->epoch == b->epoch) e = x;
            break;
        }
    }
    pbuf_result r = PBUF_COALESCED;
    if (!e) {
        if (b->count >= b->cfg.entries) { b->stats.full++; return PBUF_FULL; }
        e = append(b, PBUF_STORE);
        e->line = line;
        uint32_t k = 0;
        for (uint32_t i = 0; i < nd; i++) dep_add(e->deps, &k, deps[i]);
        for (uint32_t i = 0; i < b->nraw; i++) dep_add(e->deps, &k, b->raw[i]);
        e->ndeps = (uint16_t)k;
        b->nraw = 0;
        b->stats.entries++;
        b->stats.deps += k;
        if (k) b->stats.dep_entries++;
        b->epoch_stores++;
        r = PBUF_NEW;
    } else {
        b->stats.coalesced++;
    }
    for (uint32_t i = 0; i < n; i++) {
        e->data[off + i] = data ? data[i] : 0;
        e->mask[(off + i) >> 6] |= 1ull << ((off + i) & 63);
    }
    e->stores++;
    b->stats.stores++;
    if (id) *id = e->id;
    return r;
}

pbuf_result pbuf_fence(persist_buf *b, uint64_t *id)
{
    if (!b->epoch_stores) {
        b->epoch++;
        return PBUF_EMPTY_EPOCH;
    }
    if (b->count >= b->cfg.entries) { b->stats.full++; return PBUF_FULL; }
    const pbuf_entry *e = append(b, PBUF_FENCE);
    if (id) *id = e->id;
    b->epoch++;
    b->epoch_stores = 0;
    b->stats.fences++;
    return PBUF_NEW;
}

void pbuf_load(persist_buf *b, const pbuf_dep *deps, uint32_t nd)
{
    if (b->cfg.ignore_deps || !deps) return;
    for (uint32_t i = 0; i < nd; i++) dep_add(b->raw, &b->nraw, deps[i]);
}

static int head_index(const persist_buf *b)
{
    for (uint32_t i = 0; i < b->count; i++)
        if (!b->q[i].sent) return (int)i;
    return -1;
}

pbuf_head_state pbuf_head(const persist_buf *b, pbuf_entry *e)
{
    const int h = head_index(b);
    if (h < 0) return PBUF_HEAD_NONE;
    if (e) *e = b->q[h];
    return b->q[h].ndeps && !b->cfg.ignore_deps ? PBUF_HEAD_BLOCKED : PBUF_HEAD_READY;
}

static void remove_at(persist_buf *b, uint32_t i)
{
    memmove(&b->q[i], &b->q[i + 1], (size_t)(b->count - i - 1) * sizeof b->q[0]);
    b->count--;
}

int pbuf_send(persist_buf *b)
{
    if (pbuf_head(b, NULL) != PBUF_HEAD_READY) return 0;
    const uint32_t h = (uint32_t)head_index(b);
    b->stats.sends++;
    if (b->q[h].kind == PBUF_FENCE) remove_at(b, h);
    else b->q[h].sent = 1;
    return 1;
}

/* Index of the live entry `id`, or count if none (the entries are sorted by id). */
static uint32_t index_of(const persist_buf *b, uint64_t id)
{
    uint32_t lo = 0, hi = b->count;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (b->q[mid].id < id) lo = mid + 1; else hi = mid;
    }
    return lo < b->count && b->q[lo].id == id ? lo : b->count;
}

int pbuf_find(const persist_buf *b, uint64_t id, pbuf_entry *e)
{
    const uint32_t i = index_of(b, id);
    if (i == b->count) return -1;
    if (e) *e = b->q[i];
    return 0;
}

int pbuf_ack(persist_buf *b, uint64_t id)
{
    const uint32_t lo = index_of(b, id);
    if (lo == b->count || !b->q[lo].sent || b->q[lo].kind != PBUF_STORE) {
        b->stats.unknown_acks++;
        return 0;
    }
    remove_at(b, lo);
    b->stats.acks++;
    return 1;
}

uint32_t pbuf_resolve(persist_buf *b, uint32_t thread, uint64_t live_min)
{
    uint32_t dropped = dep_drop(b->raw, &b->nraw, thread, live_min);
    for (uint32_t i = 0; i < b->count; i++) {
        uint32_t n = b->q[i].ndeps;
        dropped += dep_drop(b->q[i].deps, &n, thread, live_min);
        b->q[i].ndeps = (uint16_t)n;
    }
    return dropped;
}

int pbuf_snoop(const persist_buf *b, uint64_t line, uint64_t *id)
{
    for (uint32_t i = b->count; i-- > 0;)
        if (b->q[i].kind == PBUF_STORE && b->q[i].line == line) {
            if (id) *id = b->q[i].id;
            return 1;
        }
    return 0;
}

uint64_t pbuf_live_min(const persist_buf *b) { return b->count ? b->q[0].id : UINT64_MAX; }

uint64_t pbuf_last_store(const persist_buf *b)
{
    for (uint32_t i = b->count; i-- > 0;)
        if (b->q[i].kind == PBUF_STORE) return b->q[i].id;
    return UINT64_MAX;
}

uint64_t pbuf_epoch(const persist_buf *b) { return b->epoch; }
uint32_t pbuf_count(const persist_buf *b) { return b->count; }

uint32_t pbuf_unsent(const persist_buf *b)
{
    const int h = head_index(b);
    return h < 0 ? 0 : b->count - (uint32_t)h;
}

int pbuf_full(const persist_buf *b) { return b->count >= b->cfg.entries; }
uint32_t pbuf_pending_raw(const persist_buf *b) { return b->nraw; }

int pbuf_entry_at(const persist_buf *b, uint32_t pos, pbuf_entry *e)
{
    if (pos >= b->count) return -1;
    if (e) *e = b->q[pos];
    return 0;
}

const pbuf_stats *pbuf_get_stats(const persist_buf *b) { return &b->stats; }
