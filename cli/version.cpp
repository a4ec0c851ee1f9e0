#include "version.h"
#include "persim_gitrev.h"
namespace persim {
const char *version() { return "0.1.0"; }
const char *git_describe() { return PERSIM_GIT; }
}
