// Helpers shared by the CLI tests (tests/cli_*_test.cpp): run the built persim binary, make
// scratch directories and files.
#pragma once
#include <sys/wait.h>
#include <unistd.h>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

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

} // namespace cli_util
