#include "crash.h"

#include <algorithm>
#include <chrono>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <cstdio>
#include <set>
#include <sstream>
#include "check.h"
extern "C" {
#include "func_exec.h"
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
} // namespace

CrashDriver::CrashDriver(const Config &cfg, const std::string &model, const CrashOptions &o)
    : cfg_(cfg), model_(find_model(model)), o_(o)
{
    if (!model_) throw ConfigError("unknown model '" + model + "'");
    if (o_.all && o_.model_images)
        throw ConfigError("crash: --points all enumerates the run's durable images; with --images model give a number of samples");
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
        if (!build_pmo(lp.prog, lp.init, *model_, (uint64_t)cfg_.i("system.pm_base"), g_, err)) throw ConfigError(err);
    }
}

std::string CrashDriver::try_image(const LoadedProgram &lp, const mem_image *durable)
{
    const persim_workload *wl = lp.wl;
    persim_prog *rp = prog_new();
    mem_image *img = mem_clone(durable);
    char err[2048] = {0};
    std::string bad;
    if (wl->recover(lp.ctx, durable, rp, img, err, sizeof err) != 0) {
        bad = std::string("recovery gave up: ") + err;
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
    const uint64_t pm_base = (uint64_t)cfg_.i("system.pm_base");
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

void CrashDriver::on_finished(const LoadedProgram &lp, RunResult &r)
{
    std::ostringstream o;
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
    const auto &imgs = log_.images();
    if (o_.at_ps >= 0 && (uint64_t)o_.at_ps > end)
        throw ConfigError("crash: --at " + std::to_string(o_.at_ps) + " ps is beyond the end of the run (" +
                          std::to_string(end) + " ps)");
    if (o_.model_images && o_.sample >= 0 && o_.at_ps >= 0)
        throw ConfigError("crash: give either --at (a run image) or --sample (a model image), not both");
    std::string first_fail, replay;
    uint64_t fail_index = 0;
    auto record = [&](uint64_t index, const std::string &where, const std::string &bad, const std::string &again) {
        ++tried_;
        if (bad.empty()) {
            ++recovered_;
        } else if (first_fail.empty()) {
            first_fail = where + ": " + bad;
            replay = o_.replay + again;
            fail_index = index;
        }
    };
    (void)fail_index;
    if (!o_.model_images) {
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
        mem_image *cur = mem_clone(log_.init());
        size_t applied = 0;
        for (size_t i : pick) {
            log_.apply(cur, applied, imgs[i].count);
            applied = imgs[i].count;
            const uint64_t t = o_.at_ps >= 0 ? (uint64_t)o_.at_ps : imgs[i].t;
            std::string bad = try_image(lp, cur);
            char where[160];
            std::snprintf(where, sizeof where, "crash at %s (t = %llu ps; durable image %zu of %zu, %zu writes)",
                          fmt_time(t).c_str(), (unsigned long long)t, i, imgs.size() - 1, imgs[i].count);
            record(i, where, bad, " --at " + std::to_string(t));
        }
        mem_free(cur);
    } else {
        uint64_t k0 = o_.sample >= 0 ? (uint64_t)o_.sample : 0, k1 = o_.sample >= 0 ? k0 + 1 : o_.points;
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
            record(k, where, bad, " --images model --seed " + std::to_string(o_.seed) + " --sample " + std::to_string(k));
        }
    }
    const double secs = now_s() - t0;
    o << "crash (" << model_->name << ", workload " << lp.wl->name << " size " << lp.size << "): run " << fmt_time(end)
      << ", " << log_.writes() << " durable writes, " << (imgs.size() - 1) << " changes of the durable image\n";
    o << "  images            "
      << (o_.model_images ? std::string("allowed by the ") + model_->name + " model (sampled)" : std::string("this run's durable image at each crash point"))
      << "\n";
    o << "  points tried      " << tried_;
    if (o_.at_ps < 0 && o_.sample < 0) o << " (seed " << o_.seed << ")";
    o << "\n  points recovered  " << recovered_ << "\n";
    if (!first_fail.empty()) {
        o << "  first failing     " << first_fail << "\n";
        o << "  replay            " << replay << "\n";
    }
    char b[128];
    std::snprintf(b, sizeof b, "  host time         %.2f s (%.0f points/s)\n", secs, secs > 0 ? tried_ / secs : 0.0);
    o << b;
    text_ = o.str();
    r.stats["crash"] = {{"images", o_.model_images ? "model" : "run"},
                        {"tried", tried_},
                        {"recovered", recovered_},
                        {"first_failure", first_fail},
                        {"seconds", secs}};
    if (recovered_ != tried_) {
        r.code = EXIT_CHECK;
        r.status = "crash-failed";
        r.message = "crash: " + std::to_string(tried_ - recovered_) + " of " + std::to_string(tried_) +
                    " crash points did not recover; first: " + first_fail;
    }
}

} // namespace persim
