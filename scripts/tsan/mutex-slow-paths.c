// Teaches ThreadSanitizer the one synchronisation it cannot see: Synchronization.Mutex's slow
// paths on Linux. `Mutex.withLock` is inlined into the instrumented code, whose fast path (one
// compare-and-swap to lock, one to unlock) ThreadSanitizer sees. When the lock is contended the
// inlined code calls `_MutexHandle._lockSlow`, `_tryLockSlow` or `_unlockSlow` in
// libswiftSynchronization.so, which is not instrumented: it spins on the lock word with its own
// compare-and-swap, then hands the lock over through the FUTEX_LOCK_PI / FUTEX_UNLOCK_PI system
// calls. ThreadSanitizer sees neither, so two accesses made under the same contended Mutex are
// reported as a race.
//
// Preloaded (LD_PRELOAD) into the instrumented test binaries by .ci/run's ThreadSanitizer step,
// this file defines those three functions (Swift's calling convention: the lock in the `self`
// register) and forwards to the library's own, adding exactly what they do: an acquire of the
// lock word after `_lockSlow` (and a successful `_tryLockSlow`), a release before
// `_unlockSlow`. Nothing else is wrapped or suppressed. In a process without ThreadSanitizer
// the annotations are absent and the wrappers only forward. Built with clang (the `swiftcall`
// convention), the Swift toolchain's own.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#define SWIFTCALL __attribute__((swiftcall))
#define SWIFT_SELF __attribute__((swift_context))

typedef SWIFTCALL void (*lock_slow_function)(uint32_t, void *SWIFT_SELF);
typedef SWIFTCALL bool (*try_lock_slow_function)(void *SWIFT_SELF);
typedef SWIFTCALL void (*unlock_slow_function)(void *SWIFT_SELF);
typedef void (*annotation)(void *);

static lock_slow_function real_lock_slow;
static try_lock_slow_function real_try_lock_slow;
static unlock_slow_function real_unlock_slow;
static annotation tsan_acquire;
static annotation tsan_release;

#define LOCK_SLOW "$s15Synchronization12_MutexHandleV9_lockSlowyys6UInt32VF"
#define TRY_LOCK_SLOW "$s15Synchronization12_MutexHandleV12_tryLockSlowSbyF"
#define UNLOCK_SLOW "$s15Synchronization12_MutexHandleV11_unlockSlowyyF"

// Resolved at the first call: only a program using libswiftSynchronization calls these (the
// preload also lands in every other program the tests start, which never does).
static void resolve(void) {
    if (real_unlock_slow) return;
    tsan_acquire = (annotation)dlsym(RTLD_DEFAULT, "__tsan_acquire");
    tsan_release = (annotation)dlsym(RTLD_DEFAULT, "__tsan_release");
    real_lock_slow = (lock_slow_function)dlsym(RTLD_NEXT, LOCK_SLOW);
    real_try_lock_slow = (try_lock_slow_function)dlsym(RTLD_NEXT, TRY_LOCK_SLOW);
    real_unlock_slow = (unlock_slow_function)dlsym(RTLD_NEXT, UNLOCK_SLOW);
    if (!real_lock_slow || !real_try_lock_slow || !real_unlock_slow) abort(); // a toolchain that renamed them
}

SWIFTCALL void lock_slow(uint32_t value, void *SWIFT_SELF lock) __asm__(LOCK_SLOW);
SWIFTCALL void lock_slow(uint32_t value, void *SWIFT_SELF lock) {
    resolve();
    real_lock_slow(value, lock);
    if (tsan_acquire) tsan_acquire(lock);
}

SWIFTCALL bool try_lock_slow(void *SWIFT_SELF lock) __asm__(TRY_LOCK_SLOW);
SWIFTCALL bool try_lock_slow(void *SWIFT_SELF lock) {
    resolve();
    bool locked = real_try_lock_slow(lock);
    if (locked && tsan_acquire) tsan_acquire(lock);
    return locked;
}

SWIFTCALL void unlock_slow(void *SWIFT_SELF lock) __asm__(UNLOCK_SLOW);
SWIFTCALL void unlock_slow(void *SWIFT_SELF lock) {
    resolve();
    if (tsan_release) tsan_release(lock);
    real_unlock_slow(lock);
}
