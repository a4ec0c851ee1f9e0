// trace_parse_check FILE: reads a persim trace with persim's reader (trace_read_file, which also
// runs prog_validate) and runs it with the functional executor; prints the op counts. Exit 0, or 1
// with the reader's/executor's message. Used by the scripts.lackey2trace test
// (scripts/test_lackey2trace.py) to check that converted lackey recordings are valid traces.
#include <cstdio>

#include "func_exec.h"
#include "trace.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: trace_parse_check FILE\n");
        return 2;
    }
    trace_data t{};
    char err[1024] = "";
    if (trace_read_file(argv[1], &t, err, sizeof err) != 0) {
        std::fprintf(stderr, "trace_parse_check: %s\n", err);
        return 1;
    }
    unsigned long long n[OPK__COUNT] = { 0 };
    for (uint64_t i = 0; i < t.prog->nops; i++) n[t.prog->ops[i].kind]++;
    int rc = func_exec(t.prog, t.init, 0, err, sizeof err);
    if (rc != 0) std::fprintf(stderr, "trace_parse_check: func_exec: %s\n", err);
    else
        std::printf("kernels %u streams %llu ops %llu ld %llu st %llu compute %llu mark %llu\n", t.prog->nkernels,
                    (unsigned long long)t.prog->nstreams, (unsigned long long)t.prog->nops, n[OPK_LD], n[OPK_ST],
                    n[OPK_COMPUTE], n[OPK_MARK]);
    trace_data_free(&t);
    return rc ? 1 : 0;
}
