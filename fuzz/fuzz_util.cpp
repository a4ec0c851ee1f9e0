#include "fuzz_util.h"

#include <cstdio>
#include <cstdlib>
#include <sys/mman.h>
#include <unistd.h>

// persim_cli links SystemC, whose library has a main() that calls sc_main; the harnesses have their
// own main (libFuzzer's or replay_main.cpp) and never start a simulation.
extern "C" int sc_main(int, char **) { return 0; }

namespace persim_fuzz {

MemFile::MemFile(const uint8_t *data, size_t size)
{
    fd_ = memfd_create("fuzz-input", 0);
    if (fd_ < 0) { std::perror("memfd_create"); std::abort(); }
    for (size_t off = 0; off < size;) {
        ssize_t n = write(fd_, data + off, size - off);
        if (n <= 0) { std::perror("write memfd"); std::abort(); }
        off += (size_t)n;
    }
    path_ = "/proc/self/fd/" + std::to_string(fd_);
}

MemFile::~MemFile() { close(fd_); }

} // namespace persim_fuzz
