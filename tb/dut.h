// Device-under-test interface of the block tests written once (issue 22), in the manner of Ibex's
// co-simulation: a directed scenario drives a block one clock edge at a time through
// dut::Dut<Traits>::step and checks the outputs; the same scenario (a GoogleTest TYPED_TEST_P in
// tb/<block>_scenarios.h) runs on two backends:
//
//   C backend       dut::CoreDut: the C core's cycle API alone. Needs no Verilator: instantiated
//                   in tests/core_<block>_test.cpp (core_tests, fast tier).
//   RTL lockstep    defined in tb/<block>_cosim.cpp: the Verilated model and the C core get the
//                   same inputs every cycle and every output is compared (cosim::Checker); step
//                   returns the C core's outputs, and false at the first mismatch (reported with
//                   the last inputs). Full tier (needs the Verilator build).
//
// A scenario asks its backend type B for a device at an RTL preset of configs/rtl_presets.json:
// B::make(preset) (the C backend takes the preset's C config from the generated rtl_presets.h, so
// both backends run the same parameters). A block supplies a traits struct:
//   using In, Out, Core, Cfg;  static size_t bytes(const Cfg *);  static int init(void *, const Cfg *);
//   static void step(Core *, const In *, Out *);
// PERSIM_DUT_TRAITS(Name, block) builds it from a core's names: <block>_in, <block>_out, <block>,
// <block>_cfg, <block>_bytes, <block>_init, <block>_step. The presets a block's tests run on are an
// X-macro list, LIST(X) = X(name, preset) per preset; PERSIM_DUT_PRESETS makes their enum and the
// function giving each one's C config, and CBackend the C backend's make(preset).
// This header has no Verilator dependency.
#pragma once
#include <gtest/gtest.h>
#include <cstdint>
#include <memory>
#include <vector>

namespace dut {

// The traits struct `Name` of the core `block` (cores/<block>.h, every name derived from `block`).
#define PERSIM_DUT_TRAITS(Name, block)                                                           \
    struct Name {                                                                                \
        using In = block##_in;                                                                   \
        using Out = block##_out;                                                                 \
        using Core = block;                                                                      \
        using Cfg = block##_cfg;                                                                 \
        static size_t bytes(const Cfg *c) { return block##_bytes(c); }                           \
        static int init(void *m, const Cfg *c) { return block##_init(m, c); }                    \
        static void step(Core *x, const In *in, Out *out) { block##_step(x, in, out); }          \
    }

template <class Traits>
class Dut {
public:
    using In = typename Traits::In;
    using Out = typename Traits::Out;
    using Core = typename Traits::Core;
    using Cfg = typename Traits::Cfg;
    virtual ~Dut() = default;
    // One clock edge with inputs `in`; *out gets the outputs (the C core's, equal to the RTL's on the
    // lockstep backend). Returns false on a C/RTL mismatch (already reported as a test failure).
    virtual bool step(const In &in, Out *out) = 0;
    // The C core (state queries; on the lockstep backend it is the model the RTL is compared with).
    virtual Core *core() = 0;
    virtual const Cfg &cfg() const = 0;
    virtual bool rtl() const = 0;
};

// The presets of a block: enum class Enum { name... } and Cfg cfg_fn(Enum), the C config
// rtlp_<preset>_cfg() of the generated rtl_presets.h, for LIST(X) = X(name, preset) per preset.
#define PERSIM_DUT_ENUM_(name, preset) name,
#define PERSIM_DUT_CFG_(name, preset) \
    case E_::name: return rtlp_##preset##_cfg();
#define PERSIM_DUT_PRESETS(Enum, cfg_fn, Cfg, LIST) \
    enum class Enum { LIST(PERSIM_DUT_ENUM_) };     \
    inline Cfg cfg_fn(Enum p)                       \
    {                                               \
        using E_ = Enum;                            \
        switch (p) { LIST(PERSIM_DUT_CFG_) }        \
        return Cfg{};                               \
    }

// The C backend: the C core's cycle API only.
template <class Traits>
class CoreDut : public Dut<Traits> {
public:
    using typename Dut<Traits>::In;
    using typename Dut<Traits>::Out;
    using typename Dut<Traits>::Core;
    using typename Dut<Traits>::Cfg;
    explicit CoreDut(const Cfg &c) : cfg_(c), mem_(Traits::bytes(&c) / 8 + 1)
    {
        EXPECT_EQ(Traits::init(mem_.data(), &cfg_), 0);
        core_ = reinterpret_cast<Core *>(mem_.data());
    }
    bool step(const In &in, Out *out) override
    {
        Traits::step(core_, &in, out);
        return true;
    }
    Core *core() override { return core_; }
    const Cfg &cfg() const override { return cfg_; }
    bool rtl() const override { return false; }

private:
    Cfg cfg_;
    std::vector<uint64_t> mem_;
    Core *core_ = nullptr;
};

// C backend type of a block's typed tests (derive a named struct from it, for readable test names):
// make(preset) is a CoreDut at the preset's C config.
template <class Traits, class Preset, typename Traits::Cfg (*CfgOf)(Preset)>
struct CBackend {
    static std::unique_ptr<Dut<Traits>> make(Preset p) { return std::make_unique<CoreDut<Traits>>(CfgOf(p)); }
};

} // namespace dut
