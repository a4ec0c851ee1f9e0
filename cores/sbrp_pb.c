/* persim core: SBRP per-SM persist buffer (see sbrp_pb.h for the specification).
 *
 * Implementation notes (choices the paper and the header leave open; docs/models/sbrp.md):
 *
 * Storage. A circular array of `entries` slots with head (oldest slot), tail (next free slot) and
 * `used` (slots from head to tail). Each slot holds: warp mask, sequence number (0 = slot not
 * valid), `prev_ord` (sequence number of the youngest ordering entry allocated before this one)
 * and type|line. A slot index is the entry index the L1 line keeps (cache_line.pb_index).
 *
 * Eviction from the middle clears the slot's valid bit instead of compacting: compaction would
 * renumber entries and force pb_index updates in L1, a valid bit costs nothing. Holes are
 * reclaimed only at the ends: after any removal the head skips invalid slots and the tail
 * retracts over invalid slots (a find-first-valid from each pointer in RTL), so head and
 * tail-1 are always valid when the PB is not empty. An eviction is only possible when no
 * ordering entry precedes the entry, so holes only ever lie in front of the oldest ordering
 * entry. "Full" means no free slot at the tail (used == entries); count = valid entries.
 * Full-waiters clear whenever a slot becomes allocatable (used shrinks: flush, retire of an
 * ordering entry, eviction of the head or tail entry).
 *
 * Sequence numbers (64-bit, never wrap in practice; an RTL would keep log2(entries)+1 bits and
 * compare relative to the head) make every check O(1):
 *   - store conflict: last_order[w] = seq of the youngest ordering entry holding warp w. An
 *     ordering entry after PB_k includes w iff last_order[w] > seq(PB_k) (PB_k is still in the
 *     PB, and ordering entries only leave from the head, so that entry is still there too);
 *   - eviction: an ordering entry precedes PB_k iff prev_ord(PB_k) >= seq(head) (ordering
 *     entries older than the head have all left; younger ones are all still present).
 *
 * EDM waits. Each EDM warp has a target: a sequence number (edm_pending bit set) or "ACTR==0"
 * only. When an entry leaves the PB (flush, eviction, retire) the pending bits of warps
 * targeting it clear. EDM bits without pending target clear whenever ACTR is zero.
 *   store conflict                     -> target PB_k
 *   eviction behind an ordering entry  -> target that (youngest preceding) ordering entry
 *   eviction blocked by FSM or by hold -> ACTR==0
 *   dFence / device pAcq/pRel at head  -> ACTR==0 (moved from ODM)
 * Liveness hold: while ACTR > 0 and some EDM warp has no pending target, no flush and no
 * eviction starts (ordering entries still retire).
 *
 * FSM refinement (deviation from the literal "OR the entry's warps into FSM"). The paper
 * defines the FSM as "the warps whose persists are currently being flushed" and claims that
 * per-warp tracking lets pY (T32: oFence; pY) persist concurrently with pX of T0. With one
 * global ACTR that only holds if a fence sets FSM bits for warps that actually have flushed,
 * unacknowledged persists. So the PB keeps FWM, the OR of the warp masks of all persists
 * flushed or evicted since ACTR was last zero (cleared with FSM at ACTR == 0), and
 *   oFence, block pRel retire: FSM |= mask & FWM
 *   block pAcq retire:          FSM |= mask if ACTR > 0 (an acquire inherits every persist in
 *                               flight, whoever issued it, because it may have synchronized
 *                               with any earlier release)
 * Safety: all persists of w before its fence sit in entries before the fence, so when the
 * fence retires they have been flushed; those not yet acknowledged have put w in FWM. Hence
 * FSM != 0 implies ACTR > 0, and the "mask & FSM with ACTR == 0 -> clear FSM" step of the head
 * check is kept only as a guard.
 *
 * Statistics: stores/fences count accepted operations (stalled attempts that the caller
 * retries are counted in stall_* instead); stall_order counts stores blocked by ordering,
 * evict_blocked counts blocked evictions; fsm_blocks counts head persists held by FSM once per
 * entry (an entry can be FSM-blocked in only one episode: FSM only grows when an ordering entry
 * behind the head retires).
 *
 * Invalid arguments (warp >= warps, fence type not an ordering type, evicting a slot that is
 * not a valid persist) make the operation a no-op returning SBRP_OK with outputs SBRP_NO_ENTRY.
 * A store whose line_entry does not name a valid persist entry of that line is treated as a
 * store with no entry. Stalled warps must not issue (the wrapper holds them); if they do, the
 * operation is processed normally and a new EDM target replaces the old one. */
#include "sbrp_pb.h"

#include <string.h>

struct sbrp_pb {
    sbrp_pb_cfg cfg;
    uint32_t head;           /* slot of the oldest entry */
    uint32_t tail;           /* next slot to allocate */
    uint32_t used;           /* slots from head to tail (valid entries and holes) */
    uint32_t count;          /* valid entries */
    uint32_t actr;
    uint32_t drain_all;
    uint64_t wmask;          /* bits of the configured warps */
    uint64_t odm, edm, fsm;
    uint64_t fwm;            /* warps with persists flushed since ACTR was last zero */
    uint64_t full_waiters;
    uint64_t edm_pending;    /* EDM warps whose target entry is still in the PB */
    uint64_t next_seq;       /* sequence number of the next entry, from 1 */
    uint64_t last_ord_alloc; /* seq of the youngest ordering entry allocated (0: none) */
    uint64_t fsm_block_seq;  /* seq of the head persist last counted in fsm_blocks */
    uint64_t edm_target[SBRP_MAX_WARPS];
    uint64_t last_order[SBRP_MAX_WARPS];
    sbrp_pb_stats stats;
    uint64_t mem[];          /* warps[N], seq[N], prev_ord[N], meta[N] (type << 16 | line) */
};

#define E_WARPS(pb) ((pb)->mem)
#define E_SEQ(pb)   ((pb)->mem + (pb)->cfg.entries)
#define E_PREV(pb)  ((pb)->mem + 2u * (size_t)(pb)->cfg.entries)
#define E_META(pb)  ((pb)->mem + 3u * (size_t)(pb)->cfg.entries)

static uint32_t e_type(const sbrp_pb *pb, uint32_t s) { return (uint32_t)(E_META(pb)[s] >> 16); }
static uint32_t e_line(const sbrp_pb *pb, uint32_t s) { return (uint32_t)(E_META(pb)[s] & 0xFFFFu); }
static uint64_t wbit(uint32_t w) { return (uint64_t)1 << w; }
static int is_device(uint32_t t) { return t == SBRP_DFENCE || t == SBRP_ACQ_DEV || t == SBRP_REL_DEV; }

static int cfg_ok(const sbrp_pb_cfg *cfg)
{
    if (!cfg) return 0;
    if (cfg->entries < 1u || cfg->entries > 65534u) return 0;
    if (cfg->warps < 1u || cfg->warps > SBRP_MAX_WARPS) return 0;
    if (cfg->lines < 1u || cfg->lines > 65535u) return 0;
    if (cfg->policy > (uint32_t)SBRP_WINDOW) return 0;
    if (cfg->policy == (uint32_t)SBRP_WINDOW && cfg->window < 1u) return 0;
    return 1;
}

size_t sbrp_pb_bytes(const sbrp_pb_cfg *cfg)
{
    if (!cfg_ok(cfg)) return 0;
    return sizeof(sbrp_pb) + (size_t)cfg->entries * 4u * sizeof(uint64_t);
}

int sbrp_pb_init(void *mem, const sbrp_pb_cfg *cfg)
{
    sbrp_pb *pb = (sbrp_pb *)mem;
    if (!mem || !cfg_ok(cfg)) return -1;
    if (((uintptr_t)mem % _Alignof(sbrp_pb)) != 0u) return -1;
    memset(mem, 0, sbrp_pb_bytes(cfg));
    pb->cfg = *cfg;
    pb->wmask = cfg->warps == 64u ? ~(uint64_t)0 : (wbit(cfg->warps) - 1u);
    pb->next_seq = 1;
    return 0;
}

const sbrp_pb_cfg *sbrp_pb_config(const sbrp_pb *pb) { return &pb->cfg; }

/* ---- internals ---- */

static int hold(const sbrp_pb *pb)
{
    return pb->actr > 0u && (pb->edm & ~pb->edm_pending) != 0u;
}

static void release_edm(sbrp_pb *pb)
{
    if (pb->actr == 0u) pb->edm &= pb->edm_pending;
}

static void entry_left(sbrp_pb *pb, uint64_t seq)
{
    uint32_t w;
    if (pb->edm_pending) {
        for (w = 0; w < pb->cfg.warps; w++)
            if ((pb->edm_pending & wbit(w)) && pb->edm_target[w] == seq)
                pb->edm_pending &= ~wbit(w);
    }
    release_edm(pb);
}

static uint32_t next_slot(const sbrp_pb *pb, uint32_t s) { return s + 1u == pb->cfg.entries ? 0u : s + 1u; }
static uint32_t prev_slot(const sbrp_pb *pb, uint32_t s) { return s == 0u ? pb->cfg.entries - 1u : s - 1u; }

static void remove_entry(sbrp_pb *pb, uint32_t s)
{
    uint64_t seq = E_SEQ(pb)[s];
    uint32_t before = pb->used;
    E_SEQ(pb)[s] = 0;
    E_WARPS(pb)[s] = 0;
    pb->count--;
    while (pb->used && E_SEQ(pb)[pb->head] == 0u) {
        pb->head = next_slot(pb, pb->head);
        pb->used--;
    }
    while (pb->used && E_SEQ(pb)[prev_slot(pb, pb->tail)] == 0u) {
        pb->tail = prev_slot(pb, pb->tail);
        pb->used--;
    }
    if (pb->used < before) pb->full_waiters = 0;
    entry_left(pb, seq);
}

static uint32_t alloc_entry(sbrp_pb *pb, uint32_t type, uint32_t line, uint64_t warps)
{
    uint32_t s = pb->tail;
    uint64_t seq = pb->next_seq++;
    E_WARPS(pb)[s] = warps;
    E_SEQ(pb)[s] = seq;
    E_PREV(pb)[s] = pb->last_ord_alloc;
    E_META(pb)[s] = ((uint64_t)type << 16) | (line & 0xFFFFu);
    if (type != SBRP_PERSIST) pb->last_ord_alloc = seq;
    pb->tail = next_slot(pb, s);
    pb->used++;
    pb->count++;
    return s;
}

static int valid_persist(const sbrp_pb *pb, uint32_t s)
{
    return s < pb->cfg.entries && E_SEQ(pb)[s] != 0u && e_type(pb, s) == SBRP_PERSIST;
}

/* 0: evictable; 1: an ordering entry precedes (*target = its seq); 2: FSM or liveness hold. */
static int evict_block(const sbrp_pb *pb, uint32_t s, uint64_t *target)
{
    uint64_t p = E_PREV(pb)[s];
    if (p != 0u && p >= E_SEQ(pb)[pb->head]) {
        if (target) *target = p;
        return 1;
    }
    if ((E_WARPS(pb)[s] & pb->fsm) && pb->actr > 0u) return 2;
    if (hold(pb)) return 2;
    return 0;
}

static int policy_allows(const sbrp_pb *pb)
{
    switch (pb->cfg.policy) {
    case SBRP_EAGER:  return 1;
    case SBRP_WINDOW: return pb->actr < pb->cfg.window;
    default:          return pb->odm || pb->edm || pb->full_waiters || pb->drain_all;
    }
}

static void edm_wait(sbrp_pb *pb, uint32_t warp, int has_target, uint64_t target)
{
    pb->edm |= wbit(warp);
    if (has_target) {
        pb->edm_pending |= wbit(warp);
        pb->edm_target[warp] = target;
    } else {
        pb->edm_pending &= ~wbit(warp);
    }
    release_edm(pb);
}

/* One head action; persists leave only if allow_flush. */
static sbrp_drain drain_one(sbrp_pb *pb, int allow_flush, uint32_t *line_out)
{
    uint32_t h, t;
    uint64_t m;
    if (line_out) *line_out = SBRP_NO_ENTRY;
    if (pb->count == 0u) return SBRP_DRAIN_IDLE;
    h = pb->head;
    t = e_type(pb, h);
    m = E_WARPS(pb)[h];
    if (t != SBRP_PERSIST) {
        if (t == SBRP_OFENCE || t == SBRP_REL_BLK) {
            pb->fsm |= m & pb->fwm;
        } else if (t == SBRP_ACQ_BLK) {
            if (pb->actr > 0u) pb->fsm |= m;
        } else {                                   /* dFence, device pAcq/pRel */
            pb->odm &= ~m;
            pb->edm |= m;
            pb->edm_pending &= ~m;
        }
        remove_entry(pb, h);                       /* also releases EDM if ACTR == 0 */
        return SBRP_DRAIN_ORDER;
    }
    if (!allow_flush) return SBRP_DRAIN_IDLE;
    if (m & pb->fsm) {
        if (pb->actr > 0u) {
            if (pb->fsm_block_seq != E_SEQ(pb)[h]) {
                pb->fsm_block_seq = E_SEQ(pb)[h];
                pb->stats.fsm_blocks++;
            }
            return SBRP_DRAIN_IDLE;
        }
        pb->fsm = 0;
    }
    if (hold(pb) || !policy_allows(pb)) return SBRP_DRAIN_IDLE;
    if (line_out) *line_out = e_line(pb, h);
    pb->actr++;
    pb->fwm |= m;
    pb->stats.flushes++;
    remove_entry(pb, h);
    return SBRP_DRAIN_FLUSH;
}

/* ---- transaction API ---- */

sbrp_result sbrp_pb_store(sbrp_pb *pb, uint32_t warp, uint32_t line, uint32_t line_entry,
                          uint32_t *entry_out)
{
    uint64_t b;
    uint32_t s;
    if (entry_out) *entry_out = SBRP_NO_ENTRY;
    if (warp >= pb->cfg.warps || line >= pb->cfg.lines) return SBRP_OK;
    b = wbit(warp);
    if (valid_persist(pb, line_entry) && e_line(pb, line_entry) == line) {
        if (pb->last_order[warp] > E_SEQ(pb)[line_entry]) {
            edm_wait(pb, warp, 1, E_SEQ(pb)[line_entry]);
            pb->stats.stall_order++;
            return SBRP_STALL_ORDER;
        }
        E_WARPS(pb)[line_entry] |= b;
        pb->stats.stores++;
        pb->stats.coalesced++;
        if (entry_out) *entry_out = line_entry;
        return SBRP_OK;
    }
    if (pb->used == pb->cfg.entries) {
        pb->full_waiters |= b;
        pb->stats.stall_full++;
        return SBRP_STALL_FULL;
    }
    s = alloc_entry(pb, SBRP_PERSIST, line, b);
    pb->stats.stores++;
    pb->stats.allocated++;
    if (entry_out) *entry_out = s;
    return SBRP_ALLOCATED;
}

sbrp_result sbrp_pb_fence(sbrp_pb *pb, uint32_t warp, sbrp_type type)
{
    uint32_t t = (uint32_t)type, s;
    uint64_t b;
    if (warp >= pb->cfg.warps || t < SBRP_OFENCE || t > SBRP_REL_DEV) return SBRP_OK;
    b = wbit(warp);
    s = prev_slot(pb, pb->tail);
    if (pb->used && e_type(pb, s) == t) {         /* tail is an ordering entry of this type */
        E_WARPS(pb)[s] |= b;
        pb->stats.fences_coalesced++;
    } else {
        if (pb->used == pb->cfg.entries) {
            pb->full_waiters |= b;
            pb->stats.stall_full++;
            return SBRP_STALL_FULL;
        }
        s = alloc_entry(pb, t, 0, b);
    }
    pb->last_order[warp] = E_SEQ(pb)[s];
    pb->stats.fences++;
    if (is_device(t)) {
        pb->odm |= b;
        pb->stats.stall_fence++;
        return SBRP_STALL_FENCE;
    }
    return SBRP_OK;
}

int sbrp_pb_can_evict(const sbrp_pb *pb, uint32_t entry)
{
    return valid_persist(pb, entry) && evict_block(pb, entry, NULL) == 0;
}

sbrp_result sbrp_pb_evict(sbrp_pb *pb, uint32_t warp, uint32_t entry, uint32_t *line_out)
{
    uint64_t target = 0;
    int why;
    if (line_out) *line_out = SBRP_NO_ENTRY;
    if (warp >= pb->cfg.warps || !valid_persist(pb, entry)) return SBRP_OK;
    why = evict_block(pb, entry, &target);
    if (why) {
        edm_wait(pb, warp, why == 1, target);
        pb->stats.evict_blocked++;
        return SBRP_STALL_ORDER;
    }
    if (line_out) *line_out = e_line(pb, entry);
    pb->actr++;
    pb->fwm |= E_WARPS(pb)[entry];
    pb->stats.evictions++;
    remove_entry(pb, entry);
    return SBRP_OK;
}

sbrp_drain sbrp_pb_drain(sbrp_pb *pb, uint32_t *line_out) { return drain_one(pb, 1, line_out); }

void sbrp_pb_ack(sbrp_pb *pb)
{
    if (pb->actr == 0u) return;                    /* spurious ack: ignored */
    pb->actr--;
    pb->stats.acks++;
    if (pb->actr == 0u) {
        pb->fsm = 0;
        pb->fwm = 0;
        release_edm(pb);
    }
}

void sbrp_pb_drain_all(sbrp_pb *pb, int on) { pb->drain_all = on ? 1u : 0u; }

/* ---- state queries ---- */

uint64_t sbrp_pb_stalled(const sbrp_pb *pb) { return pb->odm | pb->edm | pb->full_waiters; }
uint64_t sbrp_pb_odm(const sbrp_pb *pb) { return pb->odm; }
uint64_t sbrp_pb_edm(const sbrp_pb *pb) { return pb->edm; }
uint64_t sbrp_pb_fsm(const sbrp_pb *pb) { return pb->fsm; }
uint64_t sbrp_pb_full_waiters(const sbrp_pb *pb) { return pb->full_waiters; }
uint32_t sbrp_pb_actr(const sbrp_pb *pb) { return pb->actr; }
uint32_t sbrp_pb_count(const sbrp_pb *pb) { return pb->count; }
int      sbrp_pb_empty(const sbrp_pb *pb) { return pb->count == 0u; }
const sbrp_pb_stats *sbrp_pb_get_stats(const sbrp_pb *pb) { return &pb->stats; }

int sbrp_pb_entry(const sbrp_pb *pb, uint32_t pos, sbrp_type *type, uint32_t *line, uint64_t *warps)
{
    uint32_t s = pb->head, i;
    if (pos >= pb->count) return 0;
    for (i = 0; i < pb->used; i++, s = next_slot(pb, s)) {
        if (E_SEQ(pb)[s] == 0u) continue;
        if (pos-- == 0u) {
            if (type) *type = (sbrp_type)e_type(pb, s);
            if (line) *line = e_type(pb, s) == SBRP_PERSIST ? e_line(pb, s) : SBRP_NO_ENTRY;
            if (warps) *warps = E_WARPS(pb)[s];
            return 1;
        }
    }
    return 0;
}

/* ---- cycle API ---- */

void sbrp_pb_step(sbrp_pb *pb, const sbrp_pb_in *in, sbrp_pb_out *out)
{
    uint32_t v = SBRP_NO_ENTRY;
    memset(out, 0, sizeof *out);
    out->entry = SBRP_NO_ENTRY;
    out->flush_line = SBRP_NO_ENTRY;
    out->evict_line = SBRP_NO_ENTRY;
    sbrp_pb_drain_all(pb, in->drain_all);
    if (in->ack) sbrp_pb_ack(pb);
    switch (in->op) {
    case SBRP_IN_STORE:
        out->result = (uint8_t)sbrp_pb_store(pb, in->warp, in->line, in->entry, &v);
        out->entry = (uint16_t)v;
        break;
    case SBRP_IN_FENCE:
        out->result = (uint8_t)sbrp_pb_fence(pb, in->warp, (sbrp_type)in->fence_type);
        break;
    case SBRP_IN_EVICT:
        out->result = (uint8_t)sbrp_pb_evict(pb, in->warp, in->entry, &v);
        if (out->result == SBRP_OK && v != SBRP_NO_ENTRY) {
            out->evict_valid = 1;
            out->evict_line = (uint16_t)v;
        }
        break;
    default:
        break;
    }
    if (drain_one(pb, in->flush_ready != 0u, &v) == SBRP_DRAIN_FLUSH) {
        out->flush_valid = 1;
        out->flush_line = (uint16_t)v;
    }
    out->odm = pb->odm;
    out->edm = pb->edm;
    out->fsm = pb->fsm;
    out->stalled = sbrp_pb_stalled(pb);
    out->actr = (uint16_t)(pb->actr > 0xFFFFu ? 0xFFFFu : pb->actr);   /* saturating port */
    out->count = (uint16_t)pb->count;
}
