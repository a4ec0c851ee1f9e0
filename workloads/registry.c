/* persim: the workload registry (workload.h). Every generator registers its workloads in its own
 * file (PERSIM_WORKLOAD(sym, group, order) after the definition); the lists are kept sorted by
 * (order, name) as they register, NULL-terminated, so every listing has a fixed order that does not
 * depend on link order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

#define WL_MAX 256   /* per group */

static struct {
    const persim_workload *w[WL_MAX + 1];   /* NULL-terminated */
    int order[WL_MAX];
    int n;
} groups[WL_NGROUPS];

void wl_register(const persim_workload *w, wl_group g, int order)
{
    if ((int)g < 0 || g >= WL_NGROUPS || !w || !w->name) {
        fprintf(stderr, "persim: wl_register: bad workload or group %d\n", (int)g);
        abort();
    }
    if (wl_find(w->name)) {
        fprintf(stderr, "persim: workload '%s' registered twice (PERSIM_WORKLOAD)\n", w->name);
        abort();
    }
    if (groups[g].n == WL_MAX) {
        fprintf(stderr, "persim: more than %d workloads in group %d (workloads/registry.c: WL_MAX)\n", WL_MAX, (int)g);
        abort();
    }
    int i = groups[g].n++;
    while (i > 0 && (groups[g].order[i - 1] > order ||
                     (groups[g].order[i - 1] == order && strcmp(groups[g].w[i - 1]->name, w->name) > 0))) {
        groups[g].w[i] = groups[g].w[i - 1];
        groups[g].order[i] = groups[g].order[i - 1];
        --i;
    }
    groups[g].w[i] = w;
    groups[g].order[i] = order;
    groups[g].w[groups[g].n] = NULL;
}

const persim_workload *wl_find(const char *name)
{
    if (!name) return NULL;
    for (int g = 0; g < WL_NGROUPS; ++g)
        for (int i = 0; i < groups[g].n; ++i)
            if (strcmp(groups[g].w[i]->name, name) == 0) return groups[g].w[i];
    return NULL;
}

const persim_workload *const *wl_all(void) { return groups[WL_GPU].w; }
const persim_workload *const *wl_variants(void) { return groups[WL_VARIANT].w; }
const persim_workload *const *wl_cpu_all(void) { return groups[WL_CPU].w; }
const persim_workload *const *wl_agpm_all(void) { return groups[WL_AGPM].w; }
const persim_workload *const *wl_agpm_nolog_all(void) { return groups[WL_AGPM_NOLOG].w; }
