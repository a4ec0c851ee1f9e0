// Model `agpm`: adaptive data-path selection for the log writes of undo logging (AGPM paper,
// agpm-adaptive-data-path-selection.txt, sections III-IV; docs/models/agpm.md). Hardware: an AGPM
// buffer (cores/agpm_buf) beside each L1 and each L2 bank (partition), a path selector with its
// periods and adaptive log-write threshold (cores/agpm_sel) per SM. The cores decide; this file
// only feeds them the L1's events (through the generic PersistHw hooks) and carries out the path.
//  - a log update: its read of the data it copies (`ld log`, III / V-A: the undo log is a copy of
//    the data to be updated) is recorded as a log update on the data block in the SM's L1 buffer
//    (agpm_buf_log_write, no path) and, on an L1 miss, in the bank's buffer;
//  - a log-write line: recorded in the SM's L1 buffer (agpm_buf_log_write, coded path =
//    persist.agpm.coded_path, selected path = the SM's selector) and in its L2 bank's buffer (the
//    request passes the partition on either path); if the core marks the line NT -> T, the store
//    is T_WB (the clwb-like write-back added after the temporal store, IV-B); T -> NT: the
//    program's clwb is dropped (nothing to do: an NT store leaves no dirty line; counted); each
//    log-write line is one log update of the period (agpm_sel_log_update);
//  - a kernel launch: every AGPM buffer is flushed (IV-B: "When a period ends or the kernel
//    execution completes ...") and each selector starts the launch (agpm_sel_kernel_start: the
//    small-kernel rule of IV-A with the launch's log-write lines / SMs);
//  - any other PM access (loads, data stores): the L1 buffer's all way (agpm_buf_access); an L1
//    load miss also reaches the L2 bank's buffer;
//  - a PM line written back from the L1 (clwb, fence, replacement): its entries go to the
//    reservation buffers of the L1 buffer and of the L2 bank's buffer (the L2 writes PM lines
//    through to the ADR controller), to be refilled on the next access (IV-B);
//  - every finished PM request (load miss, write-back, NT store): its wait in SM cycles (CWPPR);
//  - period end (agpm_sel_log_update says so): the selector classifies the L1 buffer's and the sum
//    of the L2 buffers' variables (reserved entries included) and picks the path for the next
//    period; then the SM's L1 buffer and every L2 buffer are flushed (IV-A: "all the AGPM buffers
//    will be flushed").
#include <cstring>
#include "config_table.h"
#include "gpu.h"
#include "interconnect.h"
#include "persist/data_path.h"
extern "C" {
#include "agpm_buf.h"
#include "agpm_sel.h"
}

namespace persim {

namespace {

// persist.agpm.* keys: the AGPM buffer (cores/agpm_buf.h) and the path selector (cores/agpm_sel.h).
struct AgpmCfg {
    agpm_buf_cfg buf;
    agpm_sel_cfg sel;
};

const ConfigTable<AgpmCfg> &agpm_table()
{
    using K = AgpmCfg;
    auto n = [](const char *key, int64_t def, const char *unit, const char *desc, double lo, double hi) {
        return config_def(key, PType::Int, def, unit, desc, lo, hi);
    };
    static const ConfigTable<K> t =
        ConfigTable<K>("agpm", "sc_models/gpu/persist/agpm.cpp")
            .row(n("persist.agpm.buf_entries", 1024, "entries", "agpm: entries of each AGPM buffer (AGPM paper IV-C: 1024)", 2, 1 << 20),
                 "agpm_buf_cfg::entries", "", [](K &k, const Config &c) { k.buf.entries = (uint32_t)c.i("persist.agpm.buf_entries"); })
            .row(n("persist.agpm.buf_ways", 2, "ways", "agpm: AGPM buffer ways, half log ways and half all ways, even (IV-B/IV-C: 2)", 2, 64),
                 "agpm_buf_cfg::ways", "", [](K &k, const Config &c) { k.buf.ways = (uint32_t)c.i("persist.agpm.buf_ways"); })
            .row(n("persist.agpm.block_bytes", 128, "B", "agpm: AGPM buffer block (tag) size, a power of two (IV-B: aligned 128-byte block)", 4, 4096),
                 "agpm_buf_cfg::block_bytes", "", [](K &k, const Config &c) { k.buf.block_bytes = (uint32_t)c.i("persist.agpm.block_bytes"); })
            .row(n("persist.agpm.byte_ctr_bits", 5, "bits", "agpm: width of each saturating per-byte counter (IV-C: 5-bit)", 1, 8),
                 "agpm_buf_cfg::byte_ctr_bits", "", [](K &k, const Config &c) { k.buf.byte_ctr_bits = (uint32_t)c.i("persist.agpm.byte_ctr_bits"); })
            .row(n("persist.agpm.blk_ctr_bits", 5, "bits", "agpm: width of the saturating block counter (IV-C: 130 5-bit counters)", 1, 32),
                 "agpm_buf_cfg::blk_ctr_bits", "", [](K &k, const Config &c) { k.buf.blk_ctr_bits = (uint32_t)c.i("persist.agpm.blk_ctr_bits"); })
            .row(n("persist.agpm.resv_entries", 1024, "entries",
                   "agpm: reservation-buffer entries per AGPM buffer (IV-B; size not given by the paper: persim default = buffer entries)", 0, 1 << 20),
                 "agpm_buf_cfg::resv_entries", "", [](K &k, const Config &c) { k.buf.resv_entries = (uint32_t)c.i("persist.agpm.resv_entries"); })
            .row(n("persist.agpm.thr_init", 10000, "log updates", "agpm: initial log-write threshold of a period (IV-A: 10000)", 1, 1000000000),
                 "agpm_sel_cfg::thr_init", "", [](K &k, const Config &c) { k.sel.thr_init = (uint32_t)c.i("persist.agpm.thr_init"); })
            .row(n("persist.agpm.thr_min", 100, "log updates", "agpm: lower clamp of the adapted threshold (not in the paper: persim)", 1, 1000000000),
                 "agpm_sel_cfg::thr_min", "", [](K &k, const Config &c) { k.sel.thr_min = (uint32_t)c.i("persist.agpm.thr_min"); })
            .row(n("persist.agpm.thr_max", 1000000000, "log updates", "agpm: upper clamp of the adapted threshold (not in the paper: persim)", 1, 1000000000),
                 "agpm_sel_cfg::thr_max", "", [](K &k, const Config &c) { k.sel.thr_max = (uint32_t)c.i("persist.agpm.thr_max"); })
            .row(n("persist.agpm.step_pct", 10, "%", "agpm: threshold adaptation step per period (IV-A: +/-10%)", 0, 100),
                 "agpm_sel_cfg::step_pct", "", [](K &k, const Config &c) { k.sel.step_pct = (uint32_t)c.i("persist.agpm.step_pct"); })
            .row(n("persist.agpm.min_log", 100, "log updates", "agpm: reason e below this many log updates in a period (section III: 100)", 0, 1000000000),
                 "agpm_sel_cfg::min_log", "", [](K &k, const Config &c) { k.sel.min_log = (uint64_t)c.i("persist.agpm.min_log"); })
            .row(config_def("persist.agpm.ratio", PType::Float, 0.25, "fraction", "agpm: reason b/d split of the L1 log/all locality ratio (Table III: 0.25)", 0, 1),
                 "agpm_sel_cfg::ratio_num (/ ratio_den 10000)", "", [](K &k, const Config &c) {
                     k.sel.ratio_num = (uint32_t)(c.f("persist.agpm.ratio") * 10000 + 0.5);
                     k.sel.ratio_den = 10000;
                 })
            .row(config_def("persist.agpm.initial_path", PType::Enum, "nt", "-", "agpm: log-write path before the first period ends (not in the paper: NT, section I)",
                            -1e300, 1e300, {"nt", "t"}),
                 "agpm_sel_cfg::initial_path", "", [](K &k, const Config &c) {
                     k.sel.initial_path = c.s("persist.agpm.initial_path") == "t" ? AGPM_PATH_T : AGPM_PATH_NT;
                 })
            .row(config_def("persist.agpm.coded_path", PType::Enum, "t", "-",
                            "agpm: the path the program coded its log stores for: t = store + clwb (the paper's programs: Lin et al.'s "
                            "CTA-level undo logging persists the log with a clwb and a fence, sections II-A/Figure 1, V-A), nt = "
                            "non-temporal stores; a log store coded for NT sent over T gets an added clwb-like write-back, one coded for "
                            "T sent over NT has its clwb dropped (IV-B)", -1e300, 1e300, {"t", "nt"}),
                 "agpm_sel_cfg::coded_path", "", [](K &k, const Config &c) {
                     k.sel.coded_path = c.s("persist.agpm.coded_path") == "t" ? AGPM_PATH_T : AGPM_PATH_NT;
                 })
            .row(n("persist.agpm.small_periods", 4, "periods",
                   "agpm: small-kernel rule (IV-A: a kernel with fewer log updates than the threshold starts with \"a smaller "
                   "value\", not given): a launch with fewer than persist.agpm.thr_init log updates per SM gets the threshold "
                   "max(persist.agpm.min_log, ceil(its log updates per SM / this)) (persim's rule and value; 0 = off)", 0, 1000000),
                 "agpm_sel_cfg::small_periods", "", [](K &k, const Config &c) { k.sel.small_periods = (uint32_t)c.i("persist.agpm.small_periods"); });
    return t;
}
PERSIM_CONFIG_TABLE(agpm_table, 420);

struct Buf {
    std::vector<uint64_t> mem;
    agpm_buf *b = nullptr;
};

class AgpmHw : public DataPathHw {
public:
    AgpmHw(const Config &c, Gpu &g) : DataPathHw("agpm", g)
    {
        const GpuCfg &gc = g.cfg();
        period_ps_ = gc.period_ps;
        line_bytes_ = gc.line_bytes;
        banks_ = gc.l2_banks;
        AgpmCfg ac{};
        ac.buf = bc_;
        ac.sel = agpm_sel_default_cfg();
        agpm_table().fill(c, ac);
        bc_ = ac.buf;
        if (bc_.ways % 2) throw ConfigError("persist.agpm.buf_ways: must be even (half log ways, half all ways), got " + std::to_string(bc_.ways));
        if (bc_.entries % bc_.ways)
            throw ConfigError("persist.agpm.buf_entries: must be a multiple of persist.agpm.buf_ways (" +
                              std::to_string(bc_.ways) + "), got " + std::to_string(bc_.entries));
        if (bc_.block_bytes & (bc_.block_bytes - 1))
            throw ConfigError("persist.agpm.block_bytes: must be a power of two, got " + std::to_string(bc_.block_bytes));
        if (agpm_buf_bytes(&bc_) == 0)
            throw ConfigError("persist.agpm: invalid AGPM buffer (persist.agpm.buf_entries / buf_ways / block_bytes / "
                              "byte_ctr_bits / blk_ctr_bits / resv_entries)");
        sc_ = ac.sel;
        if (sc_.thr_min > sc_.thr_max)
            throw ConfigError("persist.agpm.thr_min: must not exceed persist.agpm.thr_max");
        if (sc_.thr_init < sc_.thr_min || sc_.thr_init > sc_.thr_max)
            throw ConfigError("persist.agpm.thr_init: must lie in [persist.agpm.thr_min, persist.agpm.thr_max] = [" +
                              std::to_string(sc_.thr_min) + ", " + std::to_string(sc_.thr_max) + "], got " +
                              std::to_string(sc_.thr_init));
        const uint32_t nsm = gc.num_sms;
        sel_mem_.resize(nsm);
        sel_.resize(nsm);
        for (uint32_t i = 0; i < nsm; ++i) {
            sel_mem_[i].assign((agpm_sel_bytes() + 7) / 8, 0);
            if (agpm_sel_init(sel_mem_[i].data(), &sc_) != 0)
                throw ConfigError("persist.agpm: invalid path selector (persist.agpm.ratio / thr_* / step_pct / min_log)");
            sel_[i] = reinterpret_cast<agpm_sel *>(sel_mem_[i].data());
        }
        l1_.resize(nsm);
        for (auto &b : l1_) init_buf(b);
        l2_.resize(banks_);
        for (auto &b : l2_) init_buf(b);
        all_.assign(nsm, 0);
        nsm_ = nsm;
    }

protected:
    StorePath choose(const PmStoreQuery &q) override
    {
        if (!q.log) return StorePath::T;
        agpm_sel *s = sel_[(size_t)q.sm];
        const agpm_path path = agpm_sel_path(s);
        const uint64_t base = q.la * q.line_bytes;
        bool wb = false, drop = false;
        const agpm_path coded = (agpm_path)sc_.coded_path;
        for_runs(q.mask, [&](uint32_t off, uint32_t len) {
            agpm_buf_log_write(l1_[(size_t)q.sm].b, base + off, len, coded, path);
            agpm_buf_log_write(l2_[bank(q.la)].b, base + off, len, AGPM_PATH_NONE, path);
            const agpm_mark m = agpm_buf_mark(l1_[(size_t)q.sm].b, base + off);
            if (m != AGPM_MARK_NONE) {
                agpm_buf_clear_mark(l1_[(size_t)q.sm].b, base + off);
                if (m == AGPM_MARK_NT_TO_T) wb = true;
                else drop = true;
            }
        });
        if (drop) ++dropped_clwbs_;
        ++all_[(size_t)q.sm];
        if (agpm_sel_log_update(s)) end_period(q.sm);
        if (path == AGPM_PATH_NT) return StorePath::NT;
        return wb ? StorePath::T_WB : StorePath::T;
    }

public:
    void on_l1_pm_access(int sm, uint64_t la, const uint64_t *mask, bool write, bool log, StorePath, bool hit) override
    {
        if (log && write) return;                // recorded by choose()
        if (write) ++all_[(size_t)sm];
        const uint64_t base = la * line_bytes_;
        if (log) {                               // the log update's read of the data it copies
            ++log_reads_;
            for_runs(mask, [&](uint32_t off, uint32_t len) {
                agpm_buf_log_write(l1_[(size_t)sm].b, base + off, len, AGPM_PATH_NONE, AGPM_PATH_NONE);
                if (!hit) agpm_buf_log_write(l2_[bank(la)].b, base + off, len, AGPM_PATH_NONE, AGPM_PATH_NONE);
            });
            return;
        }
        for_runs(mask, [&](uint32_t off, uint32_t len) {
            agpm_buf_access(l1_[(size_t)sm].b, base + off, len);
            if (!write && !hit) agpm_buf_access(l2_[bank(la)].b, base + off, len);
        });
    }
    void on_l1_pm_writeback(int sm, uint64_t la) override
    {
        agpm_buf_writeback(l1_[(size_t)sm].b, la * line_bytes_);
        agpm_buf_writeback(l2_[bank(la)].b, la * line_bytes_);
    }
    void on_block_launch(Sm &, BlockCtx &) override
    {
        const uint32_t k = gpu_.kernel_index();
        if (started_ && k == kernel_) return;
        started_ = true;
        kernel_ = k;
        // IV-B: the buffers are flushed when a kernel completes (= before the next one starts)
        flush_all();
        const uint64_t logs = kernel_log_lines(k);
        for (agpm_sel *s : sel_) agpm_sel_kernel_start(s, (logs + nsm_ - 1) / nsm_);
    }
    void on_pm_request_done(int sm, uint64_t wait_ps) override { agpm_sel_pm_done(sel_[(size_t)sm], wait_ps / period_ps_); }

protected:
    void report_more(StatsWriter &w, const std::string &g) override
    {
        agpm_sel_stats t{};
        uint32_t thr_min = UINT32_MAX, thr_max = 0, nt_now = 0;
        for (agpm_sel *s : sel_) {
            const agpm_sel_stats *x = agpm_sel_get_stats(s);
            t.log_updates += x->log_updates;
            t.pm_requests += x->pm_requests;
            t.periods += x->periods;
            t.thr_up += x->thr_up;
            t.thr_down += x->thr_down;
            t.path_changes += x->path_changes;
            for (int r = 0; r < 9; ++r) t.reasons[r] += x->reasons[r];
            if (x->periods) {                  // SMs that ended a period (the others still have thr_init)
                thr_min = std::min(thr_min, agpm_sel_threshold(s));
                thr_max = std::max(thr_max, agpm_sel_threshold(s));
            }
            nt_now += agpm_sel_path(s) == AGPM_PATH_NT;
        }
        if (thr_min > thr_max) thr_min = thr_max = sc_.thr_init;
        w.add(g, "log_updates", t.log_updates, "line accesses", "log updates counted by the path selectors (periods are counted in these)");
        w.add(g, "pm_requests", t.pm_requests, "requests", "finished PM requests counted for CWPPR");
        w.add(g, "periods", t.periods, "periods", "periods ended (all SMs)");
        w.add(g, "path_switches", t.path_changes, "switches", "period ends at which an SM's log-write path changed");
        w.add(g, "threshold_init", sc_.thr_init, "log updates", "initial log-write threshold of a period (persist.agpm.thr_init)");
        w.add(g, "threshold_min", thr_min, "log updates", "smallest current threshold over the SMs that ended a period (thr_init if none did)");
        w.add(g, "threshold_max", thr_max, "log updates", "largest current threshold over the SMs that ended a period (thr_init if none did)");
        w.add(g, "threshold_up", t.thr_up, "periods", "threshold increases by persist.agpm.step_pct (CWPPR grew)");
        w.add(g, "threshold_down", t.thr_down, "periods", "threshold decreases (CWPPR did not grow)");
        w.add(g, "sms_on_nt", nt_now, "SMs", "SMs whose log writes take the non-temporal path at the end");
        w.add(g, "kernels", sel_.empty() ? 0 : agpm_sel_get_stats(sel_[0])->kernels, "kernels", "kernel launches started");
        w.add(g, "small_kernels", sel_.empty() ? 0 : agpm_sel_get_stats(sel_[0])->small_kernels, "kernels",
              "launches whose log updates per SM were below persist.agpm.thr_init: threshold from the small-kernel rule "
              "(IV-A; persim's value, persist.agpm.small_periods)");
        w.add(g, "log_reads", log_reads_, "line accesses", "reads of the data a log update copies (`ld log`), recorded as log updates in the AGPM buffers");
        w.add(g, "dropped_clwbs", dropped_clwbs_, "line accesses",
              "log-write lines coded for T (persist.agpm.coded_path) sent over NT: the program's clwb is dropped (IV-B)");
        for (int r = AGPM_R_A; r <= AGPM_R_H; ++r)
            w.add(g, std::string("reason_") + agpm_reason_letter((agpm_reason)r), t.reasons[r], "periods",
                  std::string("periods classified as Table III reason ") + agpm_reason_letter((agpm_reason)r) + " (-> " +
                      (agpm_sel_path_for((agpm_reason)r) == AGPM_PATH_T ? "T" : "NT") + ")");
        agpm_buf_stats b{};
        auto addb = [&](const Buf &x) {
            const agpm_buf_stats *s = agpm_buf_get_stats(x.b);
            b.allocs += s->allocs;
            b.conflicts += s->conflicts;
            b.refills += s->refills;
            b.resv_dropped += s->resv_dropped;
            b.writebacks += s->writebacks;
        };
        for (auto &x : l1_) addb(x);
        for (auto &x : l2_) addb(x);
        // Table II (section III): the locality variables the selector classifies, summed over every
        // period of every SM (ended periods and the ones still open at the end of the run)
        agpm_vars l1 = seen_l1_, l2 = seen_l2_, v;
        for (auto &x : l1_) {
            agpm_buf_vars(x.b, 1, &v);
            add_vars(l1, v);
        }
        for (auto &x : l2_) {
            agpm_buf_vars(x.b, 1, &v);
            add_vars(l2, v);
        }
        const struct { const char *n; uint64_t v; const char *d; } t2[] = {
            {"l1d_t_all", l1.t_all, "L1D temporal locality, all accesses"}, {"l1d_t_log", l1.t_log, "L1D temporal locality, log writes"},
            {"l1d_s_all", l1.s_all, "L1D spatial locality, all accesses"}, {"l1d_s_log", l1.s_log, "L1D spatial locality, log writes"},
            {"l2_t_all", l2.t_all, "L2 temporal locality, all accesses"}, {"l2_t_log", l2.t_log, "L2 temporal locality, log writes"},
            {"l2_s_all", l2.s_all, "L2 spatial locality, all accesses"}, {"l2_s_log", l2.s_log, "L2 spatial locality, log writes"}};
        for (const auto &x : t2)
            w.add(g, x.n, x.v, "counts", std::string("Table II: ") + x.d + " (AGPM buffer counters, cores/agpm_buf.h "
                  "agpm_buf_vars, summed over all periods and SMs)");
        w.add(g, "buf_allocs", b.allocs, "entries", "AGPM buffer entries allocated (L1 and L2 buffers)");
        w.add(g, "buf_conflicts", b.conflicts, "entries", "entries displaced by set conflicts into the reservation buffer");
        w.add(g, "buf_writebacks", b.writebacks, "events", "written-back blocks whose entries moved to the reservation buffer");
        w.add(g, "buf_refills", b.refills, "entries", "entries refilled from the reservation buffer");
        w.add(g, "resv_dropped", b.resv_dropped, "entries", "reserved entries dropped because the reservation buffer was full");
    }

private:
    void init_buf(Buf &b)
    {
        b.mem.assign((agpm_buf_bytes(&bc_) + 7) / 8, 0);
        if (agpm_buf_init(b.mem.data(), &bc_) != 0) throw ConfigError("persist.agpm: invalid AGPM buffer configuration");
        b.b = reinterpret_cast<agpm_buf *>(b.mem.data());
    }
    size_t bank(uint64_t la) const { return l2_bank_of(la * line_bytes_, line_bytes_, banks_); }
    // Contiguous byte runs of a line mask, split at AGPM block boundaries.
    template <class F> void for_runs(const uint64_t *mask, F f) const
    {
        uint32_t i = 0;
        while (i < line_bytes_) {
            if (!((mask[i / 64] >> (i % 64)) & 1)) { ++i; continue; }
            uint32_t j = i;
            while (j < line_bytes_ && ((mask[j / 64] >> (j % 64)) & 1) && (j == i || j % bc_.block_bytes)) ++j;
            f(i, j - i);
            i = j;
        }
    }
    // Log-write lines of kernel k (each distinct line of a `st log` warp op is one log update,
    // as the L1 counts them after coalescing).
    uint64_t kernel_log_lines(uint32_t k) const
    {
        const persim_prog *p = gpu_.prog();
        if (!p || k >= p->nkernels) return 0;
        const uint64_t s0 = p->kernels[k].first_stream;
        const uint64_t s1 = k + 1 < p->nkernels ? p->kernels[k + 1].first_stream : p->nstreams;
        uint64_t n = 0;
        for (uint64_t si = s0; si < s1; ++si)
            for (uint64_t i = p->streams[si].begin; i < p->streams[si].end; ++i) {
                const persim_op &o = p->ops[i];
                if (o.kind != OPK_ST || o.st_class != STC_LOG || !o.nlanes) continue;
                uint64_t lines[PERSIM_WARP_SIZE * 2];
                uint32_t nl = 0;
                for (uint32_t l = 0; l < o.nlanes; ++l)
                    for (uint64_t a : {o.addr + (uint64_t)l * o.stride, o.addr + (uint64_t)l * o.stride + o.elem - 1}) {
                        const uint64_t la = a / line_bytes_;
                        uint32_t j = 0;
                        while (j < nl && lines[j] != la) ++j;
                        if (j == nl && nl < PERSIM_WARP_SIZE * 2) lines[nl++] = la;
                    }
                n += nl;
            }
        return n;
    }
    // Every buffer's contents into Table II's sums, then emptied (a kernel boundary).
    void flush_all()
    {
        for (auto &x : l1_) add_vars(seen_l1_, vars_of(x));
        for (auto &x : l2_) add_vars(seen_l2_, vars_of(x));
        for (auto &x : l1_) agpm_buf_reset(x.b);
        for (auto &x : l2_) agpm_buf_reset(x.b);
    }
    static agpm_vars vars_of(const Buf &x)
    {
        agpm_vars v;
        agpm_buf_vars(x.b, 1, &v);
        return v;
    }
    void end_period(int sm)
    {
        agpm_sel_in in{};
        agpm_buf_vars(l1_[(size_t)sm].b, 1, &in.l1d);
        for (auto &x : l2_) add_vars(in.l2, vars_of(x));
        in.all = all_[(size_t)sm];
        in.log = agpm_sel_period_logs(sel_[(size_t)sm]);
        in.shm_used = 0;                       // persim's programs have no shared memory (reason h never fires)
        add_vars(seen_l1_, in.l1d);
        add_vars(seen_l2_, in.l2);
        agpm_sel_end_period(sel_[(size_t)sm], &in);
        agpm_buf_reset(l1_[(size_t)sm].b);
        for (auto &x : l2_) agpm_buf_reset(x.b);
        all_[(size_t)sm] = 0;
    }

    static void add_vars(agpm_vars &to, const agpm_vars &v)
    {
        to.t_all += v.t_all;
        to.t_log += v.t_log;
        to.s_all += v.s_all;
        to.s_log += v.s_log;
    }
    // Table II's locality variables summed over the periods that ended (the buffers' contents at
    // each period end, before the reset); the report adds the periods still open.
    agpm_vars seen_l1_{}, seen_l2_{};
    agpm_buf_cfg bc_{};
    agpm_sel_cfg sc_{};
    uint64_t period_ps_;
    uint32_t line_bytes_, banks_;
    std::vector<std::vector<uint64_t>> sel_mem_;
    std::vector<agpm_sel *> sel_;
    std::vector<Buf> l1_, l2_;
    std::vector<uint64_t> all_;
    uint32_t nsm_ = 1, kernel_ = 0;
    bool started_ = false;
    uint64_t log_reads_ = 0, dropped_clwbs_ = 0;
};

std::unique_ptr<PersistHw> make_hw(const Config &c, Gpu &gpu) { return std::make_unique<AgpmHw>(c, gpu); }

} // namespace

const PersistModel kAgpmModel{"agpm",
                              "AGPM: per-SM adaptive choice of the log writes' data path (T / NT) from AGPM-buffer locality, per period",
                              lower_data_path, nullptr, make_hw};
PERSIM_REGISTER(PersistModel, "agpm", kAgpmModel, 100);

} // namespace persim
