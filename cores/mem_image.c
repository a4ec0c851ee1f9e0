/* persim: sparse functional memory image (see mem_image.h).
 * 4 KiB pages, calloc'ed on first write, found through an open-addressing hash table (linear
 * probing, power-of-two capacity, load factor <= 1/2, doubled when exceeded). Pages are never
 * removed except by mem_clear/mem_free, so the table needs no deletion.
 * Multi-byte helpers are little-endian regardless of the host.
 * Allocation failure while writing aborts (the image cannot silently lose data). */
#include "mem_image.h"

#include <stdlib.h>
#include <string.h>

typedef struct mem_slot {
    uint64_t page;          /* page number (addr / MEM_PAGE_BYTES) */
    uint8_t *data;          /* NULL = empty slot */
} mem_slot;

struct mem_image {
    mem_slot *slots;
    size_t    cap;          /* power of two */
    size_t    used;
};

#define MEM_INIT_CAP 64u

static size_t slot_home(uint64_t page, size_t cap)
{
    uint64_t h = page * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    return (size_t)h & (cap - 1u);
}

static uint8_t *find_page(const mem_image *m, uint64_t page)
{
    if (!m || m->used == 0) return NULL;
    size_t i = slot_home(page, m->cap);
    while (m->slots[i].data) {
        if (m->slots[i].page == page) return m->slots[i].data;
        i = (i + 1u) & (m->cap - 1u);
    }
    return NULL;
}

static void place(mem_slot *slots, size_t cap, uint64_t page, uint8_t *data)
{
    size_t i = slot_home(page, cap);
    while (slots[i].data) i = (i + 1u) & (cap - 1u);
    slots[i].page = page;
    slots[i].data = data;
}

static int grow(mem_image *m)
{
    size_t ncap = m->cap * 2u;
    mem_slot *ns = (mem_slot *)calloc(ncap, sizeof *ns);
    if (!ns) return -1;
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i].data) place(ns, ncap, m->slots[i].page, m->slots[i].data);
    free(m->slots);
    m->slots = ns;
    m->cap = ncap;
    return 0;
}

static uint8_t *get_page(mem_image *m, uint64_t page)
{
    uint8_t *p = find_page(m, page);
    if (p) return p;
    if ((m->used + 1u) * 2u > m->cap && grow(m) != 0) abort();
    p = (uint8_t *)calloc(1, MEM_PAGE_BYTES);
    if (!p) abort();
    place(m->slots, m->cap, page, p);
    m->used++;
    return p;
}

mem_image *mem_new(void)
{
    mem_image *m = (mem_image *)calloc(1, sizeof *m);
    if (!m) return NULL;
    m->slots = (mem_slot *)calloc(MEM_INIT_CAP, sizeof *m->slots);
    if (!m->slots) { free(m); return NULL; }
    m->cap = MEM_INIT_CAP;
    return m;
}

static void free_pages(mem_image *m)
{
    for (size_t i = 0; i < m->cap; i++) {
        free(m->slots[i].data);
        m->slots[i].data = NULL;
        m->slots[i].page = 0;
    }
    m->used = 0;
}

void mem_free(mem_image *m)
{
    if (!m) return;
    free_pages(m);
    free(m->slots);
    free(m);
}

void mem_clear(mem_image *m)
{
    if (m) free_pages(m);
}

mem_image *mem_clone(const mem_image *m)
{
    if (!m) return NULL;
    mem_image *c = (mem_image *)calloc(1, sizeof *c);
    if (!c) return NULL;
    c->slots = (mem_slot *)calloc(m->cap, sizeof *c->slots);
    if (!c->slots) { free(c); return NULL; }
    c->cap = m->cap;
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->slots[i].data) continue;
        uint8_t *p = (uint8_t *)malloc(MEM_PAGE_BYTES);
        if (!p) { mem_free(c); return NULL; }
        memcpy(p, m->slots[i].data, MEM_PAGE_BYTES);
        c->slots[i].page = m->slots[i].page;     /* same capacity: same slot positions */
        c->slots[i].data = p;
        c->used++;
    }
    return c;
}

void mem_read(const mem_image *m, uint64_t addr, void *dst, size_t len)
{
    uint8_t *d = (uint8_t *)dst;
    if (!d) return;
    while (len > 0) {
        uint64_t off = addr & (MEM_PAGE_BYTES - 1u);
        size_t chunk = MEM_PAGE_BYTES - (size_t)off;
        if (chunk > len) chunk = len;
        const uint8_t *p = find_page(m, addr / MEM_PAGE_BYTES);
        if (p) memcpy(d, p + off, chunk); else memset(d, 0, chunk);
        d += chunk; addr += chunk; len -= chunk;
    }
}

void mem_write(mem_image *m, uint64_t addr, const void *src, size_t len)
{
    const uint8_t *s = (const uint8_t *)src;
    if (!m || !s) return;
    while (len > 0) {
        uint64_t off = addr & (MEM_PAGE_BYTES - 1u);
        size_t chunk = MEM_PAGE_BYTES - (size_t)off;
        if (chunk > len) chunk = len;
        memcpy(get_page(m, addr / MEM_PAGE_BYTES) + off, s, chunk);
        s += chunk; addr += chunk; len -= chunk;
    }
}

void mem_write_masked(mem_image *m, uint64_t addr, const void *src, size_t len, const uint64_t mask[2])
{
    const uint8_t *s = (const uint8_t *)src;
    if (!m || !s || !mask) return;
    if (len > 128u) len = 128u;                 /* bytes beyond the mask are never written */
    uint8_t *page = NULL;
    uint64_t cur = 0;
    /* runs of set bits within each 64-bit mask word, split at page boundaries */
    for (size_t base = 0; base < len; base += 64u) {
        uint64_t bits = mask[base >> 6];
        if (len - base < 64u) bits &= (1ull << (len - base)) - 1u;
        while (bits) {
            uint32_t b = (uint32_t)__builtin_ctzll(bits);
            uint64_t rest = ~(bits >> b);
            uint32_t n = rest ? (uint32_t)__builtin_ctzll(rest) : 64u - b;
            size_t i = base + b;
            while (n) {
                uint64_t a = addr + i;
                uint64_t pn = a / MEM_PAGE_BYTES;
                uint32_t off = (uint32_t)(a & (MEM_PAGE_BYTES - 1u));
                uint32_t k = MEM_PAGE_BYTES - off < n ? MEM_PAGE_BYTES - off : n;
                if (!page || pn != cur) { page = get_page(m, pn); cur = pn; }
                memcpy(page + off, s + i, k);
                i += k;
                n -= k;
            }
            if (i - base >= 64u) break;
            bits &= ~((1ull << (i - base)) - 1u);
        }
    }
}

uint64_t mem_read_u64(const mem_image *m, uint64_t addr)
{
    uint8_t b[8];
    mem_read(m, addr, b, sizeof b);
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | b[i];
    return v;
}

uint32_t mem_read_u32(const mem_image *m, uint64_t addr)
{
    uint8_t b[4];
    mem_read(m, addr, b, sizeof b);
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

void mem_write_u64(mem_image *m, uint64_t addr, uint64_t v)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
    mem_write(m, addr, b, sizeof b);
}

void mem_write_u32(mem_image *m, uint64_t addr, uint32_t v)
{
    uint8_t b[4];
    for (int i = 0; i < 4; i++) b[i] = (uint8_t)(v >> (8 * i));
    mem_write(m, addr, b, sizeof b);
}

size_t mem_pages(const mem_image *m)
{
    return m ? m->used : 0;
}

int64_t mem_diff(const mem_image *a, const mem_image *b, uint64_t addr, uint64_t len)
{
    static const uint8_t zero[MEM_PAGE_BYTES];
    uint64_t done = 0;
    while (done < len) {
        uint64_t cur = addr + done;
        uint64_t off = cur & (MEM_PAGE_BYTES - 1u);
        uint64_t chunk = MEM_PAGE_BYTES - off;
        if (chunk > len - done) chunk = len - done;
        const uint8_t *pa = find_page(a, cur / MEM_PAGE_BYTES);
        const uint8_t *pb = find_page(b, cur / MEM_PAGE_BYTES);
        if (pa != pb) {
            const uint8_t *x = pa ? pa + off : zero;
            const uint8_t *y = pb ? pb + off : zero;
            if (memcmp(x, y, (size_t)chunk) != 0)
                for (uint64_t i = 0; i < chunk; i++)
                    if (x[i] != y[i]) return (int64_t)(done + i);
        }
        done += chunk;
    }
    return -1;
}
