// `persim device`: the published microbenchmarks of Optane DC PMM run on persim's pm_dimm device
// (cores/pm_dimm.h) as the configuration builds it, for results/optane/ (scripts/optane_figures.py;
// docs/models/nvm-device.md "Validation"). Runs no SystemC: a closed-loop load generator drives
// the device core directly, as the published measurements drive a socket's DIMMs from cores.
//
// The harness: T threads, each keeping up to `mlp` 64-byte requests outstanding (a 4 KB access is
// 64 requests); a read completes when its data is back plus the host path (core -> iMC -> core,
// outside the DIMM); a write completes when the DIMM accepts it (the iMC's queue then frees).
// Dependent accesses (latency, pointer chase) use one thread with mlp 1.
#include "device.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <queue>
#include <string>
#include <filesystem>
#include <fstream>
#include <vector>
#include "config.h"
#include "cores_util.h"
#include "mem_ctrl.h"
#include "proc.h"
#include "args.h"
extern "C" {
#include "pm_dimm.h"
}

namespace persim {
namespace {

const char *kDeviceUsage =
    "usage: persim device [--config FILE ...] [--set KEY=VALUE ...] [--out DIR] [options]\n"
    "\n"
    "Runs the published Optane DC PMM microbenchmarks on the pm_dimm device the configuration\n"
    "builds (nvm.device = pm_dimm, e.g. --config configs/nvm_optane_dcpmm.json) and writes CSVs:\n"
    "  latency.csv        idle read latency, sequential and random (one thread, dependent)\n"
    "  chase.csv          random dependent reads over working sets 1 KB .. 4 GB on one DIMM (the knees\n"
    "                     where the on-DIMM buffer and the AIT cache stop covering the set)\n"
    "  bandwidth.csv      random reads / writes of 64 B .. 4 KB accesses, 1 .. 48 threads, all DIMMs\n"
    "  amplification.csv  media bytes written per byte written, random and sequential, 8 B .. 256 B\n"
    "  tail.csv           write latency percentiles on a hotspot of one DIMM (wear-levelling migrations)\n"
    "\n"
    "options:\n"
    "  --out DIR          output folder (default results/optane/raw)\n"
    "  --host-path-ns X   core -> iMC -> core time of a read outside the DIMM (default 45;\n"
    "                     docs/models/nvm-device.md says where it comes from)\n"
    "  --mlp N            64 B requests a thread keeps outstanding in the bandwidth runs (default 10:\n"
    "                     the L1D fill buffers of the Skylake/Cascade Lake core the papers measured)\n"
    "  --samples N        measured accesses per point (default 100000)\n"
    "  --quiet            no summary on stdout\n";

[[noreturn]] void fail(const std::string &m)
{
    std::fprintf(stderr, "persim device: %s\n", m.c_str());
    std::exit(1);
}

struct Dev {
    std::vector<uint64_t> mem;
    pm_dimm *d = nullptr;
    explicit Dev(const pm_dimm_cfg &c)
    {
        const size_t n = pm_dimm_bytes(&c);
        if (!n) fail("the configuration's pm_dimm device is invalid (see `persim list keys`, nvm.*)");
        mem.assign(n / 8 + 1, 0);
        if (pm_dimm_init(mem.data(), &c) != 0) fail("the configuration's pm_dimm device is invalid");
        d = reinterpret_cast<pm_dimm *>(mem.data());
    }
    const pm_dimm_stats &st() const { return *pm_dimm_get_stats(d); }
};

// A deterministic generator (splitmix64).
struct Rng {
    uint64_t s;
    explicit Rng(uint64_t seed) : s(seed) {}
    uint64_t next()
    {
        uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    uint64_t below(uint64_t n) { return n ? next() % n : 0; }
};

struct Access {
    uint64_t addr;
    uint32_t bytes;
};

struct LoopResult {
    double avg_latency_ns = 0, gbps = 0;
    std::vector<uint64_t> latencies_ps;   // per access (kept when asked)
};

// The closed loop: `threads` threads, each running `per_thread` accesses from gen(thread, k),
// each access split into 64 B requests, up to `mlp` of them outstanding per thread. The first
// `warm` accesses of each thread are run but not measured.
LoopResult closed_loop(pm_dimm *d, bool write, uint32_t threads, uint32_t mlp, uint64_t warm, uint64_t per_thread,
                       uint64_t host_ps, const std::function<Access(uint32_t, uint64_t)> &gen, bool keep = false)
{
    struct Thread {
        uint64_t k = 0;                 // next access
        Access cur{};
        uint32_t cur_left = 0, cur_off = 0;
        uint64_t cur_issue = 0, cur_done = 0;
        uint32_t cur_pending = 0;       // requests of the current access not yet complete
        std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<uint64_t>> out;   // completions
    };
    std::vector<Thread> th(threads);
    using Ev = std::pair<uint64_t, uint32_t>;
    std::priority_queue<Ev, std::vector<Ev>, std::greater<Ev>> pq;
    for (uint32_t i = 0; i < threads; ++i) pq.push({0, i});
    LoopResult r;
    uint64_t measured = 0, lat_sum = 0, bytes = 0, t_start = UINT64_MAX, t_end = 0;
    const uint64_t total = warm + per_thread;
    while (!pq.empty()) {
        auto [t, i] = pq.top();
        pq.pop();
        Thread &x = th[i];
        while (!x.out.empty() && x.out.top() <= t) x.out.pop();
        while (x.out.size() < mlp) {
            if (!x.cur_left) {
                if (x.k >= total) break;
                x.cur = gen(i, x.k);
                x.cur_left = (x.cur.bytes + 63) / 64;
                x.cur_off = 0;
                x.cur_issue = t;
                x.cur_done = 0;
            }
            const uint32_t b = std::min<uint32_t>(64, x.cur.bytes - x.cur_off);
            const uint64_t a = x.cur.addr + x.cur_off;
            const uint64_t done = write ? pm_dimm_write(d, t, a, b) : pm_dimm_read(d, t + host_ps / 2, a, b) + host_ps / 2;
            x.out.push(done);
            x.cur_done = std::max(x.cur_done, done);
            x.cur_off += b;
            if (--x.cur_left == 0) {
                if (x.k >= warm) {
                    ++measured;
                    lat_sum += x.cur_done - x.cur_issue;
                    bytes += x.cur.bytes;
                    t_start = std::min(t_start, x.cur_issue);
                    t_end = std::max(t_end, x.cur_done);
                    if (keep) r.latencies_ps.push_back(x.cur_done - x.cur_issue);
                }
                ++x.k;
                if (mlp == 1) break;   // dependent: the next access waits for this one
            }
        }
        if (!x.out.empty()) pq.push({x.out.top(), i});
        else if (x.k < total) pq.push({t, i});
    }
    r.avg_latency_ns = measured ? lat_sum / 1000.0 / measured : 0;
    r.gbps = t_end > t_start ? bytes / ((t_end - t_start) / 1000.0) : 0;
    return r;
}

// One benchmark's CSV file (cli/proc.h: RFC 4180, every cell quoted).
class CsvOut {
  public:
    CsvOut(const std::string &dir, const char *name, const std::vector<std::string> &header)
        : path_(dir + "/" + name), o_(path_, std::ios::binary)
    {
        if (!o_) fail("cannot write " + path_);
        row(header);
    }
    void row(const std::vector<std::string> &cells) { o_ << csv_record(cells); }
    void close()
    {
        o_.close();
        if (!o_) fail("cannot write " + path_);
    }

  private:
    std::string path_;
    std::ofstream o_;
};

// A number as printf writes it (one CSV cell).
template <class T>
std::string cell(const char *fmt, T v)
{
    char b[64];
    std::snprintf(b, sizeof b, fmt, v);
    return b;
}

} // namespace

int device_main(int argc, char **argv)
{
    std::vector<std::string> configs, sets;
    std::string out = "results/optane/raw";
    double host_ns = 45.0;
    uint32_t mlp = 10;
    uint64_t samples = 100000;
    bool quiet = false;
    std::string host_s, mlp_s, samples_s;
    CLI::App app{"persim device", "persim device"};
    set_usage(app, kDeviceUsage);
    app.allow_extras();   // unknown options: named below, with did-you-mean
    app.add_option("--config", configs)->allow_extra_args(false);
    app.add_option("--set", sets)->allow_extra_args(false);
    app.add_option("--out", out);
    app.add_option("--host-path-ns", host_s)->check(CLI::Validator(
        [](std::string &v) -> std::string {
            char *end = nullptr;
            const double x = std::strtod(v.c_str(), &end);
            if (v.empty() || *end || !(x >= 0) || x > 1e6) return "expected ns in 0..1e6, got '" + v + "'";
            return "";
        },
        "NS"));
    app.add_option("--mlp", mlp_s)->check(uint_in(1, UINT64_MAX, "a positive integer"));
    app.add_option("--samples", samples_s)->check(uint_in(1, UINT64_MAX, "a positive integer"));
    add_flag(app, "--quiet", quiet);
    try {
        app.parse(argc - 1, argv + 1);
    } catch (const CLI::Success &e) {   // --help
        return app.exit(e);
    } catch (const CLI::ParseError &e) {
        fail(parse_error(app, &e, std::vector<std::string>(argv + 2, argv + argc), " (try persim device --help)"));
    }
    if (!app.remaining().empty())
        fail(first_unknown_option(app).empty() ? "unexpected argument '" + app.remaining()[0] + "'"
                                               : parse_error(app, nullptr, {}, " (try persim device --help)"));
    if (!host_s.empty()) host_ns = std::strtod(host_s.c_str(), nullptr);
    if (!mlp_s.empty()) mlp = (uint32_t)std::min<uint64_t>(std::stoull(mlp_s), 1024);
    if (!samples_s.empty()) samples = std::stoull(samples_s);
    pm_dimm_cfg socket{};
    try {
        Config c;
        for (const auto &f : configs) c.load_file(f);
        for (const auto &kv : sets) c.set_kv(kv);
        const MemCtrlCfg m = MemCtrlCfg::nvm(c);
        if (m.device != "pm_dimm")
            fail("nvm.device is '" + m.device + "': persim device measures the pm_dimm device (add --config "
                 "configs/nvm_optane_dcpmm.json or --set nvm.device=pm_dimm)");
        socket = m.dimm;
        socket.dimms = m.dimm.dimms * m.controllers;   // every DIMM of the socket, as the measurements
    } catch (const ConfigError &e) {
        fail(e.what());
    }
    std::error_code ec;
    std::filesystem::create_directories(out, ec);
    if (ec) fail(out + ": cannot create output directory: " + ec.message());
    const uint64_t host = ns_to_ps(host_ns);
    const uint64_t warm = samples;

    // 1. Idle read latency (Izraelevitz et al., "best-case latency"): one thread, dependent.
    CsvOut lat(out, "latency.csv", {"pattern", "op", "latency_ns"});
    double lat_seq, lat_rnd;
    {
        Dev v(socket);
        lat_seq = closed_loop(v.d, false, 1, 1, 0, samples, host, [](uint32_t, uint64_t k) { return Access{k * 64, 64}; }).avg_latency_ns;
        Dev w(socket);
        Rng g(1);
        const uint64_t lines = (64ull << 20) / 64;   // a 64 MB region: inside the AIT caches' reach
        lat_rnd = closed_loop(w.d, false, 1, 1, warm, samples, host, [&](uint32_t, uint64_t) { return Access{g.below(lines) * 64, 64}; }).avg_latency_ns;
        lat.row({"sequential", "read", cell("%.2f", lat_seq)});
        lat.row({"random", "read", cell("%.2f", lat_rnd)});
    }
    lat.close();

    // 2. Pointer chase on one DIMM over working sets (LENS, Wang et al.: the buffer and AIT knees).
    CsvOut chase(out, "chase.csv", {"working_set_bytes", "latency_ns", "buf_hit_rate", "ait_hit_rate"});
    {
        pm_dimm_cfg one = socket;
        one.dimms = 1;
        for (uint64_t ws = 1024; ws <= (4ull << 30); ws *= 2) {
            Dev v(one);
            Rng g(ws);
            const uint64_t lines = ws / 64;
            const uint64_t w = std::max<uint64_t>(warm, std::min<uint64_t>(4 * lines, 2000000));
            const LoopResult r = closed_loop(v.d, false, 1, 1, w, samples, host,
                                             [&](uint32_t, uint64_t) { return Access{g.below(lines) * 64, 64}; });
            const pm_dimm_stats &s = v.st();
            const double ait = s.ait_hits + s.ait_misses ? (double)s.ait_hits / (s.ait_hits + s.ait_misses) : 0;
            chase.row({std::to_string(ws), cell("%.2f", r.avg_latency_ns),
                       cell("%.4f", s.reads ? (double)s.buf_read_hits / s.reads : 0.0), cell("%.4f", ait)});
        }
    }
    chase.close();

    // 3. Bandwidth against access size and threads (Izraelevitz et al.; Yang et al.): random
    //    size-aligned accesses over 1 GB on every DIMM.
    CsvOut bw(out, "bandwidth.csv", {"op", "access_bytes", "threads", "gbps"});
    for (int wr = 0; wr < 2; ++wr)
        for (uint32_t size : {64u, 128u, 256u, 512u, 1024u, 2048u, 4096u})
            for (uint32_t threads : {1u, 2u, 4u, 8u, 12u, 16u, 24u, 32u, 48u}) {
                Dev v(socket);
                Rng g(size * 131 + threads);
                const uint64_t blocks = (1ull << 30) / size;
                const uint64_t per = std::max<uint64_t>(samples * 64 / size / threads, 200);
                const LoopResult r = closed_loop(v.d, wr, threads, mlp, per / 4, per, host,
                                                 [&](uint32_t, uint64_t) { return Access{g.below(blocks) * size, size}; });
                bw.row({wr ? "write" : "read", std::to_string(size), std::to_string(threads), cell("%.3f", r.gbps)});
            }
    bw.close();

    // 4. Write amplification (Yang et al.'s effective write ratio, inverted): media bytes written
    //    per byte written, over 1 GB, 4 threads.
    CsvOut amp(out, "amplification.csv", {"pattern", "access_bytes", "write_amplification"});
    for (int seq = 0; seq < 2; ++seq)
        for (uint32_t size : {8u, 64u, 128u, 256u}) {
            Dev v(socket);
            Rng g(size + 7);
            const uint64_t blocks = (1ull << 30) / size;
            closed_loop(v.d, true, 4, mlp, 0, samples, host, [&](uint32_t th, uint64_t k) {
                return Access{seq ? (th * (256ull << 20) + k * size) : g.below(blocks) * size, size};
            });
            const pm_dimm_stats &s = v.st();
            const double media = (double)(s.media_writes + pm_dimm_dirty_lines(v.d)) * socket.media_line_bytes;
            amp.row({seq ? "sequential" : "random", std::to_string(size), cell("%.3f", s.write_bytes ? media / s.write_bytes : 0.0)});
        }
    amp.close();

    // 5. Tail latency on a hotspot (Yang et al.: rare writes of tens of microseconds): one thread
    //    on one DIMM, dependent 256 B writes cycling over a hotspot larger than the buffer, so
    //    every line leaves the buffer whole and reaches the media; every nvm.wear_writes-th media
    //    write of a wear block migrates it.
    CsvOut tail(out, "tail.csv", {"hotspot_bytes", "writes", "p50_ns", "p99_ns", "p9999_ns", "max_ns", "over_10us", "migrations"});
    for (uint64_t hot : {32768ull, 262144ull}) {
        pm_dimm_cfg c = socket;
        c.dimms = 1;
        Dev v(c);
        const uint64_t n = std::max<uint64_t>(samples, 100000);
        LoopResult r = closed_loop(v.d, true, 1, 1, 0, n, host, [&](uint32_t, uint64_t k) {
            return Access{(k * 256) % hot, 256};
        }, true);
        std::vector<uint64_t> &l = r.latencies_ps;
        std::sort(l.begin(), l.end());
        auto pct = [&](double p) { return l.empty() ? 0.0 : l[std::min<size_t>(l.size() - 1, (size_t)(p * l.size()))] / 1000.0; };
        const uint64_t over = (uint64_t)(l.end() - std::upper_bound(l.begin(), l.end(), 10000000ull));
        tail.row({std::to_string(hot), std::to_string(l.size()), cell("%.1f", pct(0.5)), cell("%.1f", pct(0.99)),
                  cell("%.1f", pct(0.9999)), cell("%.1f", l.empty() ? 0.0 : l.back() / 1000.0), std::to_string(over),
                  std::to_string(v.st().migrations)});
    }
    tail.close();

    if (!quiet)
        std::printf("persim device: %u DIMMs, idle read latency sequential %.1f ns, random %.1f ns; CSVs in %s/\n",
                    socket.dimms, lat_seq, lat_rnd, out.c_str());
    return 0;
}

} // namespace persim
