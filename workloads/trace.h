/* persim: text traces of programs ("persim-trace 1"), the format documented in
 * docs/trace-format.md. A trace holds a program (kernels, per-warp op streams), the initial
 * memory image (`data` lines) and optional expected final bytes (`expect` lines).
 *
 * Which initial-memory bytes get written: mem_image has no page iterator, so the writer dumps
 * caller-given address regions; with regions == NULL it dumps the program's footprint (every
 * 128-byte chunk touched by a ld, st, release or acquire), which is all memory the program can
 * observe. Only chunks that are not all zero produce a `data` line (unwritten memory reads as
 * zero). */
#ifndef PERSIM_TRACE_H
#define PERSIM_TRACE_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "op.h"
#include "../cores/mem_image.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TRACE_VERSION    1
#define TRACE_CHUNK      128u         /* max bytes per data/expect line; writer's chunk size */
#define TRACE_MAX_WARPS  (1u << 24)   /* warps of all kernels of a trace together (reader's limit) */

typedef struct trace_expect { uint64_t addr; uint32_t len; uint8_t bytes[128]; } trace_expect;

typedef struct trace_data {
    persim_prog  *prog;
    mem_image    *init;           /* initial image (all `data` lines) */
    trace_expect *expects;        /* `expect` lines in file order */
    size_t        nexpects;
} trace_data;

typedef struct trace_region { uint64_t addr, len; } trace_region;

/* Reading: 0 on success (*out owns everything; free with trace_data_free), -1 on error with
 * err = "FILE:LINE: message" (*out is left empty). The program is also checked with
 * prog_validate. */
int  trace_read_file(const char *path, trace_data *out, char *err, size_t errlen);
int  trace_read_string(const char *name, const char *text, trace_data *out, char *err, size_t errlen);
void trace_data_free(trace_data *t);

/* Writing. regions/nregions: address ranges of `init` to dump as `data` lines (rounded out to
 * 128-byte chunks, deduplicated, ascending; all-zero chunks skipped); regions == NULL dumps the
 * program's footprint (see above). init may be NULL (no data lines). comment (may be NULL or
 * multi-line) is written as `#` lines after the header. 0 on success, -1 on error (I/O error,
 * or a program that fails prog_validate: the format only holds valid programs). */
int  trace_write_file(const char *path, const persim_prog *p, const mem_image *init,
                      const trace_region *regions, size_t nregions, const char *comment,
                      char *err, size_t errlen);
/* zstd: trace_read_file reads a zstd-compressed trace (recognised by its magic number, any file
 * name) as it decompresses, a chunk at a time; trace_write_file compresses when the path ends in
 * ".zst" (level TRACE_ZSTD_LEVEL); trace_write_file_level takes the level (0 = plain text). */
#define TRACE_ZSTD_LEVEL 3
int  trace_path_is_zstd(const char *path);
int  trace_write_file_level(const char *path, const persim_prog *p, const mem_image *init,
                            const trace_region *regions, size_t nregions, const char *comment,
                            int zstd_level, char *err, size_t errlen);
/* fopen(path, "w"), or (zstd_level > 0) a stream that compresses into path; NULL with errno. */
FILE *trace_open_write(const char *path, int zstd_level);
int  trace_write_stream(FILE *f, const persim_prog *p, const mem_image *init,
                        const trace_region *regions, size_t nregions, const char *comment);
/* Appends `expect` lines holding final_img's bytes for every 128-byte chunk of regions
 * (NULL: every chunk written by the program's st and release ops), zero chunks included.
 * Call after trace_write_stream on the same stream. 0 or -1 (I/O error). */
int  trace_write_expects(FILE *f, const persim_prog *p, const mem_image *final_img,
                         const trace_region *regions, size_t nregions);

/* The 128-byte chunk indices (addr >> 7) touched by the program's memory ops, ascending,
 * deduplicated. writes_only: only st and release. Returns the count; *chunks is malloc'ed
 * (NULL when the count is 0) or the call returns (size_t)-1 when out of memory. */
size_t trace_prog_chunks(const persim_prog *p, int writes_only, uint64_t **chunks);

/* Checks the expect lines against a final image: 0 if all match, else -1 with a message naming
 * the first differing address, the expected and the actual byte. */
int  trace_check_expects(const trace_data *t, const mem_image *final_img, char *msg, size_t msglen);

#ifdef __cplusplus
}
#endif
#endif
