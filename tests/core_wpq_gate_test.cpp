// Unit tests of the LightWSP gated WPQ core (cores/wpq_gate.{h,c}): the directed block scenarios
// (written once, tb/wpq_gate_scenarios.h) on the C backend, plus the tests of the transaction API
// and the configuration that only the C core has.
#include <gtest/gtest.h>
#include <vector>
#include "wpq_gate_scenarios.h"
extern "C" {
#include "wpq_gate.h"
}

// ctest core.WpqC.*: the block scenarios on the C core alone (fast tier); the same scenarios run
// in lockstep with the RTL as ctest cosim.WpqRtl.* (tb/wpq_gate_cosim.cpp).
namespace wpq_scen {
INSTANTIATE_TYPED_TEST_SUITE_P(WpqC, WpqBlock, ::testing::Types<dut::WpqC>);
}

namespace {

wpq_gate_cfg table1(uint32_t mcs = 2)
{
    wpq_gate_cfg c{};
    c.entries = 64; c.mcs = mcs; c.regions = 8; c.rid_bits = 16;
    c.addr_bits = 32; c.data_bits = 64; c.line_words = 8; c.pf_wait = 4;
    return c;
}

struct Wpq {
    std::vector<uint64_t> mem;
    wpq_gate *g;
    explicit Wpq(const wpq_gate_cfg &c) : mem(wpq_gate_bytes(&c) / 8 + 1)
    {
        g = reinterpret_cast<wpq_gate *>(mem.data());
        EXPECT_EQ(wpq_gate_init(g, &c), 0);
    }
    wpq_gate_out step(const wpq_gate_in &in)
    {
        wpq_gate_out o;
        wpq_gate_step(g, &in, &o);
        return o;
    }
    wpq_gate_out idle(uint8_t drain_ready = 1)
    {
        wpq_gate_in in{};
        in.drain_ready = drain_ready;
        return step(in);
    }
    wpq_gate_out push(uint16_t r, uint64_t a, uint64_t d, uint8_t drain_ready = 1)
    {
        wpq_gate_in in{};
        in.push_valid = 1; in.push_region = r; in.push_addr = a; in.push_data = d;
        in.drain_ready = drain_ready;
        return step(in);
    }
    wpq_gate_out bdry(uint16_t r, uint8_t drain_ready = 1)
    {
        wpq_gate_in in{};
        in.bdry_valid = 1; in.bdry_region = r; in.drain_ready = drain_ready;
        return step(in);
    }
};

TEST(WpqGate, RejectsBadConfig)
{
    wpq_gate_cfg c = table1();
    std::vector<uint64_t> mem(wpq_gate_bytes(&c) / 8 + 1);
    c.regions = 6;
    EXPECT_EQ(wpq_gate_init(mem.data(), &c), -1);
    c = table1(); c.entries = 0;
    EXPECT_EQ(wpq_gate_init(mem.data(), &c), -1);
    // a window as wide as the ID space: a boundary one window ahead would alias the flush ID's
    // (issue 27 item 1: rid_bits 2, regions 4 was accepted and deadlocked the cpu system)
    c = table1(); c.rid_bits = 2; c.regions = 4;
    EXPECT_EQ(wpq_gate_init(mem.data(), &c), -1);
    c.regions = 2;
    EXPECT_EQ(wpq_gate_init(mem.data(), &c), 0);
}

TEST(WpqGate, WindowGatingAndErrors)
{
    Wpq w(table1(1));
    const uint64_t p0 = wpq_gate_progress(w.g);
    EXPECT_EQ(wpq_gate_boundary(w.g, 8), WPQ_BDRY_WAIT);   // window [0, 8)
    EXPECT_FALSE(wpq_gate_err(w.g));
    EXPECT_EQ(wpq_gate_progress(w.g), p0);                  // nothing changed
    EXPECT_EQ(wpq_gate_boundary(w.g, 7), 0);
    EXPECT_EQ(wpq_gate_bdry_ack(w.g, 0xFFFF), -1);
    EXPECT_TRUE(wpq_gate_err(w.g));
    EXPECT_EQ(wpq_gate_get_stats(w.g)->window_errors, 1u);
    // the refused boundary fits once region 0 commits
    EXPECT_EQ(wpq_gate_boundary(w.g, 0), 0);
    EXPECT_EQ(wpq_gate_flush_done(w.g), 1);
    EXPECT_EQ(wpq_gate_try_commit(w.g), 1);
    EXPECT_EQ(wpq_gate_progress(w.g), p0 + 1);              // the commit
    EXPECT_EQ(wpq_gate_boundary(w.g, 8), 0);
}

TEST(WpqGate, StoreOverflowRetry)
{
    wpq_gate_cfg c = table1(1);
    c.entries = 2;
    Wpq w(c);
    EXPECT_EQ(wpq_gate_store(w.g, 1, 10, 10, 1), WPQ_OK);
    EXPECT_EQ(wpq_gate_store(w.g, 1, 11, 11, 1), WPQ_OK);
    EXPECT_EQ(wpq_gate_overflow(w.g), 0);
    EXPECT_EQ(wpq_gate_store(w.g, 0, 1, 1, 0), WPQ_FULL);    // device busy: no deadlock check yet
    EXPECT_EQ(wpq_gate_overflow(w.g), 0);
    EXPECT_EQ(wpq_gate_store(w.g, 1, 12, 12, 1), WPQ_FULL);  // deadlock: overflow, but not region 0
    EXPECT_EQ(wpq_gate_overflow(w.g), 1);
    EXPECT_EQ(wpq_gate_store(w.g, 1, 12, 12, 1), WPQ_DECLINED);
    EXPECT_EQ(wpq_gate_store(w.g, 0, 1, 1, 1), WPQ_BYPASS);  // flush-ID region written through
    EXPECT_EQ(wpq_gate_get_stats(w.g)->bypasses, 1u);
    EXPECT_EQ(wpq_gate_get_stats(w.g)->undo_drains, 1u);
    EXPECT_EQ(wpq_gate_get_stats(w.g)->deadlocks, 1u);
    // a fresh full queue: the first store of the flush-ID region enters overflow and bypasses
    Wpq v(c);
    wpq_gate_store(v.g, 1, 10, 10, 1);
    wpq_gate_store(v.g, 1, 11, 11, 1);
    EXPECT_EQ(wpq_gate_store(v.g, 0, 1, 1, 1), WPQ_BYPASS);
    EXPECT_EQ(wpq_gate_overflow(v.g), 1);
    EXPECT_EQ(wpq_gate_ack_on_entry(v.g), 0);
}

TEST(WpqGate, PowerFailureSettle)
{
    Wpq w(table1(2));
    wpq_gate_push(w.g, 0, 0x10, 1);
    wpq_gate_push(w.g, 1, 0x20, 2);
    wpq_gate_power_fail(w.g);
    uint64_t mark = wpq_gate_progress(w.g);
    EXPECT_EQ(wpq_gate_boundary(w.g, 0), 0);               // in flight before the failure
    EXPECT_EQ(wpq_gate_bdry_ack(w.g, 0), 0);               // region 0 persisted, can drain
    EXPECT_EQ(wpq_gate_progress(w.g), mark);               // ACKs are not progress by themselves
    EXPECT_EQ(wpq_gate_can_drain(w.g), 1);
    EXPECT_EQ(wpq_gate_pf_settle(w.g, &mark), 0);          // still drainable
    wpq_entry e;
    int undo = 0;
    ASSERT_EQ(wpq_gate_next_drain(w.g, &e, &undo), 1);
    EXPECT_EQ(wpq_gate_can_drain(w.g), 0);
    EXPECT_EQ(wpq_gate_pf_settle(w.g, &mark), 0);          // the drain moved it
    EXPECT_EQ(wpq_gate_pf_settle(w.g, &mark), 1);          // idle since: end
    int ur = 1;
    EXPECT_EQ(wpq_gate_pf_discard(w.g, &ur), 1u);
    EXPECT_EQ(ur, 0);
    // ungated: settles only once the queue is empty
    wpq_gate_cfg c = table1(2);
    c.ungated = 1;
    Wpq u(c);
    EXPECT_EQ(wpq_gate_ack_on_entry(u.g), 1);
    wpq_gate_push(u.g, 3, 0x10, 1);
    wpq_gate_power_fail(u.g);
    mark = wpq_gate_progress(u.g);
    EXPECT_EQ(wpq_gate_pf_settle(u.g, &mark), 0);
    ASSERT_EQ(wpq_gate_next_drain(u.g, &e, &undo), 1);
    EXPECT_EQ(wpq_gate_pf_settle(u.g, &mark), 0);
    EXPECT_EQ(wpq_gate_pf_settle(u.g, &mark), 1);
}

TEST(WpqGate, UngatedFullQueueRefusesNoOverflow)
{
    wpq_gate_cfg c = table1(1);
    c.entries = 2;
    c.ungated = 1;
    Wpq w(c);
    EXPECT_EQ(wpq_gate_push(w.g, 1, 10, 10), WPQ_OK);
    EXPECT_EQ(wpq_gate_push(w.g, 2, 11, 11), WPQ_OK);
    EXPECT_EQ(wpq_gate_check_deadlock(w.g), 0);
    EXPECT_EQ(wpq_gate_overflow(w.g), 0);
    EXPECT_EQ(wpq_gate_bypass(w.g, 0, 1, 1), 0);
    wpq_gate_out o = w.push(0, 1, 1, 0);
    EXPECT_EQ(o.push_result, WPQ_FULL);
    EXPECT_EQ(o.overflow, 0);
    EXPECT_EQ(wpq_gate_get_stats(w.g)->deadlocks, 0u);
    wpq_entry e;
    int undo = 1;
    ASSERT_EQ(wpq_gate_next_drain(w.g, &e, &undo), 1);
    EXPECT_EQ(e.region, 1);
    EXPECT_EQ(e.data, 10u);
    EXPECT_EQ(undo, 0);
    c.ungated = 2;
    std::vector<uint64_t> mem(wpq_gate_bytes(&c) / 8 + 1);
    EXPECT_EQ(wpq_gate_init(mem.data(), &c), -1);
}

// The drain choice is indexed (per window-slot lists, cores/wpq_gate.c): it must be the choice of
// a scan of the whole queue in arrival order, the oldest entry of the flush-ID region, also when
// region IDs more than a window ahead alias the flush ID's slot. Random pushes, boundaries, ACKs,
// drains, bypasses and commits on one controller of two; after every drain the entry taken and the
// queue left (wpq_gate_entry, arrival order) are checked against that scan.
TEST(WpqGate, IndexedDrainIsTheOldestOfTheFlushRegion)
{
    wpq_gate_cfg c = table1(2);
    c.entries = 12; c.regions = 4; c.rid_bits = 4;     // IDs 0..15, window 4: aliasing happens
    Wpq w(c);
    uint64_t rng = 12345, drains = 0, aliased = 0;
    auto rnd = [&](uint32_t n) { rng = rng * 6364136223846793005ull + 1442695040888963407ull; return (uint32_t)(rng >> 33) % n; };
    auto listing = [&] {
        std::vector<wpq_entry> v;
        for (uint32_t k = 0; k < wpq_gate_count(w.g); ++k) {
            wpq_entry e{};
            EXPECT_EQ(wpq_gate_entry(w.g, k, &e), 0);
            v.push_back(e);
        }
        return v;
    };
    uint64_t addr = 0;
    for (int step = 0; step < 20000; ++step) {
        const uint32_t f = wpq_gate_flush_id(w.g);
        switch (rnd(6)) {
        case 0: case 1: {
            const uint32_t r = (f + rnd(10)) & 15;        // up to 9 regions ahead: beyond the window
            const uint64_t st = wpq_gate_offer_state(w.g);
            const wpq_gate_stats before = *wpq_gate_get_stats(w.g);
            const int ready = (int)rnd(2);
            ++addr;
            const wpq_result res = wpq_gate_store(w.g, r, addr, addr, ready);   // data = address
            if (res == WPQ_FULL || res == WPQ_DECLINED) {
                if (wpq_gate_offer_state(w.g) == st) {
                    // the same offer under the same offer state: the same answer, only counted
                    const std::vector<wpq_entry> q0 = listing();
                    EXPECT_EQ(wpq_gate_store(w.g, r, addr, addr, ready), res);
                    EXPECT_EQ(wpq_gate_offer_state(w.g), st);
                    EXPECT_EQ(listing().size(), q0.size());
                    const wpq_gate_stats *s = wpq_gate_get_stats(w.g);
                    EXPECT_EQ(s->full + s->declined, before.full + before.declined + 2);
                }
            }
            break;
        }
        case 2:
            wpq_gate_boundary(w.g, (f + rnd(5)) & 15);
            wpq_gate_bdry_ack(w.g, (f + rnd(3)) & 15);
            break;
        case 3: case 4: {
            const std::vector<wpq_entry> q0 = listing();
            size_t want = q0.size();
            for (size_t k = 0; k < q0.size(); ++k)
                if (q0[k].region == f) { want = k; break; }
            for (size_t k = 0; k < want && k < q0.size(); ++k)
                if ((q0[k].region & 3) == (f & 3)) { ++aliased; break; }
            wpq_entry e{};
            int undo = 0;
            const int got = wpq_gate_next_drain(w.g, &e, &undo);
            if (!got) {
                EXPECT_TRUE(want == q0.size() || (!wpq_gate_persisted(w.g) && !wpq_gate_overflow(w.g)));
                break;
            }
            ++drains;
            ASSERT_LT(want, q0.size());
            EXPECT_EQ(e.addr, q0[want].addr);
            EXPECT_EQ(e.region, q0[want].region);
            std::vector<wpq_entry> rest = q0;
            rest.erase(rest.begin() + (long)want);
            const std::vector<wpq_entry> q1 = listing();
            ASSERT_EQ(q1.size(), rest.size());
            for (size_t k = 0; k < rest.size(); ++k) EXPECT_EQ(q1[k].addr, rest[k].addr);
            break;
        }
        default:
            if (wpq_gate_flush_done(w.g)) wpq_gate_flush_ack(w.g, f);
            wpq_gate_try_commit(w.g);
            break;
        }
    }
    EXPECT_GT(drains, 1000u);
    EXPECT_GT(aliased, 10u) << "no drain had to skip an aliasing older entry";
    EXPECT_GT(wpq_gate_get_stats(w.g)->commits, 100u);
}

} // namespace
