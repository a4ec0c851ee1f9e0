// A persistency model's settings of its memory controllers' front end, as typed values, not keys
// written into the config: the front end it runs with and, per config struct of that front end, a
// function that adjusts what the front end read from the config. A front end applies the tuning
// to each struct it fills (McPort::config().tuning), after its typed table (config_table.h):
//
//     const CpuModel kCpuBroiEpoch{..., FrontEndTuning("broi").on<broi_sched_cfg>(merge_epochs)};
//     // in the front end:  broi_sched_table().fill(c, bc); tuning.apply(bc);
#pragma once
#include <functional>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

namespace persim {

class FrontEndTuning {
public:
    FrontEndTuning() = default;
    explicit FrontEndTuning(std::string front_end) : front_end_(std::move(front_end)) {}
    // After the front end filled a Cfg from the config: f adjusts it.
    template <class Cfg>
    FrontEndTuning &&on(void (*f)(Cfg &)) &&
    {
        fns_.push_back(Fn{&typeid(Cfg), [f](void *p) { f(*static_cast<Cfg *>(p)); }});
        return std::move(*this);
    }
    template <class Cfg>
    void apply(Cfg &c) const
    {
        for (const Fn &e : fns_)
            if (*e.type == typeid(Cfg)) e.fn(&c);
    }
    // The front end the model runs with ("": nvm.front_end of the configuration).
    const std::string &front_end() const { return front_end_; }

private:
    struct Fn {
        const std::type_info *type;
        std::function<void(void *)> fn;
    };
    std::string front_end_;
    std::vector<Fn> fns_;
};

} // namespace persim
