// Teaches ThreadSanitizer the one synchronisation it cannot see: Synchronization.Mutex's
// contended path on Linux, the FUTEX_LOCK_PI / FUTEX_UNLOCK_PI system calls made from
// libswiftSynchronization.so (not instrumented), where the kernel hands the lock from one
// thread to the next. Without this, two accesses made under the same contended Mutex are
// reported as a race. The uncontended path is atomics inlined into the instrumented code,
// which ThreadSanitizer already sees.
//
// Preloaded (LD_PRELOAD) into the instrumented test binary by .ci/run's ThreadSanitizer step:
// `syscall` is wrapped; a PI futex unlock first releases, a successful PI futex lock then
// acquires, the futex word's address (the same address the inlined atomics use). Every
// other system call goes through untouched. Nothing else is suppressed.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <linux/futex.h>
#include <stdarg.h>
#include <sys/syscall.h>

typedef long (*syscall_function)(long, ...);
typedef void (*annotation)(void *);

static syscall_function real_syscall;
static annotation tsan_acquire;
static annotation tsan_release;

static void resolve(void) {
    if (real_syscall) return;
    tsan_acquire = (annotation)dlsym(RTLD_DEFAULT, "__tsan_acquire");
    tsan_release = (annotation)dlsym(RTLD_DEFAULT, "__tsan_release");
    real_syscall = (syscall_function)dlsym(RTLD_NEXT, "syscall");
}

__attribute__((constructor)) static void initialise(void) { resolve(); }

long syscall(long number, ...) {
    resolve();
    // Six arguments, as glibc's own syscall() reads them; extra ones are ignored by the kernel.
    va_list list;
    va_start(list, number);
    long a = va_arg(list, long), b = va_arg(list, long), c = va_arg(list, long);
    long d = va_arg(list, long), e = va_arg(list, long), f = va_arg(list, long);
    va_end(list);
    if (number != SYS_futex || !tsan_acquire || !tsan_release) return real_syscall(number, a, b, c, d, e, f);
    void *word = (void *)a;
    int operation = (int)b & FUTEX_CMD_MASK;
    if (operation == FUTEX_UNLOCK_PI) tsan_release(word);
    long result = real_syscall(number, a, b, c, d, e, f);
    if (result == 0 && (operation == FUTEX_LOCK_PI || operation == FUTEX_LOCK_PI2 || operation == FUTEX_TRYLOCK_PI)) {
        tsan_acquire(word);
    }
    return result;
}
