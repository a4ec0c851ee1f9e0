// The cpu system's baselines (LightWSP section V-A/B/D; docs/models/lightwsp.md):
//   none   Optane memory mode with the original binary: no regions, no persistence (the
//          normalisation base of Figures 7, 9, 11-17);
//   ppa    PPA-like: stores persist asynchronously from the core (8 B on the persist path into
//          ADR WPQs), but at each region end the core waits until the region's stores are durable;
//   capri  Capri-like: 64 B per 8 B store on its own path into ADR WPQs; with several controllers
//          the path stops at a region end until the previous region has drained;
//   psp    ideal PSP (BBB/eADR-like, Figure 9): persistence costs nothing at the core, but PM is
//          main memory without a DRAM cache.
#include "cpu_model.h"
#include "registry.h"

namespace persim {

const CpuModel kCpuNone{"none", "memory mode (DRAM cache in front of PM), no persistence: the normalisation base",
                        make_no_persistence, 0, RSEQ_LAZY, false, true, false, FrontEndTuning("adr_wpq")};
PERSIM_REGISTER(CpuModel, "none", kCpuNone, 10);
const CpuModel kCpuPpa{"ppa", "PPA-like: 8 B stores persist in the background, the core waits at each region end",
                       make_region_persistence, 8, RSEQ_CORE_WAITS, false, true, true, FrontEndTuning("adr_wpq")};
PERSIM_REGISTER(CpuModel, "ppa", kCpuPpa, 30);
const CpuModel kCpuCapri{"capri", "Capri-like: 64 B per 8 B store on its own path; the path waits at region ends",
                         make_region_persistence, 64, RSEQ_PATH_WAITS, false, true, true, FrontEndTuning("adr_wpq")};
PERSIM_REGISTER(CpuModel, "capri", kCpuCapri, 40);
const CpuModel kCpuPsp{"psp", "ideal PSP (battery-backed caches): no persistence cost, no DRAM cache",
                       make_no_persistence, 0, RSEQ_LAZY, false, false, false, FrontEndTuning("adr_wpq")};
PERSIM_REGISTER(CpuModel, "psp", kCpuPsp, 50);

} // namespace persim
