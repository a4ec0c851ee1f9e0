/* persim core: one AGPM buffer (see agpm_buf.h). */
#include "agpm_buf.h"
#include <string.h>

/* An entry: this header, then block_bytes byte counters; `stride` bytes in all. */
typedef struct ent {
    uint64_t block;
    uint64_t tick;     /* LRU stamp (resident) / insertion order (reserved) */
    uint32_t blk;
    uint8_t  valid, cls, path, mark;
} ent;

/* The reservation buffer is indexed (the same behaviour as scanning its entries, without the
 * scan): a hash table from (way class, block) to slot (linear probing, slot + 1, 0 = empty;
 * a (class, block) is at most once in the buffer: resident or reserved, never both), the valid
 * slots in insertion order (= tick order: the head is the oldest), and a bitmap of free slots
 * with a summary word per 64 words (the lowest free slot first). All offsets are in bytes from
 * data[], so the state stays position-independent. */
#define RX_NONE UINT32_MAX

struct agpm_buf {
    agpm_buf_cfg   cfg;
    agpm_buf_stats stats;
    uint32_t sets, half, stride, blk_max;
    uint8_t  ctr_max;
    uint64_t tick;
    uint32_t resv_count;
    uint32_t rx_mask;          /* hash slots - 1 (a power of two >= 2 * resv_entries) */
    uint32_t lst_head, lst_tail;
    size_t   off_hash, off_prev, off_next, off_free, off_sum;   /* byte offsets from data[] */
    uint64_t data[];   /* sets*ways entries, resv_entries entries, one scratch entry, then the index */
};

static int cfg_ok(const agpm_buf_cfg *c)
{
    if (!c) return 0;
    if (c->ways < 2 || c->ways > 64 || (c->ways & 1)) return 0;
    if (c->entries < c->ways || c->entries > (1u << 20) || c->entries % c->ways) return 0;
    if (c->block_bytes < 4 || c->block_bytes > AGPM_MAX_BLOCK ||
        (c->block_bytes & (c->block_bytes - 1)))
        return 0;
    if (c->byte_ctr_bits < 1 || c->byte_ctr_bits > 8) return 0;
    if (c->blk_ctr_bits < 1 || c->blk_ctr_bits > 32) return 0;
    if (c->resv_entries > (1u << 20)) return 0;
    return 1;
}

static uint32_t stride_of(const agpm_buf_cfg *c)
{
    return (uint32_t)((sizeof(ent) + c->block_bytes + 7) & ~(size_t)7);
}

typedef struct layout {
    uint32_t hash_slots;
    size_t off_hash, off_prev, off_next, off_free, off_sum, end;
} layout;

static size_t round8(size_t n) { return (n + 7u) & ~(size_t)7u; }

static layout layout_of(const agpm_buf_cfg *c)
{
    layout L;
    uint32_t r = c->resv_entries, words = (r + 63u) / 64u;
    L.hash_slots = 2;
    while (L.hash_slots < 2u * r) L.hash_slots *= 2u;
    L.off_hash = ((size_t)c->entries + r + 1) * stride_of(c);
    L.off_prev = L.off_hash + round8((size_t)L.hash_slots * sizeof(uint32_t));
    L.off_next = L.off_prev + round8((size_t)r * sizeof(uint32_t));
    L.off_free = L.off_next + round8((size_t)r * sizeof(uint32_t));
    L.off_sum = L.off_free + (size_t)words * sizeof(uint64_t);
    L.end = L.off_sum + (size_t)((words + 63u) / 64u) * sizeof(uint64_t);
    return L;
}

size_t agpm_buf_bytes(const agpm_buf_cfg *cfg)
{
    if (!cfg_ok(cfg)) return 0;
    return sizeof(agpm_buf) + layout_of(cfg).end;
}

static void rx_clear(agpm_buf *b);

int agpm_buf_init(void *mem, const agpm_buf_cfg *cfg)
{
    if (!mem || !cfg_ok(cfg)) return -1;
    agpm_buf *b = (agpm_buf *)mem;
    memset(b, 0, agpm_buf_bytes(cfg));
    b->cfg = *cfg;
    b->sets = cfg->entries / cfg->ways;
    b->half = cfg->ways / 2;
    b->stride = stride_of(cfg);
    b->ctr_max = (uint8_t)((1u << cfg->byte_ctr_bits) - 1);
    b->blk_max = cfg->blk_ctr_bits == 32 ? UINT32_MAX : (1u << cfg->blk_ctr_bits) - 1;
    layout L = layout_of(cfg);
    b->rx_mask = L.hash_slots - 1u;
    b->off_hash = L.off_hash;
    b->off_prev = L.off_prev;
    b->off_next = L.off_next;
    b->off_free = L.off_free;
    b->off_sum = L.off_sum;
    rx_clear(b);
    return 0;
}

const agpm_buf_cfg *agpm_buf_config(const agpm_buf *b) { return &b->cfg; }

/* ---- layout helpers ---- */
static ent *slot(const agpm_buf *b, size_t i)
{
    return (ent *)((uint8_t *)b->data + i * b->stride);
}
static uint8_t *ctrs(ent *e) { return (uint8_t *)(e + 1); }
static ent *way_ent(const agpm_buf *b, uint32_t set, uint32_t way)
{
    return slot(b, (size_t)set * b->cfg.ways + way);
}
static ent *resv_ent(const agpm_buf *b, uint32_t i) { return slot(b, (size_t)b->cfg.entries + i); }
static ent *scratch(const agpm_buf *b) { return slot(b, (size_t)b->cfg.entries + b->cfg.resv_entries); }
static uint32_t first_way(const agpm_buf *b, int cls) { return cls == AGPM_WAY_LOG ? 0 : b->half; }
static void copy_ent(const agpm_buf *b, ent *dst, const ent *src) { memcpy(dst, src, b->stride); }
static void clear_ent(const agpm_buf *b, ent *e) { memset(e, 0, b->stride); }

static int range_ok(const agpm_buf *b, uint64_t addr, uint32_t len)
{
    uint32_t off = (uint32_t)(addr & (b->cfg.block_bytes - 1));
    return len >= 1 && len <= b->cfg.block_bytes - off;
}

static ent *find(const agpm_buf *b, int cls, uint64_t block)
{
    uint32_t set = (uint32_t)(block % b->sets);
    for (uint32_t w = first_way(b, cls); w < first_way(b, cls) + b->half; w++) {
        ent *e = way_ent(b, set, w);
        if (e->valid && e->block == block) return e;
    }
    return NULL;
}

/* ---- reservation buffer index ---- */
static uint32_t *rx_hash(const agpm_buf *b) { return (uint32_t *)((uint8_t *)b->data + b->off_hash); }
static uint32_t *rx_prev(const agpm_buf *b) { return (uint32_t *)((uint8_t *)b->data + b->off_prev); }
static uint32_t *rx_next(const agpm_buf *b) { return (uint32_t *)((uint8_t *)b->data + b->off_next); }
static uint64_t *rx_free(const agpm_buf *b) { return (uint64_t *)((uint8_t *)b->data + b->off_free); }
static uint64_t *rx_sum(const agpm_buf *b) { return (uint64_t *)((uint8_t *)b->data + b->off_sum); }

static uint32_t rx_home(const agpm_buf *b, int cls, uint64_t block)
{
    uint64_t h = (block * 2u + (uint64_t)cls) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 31;
    return (uint32_t)h & b->rx_mask;
}

/* Everything free, nothing indexed. */
static void rx_clear(agpm_buf *b)
{
    uint32_t r = b->cfg.resv_entries, words = (r + 63u) / 64u;
    memset(rx_hash(b), 0, ((size_t)b->rx_mask + 1u) * sizeof(uint32_t));
    uint64_t *fr = rx_free(b), *sum = rx_sum(b);
    for (uint32_t w = 0; w < words; w++)
        fr[w] = (r - w * 64u >= 64u) ? ~0ull : ((1ull << (r - w * 64u)) - 1u);
    memset(sum, 0, (size_t)((words + 63u) / 64u) * sizeof(uint64_t));
    for (uint32_t w = 0; w < words; w++) sum[w / 64u] |= 1ull << (w % 64u);
    b->lst_head = b->lst_tail = RX_NONE;
}

static void free_set(agpm_buf *b, uint32_t i, int is_free)
{
    uint64_t *fr = rx_free(b), *sum = rx_sum(b);
    uint32_t w = i / 64u;
    if (is_free) fr[w] |= 1ull << (i % 64u);
    else fr[w] &= ~(1ull << (i % 64u));
    if (fr[w]) sum[w / 64u] |= 1ull << (w % 64u);
    else sum[w / 64u] &= ~(1ull << (w % 64u));
}

/* The lowest free slot, or RX_NONE. */
static uint32_t free_lowest(const agpm_buf *b)
{
    const uint64_t *fr = rx_free(b), *sum = rx_sum(b);
    uint32_t words = (b->cfg.resv_entries + 63u) / 64u, sw = (words + 63u) / 64u;
    for (uint32_t s = 0; s < sw; s++)
        if (sum[s]) {
            uint32_t w = s * 64u + (uint32_t)__builtin_ctzll(sum[s]);
            return w * 64u + (uint32_t)__builtin_ctzll(fr[w]);
        }
    return RX_NONE;
}

static void rx_insert(agpm_buf *b, uint32_t i)
{
    const ent *r = resv_ent(b, i);
    uint32_t *h = rx_hash(b);
    uint32_t k = rx_home(b, r->cls, r->block);
    while (h[k]) k = (k + 1u) & b->rx_mask;
    h[k] = i + 1u;
    uint32_t *pv = rx_prev(b), *nx = rx_next(b);   /* append: the newest */
    pv[i] = b->lst_tail;
    nx[i] = RX_NONE;
    if (b->lst_tail != RX_NONE) nx[b->lst_tail] = i;
    else b->lst_head = i;
    b->lst_tail = i;
    free_set(b, i, 0);
}

static void rx_erase(agpm_buf *b, uint32_t i)
{
    const ent *r = resv_ent(b, i);
    uint32_t *h = rx_hash(b);
    uint32_t k = rx_home(b, r->cls, r->block);
    while (h[k] != i + 1u) k = (k + 1u) & b->rx_mask;
    /* backward-shift deletion */
    uint32_t j = k;
    for (;;) {
        h[k] = 0;
        for (;;) {
            j = (j + 1u) & b->rx_mask;
            if (!h[j]) goto unlinked;
            const ent *o = resv_ent(b, h[j] - 1u);
            uint32_t home = rx_home(b, o->cls, o->block);
            /* h[j] may move to k if its home is not in (k, j] (cyclically) */
            if (k <= j ? (home <= k || home > j) : (home <= k && home > j)) break;
        }
        h[k] = h[j];
        k = j;
    }
unlinked:;
    uint32_t *pv = rx_prev(b), *nx = rx_next(b);
    if (pv[i] != RX_NONE) nx[pv[i]] = nx[i];
    else b->lst_head = nx[i];
    if (nx[i] != RX_NONE) pv[nx[i]] = pv[i];
    else b->lst_tail = pv[i];
    free_set(b, i, 1);
}

static ent *resv_find(const agpm_buf *b, int cls, uint64_t block)
{
    if (b->cfg.resv_entries == 0) return NULL;
    const uint32_t *h = rx_hash(b);
    for (uint32_t k = rx_home(b, cls, block); h[k]; k = (k + 1u) & b->rx_mask) {
        ent *r = resv_ent(b, h[k] - 1u);
        if (r->cls == cls && r->block == block) return r;
    }
    return NULL;
}

static uint32_t resv_index(const agpm_buf *b, const ent *r)
{
    return (uint32_t)(((const uint8_t *)r - (const uint8_t *)resv_ent(b, 0)) / b->stride);
}

/* Put a copy of e into the reservation buffer (the lowest free slot, else the oldest entry is
 * dropped). */
static void resv_put(agpm_buf *b, const ent *e)
{
    if (b->cfg.resv_entries == 0) { b->stats.resv_dropped++; return; }
    uint32_t i = free_lowest(b);
    if (i == RX_NONE) {
        i = b->lst_head;
        b->stats.resv_dropped++;
        b->resv_count--;
        rx_erase(b, i);
    }
    ent *dst = resv_ent(b, i);
    copy_ent(b, dst, e);
    dst->valid = 1;
    dst->tick = ++b->tick;
    b->resv_count++;
    rx_insert(b, i);
}

static void resv_remove(agpm_buf *b, ent *r)
{
    rx_erase(b, resv_index(b, r));
    r->valid = 0;
    b->resv_count--;
}

/* A fresh (zeroed) entry for block in way class cls; a valid victim goes to the reservation
 * buffer (set conflict). */
static ent *install(agpm_buf *b, int cls, uint64_t block)
{
    uint32_t set = (uint32_t)(block % b->sets);
    ent *v = NULL;
    for (uint32_t w = first_way(b, cls); w < first_way(b, cls) + b->half; w++) {
        ent *e = way_ent(b, set, w);
        if (!e->valid) { v = e; break; }
        if (!v || e->tick < v->tick) v = e;
    }
    if (v->valid) {
        b->stats.conflicts++;
        resv_put(b, v);
    }
    clear_ent(b, v);
    v->valid = 1;
    v->cls = (uint8_t)cls;
    v->block = block;
    v->tick = ++b->tick;
    return v;
}

/* The resident entry of block in cls; a reserved one is refilled first; else a fresh one if
 * `alloc` (*fresh = 1), else NULL. */
static ent *get(agpm_buf *b, int cls, uint64_t block, int alloc, int *fresh)
{
    if (fresh) *fresh = 0;
    ent *e = find(b, cls, block);
    if (e) { e->tick = ++b->tick; return e; }
    ent *r = resv_find(b, cls, block);
    if (r) {
        ent *s = scratch(b);
        copy_ent(b, s, r);          /* r's slot may be reused by the victim install() reserves */
        resv_remove(b, r);
        e = install(b, cls, block);
        uint64_t t = e->tick;
        copy_ent(b, e, s);
        e->tick = t;
        b->stats.refills++;
        return e;
    }
    if (!alloc) return NULL;
    e = install(b, cls, block);
    b->stats.allocs++;
    if (fresh) *fresh = 1;
    return e;
}

/* IV-B counting rules on a hit: byte counter 0 -> only the block counter; > 0 -> both. */
static void count_hit(agpm_buf *b, ent *e, uint32_t off, uint32_t len)
{
    uint8_t *c = ctrs(e);
    for (uint32_t i = off; i < off + len; i++)
        if (c[i] > 0 && c[i] < b->ctr_max) c[i]++;
    if (e->blk < b->blk_max) e->blk++;
}

/* IV-B on allocation: "initialized with 0 ... The counters of the requested bytes are increased by 1." */
static void count_new(agpm_buf *b, ent *e, uint32_t off, uint32_t len)
{
    (void)b;
    uint8_t *c = ctrs(e);
    for (uint32_t i = off; i < off + len; i++) c[i] = 1;
}

int agpm_buf_log_write(agpm_buf *b, uint64_t addr, uint32_t len, agpm_path coded,
                       agpm_path selected)
{
    if (!range_ok(b, addr, len) || coded > AGPM_PATH_NT || selected > AGPM_PATH_NT) return -1;
    uint64_t block = addr / b->cfg.block_bytes;
    uint32_t off = (uint32_t)(addr % b->cfg.block_bytes);
    b->stats.log_writes++;
    for (int cls = AGPM_WAY_LOG; cls <= AGPM_WAY_ALL; cls++) {
        int fresh;
        ent *e = get(b, cls, block, 1, &fresh);
        if (fresh) count_new(b, e, off, len);
        else count_hit(b, e, off, len);
        if (cls != AGPM_WAY_LOG) continue;
        if (coded != AGPM_PATH_NONE && selected != AGPM_PATH_NONE)
            e->mark = (uint8_t)(coded == selected ? AGPM_MARK_NONE
                                : selected == AGPM_PATH_T ? AGPM_MARK_NT_TO_T : AGPM_MARK_T_TO_NT);
        if (selected != AGPM_PATH_NONE) e->path = (uint8_t)selected;
    }
    return 0;
}

int agpm_buf_access(agpm_buf *b, uint64_t addr, uint32_t len)
{
    if (!range_ok(b, addr, len)) return -1;
    uint64_t block = addr / b->cfg.block_bytes;
    uint32_t off = (uint32_t)(addr % b->cfg.block_bytes);
    b->stats.accesses++;
    ent *e = get(b, AGPM_WAY_ALL, block, 0, NULL);
    if (!e) { b->stats.access_misses++; return 0; }
    if (!find(b, AGPM_WAY_LOG, block))
        (void)get(b, AGPM_WAY_LOG, block, 0, NULL);   /* the block is back: refill its log entry */
    count_hit(b, e, off, len);
    return 1;
}

int agpm_buf_writeback(agpm_buf *b, uint64_t addr)
{
    uint64_t block = addr / b->cfg.block_bytes;
    int n = 0;
    for (int cls = AGPM_WAY_LOG; cls <= AGPM_WAY_ALL; cls++) {
        ent *e = find(b, cls, block);
        if (!e) continue;
        resv_put(b, e);
        e->valid = 0;
        n++;
    }
    if (n) b->stats.writebacks++;
    return n;
}

void agpm_buf_reset(agpm_buf *b)
{
    for (size_t i = 0; i < (size_t)b->cfg.entries + b->cfg.resv_entries; i++) slot(b, i)->valid = 0;
    b->resv_count = 0;
    rx_clear(b);
    b->stats.resets++;
}

/* ---- path-change mark ---- */
agpm_mark agpm_buf_mark(const agpm_buf *b, uint64_t addr)
{
    const ent *e = find(b, AGPM_WAY_LOG, addr / b->cfg.block_bytes);
    return e ? (agpm_mark)e->mark : AGPM_MARK_NONE;
}

void agpm_buf_clear_mark(agpm_buf *b, uint64_t addr)
{
    ent *e = find(b, AGPM_WAY_LOG, addr / b->cfg.block_bytes);
    if (e) e->mark = AGPM_MARK_NONE;
}

agpm_path agpm_buf_last_path(const agpm_buf *b, uint64_t addr)
{
    const ent *e = find(b, AGPM_WAY_LOG, addr / b->cfg.block_bytes);
    return e ? (agpm_path)e->path : AGPM_PATH_NONE;
}

/* ---- between levels ---- */
int agpm_buf_take(agpm_buf *b, uint64_t addr, agpm_rec *rec)
{
    uint64_t block = addr / b->cfg.block_bytes;
    int n = 0;
    memset(rec, 0, sizeof *rec);
    rec->block = block;
    for (int cls = AGPM_WAY_LOG; cls <= AGPM_WAY_ALL; cls++) {
        ent *e = find(b, cls, block);
        int reserved = 0;
        if (!e) { e = resv_find(b, cls, block); reserved = 1; }
        if (!e) continue;
        rec->has[cls] = 1;
        rec->blk[cls] = e->blk;
        memcpy(rec->ctr[cls], ctrs(e), b->cfg.block_bytes);
        if (cls == AGPM_WAY_LOG) { rec->path = e->path; rec->mark = e->mark; }
        if (reserved) resv_remove(b, e);
        else e->valid = 0;
        n++;
    }
    if (n) b->stats.taken++;
    return n;
}

void agpm_buf_merge(agpm_buf *b, const agpm_rec *rec)
{
    int any = 0;
    for (int cls = AGPM_WAY_LOG; cls <= AGPM_WAY_ALL; cls++) {
        if (!rec->has[cls]) continue;
        ent *e = get(b, cls, rec->block, 1, NULL);
        uint8_t *c = ctrs(e);
        for (uint32_t i = 0; i < b->cfg.block_bytes; i++) {
            uint32_t v = (uint32_t)c[i] + rec->ctr[cls][i];
            c[i] = (uint8_t)(v > b->ctr_max ? b->ctr_max : v);
        }
        uint64_t s = (uint64_t)e->blk + rec->blk[cls];
        e->blk = (uint32_t)(s > b->blk_max ? b->blk_max : s);
        if (cls == AGPM_WAY_LOG) {
            if (e->path == AGPM_PATH_NONE) e->path = rec->path;
            if (e->mark == AGPM_MARK_NONE) e->mark = rec->mark;
        }
        any = 1;
    }
    if (any) b->stats.merged++;
}

/* ---- queries ---- */
static void add_vars(const agpm_buf *b, const ent *e, agpm_vars *o)
{
    const uint8_t *c = (const uint8_t *)(e + 1);
    uint64_t t = 0;
    for (uint32_t i = 0; i < b->cfg.block_bytes; i++)
        if (c[i] > 1) t += c[i];
    if (e->cls == AGPM_WAY_LOG) { o->t_log += t; o->s_log += t + e->blk; }
    else { o->t_all += t; o->s_all += t + e->blk; }
}

void agpm_buf_vars(const agpm_buf *b, int include_resv, agpm_vars *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < b->cfg.entries; i++)
        if (slot(b, i)->valid) add_vars(b, slot(b, i), out);
    if (include_resv)
        for (uint32_t i = 0; i < b->cfg.resv_entries; i++)
            if (resv_ent(b, i)->valid) add_vars(b, resv_ent(b, i), out);
}

int agpm_buf_entry(const agpm_buf *b, agpm_way way, uint64_t addr, uint32_t *blk_ctr,
                   uint8_t *byte_ctrs)
{
    if (way != AGPM_WAY_LOG && way != AGPM_WAY_ALL) return 0;
    ent *e = find(b, way, addr / b->cfg.block_bytes);
    if (!e) return 0;
    if (blk_ctr) *blk_ctr = e->blk;
    if (byte_ctrs) memcpy(byte_ctrs, ctrs(e), b->cfg.block_bytes);
    return 1;
}

int agpm_buf_reserved(const agpm_buf *b, agpm_way way, uint64_t addr)
{
    return resv_find(b, way, addr / b->cfg.block_bytes) != NULL;
}

uint32_t agpm_buf_resv_count(const agpm_buf *b) { return b->resv_count; }

uint32_t agpm_buf_valid_count(const agpm_buf *b, agpm_way way)
{
    uint32_t n = 0;
    for (uint32_t s = 0; s < b->sets; s++)
        for (uint32_t w = first_way(b, way); w < first_way(b, way) + b->half; w++)
            n += way_ent(b, s, w)->valid;
    return n;
}

const agpm_buf_stats *agpm_buf_get_stats(const agpm_buf *b) { return &b->stats; }
