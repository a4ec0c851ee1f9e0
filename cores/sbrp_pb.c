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
 * EDM waits and the two-phase acknowledgement counter. ACTR is split into ACTR[0] and ACTR[1]
 * with a current-phase bit P: every flush or eviction increments ACTR[P] and carries P to the
 * persistence domain, which returns it with the acknowledgement (one extra counter, one phase
 * bit per flush and per ack; the paper's ACTR is ACTR[0] + ACTR[1]). Phase !P is "closed": it
 * receives no new flushes, so ACTR[!P] only falls. P flips only when ACTR[!P] == 0, so a counter
 * always holds the flushes of one phase period. A warp that must wait until every flush issued
 * so far is acknowledged waits for a *drain point*, tracked by three disjoint EDM sub-masks:
 *   edm_pending  target entry still in the PB (edm_target[w] = its seq);
 *   edm_cur      waits for the current phase: needs a flip first, then becomes edm_old;
 *   edm_old      waits for the closed phase: released when ACTR[!P] == 0.
 * A new drain-point waiter joins edm_old if ACTR[P] == 0 (nothing of the current phase is in
 * flight) and edm_cur otherwise. settle(): ACTR[P] == 0 moves edm_cur into edm_old; ACTR[!P] == 0
 * releases edm_old, then flips P if edm_cur is non-empty or flip_req is set (edm_cur becomes
 * edm_old; flip_req: FSM liveness, below). So a waiter waits for at most two phases while new
 * flushes continue in the new phase, and the check is O(1) (mask operations; an RTL needs two
 * more warp masks). EDM = pending | cur | old.
 *   store conflict                     -> target PB_k, then drain point (PB_k's own flush has
 *                                         just been counted in ACTR[P])
 *   eviction behind an ordering entry  -> target that (youngest preceding) ordering entry, then
 *                                         drain point
 *   eviction blocked by FSM            -> drain point
 *   dFence / device pAcq/pRel at head  -> drain point (moved from ODM)
 * This replaces the earlier "liveness hold" (no flush or eviction while such a warp waited).
 *
 * FSM refinement (deviation from the literal "OR the entry's warps into FSM"). The paper
 * defines the FSM as "the warps whose persists are currently being flushed" and claims that
 * per-warp tracking lets pY (T32: oFence; pY) persist concurrently with pX of T0. With one
 * global ACTR that only holds if a fence sets FSM bits for warps that actually have flushed,
 * unacknowledged persists. So the PB keeps FWM[p], the OR of the warp masks of all persists
 * flushed or evicted in phase p since ACTR[p] was last zero, and
 *   oFence, block pRel retire: FSM[p] |= mask & FWM[p]       (p = 0, 1)
 *   block pAcq retire:          FSM[p] |= mask if ACTR[p] > 0 (an acquire inherits every
 *                               persist in flight, whoever issued it, because it may have
 *                               synchronized with any earlier release)
 * FSM[p] and FWM[p] clear when ACTR[p] reaches zero; the FSM seen by the head check, by
 * eviction and by sbrp_pb_fsm() is FSM[0] | FSM[1].
 * Safety: all persists of w before its fence sit in entries before the fence, so when the
 * fence retires they have been flushed; each one not yet acknowledged is counted in some
 * ACTR[p] > 0 and has put w in FWM[p], hence in FSM[p], which clears only once ACTR[p] == 0.
 * FSM[p] != 0 implies ACTR[p] > 0, and the "mask & FSM with ACTR == 0 -> clear FSM" step of the
 * head check is kept only as a guard.
 * Why FSM is per phase (liveness): with an FSM cleared only at total ACTR == 0 and no hold,
 * total ACTR may never reach zero under a continuous stream, so an eviction blocked by FSM would
 * be released at its drain point, retry, and block again indefinitely. Per phase, FSM cannot
 * grow while the entry is in the PB (no ordering entry precedes it, so none retires), and the
 * drain point clears every FSM[p] that was set when it blocked: the retry succeeds. Likewise a
 * head persist blocked by FSM[P] requests a flip (flip_req), so the blocking phase closes and
 * drains even if evictions keep ACTR[P] above zero.
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
    uint32_t actr[2];        /* unacknowledged flushes/evictions per phase */
    uint32_t phase;          /* P: phase of new flushes; !P is the closed phase */
    uint32_t flip_req;       /* a head persist blocked by FSM[P] asks for a flip */
    uint32_t drain_all;
    uint64_t wmask;          /* bits of the configured warps */
    uint64_t odm, edm;
    uint64_t fsm[2];         /* FSM per phase */
    uint64_t fwm[2];         /* warps with persists flushed in phase p since ACTR[p] was zero */
    uint64_t full_waiters;
    uint64_t edm_pending;    /* EDM warps whose target entry is still in the PB */
    uint64_t edm_cur;        /* EDM warps waiting for the current phase (flip first) */
    uint64_t edm_old;        /* EDM warps waiting for the closed phase to drain */
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

static uint32_t actr_total(const sbrp_pb *pb) { return pb->actr[0] + pb->actr[1]; }
static uint64_t fsm_any(const sbrp_pb *pb) { return pb->fsm[0] | pb->fsm[1]; }

/* Advance the drain-point waiters (see the top comment). Called after anything that can lower
 * a phase counter or add a waiter. At most one flip per call: after a flip the closed phase is
 * the old current phase, which is non-zero whenever edm_cur or flip_req was set. */
static void settle(sbrp_pb *pb)
{
    uint32_t p = pb->phase, q = p ^ 1u;
    if (pb->actr[p] == 0u) {             /* nothing of the current phase in flight */
        pb->edm_old |= pb->edm_cur;
        pb->edm_cur = 0;
        pb->flip_req = 0;                /* FSM[P] is empty too */
    }
    if (pb->actr[q] == 0u) {
        pb->edm &= ~pb->edm_old;         /* closed phase drained: its waiters resume */
        pb->edm_old = 0;
        if (pb->edm_cur || pb->flip_req) {
            pb->phase = q;               /* drain point: new flushes count in the other phase */
            pb->edm_old = pb->edm_cur;
            pb->edm_cur = 0;
            pb->flip_req = 0;
        }
    }
}

/* Remove `m` from any earlier EDM wait (a stalled warp that issued anyway). */
static void edm_forget(sbrp_pb *pb, uint64_t m)
{
    pb->edm &= ~m;
    pb->edm_pending &= ~m;
    pb->edm_cur &= ~m;
    pb->edm_old &= ~m;
}

/* Warps `m` wait in EDM until every flush issued so far is acknowledged. */
static void drain_wait(sbrp_pb *pb, uint64_t m)
{
    if (!m) return;
    pb->edm |= m;
    if (pb->actr[pb->phase] == 0u) pb->edm_old |= m;
    else pb->edm_cur |= m;
    settle(pb);
}

static void entry_left(sbrp_pb *pb, uint64_t seq)
{
    uint32_t w;
    uint64_t r = 0;
    if (pb->edm_pending) {
        for (w = 0; w < pb->cfg.warps; w++)
            if ((pb->edm_pending & wbit(w)) && pb->edm_target[w] == seq) r |= wbit(w);
        pb->edm_pending &= ~r;
        drain_wait(pb, r);
    }
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

/* A persist with warp mask m leaves (flush or eviction): count it in the current phase. */
static uint32_t count_flush(sbrp_pb *pb, uint64_t m)
{
    uint32_t p = pb->phase;
    pb->actr[p]++;
    pb->fwm[p] |= m;
    return p;
}

/* 0: evictable; 1: an ordering entry precedes (*target = its seq); 2: FSM. */
static int evict_block(const sbrp_pb *pb, uint32_t s, uint64_t *target)
{
    uint64_t p = E_PREV(pb)[s];
    if (p != 0u && p >= E_SEQ(pb)[pb->head]) {
        if (target) *target = p;
        return 1;
    }
    if ((E_WARPS(pb)[s] & fsm_any(pb)) && actr_total(pb) > 0u) return 2;
    return 0;
}

static int policy_allows(const sbrp_pb *pb)
{
    switch (pb->cfg.policy) {
    case SBRP_EAGER:  return 1;
    case SBRP_WINDOW: return actr_total(pb) < pb->cfg.window;
    default:          return pb->odm || pb->edm || pb->full_waiters || pb->drain_all;
    }
}

static void edm_wait(sbrp_pb *pb, uint32_t warp, int has_target, uint64_t target)
{
    uint64_t b = wbit(warp);
    edm_forget(pb, b);
    if (has_target) {
        pb->edm |= b;
        pb->edm_pending |= b;
        pb->edm_target[warp] = target;
    } else {
        drain_wait(pb, b);
    }
}

/* One head action; persists leave only if allow_flush. */
static sbrp_drain drain_one(sbrp_pb *pb, int allow_flush, uint32_t *line_out, uint32_t *phase_out)
{
    uint32_t h, t, p;
    uint64_t m;
    if (line_out) *line_out = SBRP_NO_ENTRY;
    if (phase_out) *phase_out = 0;
    if (pb->count == 0u) return SBRP_DRAIN_IDLE;
    h = pb->head;
    t = e_type(pb, h);
    m = E_WARPS(pb)[h];
    if (t != SBRP_PERSIST) {
        if (t == SBRP_OFENCE || t == SBRP_REL_BLK) {
            pb->fsm[0] |= m & pb->fwm[0];
            pb->fsm[1] |= m & pb->fwm[1];
        } else if (t == SBRP_ACQ_BLK) {
            if (pb->actr[0] > 0u) pb->fsm[0] |= m;
            if (pb->actr[1] > 0u) pb->fsm[1] |= m;
        } else {                                   /* dFence, device pAcq/pRel */
            pb->odm &= ~m;
            edm_forget(pb, m);
            drain_wait(pb, m);                     /* resumes at once if ACTR == 0 */
        }
        remove_entry(pb, h);
        return SBRP_DRAIN_ORDER;
    }
    if (!allow_flush) return SBRP_DRAIN_IDLE;
    if (m & fsm_any(pb)) {
        if (actr_total(pb) > 0u) {
            if (pb->fsm_block_seq != E_SEQ(pb)[h]) {
                pb->fsm_block_seq = E_SEQ(pb)[h];
                pb->stats.fsm_blocks++;
            }
            if ((m & pb->fsm[pb->phase]) && !pb->flip_req) {
                pb->flip_req = 1;                  /* close the blocking phase */
                settle(pb);
            }
            return SBRP_DRAIN_IDLE;
        }
        pb->fsm[0] = pb->fsm[1] = 0;
    }
    if (!policy_allows(pb)) return SBRP_DRAIN_IDLE;
    if (line_out) *line_out = e_line(pb, h);
    p = count_flush(pb, m);
    if (phase_out) *phase_out = p;
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

sbrp_result sbrp_pb_evict(sbrp_pb *pb, uint32_t warp, uint32_t entry, uint32_t *line_out,
                          uint32_t *phase_out)
{
    uint64_t target = 0;
    uint32_t p;
    int why;
    if (line_out) *line_out = SBRP_NO_ENTRY;
    if (phase_out) *phase_out = 0;
    if (warp >= pb->cfg.warps || !valid_persist(pb, entry)) return SBRP_OK;
    why = evict_block(pb, entry, &target);
    if (why) {
        edm_wait(pb, warp, why == 1, target);
        pb->stats.evict_blocked++;
        return SBRP_STALL_ORDER;
    }
    if (line_out) *line_out = e_line(pb, entry);
    p = count_flush(pb, E_WARPS(pb)[entry]);
    if (phase_out) *phase_out = p;
    pb->stats.evictions++;
    remove_entry(pb, entry);
    return SBRP_OK;
}

sbrp_drain sbrp_pb_drain(sbrp_pb *pb, uint32_t *line_out, uint32_t *phase_out)
{
    return drain_one(pb, 1, line_out, phase_out);
}

void sbrp_pb_ack(sbrp_pb *pb, uint32_t phase)
{
    if (phase > 1u || pb->actr[phase] == 0u) return;   /* spurious ack: ignored */
    pb->actr[phase]--;
    pb->stats.acks++;
    if (pb->actr[phase] == 0u) {
        pb->fsm[phase] = 0;
        pb->fwm[phase] = 0;
    }
    settle(pb);
}

void sbrp_pb_drain_all(sbrp_pb *pb, int on) { pb->drain_all = on ? 1u : 0u; }

/* ---- state queries ---- */

uint64_t sbrp_pb_stalled(const sbrp_pb *pb) { return pb->odm | pb->edm | pb->full_waiters; }
uint64_t sbrp_pb_odm(const sbrp_pb *pb) { return pb->odm; }
uint64_t sbrp_pb_edm(const sbrp_pb *pb) { return pb->edm; }
uint64_t sbrp_pb_fsm(const sbrp_pb *pb) { return fsm_any(pb); }
uint64_t sbrp_pb_full_waiters(const sbrp_pb *pb) { return pb->full_waiters; }
uint32_t sbrp_pb_actr(const sbrp_pb *pb) { return actr_total(pb); }
uint32_t sbrp_pb_actr_phase(const sbrp_pb *pb, uint32_t phase) { return phase > 1u ? 0u : pb->actr[phase]; }
uint32_t sbrp_pb_phase(const sbrp_pb *pb) { return pb->phase; }
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
    uint32_t v = SBRP_NO_ENTRY, p = 0;
    uint32_t actr;
    memset(out, 0, sizeof *out);
    out->entry = SBRP_NO_ENTRY;
    out->flush_line = SBRP_NO_ENTRY;
    out->evict_line = SBRP_NO_ENTRY;
    sbrp_pb_drain_all(pb, in->drain_all);
    if (in->ack) sbrp_pb_ack(pb, in->ack_phase);
    switch (in->op) {
    case SBRP_IN_STORE:
        out->result = (uint8_t)sbrp_pb_store(pb, in->warp, in->line, in->entry, &v);
        out->entry = (uint16_t)v;
        break;
    case SBRP_IN_FENCE:
        out->result = (uint8_t)sbrp_pb_fence(pb, in->warp, (sbrp_type)in->fence_type);
        break;
    case SBRP_IN_EVICT:
        out->result = (uint8_t)sbrp_pb_evict(pb, in->warp, in->entry, &v, &p);
        if (out->result == SBRP_OK && v != SBRP_NO_ENTRY) {
            out->evict_valid = 1;
            out->evict_line = (uint16_t)v;
            out->evict_phase = (uint8_t)p;
        }
        break;
    default:
        break;
    }
    if (drain_one(pb, in->flush_ready != 0u, &v, &p) == SBRP_DRAIN_FLUSH) {
        out->flush_valid = 1;
        out->flush_line = (uint16_t)v;
        out->flush_phase = (uint8_t)p;
    }
    out->odm = pb->odm;
    out->edm = pb->edm;
    out->fsm = fsm_any(pb);
    out->stalled = sbrp_pb_stalled(pb);
    actr = actr_total(pb);
    out->actr = (uint16_t)(actr > 0xFFFFu ? 0xFFFFu : actr);   /* saturating port */
    out->count = (uint16_t)pb->count;
}
