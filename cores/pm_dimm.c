/* persim core: an Optane-class PM DIMM set (see pm_dimm.h for what is modelled and the rules).
 *
 * Layout of the caller-owned block: struct pm_dimm | dimm_state[dimms] |
 * buf_entry[dimms * buf_entries] | ait tags uint64[dimms * ait_entries] |
 * ait stamps uint64[dimms * ait_entries] | wear_slot[wear_slots] |
 * LSQ ring persim_ps[dimms * lsq_entries] (the time each queued write entered the buffer). */
#include "pm_dimm.h"

#include <string.h>

typedef struct dimm_state {
    persim_ps bus_free;     /* the channel can start a new transfer */
    persim_ps media_free;   /* the media can start a new access (occupancy, pipelined) */
    persim_ps proc_free;    /* the buffer controller can take the next write from the LSQ */
    uint32_t  lsq_head;     /* next slot of the LSQ ring */
} dimm_state;

typedef struct buf_entry {
    uint64_t line;          /* DIMM-local media line number */
    uint64_t mask;          /* 8-byte words written since the line entered the buffer */
    uint64_t lru;           /* last-use stamp */
    uint8_t  valid, dirty, full;   /* full: the whole line is known (read from the media) */
} buf_entry;

typedef struct wear_slot {
    uint64_t key;           /* (local block * dimms + dimm) + 1; 0 = empty */
    uint64_t writes;
} wear_slot;

struct pm_dimm {
    pm_dimm_cfg   cfg;
    pm_dimm_stats st;
    uint64_t stamp;
    persim_ps last_entry;       /* the last write entered its buffer (pm_dimm_next_write_at) */
    uint64_t line_words_mask;   /* all words of a media line */
    uint32_t ait_sets;
    size_t off_dimm, off_buf, off_ait_tag, off_ait_lru, off_wear, off_lsq;
};

static size_t align8(size_t x) { return (x + 7u) & ~(size_t)7u; }
static int pow2(uint64_t x) { return x && !(x & (x - 1)); }

#define PM_DIMM_MAX_DIMMS 1024u
#define PM_DIMM_MAX_BUF   4096u
#define PM_DIMM_MAX_AIT   (1u << 22)
#define PM_DIMM_MAX_WEAR  (1u << 26)
#define PM_DIMM_MAX_LSQ   4096u
#define WEAR_PROBES 16u

static int layout(const pm_dimm_cfg *c, size_t *o_dimm, size_t *o_buf, size_t *o_tag, size_t *o_lru, size_t *o_wear,
                  size_t *o_lsq, size_t *total)
{
    if (!c) return -1;
    if (c->dimms == 0 || c->dimms > PM_DIMM_MAX_DIMMS) return -1;
    if (!pow2(c->media_line_bytes) || c->media_line_bytes < 64 || c->media_line_bytes > 512) return -1;
    if (c->interleave_bytes == 0 || c->interleave_bytes % c->media_line_bytes) return -1;
    if (c->burst_bytes == 0) return -1;
    if (c->lsq_entries > PM_DIMM_MAX_LSQ) return -1;
    if (c->buf_entries > PM_DIMM_MAX_BUF || c->ait_entries > PM_DIMM_MAX_AIT || c->wear_slots > PM_DIMM_MAX_WEAR) return -1;
    if (c->ait_entries) {
        if (c->ait_ways == 0 || c->ait_ways > 64 || c->ait_entries % c->ait_ways) return -1;
        if (!pow2(c->ait_block_bytes) || c->ait_block_bytes < c->media_line_bytes) return -1;
    }
    if (c->wear_slots && !pow2(c->wear_slots)) return -1;
    if (c->wear_slots && (!pow2(c->wear_block_bytes) || c->wear_block_bytes < c->media_line_bytes)) return -1;
    if (!(c->bus_gbps >= 0.0) || !(c->media_read_gbps >= 0.0) || !(c->media_write_gbps >= 0.0)) return -1;
    if (!(c->access_pj >= 0.0) || !(c->read_pj_per_bit >= 0.0) || !(c->write_pj_per_bit >= 0.0)) return -1;
    size_t o = align8(sizeof(struct pm_dimm));
    *o_dimm = o; o = align8(o + (size_t)c->dimms * sizeof(dimm_state));
    *o_buf = o;  o = align8(o + (size_t)c->dimms * c->buf_entries * sizeof(buf_entry));
    *o_tag = o;  o = align8(o + (size_t)c->dimms * c->ait_entries * sizeof(uint64_t));
    *o_lru = o;  o = align8(o + (size_t)c->dimms * c->ait_entries * sizeof(uint64_t));
    *o_wear = o; o = align8(o + (size_t)c->wear_slots * sizeof(wear_slot));
    *o_lsq = o;  o = align8(o + (size_t)c->dimms * c->lsq_entries * sizeof(persim_ps));
    *total = o;
    return 0;
}

static dimm_state *DIMM(const pm_dimm *d, uint32_t i) { return (dimm_state *)((uintptr_t)d + d->off_dimm) + i; }
static buf_entry *BUF(const pm_dimm *d, uint32_t i) { return (buf_entry *)((uintptr_t)d + d->off_buf) + (size_t)i * d->cfg.buf_entries; }
static uint64_t *AIT_TAG(const pm_dimm *d, uint32_t i) { return (uint64_t *)((uintptr_t)d + d->off_ait_tag) + (size_t)i * d->cfg.ait_entries; }
static uint64_t *AIT_LRU(const pm_dimm *d, uint32_t i) { return (uint64_t *)((uintptr_t)d + d->off_ait_lru) + (size_t)i * d->cfg.ait_entries; }
static wear_slot *WEAR(const pm_dimm *d) { return (wear_slot *)((uintptr_t)d + d->off_wear); }
static persim_ps *LSQ(const pm_dimm *d, uint32_t i) { return (persim_ps *)((uintptr_t)d + d->off_lsq) + (size_t)i * d->cfg.lsq_entries; }

size_t pm_dimm_bytes(const pm_dimm_cfg *cfg)
{
    size_t a, b, c, e, f, g, total;
    return layout(cfg, &a, &b, &c, &e, &f, &g, &total) == 0 ? total : 0;
}

int pm_dimm_init(void *mem, const pm_dimm_cfg *cfg)
{
    size_t a, b, c, e, f, g, total;
    if (!mem || ((uintptr_t)mem & 7u) != 0) return -1;
    if (layout(cfg, &a, &b, &c, &e, &f, &g, &total) != 0) return -1;
    memset(mem, 0, total);
    pm_dimm *d = (pm_dimm *)mem;
    d->cfg = *cfg;
    d->off_dimm = a; d->off_buf = b; d->off_ait_tag = c; d->off_ait_lru = e; d->off_wear = f; d->off_lsq = g;
    const uint32_t words = cfg->media_line_bytes / 8;
    d->line_words_mask = words >= 64 ? ~0ull : ((1ull << words) - 1);
    d->ait_sets = cfg->ait_entries ? cfg->ait_entries / cfg->ait_ways : 0;
    return 0;
}

const pm_dimm_cfg *pm_dimm_config(const pm_dimm *d) { return d ? &d->cfg : NULL; }
const pm_dimm_stats *pm_dimm_get_stats(const pm_dimm *d) { return d ? &d->st : NULL; }

uint32_t pm_dimm_of(const pm_dimm *d, uint64_t addr)
{
    return (uint32_t)((addr / d->cfg.interleave_bytes) % d->cfg.dimms);
}

persim_ps pm_dimm_free_at(const pm_dimm *d, uint32_t dimm)
{
    return dimm < d->cfg.dimms ? DIMM(d, dimm)->bus_free : 0;
}

/* The address inside its DIMM (the DIMM-select bits removed). */
static uint64_t local_addr(const pm_dimm *d, uint64_t addr)
{
    const uint64_t g = d->cfg.interleave_bytes;
    return addr / (g * d->cfg.dimms) * g + addr % g;
}

/* ---- the AIT cache: returns the extra latency of a media access to `line` ---- */
static persim_ps ait_access(pm_dimm *d, uint32_t dimm, uint64_t line)
{
    const pm_dimm_cfg *c = &d->cfg;
    if (!c->ait_entries) {
        d->st.ait_misses++;
        return c->ait_miss_ps;
    }
    const uint64_t block = line * c->media_line_bytes / c->ait_block_bytes;
    const uint32_t set = (uint32_t)(block % d->ait_sets);
    uint64_t *tag = AIT_TAG(d, dimm) + (size_t)set * c->ait_ways;
    uint64_t *lru = AIT_LRU(d, dimm) + (size_t)set * c->ait_ways;
    uint32_t victim = 0;
    for (uint32_t w = 0; w < c->ait_ways; ++w) {
        if (tag[w] == block + 1) {
            lru[w] = ++d->stamp;
            d->st.ait_hits++;
            return 0;
        }
        if (lru[w] < lru[victim]) victim = w;   /* empty ways have stamp 0: taken first */
    }
    tag[victim] = block + 1;
    lru[victim] = ++d->stamp;
    d->st.ait_misses++;
    return c->ait_miss_ps;
}

/* ---- media accesses (one whole media line each) ---- */
/* One media access of `line` asked at `at` (after the AIT lookup and the media's earlier work):
 * occupies the media for line / bandwidth, counts it and its energy; returns its start. */
static persim_ps media_access(pm_dimm *d, uint32_t dimm, persim_ps at, uint64_t line, int is_write)
{
    const pm_dimm_cfg *c = &d->cfg;
    dimm_state *s = DIMM(d, dimm);
    at += ait_access(d, dimm, line);
    const persim_ps start = persim_max_ps(at, s->media_free);
    const persim_ps occ = persim_xfer_ps(c->media_line_bytes, is_write ? c->media_write_gbps : c->media_read_gbps);
    s->media_free = start + occ;
    d->st.media_busy_ps += occ;
    if (is_write) d->st.media_writes++;
    else d->st.media_reads++;
    d->st.energy_pj += c->access_pj + (double)c->media_line_bytes * 8.0 * (is_write ? c->write_pj_per_bit : c->read_pj_per_bit);
    return start;
}

/* A media read of `line` asked at `at`: returns when its data is ready; *started = when the media
 * began it. */
static persim_ps media_read_at(pm_dimm *d, uint32_t dimm, persim_ps at, uint64_t line, persim_ps *started)
{
    const pm_dimm_cfg *c = &d->cfg;
    const persim_ps start = *started = media_access(d, dimm, at, line, 0);
    return persim_max_ps(start + c->media_read_ps, start + persim_xfer_ps(c->media_line_bytes, c->media_read_gbps));
}

static persim_ps media_read(pm_dimm *d, uint32_t dimm, persim_ps at, uint64_t line)
{
    persim_ps started;
    return media_read_at(d, dimm, at, line, &started);
}

static void wear_count(pm_dimm *d, uint32_t dimm, uint64_t line)
{
    const pm_dimm_cfg *c = &d->cfg;
    if (!c->wear_slots) return;
    const uint64_t block = line * c->media_line_bytes / c->wear_block_bytes;
    const uint64_t key = block * c->dimms + dimm + 1;
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    wear_slot *w = WEAR(d);
    for (uint32_t p = 0; p < WEAR_PROBES; ++p) {
        wear_slot *e = &w[(h >> 20) & (c->wear_slots - 1)];
        if (e->key == 0) {
            e->key = key;
            d->st.wear_blocks++;
        }
        if (e->key == key) {
            e->writes++;
            if (e->writes > d->st.wear_max) d->st.wear_max = e->writes;
            if (c->wear_writes && e->writes % c->wear_writes == 0) {
                /* Migration: the block moves to a fresh location (VANS: migration_block_entries x
                 * migration_latency); persim charges it as media time and the energy of one line's
                 * read and write (the rest of the block is not counted). */
                dimm_state *s = DIMM(d, dimm);
                s->media_free += c->wear_migrate_ps;
                d->st.media_busy_ps += c->wear_migrate_ps;
                d->st.migrations++;
                d->st.energy_pj += 2.0 * c->access_pj +
                                   (double)c->media_line_bytes * 8.0 * (c->read_pj_per_bit + c->write_pj_per_bit);
            }
            return;
        }
        h += 0x100000ull;   /* next slot */
    }
    d->st.wear_untracked++;
}

/* A media write of a whole line whose data is ready at `at`: returns the time the media takes it. */
static persim_ps media_write(pm_dimm *d, uint32_t dimm, persim_ps at, uint64_t line)
{
    const persim_ps start = media_access(d, dimm, at, line, 1);
    const persim_ps done = start + d->cfg.media_write_ps;
    if (done > d->st.last_done_ps) d->st.last_done_ps = done;
    wear_count(d, dimm, line);
    return start;
}

/* Write a line back (at `at`): a media read first if the buffer does not hold all of it. Returns
 * the media write's start; *first = the start of its first media access (the read, if any). */
static persim_ps write_back(pm_dimm *d, uint32_t dimm, persim_ps at, uint64_t line, int complete, persim_ps *first)
{
    persim_ps read_start = 0;
    if (!complete) {
        d->st.rmw_reads++;
        at = media_read_at(d, dimm, at, line, &read_start);
    }
    const persim_ps w = media_write(d, dimm, at, line);
    *first = complete ? w : read_start;
    return w;
}

/* ---- the buffer ---- */
static buf_entry *buf_find(pm_dimm *d, uint32_t dimm, uint64_t line)
{
    buf_entry *b = BUF(d, dimm);
    for (uint32_t i = 0; i < d->cfg.buf_entries; ++i)
        if (b[i].valid && b[i].line == line) return &b[i];
    return NULL;
}

/* A free entry for `line` at `at` (evicting the LRU one): *free_at = when the entry is free. */
static buf_entry *buf_take(pm_dimm *d, uint32_t dimm, persim_ps at, uint64_t line, persim_ps *free_at)
{
    buf_entry *b = BUF(d, dimm), *v = &b[0];
    for (uint32_t i = 0; i < d->cfg.buf_entries; ++i) {
        if (!b[i].valid) { v = &b[i]; break; }
        if (b[i].lru < v->lru) v = &b[i];
    }
    *free_at = at;
    if (v->valid) {
        d->st.buf_evictions++;
        if (v->dirty) {
            d->st.buf_dirty_evictions++;
            persim_ps first;
            const persim_ps w = write_back(d, dimm, at, v->line, v->full || v->mask == d->line_words_mask, &first);
            *free_at = d->cfg.evict_pipelined ? first : w;
        }
    }
    memset(v, 0, sizeof *v);
    v->valid = 1;
    v->line = line;
    v->lru = ++d->stamp;
    return v;
}

/* Words of `line` covered by [addr, addr + bytes) (local addresses). */
static uint64_t words_of(const pm_dimm *d, uint64_t line, uint64_t addr, uint64_t end)
{
    const uint64_t lb = d->cfg.media_line_bytes, base = line * lb;
    const uint64_t lo = addr > base ? addr : base, hi = end < base + lb ? end : base + lb;
    if (hi <= lo) return 0;
    const uint64_t w0 = (lo - base) / 8, w1 = (hi - base + 7) / 8;
    const uint64_t n = w1 - w0;
    return (n >= 64 ? ~0ull : ((1ull << n) - 1)) << w0;
}

static persim_ps bus_xfer(pm_dimm *d, uint32_t dimm, persim_ps at, uint32_t bytes)
{
    dimm_state *s = DIMM(d, dimm);
    const uint32_t b = bytes > d->cfg.burst_bytes ? bytes : d->cfg.burst_bytes;
    const persim_ps x = persim_xfer_ps(b, d->cfg.bus_gbps);
    const persim_ps start = persim_max_ps(at, s->bus_free);
    s->bus_free = start + x;
    d->st.bus_busy_ps += x;
    return start + x;
}

static void note_done(pm_dimm *d, persim_ps t)
{
    if (t > d->st.last_done_ps) d->st.last_done_ps = t;
}

persim_ps pm_dimm_read(pm_dimm *d, persim_ps t, uint64_t addr, uint32_t bytes)
{
    const pm_dimm_cfg *c = &d->cfg;
    const uint32_t dimm = pm_dimm_of(d, addr);
    const uint64_t la = local_addr(d, addr), end = la + (bytes ? bytes : 1);
    d->st.reads++;
    d->st.read_bytes += bytes;
    persim_ps ready = t + c->ctrl_ps;
    int hit = 1;
    for (uint64_t line = la / c->media_line_bytes; line * c->media_line_bytes < end; ++line) {
        const uint64_t want = words_of(d, line, la, end);
        buf_entry *e = c->buf_entries ? buf_find(d, dimm, line) : NULL;
        if (e && (e->full || (e->mask & want) == want)) {
            e->lru = ++d->stamp;
            continue;
        }
        hit = 0;
        const persim_ps done = media_read(d, dimm, t + c->ctrl_ps, line);
        if (done > ready) ready = done;
        if (!c->buf_entries) continue;
        if (!e) {
            persim_ps free_at;
            e = buf_take(d, dimm, t + c->ctrl_ps, line, &free_at);
        }
        e->full = 1;
        e->lru = ++d->stamp;
    }
    if (hit) d->st.buf_read_hits++;
    /* The channel slot is taken when the request arrives (as cores/nvm.h does), not when the data is
     * ready: reserving the channel hundreds of ns ahead would block writes that could use it now. */
    const persim_ps slot_end = bus_xfer(d, dimm, t, bytes);
    const uint32_t b = bytes > c->burst_bytes ? bytes : c->burst_bytes;
    const persim_ps done = persim_max_ps(ready + persim_xfer_ps(b, c->bus_gbps), slot_end);
    note_done(d, done);
    return done;
}

persim_ps pm_dimm_write(pm_dimm *d, persim_ps t, uint64_t addr, uint32_t bytes)
{
    const pm_dimm_cfg *c = &d->cfg;
    const uint32_t dimm = pm_dimm_of(d, addr);
    dimm_state *ds = DIMM(d, dimm);
    const uint64_t la = local_addr(d, addr), end = la + (bytes ? bytes : 1);
    d->st.writes++;
    d->st.write_bytes += bytes;
    const persim_ps arrive = bus_xfer(d, dimm, t, bytes);
    /* The LSQ: the write takes a slot once the write lsq_entries before it has left for the buffer. */
    persim_ps queued = arrive;
    persim_ps *slot = c->lsq_entries ? &LSQ(d, dimm)[ds->lsq_head] : NULL;
    if (slot && *slot > queued) {
        queued = *slot;
        d->st.lsq_full_waits++;
    }
    /* The buffer controller takes the LSQ's writes in order. */
    const persim_ps start = c->lsq_entries ? persim_max_ps(queued, ds->proc_free) : queued;
    persim_ps entered = start;
    int hit = 1;
    for (uint64_t line = la / c->media_line_bytes; line * c->media_line_bytes < end; ++line) {
        const uint64_t words = words_of(d, line, la, end);
        if (!c->buf_entries) {
            /* No buffer: the write goes to the media (a read first unless it covers the line). */
            hit = 0;
            persim_ps first;
            const persim_ps s = write_back(d, dimm, start, line, words == d->line_words_mask, &first);
            if (s > entered) entered = s;
            continue;
        }
        buf_entry *e = buf_find(d, dimm, line);
        if (!e) {
            hit = 0;
            persim_ps free_at;
            e = buf_take(d, dimm, start, line, &free_at);
            if (free_at > entered) entered = free_at;
        }
        e->mask |= words;
        e->dirty = 1;
        e->lru = ++d->stamp;
    }
    if (hit) d->st.buf_write_hits++;
    persim_ps accept = entered;
    if (slot) {
        ds->proc_free = entered;
        *slot = entered;
        ds->lsq_head = (ds->lsq_head + 1) % c->lsq_entries;
        accept = queued;                                /* in the LSQ: inside the DIMM */
        d->last_entry = LSQ(d, dimm)[ds->lsq_head];     /* when the next slot of this DIMM's LSQ frees */
        if (d->last_entry < queued) d->last_entry = queued;
    } else {
        d->last_entry = entered;
    }
    accept += c->ctrl_ps;
    note_done(d, entered + c->ctrl_ps);
    return accept;
}

persim_ps pm_dimm_next_write_at(const pm_dimm *d) { return d->last_entry; }

uint64_t pm_dimm_dirty_lines(const pm_dimm *d)
{
    uint64_t n = 0;
    for (uint32_t k = 0; k < d->cfg.dimms; ++k) {
        const buf_entry *b = BUF(d, k);
        for (uint32_t i = 0; i < d->cfg.buf_entries; ++i) n += b[i].valid && b[i].dirty;
    }
    return n;
}
