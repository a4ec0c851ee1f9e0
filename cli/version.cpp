#include "version.h"
namespace persim {
const char *version() { return "0.1.0"; }
}
