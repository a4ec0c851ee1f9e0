// Child processes of persim: `persim sweep` runs its points and `persim crash --time-recovery`
// times a recovery trace as separate `persim run` processes (SystemC elaborates once per process).
// Also the CSV every persim command writes and reads (libcsv, RFC 4180).
#pragma once
#include <string>
#include <vector>
#include <sys/types.h>

namespace persim {

// s quoted for a POSIX shell (unchanged when it needs no quoting).
std::string shell_quote(const std::string &s);
// CSV (RFC 4180) through libcsv: every cell written in quotes (a quote doubled), so a comma, quote
// or line break in a value never shifts a column; read back with the same rules.
// One cell.
std::string csv_cell(const std::string &s);
// One record: the cells quoted, joined by commas, ended by "\n".
std::string csv_record(const std::vector<std::string> &cells);
// The records of CSV text (quoted or not; blank lines are no records); at most max_records when
// that is not 0. False with err on malformed text (a stray quote).
bool csv_parse(const std::string &text, std::vector<std::vector<std::string>> &records, std::string &err,
               size_t max_records = 0);
// The same from a file (read as far as max_records need); false with err when it cannot be read.
bool csv_read_file(const std::string &path, std::vector<std::vector<std::string>> &records, std::string &err,
                   size_t max_records = 0);
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
