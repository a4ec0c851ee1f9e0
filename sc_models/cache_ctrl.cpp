#include "cache_ctrl.h"
#include <cstring>

namespace persim {

CacheCtrl::CacheCtrl(const cache_cfg &cc, const std::string &what) : lb_(cc.line_bytes)
{
    c_ = mem_.make(cc, cache_bytes, cache_init, what + ": invalid cache geometry");
}

void CacheCtrl::fill_write_back(MemReq &req, int32_t idx, int requester, const uint32_t *writers) const
{
    const cache_line *l = cache_line_at_const(c_, idx);
    req.gp.set_address(l->tag * lb_);
    std::memcpy(req.data, cache_data_const(c_, idx), lb_);
    req.ext.mask[0] = l->dirty[0];
    req.ext.mask[1] = l->dirty[1];
    req.ext.pm = l->pm;
    req.ext.persist = l->pm;
    req.ext.requester = requester;
    req.ext.writers = writers;
}

void CacheCtrl::write_masked(int32_t idx, const uint8_t *data, const uint64_t mask[2])
{
    // Runs of set bits, found a word at a time; a run may continue across the word boundary.
    uint32_t i = 0;
    while (i < lb_) {
        const uint32_t w = i >> 6, b = i & 63;
        const uint64_t m = mask[w] >> b;            // bits i.. of this word
        if (!m) { i = (w + 1) << 6; continue; }
        i += (uint32_t)__builtin_ctzll(m);          // run start
        if (i >= lb_) break;
        uint32_t j = i;
        while (j < lb_) {                           // run end
            const uint64_t r = ~(mask[j >> 6] >> (j & 63));
            const uint32_t len = r ? (uint32_t)__builtin_ctzll(r) : 64 - (j & 63);
            j += len;
            if (r && len < 64 - ((j - len) & 63)) break;   // a clear bit inside this word ends the run
        }
        if (j > lb_) j = lb_;
        cache_write(c_, idx, i, data + i, j - i);
        i = j;
    }
}

void CacheCtrl::drain_functional(mem_image *img) const
{
    const uint32_t n = cache_num_lines(c_);
    for (uint32_t i = 0; i < n; ++i) {
        const cache_line *l = cache_line_at_const(c_, (int32_t)i);
        if (l->present && (l->dirty[0] | l->dirty[1]))
            mem_write_masked(img, l->tag * lb_, cache_data_const(c_, (int32_t)i), lb_, l->dirty);
    }
}

uint64_t AckQueue::expect(bool tracked, int requester, uint32_t tag)
{
    const uint64_t s = seq_++;
    if (tracked) {
        outstanding_[requester].insert(s);
        last_[requester] = s;
    }
    expected_[s] = Ack{0, s, tracked, requester, tag};
    return s;
}

void AckQueue::arrive(uint64_t seq, uint64_t at)
{
    auto it = expected_.find(seq);
    if (it == expected_.end()) return;
    Ack a = it->second;
    expected_.erase(it);
    a.at = at;
    q_.push(a, at, a.seq);
}

uint64_t AckQueue::ticket(int requester) const
{
    auto it = last_.find(requester);
    return it == last_.end() ? 0 : it->second;
}

bool AckQueue::ticket_done(int requester, uint64_t ticket) const
{
    auto it = outstanding_.find(requester);
    return it == outstanding_.end() || it->second.empty() || *it->second.begin() > ticket;
}

std::vector<AckQueue::Ack> AckQueue::pop_due(uint64_t t)
{
    std::vector<Ack> due;
    q_.pop_due(t, [&](const Ack &a) {
        due.push_back(a);
        if (a.tracked) outstanding_[a.requester].erase(a.seq);
    });
    return due;
}

} // namespace persim

