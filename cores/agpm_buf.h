/* persim core: one AGPM buffer of "Adaptive Data Path Selection for Durable Transaction in GPU
 * Persistent Memory" (agpm-adaptive-data-path-selection.txt), sections III (Table II), IV-B, IV-C.
 *
 * AGPM attaches one buffer to the L1D of an SM and one to the L2 (partitions); they record the
 * locality between PM log updates and the data updates that follow (section III, Table II) and
 * are read by the per-SM path selector (cores/agpm_sel.h) once per period (section IV-A).
 *
 * Structure (IV-B, "similar to a 2-way set-associative cache"): "One way is for the statistics of
 * the exclusive PM log updates (log way), and the other way is for the statistics of all kinds of
 * memory requests (all way)." An entry has a tag ("an aligned 128-byte cache block address") and
 * a data field: one counter per byte of the block ("records the number of references to each
 * byte"), one block counter ("the number of references to the specific cache block") and "a mark
 * for the change of the data path". IV-C: 1024 entries, 5-bit counters (128 + 2 counters).
 * persim generalises the 2 ways to `ways` (even): ways/2 log ways and ways/2 all ways per set,
 * LRU within each half; ways = 2 is the paper's buffer. Set index = block address mod sets (the
 * paper does not give the index function). Counters saturate at 2^bits - 1.
 *
 * Counting rules (IV-B, quoted):
 *  - a log update (the paper's "new PM request"): "an associated entry will be initialized with 0
 *    and added in both ways ... The counters of the requested bytes are increased by 1." If the
 *    block is already there, it is a hit in both ways ("If the subsequent request belongs to a PM
 *    instruction, counters in both ways of the AGPM buffer will be updated").
 *  - a hit: "if the corresponding byte counter is 0, then only the cache block counter will be
 *    increased. If the byte counter is larger than 0, then both the byte and the cache block
 *    counters will be increased." persim applies this per requested byte and increments the block
 *    counter once per request (one reference to the block).
 *  - a non-log access: "Otherwise, only the counters in the all way will be updated"; "If there is
 *    a miss in the AGPM buffer and the request is not from a PM instruction, then no actions will
 *    be taken." persim reads "PM instruction" as "log update" (the log way is for "the exclusive
 *    PM log updates"); a persistent data update is a non-log access.
 *  A freshly allocated entry has its block counter at 0 (the paper increments only "the counters
 *  of the requested bytes" on allocation).
 *
 * Statistics (Table II / IV-B): "t_log is calculated as the sum of all the byte counters whose
 * values are larger than 1 in the log way of the AGPM buffers at the L1 cache level, and s_log is
 * calculated as the sum of both the byte counters whose values are larger than 1 and the cache
 * block counters in the log way ... These go the same for the other variables." (The variable
 * names are lost in the text we have; the brief names them t_log / s_log.) So per way class c:
 *     t_c = sum of v over byte counters v with v > 1          (the values are summed, not counted)
 *     s_c = t_c + sum of block counters
 * Note: under this literal rule s_c > t_c whenever t_c > 0 (every re-reference of a byte also
 * bumps its block counter), while Table II has rows with s == t > 0 (GRID2, ATAX1, MVT, ...): the
 * table was evidently not produced by exactly these formulas. We follow IV-B literally.
 *
 * Reservation buffer (IV-B): "When a cache block recorded in the AGPM buffer is eventually written
 * back either due to a regular replacement or due to a clwb-like instruction, the associated
 * content in the AGPM buffer will be first placed in the reservation buffer ... Once this cache
 * block is fetched in the volatile caches again before the current period or the kernel is
 * completed, the reserved information ... will be re-filled into the AGPM buffer. When a period
 * ends or the kernel execution completes, all the contents in the AGPM buffer and the reservation
 * buffer will be flushed." The paper gives no size, no policy when it is full, and nothing about
 * what happens to an entry displaced by a set conflict in the AGPM buffer itself. persim's choices:
 *  - it holds whole entries (way class log/all, tag, byte counters, block counter, path mark);
 *  - an entry goes there (a) on agpm_buf_writeback (the cache wrote the block back) and (b) when
 *    it is displaced by a set conflict (so a conflict does not lose statistics);
 *  - it is drained (i) by refill: the next log update or non-log access to a reserved block moves
 *    its entries back into the buffer (possibly displacing others into it), (ii) by agpm_buf_reset
 *    (period end / kernel end: everything cleared), (iii) when full, the oldest reserved entry is
 *    dropped (counted in stats.resv_dropped); resv_entries = 0 means no reservation buffer;
 *  - agpm_buf_vars can include the reserved entries (include_resv) or only resident ones.
 *
 * Path-change mark (IV-B): "Another extra counter is used as a mark for the change of the data
 * path. If a certain log update's data path is changed from the temporal one to the non-temporal
 * one, then the original clwb should be dropped since the data is sent directly to the persistent
 * memory controller. Otherwise, if the data path is changed from the non-temporal one to the
 * temporal one, then a clwb-like operation needs to be added after the temporal store to
 * guarantee the data persistence." We read "a log update's data path is changed" as: the path
 * the program coded for the log store (store+clwb or an NT store) differs from the path the
 * selector chose for it. So agpm_buf_log_write takes both: coded != selected sets the mark of
 * the block's log-way entry (AGPM_MARK_NT_TO_T: the wrapper adds a clwb-like write-back after the
 * temporal store; AGPM_MARK_T_TO_NT: the program's following clwb of the block is dropped), a log
 * update that is not redirected clears it; agpm_buf_clear_mark once the wrapper acted. Why not
 * "two successive log updates of a block used different paths": the selector changes the path
 * only at a period end, and at a period end all AGPM buffers are flushed (IV-A), so such a mark
 * could never be seen. A caller wanting that reading anyway passes coded = agpm_buf_last_path().
 * The entry also keeps the selected path of the block's last log update (agpm_buf_last_path).
 * A mark is lost when the entry is flushed at a period end (then a dropped clwb is executed on a
 * line that is no longer dirty -- harmless -- and an added write-back was due right after its
 * store anyway).
 *
 * Movement between levels (IV-B: "When a cache block is flushed to a lower memory hierarchy, the
 * associated AGPM entry will also be flushed to a lower-level AGPM buffer"): agpm_buf_take removes
 * a block's entries into an agpm_rec, agpm_buf_merge adds one into another buffer (counters
 * added, saturating; the lower buffer's path mark is kept unless it has none). The paper does not
 * say how the two are combined; adding is persim's choice.
 *
 * Caller-owned state: agpm_buf_bytes(cfg) bytes (8-byte aligned); no allocation after init. */
#ifndef PERSIM_AGPM_BUF_H
#define PERSIM_AGPM_BUF_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AGPM_MAX_BLOCK 4096u

typedef struct agpm_buf_cfg {
    uint32_t entries;        /* total entries, multiple of ways (paper: 1024) */
    uint32_t ways;           /* even, 2..64; ways/2 log ways + ways/2 all ways (paper: 2) */
    uint32_t block_bytes;    /* power of two, 4..AGPM_MAX_BLOCK (paper: 128) */
    uint32_t byte_ctr_bits;  /* 1..8, saturating (paper: 5) */
    uint32_t blk_ctr_bits;   /* 1..32, saturating (paper: 5, IV-C "130 counters") */
    uint32_t resv_entries;   /* reservation buffer entries, 0..1<<20 (paper: unspecified) */
} agpm_buf_cfg;

typedef enum agpm_path { AGPM_PATH_NONE = 0, AGPM_PATH_T = 1, AGPM_PATH_NT = 2 } agpm_path;
typedef enum agpm_way { AGPM_WAY_LOG = 0, AGPM_WAY_ALL = 1 } agpm_way;
typedef enum agpm_mark {
    AGPM_MARK_NONE   = 0,
    AGPM_MARK_NT_TO_T = 1,   /* log path changed non-temporal -> temporal: add a clwb-like write-back */
    AGPM_MARK_T_TO_NT = 2    /* temporal -> non-temporal: drop the pending clwb */
} agpm_mark;

/* One buffer's share of Table II's variables. */
typedef struct agpm_vars {
    uint64_t t_all, t_log, s_all, s_log;
} agpm_vars;

typedef struct agpm_buf_stats {
    uint64_t log_writes, accesses, access_misses, allocs, conflicts, writebacks,
             refills, resv_dropped, taken, merged, resets;
} agpm_buf_stats;

/* An entry pair of one block moved between levels (agpm_buf_take / agpm_buf_merge). */
typedef struct agpm_rec {
    uint64_t block;                    /* block number (address / block_bytes) */
    uint8_t  has[2];                   /* [AGPM_WAY_LOG], [AGPM_WAY_ALL]: entry present */
    uint32_t blk[2];                   /* block counters */
    uint8_t  path, mark;               /* log way's last path and mark */
    uint8_t  ctr[2][AGPM_MAX_BLOCK];   /* byte counters */
} agpm_rec;

typedef struct agpm_buf agpm_buf;

size_t agpm_buf_bytes(const agpm_buf_cfg *cfg);           /* 0 for a bad cfg */
int    agpm_buf_init(void *mem, const agpm_buf_cfg *cfg);  /* 0 ok, -1 bad cfg */
const agpm_buf_cfg *agpm_buf_config(const agpm_buf *b);

/* ---- transaction API (addresses are byte addresses; [addr, addr+len) must lie in one block,
 *      len >= 1; returns 0, or -1 for a bad range) ---- */
/* A PM log update coded by the program for path `coded` and sent over path `selected` (each
 * AGPM_PATH_T / _NT, or AGPM_PATH_NONE: not known). Allocates (or hits) in a log way and an all
 * way. Sets the path-change mark if coded and selected are both known and differ, clears it if
 * they are equal; records `selected` as the block's last path (unless NONE). */
int agpm_buf_log_write(agpm_buf *b, uint64_t addr, uint32_t len, agpm_path coded,
                       agpm_path selected);
/* Any other access (load, data store, persistent data update): all way only, a miss does nothing
 * (unless the block is in the reservation buffer: then it is refilled and counted as a hit).
 * Returns 1 hit, 0 miss, -1 bad range. */
int agpm_buf_access(agpm_buf *b, uint64_t addr, uint32_t len);
/* The cache wrote block `addr` back (replacement or clwb): its entries move to the reservation
 * buffer. Returns the number of entries moved (0..2). */
int agpm_buf_writeback(agpm_buf *b, uint64_t addr);
/* Period end / kernel end: AGPM buffer and reservation buffer flushed (cleared). */
void agpm_buf_reset(agpm_buf *b);

/* ---- path-change mark ---- */
agpm_mark agpm_buf_mark(const agpm_buf *b, uint64_t addr);   /* resident log-way entry only */
void      agpm_buf_clear_mark(agpm_buf *b, uint64_t addr);
agpm_path agpm_buf_last_path(const agpm_buf *b, uint64_t addr);

/* ---- between levels ---- */
/* Remove block addr's entries (resident or reserved) into *rec; returns entries taken (0..2). */
int agpm_buf_take(agpm_buf *b, uint64_t addr, agpm_rec *rec);
/* Add rec's entries into this buffer (allocating if needed, counters added saturating). */
void agpm_buf_merge(agpm_buf *b, const agpm_rec *rec);

/* ---- queries ---- */
void agpm_buf_vars(const agpm_buf *b, int include_resv, agpm_vars *out);
/* Counters of block addr in way class `way` (resident only): returns 1 and fills *blk_ctr and
 * byte_ctrs[0..block_bytes) (either may be NULL), or 0 if the block is not resident there. */
int agpm_buf_entry(const agpm_buf *b, agpm_way way, uint64_t addr, uint32_t *blk_ctr,
                   uint8_t *byte_ctrs);
int      agpm_buf_reserved(const agpm_buf *b, agpm_way way, uint64_t addr);   /* 1 if reserved */
uint32_t agpm_buf_resv_count(const agpm_buf *b);
uint32_t agpm_buf_valid_count(const agpm_buf *b, agpm_way way);
const agpm_buf_stats *agpm_buf_get_stats(const agpm_buf *b);

#ifdef __cplusplus
}
#endif
#endif
