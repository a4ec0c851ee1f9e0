// Shared lockstep co-simulation harness: a Verilated model and a C core get the same inputs every
// cycle and every output is compared every cycle. On a mismatch the harness prints the cycle, the
// signal, the RTL value, the C value and the last 20 inputs, and stops the test.
//
// Environment:
//   PERSIM_SEED        seed of the random tests (default: a fixed seed; "time" = clock); printed
//   PERSIM_COSIM_N     cycles of each random test (default PERSIM_COSIM_N_DEFAULT, small for CI)
//   PERSIM_COSIM_TRACE directory: dump an FST waveform per test (<dir>/<test>.fst)
//   PERSIM_COVERAGE_DIR directory: write Verilator coverage data per test (coverage builds)
#pragma once
#include <gtest/gtest.h>
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <verilated.h>
#if VM_TRACE_FST
#include <verilated_fst_c.h>
#endif
#if VM_COVERAGE
#include <verilated_cov.h>
#endif
#pragma GCC diagnostic pop
#include <array>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <deque>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

extern "C" {
#include "rtl_presets.h"
}

#ifndef PERSIM_COSIM_N_DEFAULT
#define PERSIM_COSIM_N_DEFAULT 50000
#endif

namespace cosim {

inline uint64_t env_u64(const char *name, uint64_t dflt)
{
    const char *v = std::getenv(name);
    if (!v || !*v) return dflt;
    return std::strtoull(v, nullptr, 0);
}

inline uint64_t seed()
{
    const char *v = std::getenv("PERSIM_SEED");
    uint64_t s = 0x5eed2024u;
    if (v && *v) {
        if (std::string(v) == "time")
            s = (uint64_t)std::chrono::steady_clock::now().time_since_epoch().count();
        else
            s = std::strtoull(v, nullptr, 0);
    }
    return s;
}

inline uint64_t cycles() { return env_u64("PERSIM_COSIM_N", PERSIM_COSIM_N_DEFAULT); }

inline std::string test_name()
{
    const auto *ti = ::testing::UnitTest::GetInstance()->current_test_info();
    return ti ? std::string(ti->test_suite_name()) + "." + ti->name() : std::string("cosim");
}

// Wraps one Verilated model: context, clocking, optional FST trace and coverage dump.
template <class V>
class Dut {
public:
    Dut()
    {
        ctx_ = std::make_unique<VerilatedContext>();
        ctx_->randReset(0);
        m_ = std::make_unique<V>(ctx_.get(), "dut");
#if VM_TRACE_FST
        const char *dir = std::getenv("PERSIM_COSIM_TRACE");
        if (dir && *dir) {
            ctx_->traceEverOn(true);
            tfp_ = std::make_unique<VerilatedFstC>();
            m_->trace(tfp_.get(), 99);
            std::string path = std::string(dir) + "/" + test_name() + ".fst";
            tfp_->open(path.c_str());
            std::printf("cosim: FST trace %s\n", path.c_str());
        }
#endif
        m_->clk = 0;
        m_->rst = 1;
        m_->eval();
        tick();
        m_->rst = 0;
    }
    ~Dut()
    {
        m_->final();
#if VM_TRACE_FST
        if (tfp_) tfp_->close();
#endif
#if VM_COVERAGE
        const char *dir = std::getenv("PERSIM_COVERAGE_DIR");
        if (dir && *dir) {
            std::string path = std::string(dir) + "/" + test_name() + ".dat";
            ctx_->coveragep()->write(path.c_str());
        }
#endif
    }
    V *operator->() { return m_.get(); }
    // One clock edge: inputs must be set before; registered outputs are valid afterwards.
    void tick()
    {
        m_->clk = 0;
        m_->eval();
#if VM_TRACE_FST
        if (tfp_) tfp_->dump(time_);
#endif
        time_ += 5;
        m_->clk = 1;
        m_->eval();
#if VM_TRACE_FST
        if (tfp_) tfp_->dump(time_);
#endif
        time_ += 5;
    }

private:
    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<V> m_;
#if VM_TRACE_FST
    std::unique_ptr<VerilatedFstC> tfp_;
#endif
    uint64_t time_ = 0;
};

// Keeps the last 20 input vectors and compares outputs. The inputs of a cycle are kept as raw bytes
// (input(cycle, in)) and formatted by the block's formatter only when a mismatch is reported, so the
// lockstep costs no string work per cycle.
class Checker {
public:
    using Fmt = std::function<std::string(const void *)>;
    explicit Checker(std::string block, Fmt fmt = nullptr) : block_(std::move(block)), fmt_(std::move(fmt)) {}
    // The inputs of one cycle, formatted later by the formatter (a trivially copyable struct).
    template <class In>
    void input(uint64_t cycle, const In &in)
    {
        static_assert(std::is_trivially_copyable_v<In>, "raw input record");
        cycle_ = cycle;
        Rec &r = next();
        r.cycle = cycle;
        r.text.clear();
        r.raw.resize(sizeof in);
        std::memcpy(r.raw.data(), &in, sizeof in);
    }
    // A cycle described by text (e.g. "reset").
    void input(uint64_t cycle, const std::string &desc)
    {
        cycle_ = cycle;
        Rec &r = next();
        r.cycle = cycle;
        r.text = desc;
        r.raw.clear();
    }
    void input(uint64_t cycle, const char *desc) { input(cycle, std::string(desc)); }
    // Returns false (and reports) on the first mismatch.
    bool eq(const char *signal, uint64_t rtl, uint64_t c)
    {
        if (rtl == c || failed_) return !failed_;
        report(signal, rtl, c);
        return false;
    }
    // Element `idx` of an output array ("signal[idx]").
    bool eq(const char *signal, unsigned idx, uint64_t rtl, uint64_t c)
    {
        if (rtl == c || failed_) return !failed_;
        report(std::string(signal) + "[" + std::to_string(idx) + "]", rtl, c);
        return false;
    }
    bool ok() const { return !failed_; }

private:
    struct Rec {
        uint64_t cycle = 0;
        std::string text;
        std::vector<unsigned char> raw;
    };
    Rec &next()
    {
        Rec &r = hist_[pos_];
        pos_ = (pos_ + 1) % hist_.size();
        if (n_ < hist_.size()) n_++;
        return r;
    }
    void report(const std::string &signal, uint64_t rtl, uint64_t c)
    {
        failed_ = true;
        std::ostringstream os;
        os << block_ << " cosim mismatch at cycle " << cycle_ << ": signal " << signal << " RTL=0x"
           << std::hex << rtl << " C=0x" << c << std::dec << "\nlast inputs:\n";
        for (size_t k = 0; k < n_; k++) {
            const Rec &r = hist_[(pos_ + hist_.size() - n_ + k) % hist_.size()];
            os << "  cycle " << r.cycle << ": " << (r.raw.empty() || !fmt_ ? r.text : fmt_(r.raw.data())) << "\n";
        }
        ADD_FAILURE() << os.str();
    }
    std::string block_;
    Fmt fmt_;
    std::array<Rec, 20> hist_{};
    size_t pos_ = 0, n_ = 0;
    uint64_t cycle_ = 0;
    bool failed_ = false;
};

// Speed of a random lockstep run: CPU seconds of the process from construction to print(), printed
// as one CSV line "cosim-speed,<block>,<preset>,<cycles>,<seconds>,<cycles_per_s>" (collected by
// tb/cosim_bench.py). Not printed when the test has failed.
class Speed {
public:
    Speed(const char *block, const char *preset) : block_(block), preset_(preset), t0_(cpu_s()) {}
    void print(uint64_t cycles) const
    {
        if (::testing::Test::HasFailure()) return;
        const double s = cpu_s() - t0_;
        std::printf("cosim-speed,%s,%s,%" PRIu64 ",%.4f,%.0f\n", block_, preset_, cycles, s,
                    s > 0 ? (double)cycles / s : 0.0);
        std::fflush(stdout);
    }

private:
    static double cpu_s()
    {
        timespec ts{};
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    }
    const char *block_, *preset_;
    double t0_;
};

inline void announce(const char *what, uint64_t seed, uint64_t n)
{
    std::printf("cosim %s: PERSIM_SEED=%" PRIu64 " PERSIM_COSIM_N=%" PRIu64 "\n", what, seed, n);
    std::fflush(stdout);
}

} // namespace cosim
