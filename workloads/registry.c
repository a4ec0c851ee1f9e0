/* persim: the workload registry (workload.h). The six SBRP applications (Table 2), in a fixed
 * order. Each generator lives in workloads/wl_<name>.c. */
#include <string.h>

#include "workload.h"

extern const persim_workload wl_gpkvs_workload;
extern const persim_workload wl_hm_workload;
extern const persim_workload wl_srad_workload;
extern const persim_workload wl_reduction_workload;
extern const persim_workload wl_mq_workload;
extern const persim_workload wl_scan_workload;

static const persim_workload *const wl_table[] = {
    &wl_gpkvs_workload,
    &wl_hm_workload,
    &wl_srad_workload,
    &wl_reduction_workload,
    &wl_mq_workload,
    &wl_scan_workload,
    NULL,
};

const persim_workload *wl_find(const char *name)
{
    if (!name) return NULL;
    for (const persim_workload *const *w = wl_table; *w; w++)
        if (strcmp((*w)->name, name) == 0) return *w;
    return NULL;
}

const persim_workload *const *wl_all(void) { return wl_table; }
