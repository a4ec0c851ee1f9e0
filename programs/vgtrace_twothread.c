/* The persim-vgtrace test program (tests/vgtrace_test.cpp): two threads increment a shared PM
 * counter under a pthread mutex, each writes its own PM words, then writes a done word, writes it
 * back with clwb and fences with sfence. The PM region is announced to the tool with
 * PT_PM_RANGE and the threads' run is the recorded window (PT_START/PT_STOP, tool option
 * --start=request); the mutex lives outside it (volatile), so only its atomics are recorded.
 *   usage: vgtrace_twothread [N]     N increments per thread (default 16)
 * What the test checks against this code:
 *  - pm.counter takes the values 1..2N, each stored once, ascending in file order;
 *  - thread w (1 or 2) stores pm.own[w-1][i % 8] = 0x1000 * w + i for i < N and then
 *    pm.done[w-1] = 0xD0 + w; that store is followed, in the same thread, by a clwb of its line
 *    and then by an sfence (-> `durable` in the trace). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "persimtrace.h"

static struct pm {
    uint64_t counter;
    uint64_t pad[7];
    uint64_t own[2][8];
    uint64_t done[2][8];      /* one line each */
} pm __attribute__((aligned(64)));

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int n_iter = 16;

static void *worker(void *arg)
{
    uint64_t w = (uint64_t)(uintptr_t)arg;
    for (int i = 0; i < n_iter; i++) {
        pthread_mutex_lock(&lock);
        pm.counter = pm.counter + 1;
        pthread_mutex_unlock(&lock);
        *(volatile uint64_t *)&pm.own[w - 1][i % 8] = 0x1000 * w + (uint64_t)i;
    }
    *(volatile uint64_t *)&pm.done[w - 1][0] = 0xD0 + w;
    PT_CLWB(&pm.done[w - 1][0]);
    __asm__ volatile("sfence" ::: "memory");
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1) n_iter = atoi(argv[1]);
    if (n_iter < 1) n_iter = 1;
    PT_PM_RANGE(&pm, sizeof pm);
    PT_START();   /* run the tool with --start=request */
    pthread_t t[2];
    for (uintptr_t w = 1; w <= 2; w++) pthread_create(&t[w - 1], NULL, worker, (void *)w);
    for (int w = 0; w < 2; w++) pthread_join(t[w], NULL);
    PT_STOP();
    printf("counter %llu\n", (unsigned long long)pm.counter);
    return pm.counter == 2u * (uint64_t)n_iter ? 0 : 1;
}
