// Result files persim writes: never half a file, never through a link someone planted, and a
// failed write is an error (issue 27: item 3, item 6, "writes outside --out").
#pragma once
#include <string>

namespace persim {

// Writes `text` to `path` through `path.part` renamed over `path`: a reader never sees half a file,
// and a symlink at `path` is replaced, not followed (files persim makes inside its output folder).
// Throws ConfigError naming the path when any step fails (full disk, a directory in the way ...).
void write_file_replacing(const std::string &path, const std::string &text);

// An output file the user named (-o FILE): where to write it and how.
//   - a regular file or a new name: written as FILE.part, renamed over FILE when complete;
//   - a symlink: its target is written (the same way), the link stays;
//   - a FIFO, character device or socket: written in place (no temporary, no rename);
//   - a directory, or a path whose folder does not exist: ConfigError naming it.
struct UserOutput {
    std::string path;        // what the user gave
    std::string write_to;    // the file to open for writing
    std::string final_path;  // renamed to this when complete (empty: written in place)
};
UserOutput plan_user_output(const std::string &path);
// After write_to was written completely: the rename (ConfigError on failure; the .part is removed).
void finish_user_output(const UserOutput &o);
// After a failed write: the .part is removed (nothing else is touched).
void abandon_user_output(const UserOutput &o);

} // namespace persim
