// The persist-memory order a persistency model promises for a program (docs/checking.md
// "Derived orders"), as a DAG whose nodes are PM stores and join points.
//
// Built from the program and what each op means for the model's order (OrderModel, system.h: the
// system kind reads the model's lowering), so a model's promise follows the primitives it uses:
// oFence orders a warp's earlier persists before its later ones;
// pRel/pAcq at a scope containing both warps order the releaser's earlier persists before the
// acquirer's later ones (cumulatively, through chains); a durability point (dFence, an epoch/GPM
// barrier, the end of a kernel) orders everything before it before everything that happens after
// it (program order, any acquire that reads a later release, execution barriers). Which release an
// acquire reads, and the order in which warps meet at barriers, come from the functional executor
// (func_exec), so the graph does not depend on the timing of a run.
//
// Store W1 is ordered before store W2 exactly when W1's node is an ancestor of W2's node.
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include "system.h"
extern "C" {
#include "op.h"
#include "mem_image.h"
}

namespace persim {

struct PmoGraph {
    enum Kind : uint8_t { STORE, FENCE, DURABLE, ACQUIRE, SYNC, KERNEL };
    // nodes, in topological order (predecessors always have smaller ids)
    std::vector<uint32_t> op;       // STORE: the store op (index); KERNEL: kernel index; else the op that made it
    std::vector<uint32_t> aux;      // ACQUIRE: the release op read (index)
    std::vector<int32_t> via;       // ACQUIRE: the predecessor that came from the release (-1: none)
    std::vector<uint8_t> kind;
    std::vector<uint32_t> off;      // predecessors of node i: pred[off[i] .. off[i+1])
    std::vector<uint32_t> pred;
    std::vector<int32_t> store_node;   // per op index: its STORE node, -1 if the op writes no PM
    // Durability points: everything ordered before `node` is durable once op `op` has completed
    // (a dFence or barrier) or kernel `kernel` has ended.
    struct DPoint { uint32_t node; uint32_t op; int32_t kernel; };
    std::vector<DPoint> dpoints;
    // Per op index: the stream (warp) it belongs to; per stream: kernel, block, warp.
    std::vector<uint32_t> op_stream;
    struct StreamInfo { uint32_t kernel, block, warp; };
    std::vector<StreamInfo> streams;
    // `require` ops (index) in program order.
    std::vector<uint32_t> requires_;
    uint64_t pm_base = 0;

    size_t nodes() const { return kind.size(); }
    size_t edges() const { return pred.size(); }
    // True if the node of `a` is an ancestor of the node of `b` (a ordered before b). `mark` is
    // scratch space (resized as needed). If path is given, it receives the nodes from a to b.
    bool ordered(int32_t a, int32_t b, std::vector<uint32_t> &mark, uint32_t &epoch,
                 std::vector<uint32_t> *path = nullptr) const;
};

// Builds the graph. init: the program's initial image (acquires wait for flag values). Returns
// false with err on a program the functional executor cannot run (deadlock). validated: p has
// passed prog_validate already (a loaded run's program), so the replay does not validate it again.
bool build_pmo(const persim_prog *p, const mem_image *init, const OrderModel &model, uint64_t pm_base,
               PmoGraph &g, std::string &err, bool validated = false);

// "op 12 (kernel 0 block 3 warp 1: st 0x10000000080 4x32)" for reports.
std::string describe_op(const persim_prog *p, const PmoGraph &g, uint32_t op_index);
// Bytes of PM an op writes (st lanes / release flag at or above pm_base), for image building.
bool op_writes_pm(const persim_op &o, uint64_t pm_base);

} // namespace persim
