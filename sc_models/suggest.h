// "Did you mean ...?" for names typed on the command line or in a config: the candidate closest by
// edit distance (optimal string alignment), if it is close enough to be the
// likely intent (distance at most a third of the name, at least 1, or the name is a prefix of it).
#pragma once
#include <algorithm>
#include <string>
#include <vector>

namespace persim {

// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
// adjacent characters ("rnu" is one edit from "run") each cost 1.
inline size_t edit_distance(const std::string &a, const std::string &b)
{
    std::vector<size_t> pp(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) cur[j] = std::min(cur[j], pp[j - 2] + 1);
        }
        pp.swap(prev);
        prev.swap(cur);
    }
    return prev[b.size()];
}

// " (did you mean 'X'?)" or "" when no candidate is close.
inline std::string did_you_mean(const std::string &name, const std::vector<std::string> &candidates)
{
    std::string best;
    size_t bd = (size_t)-1;
    for (const auto &c : candidates) {
        size_t d = edit_distance(name, c);
        if (!name.empty() && c.compare(0, name.size(), name) == 0) d = std::min<size_t>(d, 1);   // a prefix
        if (d < bd) {
            bd = d;
            best = c;
        }
    }
    const size_t limit = std::max<size_t>(1, name.size() / 3);
    return !best.empty() && bd <= limit && best != name ? " (did you mean '" + best + "'?)" : "";
}

} // namespace persim
