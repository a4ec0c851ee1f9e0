/* persim: the workload registry (workload.h). The six SBRP applications (Table 2) and the
 * scoped-persist-barrier workloads, in a fixed order, and buggy variants. Each generator lives in workloads/wl_<name>.c. */
#include <string.h>

#include "workload.h"

extern const persim_workload wl_gpkvs_workload;
extern const persim_workload wl_hm_workload;
extern const persim_workload wl_srad_workload;
extern const persim_workload wl_reduction_workload;
extern const persim_workload wl_mq_workload;
extern const persim_workload wl_scan_workload;
extern const persim_workload wl_btree_kr_workload;
extern const persim_workload wl_btree_wg_workload;
extern const persim_workload wl_hashtable_wi_workload;
extern const persim_workload wl_btree_kr_log_workload;
extern const persim_workload wl_btree_wg_log_workload;
extern const persim_workload wl_btree_wg_wi_bug_workload;
extern const persim_workload wl_reduction_blkscope_bug_workload;
extern const persim_workload wl_mq_noorder_bug_workload;
extern const persim_workload wl_cpu_queue_workload;
extern const persim_workload wl_cpu_hashtable_workload;
extern const persim_workload wl_cpu_arrayswap_workload;
extern const persim_workload wl_cpu_btree_workload;
extern const persim_workload wl_cpu_txbank_workload;
extern const persim_workload wl_prof_cpu2006_mem_workload;
extern const persim_workload wl_prof_cpu2006_comp_workload;
extern const persim_workload wl_prof_cpu2017_mem_workload;
extern const persim_workload wl_prof_cpu2017_comp_workload;
extern const persim_workload wl_prof_npb_workload;
extern const persim_workload wl_prof_splash3_workload;
extern const persim_workload wl_prof_whisper_workload;
extern const persim_workload wl_broi_hashtable_workload;
extern const persim_workload wl_broi_rbtree_workload;
extern const persim_workload wl_broi_sps_workload;
extern const persim_workload wl_broi_bptree_workload;
extern const persim_workload wl_broi_ssca2_workload;
extern const persim_workload wl_broi_hashtable_hybrid_workload;
extern const persim_workload wl_broi_rbtree_hybrid_workload;
extern const persim_workload wl_broi_sps_hybrid_workload;
extern const persim_workload wl_broi_bptree_hybrid_workload;
extern const persim_workload wl_broi_ssca2_hybrid_workload;
extern const persim_workload wl_broi_ycsb_workload;
extern const persim_workload wl_broi_tpcc_workload;
extern const persim_workload wl_broi_ctree_workload;
extern const persim_workload wl_broi_hashmap_workload;
extern const persim_workload wl_broi_hashmap_e128_workload;
extern const persim_workload wl_broi_hashmap_e256_workload;
extern const persim_workload wl_broi_hashmap_e512_workload;
extern const persim_workload wl_broi_hashmap_e1024_workload;
extern const persim_workload wl_broi_hashmap_e2048_workload;
extern const persim_workload wl_broi_hashmap_e4096_workload;
extern const persim_workload wl_broi_memcached_workload;

static const persim_workload *const wl_table[] = {
    &wl_gpkvs_workload,
    &wl_hm_workload,
    &wl_srad_workload,
    &wl_reduction_workload,
    &wl_mq_workload,
    &wl_scan_workload,
    /* scoped persist barriers paper (issue 5): B+tree insertion, Algorithms 1 and 2; hash table */
    &wl_btree_kr_workload,
    &wl_btree_wg_workload,
    &wl_hashtable_wi_workload,
    /* the B+tree programs with the undo log of the paper's section 8.3 (persim crash) */
    &wl_btree_kr_log_workload,
    &wl_btree_wg_log_workload,
    NULL,
};

/* Deliberately buggy variants (docs/checking.md "Scoped persistency bugs"). */
static const persim_workload *const wl_variant_table[] = {
    &wl_reduction_blkscope_bug_workload,
    &wl_mq_noorder_bug_workload,
    &wl_btree_wg_wi_bug_workload,
    NULL,
};

/* CPU workloads (docs/workloads-cpu.md): programs for a CPU system (wl_params.num_threads > 0;
 * they refuse to build on a GPU). In their own table so that wl_all() stays the GPU list. */
static const persim_workload *const wl_cpu_table[] = {
    &wl_cpu_queue_workload,
    &wl_cpu_hashtable_workload,
    &wl_cpu_arrayswap_workload,
    &wl_cpu_btree_workload,
    &wl_cpu_txbank_workload,
    /* access profiles of the paper's benchmark classes (workloads/wl_cpu_prof.c) */
    &wl_prof_cpu2006_mem_workload,
    &wl_prof_cpu2006_comp_workload,
    &wl_prof_cpu2017_mem_workload,
    &wl_prof_cpu2017_comp_workload,
    &wl_prof_npb_workload,
    &wl_prof_splash3_workload,
    &wl_prof_whisper_workload,
    /* the BROI paper's workloads (workloads/wl_broi*.c, docs/workloads-cpu.md "BROI workloads"): local
     * micro-benchmarks, hybrid variants (+ RDMA channels), remote client profiles (remote streams only) */
    &wl_broi_hashtable_workload,
    &wl_broi_rbtree_workload,
    &wl_broi_sps_workload,
    &wl_broi_bptree_workload,
    &wl_broi_ssca2_workload,
    &wl_broi_hashtable_hybrid_workload,
    &wl_broi_rbtree_hybrid_workload,
    &wl_broi_sps_hybrid_workload,
    &wl_broi_bptree_hybrid_workload,
    &wl_broi_ssca2_hybrid_workload,
    &wl_broi_ycsb_workload,
    &wl_broi_tpcc_workload,
    &wl_broi_ctree_workload,
    &wl_broi_hashmap_workload,
    &wl_broi_hashmap_e128_workload,
    &wl_broi_hashmap_e256_workload,
    &wl_broi_hashmap_e512_workload,
    &wl_broi_hashmap_e1024_workload,
    &wl_broi_hashmap_e2048_workload,
    &wl_broi_hashmap_e4096_workload,
    &wl_broi_memcached_workload,
    NULL,
};

const persim_workload *wl_find(const char *name)
{
    if (!name) return NULL;
    for (const persim_workload *const *w = wl_table; *w; w++)
        if (strcmp((*w)->name, name) == 0) return *w;
    for (const persim_workload *const *w = wl_variant_table; *w; w++)
        if (strcmp((*w)->name, name) == 0) return *w;
    for (const persim_workload *const *w = wl_cpu_table; *w; w++)
        if (strcmp((*w)->name, name) == 0) return *w;
    for (const persim_workload *const *w = wl_agpm_all(); *w; w++)
        if (strcmp((*w)->name, name) == 0) return *w;
    for (const persim_workload *const *w = wl_agpm_nolog_all(); *w; w++)
        if (strcmp((*w)->name, name) == 0) return *w;
    return NULL;
}

const persim_workload *const *wl_variants(void) { return wl_variant_table; }

const persim_workload *const *wl_all(void) { return wl_table; }


const persim_workload *const *wl_cpu_all(void) { return wl_cpu_table; }
