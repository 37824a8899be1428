/* seccomp-exec: runs a command under a seccomp filter, the way systemd applies a unit's
 * SystemCallFilter= (used by scripts/check-seccomp.sh).
 *
 *   seccomp-exec allow|deny kill|errno:N LIST-FILE -- COMMAND [ARG...]
 *
 * allow: every system call named in LIST-FILE (one a line) is allowed, all others take the
 * action; deny: the named calls take the action, all others are allowed. The action is
 * kill (the whole process, SIGSYS, as systemd's default) or errno:N (the call fails with N,
 * as SystemCallErrorNumber=). Names the local libseccomp does not know are skipped, as
 * systemd skips them. Sets no_new_privs (libseccomp's default), so no root is needed. */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(void) {
    fprintf(stderr, "usage: seccomp-exec allow|deny kill|errno:N LIST-FILE -- COMMAND [ARG...]\n");
    exit(64);
}

int main(int argc, char **argv) {
    if (argc < 6 || strcmp(argv[4], "--") != 0) usage();
    int allow;
    if (strcmp(argv[1], "allow") == 0) allow = 1;
    else if (strcmp(argv[1], "deny") == 0) allow = 0;
    else usage();
    uint32_t action;
    if (strcmp(argv[2], "kill") == 0) action = SCMP_ACT_KILL_PROCESS;
    else if (strncmp(argv[2], "errno:", 6) == 0) action = SCMP_ACT_ERRNO((uint16_t)atoi(argv[2] + 6));
    else usage();

    scmp_filter_ctx ctx = seccomp_init(allow ? action : SCMP_ACT_ALLOW);
    if (ctx == NULL) { fprintf(stderr, "seccomp-exec: seccomp_init failed\n"); return 70; }
    FILE *list = fopen(argv[3], "r");
    if (list == NULL) { fprintf(stderr, "seccomp-exec: cannot open %s: %s\n", argv[3], strerror(errno)); return 66; }
    char line[256];
    int rules = 0, unknown = 0;
    while (fgets(line, sizeof line, list) != NULL) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '\0') continue;
        int number = seccomp_syscall_resolve_name(line);
        if (number == __NR_SCMP_ERROR) { unknown++; continue; }
        int rc = seccomp_rule_add(ctx, allow ? SCMP_ACT_ALLOW : action, number, 0);
        if (rc < 0 && rc != -EEXIST) {
            fprintf(stderr, "seccomp-exec: rule for %s: %s\n", line, strerror(-rc));
            return 70;
        }
        rules++;
    }
    fclose(list);
    int rc = seccomp_load(ctx);
    if (rc < 0) { fprintf(stderr, "seccomp-exec: seccomp_load: %s\n", strerror(-rc)); return 70; }
    seccomp_release(ctx);
    if (getenv("SECCOMP_EXEC_VERBOSE") != NULL)
        fprintf(stderr, "seccomp-exec: %s list, %d rules, %d names unknown here\n", argv[1], rules, unknown);
    execvp(argv[5], argv + 5);
    fprintf(stderr, "seccomp-exec: cannot run %s: %s\n", argv[5], strerror(errno));
    return 127;
}
