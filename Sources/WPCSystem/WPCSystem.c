#define _GNU_SOURCE
#include "WPCSystem.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int cs_bind_socket(const char *host, int port, int type, int backlog, int flags) {
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = type;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    char service[16];
    snprintf(service, sizeof service, "%d", port);
    struct addrinfo *result = NULL;
    int gai = getaddrinfo(host, service, &hints, &result);
    if (gai != 0) return -(100000 + (gai < 0 ? -gai : gai));
    int last_error = EADDRNOTAVAIL;
    for (struct addrinfo *ai = result; ai != NULL; ai = ai->ai_next) {
        int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) { last_error = errno; continue; }
        // TCP: a restart can bind while old connections sit in TIME_WAIT. Never for UDP,
        // where SO_REUSEADDR lets a second socket share the port silently.
        int one = 1;
        if (type == SOCK_STREAM && !(flags & CS_EXCLUSIVE)) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (flags & CS_SHARE_PORT) setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
        if (type == SOCK_DGRAM) {
            // Room for bursts (the kernel caps it at net.core.rmem_max), and the count of
            // datagrams the kernel dropped for want of it with each datagram read.
            int bytes = CS_DATAGRAM_RECEIVE_BUFFER;
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes);
#ifdef SO_RXQ_OVFL
            setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof one);
#endif
        }
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0
            && (type != SOCK_STREAM || (flags & CS_BIND_ONLY) || listen(fd, backlog) == 0)) {
            freeaddrinfo(result);
            return fd;
        }
        last_error = errno;
        close(fd);
    }
    freeaddrinfo(result);
    return -last_error;
}

int cs_listen(const char *host, int port, int backlog) {
    return cs_bind_socket(host, port, SOCK_STREAM, backlog, 0);
}

const char *cs_listen_error(int code) {
    if (code <= -100000) return gai_strerror(-(-code - 100000));
    return strerror(-code);
}

static void format_address(const struct sockaddr_storage *ss, char *host, size_t host_len, int *port) {
    if (ss->ss_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
        inet_ntop(AF_INET6, &a->sin6_addr, host, (socklen_t)host_len);
        *port = ntohs(a->sin6_port);
    } else if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
        inet_ntop(AF_INET, &a->sin_addr, host, (socklen_t)host_len);
        *port = ntohs(a->sin_port);
    } else {
        if (host_len > 0) host[0] = 0;
        *port = 0;
    }
}

/// "ip:port", or "[ip6]:port".
static void format_peer(const struct sockaddr_storage *ss, char *peer, size_t peer_len) {
    char host[INET6_ADDRSTRLEN];
    int port = 0;
    format_address(ss, host, sizeof host, &port);
    if (ss->ss_family == AF_INET6) snprintf(peer, peer_len, "[%s]:%d", host, port);
    else snprintf(peer, peer_len, "%s:%d", host, port);
}

long cs_recv_datagram(int fd, void *buffer, size_t length, cs_peer *peer, char *text, size_t text_len,
                      long long *kernel_drops) {
    for (;;) {
        struct iovec vector = {buffer, length};
        union {
            char bytes[CMSG_SPACE(sizeof(uint32_t))];
            struct cmsghdr align;
        } control;
        struct msghdr message;
        memset(&message, 0, sizeof message);
        message.msg_name = &peer->address;
        message.msg_namelen = sizeof peer->address;
        message.msg_iov = &vector;
        message.msg_iovlen = 1;
        message.msg_control = control.bytes;
        message.msg_controllen = sizeof control.bytes;
        ssize_t n = recvmsg(fd, &message, MSG_DONTWAIT | MSG_TRUNC);
        if (n < 0) {
            if (errno == EINTR) continue;
            return -errno;
        }
        peer->length = message.msg_namelen;
#ifdef SO_RXQ_OVFL
        for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header != NULL; header = CMSG_NXTHDR(&message, header)) {
            if (header->cmsg_level == SOL_SOCKET && header->cmsg_type == SO_RXQ_OVFL && kernel_drops != NULL) {
                uint32_t drops;
                memcpy(&drops, CMSG_DATA(header), sizeof drops);
                *kernel_drops = (long long)drops;
            }
        }
#endif
        format_peer(&peer->address, text, text_len);
        return (long)n;
    }
}

int cs_receive_buffer(int fd) {
    int bytes = 0;
    socklen_t size = sizeof bytes;
    return getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, &size) == 0 ? bytes : -errno;
}

long cs_send_datagram(int fd, const void *buffer, size_t length, const cs_peer *peer) {
    for (;;) {
        ssize_t n = sendto(fd, buffer, length, MSG_DONTWAIT | MSG_NOSIGNAL, (const struct sockaddr *)&peer->address,
                           peer->length);
        if (n < 0) {
            if (errno == EINTR) continue;
            return -errno;
        }
        return (long)n;
    }
}

int cs_peer_parse(const char *host, int port, cs_peer *peer) {
    if (port < 0 || port > 65535) return -1;
    memset(peer, 0, sizeof(*peer));
    struct sockaddr_in *v4 = (struct sockaddr_in *)&peer->address;
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((unsigned short)port);
        peer->length = sizeof(struct sockaddr_in);
        return 0;
    }
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&peer->address;
    if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((unsigned short)port);
        peer->length = sizeof(struct sockaddr_in6);
        return 0;
    }
    return -1;
}

int cs_local_address(int fd, char *host, size_t host_len, int *port) {
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0) return -errno;
    format_address(&ss, host, host_len, port);
    return 0;
}

int cs_accept(int listen_fd, char *peer, size_t peer_len) {
    struct sockaddr_storage ss;
    for (;;) {
        socklen_t len = sizeof ss;
        int fd = accept4(listen_fd, (struct sockaddr *)&ss, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR) continue;
            return -errno;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        format_peer(&ss, peer, peer_len);
        return fd;
    }
}

int cs_epoll_create(void) {
    int fd = epoll_create1(EPOLL_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

int cs_epoll_add(int epfd, int fd, uint32_t events, uint64_t data) {
    struct epoll_event ev;
    memset(&ev, 0, sizeof ev);
    ev.events = events;
    ev.data.u64 = data;
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) == 0 ? 0 : -errno;
}

int cs_epoll_del(int epfd, int fd) {
    return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL) == 0 ? 0 : -errno;
}

int cs_epoll_wait(int epfd, cs_event *events, int max_events, int timeout_ms) {
    struct epoll_event raw[256];
    if (max_events > 256) max_events = 256;
    int n = epoll_wait(epfd, raw, max_events, timeout_ms);
    if (n < 0) return errno == EINTR ? 0 : -errno;
    for (int i = 0; i < n; i++) {
        events[i].events = raw[i].events;
        events[i].data = raw[i].data.u64;
    }
    return n;
}

int cs_eventfd(void) {
    int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

void cs_eventfd_signal(int fd) {
    uint64_t one = 1;
    while (write(fd, &one, sizeof one) < 0 && errno == EINTR) {}
}

void cs_eventfd_drain(int fd) {
    uint64_t value;
    while (read(fd, &value, sizeof value) < 0 && errno == EINTR) {}
}

ssize_t cs_recv(int fd, void *buffer, size_t length) {
    for (;;) {
        ssize_t n = recv(fd, buffer, length, 0);
        if (n >= 0) return n;
        if (errno != EINTR) return -errno;
    }
}

ssize_t cs_sendv(int fd, const void *const *bases, const size_t *lengths, int count) {
    struct iovec iov[1024];
    if (count < 0) return -EINVAL;
    if (count > 1024) count = 1024;
    int used = 0;
    for (int i = 0; i < count; i++) {
        if (lengths[i] == 0) continue;
        iov[used].iov_base = (void *)bases[i];
        iov[used].iov_len = lengths[i];
        used++;
    }
    if (used == 0) return 0;
    struct msghdr msg;
    memset(&msg, 0, sizeof msg);
    msg.msg_iov = iov;
    msg.msg_iovlen = (size_t)used;
    for (;;) {
        ssize_t n = sendmsg(fd, &msg, MSG_NOSIGNAL);
        if (n >= 0) return n;
        if (errno != EINTR) return -errno;
    }
}

ssize_t cs_send2(int fd, const void *a, size_t a_len, const void *b, size_t b_len) {
    const void *bases[2] = {a, b};
    const size_t lengths[2] = {a_len, b_len};
    return cs_sendv(fd, bases, lengths, 2);
}

int cs_shutdown_write(int fd) {
    return shutdown(fd, SHUT_WR) == 0 ? 0 : -errno;
}

int cs_close(int fd) {
    // Linux closes the descriptor even when close reports EINTR: never retry.
    return close(fd) == 0 ? 0 : -errno;
}

long cs_raise_nofile_limit(void) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return -errno;
    if (limit.rlim_cur < limit.rlim_max) {
        limit.rlim_cur = limit.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &limit) != 0) return -errno;
    }
    return (long)limit.rlim_cur;
}

long cs_nofile_limit(void) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return -errno;
    return limit.rlim_cur == RLIM_INFINITY ? (long)1 << 30 : (long)limit.rlim_cur;
}

int64_t cs_monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int cs_http_date(char *buffer, size_t length) {
    static const char *days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static const char *months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    return snprintf(buffer, length, "%s, %02d %s %04d %02d:%02d:%02d GMT", days[tm.tm_wday],
                    tm.tm_mday, months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

#include <dirent.h>
#include <stdlib.h>
#include <sys/time.h>

int cs_connect(const char *host, int port, int rcvbuf) {
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    char service[16];
    snprintf(service, sizeof service, "%d", port);
    struct addrinfo *result = NULL;
    int gai = getaddrinfo(host, service, &hints, &result);
    if (gai != 0) return -(100000 + (gai < 0 ? -gai : gai));
    int last_error = ECONNREFUSED;
    for (struct addrinfo *ai = result; ai != NULL; ai = ai->ai_next) {
        int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) { last_error = errno; continue; }
        struct timeval tv = {10, 0};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        if (rcvbuf > 0) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        int rc;
        do { rc = connect(fd, ai->ai_addr, ai->ai_addrlen); } while (rc != 0 && errno == EINTR);
        if (rc == 0) { freeaddrinfo(result); return fd; }
        last_error = errno;
        close(fd);
    }
    freeaddrinfo(result);
    return -last_error;
}

int cs_abort_close(int fd) {
    struct linger linger = {1, 0};
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, sizeof linger);
    return close(fd) == 0 ? 0 : -errno;
}

static int count_fds(int port) {
    DIR *dir = opendir("/proc/self/fd");
    if (dir == NULL) return -errno;
    int own = dirfd(dir);
    int count = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        if (entry->d_name[0] == '.') continue;
        int fd = atoi(entry->d_name);
        if (fd == own) continue;
        if (port < 0) { count++; continue; }
        struct sockaddr_storage ss;
        socklen_t len = sizeof ss;
        if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0) continue;
        char host[INET6_ADDRSTRLEN];
        int local = 0;
        format_address(&ss, host, sizeof host, &local);
        if ((ss.ss_family == AF_INET || ss.ss_family == AF_INET6) && local == port) count++;
    }
    closedir(dir);
    return count;
}

int cs_count_sockets_on_port(int port) { return count_fds(port); }
int cs_count_open_fds(void) { return count_fds(-1); }

int cs_pipe_cloexec(int ends[2]) {
    return pipe2(ends, O_CLOEXEC) == 0 ? 0 : errno;
}

// posix_spawn_file_actions_addclosefrom_np (glibc 2.34) and _addchdir_np (glibc 2.29) are looked
// up at run time, so the binary also starts on older glibc (docs/deployment.md). Without the
// first, each descriptor from 3 up that is open now gets a close action (the same effect but for
// descriptors another thread opens between the listing and the spawn); without the second, a
// working directory cannot be set and the spawn fails with ENOSYS.
typedef int (*spawn_action_int)(posix_spawn_file_actions_t *, int);
typedef int (*spawn_action_path)(posix_spawn_file_actions_t *, const char *);

static int add_close_from(posix_spawn_file_actions_t *actions, int lowest) {
    spawn_action_int function = (spawn_action_int)dlsym(RTLD_DEFAULT, "posix_spawn_file_actions_addclosefrom_np");
    if (function != NULL) return function(actions, lowest);
    DIR *dir = opendir("/proc/self/fd");
    if (dir == NULL) return errno;
    int own = dirfd(dir), status = 0;
    struct dirent *entry;
    while (status == 0 && (entry = readdir(dir)) != NULL) {
        if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
        int fd = atoi(entry->d_name);
        if (fd >= lowest && fd != own) status = posix_spawn_file_actions_addclose(actions, fd);
    }
    closedir(dir);
    return status;
}

static int add_chdir(posix_spawn_file_actions_t *actions, const char *directory) {
    spawn_action_path function = (spawn_action_path)dlsym(RTLD_DEFAULT, "posix_spawn_file_actions_addchdir_np");
    return function != NULL ? function(actions, directory) : ENOSYS;
}

int cs_spawn(const char *path, char *const argv[], char *const envp[], const char *directory,
             int stdin_fd, int stdout_fd, int stderr_fd, int own_group, pid_t *pid) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int status = posix_spawn_file_actions_init(&actions);
    if (status != 0) return status;
    status = posix_spawnattr_init(&attributes);
    if (status != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return status;
    }
    // The spawning thread may block signals (runtime threads often do) and the parent may
    // handle them: the child starts as from a shell, every signal unblocked and at default.
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | (own_group ? POSIX_SPAWN_SETPGROUP : 0);
    if ((status = posix_spawnattr_setflags(&attributes, flags)) == 0 &&
        (status = posix_spawnattr_setsigmask(&attributes, &none)) == 0 &&
        (status = posix_spawnattr_setsigdefault(&attributes, &all)) == 0 &&
        (status = posix_spawnattr_setpgroup(&attributes, 0)) == 0 &&
        (status = posix_spawn_file_actions_adddup2(&actions, stdin_fd, 0)) == 0 &&
        (status = posix_spawn_file_actions_adddup2(&actions, stdout_fd, 1)) == 0 &&
        (status = posix_spawn_file_actions_adddup2(&actions, stderr_fd, 2)) == 0 &&
        // Nothing else of the parent's: a pipe or socket another thread opened without
        // O_CLOEXEC would otherwise stay open in the child (its reader never seeing the end).
        (status = add_close_from(&actions, 3)) == 0 &&
        (directory == NULL || (status = add_chdir(&actions, directory)) == 0)) {
        status = posix_spawn(pid, path, &actions, &attributes, argv, envp);
    }
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    return status;
}
