/* persim core: LightWSP gated write-pending queue (see wpq_gate.h). */
#include "wpq_gate.h"
#include <string.h>

/* Planted bugs for the co-simulation's self-test: tb/wpq_gate_planted.c compiles this file again
 * with WPQ_PLANT = n (and its symbols renamed), and cosim.WpqPlanted.* checks that the lockstep
 * against rtl/wpq_gate.v catches bug n. Never defined in the product build: PLANT(n) is 0. */
#ifdef WPQ_PLANT
#define PLANT(n) (WPQ_PLANT == (n))
#else
#define PLANT(n) 0
#endif

/* The queue is a pool of `entries` nodes on two linked lists: arrival order (prev/next: the
 * queue's FIFO order, wpq_gate_entry, the load CAM, ungated drains) and, per region-window slot
 * (region & (regions - 1)), the entries of that slot in arrival order (snext). The drain choice
 * (the oldest entry of the flush-ID region) and "has the flush-ID region an entry here" look at
 * the flush-ID slot's list only: its first entry whose region is the flush ID, the first entry
 * in most cases (a region ID that aliases the slot, more than `regions` regions ahead, is
 * skipped). Same decision as a scan of the whole queue in arrival order (and as the RTL's
 * priority encoder), without the scan. */
#define WPQ_NIL 0xFFFFu
typedef struct wpq_node {
    wpq_entry e;
    uint16_t  prev, next;               /* arrival order */
    uint16_t  snext;                    /* next entry of the same window slot, arrival order */
} wpq_node;

struct wpq_gate {
    wpq_gate_cfg   cfg;
    wpq_gate_stats stats;
    uint64_t addr_mask, data_mask, line_mask;
    uint32_t rid_mask, line_shift;
    uint32_t count, flush_id, pf_timer;
    uint64_t progress;                  /* protocol state changes (wpq_gate_progress) */
    uint64_t bdry;                      /* window slot s: boundary received */
    uint8_t  back[WPQ_MAX_REGIONS];     /* bdry-ACKs from other MCs */
    uint8_t  fack[WPQ_MAX_REGIONS];     /* flush-ACKs from other MCs */
    uint8_t  fack_sent, overflow, undo_dirty, pf, pf_done, err;
    uint16_t head, tail, free_head;     /* arrival list, free list (through next) */
    uint16_t shead[WPQ_MAX_REGIONS], stail[WPQ_MAX_REGIONS];   /* per-slot lists */
    wpq_node q[];                       /* cfg.entries */
};

static int pow2(uint32_t x) { return x && !(x & (x - 1)); }
static uint64_t mask64(uint32_t bits) { return bits >= 64 ? ~0ull : ((1ull << bits) - 1); }

static void reset_lists(wpq_gate *g)
{
    g->head = g->tail = WPQ_NIL;
    for (uint32_t s = 0; s < WPQ_MAX_REGIONS; s++) g->shead[s] = g->stail[s] = WPQ_NIL;
    for (uint32_t k = 0; k < g->cfg.entries; k++) {
        memset(&g->q[k], 0, sizeof g->q[k]);
        g->q[k].next = (uint16_t)(k + 1 < g->cfg.entries ? k + 1 : WPQ_NIL);
        g->q[k].prev = g->q[k].snext = WPQ_NIL;
    }
    g->free_head = 0;
}

size_t wpq_gate_bytes(const wpq_gate_cfg *cfg)
{
    return sizeof(wpq_gate) + (size_t)(cfg ? cfg->entries : 0) * sizeof(wpq_node);
}

int wpq_gate_init(void *mem, const wpq_gate_cfg *cfg)
{
    if (!mem || !cfg) return -1;
    if (cfg->entries < 1 || cfg->entries > 4096) return -1;
    if (cfg->mcs < 1 || cfg->mcs > WPQ_MAX_MCS) return -1;
    if (cfg->rid_bits < 1 || cfg->rid_bits > 16) return -1;
    if (!pow2(cfg->regions) || cfg->regions > WPQ_MAX_REGIONS || cfg->regions >= (1u << cfg->rid_bits)) return -1;
    if (cfg->addr_bits < 4 || cfg->addr_bits > 64 || cfg->data_bits < 1 || cfg->data_bits > 64) return -1;
    if (!pow2(cfg->line_words) || cfg->line_words >= (1ull << (cfg->addr_bits - 1))) return -1;
    if (cfg->pf_wait < 1 || cfg->pf_wait > 65535) return -1;
    if (cfg->ungated > 1) return -1;
    wpq_gate *g = (wpq_gate *)mem;
    memset(g, 0, wpq_gate_bytes(cfg));
    g->cfg = *cfg;
    g->addr_mask = mask64(cfg->addr_bits);
    g->data_mask = mask64(cfg->data_bits);
    g->rid_mask = (1u << cfg->rid_bits) - 1;
    while ((1u << g->line_shift) < cfg->line_words) g->line_shift++;
    g->line_mask = mask64(cfg->addr_bits - g->line_shift);
    reset_lists(g);
    return 0;
}

const wpq_gate_cfg *wpq_gate_config(const wpq_gate *g) { return &g->cfg; }

static uint32_t slot(const wpq_gate *g, uint32_t r) { return r & (g->cfg.regions - 1); }
static int in_window(const wpq_gate *g, uint32_t r)
{
    return ((r - g->flush_id) & g->rid_mask) < g->cfg.regions;
}

int wpq_gate_persisted(const wpq_gate *g)
{
    uint32_t s = slot(g, g->flush_id);
    return (g->bdry >> s & 1u) && g->back[s] >= g->cfg.mcs - 1;
}

int wpq_gate_boundary(wpq_gate *g, uint32_t region)
{
    region &= g->rid_mask;
    /* window gating: a boundary beyond the window this controller tracks waits with its sender
     * until older regions commit (it cannot be recorded, and dropping it would lose the region) */
    if (!in_window(g, region) &&
        !(PLANT(1) && ((region - g->flush_id) & g->rid_mask) == g->cfg.regions))   /* 1: off by one */
        return WPQ_BDRY_WAIT;
    g->bdry |= 1ull << slot(g, region);
    return 0;
}

int wpq_gate_bdry_ack(wpq_gate *g, uint32_t region)
{
    region &= g->rid_mask;
    if (!in_window(g, region)) { g->err = 1; g->stats.window_errors++; return -1; }
    uint8_t *c = &g->back[slot(g, region)];
    if (*c < 15) (*c)++;
    return 0;
}

int wpq_gate_flush_ack(wpq_gate *g, uint32_t region)
{
    region &= g->rid_mask;
    if (!in_window(g, region)) { g->err = 1; g->stats.window_errors++; return -1; }
    uint8_t *c = &g->fack[slot(g, region)];
    if (*c < 15) (*c)++;
    return 0;
}

/* Unlinks node k, whose predecessor in its slot list is sprev (WPQ_NIL: k heads the list). */
static void remove_node(wpq_gate *g, uint16_t k, uint16_t sprev)
{
    wpq_node *n = &g->q[k];
    const uint32_t s = slot(g, n->e.region);
    if (sprev == WPQ_NIL) g->shead[s] = n->snext; else g->q[sprev].snext = n->snext;
    if (g->stail[s] == k) g->stail[s] = sprev;
    if (n->prev == WPQ_NIL) g->head = n->next; else g->q[n->prev].next = n->next;
    if (n->next == WPQ_NIL) g->tail = n->prev; else g->q[n->next].prev = n->prev;
    memset(n, 0, sizeof *n);
    n->prev = n->snext = WPQ_NIL;
    n->next = g->free_head;
    g->free_head = k;
    g->count--;
}

/* The oldest entry of region r (its slot list is in arrival order): node index, WPQ_NIL if none;
 * *sprev = its predecessor in the slot list. */
static uint16_t find_region(const wpq_gate *g, uint32_t r, uint16_t *sprev)
{
    uint16_t p = WPQ_NIL;
    for (uint16_t k = g->shead[slot(g, r)]; k != WPQ_NIL; p = k, k = g->q[k].snext)
        if (g->q[k].e.region == r) { *sprev = p; return k; }
    return WPQ_NIL;
}

int wpq_gate_next_drain(wpq_gate *g, wpq_entry *e, int *undo)
{
    if (g->pf_done) return 0;
    if (g->cfg.ungated) {                /* plain ADR WPQ: oldest entry, any region */
        if (g->count == 0) return 0;
        const uint16_t k = g->head;      /* the oldest entry also heads its slot list */
        *e = g->q[k].e;
        *undo = 0;
        remove_node(g, k, WPQ_NIL);
        g->stats.drains++;
        g->progress++;
        return 1;
    }
    int pers = wpq_gate_persisted(g);
    if (!pers && !(g->overflow && !g->pf)) return 0;
    uint16_t sprev = WPQ_NIL;
    const uint16_t k = find_region(g, g->flush_id, &sprev);
    if (k == WPQ_NIL) return 0;
    *e = g->q[k].e;
    *undo = !pers;
    remove_node(g, k, sprev);
    g->stats.drains++;
    g->progress++;
    if (!pers) { g->undo_dirty = 1; g->stats.undo_drains++; }
    return 1;
}

static int has_region(const wpq_gate *g, uint32_t r)
{
    uint16_t sprev;
    return find_region(g, r, &sprev) != WPQ_NIL;
}

int wpq_gate_bypass(wpq_gate *g, uint32_t region, uint64_t addr, uint64_t data)
{
    (void)addr; (void)data;
    region &= g->rid_mask;
    if (!g->overflow || g->pf || g->fack_sent || region != g->flush_id || g->count < g->cfg.entries)
        return 0;
    if (!wpq_gate_persisted(g)) { g->undo_dirty = 1; g->stats.undo_drains++; }
    g->stats.bypasses++;
    g->progress++;
    return 1;
}

int wpq_gate_flush_done(wpq_gate *g)
{
    if (g->pf_done || g->fack_sent || !wpq_gate_persisted(g) || has_region(g, g->flush_id)) return 0;
    g->fack_sent = 1;
    return 1;
}

int wpq_gate_try_commit(wpq_gate *g)
{
    uint32_t s = slot(g, g->flush_id);
    if (g->pf_done || !g->fack_sent || g->fack[s] < g->cfg.mcs - 1) return 0;
    g->bdry &= ~(1ull << s);
    g->back[s] = 0;
    g->fack[s] = 0;
    g->flush_id = (g->flush_id + 1) & g->rid_mask;
    g->fack_sent = 0;
    g->overflow = 0;
    g->undo_dirty = 0;
    g->stats.commits++;
    if (!PLANT(4)) g->progress++;                               /* 4: a commit is not progress */
    return 1;
}

wpq_result wpq_gate_push(wpq_gate *g, uint32_t region, uint64_t addr, uint64_t data)
{
    region &= g->rid_mask;
    if (g->pf) return WPQ_OFF;
    if ((g->fack_sent && region == g->flush_id) ||
        (g->overflow && !(g->bdry >> slot(g, g->flush_id) & 1u) && region != g->flush_id)) {
        g->stats.declined++;
        return WPQ_DECLINED;
    }
    if (g->count >= g->cfg.entries) { g->stats.full++; return WPQ_FULL; }
    const uint16_t k = g->free_head;
    wpq_node *n = &g->q[k];
    g->free_head = n->next;
    n->e.addr = addr & g->addr_mask;
    n->e.data = data & g->data_mask;
    n->e.region = (uint16_t)region;
    n->next = n->snext = WPQ_NIL;
    n->prev = g->tail;
    if (g->tail == WPQ_NIL) g->head = k; else g->q[g->tail].next = k;
    g->tail = k;
    const uint32_t s = slot(g, region);
    if (g->stail[s] == WPQ_NIL) g->shead[s] = k; else g->q[g->stail[s]].snext = k;
    g->stail[s] = k;
    g->count++;
    g->stats.pushes++;
    return WPQ_OK;
}

int wpq_gate_check_deadlock(wpq_gate *g)
{
    if (g->cfg.ungated || g->overflow || g->pf || g->count < g->cfg.entries ||
        (wpq_gate_bdry_bit(g) && !PLANT(2)))                  /* 2: deadlock despite the boundary */
        return 0;
    g->overflow = 1;
    g->stats.deadlocks++;
    return 1;
}

wpq_result wpq_gate_store(wpq_gate *g, uint32_t region, uint64_t addr, uint64_t data, int device_ready)
{
    wpq_result r = wpq_gate_push(g, region, addr, data);
    if (r != WPQ_FULL || !device_ready) return r;
    /* overflow retry (IV-D): write through if overflow mode allows it; else the queue may just
     * have deadlocked (full, flush-ID boundary missing): enter overflow mode and try again */
    if (wpq_gate_bypass(g, region, addr, data)) return WPQ_BYPASS;
    wpq_gate_check_deadlock(g);
    if (!PLANT(5) && wpq_gate_bypass(g, region, addr, data)) return WPQ_BYPASS;   /* 5: no retry */
    return WPQ_FULL;
}

int wpq_gate_ack_on_entry(const wpq_gate *g) { return g->cfg.ungated != 0; }

uint64_t wpq_gate_progress(const wpq_gate *g) { return g->progress; }
uint64_t wpq_gate_offer_state(const wpq_gate *g)
{
    const uint64_t f = g->flush_id;
    return f | (uint64_t)g->fack_sent << 16 | (g->bdry >> slot(g, g->flush_id) & 1u) << 17 |
           (uint64_t)g->overflow << 18 | (uint64_t)(g->count >= g->cfg.entries) << 19 | (uint64_t)g->pf << 20 |
           (uint64_t)g->pf_done << 21;
}

void wpq_gate_count_refusals(wpq_gate *g, wpq_result r, uint64_t n)
{
    if (r == WPQ_FULL) g->stats.full += n;
    else if (r == WPQ_DECLINED) g->stats.declined += n;
}

int wpq_gate_can_drain(const wpq_gate *g)
{
    if (g->pf_done) return 0;
    /* 3: a persisted region counts as drainable even with no entry left */
    return g->cfg.ungated ? g->count > 0 : wpq_gate_persisted(g) && (PLANT(3) || has_region(g, g->flush_id));
}

int wpq_gate_pf_settle(const wpq_gate *g, uint64_t *mark)
{
    if (g->progress == *mark && !wpq_gate_can_drain(g)) return 1;
    *mark = g->progress;
    return 0;
}

int wpq_gate_load_hit(const wpq_gate *g, uint64_t line_addr)
{
    line_addr &= g->line_mask;
    for (uint16_t k = g->head; k != WPQ_NIL; k = g->q[k].next)
        if ((g->q[k].e.addr >> g->line_shift) == line_addr) return 1;
    return 0;
}

void wpq_gate_power_fail(wpq_gate *g) { g->pf = 1; }

uint32_t wpq_gate_pf_discard(wpq_gate *g, int *undo_restore)
{
    uint32_t n = g->count;
    *undo_restore = g->undo_dirty && !wpq_gate_persisted(g);
    reset_lists(g);
    g->count = 0;
    g->pf = 1;
    g->pf_done = 1;
    g->stats.discarded += n;
    return n;
}

uint32_t wpq_gate_flush_id(const wpq_gate *g) { return g->flush_id; }
uint32_t wpq_gate_count(const wpq_gate *g) { return g->count; }
int wpq_gate_entry(const wpq_gate *g, uint32_t pos, wpq_entry *e)
{
    if (pos >= g->count) return -1;
    uint16_t k = g->head;
    while (pos--) k = g->q[k].next;
    *e = g->q[k].e;
    return 0;
}
int wpq_gate_bdry_bit(const wpq_gate *g) { return (int)(g->bdry >> slot(g, g->flush_id) & 1u); }
int wpq_gate_overflow(const wpq_gate *g) { return g->overflow; }
int wpq_gate_power_failed(const wpq_gate *g) { return g->pf; }
int wpq_gate_pf_done(const wpq_gate *g) { return g->pf_done; }
int wpq_gate_err(const wpq_gate *g) { return g->err; }
const wpq_gate_stats *wpq_gate_get_stats(const wpq_gate *g) { return &g->stats; }

void wpq_gate_step(wpq_gate *g, const wpq_gate_in *in, wpq_gate_out *out)
{
    memset(out, 0, sizeof *out);
    if (!g->pf_done) {
        const uint64_t p0 = g->progress;
        int consumed = 0;
        if (in->power_fail) wpq_gate_power_fail(g);
        if (in->back_valid) wpq_gate_bdry_ack(g, in->back_region);
        if (in->fack_valid) wpq_gate_flush_ack(g, in->fack_region);
        if (in->bdry_valid) {
            if (wpq_gate_boundary(g, in->bdry_region) == 0) {
                out->bdry_ack_valid = 1;
                out->bdry_ack_region = (uint16_t)(in->bdry_region & g->rid_mask);
            } else {
                out->bdry_wait = 1;
            }
        }
        if (in->ld_valid && wpq_gate_load_hit(g, in->ld_line)) { out->ld_hit = 1; g->stats.load_hits++; }
        /* a persisted region still has entries here (ungated: any entry is left, ADR drains
         * them all): power-failure drain is not idle */
        int can_drain = wpq_gate_can_drain(g);
        if (in->drain_ready) {
            wpq_entry e;
            int undo = 0;
            if (wpq_gate_next_drain(g, &e, &undo)) {
                out->drain_valid = 1; out->drain_undo = (uint8_t)undo;
                out->drain_region = e.region; out->drain_addr = e.addr; out->drain_data = e.data;
            } else if (in->push_valid) {
                int pers = wpq_gate_persisted(g);
                if (wpq_gate_bypass(g, in->push_region, in->push_addr, in->push_data)) {
                    out->drain_valid = 1; out->drain_undo = (uint8_t)!pers;
                    out->drain_region = (uint16_t)(in->push_region & g->rid_mask);
                    out->drain_addr = in->push_addr & g->addr_mask;
                    out->drain_data = in->push_data & g->data_mask;
                    out->push_result = WPQ_BYPASS;
                    consumed = 1;
                }
            }
        }
        if (wpq_gate_flush_done(g)) {
            out->fack_out_valid = 1;
            out->fack_out_region = (uint16_t)g->flush_id;
        }
        uint32_t f = g->flush_id;
        if (wpq_gate_try_commit(g)) {
            out->commit_valid = 1;
            out->commit_region = (uint16_t)f;
        }
        if (in->push_valid && !consumed)
            out->push_result = (uint8_t)wpq_gate_push(g, in->push_region, in->push_addr, in->push_data);
        wpq_gate_check_deadlock(g);
        out->progress = g->progress != p0;
        if (g->pf) {
            /* wait while a persisted region can still drain (drain_ready low) or anything moved:
             * progress, or an ACK or boundary received, or a flush-ACK sent at this edge */
            int active = out->progress || in->back_valid || in->fack_valid || out->bdry_ack_valid ||
                         out->fack_out_valid;
            if (active || can_drain) g->pf_timer = 0;
            else g->pf_timer++;
            if (g->pf_timer >= g->cfg.pf_wait) {
                int ur = 0;
                out->discarded = (uint16_t)wpq_gate_pf_discard(g, &ur);
                out->undo_restore = (uint8_t)ur;
                out->pf_done_pulse = 1;
            }
        }
    } else if (in->push_valid) {
        out->push_result = WPQ_OFF;
    }
    out->flush_id = (uint16_t)g->flush_id;
    out->count = (uint16_t)g->count;
    out->bdry_bit = (uint8_t)wpq_gate_bdry_bit(g);
    out->overflow = g->overflow;
    out->pf = g->pf;
    out->pf_done = g->pf_done;
    out->err = g->err;
}
