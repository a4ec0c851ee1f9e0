// persim trace-program: run a program under the persim-vgtrace Valgrind tool and convert its raw
// events into a persim trace for the cpu system. docs/real-programs.md describes the raw format,
// the options and the mapping of fences, flushes and atomics onto the trace's intent ops.
#include "trace_program.h"

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <map>
#include <memory>
#include <new>
#include <unordered_map>
#include <unordered_set>
#include <vector>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "out_file.h"
#include "proc.h"
#include "args.h"
#include "../persim-vgtrace/pt_format.h"
extern "C" {
#include "trace.h"
}

extern char **environ;

namespace persim {

namespace {

struct Rec {
    uint8_t kind, size;
    uint16_t tid;
    uint32_t gap;
    uint64_t addr, val;
};
static_assert(sizeof(Rec) == PT_RECORD_BYTES, "raw record layout");

const uint64_t kAddrMask = 0xFFFFFFFFFFull;              // 40 bits of the guest address are kept
const uint64_t kShadowOff = 0xFFF0000000ull;             // sync-word tickets: top 256 MiB of the window

const char *kind_name(unsigned k)
{
    static const char *n[] = {"?",    "load", "store", "store-nt", "cas",  "cas-fail", "fence", "flush", "func", "ret",
                              "loop", "thread", "gap", "ll", "sc", "sc-fail", "pm-range", "start", "stop", "end"};
    return k < sizeof n / sizeof n[0] ? n[k] : "?";
}

// Reads and checks the whole raw file: header, whole records, known kinds, sizes, the end record
// last with the right count. On error: "FILE: record N (byte B): message".
bool load_raw(const std::string &path, std::vector<Rec> &recs, std::string &err)
{
    std::error_code ec;
    const auto st = std::filesystem::status(path, ec);
    if (!ec && std::filesystem::is_directory(st)) {
        err = path + ": is a directory, not a raw event file (give the .raw file persim trace-program --raw wrote)";
        return false;
    }
    std::ifstream f(path, std::ios::binary);
    if (!f) {
        err = path + ": cannot open the raw event file: " + std::strerror(errno);
        return false;
    }
    if (ec || !std::filesystem::is_regular_file(st)) {
        err = path + ": not a regular file (a raw event file is read with its size known)";
        return false;
    }
    f.seekg(0, std::ios::end);
    std::streamoff bytes = f.tellg();
    f.seekg(0);
    if (bytes < 0 || !f) {
        err = path + ": cannot read the raw event file (its size is unknown): " + std::strerror(errno);
        return false;
    }
    char hdr[PT_HEADER_BYTES];
    if (bytes < PT_HEADER_BYTES || !f.read(hdr, PT_HEADER_BYTES)) {
        err = path + ": record 0 (byte 0): truncated header (" + std::to_string((long long)bytes) + " bytes; a raw file starts with a " +
              std::to_string(PT_HEADER_BYTES) + "-byte header '" PT_MAGIC "')";
        return false;
    }
    if (std::memcmp(hdr, PT_MAGIC, 8) != 0) {
        err = path + ": record 0 (byte 0): not a persim-vgtrace raw file (no '" PT_MAGIC "' magic)";
        return false;
    }
    uint64_t rs;
    std::memcpy(&rs, hdr + 8, 8);
    if (rs != PT_RECORD_BYTES) {
        err = path + ": record 0 (byte 8): record size " + std::to_string(rs) + " (this reader reads " +
              std::to_string(PT_RECORD_BYTES) + "-byte records)";
        return false;
    }
    uint64_t body = (uint64_t)bytes - PT_HEADER_BYTES, n = body / PT_RECORD_BYTES;
    recs.resize(n);
    if (n && !f.read(reinterpret_cast<char *>(recs.data()), (std::streamsize)(n * PT_RECORD_BYTES))) {
        err = path + ": read error after " + std::to_string(PT_HEADER_BYTES + f.gcount()) + " bytes: " + std::strerror(errno);
        return false;
    }
    auto at = [&](uint64_t i) {
        return path + ": record " + std::to_string(i + 1) + " (byte " + std::to_string(PT_HEADER_BYTES + i * PT_RECORD_BYTES) + "): ";
    };
    for (uint64_t i = 0; i < n; ++i) {
        const Rec &r = recs[i];
        if (r.kind < PT_LOAD || r.kind > PT_END) {
            err = at(i) + "unknown event kind " + std::to_string(r.kind);
            return false;
        }
        bool mem = r.kind == PT_LOAD || r.kind == PT_STORE || r.kind == PT_STORE_NT || r.kind == PT_CAS ||
                   r.kind == PT_CAS_FAIL || r.kind == PT_LL || r.kind == PT_SC || r.kind == PT_SC_FAIL;
        if (mem && (r.size == 0 || r.size > (r.kind == PT_LOAD || r.kind == PT_LL ? 255 : 16))) {
            err = at(i) + std::string(kind_name(r.kind)) + " of " + std::to_string(r.size) + " bytes";
            return false;
        }
        if (r.kind == PT_END && i + 1 != n) {
            err = at(i) + "end record before the end of the file (" + std::to_string(n - i - 1) + " records follow)";
            return false;
        }
    }
    if (body % PT_RECORD_BYTES) {
        err = at(n) + "truncated record (" + std::to_string(body % PT_RECORD_BYTES) + " of " + std::to_string(PT_RECORD_BYTES) +
              " bytes): the raw file was cut (the tool was killed, or the disk is full)";
        return false;
    }
    if (n == 0 || recs[n - 1].kind != PT_END) {
        err = at(n) + "no end record: the raw file is truncated after " + std::to_string(n) +
              " records (the traced program was killed before Valgrind finished, it exec'ed another program - Valgrind does not"
              " follow exec: give the environment with --env, not `env` -, or the file was cut)";
        return false;
    }
    if (recs[n - 1].val != n - 1) {
        err = at(n - 1) + "end record counts " + std::to_string(recs[n - 1].val) + " records, the file holds " +
              std::to_string(n - 1);
        return false;
    }
    return true;
}

// A converted op of one thread, before the program is assembled stream by stream.
struct COp {
    uint8_t kind;     // persim_op_kind, or OPK_MARK with elem = mark
    uint8_t elem;
    uint64_t addr, val;
};

struct Thread {
    std::vector<COp> ops;
    uint64_t pending = 0;      // instructions not yet emitted as compute
    bool flushed = false;      // a flush since the previous fence
    bool stored = false;       // a PM store since the previous emitted marker
};

void pieces(uint64_t a, unsigned size, std::vector<std::pair<uint64_t, unsigned>> &out)
{
    out.clear();
    while (size > 0) {
        for (unsigned e : {8u, 4u, 2u, 1u})
            if (a % e == 0 && e <= size) {
                out.push_back({a, e});
                a += e;
                size -= e;
                break;
            }
    }
}

} // namespace

int vg_dump_raw(const std::string &raw, FILE *out, std::string &err)
{
    std::vector<Rec> recs;
    try {
        if (!load_raw(raw, recs, err)) return -1;
    } catch (const std::bad_alloc &) {
        err = raw + ": out of memory reading the raw file (it is read whole)";
        return -1;
    }
    for (size_t i = 0; i < recs.size(); ++i) {
        const Rec &r = recs[i];
        std::fprintf(out, "%zu tid=%u %s size=%u addr=0x%llx val=%llu gap=%u\n", i + 1, r.tid, kind_name(r.kind), r.size,
                     (unsigned long long)r.addr, (unsigned long long)r.val, r.gap);
    }
    return 0;
}

namespace {

// vg_convert's state between its passes: the sync words, the threads and their converted ops,
// the statistics, and the ticket of every sync word.
struct Converter {
    const VgConvertOptions &o;
    VgConvertStats &s;
    std::unordered_map<uint64_t, uint64_t> sync_index;    // guest address -> shadow slot
    std::map<uint16_t, unsigned> tmap;
    std::vector<uint16_t> torder;
    std::vector<Thread> th;
    std::vector<uint64_t> ticket;
    std::unordered_set<uint64_t> lines, slines;
    std::vector<std::pair<uint64_t, unsigned>> pc;

    Converter(const VgConvertOptions &opt, VgConvertStats &st) : o(opt), s(st) {}
    uint64_t pm(uint64_t a) const { return o.pm_base + (a & kAddrMask); }
    uint64_t shadow(uint64_t a) const { return o.pm_base + kShadowOff + 8 * sync_index.at(a); }

    // Pass 1: sync words (targets of atomics) and threads in order of first appearance.
    bool scan(const std::vector<Rec> &recs, const std::string &raw, std::string &err)
    {
        for (size_t i = 0; i + 1 < recs.size(); ++i) {
            const Rec &r = recs[i];
            if (r.kind == PT_CAS || r.kind == PT_CAS_FAIL || r.kind == PT_LL || r.kind == PT_SC || r.kind == PT_SC_FAIL)
                sync_index.emplace(r.addr, sync_index.size());
            if (r.kind == PT_PMRANGE || r.kind == PT_END) continue;
            if (r.tid == 0) {
                err = raw + ": record " + std::to_string(i + 1) + " (byte " + std::to_string(PT_HEADER_BYTES + i * PT_RECORD_BYTES) +
                      "): thread id 0 on a " + kind_name(r.kind) + " record";
                return false;
            }
            if (!tmap.count(r.tid)) {
                if (tmap.size() == o.max_threads) {
                    err = raw + ": record " + std::to_string(i + 1) + ": thread " + std::to_string(r.tid) + " is the " +
                          std::to_string(o.max_threads + 1) + "th thread; a trace holds at most " + std::to_string(o.max_threads) +
                          " CPU threads (kernel main, threads=32*T <= 1024)";
                    return false;
                }
                tmap[r.tid] = (unsigned)torder.size();
                torder.push_back(r.tid);
            }
        }
        s.sync_words = sync_index.size();
        s.threads = torder.size();
        th.resize(torder.size());
        ticket.assign(sync_index.size(), 0);
        return true;
    }

    // Emits the thread's pending instructions as one compute op.
    void flush_compute(Thread &t)
    {
        if (t.pending) {
            t.ops.push_back({OPK_COMPUTE, 0, 0, t.pending});
            s.compute_ops++;
            s.compute_instrs += t.pending;
            t.pending = 0;
        }
    }
    // an op that counts as one instruction: the instruction that made the record
    void op_instr(Thread &t, const Rec &r)
    {
        if (r.gap) t.pending += r.gap - 1;
        flush_compute(t);
    }
    // A load of `size` bytes as aligned pieces of at most 8 bytes.
    void emit_ld(Thread &t, uint64_t a, unsigned size)
    {
        for (unsigned k = 0; k < size; k += 8) {
            pieces(pm(a + k), size - k < 8 ? size - k : 8, pc);
            for (auto &p : pc) {
                t.ops.push_back({OPK_LD, (uint8_t)p.second, p.first, 0});
                s.ld++;
                lines.insert(p.first >> 6);
            }
        }
    }
    // A store of `size` bytes of v as aligned pieces, each with its part of the value.
    void emit_st(Thread &t, uint64_t a, unsigned size, uint64_t v)
    {
        pieces(pm(a), size, pc);
        uint64_t base = pm(a);
        for (auto &p : pc) {
            unsigned sh = (unsigned)(p.first - base) * 8;
            uint64_t pv = sh >= 64 ? 0 : v >> sh;
            if (p.second < 8) pv &= (1ull << (8 * p.second)) - 1;
            t.ops.push_back({OPK_ST, (uint8_t)p.second, p.first, pv});
            s.st++;
            lines.insert(p.first >> 6);
            slines.insert(p.first >> 6);
        }
        t.stored = true;
    }
    // Waits for the sync word's current ticket.
    void acquire(Thread &t, uint64_t a)
    {
        uint64_t slot = sync_index.at(a);
        t.ops.push_back({OPK_ACQUIRE, 8, shadow(a), ticket[slot]});
        s.acquire++;
    }
    // Publishes the sync word's next ticket.
    void release(Thread &t, uint64_t a)
    {
        uint64_t slot = sync_index.at(a);
        t.ops.push_back({OPK_RELEASE, 8, shadow(a), ++ticket[slot]});
        s.release++;
    }

    // Pass 2: one record into its thread's ops. false with err for a record the trace cannot hold.
    bool convert(const Rec &r, size_t i, const std::string &raw, std::string &err)
    {
        const bool writes = r.kind == PT_STORE || r.kind == PT_STORE_NT || r.kind == PT_CAS || r.kind == PT_SC;
        if (writes && (r.addr & kAddrMask) + r.size > kShadowOff) {
            // the replay's acquire/release tickets live there: a store would change a ticket and
            // the threads waiting for it would wait for ever
            char b[160];
            std::snprintf(b, sizeof b, "%s of %u bytes to guest address 0x%llx maps into the ticket window of the trace "
                          "(pm_base + 0xFFF0000000..; guest addresses keep 40 bits)",
                          kind_name(r.kind), r.size, (unsigned long long)r.addr);
            err = raw + ": record " + std::to_string(i + 1) + " (byte " + std::to_string(PT_HEADER_BYTES + i * PT_RECORD_BYTES) +
                  "): " + b;
            return false;
        }
        convert(r);
        return true;
    }
    void convert(const Rec &r)
    {
        if (r.kind == PT_PMRANGE) {
            s.pm_ranges++;
            s.pm_bytes_in_ranges += r.val;
            return;
        }
        Thread &t = th[tmap.at(r.tid)];
        bool sync = sync_index.count(r.addr) != 0;
        switch (r.kind) {
        case PT_LOAD:
        case PT_LL:
            op_instr(t, r);
            emit_ld(t, r.addr, r.size);
            if (r.kind == PT_LL) s.llsc++;
            break;
        case PT_STORE:
        case PT_STORE_NT:
            op_instr(t, r);
            if (r.kind == PT_STORE_NT) s.st_nt++;
            if (sync) {
                // a plain store to a word other threads update atomically (a spin-lock release):
                // one step of the word's ticket chain, like an atomic
                acquire(t, r.addr);
                emit_st(t, r.addr, r.size, r.val);
                release(t, r.addr);
                s.sync_stores++;
            } else {
                emit_st(t, r.addr, r.size, r.val);
            }
            break;
        case PT_CAS:
        case PT_CAS_FAIL:
        case PT_SC:
        case PT_SC_FAIL:
            op_instr(t, r);
            acquire(t, r.addr);
            emit_ld(t, r.addr, r.size);
            if (r.kind == PT_CAS || r.kind == PT_SC) emit_st(t, r.addr, r.size, r.val);
            release(t, r.addr);
            if (r.kind == PT_CAS) s.cas++;
            else if (r.kind == PT_CAS_FAIL) s.cas_fail++;
            else s.llsc++;
            break;
        case PT_FENCE:
            if (r.size == 1 || r.size == 2) {
                op_instr(t, r);
                // every sfence/mfence orders the thread's stores -> `order` (a BROI epoch
                // boundary, a LightWSP region boundary). After a flush of this thread it also
                // waits for the flushed lines to reach the persistence domain (pmem_drain) ->
                // `order` + `durable`: persim's cpu core ends a barrier epoch only at `order`
                // (cpu_core.cpp), and waits for durability only at `durable`.
                t.ops.push_back({(uint8_t)OPK_ORDER, 0, 0, 0});
                s.order++;
                if (t.flushed) {
                    t.ops.push_back({(uint8_t)OPK_DURABLE, 0, 0, 0});
                    s.durable++;
                }
                t.flushed = false;
                (r.size == 1 ? s.mfence : s.sfence)++;
            } else {
                t.pending += r.gap;   // lfence, cpuid and other serialising instructions: compute
                (r.size == 3 ? s.lfence : s.other_fence)++;
            }
            break;
        case PT_FLUSH:
            t.pending += r.gap;
            t.flushed = true;
            (r.size == 1 ? s.clflush : r.size == 2 ? s.clflushopt : s.clwb)++;
            break;
        case PT_FUNC:
        case PT_RET:
        case PT_LOOP:
            t.pending += r.gap;
            if (o.all_marks || t.stored) {
                flush_compute(t);
                t.ops.push_back({OPK_MARK, (uint8_t)(r.kind == PT_FUNC ? MARK_FUNC : r.kind == PT_RET ? MARK_RET : MARK_LOOP), 0, 0});
                s.marks++;
                t.stored = false;
            } else {
                s.marks_dropped++;
            }
            break;
        case PT_GAP:
            t.pending += r.gap + r.val;
            break;
        case PT_START:
            s.windows++;
            t.pending += r.gap;
            break;
        default:   // THREAD, STOP
            t.pending += r.gap;
            break;
        }
    }

    // After pass 2: the last compute ops, the footprint, and no sync word inside the ticket window.
    bool finish(const std::string &raw, std::string &err)
    {
        for (auto &t : th) flush_compute(t);
        s.footprint_lines = lines.size();
        s.footprint_store_lines = slines.size();
        for (const auto &kv : sync_index)
            if (pm(kv.first) >= o.pm_base + kShadowOff) {
                err = raw + ": guest address 0x" + [&] { char b[32]; std::snprintf(b, sizeof b, "%llx", (unsigned long long)kv.first); return std::string(b); }() +
                      " maps into the ticket window of the trace (pm_base + 0xFFF0000000..)";
                return false;
            }
        return true;
    }

    // Assembles the program: kernel main, one warp stream per thread (freeing each thread's ops).
    persim_prog *assemble()
    {
        persim_prog *p = prog_new();
        unsigned nth = torder.empty() ? 1 : (unsigned)torder.size();
        prog_kernel(p, "main", 1, 32 * nth);
        for (unsigned t = 0; t < torder.size(); ++t) {
            if (th[t].ops.empty()) continue;
            prog_warp(p, 0, t);
            for (const COp &c : th[t].ops) {
                switch (c.kind) {
                case OPK_LD: op_ld(p, c.addr, c.elem, 1, c.elem); break;
                case OPK_ST: op_st_bcast(p, c.addr, c.elem, 1, c.elem, c.val); break;
                case OPK_COMPUTE: op_compute(p, c.val); break;
                case OPK_ORDER: op_order(p); break;
                case OPK_DURABLE: op_durable(p); break;
                case OPK_ACQUIRE: op_acquire(p, c.addr, 8, c.val, SCOPE_SYSTEM); break;
                case OPK_RELEASE: op_release(p, c.addr, 8, c.val, SCOPE_SYSTEM); break;
                case OPK_MARK: op_mark(p, (persim_mark)c.elem); break;
                }
            }
            std::vector<COp>().swap(th[t].ops);
        }
        return p;
    }
};

} // namespace

static persim_prog *convert_raw(const std::string &raw, const VgConvertOptions &o, VgConvertStats &s, std::string &err)
{
    std::vector<Rec> recs;
    if (!load_raw(raw, recs, err)) return nullptr;
    s = VgConvertStats();
    s.records = recs.size() - 1;
    s.guest_instrs = recs.back().addr;

    Converter cv(o, s);
    if (!cv.scan(recs, raw, err)) return nullptr;
    auto t0 = std::chrono::steady_clock::now();
    for (size_t i = 0; i + 1 < recs.size(); ++i) {
        if (o.progress && i && i % (1u << 22) == 0) {
            double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            std::fprintf(stderr, "trace-program: converted %zu of %zu records (%.1f s)\n", i, recs.size() - 1, sec);
        }
        if (!cv.convert(recs[i], i, raw, err)) return nullptr;
    }
    if (!cv.finish(raw, err)) return nullptr;

    std::vector<Rec>().swap(recs);     // the raw records are no longer needed: free them first
    persim_prog *p = cv.assemble();
    char e[256];
    if (prog_validate(p, e, sizeof e) != 0) {
        err = raw + ": the converted program is not valid: " + e;
        prog_free(p);
        return nullptr;
    }
    return p;
}

// A raw file larger than memory (the records are held at once, then the converted ops) is an
// error naming the file, not an exception out of trace-program.
persim_prog *vg_convert(const std::string &raw, const VgConvertOptions &o, VgConvertStats &s, std::string &err)
{
    try {
        return convert_raw(raw, o, s, err);
    } catch (const std::bad_alloc &) {
        err = raw + ": out of memory converting the raw file (it is held in memory whole, with the converted ops)";
        return nullptr;
    }
}

std::string vg_summary(const VgConvertStats &s)
{
    char b[2048];
    std::snprintf(
        b, sizeof b,
        "  threads          %llu\n"
        "  records          %llu raw events, %llu guest instructions in the run\n"
        "  ops              %llu ld, %llu st (%llu non-temporal), %llu compute ops = %llu instructions\n"
        "  fences           %llu mfence, %llu sfence -> %llu order, of them %llu after a flush + durable; %llu lfence, %llu other (compute)\n"
        "  flushes          %llu clflush, %llu clflushopt, %llu clwb (no op of their own: a later fence becomes durable)\n"
        "  atomics          %llu CAS/locked RMW that stored, %llu that failed, %llu LL/SC, %llu plain stores to sync words\n"
        "                   -> %llu acquire + %llu release on %llu ticket words\n"
        "  markers          %llu kept, %llu dropped (no PM store since the previous one)\n"
        "  PM footprint     %llu lines of 64 B touched (%.1f KiB), %llu stored; %llu PM range(s) of %.1f KiB\n",
        (unsigned long long)s.threads, (unsigned long long)s.records, (unsigned long long)s.guest_instrs, (unsigned long long)s.ld,
        (unsigned long long)s.st, (unsigned long long)s.st_nt, (unsigned long long)s.compute_ops,
        (unsigned long long)s.compute_instrs, (unsigned long long)s.mfence, (unsigned long long)s.sfence,
        (unsigned long long)s.order, (unsigned long long)s.durable, (unsigned long long)s.lfence,
        (unsigned long long)s.other_fence, (unsigned long long)s.clflush, (unsigned long long)s.clflushopt,
        (unsigned long long)s.clwb, (unsigned long long)s.cas, (unsigned long long)s.cas_fail, (unsigned long long)s.llsc,
        (unsigned long long)s.sync_stores, (unsigned long long)s.acquire, (unsigned long long)s.release,
        (unsigned long long)s.sync_words, (unsigned long long)s.marks, (unsigned long long)s.marks_dropped,
        (unsigned long long)s.footprint_lines, s.footprint_lines * 64 / 1024.0, (unsigned long long)s.footprint_store_lines,
        (unsigned long long)s.pm_ranges, s.pm_bytes_in_ranges / 1024.0);
    return b;
}

namespace {

const char *kUsage =
    "usage: persim trace-program [options] -- CMD ARGS...\n"
    "       persim trace-program --from-raw RAW [options]        (convert a raw file only)\n"
    "       persim trace-program --dump-raw RAW                  (print raw events as text)\n"
    "Runs CMD under the persim-vgtrace Valgrind tool and converts the recording into a persim trace\n"
    "for the cpu system (docs/real-programs.md).\n"
    "  -o, --out FILE       trace to write (default: CMD's basename + .trace)\n"
    "  --raw FILE           where the tool's raw events go (default: OUT.raw; kept)\n"
    "  --pm-base ADDR       PM base of the trace (default 0x10000000000 = system.pm_base)\n"
    "  --all-marks          keep every call/ret/loop marker (default: drop markers with no PM store\n"
    "                       since the thread's previous marker)\n"
    "  --tool-lib DIR       VALGRIND_LIB directory holding persimtrace-amd64-linux (default:\n"
    "                       $PERSIM_VGTRACE_LIB, else <dir of persim>/vgtrace/lib)\n"
    "  --env KEY=VALUE      set a variable in the program's environment (repeatable; `env` as the\n"
    "                       command would not be traced: Valgrind does not follow exec)\n"
    "  --quiet              no progress lines\n"
    "tool options (passed to the tool; see docs/real-programs.md):\n"
    "  --pm-range LO-HI|LO:LEN   (hex) only accesses in this range are recorded (repeatable)\n"
    "  --pm-file SUBSTR     an mmap of a file whose path contains SUBSTR is a PM range\n"
    "  --skip-instrs N, --max-instrs N, --max-events N, --sample ON/PERIOD, --start yes|request,\n"
    "  --loads yes|no, --marks yes|no\n"
    "The program runs with PMEM_NO_CLWB=1 PMEM_NO_CLFLUSHOPT=1 (Valgrind 3.19 cannot execute clwb or\n"
    "clflushopt; PMDK then flushes with clflush).\n";

[[noreturn]] void fail(const std::string &m, int code = 1)
{
    std::fprintf(stderr, "persim trace-program: %s\n", m.c_str());
    std::exit(code);
}

std::string default_tool_lib(const char *argv0)
{
    if (const char *e = std::getenv("PERSIM_VGTRACE_LIB")) return e;
    namespace fs = std::filesystem;
    return (fs::path(self_exe(argv0)).parent_path() / "vgtrace" / "lib").string();
}

} // namespace

int trace_program_main(int argc, char **argv)
{
    std::string out, raw, from_raw, dump, tool_lib, pm_base_s;
    std::vector<std::string> tool_opts, cmd, setenv_kv;
    VgConvertOptions o;
    bool quiet = false;
    CLI::App app{"persim trace-program", "persim trace-program"};
    set_usage(app, kUsage);
    app.prefix_command();   // the command after `--` is CMD's own: left as it is
    app.add_option("-o,--out", out);
    app.add_option("--raw", raw);
    app.add_option("--from-raw", from_raw);
    app.add_option("--dump-raw", dump);
    app.add_option("--tool-lib", tool_lib);
    app.add_option("--env", setenv_kv)->allow_extra_args(false)->check(CLI::Validator(
        [](std::string &kv) -> std::string {
            if (kv.find('=') == std::string::npos || kv[0] == '=') return "expected KEY=VALUE, got '" + kv + "'";
            return "";
        },
        "KEY=VALUE"));
    app.add_option("--pm-base", pm_base_s);
    add_flag(app, "--all-marks", o.all_marks);
    add_flag(app, "-q,--quiet", quiet);
    // tool options, passed on as --name=value (docs/real-programs.md)
    const std::vector<std::string> tools = {"--pm-range", "--pm-file", "--skip-instrs", "--max-instrs", "--max-events",
                                            "--sample", "--start", "--loads", "--marks"};
    std::map<std::string, std::vector<std::string>> tool_vals;
    for (const std::string &t : tools) app.add_option(t, tool_vals[t])->allow_extra_args(false);
    try {
        app.parse(argc - 1, argv + 1);
    } catch (const CLI::Success &e) {   // --help
        std::exit(app.exit(e));
    } catch (const CLI::ParseError &e) {
        fail(parse_error(app, &e, std::vector<std::string>(argv + 2, argv + argc), " (persim trace-program --help)"));
    }
    std::vector<std::string> rest = app.remaining();
    if (!rest.empty() && rest[0] != "--") {
        if (rest[0].size() > 1 && rest[0][0] == '-') fail(parse_error(app, nullptr, {}, " (persim trace-program --help)"));
        fail("unexpected argument '" + rest[0] + "' (the command to trace comes after --)");
    }
    if (!rest.empty()) cmd.assign(rest.begin() + 1, rest.end());
    for (const std::string &t : tools)
        for (const std::string &v : tool_vals[t]) tool_opts.push_back(t + "=" + v);
    o.progress = !quiet;
    if (!pm_base_s.empty()) {
        char *end = nullptr;
        errno = 0;
        unsigned long long v = std::strtoull(pm_base_s.c_str(), &end, 0);
        if (*end || errno || v % 4096 || pm_base_s[0] == '-') fail("--pm-base: expected a multiple of 4096, got '" + pm_base_s + "'");
        o.pm_base = v;
    }
    if (!dump.empty()) {
        std::string err;
        if (vg_dump_raw(dump, stdout, err) != 0) fail(err);
        return 0;
    }
    if (from_raw.empty() == cmd.empty())
        fail(cmd.empty() ? "give a command after -- (or --from-raw RAW)" : "give either --from-raw or a command, not both");
    if (out.empty()) {
        std::string base = from_raw.empty() ? std::filesystem::path(cmd[0]).filename().string()
                                            : std::filesystem::path(from_raw).stem().string();
        out = base + ".trace";
    }
    UserOutput dest;
    try {
        dest = plan_user_output(out);     // before recording: a directory or a missing folder fails now
    } catch (const ConfigError &e) {
        fail(e.what());
    }
    std::string comment;
    if (from_raw.empty()) {
        if (raw.empty()) raw = out + ".raw";
        if (tool_lib.empty()) tool_lib = default_tool_lib(argv[0]);
        if (!std::filesystem::exists(tool_lib + "/persimtrace-amd64-linux"))
            fail("the persim-vgtrace tool is not built: " + tool_lib + "/persimtrace-amd64-linux is missing (build the target "
                 "persim-vgtrace; it needs Debian's valgrind package, see scripts/install-deps.sh)", 2);
        std::vector<std::string> vg = {"valgrind", "-q", "--tool=persimtrace", "--out=" + raw};
        vg.insert(vg.end(), tool_opts.begin(), tool_opts.end());
        vg.push_back("--");
        vg.insert(vg.end(), cmd.begin(), cmd.end());
        if (!quiet) std::fprintf(stderr, "trace-program: VALGRIND_LIB=%s %s\n", tool_lib.c_str(), join_cmd(vg).c_str());
        std::vector<std::string> env;
        for (char **e = environ; *e; ++e)
            if (std::strncmp(*e, "VALGRIND_LIB=", 13) && std::strncmp(*e, "PMEM_NO_CLWB=", 13) && std::strncmp(*e, "PMEM_NO_CLFLUSHOPT=", 19))
                env.push_back(*e);
        env.push_back("VALGRIND_LIB=" + tool_lib);
        env.push_back("PMEM_NO_CLWB=1");
        env.push_back("PMEM_NO_CLFLUSHOPT=1");
        for (const auto &kv : setenv_kv) {
            std::string key = kv.substr(0, kv.find('=') + 1);
            env.erase(std::remove_if(env.begin(), env.end(), [&](const std::string &e) { return e.compare(0, key.size(), key) == 0; }),
                      env.end());
            env.push_back(kv);
        }
        std::vector<char *> av, ev;
        for (auto &s : vg) av.push_back(s.data());
        av.push_back(nullptr);
        for (auto &s : env) ev.push_back(s.data());
        ev.push_back(nullptr);
        auto t0 = std::chrono::steady_clock::now();
        pid_t pid;
        int rc = posix_spawnp(&pid, "valgrind", nullptr, nullptr, av.data(), ev.data());
        if (rc != 0) fail(std::string("cannot start valgrind: ") + std::strerror(rc), 2);
        int st = 0;
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
        double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (WIFSIGNALED(st)) fail("valgrind was killed by signal " + std::to_string(WTERMSIG(st)), 3);
        if (WEXITSTATUS(st) != 0)
            std::fprintf(stderr, "trace-program: warning: the program exited with status %d (the recording is converted)\n",
                         WEXITSTATUS(st));
        std::error_code ec;
        auto sz = std::filesystem::file_size(raw, ec);
        if (!quiet) std::fprintf(stderr, "trace-program: recorded %s (%.1f MB) in %.1f s\n", raw.c_str(), ec ? 0.0 : sz / 1e6, sec);
        comment = "recorded by persim trace-program (persim-vgtrace): " + join_cmd(setenv_kv) + (setenv_kv.empty() ? "" : " ") + join_cmd(cmd);
        if (!tool_opts.empty()) comment += "\ntool options: " + join_cmd(tool_opts);
        from_raw = raw;
    } else {
        comment = "converted by persim trace-program from " + from_raw;
    }
    comment += "\none CPU thread per guest thread (order of first event); addresses pm_base + (addr & 0xFFFFFFFFFF);"
               "\natomics: acquire/release ticket chains on words at pm_base + 0xFFF0000000 (docs/real-programs.md)";
    VgConvertStats s;
    std::string err;
    auto t0 = std::chrono::steady_clock::now();
    persim_prog *p = vg_convert(from_raw, o, s, err);
    if (!p) fail(err);
    char e[512];
    // -o x.zst: compressed (zstd; persim run reads it as it decompresses, docs/trace-format.md)
    const int level = trace_path_is_zstd(out.c_str()) ? TRACE_ZSTD_LEVEL : 0;
    if (trace_write_file_level(dest.write_to.c_str(), p, nullptr, nullptr, 0, comment.c_str(), level, e, sizeof e) != 0) {
        prog_free(p);
        abandon_user_output(dest);
        fail(std::string("writing ") + out + ": " + e);
    }
    prog_free(p);
    try {
        finish_user_output(dest);   // a symlink's target is replaced, a FIFO or device was written in place
    } catch (const ConfigError &ex) {
        fail(ex.what());
    }
    double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(stderr, "trace-program: wrote %s in %.1f s\n%s", out.c_str(), sec, vg_summary(s).c_str());
    return 0;
}

} // namespace persim
