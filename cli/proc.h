// Child processes of persim: `persim sweep` runs its points and `persim crash --time-recovery`
// times a recovery trace as separate `persim run` processes (SystemC elaborates once per process).
#pragma once
#include <string>
#include <vector>
#include <sys/types.h>

namespace persim {

// s quoted for a POSIX shell (unchanged when it needs no quoting).
std::string shell_quote(const std::string &s);
// s as one CSV field (RFC 4180: quoted when it holds a comma, a quote or a line break).
std::string csv_field(const std::string &s);
// argv as one shell command line.
std::string join_cmd(const std::vector<std::string> &argv);
// This executable's absolute path (/proc/self/exe; else argv0 made absolute).
std::string self_exe(const char *argv0 = "persim");
// Starts argv with stdin from /dev/null and stdout+stderr into `log`; the pid, or -1 with err.
pid_t spawn_logged(const std::vector<std::string> &argv, const std::string &log, std::string &err);
// Waits for pid: its exit status, or -1 with err (killed by a signal, waitpid failed).
int wait_child(pid_t pid, std::string &err);
// The last n lines of a text file, each as "    line\n".
std::string tail_lines(const std::string &path, int n);

} // namespace persim
