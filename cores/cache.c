/* persim core: set-associative cache tag/data array (see cache.h).
 *
 * Layout of the caller-owned block (every part 8-byte aligned, addressed by offsets from the
 * start of the block so the state holds no pointers and can be copied with memcpy):
 *   struct cache | cache_line[n] | present bitmap u64[(n+63)/64] | hash i32[hsize] |
 *   lru_prev i32[n] | lru_next i32[n] | set_head i32[sets] | set_tail i32[sets] |
 *   counted u8[n] | data u8[n * line_bytes]
 *
 * Lookup: open-addressing hash (linear probing, backward-shift deletion) from line address to
 * line index, hsize = next power of two >= 2n, so lookups are O(1) even when fully associative.
 * Replacement: every install/touch stamps line.lru with a per-cache counter (strictly increasing,
 * so stamps of present lines are unique) and moves the line to the MRU end of its set's
 * intrusive list; the list head is therefore the least-recently-used way (O(1) victim).
 * The lowest-index non-present way is found in the present bitmap (O(ways/64)).
 * Dirty counters: counted[i] remembers how line i is currently counted (bit0 dirty, bit1 pm) and
 * every mutating call re-counts the line it changes.
 *
 * Fields owned by the core: tag, present, valid, dirty, lru (change them only through the API).
 * Callers may set pm, pb_index and ready_ps directly; a pm change is reflected in the dirty
 * counters at the next API call that mutates that line.
 *
 * Tag-only mode (cfg.tag_only) uses its own layout:
 *   struct cache | tag u64[n] | present bitmap u64[(n+63)/64] | state u8[n] | rank u8[n] (ways > 1)
 * state = present | dirty | pm | filled | counted-dirty | counted-pm bits. Lookup scans the set
 * (ways <= 256). LRU: rank[i] of a present line is its position in its set's recency order
 * (0 = MRU); the present lines of a set hold ranks 0..k-1. Install/touch/invalidate update the
 * ranks of the set exactly as the full mode's list moves do, so the LRU way is the present way
 * with the largest rank and the victim order (LRU -> MRU) is by decreasing rank. */
#include "cache.h"

#include <string.h>

struct cache {
    cache_cfg cfg;          /* as passed to cache_init */
    uint32_t  num_lines;
    uint32_t  ways;
    uint32_t  num_sets;
    uint32_t  line_bytes;
    uint32_t  hash_mask;    /* hsize - 1 */
    uint32_t  hash_shift;   /* 64 - log2(hsize) */
    uint32_t  dirty_all;
    uint32_t  dirty_pm;
    uint64_t  use_counter;
    size_t    off_lines, off_present, off_hash, off_prev, off_next;
    size_t    off_head, off_tail, off_counted, off_data;
    uint32_t  tag_only;
    size_t    off_tags, off_state, off_rank;   /* tag-only mode */
};

#define CNT_DIRTY 1u
#define CNT_PM    2u

/* tag-only state byte */
#define ST_PRESENT 0x01u
#define ST_DIRTY   0x02u
#define ST_PM      0x04u
#define ST_FILLED  0x08u
#define ST_CDIRTY  0x10u   /* counted as dirty */
#define ST_CPM     0x20u   /* counted as dirty PM */

#define CACHE_MAX_LINES_FULL    (1ull << 30)
#define CACHE_MAX_LINES_TAGONLY 0x7FFFFFFFull
#define CACHE_MAX_WAYS_TAGONLY  256u

static size_t align8(size_t x) { return (x + 7u) & ~(size_t)7u; }

typedef struct layout {
    uint32_t n, ways, sets, hsize, hbits;
    size_t off_lines, off_present, off_hash, off_prev, off_next;
    size_t off_head, off_tail, off_counted, off_data, total;
    size_t off_tags, off_state, off_rank;
} layout;

static int is_pow2(uint32_t x) { return x != 0 && (x & (x - 1u)) == 0; }

static int make_layout(const cache_cfg *cfg, layout *L)
{
    if (!cfg) return -1;
    uint32_t lb = cfg->line_bytes;
    if (!is_pow2(lb) || lb < 4u || lb > CACHE_MAX_LINE) return -1;
    if (cfg->size_bytes == 0 || cfg->size_bytes % lb != 0) return -1;
    if (cfg->tag_only > 1) return -1;
    const uint64_t n64 = cfg->size_bytes / lb;
    if (n64 > (cfg->tag_only ? CACHE_MAX_LINES_TAGONLY : CACHE_MAX_LINES_FULL)) return -1;
    if ((uint64_t)(size_t)-1 / 16u < n64) return -1;   /* 32-bit hosts: the block must fit size_t */
    uint32_t n = (uint32_t)n64;
    uint32_t ways = cfg->assoc == 0 ? n : cfg->assoc;
    if (ways > n || n % ways != 0) return -1;   /* also: size a multiple of line * assoc */
    if (cfg->tag_only) {
        if (ways > CACHE_MAX_WAYS_TAGONLY) return -1;
        memset(L, 0, sizeof *L);
        L->n = n; L->ways = ways; L->sets = n / ways;
        size_t o = align8(sizeof(struct cache));
        L->off_tags = o;     o = align8(o + (size_t)n * sizeof(uint64_t));
        L->off_present = o;  o = align8(o + (size_t)((n + 63u) / 64u) * sizeof(uint64_t));
        L->off_state = o;    o = align8(o + (size_t)n);
        L->off_rank = o;     o = align8(o + (ways > 1 ? (size_t)n : 0));
        L->total = o;
        return 0;
    }
    uint32_t hbits = 1, hsize = 2;
    while (hsize < 2u * (uint64_t)n) { hsize <<= 1; hbits++; }

    L->n = n; L->ways = ways; L->sets = n / ways; L->hsize = hsize; L->hbits = hbits;
    size_t o = align8(sizeof(struct cache));
    L->off_lines = o;    o = align8(o + (size_t)n * sizeof(cache_line));
    L->off_present = o;  o = align8(o + (size_t)((n + 63u) / 64u) * sizeof(uint64_t));
    L->off_hash = o;     o = align8(o + (size_t)hsize * sizeof(int32_t));
    L->off_prev = o;     o = align8(o + (size_t)n * sizeof(int32_t));
    L->off_next = o;     o = align8(o + (size_t)n * sizeof(int32_t));
    L->off_head = o;     o = align8(o + (size_t)L->sets * sizeof(int32_t));
    L->off_tail = o;     o = align8(o + (size_t)L->sets * sizeof(int32_t));
    L->off_counted = o;  o = align8(o + (size_t)n);
    L->off_data = o;     o = align8(o + (size_t)n * lb);
    L->total = o;
    return 0;
}

/* ---- internal accessors ---- */
static cache_line *LN(const cache *c)      { return (cache_line *)((uintptr_t)c + c->off_lines); }
static uint64_t *PRES(const cache *c)      { return (uint64_t *)((uintptr_t)c + c->off_present); }
static int32_t *HASH(const cache *c)       { return (int32_t *)((uintptr_t)c + c->off_hash); }
static int32_t *PREV(const cache *c)       { return (int32_t *)((uintptr_t)c + c->off_prev); }
static int32_t *NEXT(const cache *c)       { return (int32_t *)((uintptr_t)c + c->off_next); }
static int32_t *HEAD(const cache *c)       { return (int32_t *)((uintptr_t)c + c->off_head); }
static int32_t *TAIL(const cache *c)       { return (int32_t *)((uintptr_t)c + c->off_tail); }
static uint8_t *COUNTED(const cache *c)    { return (uint8_t *)((uintptr_t)c + c->off_counted); }
static uint8_t *DATA(const cache *c)       { return (uint8_t *)((uintptr_t)c + c->off_data); }
static uint64_t *TAGS(const cache *c)      { return (uint64_t *)((uintptr_t)c + c->off_tags); }
static uint8_t *STATE(const cache *c)      { return (uint8_t *)((uintptr_t)c + c->off_state); }
static uint8_t *RANK(const cache *c)       { return (uint8_t *)((uintptr_t)c + c->off_rank); }

static int idx_ok(const cache *c, int32_t idx) { return c && idx >= 0 && (uint32_t)idx < c->num_lines; }

static uint32_t hash_home(const cache *c, uint64_t key)
{
    return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> c->hash_shift) & c->hash_mask;
}

static void hash_insert(cache *c, int32_t idx)
{
    int32_t *h = HASH(c);
    uint32_t i = hash_home(c, LN(c)[idx].tag);
    while (h[i] >= 0) i = (i + 1u) & c->hash_mask;
    h[i] = idx;
}

static void hash_remove(cache *c, int32_t idx)
{
    int32_t *h = HASH(c);
    const cache_line *ln = LN(c);
    uint32_t i = hash_home(c, ln[idx].tag);
    while (h[i] != idx) {
        if (h[i] < 0) return;                    /* not in the table */
        i = (i + 1u) & c->hash_mask;
    }
    /* backward-shift deletion keeps probe chains intact without tombstones */
    uint32_t j = i;
    for (;;) {
        j = (j + 1u) & c->hash_mask;
        if (h[j] < 0) break;
        uint32_t k = hash_home(c, ln[h[j]].tag);
        /* entry at j may move to the hole at i if its home k is not in (i, j] (cyclically) */
        int k_in = (i <= j) ? (k > i && k <= j) : (k > i || k <= j);
        if (!k_in) { h[i] = h[j]; i = j; }
    }
    h[i] = -1;
}

static void list_unlink(cache *c, int32_t idx)
{
    int32_t *pv = PREV(c), *nx = NEXT(c);
    uint32_t s = (uint32_t)idx / c->ways;
    if (pv[idx] >= 0) nx[pv[idx]] = nx[idx]; else HEAD(c)[s] = nx[idx];
    if (nx[idx] >= 0) pv[nx[idx]] = pv[idx]; else TAIL(c)[s] = pv[idx];
    pv[idx] = nx[idx] = -1;
}

static void list_append(cache *c, int32_t idx)   /* at the MRU end */
{
    int32_t *pv = PREV(c), *nx = NEXT(c);
    uint32_t s = (uint32_t)idx / c->ways;
    int32_t t = TAIL(c)[s];
    pv[idx] = t;
    nx[idx] = -1;
    if (t >= 0) nx[t] = idx; else HEAD(c)[s] = idx;
    TAIL(c)[s] = idx;
}

static int mask_any(const uint64_t m[2]) { return (m[0] | m[1]) != 0; }

static void recount(cache *c, int32_t idx)
{
    const cache_line *l = &LN(c)[idx];
    uint8_t *cnt = COUNTED(c);
    uint8_t now = 0;
    if (l->present && mask_any(l->dirty)) now = (uint8_t)(CNT_DIRTY | (l->pm ? CNT_PM : 0u));
    uint8_t old = cnt[idx];
    if (old == now) return;
    if (old & CNT_DIRTY) { c->dirty_all--; if (old & CNT_PM) c->dirty_pm--; }
    if (now & CNT_DIRTY) { c->dirty_all++; if (now & CNT_PM) c->dirty_pm++; }
    cnt[idx] = now;
}


/* ---- tag-only mode ---- */

static void t_recount(cache *c, int32_t idx)
{
    uint8_t *st = &STATE(c)[idx];
    uint8_t now = 0;
    if ((*st & ST_PRESENT) && (*st & ST_DIRTY)) now = (uint8_t)(ST_CDIRTY | ((*st & ST_PM) ? ST_CPM : 0u));
    uint8_t old = (uint8_t)(*st & (ST_CDIRTY | ST_CPM));
    if (old == now) return;
    if (old & ST_CDIRTY) { c->dirty_all--; if (old & ST_CPM) c->dirty_pm--; }
    if (now & ST_CDIRTY) { c->dirty_all++; if (now & ST_CPM) c->dirty_pm++; }
    *st = (uint8_t)((*st & ~(ST_CDIRTY | ST_CPM)) | now);
}

/* Recency ranks of the set of idx (ways > 1): make idx MRU. `was` = idx was present. */
static void t_rank_mru(cache *c, int32_t idx, int was)
{
    if (c->ways == 1) return;
    uint8_t *rk = RANK(c), *st = STATE(c);
    uint32_t first = (uint32_t)idx / c->ways * c->ways;
    uint8_t r = rk[idx];
    if (was && r == 0) return;          /* already the MRU way: no rank changes */
    for (uint32_t i = first; i < first + c->ways; i++)
        if ((int32_t)i != idx && (st[i] & ST_PRESENT) && (!was || rk[i] < r)) rk[i]++;
    rk[idx] = 0;
}

static void t_rank_remove(cache *c, int32_t idx)
{
    if (c->ways == 1) return;
    uint8_t *rk = RANK(c), *st = STATE(c);
    uint32_t first = (uint32_t)idx / c->ways * c->ways;
    uint8_t r = rk[idx];
    for (uint32_t i = first; i < first + c->ways; i++)
        if ((int32_t)i != idx && (st[i] & ST_PRESENT) && rk[i] > r) rk[i]--;
    rk[idx] = 0;
}

static int32_t t_lookup(const cache *c, uint64_t line_addr)
{
    const uint64_t *tg = TAGS(c);
    const uint8_t *st = STATE(c);
    uint32_t first = (uint32_t)(line_addr % c->num_sets) * c->ways;
    for (uint32_t i = first; i < first + c->ways; i++)
        if ((st[i] & ST_PRESENT) && tg[i] == line_addr) return (int32_t)i;
    return -1;
}

static void t_invalidate(cache *c, int32_t idx)
{
    uint8_t *st = &STATE(c)[idx];
    if (*st & ST_PRESENT) {
        t_rank_remove(c, idx);
        PRES(c)[(uint32_t)idx >> 6] &= ~(1ull << ((uint32_t)idx & 63u));
    }
    TAGS(c)[idx] = 0;
    *st &= (uint8_t)(ST_CDIRTY | ST_CPM);   /* keep the counted bits for t_recount */
    t_recount(c, idx);
}

/* ---- public API ---- */

size_t cache_bytes(const cache_cfg *cfg)
{
    layout L;
    return make_layout(cfg, &L) == 0 ? L.total : 0;
}

static int init_common(void *mem, const cache_cfg *cfg, int zeroed)
{
    layout L;
    if (!mem || ((uintptr_t)mem & 7u) != 0) return -1;
    if (make_layout(cfg, &L) != 0) return -1;
    if (!zeroed) memset(mem, 0, L.total);
    else memset(mem, 0, sizeof(struct cache));
    cache *c = (cache *)mem;
    c->cfg = *cfg;
    c->num_lines = L.n;
    c->ways = L.ways;
    c->num_sets = L.sets;
    c->line_bytes = cfg->line_bytes;
    c->hash_mask = L.hsize - 1u;
    c->hash_shift = 64u - L.hbits;
    c->off_lines = L.off_lines;   c->off_present = L.off_present; c->off_hash = L.off_hash;
    c->off_prev = L.off_prev;     c->off_next = L.off_next;
    c->off_head = L.off_head;     c->off_tail = L.off_tail;
    c->off_counted = L.off_counted; c->off_data = L.off_data;
    if (cfg->tag_only) {
        c->tag_only = 1;
        c->off_tags = L.off_tags; c->off_state = L.off_state; c->off_rank = L.off_rank;
        return 0;   /* all zero: no line present */
    }
    cache_line *ln = LN(c);
    for (uint32_t i = 0; i < L.n; i++) ln[i].pb_index = CACHE_NO_PB;
    memset(HASH(c), 0xFF, (size_t)L.hsize * sizeof(int32_t));
    memset(PREV(c), 0xFF, (size_t)L.n * sizeof(int32_t));
    memset(NEXT(c), 0xFF, (size_t)L.n * sizeof(int32_t));
    memset(HEAD(c), 0xFF, (size_t)L.sets * sizeof(int32_t));
    memset(TAIL(c), 0xFF, (size_t)L.sets * sizeof(int32_t));
    return 0;
}

int cache_init(void *mem, const cache_cfg *cfg) { return init_common(mem, cfg, 0); }

int cache_init_zeroed(void *mem, const cache_cfg *cfg) { return init_common(mem, cfg, 1); }

const cache_cfg *cache_config(const cache *c) { return c ? &c->cfg : NULL; }
uint32_t cache_num_lines(const cache *c) { return c ? c->num_lines : 0; }

int32_t cache_lookup(const cache *c, uint64_t line_addr)
{
    if (!c) return -1;
    if (c->tag_only) return t_lookup(c, line_addr);
    const int32_t *h = HASH(c);
    const cache_line *ln = LN(c);
    uint32_t i = hash_home(c, line_addr);
    while (h[i] >= 0) {
        if (ln[h[i]].tag == line_addr) return h[i];
        i = (i + 1u) & c->hash_mask;
    }
    return -1;
}

/* Lowest-index non-present way in [first, first+ways) not skipped; -1 if none. */
static int32_t first_free(const cache *c, uint32_t first, int (*skip)(void *, uint32_t), void *ctx)
{
    const uint64_t *p = PRES(c);
    uint32_t end = first + c->ways;
    uint32_t i = first;
    while (i < end) {
        uint32_t w = i >> 6, b = i & 63u;
        uint64_t freebits = ~p[w] >> b;          /* bit 0 = line i */
        uint32_t span = 64u - b;
        if (span > end - i) {
            span = end - i;
            freebits &= (span == 64u) ? ~0ull : ((1ull << span) - 1u);
        }
        while (freebits) {
            uint32_t tz = (uint32_t)__builtin_ctzll(freebits);
            uint32_t cand = i + tz;
            if (!skip || !skip(ctx, cand)) return (int32_t)cand;
            freebits &= freebits - 1u;
        }
        i += span;
    }
    return -1;
}

int32_t cache_victim_filtered(const cache *c, uint64_t line_addr,
                              int (*skip)(void *ctx, uint32_t idx), void *ctx)
{
    if (!c) return -1;
    uint32_t set = (uint32_t)(line_addr % c->num_sets);
    uint32_t first = set * c->ways;
    int32_t v = first_free(c, first, skip, ctx);
    if (v >= 0) return v;
    if (c->tag_only) {
        /* the k present ways hold ranks 0..k-1; LRU -> MRU is rank k-1 down to 0 (free ways
         * get here only when skipped) */
        const uint8_t *st = STATE(c);
        if (c->ways == 1)
            return (st[first] & ST_PRESENT) && (!skip || !skip(ctx, first)) ? (int32_t)first : -1;
        const uint8_t *rk = RANK(c);
        for (int32_t r = (int32_t)c->ways - 1; r >= 0; r--)
            for (uint32_t i = first; i < first + c->ways; i++)
                if ((st[i] & ST_PRESENT) && rk[i] == (uint8_t)r) {
                    if (!skip || !skip(ctx, i)) return (int32_t)i;
                    break;
                }
        return -1;
    }
    const int32_t *nx = NEXT(c);
    for (int32_t i = HEAD(c)[set]; i >= 0; i = nx[i])      /* LRU -> MRU */
        if (!skip || !skip(ctx, (uint32_t)i)) return i;
    return -1;
}

int32_t cache_victim(const cache *c, uint64_t line_addr)
{
    return cache_victim_filtered(c, line_addr, NULL, NULL);
}

uint32_t cache_set_ways_lru(const cache *c, uint64_t line_addr, int32_t *out, uint32_t max)
{
    if (!c || !out || max == 0) return 0;
    uint32_t set = (uint32_t)(line_addr % c->num_sets);
    uint32_t first = set * c->ways;
    uint32_t n = c->ways < max ? c->ways : max;
    uint32_t got = 0, nfree = 0;
    const uint64_t *p = PRES(c);
    for (uint32_t i = first; i < first + c->ways; i++) {      /* free ways, index order */
        if ((p[i >> 6] >> (i & 63u)) & 1u) continue;
        if (got < n) out[got++] = (int32_t)i;
        nfree++;
    }
    if (got == n) return n;
    if (c->tag_only) {
        /* present ways hold ranks 0..k-1 (0 = MRU): rank r goes to position nfree + k-1-r */
        const uint8_t *st = STATE(c);
        uint32_t k = c->ways - nfree;
        for (uint32_t i = first; i < first + c->ways; i++) {
            if (!(st[i] & ST_PRESENT)) continue;
            uint32_t r = c->ways > 1 ? RANK(c)[i] : 0u;
            uint32_t pos = nfree + (k - 1u - r);
            if (pos < n) out[pos] = (int32_t)i;
        }
        return n;
    }
    const int32_t *nx = NEXT(c);
    for (int32_t i = HEAD(c)[set]; i >= 0 && got < n; i = nx[i])   /* LRU -> MRU */
        out[got++] = i;
    return got;
}

void cache_invalidate(cache *c, int32_t idx)
{
    if (!idx_ok(c, idx)) return;
    if (c->tag_only) { t_invalidate(c, idx); return; }
    cache_line *l = &LN(c)[idx];
    if (l->present) {
        hash_remove(c, idx);
        list_unlink(c, idx);
        PRES(c)[(uint32_t)idx >> 6] &= ~(1ull << ((uint32_t)idx & 63u));
    }
    memset(l, 0, sizeof *l);
    l->pb_index = CACHE_NO_PB;
    memset(DATA(c) + (size_t)idx * c->line_bytes, 0, c->line_bytes);
    recount(c, idx);
}

uint32_t cache_invalidate_clean(cache *c, int pm_only)
{
    if (!c) return 0;
    uint32_t n = 0;
    if (c->tag_only) {                                 /* no persist-unit index in tag-only lines */
        for (uint32_t i = 0; i < c->num_lines; i++) {
            if (!cache_line_present(c, (int32_t)i) || (pm_only && !cache_line_pm(c, (int32_t)i)) ||
                cache_is_dirty(c, (int32_t)i))
                continue;
            cache_invalidate(c, (int32_t)i);
            n++;
        }
        return n;
    }
    const uint64_t *pres = PRES(c);
    for (uint32_t w = 0; w * 64u < c->num_lines; w++)
        for (uint64_t bits = pres[w]; bits; bits &= bits - 1u) {   /* present lines, by index */
            int32_t idx = (int32_t)(w * 64u + (uint32_t)__builtin_ctzll(bits));
            const cache_line *l = &LN(c)[idx];
            if ((pm_only && !l->pm) || mask_any(l->dirty) || l->pb_index != CACHE_NO_PB) continue;
            cache_invalidate(c, idx);
            n++;
        }
    return n;
}

void cache_install(cache *c, int32_t idx, uint64_t line_addr, int pm)
{
    if (!idx_ok(c, idx)) return;
    if (c->tag_only) {
        t_invalidate(c, idx);
        int32_t dup = t_lookup(c, line_addr);
        if (dup >= 0) t_invalidate(c, dup);
        TAGS(c)[idx] = line_addr;
        uint8_t *st = &STATE(c)[idx];
        *st = (uint8_t)((*st & (ST_CDIRTY | ST_CPM)) | ST_PRESENT | (pm ? ST_PM : 0u));
        ++c->use_counter;
        t_rank_mru(c, idx, 0);
        PRES(c)[(uint32_t)idx >> 6] |= 1ull << ((uint32_t)idx & 63u);
        t_recount(c, idx);
        return;
    }
    cache_invalidate(c, idx);                       /* no-op beyond clearing if already free */
    int32_t dup = cache_lookup(c, line_addr);       /* keep the tag map one-to-one */
    if (dup >= 0) cache_invalidate(c, dup);
    cache_line *l = &LN(c)[idx];
    l->tag = line_addr;
    l->present = 1;
    l->pm = pm ? 1 : 0;
    l->pb_index = CACHE_NO_PB;
    l->ready_ps = 0;
    l->lru = ++c->use_counter;
    hash_insert(c, idx);
    list_append(c, idx);
    PRES(c)[(uint32_t)idx >> 6] |= 1ull << ((uint32_t)idx & 63u);
    recount(c, idx);
}

void cache_touch(cache *c, int32_t idx)
{
    if (!idx_ok(c, idx)) return;
    if (c->tag_only) {
        if (!(STATE(c)[idx] & ST_PRESENT)) return;
        ++c->use_counter;
        t_rank_mru(c, idx, 1);
        return;
    }
    cache_line *l = &LN(c)[idx];
    if (!l->present) return;
    l->lru = ++c->use_counter;
    list_unlink(c, idx);
    list_append(c, idx);
}

cache_line *cache_line_at(cache *c, int32_t idx)
{
    return idx_ok(c, idx) && !c->tag_only ? &LN(c)[idx] : NULL;
}

const cache_line *cache_line_at_const(const cache *c, int32_t idx)
{
    return idx_ok(c, idx) && !c->tag_only ? &LN(c)[idx] : NULL;
}

uint8_t *cache_data(cache *c, int32_t idx)
{
    return idx_ok(c, idx) && !c->tag_only ? DATA(c) + (size_t)idx * c->line_bytes : NULL;
}

const uint8_t *cache_data_const(const cache *c, int32_t idx)
{
    return idx_ok(c, idx) && !c->tag_only ? DATA(c) + (size_t)idx * c->line_bytes : NULL;
}

int cache_tag_only(const cache *c) { return c && c->tag_only; }

int cache_line_present(const cache *c, int32_t idx)
{
    if (!idx_ok(c, idx)) return 0;
    return c->tag_only ? (STATE(c)[idx] & ST_PRESENT) != 0 : LN(c)[idx].present != 0;
}

uint64_t cache_line_tag(const cache *c, int32_t idx)
{
    if (!idx_ok(c, idx)) return 0;
    return c->tag_only ? TAGS(c)[idx] : LN(c)[idx].tag;
}

int cache_line_dirty(const cache *c, int32_t idx) { return cache_is_dirty(c, idx); }

int cache_line_pm(const cache *c, int32_t idx)
{
    if (!idx_ok(c, idx)) return 0;
    return c->tag_only ? (STATE(c)[idx] & ST_PM) != 0 : LN(c)[idx].pm != 0;
}

/* Clamps [off, off+len) to the line; returns the clamped length. */
static uint32_t clamp_range(const cache *c, uint32_t off, uint32_t len)
{
    if (off >= c->line_bytes) return 0;
    return len > c->line_bytes - off ? c->line_bytes - off : len;
}

void cache_write(cache *c, int32_t idx, uint32_t off, const uint8_t *src, uint32_t len)
{
    if (!idx_ok(c, idx)) return;
    if (c->tag_only) {
        if (clamp_range(c, off, len) == 0) return;
        STATE(c)[idx] |= ST_DIRTY;
        t_recount(c, idx);
        return;
    }
    if (!src) return;
    len = clamp_range(c, off, len);
    if (len == 0) return;
    cache_line *l = &LN(c)[idx];
    memcpy(DATA(c) + (size_t)idx * c->line_bytes + off, src, len);
    uint64_t m[2];
    cache_mask_range(m, off, len);
    l->valid[0] |= m[0]; l->valid[1] |= m[1];
    l->dirty[0] |= m[0]; l->dirty[1] |= m[1];
    recount(c, idx);
}

void cache_fill(cache *c, int32_t idx, const uint8_t *line_data)
{
    if (!idx_ok(c, idx)) return;
    if (c->tag_only) { STATE(c)[idx] |= ST_FILLED; t_recount(c, idx); return; }
    cache_line *l = &LN(c)[idx];
    if (line_data) {
        /* the clean bytes, 64 at a time: runs of clear dirty bits */
        uint8_t *d = DATA(c) + (size_t)idx * c->line_bytes;
        for (uint32_t base = 0; base < c->line_bytes; base += 64u) {
            uint32_t n = c->line_bytes - base < 64u ? c->line_bytes - base : 64u;
            uint64_t clean = ~l->dirty[base >> 6];
            if (n < 64u) clean &= (1ull << n) - 1u;
            while (clean) {
                uint32_t s = (uint32_t)__builtin_ctzll(clean);
                uint64_t rest = ~(clean >> s);
                uint32_t len = rest ? (uint32_t)__builtin_ctzll(rest) : 64u - s;
                memcpy(d + base + s, line_data + base + s, len);
                if (s + len >= 64u) break;
                clean &= ~(((1ull << len) - 1u) << s);
            }
        }
    }
    cache_mask_range(l->valid, 0, c->line_bytes);
    recount(c, idx);
}

int cache_range_valid(const cache *c, int32_t idx, uint32_t off, uint32_t len)
{
    if (!idx_ok(c, idx)) return 0;
    if (len == 0) return 1;
    if (off >= c->line_bytes || len > c->line_bytes - off) return 0;
    if (c->tag_only) return (STATE(c)[idx] & (ST_PRESENT | ST_FILLED)) == (ST_PRESENT | ST_FILLED);
    const cache_line *l = &LN(c)[idx];
    uint64_t m[2];
    cache_mask_range(m, off, len);
    return (l->valid[0] & m[0]) == m[0] && (l->valid[1] & m[1]) == m[1];
}

int cache_is_dirty(const cache *c, int32_t idx)
{
    if (!idx_ok(c, idx)) return 0;
    if (c->tag_only) return (STATE(c)[idx] & ST_DIRTY) != 0;
    return mask_any(LN(c)[idx].dirty);
}

void cache_clean(cache *c, int32_t idx)
{
    if (!idx_ok(c, idx)) return;
    if (c->tag_only) { STATE(c)[idx] &= (uint8_t)~ST_DIRTY; t_recount(c, idx); return; }
    cache_line *l = &LN(c)[idx];
    l->dirty[0] = l->dirty[1] = 0;
    recount(c, idx);
}

uint32_t cache_count_dirty(const cache *c, int pm)
{
    if (!c) return 0;
    if (pm < 0) return c->dirty_all;
    return pm ? c->dirty_pm : c->dirty_all - c->dirty_pm;
}

uint32_t cache_collect_dirty(const cache *c, int pm, int32_t *out, uint32_t max)
{
    if (!c || !out || max == 0) return 0;
    uint32_t want = cache_count_dirty(c, pm);
    uint32_t got = 0;
    if (c->tag_only) {
        const uint8_t *st = STATE(c);
        for (uint32_t i = 0; i < c->num_lines && got < max && got < want; i++) {
            if (!(st[i] & ST_CDIRTY)) continue;
            if (pm >= 0 && ((st[i] & ST_CPM) != 0) != (pm != 0)) continue;
            out[got++] = (int32_t)i;
        }
        return got;
    }
    const uint8_t *cnt = COUNTED(c);
    for (uint32_t i = 0; i < c->num_lines && got < max && got < want; i++) {
        uint8_t k = cnt[i];
        if (!(k & CNT_DIRTY)) continue;
        if (pm >= 0 && ((k & CNT_PM) != 0) != (pm != 0)) continue;
        out[got++] = (int32_t)i;
    }
    return got;
}

void cache_mask_range(uint64_t mask[2], uint32_t off, uint32_t len)
{
    mask[0] = mask[1] = 0;
    if (off >= CACHE_MAX_LINE) return;
    if (len > CACHE_MAX_LINE - off) len = CACHE_MAX_LINE - off;
    for (unsigned w = 0; w < 2; w++) {
        uint32_t lo = w * 64u, hi = lo + 64u;             /* word covers bytes [lo, hi) */
        uint32_t a = off > lo ? off : lo;
        uint32_t b = off + len < hi ? off + len : hi;
        if (a >= b) continue;
        uint32_t n = b - a, s = a - lo;
        uint64_t bits = n == 64u ? ~0ull : ((1ull << n) - 1u);
        mask[w] = bits << s;
    }
}

uint32_t cache_mask_popcount(const uint64_t mask[2])
{
    return (uint32_t)(__builtin_popcountll(mask[0]) + __builtin_popcountll(mask[1]));
}
