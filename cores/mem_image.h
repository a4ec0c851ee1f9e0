/* persim: functional memory image (sparse, 4 KiB pages), the data array behind the DRAM and NVM
 * controllers, and the image workloads build their inputs in and verify results against.
 * Unwritten bytes read as zero. Pages are allocated on first write (not on the hot path of a
 * core: the controllers touch it only when data actually moves). Deterministic iteration. */
#ifndef PERSIM_MEM_IMAGE_H
#define PERSIM_MEM_IMAGE_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MEM_PAGE_BYTES 4096u

typedef struct mem_image mem_image;

mem_image *mem_new(void);
void       mem_free(mem_image *m);
mem_image *mem_clone(const mem_image *m);
void       mem_clear(mem_image *m);
void       mem_read(const mem_image *m, uint64_t addr, void *dst, size_t len);
void       mem_write(mem_image *m, uint64_t addr, const void *src, size_t len);
/* Writes only bytes whose bit is set in mask (bit i = byte i, len <= 128). */
void       mem_write_masked(mem_image *m, uint64_t addr, const void *src, size_t len, const uint64_t mask[2]);
uint64_t   mem_read_u64(const mem_image *m, uint64_t addr);
uint32_t   mem_read_u32(const mem_image *m, uint64_t addr);
void       mem_write_u64(mem_image *m, uint64_t addr, uint64_t v);
void       mem_write_u32(mem_image *m, uint64_t addr, uint32_t v);
size_t     mem_pages(const mem_image *m);
/* Compares [addr, addr+len) of two images; returns -1 if equal, else the offset of the first difference. */
int64_t    mem_diff(const mem_image *a, const mem_image *b, uint64_t addr, uint64_t len);

#ifdef __cplusplus
}
#endif
#endif
