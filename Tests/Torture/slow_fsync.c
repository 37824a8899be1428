// LD_PRELOAD shim that makes fsync(2) and fdatasync(2) slow: a disk that stalls.
//
// Built by build_slow_fsync in IntegrationTests/harness.sh (`cc -shared -fPIC`) for the torture
// cases; not part of the package.
// Environment:
//   SLOW_FSYNC_SECONDS  how long each call sleeps before the real one (default 20);
//   SLOW_FSYNC_UNTIL    a file: while it exists calls are slow; once it is removed they are
//                       fast again ("the disk recovers"). Unset: always slow.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static void stall(void) {
    const char *until = getenv("SLOW_FSYNC_UNTIL");
    if (until != NULL && access(until, F_OK) != 0) return;
    const char *text = getenv("SLOW_FSYNC_SECONDS");
    double seconds = text != NULL ? atof(text) : 20.0;
    if (!(seconds > 0)) return;
    struct timespec delay = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&delay, &delay) != 0) {}
}

int fsync(int fd) {
    static int (*real)(int);
    if (real == NULL) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    stall();
    return real(fd);
}

int fdatasync(int fd) {
    static int (*real)(int);
    if (real == NULL) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    stall();
    return real(fd);
}
