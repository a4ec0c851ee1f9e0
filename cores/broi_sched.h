/* persim core: the BROI (barrier region of interest) controller of "Persistence Parallelism
 * Optimization" (broi-persistence-parallelism.md), sections IV-D (BLP-aware barrier epoch
 * management) and IV-E (hardware implementation).
 *
 * Structure (IV-E): one BROI entry per thread, `local_entries` local ones (paper: 8, one per
 * core) followed by `remote_entries` remote ones (paper: 2, one per RDMA channel). Each entry
 * holds up to `units` request units (paper: 8) in arrival order, each unit = {bank, tag}; the
 * tag is the request's persist-buffer index (paper: 4 bits). Barrier index registers (paper: two
 * per local entry, one per remote entry) hold barrier positions in the entry; here they are the
 * lengths len0 / len1 of the first two sets, which is the same information.
 *
 * Sets (Table I): the barriers of entry i split its units into s_i^0 < s_i^1 < s_i^2 ...
 *   SubReady-SET R_i = s_i^0, Next-SET N_i = s_i^1, Ready-SET R = union of all R_i.
 * One schedule step (IV-D i..iv):
 *   i)   Priority(R_i) = BLP(R - R_i + N_i) - sigma * size(R_i)  (eq. 2), computed on the state at
 *        the start of the step. sigma is given in eighths; the key compared in hardware is
 *        8*BLP(..) + sigma*(units - size(R_i)), i.e. 8*Priority shifted by the constant
 *        sigma*units so it stays non-negative (same order).
 *   ii)  every request of R goes to the candidate queue of its bank;
 *   iii) each bank whose `bank_ready` bit is set issues one request: the one of the candidate with
 *        the highest key (ties: lowest entry index; inside an entry: the oldest unit of that bank);
 *   iv)  an entry whose SubReady-SET is now empty and which has a barrier pending issues the
 *        barrier to the memory controller (bit in `barrier`), and its Next-SET becomes R_i (eq. 3).
 * Serial evaluation (cfg.serial = K >= 1; 0 = the parallel scheduler above, the default): the
 * priority (i) is evaluated for only K entries per clock, round-robin, by K shared key evaluators
 * instead of one per entry, so a full schedule decision ("step") takes ceil(T / K) clocks
 * (T = local + remote; K = 1: one entry per clock, T clocks). Per bank the scheduler keeps a best
 * candidate register {valid, entry, class+key}. One clock (one broi_sched_schedule /
 * broi_sched_step call) in serial mode:
 *   a) entries p .. min(p+K, T)-1 (p = the sweep pointer, broi_sched_sweep_pos) are evaluated on
 *      the state at the start of the clock: key and class exactly as in (i), eligibility with this
 *      clock's mc_low; for every bank b in R_i of an eligible entry, the entry replaces the bank's
 *      best candidate if there is none or its {class, key} is strictly greater (so ties still go
 *      to the lowest entry index, the sweep runs upward);
 *   b) if the sweep is not done (p + K < T): p += K and nothing else happens (no issue, no barrier
 *      issue, starvation counters unchanged);
 *   c) at the last clock of the sweep (p + K >= T): (iii) every bank whose bank_ready bit is set
 *      and that has a best candidate issues the oldest unit of that bank in the candidate's R_i,
 *      then compaction, starvation counters and (iv) barrier issue exactly as in a parallel step
 *      (this clock is the "step": stats.steps counts decisions); the best registers clear, p = 0.
 * A candidate chosen earlier in the sweep still has its request at the end: units leave only at
 * the end of a sweep, and pushes/barriers never shrink a SubReady-SET. Keys of different entries
 * come from different clocks of the sweep, and a request that enters an entry after that entry's
 * evaluation waits for the next sweep. bank_ready is sampled at the decision clock. With K >= T
 * every clock is a decision and the behaviour is the parallel one. Starvation thresholds count
 * decisions. The offered push/barrier is applied every clock, as in the parallel mode.
 * (Chosen over issuing after each entry's evaluation: that would issue a bank's request without
 * having compared the other entries' keys, i.e. a different policy, not a slower eq. 2 choice.)
 * System models: keep clocking while broi_sched_sweep_pos() != 0 even when a clock issued nothing
 * (mid-sweep clocks always return 0); broi_sched_decision_cycles() gives the sweep length.
 * Local before remote (IV-D Discussion 1): a remote entry takes part only when the memory
 * controller reports low utilisation (`mc_low`) or it is starving; a starving remote entry
 * (blocked with a non-empty R_i for `starve` consecutive steps) beats every local entry; otherwise
 * any local candidate beats any remote one. The starvation counter clears when the entry issues.
 *
 * Merged epochs (cfg.epoch_merge = 1; the Epoch baseline of the paper's Figure 3(a), section III:
 * prior work merges every thread's i-th epoch into one global epoch, barrier, the (i+1)-th
 * epochs, ..., and issues without regard to banks). The local entries then share a global epoch G:
 *   - each local entry has an `ahead` flag: its SubReady-SET belongs to epoch G+1, not G;
 *   - a local entry takes part in a step only when it is not ahead, and its key is 0 (no eq. 2:
 *     no BLP-aware choice; ties go to the lowest entry index as always, i.e. a fixed order);
 *   - (iv) a local entry that is not ahead and whose SubReady-SET has drained issues its pending
 *     barrier and becomes ahead (its next set is epoch G+1's);
 *   - end of step: when no local entry that is not ahead holds a request or a pending barrier and
 *     some local entry is ahead, epoch G is complete: G advances (stats.global_epochs) and every
 *     ahead flag clears (all those next sets now form epoch G). An entry that had nothing
 *     buffered when G closed joins whatever epoch is current when its next request comes (a
 *     thread's epoch is never merged into an earlier global epoch than its predecessor's).
 * Entries that are not ahead hold epoch-G sets only, so a request issued in a step belongs to
 * epoch broi_sched_global_epoch() as read before the step; epoch G+1's writes become durable only
 * after every write of epoch G (the barrier the memory controller sees): with cfg.order = 1 the
 * core gives those floors itself (below).
 * Remote entries are not merged: they keep their own sets and eq. 2 keys, as with epoch_merge 0.
 *
 * Durability order (cfg.order = 1; 0 = the paper's controller alone, the memory controller orders):
 * the core also decides when an issued write may start on the device and when it may complete.
 * Times are opaque caller values (picoseconds in persim, masked to cfg.time_bits), compared and
 * maxed, never advanced by the core.
 *   - barrier sets: a write of a later barrier set of an entry starts no earlier than every write
 *     of the earlier sets of that entry has completed. Per entry: `floor` (completion of every
 *     write of the sets before the one issuing now), `set_done` (latest completion reported for
 *     the set issuing now) and `next` (a barrier of the entry issued since its last issued write:
 *     the next issued write opens a new set, floor = max(floor, set_done), set_done = 0). Only the
 *     first write of a set moves the floor, so every write a step issues gets its floor at issue
 *     (broi_issue.floor), before any write of that step has completed.
 *   - completion floor of merged epochs (epoch_merge): the global epochs are one more such order
 *     (global floor / set_done / next; `next` is set when G advances), applied to local entries;
 *     broi_issue.floor is the max of the entry's and the global floor.
 *   - per-line completion order: writes of one line complete in issue order (a controller lets no
 *     later write of an address overtake an earlier one). broi_sched_complete(now, entry, line,
 *     done) gets the device's completion of an issued write and returns max(done, the completion
 *     of the line's previous write); a table of cfg.lines {line, done} slots remembers the lines
 *     with a write in flight (done > now; a slot with done <= now is free). A line with a live slot
 *     takes that slot (lowest index), else the lowest free slot; no free slot: the line is not
 *     remembered (stats.line_overflow). A system model sizes the table to its writes in flight.
 *     The returned completion also raises the entry's (and, merged, the global) set_done.
 *   Transaction order: broi_sched_schedule (floors), then one broi_sched_complete per issued write
 *   in bank order, before the next schedule.
 *
 * Barriers: a barrier with no request since the previous barrier (or since reset) orders nothing
 * and is merged (BROI_MERGED). A barrier that finds all barrier registers in use is refused
 * (BROI_FULL, the sender retries). A barrier behind an already fully issued set is recorded and
 * issued at the next step, so the memory controller still sees it.
 *
 * The core keeps no time. Caller-owned state: broi_sched_bytes(cfg) bytes (8-byte aligned);
 * no allocation after init. Two faces over one state: the transaction API and the cycle API
 * (broi_sched_step) that mirrors the ports of rtl/broi_sched.v. */
#ifndef PERSIM_BROI_SCHED_H
#define PERSIM_BROI_SCHED_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BROI_MAX_ENTRIES 32u   /* local + remote */
#define BROI_MAX_UNITS   16u
#define BROI_MAX_BANKS   16u   /* power of two */
#define BROI_MAX_BARS    2u

typedef struct broi_sched_cfg {
    uint32_t local_entries;    /* >= 1 */
    uint32_t remote_entries;   /* >= 0; local + remote <= BROI_MAX_ENTRIES */
    uint32_t units;            /* request units per entry, 1..16 */
    uint32_t banks;            /* power of two, 1..16 */
    uint32_t local_barriers;   /* barrier index registers per local entry, 1..2 */
    uint32_t remote_barriers;  /* per remote entry, 1..2 */
    uint32_t sigma;            /* sigma in eighths, 0..15 (4 = 0.5) */
    uint32_t starve;           /* remote starvation threshold in steps, 1..65535 */
    uint32_t tag_bits;         /* request tag width, 1..8 */
    uint32_t serial;           /* 0 = parallel (default): every entry's priority each clock;
                                  K = 1..32: serial, K entries per clock, a decision every
                                  ceil((local+remote)/K) clocks (see the header comment) */
    uint32_t epoch_merge;      /* 0 = BROI (default): per-entry sets, eq. 2; 1 = the Figure 3(a)
                                  Epoch baseline: local entries' i-th sets merged into global
                                  epochs, no BLP-aware choice (see the header comment) */
    uint32_t order;            /* 0 = no durability order (floors 0, completions returned as given);
                                  1 = barrier-set and global-epoch floors, per-line completion order */
    uint32_t lines;            /* order = 1: line-order table slots, 1..BROI_MAX_LINES (0 with order 0) */
    uint32_t line_bits;        /* line id width, 1..64 (ids are masked to it; 64 = no mask) */
    uint32_t time_bits;        /* timestamp width, 1..64 (times are masked to it; 64 = no mask) */
} broi_sched_cfg;

#define BROI_MAX_LINES (1u << 20)

typedef enum broi_result {
    BROI_NONE   = 0,   /* no operation offered */
    BROI_OK     = 1,   /* request stored / barrier recorded */
    BROI_MERGED = 2,   /* barrier with nothing to order: dropped */
    BROI_FULL   = 3,   /* no free unit / no free barrier register: retry */
    BROI_BAD    = 4    /* entry index out of range */
} broi_result;

typedef struct broi_issue {
    uint8_t valid, entry, tag;
    uint64_t floor;    /* order = 1: the write starts on the device no earlier than this */
} broi_issue;

typedef struct broi_sched_stats {
    uint64_t pushes, barriers, merged, full;
    uint64_t issued, barriers_issued, starve_grants;
    uint64_t steps;    /* schedule decisions (serial mode: completed sweeps) */
    uint64_t clocks;   /* broi_sched_schedule / broi_sched_step calls */
    uint64_t global_epochs;   /* epoch_merge: global epochs completed (= broi_sched_global_epoch) */
    uint64_t completions;     /* order = 1: broi_sched_complete calls */
    uint64_t line_waits;      /* completions delayed behind the line's previous write */
    uint64_t line_overflow;   /* completions whose line found no free table slot */
} broi_sched_stats;

typedef struct broi_sched broi_sched;

size_t   broi_sched_bytes(const broi_sched_cfg *cfg);
int      broi_sched_init(void *mem, const broi_sched_cfg *cfg);   /* 0 ok, -1 bad cfg */
const broi_sched_cfg *broi_sched_config(const broi_sched *s);

/* ---- transaction API ---- */
broi_result broi_sched_push(broi_sched *s, uint32_t entry, uint32_t bank, uint32_t tag);
broi_result broi_sched_barrier(broi_sched *s, uint32_t entry);
/* One schedule clock: in parallel mode a full schedule step; in serial mode one clock of the
 * sweep (a decision only at its last clock, see the header comment; the other clocks issue nothing
 * and return 0, but must still be clocked for the sweep to advance). issue[] has cfg.banks
 * elements; *barrier_mask gets one bit per entry that issued a barrier. Returns the number of
 * requests issued. */
uint32_t broi_sched_schedule(broi_sched *s, uint32_t bank_ready, int mc_low,
                             broi_issue *issue, uint32_t *barrier_mask);
/* order = 1: the device completes an issued write of `entry` to `line` at `done` (now = the
 * caller's current time, frees the table slots of completed lines). Returns the write's completion
 * in line order, and raises its set's completion (see the header comment). order = 0: returns done. */
uint64_t broi_sched_complete(broi_sched *s, uint64_t now, uint32_t entry, uint64_t line, uint64_t done);

/* ---- state queries ---- */
uint32_t broi_sched_entries(const broi_sched *s);                 /* local + remote */
uint32_t broi_sched_count(const broi_sched *s, uint32_t entry);   /* buffered units */
uint32_t broi_sched_pending_barriers(const broi_sched *s, uint32_t entry);
/* Size of set k (0 = SubReady-SET, 1 = Next-SET, 2 = the rest) of an entry. */
uint32_t broi_sched_set_size(const broi_sched *s, uint32_t entry, uint32_t k);
/* Unit `pos` (0 = oldest) of an entry: returns 0 and fills bank/tag, -1 if none. */
int      broi_sched_unit(const broi_sched *s, uint32_t entry, uint32_t pos,
                         uint32_t *bank, uint32_t *tag);
/* Bank masks of R_i and N_i, and the hardware key (see header comment) of entry i now. */
uint32_t broi_sched_ready_banks(const broi_sched *s, uint32_t entry);
uint32_t broi_sched_next_banks(const broi_sched *s, uint32_t entry);
uint32_t broi_sched_key(const broi_sched *s, uint32_t entry);
uint32_t broi_sched_starving(const broi_sched *s);   /* bit r = remote entry r is starving */
uint32_t broi_sched_occupancy(const broi_sched *s);  /* units buffered in all entries */
/* Clocks per schedule decision: 1 (parallel), ceil((local+remote)/serial) (serial); 0 if the
 * config is invalid. For a system model: a request that becomes schedulable waits up to this many
 * clocks longer than with the parallel scheduler. */
uint32_t broi_sched_decision_cycles(const broi_sched_cfg *cfg);
/* Serial mode: the first entry evaluated at the next clock (0 = a new sweep starts); 0 in
 * parallel mode. */
uint32_t broi_sched_sweep_pos(const broi_sched *s);
const broi_sched_stats *broi_sched_get_stats(const broi_sched *s);
/* epoch_merge: the current global epoch G (0 after reset; always 0 with epoch_merge = 0), and
 * bit i = local entry i is ahead (its SubReady-SET belongs to G+1). */
uint64_t broi_sched_global_epoch(const broi_sched *s);
uint32_t broi_sched_ahead(const broi_sched *s);
/* order = 1: completion floor of an entry's issuing set (entry = broi_sched_entries(): the global
 * one), and the line order: the completion of the line's last write if it is still in flight at
 * `now`, else 0. */
uint64_t broi_sched_floor(const broi_sched *s, uint32_t entry);
uint64_t broi_sched_line_done(const broi_sched *s, uint64_t now, uint64_t line);

/* ---- cycle API: one clock edge, mirroring rtl/broi_sched.v ----
 * Per-cycle order: (0) the completion lanes (order = 1) in lane order, each a
 * broi_sched_complete(now, cpl_entry, cpl_line, cpl_time), on the state at the start of the
 * cycle, (1) one schedule step (issue + barrier issue, floors), (2) the offered operation (push
 * or barrier) on the resulting state. A system reports the writes a step issued in a later cycle.
 * All outputs are registered in the RTL: they describe what happened at this edge. */
typedef struct broi_sched_in {
    uint8_t  in_valid;     /* an operation is offered */
    uint8_t  in_barrier;   /* 1 = barrier, 0 = request */
    uint8_t  in_entry;
    uint8_t  in_bank;      /* taken modulo banks */
    uint8_t  in_tag;       /* taken modulo 2^tag_bits */
    uint32_t bank_ready;   /* bit b: bank b accepts a request this cycle */
    uint8_t  mc_low;       /* memory-controller queue in low utilisation */
    uint64_t now;          /* order = 1: current time (frees line-table slots) */
    uint32_t cpl_valid;    /* bit c: completion lane c reports a device completion */
    uint8_t  cpl_entry[BROI_MAX_BANKS];
    uint64_t cpl_line[BROI_MAX_BANKS];
    uint64_t cpl_time[BROI_MAX_BANKS];   /* the device's completion */
} broi_sched_in;
typedef struct broi_sched_out {
    uint8_t  result;                  /* broi_result of the offered operation */
    uint32_t issue_valid;             /* bit b: bank b got a request */
    uint8_t  issue_entry[BROI_MAX_BANKS];
    uint8_t  issue_tag[BROI_MAX_BANKS];
    uint32_t barrier;                 /* bit i: entry i issued a barrier */
    uint32_t starving;                /* bit r: remote entry r is starving (after the edge) */
    uint8_t  epoch_done;              /* epoch_merge: the global epoch advanced at this edge */
    uint16_t occupancy;               /* units buffered (after the edge) */
    uint64_t issue_floor[BROI_MAX_BANKS];   /* order = 1: start floor of bank b's request (0 if none) */
    uint64_t cpl_done[BROI_MAX_BANKS];      /* completion of lane c in line order (0 if not valid) */
} broi_sched_out;
void     broi_sched_step(broi_sched *s, const broi_sched_in *in, broi_sched_out *out);

#ifdef __cplusplus
}
#endif
#endif
