/*
 * Runs one command for bench/bench.sh and appends "WALL_US MAXRSS_KB STATUS" to a file:
 * `runstat OUT-FILE COMMAND [ARG...]`. The child gets its own session (no controlling terminal,
 * as scripts run fingerlock) and inherits stdin/stdout/stderr. Wall time is taken around fork and
 * wait4 with CLOCK_MONOTONIC, and the peak RSS is the child's own from wait4's rusage, so no
 * extra process (time(1), a shell) is counted in either.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: runstat OUT-FILE COMMAND [ARG...]\n");
        return 64;
    }
    FILE *out = fopen(argv[1], "a");
    if (out == NULL) { perror("runstat"); return 2; }
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    pid_t child = fork();
    if (child < 0) { perror("runstat: fork"); return 2; }
    if (child == 0) {
        setsid();
        execvp(argv[2], argv + 2);
        perror("runstat: exec");
        _exit(127);
    }
    int status = 0;
    struct rusage usage;
    if (wait4(child, &status, 0, &usage) < 0) { perror("runstat: wait4"); return 2; }
    clock_gettime(CLOCK_MONOTONIC, &end);
    long long micros = (end.tv_sec - start.tv_sec) * 1000000LL + (end.tv_nsec - start.tv_nsec) / 1000;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    fprintf(out, "%lld %ld %d\n", micros, usage.ru_maxrss, code);
    fclose(out);
    return code;
}
