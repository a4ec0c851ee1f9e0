/* persim: shared pieces of the BROI workloads (workloads/wl_broi*.c, docs/workloads-cpu.md "BROI"):
 * a program of num_threads local streams followed by num_remote remote (RDMA channel) streams, and
 * a per-stream logged transaction (bx) that lowers one operation's write set to the undo or redo
 * log protocol, with op_order as the persist barrier between its epochs.
 *
 * Local stream (a hardware thread): loads for the reads, then
 *   undo: st log records {addr, old, seq, check}...; order; st in place...; order; st commit_seq; order
 *   redo: st log records {addr, new, seq, check}...; order; st commit_seq; order; st in place...; order;
 *         st applied_seq; order
 * Recovery (per stream; the test wl_broi_test CrashRecovery does it): undo: roll back, last first,
 * every record with seq == commit_seq + 1 whose check matches (a torn record of an interrupted log
 * epoch fails the check; records of older transactions have smaller seqs); redo: if commit_seq >
 * applied_seq, replay the records with seq == commit_seq.
 * Remote stream (an RDMA channel, BROI section V): the payload stores of rdma_pwrites, each pwrite
 * (one contiguous block = one barrier region on the remote persist buffer) ended by order; no loads,
 * no locks: the log records are one pwrite, the commit word one, the in-place words one pwrite per
 * contiguous run (by address), the clear word one. */
#ifndef PERSIM_WL_BROI_H
#define PERSIM_WL_BROI_H
#include <stdint.h>

#include "wl_cpu.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BX_MAX_REMOTE 8u         /* RDMA channels (the paper's remote BROI queue has 2 entries) */
#define BX_MAXW       256u       /* words in one transaction's write set */
#define BX_MAXR       1024u      /* distinct words loaded in one transaction (more: loaded again) */
#define BX_REC        32u        /* log record {addr, value, seq, check = bx_check(addr, value, seq)} */
#define BX_LOG_BYTES  (16u + BX_MAXW * BX_REC)   /* header {commit_seq, applied_seq} + records */

typedef struct bx {
    cpu_gen *g;
    uint32_t s;                  /* stream (warp) index */
    int      remote, redo;
    uint64_t log;                /* this stream's log area (BX_LOG_BYTES) */
    uint64_t seq;                /* transactions committed so far */
    uint32_t nw;
    uint64_t wa[BX_MAXW], wv[BX_MAXW];
    uint32_t nr;                 /* words loaded in this transaction (loaded once: then in registers / L1) */
    uint64_t ra[BX_MAXR];
    int      overflow;
} bx;

/* Checks num_threads (1..64) and num_remote (0..8; >= 1 when need_remote) with "<wl>: ..."
 * messages, and sets up g with num_threads + num_remote streams. 0 or -1. */
int      bx_gen_init(cpu_gen *g, const char *wl, const wl_params *prm, int need_remote,
                     const mem_image *init, char *err, size_t errlen);
void     bx_init(bx *b, cpu_gen *g, uint32_t stream, int remote, int redo, uint64_t log);
/* Reads a word (the transaction's own pending write if any). A local stream emits ld the first time
 * the transaction reads or writes the word (a re-read is a register / L1 hit, not modelled). */
uint64_t bx_rd(bx *b, uint64_t addr);
/* The same without an op (the generator's bookkeeping). */
uint64_t bx_peek(const bx *b, uint64_t addr);
void     bx_wr(bx *b, uint64_t addr, uint64_t val);
/* Stores only if the word changes. */
void     bx_set(bx *b, uint64_t addr, uint64_t val);
/* The check word of a log record (a torn record does not match it). */
static inline uint64_t bx_check(uint64_t addr, uint64_t val, uint64_t seq)
{ return cpu_mix(addr ^ 0x636865636Bull, val ^ (seq << 1)) | 1; }
/* Appends `order` (the persist barrier / end of an rdma_pwrite) to stream t's buffer. */
void     bx_order(cpu_gen *g, uint32_t t);
/* Emits the write set with the log protocol (nothing for an empty write set). */
void     bx_commit(bx *b);

#ifdef __cplusplus
}
#endif
#endif
