/* persim: region formation on CPU op streams, standing in for LightWSP's compiler pass
 * (lightwsp-whole-system-persistence.md section IV-A; docs/models/lightwsp.md).
 *
 * The compiler (1) places initial boundaries at call sites, function entries/exits and loop
 * headers, and at fences, atomics and lock/unlock (III-D); (2) combines initial regions whose
 * store count stays under the threshold; (3) splits a region whose stores would exceed it; and
 * (4) checkpoints each region's live-out registers plus the PC at its end. On a trace (one
 * thread's dynamic op stream) the same rules read:
 *   - mandatory boundary before and after every acquire, release, order, durable and sync op;
 *   - at a `mark` op (func, ret, loop) a boundary only if the region so far plus the stores up to
 *     the next possible boundary would exceed the threshold (greedy combining of initial regions,
 *     which also stands in for loop unrolling: iterations merge while they fit);
 *   - a forced boundary before a store that would make the region exceed the threshold;
 *   - every region ends with `ckpt` live-out checkpoint stores and one PC store, all counted in
 *     the threshold. Traces carry no registers, so ckpt is estimated as
 *     min(max_live_outs, ceil(instructions in the region / instr_per_live_out)).
 * A region that would hold more stores than the threshold allows even alone (a single op with
 * more lanes) is kept whole. Deterministic, no allocation beyond the output array. */
#ifndef PERSIM_REGION_FORM_H
#define PERSIM_REGION_FORM_H
#include <stddef.h>
#include <stdint.h>
#include "op.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct region_form_cfg {
    uint32_t threshold;           /* stores per region at most, checkpoint and PC stores included (>= 2) */
    uint32_t max_live_outs;       /* checkpoint stores per boundary at most */
    uint32_t instr_per_live_out;  /* instructions per live-out register (>= 1) */
} region_form_cfg;

/* A boundary placed before op index `op` (global index into prog->ops; the stream's end index for
 * the final boundary): the region ending there gets `ckpt` checkpoint stores and a PC store. */
typedef struct region_bdry {
    uint64_t op;
    uint32_t ckpt;
    uint32_t stores;              /* program stores of the region ending here (lanes counted) */
    uint64_t instructions;        /* instructions of the region (ld/st = 1, compute = n) */
} region_bdry;

typedef struct region_plan {
    region_bdry *b;
    size_t n, cap;
} region_plan;

/* Forms the regions of ops [begin, end) of p. Appends the boundaries in op order to *out; the last
 * one is at `end` (every stream ends a region). 0, or -1 on bad cfg / out of memory. */
int  region_form(const persim_prog *p, uint64_t begin, uint64_t end, const region_form_cfg *cfg, region_plan *out);
void region_plan_free(region_plan *pl);
/* 1 if kind always ends a region before and after it (fences, atomics, lock/unlock: III-D). */
int  region_sync_op(unsigned kind);

#ifdef __cplusplus
}
#endif
#endif
