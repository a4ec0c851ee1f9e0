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

} // namespace persim
