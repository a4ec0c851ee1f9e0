// The corpus replay of a harness (ctest fuzz.corpus_T): feeds every file of the directories (or
// files) given to LLVMFuzzerTestOneInput, as libFuzzer would, without libFuzzer, so that any
// compiler's sanitizer build (make test SAN=1) runs it. A crash or sanitizer report ends the
// process; no input at all is an error (the test must not pass when nothing ran).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
    namespace fs = std::filesystem;
    std::vector<fs::path> files;
    for (int i = 1; i < argc; ++i) {
        if (fs::is_directory(argv[i])) {
            for (const auto &e : fs::recursive_directory_iterator(argv[i]))
                if (e.is_regular_file()) files.push_back(e.path());
        } else {
            files.emplace_back(argv[i]);
        }
    }
    std::sort(files.begin(), files.end());
    if (files.empty()) {
        std::fprintf(stderr, "replay: no input files in the arguments\n");
        return 1;
    }
    for (const auto &f : files) {
        std::ifstream in(f, std::ios::binary);
        if (!in) {
            std::fprintf(stderr, "replay: cannot read %s\n", f.c_str());
            return 1;
        }
        std::vector<uint8_t> buf((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::fprintf(stderr, "replay: %s (%zu bytes)\n", f.c_str(), buf.size());
        LLVMFuzzerTestOneInput(buf.data(), buf.size());
    }
    std::fprintf(stderr, "replay: %zu inputs, no crash\n", files.size());
    return 0;
}
