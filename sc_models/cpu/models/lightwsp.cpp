// LightWSP (lightwsp-whole-system-persistence.md): region-tagged 8-byte stores on the persist
// path, boundaries broadcast to every controller, region-gated WPQs, lazy region-level persist
// ordering (III-B), dirty LLC evictions dropped (IV-G). docs/models/lightwsp.md.
#include "cpu_model.h"
#include "registry.h"
extern "C" {
#include "wpq_gate.h"
}

namespace persim {

namespace {
// lightwsp-ungated: the controllers' WPQ gate is off (cores/wpq_gate.h ungated mode).
void ungate(wpq_gate_cfg &c) { c.ungated = 1; }
} // namespace

const CpuModel kCpuLightwsp{"lightwsp",
                            "LightWSP: regions, 8 B region-tagged stores on the persist path, region-gated WPQs, "
                            "lazy region-level persist ordering",
                            make_region_persistence, 8, RSEQ_LAZY, false, true, true, FrontEndTuning("wpq_gate")};
PERSIM_REGISTER(CpuModel, "lightwsp", kCpuLightwsp, 20);

// The same with the WPQ gate disabled (cores/wpq_gate.h ungated mode): partly persisted regions
// reach PM, which `persim crash` must report.
const CpuModel kCpuLightwspUngated{"lightwsp-ungated",
                                   "broken LightWSP variant for the crash check: WPQs not gated by region "
                                   "(ADR-like), so a region can persist partly",
                                   make_region_persistence, 8, RSEQ_LAZY, false, true, true,
                                   FrontEndTuning("wpq_gate").on<wpq_gate_cfg>(ungate)};
PERSIM_REGISTER(CpuModel, "lightwsp-ungated", kCpuLightwspUngated, 60);

} // namespace persim
