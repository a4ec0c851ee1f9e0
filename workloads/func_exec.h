/* persim: functional reference executor (no timing) for programs (op.h).
 *
 * Kernels run in order. Inside a kernel all blocks are co-resident and warps advance
 * round-robin, one op per warp per round, in a fixed order (block-major, warp-minor), so a run
 * is deterministic. Semantics:
 *   st       writes its lane values (little-endian, elem bytes each, lanes in order) to the image
 *   release  writes its value (elem bytes) to the flag
 *   acquire  blocks the warp until the flag's current value (elem bytes) equals the op's value
 *   sync     block: waits for every warp of the block; device: for every warp of the kernel.
 *            Warps whose stream has ended count as arrived (as exited threads do on a GPU).
 *   ld, compute, order, durable, pbarrier, require: no effect.
 * If no warp can advance while some are unfinished, the run stops with -1 and a message listing
 * up to 8 stuck warps (kernel, block, warp, op index, what it waits for). */
#ifndef PERSIM_FUNC_EXEC_H
#define PERSIM_FUNC_EXEC_H
#include <stddef.h>
#include <stdint.h>
#include "op.h"
#include "../cores/mem_image.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Called once per executed op, in execution order, after the op's effect on the image
 * (an acquire when it succeeds, a sync when the barrier releases the warp). */
typedef void (*func_exec_cb)(void *ctx, const persim_op *op, uint32_t kernel, uint32_t block,
                             uint32_t warp);

/* Runs p on img (which holds the initial image and receives the final one). max_steps bounds
 * the number of executed ops (0 = no bound). 0 on success, -1 with err on deadlock, step limit,
 * invalid program or out of memory. */
int func_exec(const persim_prog *p, mem_image *img, uint64_t max_steps, char *err, size_t errlen);
int func_exec_cb_run(const persim_prog *p, mem_image *img, uint64_t max_steps, func_exec_cb cb,
                     void *ctx, char *err, size_t errlen);
/* The same for a program the caller has already checked with prog_validate (a run's loaded
 * program): the validation, which costs about as much as the execution, is not repeated. */
int func_exec_cb_run_valid(const persim_prog *p, mem_image *img, uint64_t max_steps, func_exec_cb cb,
                           void *ctx, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
