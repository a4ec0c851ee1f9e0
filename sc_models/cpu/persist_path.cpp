// The cpu persist path interface (persist_path.h) and NoPath: models without a persist path
// (memory mode `none`, ideal PSP `psp`): stores stop in the caches, ordering ops cost nothing.
#include "persist_path.h"
extern "C" {
#include "fe_buf.h"
}

namespace persim {

const char *cpu_wait_name(CpuWait w)
{
    static const char *const n[kCpuWaits] = {"none", "loads", "store buffer", "front-end buffer full",
                                             "region durable", "lock", "barrier", "victim", "persist ACK"};
    return n[(int)w];
}

void CpuPersistPath::report_common(StatsWriter &w, const std::string &g, uint64_t path_writes, const fe_buf_stats *fs,
                                   double link_busy_ns)
{
    w.add(g, "path_writes", path_writes, "writes",
          "entries put on the persist path (8-byte stores; BROI: persist-buffer entries, cache blocks)");
    w.add(g, "fe_conflicts", fs ? fs->conflicts : 0, "events", "L1 victim candidates that conflicted with the front-end buffer (IV-G)");
    w.add(g, "victim_waits", fs ? fs->victim_waits : 0, "events", "evictions delayed: no conflict-free victim within the policy");
    w.add(g, "fe_full", fs ? fs->full : 0, "events", "pushes refused by a full front-end buffer");
    w.add(g, "link_busy_ns", link_busy_ns, "ns", "persist path serialization time");
}

void CpuPersistPath::report(StatsWriter &w, const std::string &g) const { report_common(w, g, 0, nullptr, 0); }

namespace {
class NoPersistence : public CpuPersistence {
public:
    std::unique_ptr<CpuPersistPath> make_path(const CpuPathSite &, PmControllers &) override
    {
        return std::make_unique<CpuPersistPath>();
    }
};
} // namespace

std::unique_ptr<CpuPersistence> make_no_persistence(const CpuPersistEnv &) { return std::make_unique<NoPersistence>(); }

void SelFigs::report(StatsWriter &w, const std::string &g) const
{
    w.add(g, "run_images", run_images, "images", "distinct crash images of the run (durable instants)");
    w.add(g, "checked_run_images", checked_run, "images", "run images checked (--points, --at)");
    w.add(g, "failed_run_images", failed_run, "images", "run images checked that fail the check");
    w.add(g, "targeted_images", targeted, "images",
          "model images targeted at a write the model lets become durable while an older one is not (--images model)");
    w.add(g, "targeted_failed", targeted_failed, "images", "targeted model images that fail the check");
    w.add(g, "samples", samples, "images", "random model images tried (--images model)");
    w.add(g, "samples_failed", samples_failed, "images", "random model images that fail the check");
    w.add(g, "failed_images", failed, "images", "images tried that fail the check (run, targeted, sampled)");
    w.add(g, "seed", (double)seed, "-", "seed that picks the crash points (persim crash --seed)");
    if (first_kind < 0) return;
    w.add(g, "first_failed_kind", (double)first_kind, "-", "first failing image: 0 a run image, 1 targeted, 2 a sample");
    w.add(g, "first_failed_index", (double)first_index, "-", "its number (--target K, --sample K; -1 for a run image)");
    w.add(g, "first_failed_ps", (double)first_ps, "ps", "its crash instant (a run image: --at PS replays it)");
    w.add(g, "first_failed_addr", (double)first_addr, "B", "lowest PM word address that differs in it (region check)");
    w.add(g, "first_failed_missing", (double)first_a, "-", "an older write not durable in it (write id; 0: none named)");
    w.add(g, "first_failed_durable", (double)first_b, "-", "the write made durable in it (write id; 0: none named)");
}

} // namespace persim
