// A time-ordered queue of items, each due at a time in picoseconds: the event queues of the
// SystemC wrappers (a controller's wake-ups and messages, the NVW-FIFO's acknowledgements, a CPU
// core's persist path and buffer acknowledgements, a cache's write-back acknowledgements).
// Among items due at the same time the order is fixed, so a run is deterministic: push order, or
// with push(item, at, order) the caller's order key (e.g. an issue sequence number), smallest
// first. A queue uses one of the two pushes, not both. No SystemC: the caller owns time and events.
#pragma once
#include <cstdint>
#include <queue>
#include <utility>
#include <vector>

namespace persim {

template <class T>
class TimedQueue {
public:
    // Due at `at`; after every item already queued for the same time.
    void push(const T &item, uint64_t at) { q_.push(Entry{at, seq_++, item}); }
    // Due at `at`; among items due at the same time, by `order` (smallest first).
    void push(const T &item, uint64_t at, uint64_t order) { q_.push(Entry{at, order, item}); }
    bool empty() const { return q_.empty(); }
    size_t size() const { return q_.size(); }
    // The time of the next item (the queue must not be empty).
    uint64_t next_at() const { return q_.top().at; }
    // Removes the items due at or before `now` one at a time, in order, and calls f(item) on each;
    // an item f pushes that is due by `now` is handled in the same call, in its place.
    template <class F>
    void pop_due(uint64_t now, F &&f)
    {
        while (!q_.empty() && q_.top().at <= now) {
            T item = q_.top().item;
            q_.pop();
            f(item);
        }
    }
    void clear() { q_ = {}; }

private:
    struct Entry {
        uint64_t at, order;
        T item;
    };
    struct Later {
        bool operator()(const Entry &a, const Entry &b) const { return a.at != b.at ? a.at > b.at : a.order > b.order; }
    };
    std::priority_queue<Entry, std::vector<Entry>, Later> q_;
    uint64_t seq_ = 0;
};

} // namespace persim
