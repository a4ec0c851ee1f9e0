#include "check.h"
#include "system_cfg.h"

#include <chrono>
#include <cstdio>
#include <sstream>

namespace persim {

namespace {
double now_s()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
constexpr size_t kShow = 10;   // violations / requirements listed in full
} // namespace

std::string fmt_time(uint64_t ps)
{
    if (ps == kNever) return "never";
    char b[64];
    std::snprintf(b, sizeof b, "%.3f us", ps / 1e6);
    return b;
}

std::string describe_path(const persim_prog *p, const PmoGraph &g, const std::vector<uint32_t> &path)
{
    std::string s;
    const size_t inner = path.size() >= 2 ? path.size() - 2 : 0;
    for (size_t i = 1; i + 1 < path.size(); ++i) {
        if (inner > 6 && i == 4) {   // long chains: the first and last three steps
            s += " -> (" + std::to_string(inner - 6) + " more)";
            i = path.size() - 4;
            continue;
        }
        uint32_t n = path[i];
        std::string part;
        const uint32_t op = g.op[n];
        auto id = [&](uint32_t o) { return o < p->nops ? std::to_string(p->ops[o].id) : std::string("?"); };
        switch (g.kind[n]) {
        case PmoGraph::STORE: part = "store op " + id(op); break;
        case PmoGraph::FENCE: part = std::string(op_kind_name(p->ops[op].kind)) + " op " + id(op); break;
        case PmoGraph::DURABLE: part = "durability point " + std::string(op_kind_name(p->ops[op].kind)) + " op " + id(op); break;
        case PmoGraph::ACQUIRE:
            // through the release it read, or just along the acquiring warp's program order
            if (g.via[n] >= 0 && path[i - 1] == (uint32_t)g.via[n]) part = "acquire op " + id(op) + " reading release op " + id(g.aux[n]);
            break;
        case PmoGraph::SYNC: part = "barrier op " + id(op); break;
        case PmoGraph::KERNEL: part = "end of kernel " + std::to_string(op); break;
        }
        if (part.empty()) continue;
        if (!s.empty()) s += " -> ";
        s += part;
    }
    return s.empty() ? "program order" : s;
}

uint64_t CheckReport::not_guaranteed() const
{
    uint64_t n = 0;
    for (auto &r : reqs) n += !r.guaranteed;
    return n;
}

uint64_t CheckReport::reqs_violated() const
{
    uint64_t n = 0;
    for (auto &r : reqs) n += r.violated;
    return n;
}

Checker::Checker(const Config &cfg, const std::string &model, bool requirements_fatal)
    : cfg_(cfg), model_(order_model_of(cfg, model)), req_fatal_(requirements_fatal)
{
}

void Checker::on_loaded(const LoadedProgram &lp)
{
    double t0 = now_s();
    prog_ = lp.prog;
    log_.begin(lp.prog, lp.init);
    std::string err;
    if (!build_pmo(lp.prog, lp.init, model_, SystemCfg::from(cfg_).pm_base, g_, err, true))   // validated by the loader
        throw ConfigError(err);
    // A requirement must name two persists (a PM store, or a release whose flag is in PM).
    for (uint32_t r : g_.requires_) {
        const persim_op &o = lp.prog->ops[r];
        for (uint64_t id : {o.val, o.addr}) {
            uint32_t i = log_.ids().of((uint32_t)id);
            if (i == kNoOp) throw ConfigError("require (op " + std::to_string(o.id) + ") names unknown op id " + std::to_string(id));
            if (g_.store_node[i] < 0)
                throw ConfigError("require (op " + std::to_string(o.id) + ") names op " + std::to_string(id) + " ('" +
                                  op_kind_name(lp.prog->ops[i].kind) +
                                  "'), which writes no persistent memory: a requirement relates two persists "
                                  "(st or release to addresses at or above system.pm_base)");
        }
    }
    build_s_ = now_s() - t0;
}

std::string Checker::explain(uint32_t a, uint32_t b)
{
    std::vector<uint32_t> path;
    if (!g_.ordered(g_.store_node[a], g_.store_node[b], mark_, epoch_, &path)) return "";
    return describe_path(prog_, g_, path);
}

void Checker::on_finished(const LoadedProgram &lp, RunResult &r)
{
    if (r.code != EXIT_OK) {
        rep_.skipped = "the run did not complete (" + r.status + "): nothing checked";
        r.stats["check"] = json();
        text_ = make_text();
        return;
    }
    double t0 = now_s();
    rep_.ran = true;
    log_.finish();
    rep_.writes = log_.writes();
    rep_.nodes = g_.nodes();
    rep_.edges = g_.edges();
    rep_.anomalies = log_.anomalies();
    // Conformance: forward over the graph, the latest "fully durable" time of any ancestor store.
    const size_t n = g_.nodes();
    std::vector<uint64_t> vt(n, 0);
    std::vector<uint32_t> vw(n, kNoOp);
    for (size_t i = 0; i < n; ++i) {
        uint64_t bt = 0;
        uint32_t bw = kNoOp;
        for (uint32_t k = g_.off[i]; k < g_.off[i + 1]; ++k) {
            uint32_t q = g_.pred[k];
            if (vw[q] != kNoOp && (bw == kNoOp || vt[q] > bt)) {
                bt = vt[q];
                bw = vw[q];
            }
        }
        if (g_.kind[i] == PmoGraph::STORE) {
            const uint32_t op = g_.op[i];
            ++rep_.persists;
            const uint64_t first = log_.durable_first(op), all = log_.durable_all(op);
            if (all == kNever) ++rep_.never_durable;
            if (bw != kNoOp && bt > first) {
                ++rep_.violations;
                if (rep_.shown.size() < kShow) rep_.shown.push_back(Violation{bw, op, bt, first, ""});
            }
            if (bw == kNoOp || all > bt) {
                bt = all;
                bw = op;
            }
        }
        vt[i] = bt;
        vw[i] = bw;
    }
    for (auto &v : rep_.shown) v.via = explain(v.w1, v.w2);
    // Requirements.
    for (uint32_t q : g_.requires_) {
        const persim_op &o = lp.prog->ops[q];
        RequirementResult rr;
        rr.req = q;
        rr.a = log_.ids().of((uint32_t)o.val);
        rr.b = log_.ids().of((uint32_t)o.addr);
        std::vector<uint32_t> path;
        rr.guaranteed = g_.ordered(g_.store_node[rr.a], g_.store_node[rr.b], mark_, epoch_, &path);
        if (rr.guaranteed) rr.via = describe_path(prog_, g_, path);
        rr.ta = log_.durable_all(rr.a);
        rr.tb = log_.durable_first(rr.b);
        rr.violated = rr.tb != kNever && rr.ta > rr.tb;
        rep_.reqs.push_back(rr);
    }
    rep_.seconds = build_s_ + (now_s() - t0);
    r.stats["check"] = json();
    text_ = make_text();
    std::string why;
    if (!rep_.conformance_ok())
        why = std::to_string(rep_.violations) + " violation(s) of the " + model_.name + " model's promised persist order" +
              (rep_.never_durable ? ", " + std::to_string(rep_.never_durable) + " persist(s) never durable" : "");
    if (rep_.reqs_violated()) why += (why.empty() ? "" : "; ") + std::to_string(rep_.reqs_violated()) + " requirement(s) violated in this run";
    if (req_fatal_ && rep_.not_guaranteed())
        why += (why.empty() ? "" : "; ") + std::to_string(rep_.not_guaranteed()) + " requirement(s) not guaranteed by " + model_.name;
    if (!why.empty()) {
        r.code = EXIT_CHECK;
        r.status = "check-failed";
        r.message = "check failed: " + why;
        r.stats["run"]["status"] = r.status;
        r.stats["run"]["message"] = r.message;
    }
}

nlohmann::json Checker::json() const
{
    nlohmann::json j;
    j["checked"] = rep_.ran;
    if (!rep_.ran) {
        j["skipped"] = rep_.skipped;
        return j;
    }
    j["model"] = model_.name;
    j["persists"] = rep_.persists;
    j["durable_writes"] = rep_.writes;
    j["order_nodes"] = rep_.nodes;
    j["order_edges"] = rep_.edges;
    j["violations"] = rep_.violations;
    j["never_durable"] = rep_.never_durable;
    j["check_seconds"] = rep_.seconds;
    nlohmann::json rs = nlohmann::json::array();
    for (auto &r : rep_.reqs)
        rs.push_back({{"require_op", prog_->ops[r.req].id},
                      {"before", prog_->ops[r.a].id},
                      {"after", prog_->ops[r.b].id},
                      {"guaranteed", r.guaranteed},
                      {"violated", r.violated},
                      {"before_durable_ps", r.ta == kNever ? -1 : (int64_t)r.ta},
                      {"after_durable_ps", r.tb == kNever ? -1 : (int64_t)r.tb}});
    j["requirements"] = rs;
    return j;
}

std::string Checker::make_text() const
{
    std::ostringstream o;
    if (!rep_.ran) {
        o << "check: " << rep_.skipped << "\n";
        return o.str();
    }
    o << "check (" << model_.name << "): " << rep_.persists << " persists, " << rep_.writes
      << " durable writes; promised order: " << rep_.nodes << " nodes, " << rep_.edges
      << " edges; " << std::fixed;
    o.precision(3);
    o << rep_.seconds << " s\n";
    if (rep_.conformance_ok()) {
        o << "  conformance       ok: every ordering edge of the model holds at every instant of this run\n";
    } else {
        o << "  conformance       " << rep_.violations << " VIOLATION(S)";
        if (rep_.never_durable) o << ", " << rep_.never_durable << " persist(s) never durable";
        o << "\n";
        for (auto &v : rep_.shown) {
            o << "    " << describe_op(prog_, g_, v.w1) << " fully durable at " << fmt_time(v.t1) << "\n"
              << "      but " << describe_op(prog_, g_, v.w2) << " ordered after it was durable at " << fmt_time(v.t2)
              << "\n      ordered by: " << v.via << "\n";
        }
        if (rep_.violations > rep_.shown.size()) o << "    ... and " << (rep_.violations - rep_.shown.size()) << " more\n";
    }
    for (auto &a : rep_.anomalies) o << "  note: " << a << "\n";
    if (!rep_.reqs.empty()) {
        o << "  requirements      " << rep_.reqs.size() << ": " << (rep_.reqs.size() - rep_.not_guaranteed())
          << " guaranteed, " << rep_.not_guaranteed() << " not guaranteed; " << rep_.reqs_violated()
          << " violated in this run\n";
        const bool any_bad = rep_.not_guaranteed() + rep_.reqs_violated() > 0;
        size_t shown = 0, hidden = 0;
        for (auto &r : rep_.reqs) {
            bool bad = !r.guaranteed || r.violated;
            if (shown >= kShow || (any_bad && !bad)) {
                ++hidden;
                continue;
            }
            ++shown;
            o << "    require " << prog_->ops[r.a].id << " " << prog_->ops[r.b].id << " (op " << prog_->ops[r.req].id
              << "): " << (r.guaranteed ? "guaranteed" : "NOT GUARANTEED") << "; this run: "
              << (r.violated ? "VIOLATED" : "kept") << " (" << prog_->ops[r.a].id << " durable " << fmt_time(r.ta)
              << ", " << prog_->ops[r.b].id << " first durable " << fmt_time(r.tb) << ")\n";
            if (r.guaranteed) o << "      by: " << r.via << "\n";
            else
                o << "      " << describe_op(prog_, g_, r.a) << " is not ordered before " << describe_op(prog_, g_, r.b)
                  << " by the " << model_.name << " model\n";
        }
        if (hidden) o << "    ... and " << hidden << " more\n";
    }
    return o.str();
}

} // namespace persim
