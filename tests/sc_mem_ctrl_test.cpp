// SystemC tests of the memory-controller substrate (sc_models/mem/): device timing + write-queue
// front ends, late acknowledgements through the TLM protocol, messages between controllers over
// the modelled link, and address interleaving. Each test case runs in its own process.
#include <gtest/gtest.h>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>
#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>
#include "mem_ctrl.h"

using namespace persim;
using namespace sc_core;

namespace {

// A requester that writes lines tagged with a region and takes late acknowledgements.
struct Requester : sc_module, AckReceiver {
    tlm_utils::simple_initiator_socket<Requester> sock{"sock"};
    std::map<uint64_t, uint64_t> acks;      // token -> acknowledgement time (ps)
    explicit Requester(sc_module_name n) : sc_module(n) {}
    // Returns the acknowledgement time, or kAckLater.
    uint64_t write(uint64_t addr, uint32_t region, uint64_t token)
    {
        MemReq r(tlm::TLM_WRITE_COMMAND, addr, 64);
        r.ext.mask[0] = ~0ull;
        r.ext.pm = r.ext.persist = true;
        r.ext.requester = 7;
        r.ext.region = region;
        r.ext.ack_to = this;
        r.ext.ack_token = token;
        sc_time d = SC_ZERO_TIME;
        sock->b_transport(r.gp, d);
        if (r.ext.ack_later) return kAckLater;
        acks[token] = now_ps() + d.value();
        return acks[token];
    }
    void on_late_ack(uint64_t token, uint64_t t) override { acks[token] = t; }
};

struct Sink : DurableSink {
    struct W { uint64_t t, addr; int requester; };
    std::vector<W> w;
    void on_durable(uint64_t t, uint64_t addr, const uint8_t *, const uint64_t[2], uint32_t, int req) override
    {
        w.push_back({t, addr, req});
    }
};

// Two (or n) NVM controllers of 64 B lines behind the router, a requester bound to it.
struct Bench {
    Config cfg;
    mem_image *img = mem_new();
    std::unique_ptr<PmControllers> pm;
    std::unique_ptr<Requester> req;
    Sink sink;
    Bench(const std::vector<std::string> &sets)
    {
        cfg.set_kv("l1.line_bytes=64");
        cfg.set_kv("nvm.link_latency_ns=50");
        for (const auto &s : sets) cfg.set_kv(s);
        pm = std::make_unique<PmControllers>(cfg, img);
        req = std::make_unique<Requester>("req");
        req->sock.bind(pm->router->tsock);
        pm->set_durable_sink(&sink);
    }
    ~Bench() { mem_free(img); }
};

// Runs `body` as a SystemC thread, then simulates until nothing is pending.
struct Driver : sc_module {
    SC_HAS_PROCESS(Driver);
    std::function<void()> body;
    Driver(sc_module_name n, std::function<void()> b) : sc_module(n), body(std::move(b)) { SC_THREAD(run); }
    void run() { body(); }
};

void simulate(std::function<void()> body)
{
    Driver d("driver", std::move(body));
    sc_start();
}

constexpr uint64_t kNs = 1000;

TEST(MemCtrl, AdrWpqAcknowledgesOnArrival)
{
    Bench b({"nvm.controllers=1", "nvm.front_end=adr_wpq"});
    uint64_t ack = 0;
    simulate([&] {
        wait(sc_time(10, SC_NS));
        ack = b.req->write(0x10000000000ull, 0, 1);
    });
    EXPECT_EQ(ack, 10 * kNs);                 // ADR: durable once the queue accepts it
    ASSERT_EQ(b.sink.w.size(), 1u);
    EXPECT_EQ(b.sink.w[0].t, 10 * kNs);
    EXPECT_EQ(b.sink.w[0].requester, 7);      // requester id travels to the persistence domain
}

TEST(MemCtrl, DirectFrontEndAcknowledgesAtDeviceCompletion)
{
    Bench b({"nvm.controllers=1", "nvm.front_end=direct", "nvm.write_latency_ns=300", "nvm.write_bw_gbps=0.001"});
    uint64_t ack = 0;
    simulate([&] { ack = b.req->write(0x10000000000ull, 0, 1); });
    EXPECT_GT(ack, 300 * kNs);                // latency plus 64 B at 1 MB/s
}

TEST(MemCtrl, InterleaveGranuleRoutesAddresses)
{
    Bench b({"nvm.controllers=2", "nvm.interleave_bytes=4096"});
    EXPECT_EQ(b.pm->router->target_of(0), 0u);
    EXPECT_EQ(b.pm->router->target_of(4095), 0u);
    EXPECT_EQ(b.pm->router->target_of(4096), 1u);
    EXPECT_EQ(b.pm->router->target_of(8192), 0u);
    Bench c({"nvm.controllers=2"});           // default: one line (64 B here)
    EXPECT_EQ(c.pm->router->target_of(64), 1u);
}

TEST(MemCtrl, WpqGateAcknowledgesWhenTheBoundaryReachedEveryController)
{
    Bench b({"nvm.controllers=2", "nvm.front_end=wpq_gate"});
    const uint64_t A = 0x10000000000ull, B = A + 64;   // line-interleaved: A at nvm0, B at nvm1
    uint64_t a0 = 0, b0 = 0;
    simulate([&] {
        a0 = b.req->write(A, 0, 1);
        b0 = b.req->write(B, 0, 2);
        // Region 0 ends: the boundary reaches nvm0 at 100 ns and nvm1 at 300 ns.
        b.pm->ctrls[0]->deliver(100 * kNs, McMsg{McMsg::BOUNDARY, 0, 7});
        b.pm->ctrls[1]->deliver(300 * kNs, McMsg{McMsg::BOUNDARY, 0, 7});
    });
    EXPECT_EQ(a0, kAckLater);
    EXPECT_EQ(b0, kAckLater);
    ASSERT_EQ(b.req->acks.size(), 2u);
    // nvm1 has its own boundary at 300 ns and nvm0's bdry-ACK (sent at 100 ns, 50 ns link) already.
    EXPECT_EQ(b.req->acks[2], 300 * kNs);
    // nvm0 waits for nvm1's bdry-ACK: sent at 300 ns, arrives after the link latency.
    EXPECT_GE(b.req->acks[1], 350 * kNs);
    EXPECT_LT(b.req->acks[1], 360 * kNs);
    ASSERT_EQ(b.sink.w.size(), 2u);
    EXPECT_EQ(b.sink.w[0].addr, B);           // durable in acknowledgement order
    for (auto *m : b.pm->ctrls) EXPECT_EQ(m->describe_stuck(), "");
}

TEST(MemCtrl, WpqGateYoungerRegionNeverPersistsBeforeAnOlderOne)
{
    Bench b({"nvm.controllers=2", "nvm.front_end=wpq_gate"});
    const uint64_t A = 0x10000000000ull, B = A + 64;
    simulate([&] {
        b.req->write(A, 0, 1);                 // region 0 at nvm0
        b.req->write(B, 0, 2);                 // region 0 at nvm1
        b.req->write(A + 128, 1, 3);           // region 1 at nvm0, the near controller
        // Region 1's boundary reaches nvm0 first; region 0's boundary reaches nvm1 late (skew).
        b.pm->ctrls[0]->deliver(10 * kNs, McMsg{McMsg::BOUNDARY, 0, 7});
        b.pm->ctrls[0]->deliver(20 * kNs, McMsg{McMsg::BOUNDARY, 1, 7});
        b.pm->ctrls[1]->deliver(20 * kNs, McMsg{McMsg::BOUNDARY, 1, 7});
        b.pm->ctrls[1]->deliver(500 * kNs, McMsg{McMsg::BOUNDARY, 0, 7});
    });
    ASSERT_EQ(b.req->acks.size(), 3u);
    EXPECT_GE(b.req->acks[1], 500 * kNs);    // region 0 waits for its late boundary
    EXPECT_GE(b.req->acks[3], b.req->acks[1]);
    EXPECT_GE(b.req->acks[3], b.req->acks[2]);
    ASSERT_EQ(b.sink.w.size(), 3u);
    EXPECT_EQ(b.sink.w.back().addr, A + 128);  // the younger region's write is durable last
}

TEST(MemCtrl, WpqGateWithoutBoundaryNeverAcknowledgesAndReportsStuck)
{
    Bench b({"nvm.controllers=2", "nvm.front_end=wpq_gate"});
    simulate([&] { b.req->write(0x10000000000ull, 0, 1); });
    EXPECT_TRUE(b.req->acks.empty());
    EXPECT_NE(b.pm->describe_stuck().find("not acknowledged"), std::string::npos);
}

TEST(MemCtrl, LateAckNeedsAnInitiatorThatTakesIt)
{
    Bench b({"nvm.controllers=1", "nvm.front_end=wpq_gate"});
    std::string err;
    simulate([&] {
        MemReq r(tlm::TLM_WRITE_COMMAND, 0x10000000000ull, 64);
        r.ext.mask[0] = ~0ull;
        sc_time d = SC_ZERO_TIME;
        try {
            b.req->sock->b_transport(r.gp, d);
        } catch (const ConfigError &e) {
            err = e.what();
        }
    });
    EXPECT_NE(err.find("late acknowledgement"), std::string::npos) << err;
}

TEST(MemCtrl, UnknownFrontEndIsNamed)
{
    Config c;
    c.set_kv("nvm.front_end=fifo9");
    mem_image *img = mem_new();
    try {
        PmControllers pm(c, img);
        FAIL() << "no error";
    } catch (const ConfigError &e) {
        EXPECT_NE(std::string(e.what()).find("nvm.front_end"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("adr_wpq"), std::string::npos);
    }
    mem_free(img);
}

} // namespace
