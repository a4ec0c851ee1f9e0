#pragma once
#include "write_queue.h"
namespace persim { extern const WriteQueueKind kBroiSchedFe; }
