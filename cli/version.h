#pragma once
namespace persim {
const char *version();
// The commit this binary was built from: `git describe --always --dirty` ("unknown" outside a git
// checkout); "-dirty" = built from a tree with uncommitted changes.
const char *git_describe();
}
