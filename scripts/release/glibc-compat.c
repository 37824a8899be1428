// Linked into release binaries built for an older glibc (scripts/release/linker/clang): the
// definitions that the build host's static libstdc++ and libgcc_eh take from a newer glibc than
// the one the release targets. Hidden, so they never stand in for the host glibc's own in another object.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <dlfcn.h>
#include <link.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

// glibc 2.32 (libstdc++). It reads it to skip atomic reference counting while a process has one
// thread; 0 ("perhaps several threads") is always correct and only forgoes that shortcut.
__attribute__((visibility("hidden"))) char __libc_single_threaded = 0;

// glibc 2.36 (libstdc++). std::random_device's default source: the kernel's getrandom (Linux 3.17), else
// /dev/urandom; a process that can read neither has no randomness to give and stops.
__attribute__((visibility("hidden"))) uint32_t arc4random(void) {
    uint32_t value = 0;
    for (;;) {
        long count = syscall(SYS_getrandom, &value, sizeof value, 0);
        if (count == (long)sizeof value) return value;
        if (count < 0 && errno == EINTR) continue;
        break;
    }
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t count;
        do count = read(fd, &value, sizeof value); while (count < 0 && errno == EINTR);
        close(fd);
        if (count == (ssize_t)sizeof value) return value;
    }
    abort();
}

// glibc 2.35 (libgcc_eh). The static unwinder finds a program counter's .eh_frame_hdr with it;
// this does the same through dl_iterate_phdr, as libgcc did before 2.35 (struct dl_find_object
// from zig's glibc headers; no dlfo_eh_dbase on x86_64 or aarch64).
struct find_object_search {
    uintptr_t pc;
    struct dl_find_object *result;
};

static int find_object_in(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct find_object_search *search = data;
    uintptr_t low = UINTPTR_MAX, high = 0;
    int contains = 0;
    void *eh_frame = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[i];
        uintptr_t start = info->dlpi_addr + header->p_vaddr;
        if (header->p_type == PT_LOAD) {
            if (start < low) low = start;
            if (start + header->p_memsz > high) high = start + header->p_memsz;
            if (search->pc >= start && search->pc < start + header->p_memsz) contains = 1;
        } else if (header->p_type == PT_GNU_EH_FRAME) {
            eh_frame = (void *)start;
        }
    }
    if (!contains) return 0;
    memset(search->result, 0, sizeof *search->result);
    search->result->dlfo_map_start = (void *)low;
    search->result->dlfo_map_end = (void *)high;
    search->result->dlfo_link_map = NULL;
    search->result->dlfo_eh_frame = eh_frame;
    return 1;
}

__attribute__((visibility("hidden"))) int _dl_find_object(void *pc, struct dl_find_object *result) {
    struct find_object_search search = {(uintptr_t)pc, result};
    return dl_iterate_phdr(find_object_in, &search) == 1 ? 0 : -1;
}

// What an aarch64 build takes from glibc 2.38 (Debian trixie's 2.41 headers: the C library
// itself, libstdc++, and Debian's static Swift runtime and libdispatch are compiled against them;
// scripts/release/build-arm64.sh). With _GNU_SOURCE those headers send strtol and sscanf to
// their C23 versions, which differ only in also reading 0b binary prefixes: here they are the
// C99 functions every glibc since 2.17 has. Each is reached through an assembler name, so no
// header's redirection of the name can turn it back into the C23 symbol.
extern long compat_strtol(const char *, char **, int) __asm__("strtol");
extern unsigned long compat_strtoul(const char *, char **, int) __asm__("strtoul");
extern long long compat_strtoll(const char *, char **, int) __asm__("strtoll");
extern unsigned long long compat_strtoull(const char *, char **, int) __asm__("strtoull");
extern int compat_vsscanf(const char *, const char *, va_list) __asm__("__isoc99_vsscanf");

__attribute__((visibility("hidden"))) long isoc23_strtol(const char *text, char **end, int base)
    __asm__("__isoc23_strtol");
long isoc23_strtol(const char *text, char **end, int base) { return compat_strtol(text, end, base); }

__attribute__((visibility("hidden"))) unsigned long isoc23_strtoul(const char *text, char **end, int base)
    __asm__("__isoc23_strtoul");
unsigned long isoc23_strtoul(const char *text, char **end, int base) { return compat_strtoul(text, end, base); }

__attribute__((visibility("hidden"))) long long isoc23_strtoll(const char *text, char **end, int base)
    __asm__("__isoc23_strtoll");
long long isoc23_strtoll(const char *text, char **end, int base) { return compat_strtoll(text, end, base); }

__attribute__((visibility("hidden"))) unsigned long long isoc23_strtoull(const char *text, char **end, int base)
    __asm__("__isoc23_strtoull");
unsigned long long isoc23_strtoull(const char *text, char **end, int base) { return compat_strtoull(text, end, base); }

__attribute__((visibility("hidden"))) int isoc23_sscanf(const char *text, const char *format, ...)
    __asm__("__isoc23_sscanf");
int isoc23_sscanf(const char *text, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    int count = compat_vsscanf(text, format, arguments);
    va_end(arguments);
    return count;
}

// glibc 2.38 (libdispatch): BSD strlcpy, copying at most size - 1 bytes and always terminating;
// returns the length of source. Weak: a libdispatch built for an older glibc (the x86_64 build's)
// brings its own, which then wins.
__attribute__((weak, visibility("hidden"))) size_t compat_strlcpy(char *destination, const char *source, size_t size)
    __asm__("strlcpy");
size_t compat_strlcpy(char *destination, const char *source, size_t size) {
    size_t length = strlen(source);
    if (size > 0) {
        size_t count = length < size - 1 ? length : size - 1;
        memcpy(destination, source, count);
        destination[count] = '\0';
    }
    return length;
}
