/* persim core: the per-SM AGPM path selector and its periods, of "Adaptive Data Path Selection
 * for Durable Transaction in GPU Persistent Memory" (agpm-adaptive-data-path-selection.txt),
 * sections III (Tables II, III), IV, IV-A, IV-B.
 *
 * Paths: the temporal path (T: store + clwb through L1D/L2, persisted when the L2 writes the line
 * back to the ADR-protected NVM controller) and the non-temporal path (NT: the store bypasses the
 * caches into the controller's WPQ). AGPM chooses the path of the *log updates* of undo logging.
 *
 * Inputs (Table II's 10 variables): l1d_{t,s}_{all,log} from the L1 AGPM buffer, l2_{t,s}_{all,log}
 * from the L2 buffer(s) (cores/agpm_buf.h: agpm_buf_vars; sum over L2 partitions), `all` and `log`
 * (numbers of updates), plus the shared-memory-usage flag of the kernel.
 *
 * Reasons (Table III). IMPORTANT: in the text of the paper we have, Table III's "Metrics" column
 * is empty (its formulas were lost; only "/ 0.25" fragments on the rows of b and d, and the Types
 * survive). The conditions below are reconstructed from the prose of section III and checked
 * against every row of Table II (all 22 kernels classify to the reason the table gives; see
 * tests/core_agpm_sel_test.cpp, AgpmSel.TableIIRowsClassifyAsPublished). Checked in this order:
 *   h  shm_used                          "these kernels use the shared memory"            -> NT (II)
 *   e  log < min_log (100)               "the number of the log updates is too small (100)" -> NT (III)
 *   f  all 8 locality variables are 0    "no data locality in either the L1D ... or the L2" -> NT (II, III)
 *   c  the 4 L1D variables are 0         "no locality is observed in the L1D cache"        -> T (I)
 *   g  the 4 temporal variables are 0    (Backprop1: spatial locality only; III: "moderate
 *      (l1d_t_*, l2_t_*), spatial not     localities are observed in both the L1D cache and
 *                                          the L2 cache, thus ... type I")                 -> T (I)
 *   a  l1d_t_log == 0 && l1d_s_log == 0  "When these two variables are equal to 0 (reason a)" -> T (I)
 *   b  r >= ratio (0.25)                 "too-strong localities ... in the L1D cache accesses
 *                                          caused by the log updates"                    -> NT (II)
 *   d  r <  ratio                        "only occupy a small fraction (< 0.25) of all the memory
 *                                          accesses with the locality (reason d)"         -> T (I)
 *   where r = max(l1d_t_log / l1d_t_all, l1d_s_log / l1d_s_all) (a quotient with a 0 divisor
 *   counts as 0); compared exactly in integers: log * den >= num * all.
 * The order matters where the conditions overlap: Table II's NW (ratio 0.49, shared memory) is h,
 * SGEMM (all zero, shared memory) is h, BFS and SSSP1 (few logs, some locality) are e. Where no
 * row of Table II decides (h vs e: no kernel has both; c vs g: no L1 locality and only spatial L2
 * locality), the order above is persim's choice (c and g both choose T anyway).
 * Path per reason (IV: "The temporal data path should be selected ... when moderate localities
 * are presented ... or there are no risks of contention"; "The non-temporal path should be
 * selected ... when too-strong localities are simultaneously presented"; "For cases when no
 * localities are presented ... the non-temporal path is recommended"; "For special cases when the
 * shared memory is used or the number of log updates is too small, the non-temporal path is
 * recommended"): T for the type-I reasons a, c, d, g; NT for b, e, f, h. (IV-B lists four reasons
 * for the caches and five for the bypass, but the letters are lost in our text and 4 + 5 != 8.)
 * `all` is an input for completeness (Table II) but no reconstructed condition uses it.
 *
 * Periods (IV-A): "a period is defined as a thresholded number of log updates to PM. When the
 * number of logs exceeds the threshold, all the AGPM buffers will be flushed ... we initialize
 * this threshold as 10000." persim ends the period at the log update that makes the count reach
 * the threshold (agpm_sel_log_update returns 1); the caller then classifies with the buffers'
 * variables (agpm_sel_end_period) and resets every AGPM buffer (agpm_buf_reset).
 * Threshold adaptation (IV-A): "If the CWPPR of the sampling period is bigger than the previous
 * period, we consider the length of the threshold is not long enough ... the threshold is
 * increased by 10% of the previous threshold. For instance, if the previous threshold is 10000,
 * then the updated threshold is 11000. Otherwise, the threshold is decreased by 10%". CWPPR
 * ("the average number of cycles that each PM request finishes servicing") of a period =
 * (sum of cycles waited by the PM requests completed in it) / (their number); a period without
 * completed PM requests has CWPPR 0. The rule persim implements, at every period end:
 *   first period: no previous CWPPR -> threshold unchanged (the paper does not say);
 *   CWPPR(cur) >  CWPPR(prev)       -> thr += thr * step_pct / 100   (integer, floor)
 *   otherwise (<=, ties included)    -> thr -= thr * step_pct / 100
 *   then clamped to [thr_min, thr_max] (the paper gives no bounds); cur becomes prev.
 * Small kernels (IV-A): "In some cases when the number of log updates to PM of the entire GPU
 * kernel is less than 10000, the threshold will be initialized with a smaller value." The paper
 * gives no value; persim's rule (agpm_sel_kernel_start, called at every kernel launch with the
 * launch's log updates expected on this SM = the launch's log updates / number of SMs, because
 * persim counts periods per SM): if that count is below thr_init, the threshold of this launch is
 *     max(min_log, ceil(count / small_periods))     (persim's; small_periods = 0: rule off)
 * clamped to [1, thr_max], else thr_init. The floor min_log keeps a period from being reason e
 * (log < min_log) by construction; a launch whose count is below min_log ends no period (it is
 * "too small", reason e's NT, which the selector keeps only if it is already on NT -- it keeps
 * the path it has). At every launch the period's log count and CWPPR restart and the first
 * period of the launch is not adapted ("initialized" per kernel); the path carries over from the
 * previous launch (persim's: the paper does not say). While a small-kernel threshold is in force
 * the adaptation clamps to [min(thr_min, that threshold), thr_max].
 *
 * Coded path (IV-B's path-change mark; docs/models/agpm.md): cfg.coded_path is the path the
 * program wrote its log stores for (store + clwb = T, or NT stores). A log update the selector
 * sends over another path gets the mark: coded NT sent over T -> an added clwb-like write-back;
 * coded T sent over NT -> the program's clwb is dropped (agpm_buf_log_write(..., coded, selected)).
 * Default T: the paper's programs are Lin et al.'s CTA-level undo logging, whose log is persisted
 * with a clwb followed by a fence (section II-A, Figure 1; V-A: the PM instructions are inserted
 * by inline assembly, the log "is persisted"); IV-B speaks of "the original clwb" of a log store.
 *
 * The path before the first period ends is cfg.initial_path (the paper does not say; default NT,
 * the conventional choice for logs, section I). Caller-owned state: agpm_sel_bytes() bytes. */
#ifndef PERSIM_AGPM_SEL_H
#define PERSIM_AGPM_SEL_H
#include <stddef.h>
#include <stdint.h>
#include "agpm_buf.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum agpm_reason {
    AGPM_R_NONE = 0,   /* no classification yet */
    AGPM_R_A, AGPM_R_B, AGPM_R_C, AGPM_R_D, AGPM_R_E, AGPM_R_F, AGPM_R_G, AGPM_R_H
} agpm_reason;

typedef struct agpm_sel_cfg {
    uint32_t ratio_num, ratio_den;  /* b/d split, ratio_num/ratio_den (paper: 0.25 = 1/4); den >= 1, num <= den */
    uint64_t min_log;               /* e: log < min_log (paper: 100) */
    uint32_t thr_init;              /* initial log-write threshold (paper: 10000); thr_min..thr_max */
    uint32_t thr_min, thr_max;      /* clamp of the adapted threshold, 1 <= min <= max */
    uint32_t step_pct;              /* adaptation step in percent (paper: 10), 0..100 */
    uint32_t initial_path;          /* agpm_path before the first period ends (T or NT) */
    uint32_t coded_path;            /* agpm_path the program coded its log stores for (T or NT; paper: T) */
    uint32_t small_periods;         /* small-kernel rule: periods per SM of a small launch (persim: 4; 0 = off) */
} agpm_sel_cfg;

/* The paper's values: ratio 1/4, min_log 100, threshold 10000 (bounds 100..1e9), step 10 %,
 * initial path NT, coded path T; persim's small-kernel rule with 4 periods per SM. */
agpm_sel_cfg agpm_sel_default_cfg(void);

typedef struct agpm_sel_in {
    agpm_vars l1d, l2;   /* the L1 buffer's and the L2 buffer's share of Table II */
    uint64_t  all, log;  /* updates (all kinds) and log updates in the period */
    int       shm_used;  /* the kernel uses shared memory */
} agpm_sel_in;

/* Table III classification (pure function of cfg and in). */
agpm_reason agpm_sel_classify(const agpm_sel_cfg *cfg, const agpm_sel_in *in);
/* The path for a reason: T for a, c, d, g; NT for b, e, f, h; AGPM_PATH_NONE for AGPM_R_NONE. */
agpm_path   agpm_sel_path_for(agpm_reason r);
char        agpm_reason_letter(agpm_reason r);   /* 'a'..'h', '-' for none */

typedef struct agpm_sel_stats {
    uint64_t log_updates, pm_requests, periods, thr_up, thr_down, path_changes;
    uint64_t kernels, small_kernels;   /* launches seen (agpm_sel_kernel_start), of them small */
    uint64_t reasons[9];   /* periods classified per reason (index agpm_reason) */
} agpm_sel_stats;

typedef struct agpm_sel agpm_sel;

size_t agpm_sel_bytes(void);
int    agpm_sel_init(void *mem, const agpm_sel_cfg *cfg);   /* 0 ok, -1 bad cfg */
const agpm_sel_cfg *agpm_sel_config(const agpm_sel *s);

/* ---- transaction API ---- */
/* One log update of this SM issued (on the current path). Returns 1 if the period ends with it
 * (count reached the threshold): the caller collects agpm_sel_in and calls agpm_sel_end_period. */
int agpm_sel_log_update(agpm_sel *s);
/* A PM request completed after waiting `cycles` (for CWPPR). */
void agpm_sel_pm_done(agpm_sel *s, uint64_t cycles);
/* Period end (also usable at kernel end): classify `in`, set the path, adapt the threshold,
 * start a new period (log count and CWPPR sums cleared). Returns the new path. The caller resets
 * the AGPM buffers. in->log is taken as given (usually agpm_sel_period_logs()). */
agpm_path agpm_sel_end_period(agpm_sel *s, const agpm_sel_in *in);

/* Kernel launch (IV-A): `sm_logs` = the launch's log updates expected on this SM. Applies the
 * small-kernel rule above (sets the threshold for the launch), restarts the period count and the
 * CWPPR history; the path is kept. Returns the launch's threshold. The caller flushes the AGPM
 * buffers (IV-B: "When a period ends or the kernel execution completes, all the contents ... will
 * be flushed"). */
uint32_t agpm_sel_kernel_start(agpm_sel *s, uint64_t sm_logs);
/* The threshold the small-kernel rule gives for `sm_logs` (pure; thr_init if the rule is off or
 * the launch is not small). */
uint32_t agpm_sel_kernel_threshold(const agpm_sel_cfg *cfg, uint64_t sm_logs);

/* ---- queries ---- */
agpm_path   agpm_sel_path(const agpm_sel *s);        /* path for log updates now */
agpm_path   agpm_sel_prev_path(const agpm_sel *s);   /* path before the last period end */
agpm_reason agpm_sel_reason(const agpm_sel *s);      /* reason of the last period end */
uint32_t    agpm_sel_threshold(const agpm_sel *s);
uint64_t    agpm_sel_period_logs(const agpm_sel *s); /* log updates in the current period */
/* CWPPR of the current / previous period as num/den (den 0: none completed / no previous). */
void        agpm_sel_cwppr(const agpm_sel *s, int previous, uint64_t *num, uint64_t *den);
const agpm_sel_stats *agpm_sel_get_stats(const agpm_sel *s);

#ifdef __cplusplus
}
#endif
#endif
