#include "stats.h"

namespace persim {
using nlohmann::json;

void StatsWriter::add(const std::string &group, const std::string &name, double value,
                      const std::string &unit, const std::string &desc)
{
    json e = {{"value", value}, {"unit", unit}, {"desc", desc}};
    if (value == (double)(int64_t)value && value < 9e15 && value > -9e15) e["value"] = (int64_t)value;
    j_[group][name] = e;
}

void StatsWriter::add_hist(const std::string &group, const std::string &name, const std::vector<double> &bins,
                           const std::vector<std::string> &labels, const std::string &unit, const std::string &desc)
{
    json b = json::object();
    for (size_t i = 0; i < bins.size(); ++i) b[i < labels.size() ? labels[i] : std::to_string(i)] = bins[i];
    j_[group][name] = {{"value", b}, {"unit", unit}, {"desc", desc}};
}

double StatsWriter::sum(const std::string &prefix, const std::string &suffix, const std::string &name) const
{
    double s = 0;
    for (auto it = j_.begin(); it != j_.end(); ++it) {
        const std::string &g = it.key();
        if (g.compare(0, prefix.size(), prefix) != 0) continue;
        if (g.size() < suffix.size() || g.compare(g.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
        auto f = it.value().find(name);
        if (f != it.value().end() && (*f)["value"].is_number()) s += (*f)["value"].get<double>();
    }
    return s;
}

double StatsWriter::get(const std::string &group, const std::string &name, double dflt) const
{
    auto g = j_.find(group);
    if (g == j_.end()) return dflt;
    auto f = g->find(name);
    if (f == g->end() || !(*f)["value"].is_number()) return dflt;
    return (*f)["value"].get<double>();
}

} // namespace persim
