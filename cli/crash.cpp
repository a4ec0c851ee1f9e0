#include "crash.h"

#include <algorithm>
#include <chrono>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include "system_cfg.h"
#include "check.h"
#include "proc.h"
extern "C" {
#include "func_exec.h"
#include "trace.h"
#include "workload.h"
}

namespace persim {

namespace {
double now_s()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Writes the PM bytes of a store (st lanes, or a release's flag) into img.
void write_op(mem_image *img, const persim_prog *p, const persim_op &o, uint64_t pm_base)
{
    uint8_t buf[8 * PERSIM_WARP_SIZE];
    if (o.kind == OPK_RELEASE) {
        for (uint32_t i = 0; i < o.elem; ++i) buf[i] = (uint8_t)(o.val >> (8 * i));
        for (uint32_t i = 0; i < o.elem; ++i)
            if (o.addr + i >= pm_base) mem_write(img, o.addr + i, buf + i, 1);
        return;
    }
    const bool all_pm = o.addr >= pm_base;
    if (all_pm && o.stride == o.elem) {
        for (uint32_t l = 0; l < o.nlanes; ++l) {
            uint64_t v = op_lane_val(p, &o, l);
            for (uint32_t i = 0; i < o.elem; ++i) buf[l * o.elem + i] = (uint8_t)(v >> (8 * i));
        }
        mem_write(img, o.addr, buf, (size_t)o.nlanes * o.elem);
        return;
    }
    for (uint32_t l = 0; l < o.nlanes; ++l) {
        uint64_t v = op_lane_val(p, &o, l), a = o.addr + (uint64_t)l * o.stride;
        for (uint32_t i = 0; i < o.elem; ++i) {
            uint8_t b = (uint8_t)(v >> (8 * i));
            if (a + i >= pm_base) mem_write(img, a + i, &b, 1);
        }
    }
}
// The number of leading kernels of a recovery program that are recovery kernels, and their work;
// "" or what is wrong with the program (a recovery kernel after a resume kernel).
std::string recovery_work(const persim_prog *rp, RecoveryWork &w)
{
    w = RecoveryWork{};
    for (uint32_t k = 0; k < rp->nkernels; ++k) {
        const persim_kernel &kr = rp->kernels[k];
        if (!wl_is_recovery_kernel(kr.name)) {
            for (uint32_t j = k + 1; j < rp->nkernels; ++j)
                if (wl_is_recovery_kernel(rp->kernels[j].name))
                    return std::string("recovery program: recovery kernel '") + rp->kernels[j].name +
                           "' follows kernel '" + kr.name + "' of the resumed work (recovery kernels come first)";
            break;
        }
        ++w.kernels;
        const uint64_t s0 = kr.first_stream, s1 = s0 + (uint64_t)kr.nblocks * kr.warps_per_block;
        for (uint64_t st = s0; st < s1; ++st)
            for (uint64_t i = rp->streams[st].begin; i < rp->streams[st].end; ++i) {
                const persim_op &o = rp->ops[i];
                const uint64_t words = ((uint64_t)o.nlanes * o.elem + 3) / 4;
                if (o.kind == OPK_LD) w.load_words += words;
                else if (o.kind == OPK_ST) w.store_words += words;
            }
    }
    return "";
}

// The first `nk` kernels of p as a program of their own.
persim_prog *leading_kernels(const persim_prog *p, uint32_t nk)
{
    persim_prog *q = prog_new();
    for (uint32_t k = 0; k < nk; ++k) {
        const persim_kernel &kr = p->kernels[k];
        prog_kernel(q, kr.name, kr.nblocks, kr.warps_per_block * PERSIM_WARP_SIZE);
        for (uint32_t b = 0; b < kr.nblocks; ++b)
            for (uint32_t w = 0; w < kr.warps_per_block; ++w) {
                prog_warp(q, b, w);
                const persim_stream *st = prog_stream(p, &kr, b, w);
                for (uint64_t i = st->begin; i < st->end; ++i) {
                    persim_op o = p->ops[i];
                    std::vector<uint64_t> v;
                    if (o.kind == OPK_ST && o.vals != PERSIM_NOVALS)
                        v.assign(p->vals + o.vals, p->vals + o.vals + o.nlanes);
                    o.id = 0;
                    op_append(q, &o, v.empty() ? nullptr : v.data());
                }
            }
    }
    return q;
}

} // namespace

void CrashDriver::time_recovery(const LoadedProgram &lp, const mem_image *durable, uint64_t t_ps, size_t index,
                                size_t nimages, RunResult &r, std::ostringstream &o)
{
    namespace fs = std::filesystem;
    persim_prog *rp = prog_new();
    mem_image *img = mem_clone(durable);
    char err[2048] = {0};
    RecoveryWork w;
    std::string bad;
    if (lp.wl->recover(lp.ctx, durable, rp, img, err, sizeof err) != 0) bad = std::string("recovery gave up: ") + err;
    else bad = recovery_work(rp, w);
    persim_prog *q = bad.empty() ? leading_kernels(rp, (uint32_t)w.kernels) : nullptr;
    prog_free(rp);
    mem_free(img);
    if (!bad.empty()) throw ConfigError("crash --time-recovery: " + bad);
    if (w.kernels == 0) {
        prog_free(q);
        throw ConfigError(std::string("crash --time-recovery: workload '") + lp.wl->name +
                          "' appends no recovery kernel (a kernel whose name contains \"" WL_RECOVERY_TAG "\")");
    }
    // The trace: the recovery kernels, the durable image they start from, and `expect` lines with
    // what the functional executor computes (the child run checks its result against them).
    std::error_code ec;
    fs::create_directories(o_.out_dir, ec);
    if (ec) {
        prog_free(q);
        throw ConfigError(o_.out_dir + ": cannot create output directory: " + ec.message());
    }
    const std::string trace = (fs::path(o_.out_dir) / "recovery.trace").string();
    const std::string dir = (fs::path(o_.out_dir) / "recovery").string();
    mem_image *fin = mem_clone(durable);
    if (func_exec(q, fin, 0, err, sizeof err) != 0) {
        mem_free(fin);
        prog_free(q);
        throw ConfigError(std::string("crash --time-recovery: recovery kernels failed functionally: ") + err);
    }
    char comment[256];
    std::snprintf(comment, sizeof comment, "recovery kernels of workload %s size %llu, crash at t = %llu ps "
                  "(durable image %zu of %zu; persim crash --time-recovery)",
                  lp.wl->name, (unsigned long long)lp.size, (unsigned long long)t_ps, index, nimages - 1);
    FILE *f = std::fopen(trace.c_str(), "w");
    bool ok = f && trace_write_stream(f, q, durable, nullptr, 0, comment) == 0 && trace_write_expects(f, q, fin, nullptr, 0) == 0;
    if (f) ok = std::fclose(f) == 0 && ok;
    mem_free(fin);
    prog_free(q);
    if (!ok) throw ConfigError(trace + ": cannot write the recovery trace");

    fs::remove_all(dir, ec);
    fs::create_directories(dir, ec);
    std::vector<std::string> argv = {self_exe(), "run", "--trace", trace, "--model", model_.name};
    argv.insert(argv.end(), o_.child_args.begin(), o_.child_args.end());
    for (const std::string &a : {std::string("--out"), dir, std::string("--csv"), dir + "/run.csv", std::string("--quiet")})
        argv.push_back(a);
    const std::string cmd = join_cmd(argv);
    const std::string log = dir + "/log.txt";
    std::string why;
    const pid_t pid = spawn_logged(argv, log, why);
    int rc = pid < 0 ? -1 : wait_child(pid, why);
    double rec_ns = -1;
    if (rc == 0) {
        std::ifstream in(dir + "/stats.json");
        try {
            nlohmann::json st = nlohmann::json::parse(in);
            rec_ns = st.at("summary").at("sim_ns").at("value").get<double>();
        } catch (const std::exception &e) {
            why = dir + "/stats.json: no summary.sim_ns (" + e.what() + ")";
        }
    } else if (why.empty()) {
        why = "exit status " + std::to_string(rc);
    }
    if (rec_ns < 0) {
        r.code = rc > 0 ? rc : EXIT_BAD_INPUT;
        r.status = "recovery-run-failed";
        r.message = "crash --time-recovery: the timed recovery run failed (" + why + "): " + cmd + "\n  its output (" +
                    log + "):\n" + tail_lines(log, 8);
        while (!r.message.empty() && r.message.back() == '\n') r.message.pop_back();
        o << "  recovery run      FAILED (" << why << "): " << cmd << "\n";
        return;
    }
    const double free_ns = r.sim_ps / 1000.0, ratio = free_ns > 0 ? rec_ns / free_ns : 0.0;
    char b[512];
    std::snprintf(b, sizeof b,
                  "  recovery point    %s crash at %s (durable image %zu of %zu): %llu recovery kernel(s), "
                  "%llu words loaded + %llu stored\n"
                  "  recovery time     %s = %.2f%% of the crash-free run (%s)\n",
                  o_.worst ? "worst:" : "", fmt_time(t_ps).c_str(), index, nimages - 1, (unsigned long long)w.kernels,
                  (unsigned long long)w.load_words, (unsigned long long)w.store_words, fmt_time((uint64_t)(rec_ns * 1000 + 0.5)).c_str(),
                  100.0 * ratio, fmt_time(r.sim_ps).c_str());
    o << b << "  recovery run      " << cmd << "\n";
    r.stats["recovery"] = {{"point", o_.worst ? "worst" : "at"},
                           {"crash_ps", t_ps},
                           {"image", index},
                           {"kernels", w.kernels},
                           {"load_words", w.load_words},
                           {"store_words", w.store_words},
                           {"work_words", w.words()},
                           {"recovery_ns", rec_ns},
                           {"crash_free_ns", free_ns},
                           {"recovery_ratio", ratio},
                           {"trace", trace},
                           {"command", cmd}};
}

CrashDriver::CrashDriver(const Config &cfg, const std::string &model, const CrashOptions &o)
    : cfg_(cfg), model_(order_model_of(cfg, model)), o_(o)
{
    if (o_.all && o_.model_images)
        throw ConfigError("crash: --points all enumerates the run's durable images; with --images model give a number of samples");
    if (o_.target >= 0 && !o_.model_images)
        throw ConfigError("crash: --target picks a targeted model image; only with --images model");
    if (o_.time_recovery && o_.model_images)
        throw ConfigError("crash: --time-recovery times a run image (--images run), not a model image");
    if (o_.time_recovery && o_.out_dir.empty())
        throw ConfigError("crash: --time-recovery needs --out DIR (the recovery trace and the timed run go there)");
}

void CrashDriver::on_loaded(const LoadedProgram &lp)
{
    if (!lp.wl)
        throw ConfigError("crash: needs a workload (--workload W) with a recovery procedure; a trace has none");
    if (!lp.wl->recover) {
        const std::string logged = std::string(lp.wl->name) + "-log";
        throw ConfigError(std::string("crash: workload '") + lp.wl->name + "' has no recovery procedure" +
                          (wl_find(logged.c_str()) ? "; '" + logged + "' is its variant with an undo log" : std::string()));
    }
    log_.begin(lp.prog, lp.init);
    if (o_.model_images) {
        std::string err;
        if (!build_pmo(lp.prog, lp.init, model_, SystemCfg::from(cfg_).pm_base, g_, err, true))   // validated by the loader
            throw ConfigError(err);
    }
}

std::string CrashDriver::try_image(const LoadedProgram &lp, const mem_image *durable, RecoveryWork *work)
{
    const persim_workload *wl = lp.wl;
    persim_prog *rp = prog_new();
    mem_image *img = mem_clone(durable);
    char err[2048] = {0};
    std::string bad;
    if (wl->recover(lp.ctx, durable, rp, img, err, sizeof err) != 0) {
        bad = std::string("recovery gave up: ") + err;
    } else if (work && !(bad = recovery_work(rp, *work)).empty()) {
    } else if (func_exec(rp, img, 0, err, sizeof err) != 0) {
        bad = std::string("recovery program failed: ") + err;
    } else {
        int rc = wl->verify_recovered ? wl->verify_recovered(lp.ctx, img, err, sizeof err)
                                      : wl->verify(lp.ctx, img, err, sizeof err);
        if (rc != 0) bad = err;
    }
    prog_free(rp);
    mem_free(img);
    return bad;
}

mem_image *CrashDriver::model_image(uint64_t k, uint64_t end_ps, uint64_t *tau, double *q, size_t *nstores)
{
    const persim_prog *p = log_.prog();
    const uint64_t pm_base = SystemCfg::from(cfg_).pm_base;
    wl_rng r;
    wl_rng_seed(&r, o_.seed * 0x9E3779B97F4A7C15ull + k + 1);
    *tau = wl_rng_below(&r, end_ps + 1);
    *q = (double)(wl_rng_next(&r) >> 11) * (1.0 / 9007199254740992.0);
    if (mark_.size() < g_.nodes()) mark_.assign(g_.nodes(), 0);
    if (++epoch_ == 0) {
        std::fill(mark_.begin(), mark_.end(), 0);
        epoch_ = 1;
    }
    std::vector<uint32_t> stack;
    auto push = [&](uint32_t n) {
        if (mark_[n] != epoch_) {
            mark_[n] = epoch_;
            stack.push_back(n);
        }
    };
    // everything a completed durability point covers
    for (const auto &d : g_.dpoints) {
        uint64_t t = d.op != kNoOp ? log_.completed(d.op) : log_.kernel_end((uint32_t)d.kernel);
        if (t <= *tau) push(d.node);
    }
    // a random part of what was performed by then
    for (uint64_t i = 0; i < p->nops; ++i) {
        int32_t n = g_.store_node[i];
        if (n < 0 || log_.performed((uint32_t)i) > *tau) continue;
        double u = (double)(wl_rng_next(&r) >> 11) * (1.0 / 9007199254740992.0);
        if (u < *q) push((uint32_t)n);
    }
    // closed downwards under the promised order
    std::vector<uint32_t> chosen;
    while (!stack.empty()) {
        uint32_t n = stack.back();
        stack.pop_back();
        if (g_.kind[n] == PmoGraph::STORE) chosen.push_back(g_.op[n]);
        for (uint32_t e = g_.off[n]; e < g_.off[n + 1]; ++e) push(g_.pred[e]);
    }
    // coherence-latest value per location: apply in perform order
    std::sort(chosen.begin(), chosen.end(),
              [&](uint32_t a, uint32_t b) { return log_.perform_rank(a) < log_.perform_rank(b); });
    mem_image *img = mem_clone(log_.init());
    for (uint32_t op : chosen) write_op(img, p, p->ops[op], pm_base);
    *nstores = chosen.size();
    return img;
}

bool CrashDriver::target_stores(uint32_t a, uint32_t b, std::vector<uint32_t> &chosen, uint64_t *tau, bool *tie)
{
    chosen.clear();
    *tie = false;
    const persim_prog *p = log_.prog();
    const size_t n = g_.nodes();
    const int32_t na = g_.store_node[a];
    *tau = log_.performed(b);
    if (na < 0 || *tau == kNever) return false;
    // the upward closure of a: a and every node ordered after it (predecessors have smaller ids)
    std::vector<uint8_t> up(n, 0);
    up[(size_t)na] = 1;
    for (size_t i = (size_t)na + 1; i < n; ++i)
        for (uint32_t e = g_.off[i]; e < g_.off[i + 1]; ++e)
            if (up[g_.pred[e]]) {
                up[i] = 1;
                break;
            }
    if (mark_.size() < n) mark_.assign(n, 0);
    if (++epoch_ == 0) {
        std::fill(mark_.begin(), mark_.end(), 0);
        epoch_ = 1;
    }
    std::vector<uint32_t> stack;
    auto push = [&](uint32_t x) {
        if (mark_[x] != epoch_) {
            mark_[x] = epoch_;
            stack.push_back(x);
        }
    };
    // every durability point completed by tau, except those that cover a
    for (const auto &d : g_.dpoints) {
        uint64_t t = d.op != kNoOp ? log_.completed(d.op) : log_.kernel_end((uint32_t)d.kernel);
        if (t > *tau) continue;
        if (up[d.node]) {
            // covers a: completed before b was performed, the run's timing keeps a before b; at
            // the same instant it does not order them (left out: a crash may take b's side)
            if (t < *tau) return false;
            *tie = true;
            continue;
        }
        push(d.node);
    }
    // every store performed by tau that is not ordered after a (b among them)
    for (uint64_t i = 0; i < p->nops; ++i) {
        int32_t x = g_.store_node[i];
        if (x < 0 || up[(size_t)x] || log_.performed((uint32_t)i) > *tau) continue;
        push((uint32_t)x);
    }
    // closed downwards (cannot reach a: nothing pushed is ordered after it)
    while (!stack.empty()) {
        uint32_t x = stack.back();
        stack.pop_back();
        if (g_.kind[x] == PmoGraph::STORE) chosen.push_back(g_.op[x]);
        for (uint32_t e = g_.off[x]; e < g_.off[x + 1]; ++e) push(g_.pred[e]);
    }
    std::sort(chosen.begin(), chosen.end(), [&](uint32_t x, uint32_t y) {
        const uint64_t rx = log_.perform_rank(x), ry = log_.perform_rank(y);
        return rx != ry ? rx < ry : x < y;
    });
    return true;
}

// What the tried points add up to: the first failure and the targeted-image counts.
struct CrashDriver::Tally {
    std::string first_fail, replay;
    uint64_t fail_index = 0;
    uint64_t tgt_unguaranteed = 0, tgt_skipped = 0, tgt_dups = 0, tgt_images = 0, tgt_tried = 0, tgt_failed = 0,
             tgt_ties = 0;
    std::ostringstream timed;   // --time-recovery lines
};

// Counts one tried point; the first failure keeps its description and replay command.
void CrashDriver::record(Tally &t, uint64_t index, const std::string &where, const std::string &bad,
                         const std::string &again)
{
    ++tried_;
    if (bad.empty()) {
        ++recovered_;
    } else if (t.first_fail.empty()) {
        t.first_fail = where + ": " + bad;
        t.replay = o_.replay + again;
        t.fail_index = index;
    }
}

// Refuses --at beyond the run and the option pairs that exclude each other.
void CrashDriver::check_point_options(uint64_t end) const
{
    if (o_.at_ps >= 0 && (uint64_t)o_.at_ps > end)
        throw ConfigError("crash: --at " + std::to_string(o_.at_ps) + " ps is beyond the end of the run (" +
                          std::to_string(end) + " ps)");
    if (o_.model_images && o_.sample >= 0 && o_.at_ps >= 0)
        throw ConfigError("crash: give either --at (a run image) or --sample (a model image), not both");
    if (o_.sample >= 0 && o_.target >= 0)
        throw ConfigError("crash: give either --sample (a sampled model image) or --target (a targeted one), not both");
}

// The run images to try: the one at --at, all, or o_.points distinct ones drawn with the seed.
std::vector<size_t> CrashDriver::pick_run_images()
{
    const auto &imgs = log_.images();
    std::vector<size_t> pick;
    if (o_.at_ps >= 0) {
        size_t i = 0;
        while (i + 1 < imgs.size() && imgs[i + 1].t <= (uint64_t)o_.at_ps) ++i;
        pick.push_back(i);
    } else if (o_.all || o_.points >= imgs.size()) {
        for (size_t i = 0; i < imgs.size(); ++i) pick.push_back(i);
    } else {
        wl_rng rng;
        wl_rng_seed(&rng, o_.seed * 0xD1B54A32D192ED03ull + 7);
        std::set<size_t> s;   // Floyd: o_.points distinct indices
        const size_t n = imgs.size();
        for (size_t j = n - o_.points; j < n; ++j) {
            size_t t = (size_t)wl_rng_below(&rng, j + 1);
            if (!s.insert(t).second) s.insert(j);
        }
        pick.assign(s.begin(), s.end());
    }
    return pick;
}

// --images run: recovers from the run's durable image at each picked point; with
// --time-recovery, times the recovery of the point with the most recovery work.
void CrashDriver::try_run_images(const LoadedProgram &lp, RunResult &r, Tally &tl)
{
    const auto &imgs = log_.images();
    const std::vector<size_t> pick = pick_run_images();
    mem_image *cur = mem_clone(log_.init());
    size_t applied = 0;
    size_t best = imgs.size();        // --time-recovery: the point timed
    uint64_t best_t = 0, best_words = 0;
    bool best_ok = false;
    for (size_t i : pick) {
        log_.apply(cur, applied, imgs[i].count);
        applied = imgs[i].count;
        const uint64_t t = o_.at_ps >= 0 ? (uint64_t)o_.at_ps : imgs[i].t;
        RecoveryWork w;
        std::string bad = try_image(lp, cur, o_.time_recovery ? &w : nullptr);
        if (o_.time_recovery && (best == imgs.size() || w.words() > best_words)) {
            best = i;               // the first point with the most work
            best_t = t;
            best_words = w.words();
            best_ok = bad.empty();
        }
        char where[160];
        std::snprintf(where, sizeof where, "crash at %s (t = %llu ps; durable image %zu of %zu, %zu writes)",
                      fmt_time(t).c_str(), (unsigned long long)t, i, imgs.size() - 1, imgs[i].count);
        record(tl, i, where, bad, " --at " + std::to_string(t));
    }
    if (o_.time_recovery && best < imgs.size()) {
        if (!best_ok) {
            tl.timed << "  recovery time     not timed: the chosen point did not recover\n";
        } else {
            mem_image *d = mem_clone(log_.init());
            log_.apply(d, 0, imgs[best].count);
            try {
                time_recovery(lp, d, best_t, best, imgs.size(), r, tl.timed);
            } catch (...) {
                mem_free(d);
                mem_free(cur);
                throw;
            }
            mem_free(d);
        }
    }
    mem_free(cur);
}

// --images model, targeted: one image per requirement the model does not guarantee, numbered in
// program order of the requires after dropping the skipped ones and duplicates (the same set of
// durable stores as an earlier one); only the --target one when given.
void CrashDriver::try_targeted_images(const LoadedProgram &lp, Tally &tl)
{
    const persim_prog *p = log_.prog();
    const uint64_t pm_base = SystemCfg::from(cfg_).pm_base;
    std::set<std::pair<uint64_t, uint64_t>> seen;   // (size, hash) of each image's store set
    std::vector<uint32_t> chosen;
    for (uint32_t q : g_.requires_) {
        const persim_op &ro = p->ops[q];
        const uint32_t a = log_.ids().of((uint32_t)ro.val), b = log_.ids().of((uint32_t)ro.addr);
        if (a == kNoOp || b == kNoOp || g_.store_node[a] < 0 || g_.store_node[b] < 0) continue;
        if (g_.ordered(g_.store_node[a], g_.store_node[b], mark_, epoch_)) continue;
        ++tl.tgt_unguaranteed;
        uint64_t tau;
        bool tie;
        if (!target_stores(a, b, chosen, &tau, &tie)) {
            ++tl.tgt_skipped;
            continue;
        }
        uint64_t h = 0xcbf29ce484222325ull;
        for (uint32_t op : chosen) {
            h = (h ^ (op + 0x9E3779B97F4A7C15ull)) * 0xff51afd7ed558ccdull;
            h ^= h >> 33;
        }
        if (!seen.insert({chosen.size(), h}).second) {
            ++tl.tgt_dups;
            continue;
        }
        const uint64_t k = tl.tgt_images++;
        tl.tgt_ties += tie;
        if (o_.target >= 0 && k != (uint64_t)o_.target) continue;
        mem_image *img = mem_clone(log_.init());
        for (uint32_t op : chosen) write_op(img, p, p->ops[op], pm_base);
        std::string bad = try_image(lp, img);
        mem_free(img);
        ++tl.tgt_tried;
        tl.tgt_failed += !bad.empty();
        std::string where = "targeted image " + std::to_string(k) + " (require " + std::to_string(p->ops[a].id) +
                            " " + std::to_string(p->ops[b].id) + " (op " + std::to_string(ro.id) + "): " +
                            describe_op(p, g_, b) + " durable, " + describe_op(p, g_, a) +
                            " not; crash at " + fmt_time(tau) + ", " + std::to_string(chosen.size()) +
                            " stores durable)";
        record(tl, k, where, bad, " --images model --target " + std::to_string(k));
    }
    if (o_.target >= 0 && (uint64_t)o_.target >= tl.tgt_images)
        throw ConfigError("crash: --target " + std::to_string(o_.target) + ": this run has " +
                          std::to_string(tl.tgt_images) + " targeted image(s)");
}

// --images model, sampled: o_.points samples (or the --sample one; none with --target).
void CrashDriver::try_sampled_images(const LoadedProgram &lp, uint64_t end, Tally &tl)
{
    uint64_t k0 = o_.sample >= 0 ? (uint64_t)o_.sample : 0, k1 = o_.sample >= 0 ? k0 + 1 : o_.points;
    if (o_.target >= 0) k1 = 0;
    for (uint64_t k = k0; k < k1; ++k) {
        uint64_t tau;
        double q;
        size_t ns;
        mem_image *img = model_image(k, end, &tau, &q, &ns);
        std::string bad = try_image(lp, img);
        mem_free(img);
        char where[200];
        std::snprintf(where, sizeof where, "model image %llu (crash at %s, %zu stores durable, extra-store probability %.3f)",
                      (unsigned long long)k, fmt_time(tau).c_str(), ns, q);
        record(tl, k, where, bad, " --images model --seed " + std::to_string(o_.seed) + " --sample " + std::to_string(k));
    }
}

// The report text, the "crash" stats group, and exit status 5 when a point did not recover.
void CrashDriver::report(const LoadedProgram &lp, RunResult &r, const Tally &tl, uint64_t end, double secs)
{
    std::ostringstream o;
    o << "crash (" << model_.name << ", workload " << lp.wl->name << " size " << lp.size << "): run " << fmt_time(end)
      << ", " << log_.writes() << " durable writes, " << (log_.images().size() - 1) << " changes of the durable image\n";
    o << "  images            "
      << (o_.model_images ? std::string("allowed by the ") + model_.name + " model (targeted, then sampled)" : std::string("this run's durable image at each crash point"))
      << "\n";
    if (o_.model_images && o_.sample < 0) {
        o << "  targeted images   " << tl.tgt_tried << " tried";
        if (o_.target >= 0) o << " (--target " << o_.target << " of " << tl.tgt_images << ")";
        o << ", " << tl.tgt_failed << " failed: one per requirement " << model_.name << " does not guarantee ("
          << tl.tgt_unguaranteed << " of " << g_.requires_.size() << "; " << tl.tgt_skipped
          << " kept by an earlier durability point, " << tl.tgt_dups << " duplicate images; " << tl.tgt_ties
          << " images leave out a durability point completed at the crash instant)\n";
    }
    o << "  points tried      " << tried_;
    if (o_.at_ps < 0 && o_.sample < 0 && o_.target < 0) o << " (seed " << o_.seed << ")";
    o << "\n  points recovered  " << recovered_ << "\n";
    if (!tl.first_fail.empty()) {
        o << "  first failing     " << tl.first_fail << "\n";
        o << "  replay            " << tl.replay << "\n";
    }
    o << tl.timed.str();
    char b[128];
    std::snprintf(b, sizeof b, "  host time         %.2f s (%.0f points/s)\n", secs, secs > 0 ? tried_ / secs : 0.0);
    o << b;
    text_ = o.str();
    r.stats["crash"] = {{"images", o_.model_images ? "model" : "run"},
                        {"tried", tried_},
                        {"recovered", recovered_},
                        {"targeted", tl.tgt_tried},
                        {"targeted_failed", tl.tgt_failed},
                        {"first_failure", tl.first_fail},
                        {"seconds", secs}};
    if (recovered_ != tried_ && r.code == EXIT_OK) {
        r.code = EXIT_CHECK;
        r.status = "crash-failed";
        r.message = "crash: " + std::to_string(tried_ - recovered_) + " of " + std::to_string(tried_) +
                    " crash points did not recover; first: " + tl.first_fail;
    }
}

void CrashDriver::on_finished(const LoadedProgram &lp, RunResult &r)
{
    if (r.code != EXIT_OK) {
        text_ = "crash: the run did not complete (" + r.status + "): no crash points tried\n";
        return;
    }
    const double t0 = now_s();
#ifdef __GLIBC__
    // Every point clones and frees images of the same size: keep the freed pages in the process
    // instead of returning them to the kernel and faulting them in again.
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    mallopt(M_TOP_PAD, 64 << 20);
#endif
    log_.finish();
    const uint64_t end = r.sim_ps;
    check_point_options(end);
    Tally tl;
    if (!o_.model_images) {
        try_run_images(lp, r, tl);
    } else {
        // Targeted images first (all of them; none with --sample), then the samples.
        if (o_.sample < 0) try_targeted_images(lp, tl);
        try_sampled_images(lp, end, tl);
    }
    report(lp, r, tl, end, now_s() - t0);
}

} // namespace persim
