// Helpers shared by the CLI tests (tests/cli_*_test.cpp): run the built persim binary, make
// scratch directories and files.
#pragma once
#include <sys/wait.h>
#include <unistd.h>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace cli_util {

struct Out {
    int code;
    std::string text;   // stdout + stderr
};

// Runs the shell command `cmd` and returns its exit status and output.
inline Out sh_cmd(const std::string &cmd)
{
    FILE *p = popen(cmd.c_str(), "r");
    std::string text;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) text.append(buf, n);
    int st = pclose(p);
    return Out{WIFEXITED(st) ? WEXITSTATUS(st) : -1, text};
}

// Runs `persim ARGS` and returns its exit status and combined output.
inline Out sh(const std::string &args) { return sh_cmd(std::string(PERSIM_BIN) + " " + args + " 2>&1"); }

// A fresh scratch directory, unique per test file, name and process.
inline std::string tmpdir(const std::string &name, const char *file = __builtin_FILE())
{
    namespace fs = std::filesystem;
    fs::path d = fs::temp_directory_path() /
                 ("persim_" + fs::path(file).stem().string() + "_" + name + "_" + std::to_string(getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d.string();
}

inline std::string write(const std::string &dir, const std::string &name, const std::string &text)
{
    std::string p = dir + "/" + name;
    std::ofstream(p) << text;
    return p;
}

// The records of a CSV file by RFC 4180 (fields in quotes may hold commas, quotes doubled and line
// breaks; blank lines are no records). Written here, apart from persim's reader, to check what
// persim writes.
inline std::vector<std::vector<std::string>> read_csv_records(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string t = ss.str();
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> row;
    std::string cell;
    bool quoted = false, any = false;
    for (size_t i = 0; i < t.size(); ++i) {
        const char c = t[i];
        if (quoted) {
            if (c == '"' && i + 1 < t.size() && t[i + 1] == '"') cell += '"', ++i;
            else if (c == '"') quoted = false;
            else cell += c;
        } else if (c == '"') quoted = any = true;
        else if (c == ',') row.push_back(cell), cell.clear(), any = true;
        else if (c == '\n' || c == '\r') {
            if (any || !cell.empty()) row.push_back(cell), rows.push_back(row);
            row.clear(), cell.clear(), any = false;
        } else cell += c, any = true;
    }
    if (any || !cell.empty()) row.push_back(cell), rows.push_back(row);
    return rows;
}

// The column of a header record (-1 if absent).
inline int csv_col(const std::vector<std::string> &header, const std::string &name)
{
    for (size_t i = 0; i < header.size(); ++i)
        if (header[i] == name) return (int)i;
    return -1;
}

} // namespace cli_util
