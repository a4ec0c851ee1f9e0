/* persim core: set-associative cache tag/data array with per-byte valid and dirty masks,
 * a PM bit and a persist-buffer index per line (SBRP section 6, "Hardware modifications").
 *
 * The core decides hits, victims and line state; it keeps no time (callers stamp
 * `ready_ps` so a line that is still being filled can be waited on, MSHR-style).
 * Caller-owned state: allocate cache_bytes(cfg) bytes (8-byte aligned) and call cache_init.
 * Lines are at most 128 bytes (masks are two 64-bit words). No allocation after init.
 *
 * Sizes are 64-bit; line indices are int32_t, so the number of lines (size_bytes / line_bytes)
 * is bounded: at most 2^30 lines in full mode (its lookup hash has 2 slots per line) and at most
 * 2^31 - 1 lines in tag-only mode. Larger (or otherwise invalid) configs are rejected:
 * cache_bytes() returns 0 and cache_init() -1.
 *
 * Tag-only mode (cfg.tag_only = 1), for large caches modelled without data (e.g. a gigabyte
 * DRAM cache in front of PM): no data array and no cache_line records. Per line the core keeps
 * the tag (8 B), one state byte (present, dirty, pm, filled) and, only when assoc > 1, one LRU
 * rank byte, plus one present bit: about 9.1 B per line direct-mapped and 10.1 B set-associative
 * (a 1 GiB direct-mapped cache of 64 B lines: ~146 MiB). assoc must be 1..256 (no fully
 * associative tag-only cache beyond 256 lines); lookups scan the set. Hits, victims (same rule:
 * lowest-index free way, else LRU), dirty state and the dirty counters are exactly those of full
 * mode on the same sequence of calls. What is not kept, and how the API behaves:
 *   - cache_data / cache_data_const return NULL; cache_line_at / cache_line_at_const return NULL
 *     (use the cache_line_* accessors below, which work in both modes);
 *   - no per-byte masks: cache_write (src may be NULL) marks the whole line dirty;
 *     cache_fill (line_data ignored) marks it filled; cache_range_valid is 1 iff the line is
 *     present and filled (a written but unfilled line counts as not valid, even for the written
 *     bytes: tag-only callers fill on allocate);
 *   - no pb_index and no ready_ps (callers that need fill timing keep it themselves);
 *   - cache_install's idx must be a way of line_addr's set (as cache_victim returns it): lookups
 *     only scan that set (full mode finds a line installed anywhere through its hash). */
#ifndef PERSIM_CACHE_H
#define PERSIM_CACHE_H
#include <stddef.h>
#include <stdint.h>
#include "persim_time.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CACHE_MAX_LINE 128u
#define CACHE_NO_PB    0xFFFFu       /* line has no persist-buffer entry */

typedef struct cache_cfg {
    uint64_t size_bytes;   /* total data capacity (lines bounded, see above) */
    uint32_t line_bytes;   /* power of two, 4..128 */
    uint32_t assoc;        /* ways per set; 0 = fully associative (tag-only: 1..256) */
    uint32_t tag_only;     /* 1 = keep tags and line state only (see above), 0 = full */
} cache_cfg;

typedef struct cache_line {
    uint64_t tag;          /* line address (addr / line_bytes) */
    uint64_t valid[2];     /* per-byte valid mask (bit i = byte i) */
    uint64_t dirty[2];     /* per-byte dirty mask */
    uint64_t lru;          /* last-use stamp (larger = more recent) */
    persim_ps ready_ps;    /* data arrives at this time (fill in flight before it) */
    uint16_t pb_index;     /* SBRP PB entry holding this line, CACHE_NO_PB if none */
    uint8_t  present;      /* tag valid */
    uint8_t  pm;           /* line maps persistent memory */
} cache_line;

typedef struct cache cache;   /* opaque; lives in caller memory */

size_t   cache_bytes(const cache_cfg *cfg);
/* Returns 0 on success, -1 if cfg is invalid (sizes not powers of two, line > 128, ...). */
int      cache_init(void *mem, const cache_cfg *cfg);
/* As cache_init, for a block the caller has already zeroed (all cache_bytes(cfg) bytes, e.g. from
 * calloc): the core does not write the tag-only arrays again, so pages of a large tag-only cache
 * the OS maps lazily (calloc of a large block) are only touched when a set is first used. Full
 * mode still initialises its lists (they are not all zero). Same result as cache_init. */
int      cache_init_zeroed(void *mem, const cache_cfg *cfg);
const cache_cfg *cache_config(const cache *c);
uint32_t cache_num_lines(const cache *c);

/* Index of the line holding `line_addr` (an address divided by line_bytes), or -1. */
int32_t  cache_lookup(const cache *c, uint64_t line_addr);
/* Way to use for `line_addr` on a miss: a non-present way of its set if any, else the
 * least-recently-used way. The line is not changed; the caller evicts it if present. */
int32_t  cache_victim(const cache *c, uint64_t line_addr);
/* Victim choice that skips lines for which skip(ctx, idx) returns non-zero (for example
 * lines pinned by ordering); returns -1 if every way of the set is skipped. */
int32_t  cache_victim_filtered(const cache *c, uint64_t line_addr,
                               int (*skip)(void *ctx, uint32_t idx), void *ctx);
/* The ways (line indices) of line_addr's set in victim order, oldest first: the non-present ways
 * in index order, then the present ways from least to most recently used, so out[0] is what
 * cache_victim returns (lowest-index free way, else LRU). Writes at most max indices and returns
 * how many it wrote (min(ways, max)). Both modes. Used by victim policies that scan the set
 * (e.g. LightWSP buffer snooping, cores/fe_buf.h). */
uint32_t cache_set_ways_lru(const cache *c, uint64_t line_addr, int32_t *out, uint32_t max);
/* Installs `line_addr` in way `idx` (which must be free or just evicted): present, no valid
 * or dirty bytes, pm flag as given, no PB entry, MRU. */
void     cache_install(cache *c, int32_t idx, uint64_t line_addr, int pm);
void     cache_touch(cache *c, int32_t idx);              /* make MRU */
void     cache_invalidate(cache *c, int32_t idx);         /* drop tag and data */
/* Invalidates every present line that is clean and not held by a persist unit (pb_index ==
 * CACHE_NO_PB), only PM lines if pm_only; by line index. Returns the number invalidated. */
uint32_t cache_invalidate_clean(cache *c, int pm_only);

/* Full mode only (NULL in tag-only mode or for a bad index). */
cache_line *cache_line_at(cache *c, int32_t idx);
const cache_line *cache_line_at_const(const cache *c, int32_t idx);
uint8_t *cache_data(cache *c, int32_t idx);               /* line_bytes of data */
const uint8_t *cache_data_const(const cache *c, int32_t idx);

/* Line state accessors, both modes (0 for a bad index; the tag of a non-present line is 0). */
int      cache_tag_only(const cache *c);
int      cache_line_present(const cache *c, int32_t idx);
uint64_t cache_line_tag(const cache *c, int32_t idx);
int      cache_line_dirty(const cache *c, int32_t idx);  /* same as cache_is_dirty */
int      cache_line_pm(const cache *c, int32_t idx);

/* Byte-range helpers; [off, off+len) must lie within one line (tag-only: see above). */
void     cache_write(cache *c, int32_t idx, uint32_t off, const uint8_t *src, uint32_t len); /* sets valid+dirty */
void     cache_fill(cache *c, int32_t idx, const uint8_t *line_data);  /* fills non-dirty bytes, all valid */
int      cache_range_valid(const cache *c, int32_t idx, uint32_t off, uint32_t len);
int      cache_is_dirty(const cache *c, int32_t idx);
void     cache_clean(cache *c, int32_t idx);              /* clear dirty mask (after write-back) */

/* Counts of lines currently present / dirty / dirty-and-pm (kept incrementally). */
uint32_t cache_count_dirty(const cache *c, int pm);       /* pm: 1 = PM lines, 0 = volatile, -1 = all */

/* Iterate: fills out[] with indices of dirty lines matching pm (as above), returns count
 * (at most max). Order is by line index (deterministic). */
uint32_t cache_collect_dirty(const cache *c, int pm, int32_t *out, uint32_t max);

/* Mask helpers usable by callers (bit i of the 128-bit mask = byte i). */
void     cache_mask_range(uint64_t mask[2], uint32_t off, uint32_t len);
uint32_t cache_mask_popcount(const uint64_t mask[2]);

#ifdef __cplusplus
}
#endif
#endif
