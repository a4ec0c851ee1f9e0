// Unit tests of cores/link.c (serialization pipe).
#include <gtest/gtest.h>

extern "C" {
#include "link.h"
}

namespace {

link_state make(persim_ps lat, double gbps, uint32_t hdr, uint32_t maxp)
{
    link_state l;
    link_cfg cfg{lat, gbps, hdr, maxp};
    EXPECT_EQ(link_init(&l, &cfg), 0);
    return l;
}

TEST(Link, BadConfigRejected)
{
    link_state l;
    link_cfg cfg{1000, -1.0, 24, 0};
    EXPECT_EQ(link_init(&l, &cfg), -1);
    cfg.gbps = 0.0;
    EXPECT_EQ(link_init(&l, &cfg), 0);   // 0 = infinite bandwidth
}

TEST(Link, SinglePacketSerializationPlusLatency)
{
    link_state l = make(100000, 28.0, 24, 256);
    // 152 wire bytes at 28 B/ns: ceil(152000 / 28) = 5429 ps.
    EXPECT_EQ(link_send(&l, 0, 128), 5429u + 100000u);
    EXPECT_EQ(link_free_at(&l), 5429u);
    EXPECT_EQ(l.st.packets, 1u);
    EXPECT_EQ(l.st.payload_bytes, 128u);
    EXPECT_EQ(l.st.wire_bytes, 152u);
    EXPECT_EQ(l.st.busy_ps, 5429u);
    EXPECT_EQ(l.st.queue_ps, 0u);
}

TEST(Link, BackToBackSendsQueue)
{
    link_state l = make(100000, 28.0, 24, 256);
    EXPECT_EQ(link_send(&l, 0, 128), 105429u);
    EXPECT_EQ(link_send(&l, 1000, 128), 2 * 5429u + 100000u);   // waits until 5429
    EXPECT_EQ(l.st.queue_ps, 4429u);
    EXPECT_EQ(link_send(&l, 1000, 128), 3 * 5429u + 100000u);
    EXPECT_EQ(l.st.queue_ps, 4429u + (2 * 5429u - 1000u));
    EXPECT_EQ(link_free_at(&l), 3 * 5429u);
    // After the pipe drains, a send starts immediately.
    EXPECT_EQ(link_send(&l, 50000, 128), 50000u + 5429u + 100000u);
    EXPECT_EQ(l.st.queue_ps, 4429u + (2 * 5429u - 1000u));
    EXPECT_EQ(l.st.packets, 4u);
    EXPECT_EQ(l.st.busy_ps, 4 * 5429u);
}

TEST(Link, SplitIntoPacketsAtMaxPayload)
{
    link_state l = make(0, 28.0, 24, 64);
    // 256 B = 4 TLPs: 256 + 4 * 24 = 352 wire bytes, ceil(352000 / 28) = 12572 ps.
    EXPECT_EQ(link_send(&l, 0, 256), 12572u);
    EXPECT_EQ(l.st.packets, 4u);
    EXPECT_EQ(l.st.wire_bytes, 352u);
    // 65 B = 2 TLPs: 65 + 48 = 113 wire bytes, ceil(113000 / 28) = 4036 ps.
    EXPECT_EQ(link_send(&l, 12572, 65), 12572u + 4036u);
    EXPECT_EQ(l.st.packets, 6u);
    // 64 B exactly = 1 TLP: 88 B, ceil(88000 / 28) = 3143 ps.
    EXPECT_EQ(link_send(&l, 20000, 64), 23143u);
    EXPECT_EQ(l.st.packets, 7u);
    // An empty payload is still one header-only packet: ceil(24000 / 28) = 858 ps.
    EXPECT_EQ(link_send(&l, 30000, 0), 30858u);
    EXPECT_EQ(l.st.packets, 8u);
    EXPECT_EQ(l.st.payload_bytes, 256u + 65u + 64u);
    EXPECT_EQ(l.st.wire_bytes, 352u + 113u + 88u + 24u);
}

TEST(Link, NoPayloadLimitIsOnePacket)
{
    link_state l = make(500, 10.0, 16, 0);
    EXPECT_EQ(link_send(&l, 0, 4096), (4096u + 16u) * 100u + 500u);   // 10 B/ns = 100 ps/B
    EXPECT_EQ(l.st.packets, 1u);
}

TEST(Link, InfiniteBandwidthIsLatencyOnly)
{
    link_state l = make(700, 0.0, 24, 64);
    EXPECT_EQ(link_send(&l, 100, 1000), 800u);
    EXPECT_EQ(link_send(&l, 100, 1000), 800u);
    EXPECT_EQ(l.st.packets, 32u);   // ceil(1000 / 64) = 16 per send
    EXPECT_EQ(l.st.busy_ps, 0u);
}

}  // namespace
