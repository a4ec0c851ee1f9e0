#include "durable_log.h"

#include <algorithm>
#include <cstring>

namespace persim {

void OpIndex::build(const persim_prog *p)
{
    dense_.clear();
    sparse_.clear();
    uint32_t maxid = 0;
    for (uint64_t i = 0; i < p->nops; ++i) maxid = std::max(maxid, p->ops[i].id);
    if ((uint64_t)maxid <= 4 * p->nops + 1024) {
        dense_.assign((size_t)maxid + 1, kNoOp);
        for (uint64_t i = 0; i < p->nops; ++i)
            if (p->ops[i].id) dense_[p->ops[i].id] = (uint32_t)i;
    } else {
        for (uint64_t i = 0; i < p->nops; ++i)
            if (p->ops[i].id) sparse_[p->ops[i].id] = (uint32_t)i;
    }
}

uint32_t OpIndex::of(uint32_t id) const
{
    if (!dense_.empty() || sparse_.empty()) return id < dense_.size() ? dense_[id] : kNoOp;
    auto it = sparse_.find(id);
    return it == sparse_.end() ? kNoOp : it->second;
}

DurableLog::~DurableLog()
{
    if (init_) mem_free(init_);
}

void DurableLog::begin(const persim_prog *p, const mem_image *init)
{
    prog_ = p;
    if (init_) mem_free(init_);
    init_ = mem_clone(init);
    ids_.build(p);
    complete_.assign(p->nops, kNever);
    kernel_end_.assign(p->nkernels, kNever);
}

void DurableLog::on_durable_ids(uint64_t durable_ps, uint64_t line_addr, const uint8_t *data, const uint64_t mask[2],
                                uint32_t line_bytes, int, const uint32_t *writers)
{
    Write w{durable_ps, line_addr, {mask[0], mask[1]}, seq_++, (uint32_t)bytes_.size()};
    const uint32_t lim = std::min<uint32_t>(line_bytes, 128);
    for (uint32_t wd = 0; wd < 2; ++wd)                    // the masked bytes, in order
        for (uint64_t m = mask[wd]; m; m &= m - 1) {
            const uint32_t b = wd * 64 + (uint32_t)__builtin_ctzll(m);
            if (b >= lim) break;
            bytes_.push_back(data[b]);
            wr_.push_back(writers ? ids_.of(writers[b]) : kNoOp);
        }
    log_.push_back(w);
}

void DurableLog::on_perform(uint64_t t, uint32_t op, uint64_t line_addr, const uint64_t mask[2])
{
    perf_.push_back(Perf{t, line_addr, {mask[0], mask[1]}, ids_.of(op)});
}

void DurableLog::on_overwrite(uint32_t old_op, uint32_t new_op, uint64_t line_addr, const uint64_t mask[2])
{
    ovw_.push_back(Ovw{line_addr, {mask[0], mask[1]}, ids_.of(old_op), ids_.of(new_op)});
}

void DurableLog::on_complete(uint32_t op, uint64_t t)
{
    uint32_t i = ids_.of(op);
    if (i != kNoOp && i < complete_.size()) complete_[i] = std::min(complete_[i], t);
}

void DurableLog::on_kernel_end(uint32_t k, uint64_t t)
{
    if (k < kernel_end_.size()) kernel_end_[k] = t;
}

uint32_t DurableLog::seg_of(uint32_t op, uint64_t la) const
{
    if (op >= op_seg_.size()) return kNoOp;
    for (uint32_t i = op_seg_[op]; i != kNoOp; i = segs_[i].next)
        if (segs_[i].la == la) return i;
    return kNoOp;
}

void DurableLog::resolve(uint32_t seg0, const uint64_t m0[2], uint64_t t)
{
    std::vector<Item> &stack = resolve_stack_;   // reused (resolve does not nest)
    stack.clear();
    stack.push_back(Item{seg0, {m0[0], m0[1]}});
    while (!stack.empty()) {
        Item it = stack.back();
        stack.pop_back();
        Seg &s = segs_[it.seg];
        uint64_t r[2] = {s.rem[0] & it.m[0], s.rem[1] & it.m[1]};
        if (!(r[0] | r[1])) continue;
        s.rem[0] &= ~r[0];
        s.rem[1] &= ~r[1];
        first_[s.op] = std::min(first_[s.op], t);
        all_[s.op] = std::max(all_[s.op], t);
        // Values this one replaced in an L1 are durable with it.
        for (uint32_t d = s.dep_head; d != kNoOp; d = deps_[d].next) {
            uint64_t dm[2] = {deps_[d].mask[0] & r[0], deps_[d].mask[1] & r[1]};
            if (dm[0] | dm[1]) stack.push_back(Item{deps_[d].seg, {dm[0], dm[1]}});
        }
    }
}

void DurableLog::finish()
{
    const size_t nops = prog_ ? prog_->nops : 0;
    perf_t_.assign(nops, kNever);
    perf_rank_.assign(nops, kNever);
    first_.assign(nops, kNever);
    all_.assign(nops, 0);
    segs_.clear();
    deps_.clear();
    op_seg_.assign(nops, kNoOp);
    images_.clear();
    anomalies_.clear();
    auto anomaly = [&](const std::string &s) {
        if (anomalies_.size() < 20) anomalies_.push_back(s);
    };
    // Segments: the bytes each store op wrote into each line.
    for (size_t i = 0; i < perf_.size(); ++i) {
        const Perf &p = perf_[i];
        if (p.op == kNoOp || p.op >= nops) {
            anomaly("a store with an unknown op id wrote line 0x" + std::to_string(p.la));
            continue;
        }
        if (perf_t_[p.op] == kNever) {
            perf_t_[p.op] = p.t;
            perf_rank_[p.op] = i;
        }
        uint32_t si = seg_of(p.op, p.la);
        if (si == kNoOp) {
            segs_.push_back(Seg{p.la, {p.mask[0], p.mask[1]}, p.op, kNoOp, op_seg_[p.op]});
            op_seg_[p.op] = (uint32_t)segs_.size() - 1;
        } else {
            segs_[si].rem[0] |= p.mask[0];
            segs_[si].rem[1] |= p.mask[1];
        }
    }
    for (const Ovw &o : ovw_) {
        uint32_t so = o.old_op == kNoOp ? kNoOp : seg_of(o.old_op, o.la);
        uint32_t sn = o.new_op == kNoOp ? kNoOp : seg_of(o.new_op, o.la);
        if (so == kNoOp || sn == kNoOp) continue;
        deps_.push_back(Dep{so, segs_[sn].dep_head, {o.mask[0], o.mask[1]}});
        segs_[sn].dep_head = (uint32_t)deps_.size() - 1;
    }
    // Arrival order at the persistence domain.
    std::stable_sort(log_.begin(), log_.end(),
                     [](const Write &a, const Write &b) { return a.t != b.t ? a.t < b.t : a.seq < b.seq; });
    for (const Write &w : log_) {
        // group the bytes by writer
        uint32_t k = w.off;
        struct G { uint32_t op; uint64_t m[2]; };
        G groups[8];
        int ng = 0, last = 0;
        for (uint32_t wd = 0; wd < 2; ++wd)
          for (uint64_t bits = w.mask[wd]; bits; bits &= bits - 1) {   // the masked bytes, in order
            const uint32_t b = wd * 64 + (uint32_t)__builtin_ctzll(bits);
            uint32_t op = wr_[k++];
            int g = last < ng && groups[last].op == op ? last : 0;   // runs of one writer: no search
            while (g < ng && groups[g].op != op) ++g;
            if (g == ng) {
                if (ng == 8) {   // flush the groups
                    for (int j = 0; j < ng; ++j) {
                        uint32_t s = groups[j].op == kNoOp ? kNoOp : seg_of(groups[j].op, w.la);
                        if (s != kNoOp) resolve(s, groups[j].m, w.t);
                    }
                    ng = g = 0;
                }
                groups[ng++] = G{op, {0, 0}};
            }
            groups[g].m[b / 64] |= 1ull << (b % 64);
            last = g;
          }
        for (int j = 0; j < ng; ++j) {
            uint32_t s = groups[j].op == kNoOp ? kNoOp : seg_of(groups[j].op, w.la);
            if (s == kNoOp) anomaly("a durable write of line 0x" + std::to_string(w.la) + " names no store");
            else resolve(s, groups[j].m, w.t);
        }
    }
    // Bytes still unresolved: their value was replaced where the L1 did not see it (another SM's
    // L1, or a cache below the L1 that holds PM lines). Such a byte is durable once the image
    // holds a value written later (in perform order) than the op's own.
    std::unordered_map<uint64_t, std::vector<uint32_t>> by_line;
    for (uint32_t si = 0; si < segs_.size(); ++si) {
        Seg &sg = segs_[si];
        if (!(sg.rem[0] | sg.rem[1])) continue;
        if (by_line.empty())
            for (uint32_t wi = 0; wi < log_.size(); ++wi) by_line[log_[wi].la].push_back(wi);
        auto it = by_line.find(sg.la);
        if (it == by_line.end()) continue;
        for (uint32_t wi : it->second) {
            const Write &w = log_[wi];
            uint64_t m[2] = {0, 0};
            uint32_t k = w.off;
            for (uint32_t wd = 0; wd < 2; ++wd)
              for (uint64_t bits = w.mask[wd]; bits; bits &= bits - 1) {
                const uint32_t b = wd * 64 + (uint32_t)__builtin_ctzll(bits);
                uint32_t op = wr_[k++];
                if ((sg.rem[b / 64] >> (b % 64) & 1) && op != kNoOp && op < nops &&
                    perf_rank_[op] != kNever && perf_rank_[op] >= perf_rank_[sg.op])
                    m[b / 64] |= 1ull << (b % 64);
            }
            if (m[0] | m[1]) resolve(si, m, w.t);
            if (!(sg.rem[0] | sg.rem[1])) break;
        }
    }
    for (const Seg &s : segs_)
        if (s.rem[0] | s.rem[1]) all_[s.op] = kNever;
    for (size_t i = 0; i < nops; ++i)
        if (perf_t_[i] == kNever) all_[i] = kNever;
}

const std::vector<DurableLog::Image> &DurableLog::images()
{
    if (!images_.empty()) return images_;
    // Distinct images: a group of writes with one durable time that changes at least one byte.
    images_.push_back(Image{0, 0});
    mem_image *cur = mem_clone(init_);
    size_t i = 0;
    while (i < log_.size()) {
        size_t j = i;
        bool changed = false;
        while (j < log_.size() && log_[j].t == log_[i].t) {
            const Write &w = log_[j];
            uint8_t old[128], nw[128];
            mem_read(cur, w.la, old, 128);
            std::memcpy(nw, old, 128);
            uint32_t k = w.off;
            for (uint32_t b = 0; b < 128; ++b)
                if (w.mask[b / 64] >> (b % 64) & 1) nw[b] = bytes_[k++];
            if (std::memcmp(old, nw, 128) != 0) {
                changed = true;
                mem_write_masked(cur, w.la, nw, 128, w.mask);
            }
            ++j;
        }
        if (changed) images_.push_back(Image{log_[i].t, j});
        else if (!images_.empty()) images_.back().count = j;   // same image, more writes
        i = j;
    }
    mem_free(cur);
    return images_;
}

void DurableLog::apply(mem_image *img, size_t from, size_t to) const
{
    uint8_t buf[128];
    for (size_t i = from; i < to && i < log_.size(); ++i) {
        const Write &w = log_[i];
        uint32_t k = w.off;
        for (uint32_t b = 0; b < 128; ++b)
            if (w.mask[b / 64] >> (b % 64) & 1) buf[b] = bytes_[k++];
        mem_write_masked(img, w.la, buf, 128, w.mask);
    }
}

uint32_t DurableLog::write_writer(size_t i, uint32_t b) const
{
    const Write &w = log_[i];
    if (b >= 128 || !(w.mask[b / 64] >> (b % 64) & 1)) return kNoOp;
    uint32_t k = w.off;
    for (uint32_t j = 0; j < b; ++j) k += (uint32_t)(w.mask[j / 64] >> (j % 64) & 1);
    return wr_[k];
}

mem_image *DurableLog::image_at(uint64_t t) const
{
    size_t n = (size_t)(std::upper_bound(log_.begin(), log_.end(), t,
                                         [](uint64_t v, const Write &w) { return v < w.t; }) -
                        log_.begin());
    mem_image *img = mem_clone(init_);
    apply(img, 0, n);
    return img;
}

} // namespace persim
