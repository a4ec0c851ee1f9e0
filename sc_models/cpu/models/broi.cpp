// BROI (broi-persistence-parallelism.md; docs/models/broi.md): buffered strict persistence with a
// per-core persist buffer that tracks inter-thread dependencies (IV-C) and the BROI controller at
// the memory controller (front end `broi`, cores/broi_sched), BLP-aware barrier-epoch scheduling
// (IV-D). No DRAM cache (Table III: NVM is main memory); cache write-backs do not persist (the
// persist buffer does).
#include "cpu_model.h"

namespace persim {

const CpuModel kCpuBroi{"broi",
                        "BROI: persist buffers with dependency tracking, BLP-aware barrier-epoch scheduling at the "
                        "memory controller (buffered strict persistence)",
                        false, 64, CpuModel::AtBoundary::NONE, "broi", false, true, false, true, true, ""};

// Baseline `epoch` (Kolli et al. delegated ordering, buffered epoch persistency with large epochs):
// every thread's persists and barriers go through one in-order queue at the controller, so a
// barrier orders everything before it and the schedule is not BLP-aware.
const CpuModel kCpuBroiEpoch{"broi-epoch",
                             "BROI baseline: delegated ordering with buffered epoch persistency, one in-order "
                             "epoch queue at the controller (not BLP-aware)",
                             false, 64, CpuModel::AtBoundary::NONE, "broi", false, true, false, true, true,
                             "broi.local_entries=1;broi.units=16"};

// Broken variant for the checkers: dependencies ignored (an entry leaves as soon as it is the
// oldest), so conflicting persists of two threads can reach NVM out of their volatile order.
const CpuModel kCpuBroiNodeps{"broi-nodeps",
                              "broken BROI variant for persim check/crash: inter-thread dependencies ignored",
                              false, 64, CpuModel::AtBoundary::NONE, "broi", false, true, false, true, false, ""};

} // namespace persim
