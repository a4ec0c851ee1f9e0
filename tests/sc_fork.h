// SystemC elaborates once per process: a test that needs a second simulation runs it in a forked
// child and gets back a trivially copyable result through a pipe.
#pragma once
#include <functional>
#include <type_traits>
#include <sys/wait.h>
#include <unistd.h>

// Runs `fn` in a child process and returns its result; `failed` if the child could not deliver one
// (fn threw, crashed, or fork/pipe failed).
template <class T>
T run_in_child(const std::function<T()> &fn, const T &failed)
{
    static_assert(std::is_trivially_copyable<T>::value, "the result crosses a pipe");
    T f = failed;
    int fd[2];
    if (pipe(fd) != 0) return f;
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        T c = failed;
        try {
            c = fn();
        } catch (...) {
            c = failed;
        }
        ssize_t n = write(fd[1], &c, sizeof c);
        _exit(n == (ssize_t)sizeof c ? 0 : 1);
    }
    close(fd[1]);
    if (pid > 0) {
        size_t got = 0;
        char *p = reinterpret_cast<char *>(&f);
        ssize_t n;
        while (got < sizeof f && (n = read(fd[0], p + got, sizeof f - got)) > 0) got += (size_t)n;
        if (got != sizeof f) f = failed;
        int st = 0;
        waitpid(pid, &st, 0);
    }
    close(fd[0]);
    return f;
}
