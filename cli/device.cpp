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
#include <vector>
#include "config.h"
#include "cores_util.h"
#include "mem_ctrl.h"
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

FILE *open_csv(const std::string &dir, const char *name, const char *header)
{
    const std::string p = dir + "/" + name;
    FILE *f = std::fopen(p.c_str(), "w");
    if (!f) fail("cannot write " + p);
    std::fprintf(f, "%s\n", header);
    return f;
}

uint64_t parse_u(const std::string &opt, const std::string &v)
{
    char *end = nullptr;
    const unsigned long long x = std::strtoull(v.c_str(), &end, 10);
    if (v.empty() || *end || x == 0) fail(opt + ": expected a positive integer, got '" + v + "'");
    return x;
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
    for (int i = 2; i < argc; ++i) {
        const std::string s = argv[i];
        auto val = [&]() -> std::string {
            if (i + 1 >= argc) fail("option " + s + " needs a value");
            return argv[++i];
        };
        if (s == "--help" || s == "-h") {
            std::printf("%s", kDeviceUsage);
            return 0;
        } else if (s == "--config") configs.push_back(val());
        else if (s == "--set") sets.push_back(val());
        else if (s == "--out") out = val();
        else if (s == "--host-path-ns") {
            const std::string v = val();
            char *end = nullptr;
            host_ns = std::strtod(v.c_str(), &end);
            if (v.empty() || *end || !(host_ns >= 0) || host_ns > 1e6) fail("--host-path-ns: expected ns in 0..1e6, got '" + v + "'");
        } else if (s == "--mlp") mlp = (uint32_t)std::min<uint64_t>(parse_u(s, val()), 1024);
        else if (s == "--samples") samples = parse_u(s, val());
        else if (s == "--quiet") quiet = true;
        else fail("unknown option '" + s + "' (try persim device --help)");
    }
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
    FILE *f = open_csv(out, "latency.csv", "pattern,op,latency_ns");
    double lat_seq, lat_rnd;
    {
        Dev v(socket);
        lat_seq = closed_loop(v.d, false, 1, 1, 0, samples, host, [](uint32_t, uint64_t k) { return Access{k * 64, 64}; }).avg_latency_ns;
        Dev w(socket);
        Rng g(1);
        const uint64_t lines = (64ull << 20) / 64;   // a 64 MB region: inside the AIT caches' reach
        lat_rnd = closed_loop(w.d, false, 1, 1, warm, samples, host, [&](uint32_t, uint64_t) { return Access{g.below(lines) * 64, 64}; }).avg_latency_ns;
        std::fprintf(f, "sequential,read,%.2f\nrandom,read,%.2f\n", lat_seq, lat_rnd);
    }
    std::fclose(f);

    // 2. Pointer chase on one DIMM over working sets (LENS, Wang et al.: the buffer and AIT knees).
    f = open_csv(out, "chase.csv", "working_set_bytes,latency_ns,buf_hit_rate,ait_hit_rate");
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
            std::fprintf(f, "%llu,%.2f,%.4f,%.4f\n", (unsigned long long)ws, r.avg_latency_ns,
                         s.reads ? (double)s.buf_read_hits / s.reads : 0, ait);
        }
    }
    std::fclose(f);

    // 3. Bandwidth against access size and threads (Izraelevitz et al.; Yang et al.): random
    //    size-aligned accesses over 1 GB on every DIMM.
    f = open_csv(out, "bandwidth.csv", "op,access_bytes,threads,gbps");
    for (int wr = 0; wr < 2; ++wr)
        for (uint32_t size : {64u, 128u, 256u, 512u, 1024u, 2048u, 4096u})
            for (uint32_t threads : {1u, 2u, 4u, 8u, 12u, 16u, 24u, 32u, 48u}) {
                Dev v(socket);
                Rng g(size * 131 + threads);
                const uint64_t blocks = (1ull << 30) / size;
                const uint64_t per = std::max<uint64_t>(samples * 64 / size / threads, 200);
                const LoopResult r = closed_loop(v.d, wr, threads, mlp, per / 4, per, host,
                                                 [&](uint32_t, uint64_t) { return Access{g.below(blocks) * size, size}; });
                std::fprintf(f, "%s,%u,%u,%.3f\n", wr ? "write" : "read", size, threads, r.gbps);
            }
    std::fclose(f);

    // 4. Write amplification (Yang et al.'s effective write ratio, inverted): media bytes written
    //    per byte written, over 1 GB, 4 threads.
    f = open_csv(out, "amplification.csv", "pattern,access_bytes,write_amplification");
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
            std::fprintf(f, "%s,%u,%.3f\n", seq ? "sequential" : "random", size, s.write_bytes ? media / s.write_bytes : 0);
        }
    std::fclose(f);

    // 5. Tail latency on a hotspot (Yang et al.: rare writes of tens of microseconds): one thread
    //    on one DIMM, dependent 256 B writes cycling over a hotspot larger than the buffer, so
    //    every line leaves the buffer whole and reaches the media; every nvm.wear_writes-th media
    //    write of a wear block migrates it.
    f = open_csv(out, "tail.csv", "hotspot_bytes,writes,p50_ns,p99_ns,p9999_ns,max_ns,over_10us,migrations");
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
        std::fprintf(f, "%llu,%llu,%.1f,%.1f,%.1f,%.1f,%llu,%llu\n", (unsigned long long)hot, (unsigned long long)l.size(),
                     pct(0.5), pct(0.99), pct(0.9999), l.empty() ? 0.0 : l.back() / 1000.0, (unsigned long long)over,
                     (unsigned long long)v.st().migrations);
    }
    std::fclose(f);

    if (!quiet)
        std::printf("persim device: %u DIMMs, idle read latency sequential %.1f ns, random %.1f ns; CSVs in %s/\n",
                    socket.dimms, lat_seq, lat_rnd, out.c_str());
    return 0;
}

} // namespace persim
