// BROI (broi-persistence-parallelism.md; docs/models/broi.md): buffered strict persistence with a
// per-core persist buffer that tracks inter-thread dependencies (IV-C) and the BROI controller at
// the memory controller (front end `broi`, cores/broi_sched), BLP-aware barrier-epoch scheduling
// (IV-D). No DRAM cache (Table III: NVM is main memory); cache write-backs do not persist (the
// persist buffer does).
#include "cpu_model.h"
#include "registry.h"
extern "C" {
#include "broi_sched.h"
}

namespace persim {

namespace {
// broi-epoch: every thread's i-th epoch is merged into global epoch i (the core's epoch_merge).
void merge_epochs(broi_sched_cfg &c) { c.epoch_merge = 1; }
// broi-epoch-1q: one in-order entry for every thread's persists and barriers, with 16 request units.
void one_queue(broi_sched_cfg &c)
{
    c.local_entries = 1;
    c.units = 16;
}
} // namespace

const CpuModel kCpuBroi{"broi",
                        "BROI: persist buffers with dependency tracking, BLP-aware barrier-epoch scheduling at the "
                        "memory controller (buffered strict persistence)",
                        make_pbuf_persistence, 64, RSEQ_LAZY, true, false, true, FrontEndTuning("broi")};
PERSIM_REGISTER(CpuModel, "broi", kCpuBroi, 70);

// Baseline Epoch as BROI section III / Figure 3(a) describes the prior work (delegated ordering,
// buffered epoch persistency, Kolli et al.): every thread's i-th epoch is merged into one global
// epoch i, a global barrier between them, and nothing is BLP-aware (cores/broi_sched epoch_merge).
const CpuModel kCpuBroiEpoch{"broi-epoch",
                             "BROI baseline (Figure 3(a)): delegated ordering with buffered epoch persistency, "
                             "every thread's i-th epoch merged into global epoch i, not BLP-aware",
                             make_pbuf_persistence, 64, RSEQ_LAZY, true, false, true,
                             FrontEndTuning("broi").on<broi_sched_cfg>(merge_epochs)};
PERSIM_REGISTER(CpuModel, "broi-epoch", kCpuBroiEpoch, 80);

// persim's stricter baseline (the `broi-epoch` of earlier persim versions): every thread's persists
// and barriers go through one in-order queue at the controller, so any thread's barrier orders
// everything before it, and the schedule is not BLP-aware.
const CpuModel kCpuBroiEpoch1q{"broi-epoch-1q",
                               "stricter BROI baseline (persim's): one in-order epoch queue at the controller for "
                               "all threads, any barrier orders everything before it (not BLP-aware)",
                               make_pbuf_persistence, 64, RSEQ_LAZY, true, false, true,
                               FrontEndTuning("broi").on<broi_sched_cfg>(one_queue)};
PERSIM_REGISTER(CpuModel, "broi-epoch-1q", kCpuBroiEpoch1q, 90);

// Broken variant for the checkers: dependencies ignored (an entry leaves as soon as it is the
// oldest), so conflicting persists of two threads can reach NVM out of their volatile order.
const CpuModel kCpuBroiNodeps{"broi-nodeps",
                              "broken BROI variant for persim check/crash: inter-thread dependencies ignored",
                              make_pbuf_persistence, 64, RSEQ_LAZY, false, false, true, FrontEndTuning("broi")};
PERSIM_REGISTER(CpuModel, "broi-nodeps", kCpuBroiNodeps, 100);

} // namespace persim
