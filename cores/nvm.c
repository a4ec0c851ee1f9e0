/* persim core: memory-device timing behind one controller (see nvm.h for the rules).
 *
 * Layout of the caller-owned block: struct nvm | nvm_bank[channels * banks] |
 * persim_ps bus_free[channels] | nvm_wpq_ent[wpq_entries].
 * Banks are per channel: bank state index = channel * banks + (addr / row_bytes) % banks.
 * The WPQ is a ring of the last wpq_entries writes; write k uses slot k % wpq_entries, so the
 * slot holds the write `wpq_entries` places earlier when write k is accepted. */
#include "nvm.h"

#include <string.h>

typedef struct nvm_bank {
    uint64_t  open_row;     /* addr / row_bytes of the open row */
    persim_ps free_ps;      /* bank can start a new access */
    uint64_t  has_row;      /* a row is open */
} nvm_bank;

typedef struct nvm_wpq_ent {
    uint64_t  line;         /* addr / line_bytes */
    persim_ps arrive_ps;
    persim_ps accept_ps;
    persim_ps drain_ps;     /* device write (drain) finished */
} nvm_wpq_ent;

struct nvm {
    nvm_cfg   cfg;
    nvm_stats st;
    uint64_t  nwrites;      /* writes ever issued (ring cursor) */
    persim_ps last_drain_ps;/* drain_done of the previous write (FIFO) */
    double    ch_read_gbps, ch_write_gbps;
    size_t    off_banks, off_bus, off_wpq;
};

static size_t align8(size_t x) { return (x + 7u) & ~(size_t)7u; }

#define NVM_MAX_UNITS (1u << 24)   /* bound on channels * banks and on wpq_entries */

static int layout(const nvm_cfg *cfg, size_t *banks, size_t *bus, size_t *wpq, size_t *total)
{
    if (!cfg) return -1;
    if (cfg->channels == 0 || cfg->banks == 0 || cfg->line_bytes == 0 || cfg->row_bytes == 0)
        return -1;
    if (!(cfg->read_gbps >= 0.0) || !(cfg->write_gbps >= 0.0)) return -1;
    uint64_t units = (uint64_t)cfg->channels * cfg->banks;
    if (units > NVM_MAX_UNITS || cfg->wpq_entries > NVM_MAX_UNITS) return -1;
    size_t o = align8(sizeof(struct nvm));
    *banks = o; o = align8(o + (size_t)units * sizeof(nvm_bank));
    *bus = o;   o = align8(o + (size_t)cfg->channels * sizeof(persim_ps));
    *wpq = o;   o = align8(o + (size_t)cfg->wpq_entries * sizeof(nvm_wpq_ent));
    *total = o;
    return 0;
}

static nvm_bank *BANKS(const nvm *n)    { return (nvm_bank *)((uintptr_t)n + n->off_banks); }
static persim_ps *BUS(const nvm *n)     { return (persim_ps *)((uintptr_t)n + n->off_bus); }
static nvm_wpq_ent *WPQ(const nvm *n)   { return (nvm_wpq_ent *)((uintptr_t)n + n->off_wpq); }

size_t nvm_bytes(const nvm_cfg *cfg)
{
    size_t b, u, w, total;
    return layout(cfg, &b, &u, &w, &total) == 0 ? total : 0;
}

int nvm_init(void *mem, const nvm_cfg *cfg)
{
    size_t b, u, w, total;
    if (!mem || ((uintptr_t)mem & 7u) != 0) return -1;
    if (layout(cfg, &b, &u, &w, &total) != 0) return -1;
    memset(mem, 0, total);
    nvm *n = (nvm *)mem;
    n->cfg = *cfg;
    n->off_banks = b; n->off_bus = u; n->off_wpq = w;
    n->ch_read_gbps = cfg->read_gbps / (double)cfg->channels;
    n->ch_write_gbps = cfg->write_gbps / (double)cfg->channels;
    return 0;
}

const nvm_cfg *nvm_config(const nvm *n) { return n ? &n->cfg : NULL; }
const nvm_stats *nvm_get_stats(const nvm *n) { return n ? &n->st : NULL; }

static void note_done(nvm *n, persim_ps done)
{
    if (done > n->st.last_done_ps) n->st.last_done_ps = done;
}

/* One device access through the bank and bus rules; returns its completion time. */
static persim_ps device_access(nvm *n, persim_ps arrive, uint64_t addr, uint32_t bytes, int is_write)
{
    const nvm_cfg *c = &n->cfg;
    uint32_t ch = (uint32_t)((addr / c->line_bytes) % c->channels);
    uint64_t row = addr / c->row_bytes;
    uint32_t bk = (uint32_t)(row % c->banks);
    nvm_bank *b = &BANKS(n)[(size_t)ch * c->banks + bk];
    persim_ps *bus_free = &BUS(n)[ch];

    persim_ps start = persim_max_ps(arrive, b->free_ps);
    int hit = b->has_row && b->open_row == row;
    persim_ps lat = hit ? c->row_hit_latency_ps : (is_write ? c->write_latency_ps : c->read_latency_ps);
    persim_ps xfer = persim_xfer_ps(bytes, is_write ? n->ch_write_gbps : n->ch_read_gbps);
    persim_ps bus = persim_max_ps(start, *bus_free);
    *bus_free = bus + xfer;
    persim_ps done = persim_max_ps(start + lat, bus + xfer);
    b->free_ps = start + (hit ? c->bank_busy_hit_ps : c->bank_busy_miss_ps);
    b->open_row = row;
    b->has_row = 1;

    if (hit) n->st.row_hits++; else n->st.row_misses++;
    n->st.bus_busy_ps += xfer;
    return done;
}

persim_ps nvm_read(nvm *n, persim_ps t, uint64_t addr, uint32_t bytes)
{
    n->st.reads++;
    n->st.read_bytes += bytes;
    uint32_t e = n->cfg.wpq_entries;
    if (e != 0) {
        uint64_t line = addr / n->cfg.line_bytes;
        uint64_t held = n->nwrites < e ? n->nwrites : e;
        const nvm_wpq_ent *q = WPQ(n);
        for (uint64_t i = 0; i < held; i++) {
            if (q[i].line == line && q[i].arrive_ps <= t && q[i].drain_ps > t) {
                persim_ps done = t + n->cfg.wpq_hit_latency_ps;
                n->st.wpq_read_hits++;
                note_done(n, done);
                return done;
            }
        }
    }
    persim_ps done = device_access(n, t, addr, bytes, 0);
    note_done(n, done);
    return done;
}

persim_ps nvm_write(nvm *n, persim_ps t, uint64_t addr, uint32_t bytes, persim_ps *accept_ps)
{
    n->st.writes++;
    n->st.write_bytes += bytes;
    uint32_t e = n->cfg.wpq_entries;
    if (e == 0) {
        persim_ps done = device_access(n, t, addr, bytes, 1);
        if (accept_ps) *accept_ps = done;
        note_done(n, done);
        return done;
    }
    nvm_wpq_ent *slot = &WPQ(n)[n->nwrites % e];
    persim_ps accept = t;
    if (n->nwrites >= e && slot->drain_ps > t) accept = slot->drain_ps;  /* WPQ full: wait */
    if (accept > t) {
        n->st.wpq_full_stalls++;
        n->st.wpq_stall_ps += accept - t;
    }
    persim_ps drain = device_access(n, accept, addr, bytes, 1);
    drain = persim_max_ps(drain, n->last_drain_ps);                      /* FIFO drain */
    n->last_drain_ps = drain;
    slot->line = addr / n->cfg.line_bytes;
    slot->arrive_ps = t;
    slot->accept_ps = accept;
    slot->drain_ps = drain;
    n->nwrites++;
    if (accept_ps) *accept_ps = accept;
    note_done(n, drain);
    return drain;
}

uint32_t nvm_wpq_occupancy(const nvm *n, persim_ps t)
{
    uint32_t e = n->cfg.wpq_entries;
    uint64_t held = n->nwrites < e ? n->nwrites : e;
    const nvm_wpq_ent *q = WPQ(n);
    uint32_t occ = 0;
    /* A slot whose current write arrived by t but is not yet accepted is still occupied by the
     * write it waits for (accept == that write's drain_done > t), so counting arrive <= t <
     * drain per slot is exact for any t no earlier than the latest write's arrival. */
    for (uint64_t i = 0; i < held; i++)
        if (q[i].arrive_ps <= t && q[i].drain_ps > t) occ++;
    return occ;
}
