// Command-line parsing shared by persim's commands (main.cpp, sweep.cpp, device.cpp,
// trace_program.cpp): the options are CLI11's (Debian libcli11-dev); these helpers give every
// command the same messages (did-you-mean for unknown options, "needs a value", "takes no value")
// and the same number syntax.
#pragma once
#include <cstdint>
#include <string>
#include <CLI/CLI.hpp>

namespace persim {

// A decimal integer 0 .. 2^64-1 (digits only: no sign, space, base prefix or suffix).
bool parse_u64(const std::string &s, uint64_t &out);

// A CLI11 check: the value is a decimal integer in lo .. hi. The message (after CLI11's
// "--opt: ") says what was expected and what was given.
CLI::Validator uint_in(uint64_t lo, uint64_t hi, const std::string &what = "");

// `--size`: "small", "default" or a positive workload size (at most 18 digits); "" if ok, else
// the message (with a did-you-mean for a misspelt name).
std::string size_arg_error(const std::string &size);

// Makes `--help` (and -h) print `text` instead of CLI11's generated help.
void set_usage(CLI::App &app, const std::string &text);

// A flag that `--flag=value` cannot set (such an argument is an error naming the flag).
CLI::Option *add_flag(CLI::App &app, const std::string &names, bool &dst, const std::string &desc = "");

// The message for a parse error of `app` (a command's CLI11 app or subcommand; e may be null): the
// first unknown option among the arguments CLI11 left over (with did-you-mean over app's options
// and `also`), else CLI11's error e in persim's words ("option --quiet takes no value (got
// '--quiet=1')", "option --out needs a value"). `argv` is the command's arguments (to find the
// flag given a value, or the option left without one); `hint` ends the unknown-option message,
// e.g. " (try persim sweep --help)".
std::string parse_error(const CLI::App &app, const CLI::Error *e, const std::vector<std::string> &argv,
                        const std::string &hint, const std::vector<std::string> &also = {});

// The first argument CLI11 left over that looks like an option ("" if none), without "=value".
std::string first_unknown_option(const CLI::App &app);

// Every spelling of app's options ("--out", "-o", ...).
std::vector<std::string> option_names(const CLI::App &app);

} // namespace persim
