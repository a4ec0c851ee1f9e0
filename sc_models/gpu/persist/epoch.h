#pragma once
#include "persist_model.h"
namespace persim {
extern const PersistModel kEpochModel;
// Epoch-style lowering with barrier primitive `bar` (epoch: EPOCH_BAR; GPM: SYS_FENCE).
int lower_epoch_like(const persim_op &op, Prim out[4], Prim bar);
} // namespace persim
