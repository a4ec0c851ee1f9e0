#include "proc.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <fcntl.h>
#include <spawn.h>
#include <csv.h>
#include <sys/wait.h>

extern char **environ;

namespace persim {

std::string csv_cell(const std::string &s)
{
    std::string o(csv_write(nullptr, 0, s.data(), s.size()), '\0');
    csv_write(o.data(), o.size(), s.data(), s.size());
    return o;
}

std::string csv_record(const std::vector<std::string> &cells)
{
    std::string o;
    for (size_t i = 0; i < cells.size(); ++i) o += (i ? "," : "") + csv_cell(cells[i]);
    return o + "\n";
}

namespace {

// libcsv's parser with RFC 4180's rules: strict quoting, and spaces belong to the field.
struct CsvReader {
    csv_parser p{};
    std::vector<std::vector<std::string>> *out;
    std::vector<std::string> cur;
    size_t max;
    explicit CsvReader(std::vector<std::vector<std::string>> *o, size_t max_records) : out(o), max(max_records)
    {
        csv_init(&p, CSV_STRICT | CSV_STRICT_FINI);
        csv_set_space_func(&p, [](unsigned char) { return 0; });
    }
    ~CsvReader() { csv_free(&p); }
    static void field(void *s, size_t n, void *self)
    {
        static_cast<CsvReader *>(self)->cur.emplace_back(static_cast<const char *>(s), n);
    }
    static void record(int, void *self)
    {
        auto *r = static_cast<CsvReader *>(self);
        if (!r->max || r->out->size() < r->max) r->out->push_back(std::move(r->cur));
        r->cur.clear();
    }
    bool full() const { return max && out->size() >= max; }
    bool feed(const char *s, size_t n, std::string &err)
    {
        if (csv_parse(&p, s, n, field, record, this) != n) {
            err = csv_strerror(csv_error(&p));
            return false;
        }
        return true;
    }
    bool finish(std::string &err)
    {
        if (csv_fini(&p, field, record, this) != 0 || csv_error(&p) != CSV_SUCCESS) {
            err = csv_strerror(csv_error(&p));
            return false;
        }
        return true;
    }
};

} // namespace

bool csv_parse(const std::string &text, std::vector<std::vector<std::string>> &records, std::string &err, size_t max_records)
{
    records.clear();
    CsvReader r(&records, max_records);
    return r.feed(text.data(), text.size(), err) && r.finish(err);
}

bool csv_read_file(const std::string &path, std::vector<std::vector<std::string>> &records, std::string &err,
                   size_t max_records)
{
    records.clear();
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        err = path + ": cannot open";
        return false;
    }
    CsvReader r(&records, max_records);
    std::string line;
    while (!r.full() && std::getline(in, line)) {
        line += '\n';
        if (!r.feed(line.data(), line.size(), err)) {
            err = path + ": " + err;
            return false;
        }
    }
    if (!r.finish(err)) {
        err = path + ": " + err;
        return false;
    }
    return true;
}

std::string shell_quote(const std::string &s)
{
    if (!s.empty() && s.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./=:+,-@%") ==
                          std::string::npos)
        return s;
    std::string o = "'";
    for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return o + "'";
}

std::string join_cmd(const std::vector<std::string> &argv)
{
    std::string o;
    for (const auto &a : argv) o += (o.empty() ? "" : " ") + shell_quote(a);
    return o;
}

std::string self_exe(const char *argv0)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::path p = fs::read_symlink("/proc/self/exe", ec);
    if (!ec && !p.empty()) return p.string();
    return fs::absolute(argv0, ec).string();
}

pid_t spawn_logged(const std::vector<std::string> &argv, const std::string &log, std::string &err)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    std::vector<char *> av;
    for (const auto &a : argv) av.push_back(const_cast<char *>(a.c_str()));
    av.push_back(nullptr);
    pid_t pid = -1;
    int rc = posix_spawn(&pid, av[0], &fa, nullptr, av.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        err = std::string("cannot start ") + av[0] + ": " + std::strerror(rc);
        return -1;
    }
    return pid;
}

int wait_child(pid_t pid, std::string &err)
{
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) {
            err = std::string("waitpid: ") + std::strerror(errno);
            return -1;
        }
    if (WIFSIGNALED(st)) {
        err = std::string("killed by signal ") + std::to_string(WTERMSIG(st));
        return -1;
    }
    return WEXITSTATUS(st);
}

std::string tail_lines(const std::string &path, int n)
{
    std::ifstream in(path);
    std::vector<std::string> lines;
    std::string l;
    while (std::getline(in, l)) lines.push_back(l);
    std::string o;
    for (size_t i = lines.size() > (size_t)n ? lines.size() - n : 0; i < lines.size(); ++i) o += "    " + lines[i] + "\n";
    return o;
}

} // namespace persim
