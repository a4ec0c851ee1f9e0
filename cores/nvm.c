/* persim core: memory-device timing behind one controller (see nvm.h for the rules).
 *
 * Layout of the caller-owned block: struct nvm | nvm_bank[channels * banks] |
 * persim_ps bus_free[channels].
 * Banks are per channel: bank state index = channel * banks + (addr / row_bytes) % banks. */
#include "nvm.h"

#include <string.h>

typedef struct nvm_bank {
    uint64_t  open_row;     /* addr / row_bytes of the open row */
    persim_ps free_ps;      /* bank can start a new access */
    uint64_t  has_row;      /* a row is open */
} nvm_bank;

struct nvm {
    nvm_cfg   cfg;
    nvm_stats st;
    double    ch_read_gbps, ch_write_gbps;
    size_t    off_banks, off_bus;
};

static size_t align8(size_t x) { return (x + 7u) & ~(size_t)7u; }

#define NVM_MAX_UNITS (1u << 24)   /* bound on channels * banks */

static int layout(const nvm_cfg *cfg, size_t *banks, size_t *bus, size_t *total)
{
    if (!cfg) return -1;
    if (cfg->channels == 0 || cfg->banks == 0 || cfg->line_bytes == 0 || cfg->row_bytes == 0 || cfg->bank_map > 1)
        return -1;
    if (!(cfg->read_gbps >= 0.0) || !(cfg->write_gbps >= 0.0)) return -1;
    uint64_t units = (uint64_t)cfg->channels * cfg->banks;
    if (units > NVM_MAX_UNITS) return -1;
    size_t o = align8(sizeof(struct nvm));
    *banks = o; o = align8(o + (size_t)units * sizeof(nvm_bank));
    *bus = o;   o = align8(o + (size_t)cfg->channels * sizeof(persim_ps));
    *total = o;
    return 0;
}

static nvm_bank *BANKS(const nvm *n)    { return (nvm_bank *)((uintptr_t)n + n->off_banks); }
static persim_ps *BUS(const nvm *n)     { return (persim_ps *)((uintptr_t)n + n->off_bus); }

size_t nvm_bytes(const nvm_cfg *cfg)
{
    size_t b, u, total;
    return layout(cfg, &b, &u, &total) == 0 ? total : 0;
}

int nvm_init(void *mem, const nvm_cfg *cfg)
{
    size_t b, u, total;
    if (!mem || ((uintptr_t)mem & 7u) != 0) return -1;
    if (layout(cfg, &b, &u, &total) != 0) return -1;
    memset(mem, 0, total);
    nvm *n = (nvm *)mem;
    n->cfg = *cfg;
    n->off_banks = b; n->off_bus = u;
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
    uint32_t bk = nvm_bank_of(n, addr);
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
    persim_ps done = device_access(n, t, addr, bytes, 0);
    note_done(n, done);
    return done;
}

persim_ps nvm_write(nvm *n, persim_ps t, uint64_t addr, uint32_t bytes)
{
    n->st.writes++;
    n->st.write_bytes += bytes;
    persim_ps done = device_access(n, t, addr, bytes, 1);
    note_done(n, done);
    return done;
}

uint32_t nvm_bank_of(const nvm *n, uint64_t addr)
{
    if (n->cfg.bank_map == 1)
        return (uint32_t)((addr / n->cfg.line_bytes / n->cfg.channels) % n->cfg.banks);
    return (uint32_t)((addr / n->cfg.row_bytes) % n->cfg.banks);
}

persim_ps nvm_bank_free_at(const nvm *n, uint32_t bank)
{
    const nvm_cfg *c = &n->cfg;
    if (bank >= c->banks) return 0;
    const nvm_bank *b = BANKS(n);
    persim_ps t = b[bank].free_ps;
    for (uint32_t ch = 1; ch < c->channels; ++ch)
        if (b[(size_t)ch * c->banks + bank].free_ps < t) t = b[(size_t)ch * c->banks + bank].free_ps;
    return t;
}
