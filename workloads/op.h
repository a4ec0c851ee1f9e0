/* persim: per-warp op streams ("programs") that workloads generate and the SM executes.
 *
 * A program is a list of kernels run one after another (a kernel boundary is a grid-wide
 * barrier). A kernel has nblocks thread blocks of warps_per_block warps; every warp has its own
 * op stream. Ops state ordering *intent* (ORDER, RELEASE, ACQUIRE, DURABLE, SYNC, PBARRIER);
 * each persistency model lowers intent to its own primitives (see sc_models/persist_model.h).
 *
 * Memory ops are warp-wide: `nlanes` lanes, lane i accesses [addr + i*stride, +elem). A store
 * carries per-lane values (or one broadcast value). Addresses >= the PM base (config key
 * system.pm_base, default PERSIM_PM_BASE) are persistent memory; others are volatile (GDDR).
 * The text form of a program is documented in docs/trace-format.md (workloads/trace.c). */
#ifndef PERSIM_OP_H
#define PERSIM_OP_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PERSIM_PM_BASE   0x10000000000ull   /* 1 TiB: default start of the PM range */
#define PERSIM_VOL_BASE  0x00010000000ull   /* default start of volatile allocations */
#define PERSIM_WARP_SIZE 32u
#define PERSIM_NOVALS    0xFFFFFFFFu

/* The most instructions one compute op may state (2^40: about 9 minutes of a 2 GHz 4-wide core, and
 * far from overflowing a picosecond clock, which a count near 2^64 did: issue 27 item 2). */
#define PERSIM_COMPUTE_MAX (1ull << 40)

typedef enum persim_op_kind {
    OPK_LD = 0,        /* load  addr elem nlanes stride */
    OPK_ST,            /* store addr elem nlanes stride values */
    OPK_COMPUTE,       /* val = number of warp instructions (ALU work), 0..PERSIM_COMPUTE_MAX */
    /* ordering intent */
    OPK_ORDER,         /* intra-thread order point: earlier persists before later ones */
    OPK_RELEASE,       /* release(flag=addr, value=val, scope): earlier persists ordered before
                          persists of threads that acquire the flag with a scope containing both */
    OPK_ACQUIRE,       /* acquire(flag=addr, until value==val, scope): spin until the flag holds val */
    OPK_DURABLE,       /* durability point: earlier persists durable before the thread proceeds */
    OPK_SYNC,          /* execution barrier at scope (BLOCK = __syncthreads, GRID = grid.sync) */
    OPK_PBARRIER,      /* persist barrier at scope, for programs written with barriers (issue 5) */
    OPK_REQUIRE,       /* checker requirement: op `val` (id) durable before op `addr` (id) */
    OPK_MARK,          /* program-structure marker for region formation on CPU traces (LightWSP
                          IV-A stands in for its compiler pass): val = persim_mark. No effect on
                          memory; a GPU ignores it */
    OPK__COUNT
} persim_op_kind;

typedef enum persim_scope {
    SCOPE_NONE = 0,
    SCOPE_WARP,        /* workitem / single warp */
    SCOPE_BLOCK,       /* thread block / workgroup */
    SCOPE_DEVICE,      /* whole GPU / kernel */
    SCOPE_SYSTEM,
    SCOPE__COUNT
} persim_scope;

typedef enum persim_mark {
    MARK_FUNC = 1,     /* function entry (a call site) */
    MARK_RET  = 2,     /* function exit */
    MARK_LOOP = 3,     /* loop header (start of an iteration) */
    MARK__COUNT
} persim_mark;

/* What a store or load is for (ST, LD): a hint some persistency models act on (AGPM chooses the
 * data path of undo-log writes and counts the locality of log updates, docs/models/agpm.md); the
 * functional executor and the checkers treat every class as an ordinary store / load. Trace
 * form: `st log ADDR SHAPE = ...`, `ld log ADDR SHAPE`. */
typedef enum persim_st_class {
    STC_DATA = 0,      /* ordinary store / load */
    STC_LOG  = 1,      /* ST: a write of a (undo/redo) log entry; LD: the read of the data a log
                          update copies (an undo log update reads the bytes it protects) */
    STC__COUNT
} persim_st_class;

typedef struct persim_op {
    uint8_t  kind;     /* persim_op_kind */
    union {
        uint8_t scope;    /* persim_scope (RELEASE/ACQUIRE/SYNC/PBARRIER) */
        uint8_t st_class; /* persim_st_class (ST, LD) */
    };
    uint8_t  elem;     /* bytes per lane: 1, 2, 4 or 8 (LD/ST) */
    uint8_t  nlanes;   /* active lanes 1..32 (LD/ST); flag size 4 or 8 is elem for REL/ACQ */
    uint32_t stride;   /* bytes between consecutive lanes' addresses (LD/ST) */
    uint64_t addr;     /* LD/ST base address; REL/ACQ flag address */
    uint64_t val;      /* COMPUTE: instructions; REL: value written; ACQ: value awaited;
                          ST: broadcast value when vals == PERSIM_NOVALS */
    uint32_t vals;     /* ST: index of nlanes per-lane values in prog->vals, or PERSIM_NOVALS */
    uint32_t id;       /* op id, unique within the program (1-based; 0 = none) */
} persim_op;

typedef struct persim_kernel {
    char     name[32];
    uint32_t nblocks;
    uint32_t warps_per_block;
    uint64_t first_stream;   /* stream index of (block 0, warp 0) */
} persim_kernel;

typedef struct persim_stream { uint64_t begin, end; } persim_stream;  /* [begin,end) in ops */

typedef struct persim_prog {
    persim_kernel *kernels;  uint32_t nkernels, cap_kernels;
    persim_stream *streams;  uint64_t nstreams, cap_streams;
    persim_op     *ops;      uint64_t nops, cap_ops;
    uint64_t      *vals;     uint64_t nvals, cap_vals;
    uint32_t       next_id;
    int            open;     /* a stream is open for appending */
} persim_prog;

/* ---- building ---- */
persim_prog *prog_new(void);
void     prog_free(persim_prog *p);
/* Starts a kernel; its blocks' warp streams must then be opened in order
 * (block 0 warp 0, block 0 warp 1, ..., block 1 warp 0, ...). Returns the kernel index. */
uint32_t prog_kernel(persim_prog *p, const char *name, uint32_t nblocks, uint32_t threads_per_block);
/* Opens the stream of (block, warp) of the current kernel (closing the previous one). */
void     prog_warp(persim_prog *p, uint32_t block, uint32_t warp);
/* Appenders return the op id. Values are truncated to elem bytes. */
uint32_t op_ld(persim_prog *p, uint64_t addr, uint32_t elem, uint32_t nlanes, uint32_t stride);
uint32_t op_ld_log(persim_prog *p, uint64_t addr, uint32_t elem, uint32_t nlanes,
                   uint32_t stride);                        /* a log update's read (STC_LOG) */
uint32_t op_st(persim_prog *p, uint64_t addr, uint32_t elem, uint32_t nlanes, uint32_t stride,
               const uint64_t *vals);                       /* nlanes values */
uint32_t op_st_log(persim_prog *p, uint64_t addr, uint32_t elem, uint32_t nlanes, uint32_t stride,
                   const uint64_t *vals);                   /* a log write (STC_LOG) */
uint32_t op_st_bcast(persim_prog *p, uint64_t addr, uint32_t elem, uint32_t nlanes,
                     uint32_t stride, uint64_t val);        /* same value in every lane */
uint32_t op_compute(persim_prog *p, uint64_t instructions);
uint32_t op_order(persim_prog *p);
uint32_t op_release(persim_prog *p, uint64_t flag, uint32_t elem, uint64_t val, persim_scope s);
uint32_t op_acquire(persim_prog *p, uint64_t flag, uint32_t elem, uint64_t val, persim_scope s);
uint32_t op_durable(persim_prog *p);
uint32_t op_sync(persim_prog *p, persim_scope s);
uint32_t op_pbarrier(persim_prog *p, persim_scope s);
uint32_t op_require(persim_prog *p, uint32_t before_id, uint32_t after_id);
uint32_t op_mark(persim_prog *p, persim_mark m);
/* Appends a fully formed op (trace reader); assigns an id if op->id == 0. */
uint32_t op_append(persim_prog *p, const persim_op *op, const uint64_t *lane_vals);

/* ---- reading ---- */
static inline const persim_stream *prog_stream(const persim_prog *p, const persim_kernel *k,
                                               uint32_t block, uint32_t warp)
{ return &p->streams[k->first_stream + (uint64_t)block * k->warps_per_block + warp]; }
/* Value stored by lane i of a store op. */
static inline uint64_t op_lane_val(const persim_prog *p, const persim_op *o, uint32_t lane)
{ return o->vals == PERSIM_NOVALS ? o->val : p->vals[o->vals + lane]; }
/* Number of warp instructions an op stands for (COMPUTE n counts n). */
static inline uint64_t op_instructions(const persim_op *o)
{ return o->kind == OPK_COMPUTE ? o->val : 1u; }
const char *op_kind_name(unsigned kind);     /* "ld", "st", ... */
const char *scope_name(unsigned scope);      /* "warp", "block", "device", "system" */
const char *mark_name(unsigned mark);        /* "func", "ret", "loop" */
/* Checks structural validity (lane ranges, elem sizes, scopes); returns 0 or -1 with a message. */
int      prog_validate(const persim_prog *p, char *err, size_t errlen);
/* Formats a message into err (errlen bytes; err may be NULL) and returns -1: the error return of
 * the program builders, readers and executors. */
int      prog_errf(char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif
