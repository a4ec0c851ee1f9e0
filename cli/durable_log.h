// The durable image of a run (docs/checking.md "The durable image"): which bytes reached the
// persistence domain when, and which store op wrote each of them.
//
// DurableLog is a WriteTracker (mem_proto.h): the L1s report every PM store they perform and every
// dirty byte a later store overwrites before it leaves the L1; the persistence domain (NvmMc: ADR
// WPQ accept, or the host LLC under eADR) reports every write with the writer op id of each byte.
// After the run, finish() sorts the writes by durable time (arrival order) and derives for every
// store op when its bytes became durable: a byte of store W is durable once the image holds W's
// value or a later value of the same byte written over W's in an L1 (a store whose value never
// left its L1 is durable when the value that replaced it is).
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>
#include "mem_proto.h"
extern "C" {
#include "op.h"
#include "mem_image.h"
}

namespace persim {

constexpr uint64_t kNever = UINT64_MAX;   // "not durable (by the end of the log)"
constexpr uint32_t kNoOp = UINT32_MAX;

// Op id (persim_op.id) -> index in prog->ops.
class OpIndex {
public:
    void build(const persim_prog *p);
    uint32_t of(uint32_t id) const;       // kNoOp if unknown
private:
    std::vector<uint32_t> dense_;
    std::unordered_map<uint32_t, uint32_t> sparse_;
};

class DurableLog : public WriteTracker {
public:
    // Before the run: the program and its initial image (cloned; the durable image starts there).
    void begin(const persim_prog *p, const mem_image *init);
    ~DurableLog() override;

    // WriteTracker
    void on_durable(uint64_t, uint64_t, const uint8_t *, const uint64_t[2], uint32_t, int) override {}
    void on_durable_ids(uint64_t durable_ps, uint64_t line_addr, const uint8_t *data, const uint64_t mask[2],
                        uint32_t line_bytes, int requester, const uint32_t *writers) override;
    void on_perform(uint64_t t, uint32_t op, uint64_t line_addr, const uint64_t mask[2]) override;
    void on_overwrite(uint32_t old_op, uint32_t new_op, uint64_t line_addr, const uint64_t mask[2]) override;
    void on_complete(uint32_t op, uint64_t t) override;
    void on_kernel_end(uint32_t k, uint64_t t) override;

    // After the run: sort the writes, compute durable times and the distinct images.
    void finish();

    const persim_prog *prog() const { return prog_; }
    const OpIndex &ids() const { return ids_; }
    const mem_image *init() const { return init_; }
    size_t writes() const { return log_.size(); }
    // Per op index: first time any byte of the store was durable / time all of them were (kNever).
    uint64_t durable_first(uint32_t op) const { return op < first_.size() ? first_[op] : kNever; }
    uint64_t durable_all(uint32_t op) const { return op < all_.size() ? all_[op] : kNever; }
    // Per op index: first time the store wrote into an L1 (kNever: never performed), and its rank in
    // perform order (coherence order of values in one L1).
    uint64_t performed(uint32_t op) const { return op < perf_t_.size() ? perf_t_[op] : kNever; }
    uint64_t perform_rank(uint32_t op) const { return op < perf_rank_.size() ? perf_rank_[op] : kNever; }
    bool is_persist(uint32_t op) const { return op < perf_t_.size() && perf_t_[op] != kNever; }
    // Completion time of an ordering op (index), kernel end times.
    uint64_t completed(uint32_t op) const { return op < complete_.size() ? complete_[op] : kNever; }
    uint64_t kernel_end(uint32_t k) const { return k < kernel_end_.size() ? kernel_end_[k] : kNever; }

    // Distinct durable images, in time order: image i is the initial image with writes [0, count)
    // applied; it holds from time `t` on. Image 0 is the initial image (t = 0). Computed on the
    // first call (one replay of the log).
    struct Image { uint64_t t; size_t count; };
    const std::vector<Image> &images();
    // Applies writes [from, to) (sorted order) to img.
    void apply(mem_image *img, size_t from, size_t to) const;
    // The durable image at time t (caller frees).
    mem_image *image_at(uint64_t t) const;
    uint64_t write_time(size_t i) const { return log_[i].t; }
    uint64_t write_line(size_t i) const { return log_[i].la; }
    // The op (index) whose value write i carries for byte b of its line (kNoOp: byte not written).
    uint32_t write_writer(size_t i, uint32_t b) const;
    // Anomalies seen while deriving durable times (e.g. a write of an op id the program lacks).
    const std::vector<std::string> &anomalies() const { return anomalies_; }

private:
    struct Perf { uint64_t t, la, mask[2]; uint32_t op; };
    struct Ovw { uint64_t la, mask[2]; uint32_t old_op, new_op; };
    struct Write { uint64_t t, la, mask[2]; uint32_t seq, off; };
    struct Seg { uint64_t la, rem[2]; uint32_t op, dep_head, next; };   // next: the op's next segment
    struct Dep { uint32_t seg, next; uint64_t mask[2]; };
    uint32_t seg_of(uint32_t op, uint64_t la) const;
    void resolve(uint32_t seg, const uint64_t m[2], uint64_t t);
    struct Item { uint32_t seg; uint64_t m[2]; };
    std::vector<Item> resolve_stack_;

    const persim_prog *prog_ = nullptr;
    mem_image *init_ = nullptr;
    OpIndex ids_;
    std::vector<Perf> perf_;
    std::vector<Ovw> ovw_;
    std::vector<Write> log_;
    std::vector<uint8_t> bytes_;
    std::vector<uint32_t> wr_;
    std::vector<uint64_t> complete_, kernel_end_;
    // derived
    std::vector<Seg> segs_;
    std::vector<Dep> deps_;
    std::vector<uint32_t> op_seg_;   // per op: its first segment (chained by Seg::next)
    std::vector<uint64_t> first_, all_, perf_t_, perf_rank_;
    std::vector<Image> images_;
    std::vector<std::string> anomalies_;
    uint32_t seq_ = 0;
};

} // namespace persim
