/* persim core: the per-SM SBRP persist buffer (PB) of "Scoped Buffered Persistency Model for
 * GPUs" (ASPLOS'23), section 6 / 6.1 / 6.2.
 *
 * State (section 6, "Hardware modifications"):
 *   - a FIFO of `entries` entries: 3-bit type, L1 line index (persist entries), warp bitmask;
 *   - ODM (order delay mask), EDM (eviction delay mask), FSM (flush status mask), one bit per warp;
 *   - ACTR: flushed persists not yet acknowledged by the persistence domain, kept as two phase
 *     counters ACTR[0], ACTR[1] and a current-phase bit P (persim addition, see below); the
 *     paper's ACTR is ACTR[0] + ACTR[1] (sbrp_pb_actr()).
 * The L1 line keeps the index of its PB entry (cache_line.pb_index); the wrapper passes it in.
 *
 * Semantics (section 6.1):
 *   store  (persist): line has no PB entry -> allocate one (warp bit set). Line has entry PB_k ->
 *          if an ordering entry *after* PB_k includes the issuing warp, the warp stalls in EDM
 *          until PB_k has been flushed and a drain point has passed (pX=a; pY=b; oFence; pX=c);
 *          otherwise the store coalesces into PB_k (warp bit OR-ed in).
 *   fence  (oFence, dFence, pAcq/pRel at block or device scope): appends an ordering entry, or
 *          ORs the warp into the tail entry when the tail is an ordering entry of the same type
 *          (coalescing of fences from different warps with nothing in between).
 *          oFence and block-scope pAcq/pRel never stall. dFence and device-scope pAcq/pRel set
 *          the warp's ODM bit: the warp is stalled; when the entry reaches the head its ODM bits
 *          move to EDM; at the next drain point (below) the EDM bits clear and the warp resumes.
 *   drain  (head processing): an ordering entry at the head retires: oFence / block pRel OR into
 *          FSM[p] those of their warps that have persists in flight in phase p (flushed or
 *          evicted in p since ACTR[p] was last zero: FSM = "warps whose persists are currently
 *          being flushed", section 6); block pAcq ORs its warps into FSM[p] whenever ACTR[p] > 0
 *          (an acquire inherits everything in flight); dFence / device entries move their warps
 *          from ODM to EDM. FSM = FSM[0] | FSM[1].
 *          A persist entry at the head whose warp mask intersects FSM waits until the persists
 *          that put those bits there are acknowledged (FSM is kept per phase, below); otherwise
 *          it is flushed: removed, ACTR[P] incremented, its line and phase P returned to the
 *          caller, which writes the line back and returns P with the acknowledgement.
 *   ack    ACTR[phase] decremented; at zero FSM[phase] clears and EDM warps whose drain point
 *          has passed resume.
 *   evict  a dirty PM line may leave L1 early only if no ordering entry precedes its entry and
 *          its warps are not in FSM while ACTR > 0; otherwise the evicting warp stalls in EDM.
 *          An eviction is counted like a flush (ACTR[P], phase returned).
 * Flush policy (section 6.2): EAGER flushes whenever ordering allows; LAZY only when something
 * forces it (a warp in ODM/EDM, a full PB, or drain_all); WINDOW flushes while ACTR < window.
 *
 * persim addition (not in the paper, documented in docs/models/sbrp.md): the paper releases EDM
 * warps "when ACTR reaches zero", which under a continuous stream of persists may never happen.
 * Instead ACTR is a two-phase counter: every flush/eviction is tagged with the current phase P,
 * counted in ACTR[P], and its acknowledgement carries P back (hardware cost: one extra counter,
 * the bit P, one phase bit per flush and per ack, a second FSM mask and two warp masks sorting
 * the waiters by phase). A warp that must wait until "every flush issued so
 * far is acknowledged" (EDM waits whose target entry has left the PB, dFence/device entries
 * moved from ODM to EDM, evictions blocked by FSM) waits for a *drain point*: if ACTR[!P] == 0,
 * P flips (new flushes count in the other phase) and the warp resumes when the old phase's
 * counter reaches zero; if ACTR[!P] != 0 (an earlier drain point is pending) the warp waits for
 * that phase to drain, then P flips for it; if ACTR[P] == 0 it only waits for phase !P. So a
 * waiter waits for at most two phases, and flushes and evictions continue meanwhile. FSM (and
 * the flushed-warps mask behind it) is kept per phase and clears when its ACTR[p] reaches zero,
 * so a drain point also clears every FSM bit an eviction was blocked by (its retry succeeds); a
 * head persist blocked by FSM[P] requests a flip so that the blocking phase closes and drains.
 *
 * The core keeps no time. Caller-owned state: sbrp_pb_bytes(cfg) bytes; no allocation after init.
 * Two faces over one state: the transaction API below (used by sc_models/l1.cpp) and the cycle
 * API (sbrp_pb_step) that mirrors the RTL ports (used by tb/sbrp_pb_cosim.cpp). */
#ifndef PERSIM_SBRP_PB_H
#define PERSIM_SBRP_PB_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SBRP_MAX_WARPS 64u
#define SBRP_NO_ENTRY  0xFFFFu

typedef enum sbrp_type {          /* 3-bit 'Type' field */
    SBRP_PERSIST = 0,
    SBRP_OFENCE  = 1,
    SBRP_DFENCE  = 2,
    SBRP_ACQ_BLK = 3,
    SBRP_REL_BLK = 4,
    SBRP_ACQ_DEV = 5,
    SBRP_REL_DEV = 6
} sbrp_type;

typedef enum sbrp_policy { SBRP_EAGER = 0, SBRP_LAZY = 1, SBRP_WINDOW = 2 } sbrp_policy;

typedef struct sbrp_pb_cfg {
    uint32_t entries;     /* PB entries, 1..65534 */
    uint32_t warps;       /* warps per SM tracked by the masks, 1..64 */
    uint32_t lines;       /* L1 lines (range of line indices), 1..65535 */
    uint32_t policy;      /* sbrp_policy */
    uint32_t window;      /* max ACTR under SBRP_WINDOW, >= 1 */
} sbrp_pb_cfg;

typedef enum sbrp_result {
    SBRP_OK           = 0, /* fence accepted without stall / store coalesced / evicted */
    SBRP_ALLOCATED    = 1, /* store allocated a new entry (*entry_out): set the line's pb_index */
    SBRP_STALL_ORDER  = 2, /* warp stalled (store or eviction blocked by ordering): bit in EDM */
    SBRP_STALL_FULL   = 3, /* PB full: warp waits for a free entry, then retries */
    SBRP_STALL_FENCE  = 4  /* fence accepted, warp stalled in ODM until it completes */
} sbrp_result;

typedef enum sbrp_drain {
    SBRP_DRAIN_IDLE  = 0,  /* nothing to do now (empty, blocked, policy or window) */
    SBRP_DRAIN_ORDER = 1,  /* an ordering entry retired from the head */
    SBRP_DRAIN_FLUSH = 2   /* a persist left the head: write back *line_out, clear its pb_index */
} sbrp_drain;

typedef struct sbrp_pb_stats {
    uint64_t stores, coalesced, allocated;
    uint64_t fences, fences_coalesced;
    uint64_t flushes, evictions, acks;
    uint64_t stall_order, stall_full, stall_fence, evict_blocked;
    uint64_t fsm_blocks;           /* head persist held by FSM */
} sbrp_pb_stats;

typedef struct sbrp_pb sbrp_pb;

size_t   sbrp_pb_bytes(const sbrp_pb_cfg *cfg);
int      sbrp_pb_init(void *mem, const sbrp_pb_cfg *cfg);   /* 0 ok, -1 bad cfg */
const sbrp_pb_cfg *sbrp_pb_config(const sbrp_pb *pb);

/* ---- transaction API ---- */
/* Persist by `warp` to L1 line `line`; `line_entry` is the line's pb_index (SBRP_NO_ENTRY if none). */
sbrp_result sbrp_pb_store(sbrp_pb *pb, uint32_t warp, uint32_t line, uint32_t line_entry,
                          uint32_t *entry_out);
/* Ordering operation of `type` (not SBRP_PERSIST) by `warp`. */
sbrp_result sbrp_pb_fence(sbrp_pb *pb, uint32_t warp, sbrp_type type);
/* May the persist in `entry` be evicted now? (no stall side effects) */
int      sbrp_pb_can_evict(const sbrp_pb *pb, uint32_t entry);
/* Evict the persist in `entry` on behalf of `warp`: SBRP_OK (entry removed, ACTR incremented,
 * *line_out = its line; write it back) or SBRP_STALL_ORDER (warp bit set in EDM). */
sbrp_result sbrp_pb_evict(sbrp_pb *pb, uint32_t warp, uint32_t entry, uint32_t *line_out,
                          uint32_t *phase_out);
/* One head action; call until SBRP_DRAIN_IDLE after any state change. On SBRP_DRAIN_FLUSH
 * *line_out is the line to write back and *phase_out (0/1) the phase to return with its ack.
 * evict/drain: outputs may be NULL; without a flush/eviction *line_out = SBRP_NO_ENTRY and
 * *phase_out = 0. */
sbrp_drain sbrp_pb_drain(sbrp_pb *pb, uint32_t *line_out, uint32_t *phase_out);
/* One flushed/evicted persist of `phase` (as reported by drain/evict) acknowledged by the
 * persistence domain. Ignored if phase > 1 or ACTR[phase] == 0. */
void     sbrp_pb_ack(sbrp_pb *pb, uint32_t phase);
/* Force draining of everything (kernel end); 0 returns to the configured policy. */
void     sbrp_pb_drain_all(sbrp_pb *pb, int on);

/* ---- state queries ---- */
uint64_t sbrp_pb_stalled(const sbrp_pb *pb);   /* warps that may not proceed: ODM | EDM | full-waiters */
uint64_t sbrp_pb_odm(const sbrp_pb *pb);
uint64_t sbrp_pb_edm(const sbrp_pb *pb);
uint64_t sbrp_pb_fsm(const sbrp_pb *pb);        /* FSM[0] | FSM[1] */
uint64_t sbrp_pb_full_waiters(const sbrp_pb *pb);
uint32_t sbrp_pb_actr(const sbrp_pb *pb);       /* ACTR[0] + ACTR[1] */
uint32_t sbrp_pb_actr_phase(const sbrp_pb *pb, uint32_t phase);   /* ACTR[phase], 0 if phase > 1 */
uint32_t sbrp_pb_phase(const sbrp_pb *pb);      /* current phase P of new flushes */
uint32_t sbrp_pb_count(const sbrp_pb *pb);     /* occupied entries */
int      sbrp_pb_empty(const sbrp_pb *pb);
/* Entry inspection (for tests, stats and RTL comparison); pos 0 = head. */
int      sbrp_pb_entry(const sbrp_pb *pb, uint32_t pos, sbrp_type *type, uint32_t *line, uint64_t *warps);
const sbrp_pb_stats *sbrp_pb_get_stats(const sbrp_pb *pb);

/* ---- cycle API: one clock edge, mirroring the RTL ports of rtl/sbrp_pb.v ----
 * Per-cycle order: (1) ack, (2) the offered operation, (3) at most one drain action, taken only
 * if flush_ready (the downstream accepts a flush this cycle) or the head is an ordering entry.
 * flush_phase / evict_phase are 0 when the matching *_valid is 0. */
enum { SBRP_IN_NONE = 0, SBRP_IN_STORE = 1, SBRP_IN_FENCE = 2, SBRP_IN_EVICT = 3 };
typedef struct sbrp_pb_in {
    uint8_t  ack;          /* one acknowledgement this cycle */
    uint8_t  ack_phase;    /* its phase (flush_phase/evict_phase of the acknowledged write) */
    uint8_t  op;           /* SBRP_IN_* */
    uint8_t  warp;
    uint8_t  fence_type;   /* sbrp_type for SBRP_IN_FENCE */
    uint16_t line;         /* store: line index */
    uint16_t entry;        /* store: line's pb_index; evict: entry to evict */
    uint8_t  flush_ready;  /* downstream can take one flush */
    uint8_t  drain_all;    /* level: force draining */
} sbrp_pb_in;
typedef struct sbrp_pb_out {
    uint8_t  result;       /* sbrp_result of the offered op (0 if none) */
    uint16_t entry;        /* allocated entry for SBRP_ALLOCATED */
    uint8_t  flush_valid;  /* a persist was flushed this cycle */
    uint16_t flush_line;
    uint8_t  flush_phase;  /* phase of that flush: return it with the ack */
    uint8_t  evict_valid;  /* an eviction removed an entry this cycle */
    uint16_t evict_line;
    uint8_t  evict_phase;  /* phase of that eviction: return it with the ack */
    uint64_t odm, edm, fsm, stalled;
    uint16_t actr, count;  /* actr: ACTR[0] + ACTR[1], saturating */
} sbrp_pb_out;
void     sbrp_pb_step(sbrp_pb *pb, const sbrp_pb_in *in, sbrp_pb_out *out);

#ifdef __cplusplus
}
#endif
#endif
