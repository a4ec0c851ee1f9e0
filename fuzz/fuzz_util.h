// Shared by the fuzz harnesses (fuzz/CMakeLists.txt): the input as a file, since persim's readers
// take paths (an anonymous memfd: no disk, no clean-up; its path is /proc/self/fd/N).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace persim_fuzz {

class MemFile {
public:
    MemFile(const uint8_t *data, size_t size);
    ~MemFile();
    MemFile(const MemFile &) = delete;
    MemFile &operator=(const MemFile &) = delete;
    const std::string &path() const { return path_; }
private:
    int fd_ = -1;
    std::string path_;
};

} // namespace persim_fuzz
