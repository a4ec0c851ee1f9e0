/* persim core: BROI controller (see broi_sched.h). */
#include "broi_sched.h"
#include <string.h>

/* Planted bugs, for the co-simulation's self-test only: tb/broi_sched_plant.cpp compiles this file
 * with BROI_SCHED_PLANTS and selects bug n with broi_sched_plant = n, and expects the lockstep
 * comparison with rtl/broi_sched.v to fail. Every other build has PLANTED(n) = 0 (no global). */
#ifdef BROI_SCHED_PLANTS
int broi_sched_plant;
#define PLANTED(n) (broi_sched_plant == (n))
#else
#define PLANTED(n) 0
#endif

typedef struct broi_entry {
    uint8_t  bank[BROI_MAX_UNITS];
    uint8_t  tag[BROI_MAX_UNITS];
    uint8_t  cnt;        /* units buffered, 0..units */
    uint8_t  nbar;       /* pending barriers, 0..maxbar */
    uint8_t  len0;       /* |s^0| when nbar >= 1, else 0 */
    uint8_t  len1;       /* |s^1| when nbar == 2, else 0 */
    uint8_t  dirty;      /* a request arrived since the last barrier */
    uint16_t starve;     /* remote: steps blocked with a non-empty R_i (saturates) */
    uint8_t  onext;      /* order: a barrier issued since the entry's last issued write */
    uint64_t ofloor;     /* order: completion of every write of the sets before the issuing one */
    uint64_t oset_done;  /* order: latest completion reported for the issuing set */
} broi_entry;

typedef struct broi_line {
    uint64_t line, done;   /* live while done > now */
} broi_line;

struct broi_sched {
    broi_sched_cfg   cfg;
    broi_sched_stats stats;
    broi_entry       e[BROI_MAX_ENTRIES];
    /* serial mode: sweep pointer and the per-bank best candidate registers */
    uint32_t         ptr;
    uint32_t         bvalid;                  /* bit b: bank b has a candidate */
    uint8_t          bent[BROI_MAX_BANKS];
    uint16_t         bkey[BROI_MAX_BANKS];    /* (class << 10) | key */
    /* epoch_merge: local entries whose SubReady-SET belongs to the next global epoch */
    uint32_t         ahead;
    uint64_t         gepoch;                  /* the current global epoch */
    uint8_t          closed;                  /* the global epoch advanced at the last decision */
    /* order: the global epochs' floor (epoch_merge) and the line-order table (cfg.lines slots) */
    uint8_t          gnext;
    uint64_t         gfloor, gset_done;
    uint64_t         tmask, lmask;            /* time_bits / line_bits masks */
    broi_line        line[];
};

static int pow2(uint32_t x) { return x && !(x & (x - 1)); }

size_t broi_sched_bytes(const broi_sched_cfg *cfg)
{
    uint32_t n = cfg && cfg->order && cfg->lines <= BROI_MAX_LINES ? cfg->lines : 0;
    return sizeof(broi_sched) + (size_t)n * sizeof(broi_line);
}

static uint64_t wmask(uint32_t bits) { return bits >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1); }
static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

int broi_sched_init(void *mem, const broi_sched_cfg *cfg)
{
    if (!mem || !cfg) return -1;
    if (cfg->local_entries < 1 || cfg->local_entries + cfg->remote_entries > BROI_MAX_ENTRIES) return -1;
    if (cfg->units < 1 || cfg->units > BROI_MAX_UNITS) return -1;
    if (!pow2(cfg->banks) || cfg->banks > BROI_MAX_BANKS) return -1;
    if (cfg->local_barriers < 1 || cfg->local_barriers > BROI_MAX_BARS) return -1;
    if (cfg->remote_barriers < 1 || cfg->remote_barriers > BROI_MAX_BARS) return -1;
    if (cfg->sigma > 15 || cfg->starve < 1 || cfg->starve > 65535) return -1;
    if (cfg->tag_bits < 1 || cfg->tag_bits > 8) return -1;
    if (cfg->serial > BROI_MAX_ENTRIES) return -1;
    if (cfg->epoch_merge > 1) return -1;
    if (cfg->order > 1 || (cfg->order && (cfg->lines < 1 || cfg->lines > BROI_MAX_LINES))) return -1;
    if (cfg->order && (cfg->line_bits < 1 || cfg->line_bits > 64 || cfg->time_bits < 1 || cfg->time_bits > 64))
        return -1;
    broi_sched *s = (broi_sched *)mem;
    memset(s, 0, broi_sched_bytes(cfg));
    s->cfg = *cfg;
    if (!cfg->order) s->cfg.lines = 0;
    s->tmask = wmask(cfg->time_bits);
    s->lmask = wmask(cfg->line_bits);
    return 0;
}

const broi_sched_cfg *broi_sched_config(const broi_sched *s) { return &s->cfg; }
uint32_t broi_sched_entries(const broi_sched *s) { return s->cfg.local_entries + s->cfg.remote_entries; }

static uint32_t maxbar(const broi_sched *s, uint32_t i)
{
    return i < s->cfg.local_entries ? s->cfg.local_barriers : s->cfg.remote_barriers;
}

/* set boundaries: s^0 = [0,end0), s^1 = [end0,end1) */
static uint32_t end0(const broi_entry *e) { return e->nbar ? e->len0 : e->cnt; }
static uint32_t end1(const broi_entry *e)
{
    if (e->nbar == 0) return e->cnt;
    if (e->nbar == 1) return e->cnt;
    return (uint32_t)e->len0 + e->len1;
}

static uint32_t bankmask(const broi_entry *e, uint32_t lo, uint32_t hi)
{
    uint32_t m = 0;
    for (uint32_t k = lo; k < hi; k++) m |= 1u << e->bank[k];
    return m;
}

static uint32_t popc(uint32_t x)
{
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0F0F0F0Fu;
    return (x * 0x01010101u) >> 24;
}

uint32_t broi_sched_ready_banks(const broi_sched *s, uint32_t i)
{
    if (i >= broi_sched_entries(s)) return 0;
    return bankmask(&s->e[i], 0, end0(&s->e[i]));
}

uint32_t broi_sched_next_banks(const broi_sched *s, uint32_t i)
{
    if (i >= broi_sched_entries(s)) return 0;
    const broi_entry *e = &s->e[i];
    return e->nbar ? bankmask(e, end0(e), end1(e)) : 0;
}

/* eq. 2 of entry i, given `others` = the R-set banks of every other entry */
static uint32_t key_of(const broi_sched *s, uint32_t i, uint32_t others)
{
    uint32_t blp = popc(others | broi_sched_next_banks(s, i));
    return 8u * blp + s->cfg.sigma * (s->cfg.units - end0(&s->e[i]));
}

uint32_t broi_sched_key(const broi_sched *s, uint32_t i)
{
    uint32_t T = broi_sched_entries(s);
    if (i >= T) return 0;
    uint32_t others = 0;
    for (uint32_t j = 0; j < T; j++)
        if (j != i) others |= broi_sched_ready_banks(s, j);
    return key_of(s, i, others);
}

broi_result broi_sched_push(broi_sched *s, uint32_t entry, uint32_t bank, uint32_t tag)
{
    if (entry >= broi_sched_entries(s)) return BROI_BAD;
    broi_entry *e = &s->e[entry];
    if (e->cnt >= s->cfg.units) { s->stats.full++; return BROI_FULL; }
    e->bank[e->cnt] = (uint8_t)(bank & (s->cfg.banks - 1));
    e->tag[e->cnt]  = (uint8_t)(tag & ((1u << s->cfg.tag_bits) - 1));
    e->cnt++;
    e->dirty = 1;
    s->stats.pushes++;
    return BROI_OK;
}

broi_result broi_sched_barrier(broi_sched *s, uint32_t entry)
{
    if (entry >= broi_sched_entries(s)) return BROI_BAD;
    broi_entry *e = &s->e[entry];
    if (!e->dirty) { s->stats.merged++; return BROI_MERGED; }
    if (e->nbar >= maxbar(s, entry)) { s->stats.full++; return BROI_FULL; }
    if (e->nbar == 0) e->len0 = e->cnt;
    else              e->len1 = (uint8_t)(e->cnt - e->len0);
    e->nbar++;
    e->dirty = 0;
    if (PLANTED(1)) e->onext = 1;   /* planted: the floor moves one write too early */
    s->stats.barriers++;
    return BROI_OK;
}

/* {class, key} and eligibility of entry i on the current state (step i of the header). */
static uint32_t full_key_others(const broi_sched *s, uint32_t i, int mc_low, int *elig, uint32_t others);
static uint32_t full_key(const broi_sched *s, uint32_t i, int mc_low, int *elig)
{
    uint32_t others = 0;
    for (uint32_t j = 0; j < broi_sched_entries(s); j++)
        if (j != i) others |= broi_sched_ready_banks(s, j);
    return full_key_others(s, i, mc_low, elig, others);
}
/* full_key with the other entries' R-set banks given (the parallel step computes them for all
 * entries at once: prefix and suffix ORs, O(T) instead of O(T^2)) */
static uint32_t full_key_others(const broi_sched *s, uint32_t i, int mc_low, int *elig, uint32_t others)
{
    uint32_t cls;
    if (i < s->cfg.local_entries) cls = 1;
    else if (s->e[i].starve >= s->cfg.starve) cls = 2;
    else cls = 0;
    if (s->cfg.epoch_merge && i < s->cfg.local_entries) {
        /* Figure 3(a) baseline: only epoch-G sets take part, and no eq. 2 (key 0: fixed order) */
        *elig = !(s->ahead >> i & 1u);
        return cls << 10;
    }
    *elig = i < s->cfg.local_entries || mc_low || cls == 2;
    return (cls << 10) | key_of(s, i, others);
}

uint32_t broi_sched_decision_cycles(const broi_sched_cfg *cfg)
{
    if (!cfg || cfg->local_entries < 1 || cfg->serial > BROI_MAX_ENTRIES) return 0;
    uint32_t T = cfg->local_entries + cfg->remote_entries;
    if (cfg->serial == 0) return 1;
    return (T + cfg->serial - 1) / cfg->serial;
}

uint32_t broi_sched_sweep_pos(const broi_sched *s) { return s->ptr; }

/* Start floor of a write entry i issues now: the first write of a new set (of the entry; with
 * epoch_merge, of the global epochs for a local entry) moves that order's floor. */
static int merged_entry(const broi_sched *s, uint32_t i) { return s->cfg.epoch_merge && i < s->cfg.local_entries; }
static uint64_t issue_floor(broi_sched *s, uint32_t i)
{
    broi_entry *e = &s->e[i];
    if (e->onext) {
        e->ofloor = max64(e->ofloor, e->oset_done);
        e->oset_done = 0;
        e->onext = 0;
    }
    if (!merged_entry(s, i)) return e->ofloor;
    if (s->gnext) {
        s->gfloor = max64(s->gfloor, s->gset_done);
        s->gset_done = 0;
        s->gnext = 0;
    }
    return max64(e->ofloor, s->gfloor);
}

uint64_t broi_sched_complete(broi_sched *s, uint64_t now, uint32_t entry, uint64_t line, uint64_t done)
{
    if (!s->cfg.order) return done;
    done &= s->tmask;
    now &= s->tmask;
    line &= s->lmask;
    s->stats.completions++;
    uint32_t hit = UINT32_MAX, fr = UINT32_MAX;
    for (uint32_t j = 0; j < s->cfg.lines; j++) {
        const broi_line *l = &s->line[j];
        if (l->done > now) {
            if (l->line == line) { hit = j; break; }
        } else if (fr == UINT32_MAX) fr = j;
    }
    if (hit != UINT32_MAX) {
        if (s->line[hit].done > done) {
            if (!PLANTED(2)) done = s->line[hit].done;   /* planted: two writes of a line out of order */
            s->stats.line_waits++;
        }
        s->line[hit].done = done;
    } else if (fr != UINT32_MAX) {
        s->line[fr].line = line;
        s->line[fr].done = done;
    } else {
        s->stats.line_overflow++;
    }
    if (entry < broi_sched_entries(s)) {
        s->e[entry].oset_done = max64(s->e[entry].oset_done, done);
        if (merged_entry(s, entry) || (PLANTED(4) && s->cfg.epoch_merge))   /* planted: remote holds G */
            s->gset_done = max64(s->gset_done, done);
    }
    return done;
}

uint64_t broi_sched_floor(const broi_sched *s, uint32_t i)
{
    if (i == broi_sched_entries(s)) return s->gfloor;
    return i < broi_sched_entries(s) ? s->e[i].ofloor : 0;
}

uint64_t broi_sched_line_done(const broi_sched *s, uint64_t now, uint64_t line)
{
    now &= s->tmask;
    line &= s->lmask;
    for (uint32_t j = 0; j < s->cfg.lines; j++)
        if (s->line[j].done > now && s->line[j].line == line) return s->line[j].done;
    return 0;
}

uint32_t broi_sched_schedule(broi_sched *s, uint32_t bank_ready, int mc_low,
                             broi_issue *issue, uint32_t *barrier_mask)
{
    const uint32_t T = broi_sched_entries(s), B = s->cfg.banks;
    uint32_t removed[BROI_MAX_ENTRIES];   /* bit k: unit k issued this step */
    int best[BROI_MAX_BANKS];             /* per bank: chosen entry or -1 */
    uint32_t bestkey[BROI_MAX_BANKS];
    uint32_t nissued = 0;

    s->stats.clocks++;
    s->closed = 0;
    for (uint32_t b = 0; b < B; b++) {
        issue[b].valid = 0; issue[b].entry = 0; issue[b].tag = 0;
        issue[b].floor = 0;
        best[b] = -1; bestkey[b] = 0;
    }
    if (s->cfg.serial == 0) {
        /* (i) keys on the state at the start of the step, (ii) best candidate per bank */
        uint32_t rmask[BROI_MAX_ENTRIES], suffix[BROI_MAX_ENTRIES + 1], prefix = 0;
        for (uint32_t i = 0; i < T; i++) rmask[i] = broi_sched_ready_banks(s, i);
        suffix[T] = 0;
        for (uint32_t i = T; i-- > 0;) suffix[i] = suffix[i + 1] | rmask[i];
        /* entries in order, each into the banks of its R set: per bank the first entry with the
         * highest key wins (strictly greater replaces), as a per-bank scan over the entries */
        for (uint32_t i = 0; i < T; i++) {
            const uint32_t others = prefix | suffix[i + 1];
            prefix |= rmask[i];
            if (!rmask[i]) continue;
            int el;
            const uint32_t k = full_key_others(s, i, mc_low, &el, others);
            if (!el) continue;
            for (uint32_t m = rmask[i]; m; m &= m - 1) {
                const uint32_t b = (uint32_t)__builtin_ctz(m);
                if (best[b] < 0 || k > bestkey[b]) { best[b] = (int)i; bestkey[b] = k; }
            }
        }
    } else {
        /* serial: evaluate entries ptr .. ptr+K-1 into the per-bank best registers */
        const uint32_t K = s->cfg.serial, p = s->ptr;
        for (uint32_t i = p; i < p + K && i < T; i++) {
            int el;
            uint32_t rm = broi_sched_ready_banks(s, i), k = full_key(s, i, mc_low, &el);
            if (!el) continue;
            for (uint32_t b = 0; b < B; b++) {
                if (!(rm >> b & 1u)) continue;
                if (!(s->bvalid >> b & 1u) || k > s->bkey[b]) {
                    s->bvalid |= 1u << b; s->bent[b] = (uint8_t)i; s->bkey[b] = (uint16_t)k;
                }
            }
        }
        if (p + K < T) {                       /* mid-sweep: nothing issues */
            s->ptr = p + K;
            *barrier_mask = 0;
            return 0;
        }
        s->ptr = 0;
        for (uint32_t b = 0; b < B; b++)
            if (s->bvalid >> b & 1u) { best[b] = s->bent[b]; bestkey[b] = s->bkey[b]; }
        s->bvalid = 0;
        memset(s->bent, 0, sizeof s->bent);
        memset(s->bkey, 0, sizeof s->bkey);
    }
    s->stats.steps++;
    for (uint32_t i = 0; i < T; i++) removed[i] = 0;
    /* (iii) one request per ready bank: the oldest unit of that bank in the best entry's R_i */
    for (uint32_t b = 0; b < B; b++) {
        if (!(bank_ready >> b & 1u) || best[b] < 0) continue;
        broi_entry *e = &s->e[best[b]];
        uint32_t e0 = end0(e);
        for (uint32_t k = 0; k < e0; k++) {
            if (e->bank[k] == b) {
                issue[b].valid = 1;
                issue[b].entry = (uint8_t)best[b];
                issue[b].tag = e->tag[k];
                if (s->cfg.order) issue[b].floor = issue_floor(s, (uint32_t)best[b]);
                removed[best[b]] |= 1u << k;
                if (bestkey[b] >> 10 == 2) s->stats.starve_grants++;
                nissued++;
                break;
            }
        }
    }
    s->stats.issued += nissued;
    /* compaction, starvation counters, (iv) barrier issue */
    const uint32_t L = s->cfg.local_entries, merge = s->cfg.epoch_merge, ahead0 = s->ahead;
    uint32_t bm = 0;
    for (uint32_t i = 0; i < T; i++) {
        broi_entry *e = &s->e[i];
        uint32_t had_ready = end0(e) != 0;
        if (removed[i]) {
            uint32_t n = 0;
            for (uint32_t k = 0; k < e->cnt; k++) {
                if (removed[i] >> k & 1u) continue;
                e->bank[n] = e->bank[k]; e->tag[n] = e->tag[k]; n++;
            }
            uint32_t r = e->cnt - n;
            e->cnt = (uint8_t)n;
            if (e->nbar) e->len0 = (uint8_t)(e->len0 - r);
        }
        if (i >= L) {
            if (removed[i] || !had_ready) e->starve = 0;
            else if (e->starve < s->cfg.starve) e->starve++;
        }
        const int held = merge && i < L && (ahead0 >> i & 1u);   /* epoch G+1 waits for G */
        if (e->nbar && e->len0 == 0 && !held) {
            bm |= 1u << i;
            e->onext = 1;                                         /* its next write opens a set */
            if (merge && i < L) s->ahead |= 1u << i;
            if (merge && i < L && PLANTED(3)) s->gnext = 1;   /* planted: global floor before G closes */
            e->len0 = e->nbar == 2 ? e->len1 : 0;
            e->len1 = 0;
            e->nbar--;
            s->stats.barriers_issued++;
        }
    }
    /* merged epochs: G is complete when no local entry of epoch G holds a request or a barrier */
    if (merge && s->ahead) {
        int open = 0;
        for (uint32_t i = 0; i < L && !open; i++)
            open = !(s->ahead >> i & 1u) && (s->e[i].cnt || s->e[i].nbar);
        if (!open) {
            s->ahead = 0;
            s->gepoch++;
            s->stats.global_epochs++;
            s->closed = 1;
            s->gnext = 1;                                         /* the next merged write opens G */
        }
    }
    *barrier_mask = bm;
    return nissued;
}

uint64_t broi_sched_global_epoch(const broi_sched *s) { return s->gepoch; }
uint32_t broi_sched_ahead(const broi_sched *s) { return s->ahead; }

uint32_t broi_sched_count(const broi_sched *s, uint32_t i)
{
    return i < broi_sched_entries(s) ? s->e[i].cnt : 0;
}

uint32_t broi_sched_pending_barriers(const broi_sched *s, uint32_t i)
{
    return i < broi_sched_entries(s) ? s->e[i].nbar : 0;
}

uint32_t broi_sched_set_size(const broi_sched *s, uint32_t i, uint32_t k)
{
    if (i >= broi_sched_entries(s)) return 0;
    const broi_entry *e = &s->e[i];
    uint32_t a = end0(e), b = e->nbar ? end1(e) : a;
    if (k == 0) return a;
    if (k == 1) return b - a;
    if (k == 2) return e->cnt - b;
    return 0;
}

int broi_sched_unit(const broi_sched *s, uint32_t i, uint32_t pos, uint32_t *bank, uint32_t *tag)
{
    if (i >= broi_sched_entries(s) || pos >= s->e[i].cnt) return -1;
    if (bank) *bank = s->e[i].bank[pos];
    if (tag) *tag = s->e[i].tag[pos];
    return 0;
}

uint32_t broi_sched_starving(const broi_sched *s)
{
    uint32_t m = 0;
    for (uint32_t r = 0; r < s->cfg.remote_entries; r++)
        if (s->e[s->cfg.local_entries + r].starve >= s->cfg.starve) m |= 1u << r;
    return m;
}

uint32_t broi_sched_occupancy(const broi_sched *s)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < broi_sched_entries(s); i++) n += s->e[i].cnt;
    return n;
}

const broi_sched_stats *broi_sched_get_stats(const broi_sched *s) { return &s->stats; }

void broi_sched_step(broi_sched *s, const broi_sched_in *in, broi_sched_out *out)
{
    broi_issue iss[BROI_MAX_BANKS];
    memset(out, 0, sizeof *out);
    if (s->cfg.order)
        for (uint32_t c = 0; c < s->cfg.banks; c++)
            if (in->cpl_valid >> c & 1u)
                out->cpl_done[c] = broi_sched_complete(s, in->now, in->cpl_entry[c], in->cpl_line[c], in->cpl_time[c]);
    broi_sched_schedule(s, in->bank_ready, in->mc_low, iss, &out->barrier);
    for (uint32_t b = 0; b < s->cfg.banks; b++) {
        if (iss[b].valid) out->issue_valid |= 1u << b;
        out->issue_entry[b] = iss[b].entry;
        out->issue_tag[b] = iss[b].tag;
        out->issue_floor[b] = iss[b].floor;
    }
    if (in->in_valid)
        out->result = (uint8_t)(in->in_barrier ? broi_sched_barrier(s, in->in_entry)
                                               : broi_sched_push(s, in->in_entry, in->in_bank, in->in_tag));
    out->starving = broi_sched_starving(s);
    out->epoch_done = s->closed;
    out->occupancy = (uint16_t)broi_sched_occupancy(s);
}
