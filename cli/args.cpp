#include "args.h"

#include "suggest.h"

namespace persim {

bool parse_u64(const std::string &s, uint64_t &out)
{
    if (s.empty() || s.size() > 20 || s.find_first_not_of("0123456789") != std::string::npos) return false;
    uint64_t x = 0;
    for (char c : s) {
        const uint64_t d = (uint64_t)(c - '0');
        if (x > (UINT64_MAX - d) / 10) return false;   // above 2^64-1
        x = x * 10 + d;
    }
    out = x;
    return true;
}

CLI::Validator uint_in(uint64_t lo, uint64_t hi, const std::string &what)
{
    std::string range = hi == UINT64_MAX ? "at least " + std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi);
    std::string expected = what.empty() ? "an integer" : what;
    return CLI::Validator(
        [=](std::string &v) -> std::string {
            uint64_t x = 0;
            if (parse_u64(v, x) && x >= lo && x <= hi) return "";
            return "expected " + expected + " (" + range + "), got '" + v + "'";
        },
        "UINT");
}

std::string size_arg_error(const std::string &size)
{
    if (size == "small" || size == "default") return "";
    uint64_t x = 0;
    if (size.size() <= 18 && parse_u64(size, x) && x > 0) return "";
    return "expected small, default or a positive number (the workload's size knob), got '" + size + "'" +
           did_you_mean(size, {"small", "default"});
}

void set_usage(CLI::App &app, const std::string &text)
{
    app.formatter_fn([text](const CLI::App *, std::string, CLI::AppFormatMode) { return text; });
}

CLI::Option *add_flag(CLI::App &app, const std::string &names, bool &dst, const std::string &desc)
{
    return app.add_flag(names, dst, desc)->disable_flag_override();
}

std::vector<std::string> option_names(const CLI::App &app)
{
    std::vector<std::string> v;
    for (const CLI::Option *o : app.get_options()) {
        for (const auto &n : o->get_lnames()) v.push_back("--" + n);
        for (const auto &n : o->get_snames()) v.push_back("-" + n);
    }
    return v;
}

std::string first_unknown_option(const CLI::App &app)
{
    for (const std::string &r : app.remaining())
        if (r.size() > 1 && r[0] == '-' && r != "--") return r.substr(0, r.find('='));
    return "";
}

std::string parse_error(const CLI::App &app, const CLI::Error *e, const std::vector<std::string> &argv,
                        const std::string &hint, const std::vector<std::string> &also)
{
    const std::string u = first_unknown_option(app);
    if (!u.empty()) {
        std::vector<std::string> known = option_names(app);
        known.insert(known.end(), also.begin(), also.end());
        return "unknown option '" + u + "'" + did_you_mean(u, known) + hint;
    }
    if (!e) return "";
    if (e->get_name() == "ArgumentMismatch") {
        // A flag given a value (--quiet=1), or an option at the end of the line without its value.
        for (const std::string &a : argv) {
            const size_t eq = a.find('=');
            if (a.size() < 2 || a[0] != '-' || eq == std::string::npos) continue;
            const CLI::Option *o = app.get_option_no_throw(a.substr(0, eq));
            if (o && o->get_expected_max() == 0)
                return "option " + a.substr(0, eq) + " takes no value (got '" + a + "')";
        }
        if (!argv.empty() && argv.back().size() > 1 && argv.back()[0] == '-')
            return "option " + argv.back() + " needs a value";
    }
    return e->what();
}

} // namespace persim
