#pragma once
namespace persim {
const char *version();
// The commit this binary was built from: `git describe --always`, "-dirty" when tracked files
// outside results/ had uncommitted changes ("unknown" outside a git checkout).
const char *git_describe();
}
