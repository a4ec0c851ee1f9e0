#pragma once
#include "persist_model.h"
namespace persim { extern const PersistModel kEpochModel; }
