// Front end `direct`: no write queue. A write is acknowledged when the device completes it (the
// GDDR controller; an NVM controller with nvm.wpq_entries = 0, durable at the device).
#include "write_queue.h"

namespace persim {
namespace {

class DirectFe : public WriteQueue {
public:
    explicit DirectFe(McPort &p) : port_(p) {}
    uint64_t write(uint64_t t, const McWrite &w) override { return port_.device_write(t, w.addr, w.bytes); }
    bool read(uint64_t, uint64_t, uint64_t *) override { return false; }
    void report(StatsWriter &, const std::string &, uint64_t) const override {}

private:
    McPort &port_;
};

std::unique_ptr<WriteQueue> make(const Config &, McPort &p) { return std::make_unique<DirectFe>(p); }

} // namespace

const WriteQueueKind kDirectFe{"direct", "no queue: acknowledged when the device write completes", make};
PERSIM_REGISTER(WriteQueueKind, "direct", kDirectFe, 10);

} // namespace persim
