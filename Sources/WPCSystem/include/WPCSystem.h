// Thin wrappers over Linux system calls that Swift does not import conveniently
// (epoll's packed event struct, accept4, MSG_NOSIGNAL, sendmsg, setrlimit).
// Every function returns -errno (or -1 with errno set where noted) instead of raising signals.
#ifndef WPEXPORTER_CSYSTEM_H
#define WPEXPORTER_CSYSTEM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>

/// One readiness event, unpacked (the kernel's struct epoll_event is packed on x86_64).
typedef struct {
    uint32_t events;
    uint64_t data;
} cs_event;

enum {
    CS_EV_IN = 0x001,
    CS_EV_OUT = 0x004,
    CS_EV_ERR = 0x008,
    CS_EV_HUP = 0x010,
    CS_EV_RDHUP = 0x2000,
    CS_SOCK_STREAM = 1, // SOCK_STREAM, for cs_bind_socket
    CS_SOCK_DGRAM = 2,  // SOCK_DGRAM
    CS_SHARE_PORT = 1,  // cs_bind_socket flag: SO_REUSEPORT
    CS_BIND_ONLY = 2,   // cs_bind_socket flag: a SOCK_STREAM socket bound but not listening
    CS_EXCLUSIVE = 4,   // cs_bind_socket flag: no SO_REUSEADDR on a SOCK_STREAM socket
};

/// Binds a non-blocking socket of `type` (SOCK_STREAM: also listens with `backlog`;
/// SOCK_DGRAM) on host:port. Returns the fd, or a negative value: -errno for socket errors, or
/// -(100000 + gai error) when the host cannot be resolved. `flags`: CS_SHARE_PORT sets
/// SO_REUSEPORT, so another socket of the same user setting it too may bind the port meanwhile;
/// CS_BIND_ONLY binds a SOCK_STREAM socket without listening (connections to it are refused
/// while it holds the port); CS_EXCLUSIVE leaves SO_REUSEADDR unset on a SOCK_STREAM socket (set
/// otherwise, so a restart binds while old connections sit in TIME_WAIT), so no other socket can
/// bind the port while it is held.
int cs_bind_socket(const char *host, int port, int type, int backlog, int flags);
/// cs_bind_socket for a listening TCP socket.
int cs_listen(const char *host, int port, int backlog);

/// The sender of a datagram, to answer it.
typedef struct {
    struct sockaddr_storage address;
    socklen_t length;
} cs_peer;
/// Receives one datagram without blocking; writes its sender to *peer and as "ip:port" (or
/// "[ip6]:port") into text, and, when the kernel says (SO_RXQ_OVFL, set on datagram sockets
/// by cs_bind_socket), the datagrams it has dropped on the socket so far into *kernel_drops (a
/// 32-bit count that wraps; may be NULL). Returns the datagram's full length (more than
/// `length` when it was truncated), or -errno (-EAGAIN when none waits).
long cs_recv_datagram(int fd, void *buffer, size_t length, cs_peer *peer, char *text, size_t text_len,
                      long long *kernel_drops);
/// The receive buffer of a socket in bytes as the kernel set it (SO_RCVBUF: twice what was asked,
/// capped by net.core.rmem_max), or -errno.
int cs_receive_buffer(int fd);
/// The receive buffer cs_bind_socket asks for on a datagram socket: 4 MiB.
#define CS_DATAGRAM_RECEIVE_BUFFER (4 * 1024 * 1024)
/// `peer` for a numeric IPv4 or IPv6 address (no name resolution) and port: 0, or -1 when
/// `host` is not an address literal or the port is out of range.
int cs_peer_parse(const char *host, int port, cs_peer *peer);
/// Sends one datagram to `peer` without blocking. Returns the bytes sent or -errno.
long cs_send_datagram(int fd, const void *buffer, size_t length, const cs_peer *peer);
/// Writes the bound address of `fd` ("127.0.0.1" / "::1") into host and its port into *port.
int cs_local_address(int fd, char *host, size_t host_len, int *port);
/// accept4 with SOCK_NONBLOCK|SOCK_CLOEXEC and TCP_NODELAY; writes the peer as "ip:port".
/// Returns the fd or -errno.
int cs_accept(int listen_fd, char *peer, size_t peer_len);
/// A message for a cs_listen error code.
const char *cs_listen_error(int code);

int cs_epoll_create(void);
int cs_epoll_add(int epfd, int fd, uint32_t events, uint64_t data);
int cs_epoll_del(int epfd, int fd);
/// Waits for events; returns the count, 0 on timeout or EINTR, -errno otherwise.
int cs_epoll_wait(int epfd, cs_event *events, int max_events, int timeout_ms);

int cs_eventfd(void);
void cs_eventfd_signal(int fd);
void cs_eventfd_drain(int fd);

/// recv; returns bytes (0 = EOF) or -errno (EINTR retried).
ssize_t cs_recv(int fd, void *buffer, size_t length);
/// Sends a then b in one sendmsg with MSG_NOSIGNAL; returns bytes sent or -errno (EINTR retried).
ssize_t cs_send2(int fd, const void *a, size_t a_len, const void *b, size_t b_len);
/// Sends `count` buffers (bases[i], lengths[i]) in one sendmsg with MSG_NOSIGNAL, at most
/// 1024 of them (IOV_MAX); returns bytes sent or -errno (EINTR retried).
ssize_t cs_sendv(int fd, const void *const *bases, const size_t *lengths, int count);
int cs_close(int fd);
/// shutdown(SHUT_WR): sends FIN, keeps reading possible.
int cs_shutdown_write(int fd);

/// Raises the soft RLIMIT_NOFILE to the hard limit; returns the new soft limit or -errno.
long cs_raise_nofile_limit(void);
/// The soft RLIMIT_NOFILE, or -errno.
long cs_nofile_limit(void);
/// CLOCK_MONOTONIC in nanoseconds.
int64_t cs_monotonic_ns(void);
/// Writes the current time as an IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT", 29 bytes).
int cs_http_date(char *buffer, size_t length);

// Test and benchmark clients (blocking sockets).

/// Connects a blocking TCP socket with 10 s send/receive timeouts; rcvbuf > 0 sets SO_RCVBUF
/// before connecting. Returns the fd or -errno (-(100000 + gai error) for unknown hosts).
int cs_connect(const char *host, int port, int rcvbuf);
/// Closes with SO_LINGER 0 so the peer sees a reset.
int cs_abort_close(int fd);
/// Counts this process's open sockets whose local port is `port`.
int cs_count_sockets_on_port(int port);
/// Counts this process's open descriptors.
int cs_count_open_fds(void);

/// pipe2(O_CLOEXEC): a pipe no child started by another thread meanwhile inherits. Returns 0
/// or an errno value.
int cs_pipe_cloexec(int ends[2]);
/// Starts `path` with `argv` and `envp` (NULL-terminated) in `directory` (NULL: this one),
/// its standard input, output and error on the given descriptors (each made 0, 1, 2 in the
/// child), every signal at its default action and none blocked, in a process group of its own
/// when `own_group` is non-zero. Returns 0 and the child's PID in `pid`, or an errno value.
int cs_spawn(const char *path, char *const argv[], char *const envp[], const char *directory,
             int stdin_fd, int stdout_fd, int stderr_fd, int own_group, pid_t *pid);

#endif
