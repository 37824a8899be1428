// OpenSSL and libcrypt through dlopen. OpenSSL 3 is preferred, OpenSSL 1.1 (EL8, Kylin V10,
// Debian 10/11) taken when it is the one the host has: every function below exists with the
// same signature in both (1.1.1 made SSL_CTX_set_options a function taking and returning an
// unsigned long, which is uint64_t on the 64-bit targets built), and the constants are the
// same stable ABI values in both (openssl/ssl.h: SSL_CTRL_MODE = 33,
// SSL_CTRL_SET_MIN_PROTO_VERSION = 123, SSL_OP_NO_RENEGOTIATION = 1 << 30, ...).
#include "security_shim.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>

enum {
    SSL_FILETYPE_PEM = 1,
    SSL_VERIFY_NONE = 0, SSL_VERIFY_PEER = 1, SSL_VERIFY_FAIL_IF_NO_PEER_CERT = 2,
    SSL_CTRL_MODE = 33, SSL_CTRL_SET_MIN_PROTO_VERSION = 123, SSL_CTRL_SET_MAX_PROTO_VERSION = 124,
    SSL_MODE_ENABLE_PARTIAL_WRITE = 1, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER = 2, SSL_MODE_RELEASE_BUFFERS = 16,
    SSL_ERROR_SSL = 1, SSL_ERROR_WANT_READ = 2, SSL_ERROR_WANT_WRITE = 3, SSL_ERROR_SYSCALL = 5,
    SSL_ERROR_ZERO_RETURN = 6,
    SSL_CTRL_SET_TLSEXT_HOSTNAME = 55, TLSEXT_NAMETYPE_host_name = 0, X509_V_OK = 0,
};
#define SSL_OP_NO_COMPRESSION (1ULL << 17)
#define SSL_OP_CIPHER_SERVER_PREFERENCE (1ULL << 22)
#define SSL_OP_NO_RENEGOTIATION (1ULL << 30)

typedef int (*verify_cb)(int, void *);

static struct {
    const void *(*server_method)(void);
    const void *(*client_method)(void);
    int (*default_verify_paths)(void *);
    long (*ssl_ctrl)(void *, int, long, void *);
    int (*set1_host)(void *, const char *);
    void *(*get0_param)(void *);
    int (*param_set1_ip_asc)(void *, const char *);
    void (*set_connect_state)(void *);
    void (*set_accept_state)(void *);
    int (*do_handshake)(void *);
    long (*get_verify_result)(const void *);
    const char *(*verify_error_string)(long);
    void *(*ctx_new)(const void *);
    void (*ctx_free)(void *);
    long (*ctx_ctrl)(void *, int, long, void *);
    uint64_t (*ctx_set_options)(void *, uint64_t);
    int (*use_chain_file)(void *, const char *);
    int (*use_key_file)(void *, const char *, int);
    int (*check_key)(const void *);
    int (*load_verify)(void *, const char *, const char *);
    void (*set_verify)(void *, int, verify_cb);
    int (*set_cipher_list)(void *, const char *);
    void *(*load_client_ca_file)(const char *);
    void (*set_client_ca_list)(void *, void *);
    void *(*ssl_new)(void *);
    void (*ssl_free)(void *);
    int (*set_fd)(void *, int);
    int (*read)(void *, void *, int);
    int (*write)(void *, const void *, int);
    int (*get_error)(const void *, int);
    int (*shutdown)(void *);
    void (*set_quiet_shutdown)(void *, int);
    unsigned long (*err_get)(void);
    void (*err_string)(unsigned long, char *, size_t);
    void (*err_clear)(void);
    const void *(*digest_by_name)(const char *);
    int (*digest)(const void *, size_t, unsigned char *, unsigned int *, const void *, void *);
    unsigned char *(*hmac)(const void *, const void *, int, const unsigned char *, size_t, unsigned char *, unsigned int *);
    const void *(*aes_128_cfb128)(void);
    void *(*cipher_ctx_new)(void);
    void (*cipher_ctx_free)(void *);
    int (*cipher_init)(void *, const void *, void *, const unsigned char *, const unsigned char *, int);
    int (*cipher_update)(void *, unsigned char *, int *, const unsigned char *, int);
    int (*cipher_final)(void *, unsigned char *, int *);
    const char *release;  // "OpenSSL 3" or "OpenSSL 1.1", once loaded
    int loaded;
    char error[320];
} ssl_api;

static struct {
    char *(*crypt_r)(const char *, const char *, void *);
    int loaded;
    char error[240];
} crypt_api;

static pthread_once_t ssl_once = PTHREAD_ONCE_INIT;
static pthread_once_t crypt_once = PTHREAD_ONCE_INIT;

static void *open_first(const char *const *names, size_t count) {
    void *library = NULL;
    for (size_t i = 0; i < count && library == NULL; i++) library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    return library;
}

/// The OpenSSL releases tried, newest first; libssl is taken from the same release as libcrypto.
static const struct { const char *crypto, *ssl, *name; } openssl_releases[] = {
    {"libcrypto.so.3", "libssl.so.3", "OpenSSL 3"},
    {"libcrypto.so.1.1", "libssl.so.1.1", "OpenSSL 1.1"},
};

static void load_ssl(void) {
    void *crypto = NULL, *ssl = NULL;
    char reasons[160] = "";
    for (size_t i = 0; i < sizeof(openssl_releases) / sizeof(openssl_releases[0]) && ssl == NULL; i++) {
        crypto = dlopen(openssl_releases[i].crypto, RTLD_NOW | RTLD_LOCAL);
        ssl = crypto ? dlopen(openssl_releases[i].ssl, RTLD_NOW | RTLD_LOCAL) : NULL;
        if (ssl == NULL) {
            if (reasons[0] == 0) snprintf(reasons, sizeof(reasons), "%s", dlerror());
            if (crypto != NULL) dlclose(crypto);
            crypto = NULL;
        } else {
            ssl_api.release = openssl_releases[i].name;
        }
    }
    if (ssl == NULL) {
        snprintf(ssl_api.error, sizeof(ssl_api.error),
                 "neither OpenSSL 3 (libssl.so.3, libcrypto.so.3) nor OpenSSL 1.1 (libssl.so.1.1, libcrypto.so.1.1) "
                 "was found: %s", reasons);
        return;
    }
#define LOAD(lib, field, symbol) ssl_api.field = (typeof(ssl_api.field))dlsym(lib, symbol); \
    if (ssl_api.field == NULL) { snprintf(ssl_api.error, sizeof(ssl_api.error), "OpenSSL lacks %s", symbol); return; }
    LOAD(ssl, server_method, "TLS_server_method")
    LOAD(ssl, client_method, "TLS_client_method")
    LOAD(ssl, default_verify_paths, "SSL_CTX_set_default_verify_paths")
    LOAD(ssl, ssl_ctrl, "SSL_ctrl")
    LOAD(ssl, set1_host, "SSL_set1_host")
    LOAD(ssl, get0_param, "SSL_get0_param")
    LOAD(crypto, param_set1_ip_asc, "X509_VERIFY_PARAM_set1_ip_asc")
    LOAD(ssl, set_connect_state, "SSL_set_connect_state")
    LOAD(ssl, set_accept_state, "SSL_set_accept_state")
    LOAD(ssl, do_handshake, "SSL_do_handshake")
    LOAD(ssl, get_verify_result, "SSL_get_verify_result")
    LOAD(crypto, verify_error_string, "X509_verify_cert_error_string")
    LOAD(ssl, ctx_new, "SSL_CTX_new")
    LOAD(ssl, ctx_free, "SSL_CTX_free")
    LOAD(ssl, ctx_ctrl, "SSL_CTX_ctrl")
    LOAD(ssl, ctx_set_options, "SSL_CTX_set_options")
    LOAD(ssl, use_chain_file, "SSL_CTX_use_certificate_chain_file")
    LOAD(ssl, use_key_file, "SSL_CTX_use_PrivateKey_file")
    LOAD(ssl, check_key, "SSL_CTX_check_private_key")
    LOAD(ssl, load_verify, "SSL_CTX_load_verify_locations")
    LOAD(ssl, set_verify, "SSL_CTX_set_verify")
    LOAD(ssl, set_cipher_list, "SSL_CTX_set_cipher_list")
    LOAD(ssl, load_client_ca_file, "SSL_load_client_CA_file")
    LOAD(ssl, set_client_ca_list, "SSL_CTX_set_client_CA_list")
    LOAD(ssl, ssl_new, "SSL_new")
    LOAD(ssl, ssl_free, "SSL_free")
    LOAD(ssl, set_fd, "SSL_set_fd")
    LOAD(ssl, read, "SSL_read")
    LOAD(ssl, write, "SSL_write")
    LOAD(ssl, get_error, "SSL_get_error")
    LOAD(ssl, shutdown, "SSL_shutdown")
    LOAD(ssl, set_quiet_shutdown, "SSL_set_quiet_shutdown")
    LOAD(crypto, err_get, "ERR_get_error")
    LOAD(crypto, err_string, "ERR_error_string_n")
    LOAD(crypto, err_clear, "ERR_clear_error")
    LOAD(crypto, digest_by_name, "EVP_get_digestbyname")
    LOAD(crypto, digest, "EVP_Digest")
    LOAD(crypto, hmac, "HMAC")
    LOAD(crypto, aes_128_cfb128, "EVP_aes_128_cfb128")
    LOAD(crypto, cipher_ctx_new, "EVP_CIPHER_CTX_new")
    LOAD(crypto, cipher_ctx_free, "EVP_CIPHER_CTX_free")
    LOAD(crypto, cipher_init, "EVP_CipherInit_ex")
    LOAD(crypto, cipher_update, "EVP_CipherUpdate")
    LOAD(crypto, cipher_final, "EVP_CipherFinal_ex")
#undef LOAD
    ssl_api.loaded = 1;
}

static void load_crypt(void) {
    const char *names[] = {"libcrypt.so.1", "libcrypt.so.2", "libcrypt.so"};
    void *library = open_first(names, 3);
    if (library == NULL) {
        snprintf(crypt_api.error, sizeof(crypt_api.error), "libcrypt not found (tried libcrypt.so.1): %s", dlerror());
        return;
    }
    crypt_api.crypt_r = (typeof(crypt_api.crypt_r))dlsym(library, "crypt_r");
    if (crypt_api.crypt_r == NULL) {
        snprintf(crypt_api.error, sizeof(crypt_api.error), "libcrypt lacks crypt_r");
        return;
    }
    crypt_api.loaded = 1;
}

static void copy_message(char *message, size_t capacity, const char *text) {
    if (message != NULL && capacity > 0) snprintf(message, capacity, "%s", text);
}

int wps_tls_load(char *message, size_t capacity) {
    pthread_once(&ssl_once, load_ssl);
    if (ssl_api.loaded) return 0;
    copy_message(message, capacity, ssl_api.error);
    return -1;
}

const char *wps_tls_release(void) {
    return wps_tls_load(NULL, 0) == 0 ? ssl_api.release : NULL;
}

/// "what: first OpenSSL error" into message; clears the error queue.
static void describe_failure(const char *what, char *message, size_t capacity) {
    char detail[200] = "";
    unsigned long code = ssl_api.err_get();
    if (code != 0) ssl_api.err_string(code, detail, sizeof(detail));
    ssl_api.err_clear();
    if (message != NULL && capacity > 0) {
        snprintf(message, capacity, "%s%s%s", what, detail[0] ? ": " : "", detail);
    }
}

static int accept_any_certificate(int ok, void *store) {
    (void)ok;
    (void)store;
    return 1;
}

/// A new context of `method` (TLS_server_method or TLS_client_method), or NULL with a message.
static void *context_new(const void *(*method)(void), char *message, size_t capacity) {
    if (wps_tls_load(message, capacity) != 0) return NULL;
    ssl_api.err_clear();
    void *context = ssl_api.ctx_new(method());
    if (context == NULL) describe_failure("cannot create a TLS context", message, capacity);
    return context;
}

/// Frees `context` after the step that `failed` (with OpenSSL's reason in `message`): NULL.
static void *context_failed(void *context, const char *failed, char *message, size_t capacity) {
    describe_failure(failed, message, capacity);
    ssl_api.ctx_free(context);
    return NULL;
}

/// What both sides' contexts set last: `options` (no compression, no renegotiation, and the
/// side's own) and the modes the non-blocking reads and writes need.
static void *context_finished(void *context, uint64_t options) {
    ssl_api.ctx_set_options(context, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | options);
    ssl_api.ctx_ctrl(context, SSL_CTRL_MODE,
                     SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS, NULL);
    return context;
}

void *wps_tls_context_new(const wps_tls_options *options, char *message, size_t capacity) {
    void *context = context_new(ssl_api.server_method, message, capacity);
    if (context == NULL) return NULL;
    const char *failed = NULL;
    if (ssl_api.use_chain_file(context, options->certificate_file) != 1) failed = "cannot load cert_file";
    else if (ssl_api.use_key_file(context, options->key_file, SSL_FILETYPE_PEM) != 1) failed = "cannot load key_file";
    else if (ssl_api.check_key(context) != 1) failed = "key_file does not match cert_file";
    else if (options->min_version && ssl_api.ctx_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, options->min_version, NULL) != 1)
        failed = "min_version not supported";
    else if (options->max_version && ssl_api.ctx_ctrl(context, SSL_CTRL_SET_MAX_PROTO_VERSION, options->max_version, NULL) != 1)
        failed = "max_version not supported";
    else if (options->cipher_list && ssl_api.set_cipher_list(context, options->cipher_list) != 1)
        failed = "none of cipher_suites is available";
    else if (options->client_ca_file && ssl_api.load_verify(context, options->client_ca_file, NULL) != 1)
        failed = "cannot load client_ca_file";
    if (failed != NULL) return context_failed(context, failed, message, capacity);
    if (options->client_ca_file) {
        void *names = ssl_api.load_client_ca_file(options->client_ca_file);
        if (names != NULL) ssl_api.set_client_ca_list(context, names);  // the context takes ownership
    }
    switch (options->client_auth) {
    case WPS_CLIENT_REQUEST: ssl_api.set_verify(context, SSL_VERIFY_PEER, accept_any_certificate); break;
    case WPS_CLIENT_REQUIRE_ANY:
        ssl_api.set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, accept_any_certificate);
        break;
    case WPS_CLIENT_VERIFY_IF_GIVEN: ssl_api.set_verify(context, SSL_VERIFY_PEER, NULL); break;
    case WPS_CLIENT_REQUIRE_AND_VERIFY:
        ssl_api.set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
        break;
    default: ssl_api.set_verify(context, SSL_VERIFY_NONE, NULL); break;
    }
    return context_finished(context, options->prefer_server_ciphers ? SSL_OP_CIPHER_SERVER_PREFERENCE : 0);
}

void wps_tls_context_free(void *context) {
    if (context != NULL && ssl_api.loaded) ssl_api.ctx_free(context);
}

/// A session of `context` on `descriptor`, or NULL.
static void *session_on(void *context, int descriptor) {
    if (context == NULL || !ssl_api.loaded) return NULL;
    // OpenSSL writes with write(2), which raises SIGPIPE when the peer has gone. Block it on
    // the calling thread (the event loop, or the client's own thread, which does all of the
    // session's I/O): the write then fails with EPIPE instead of killing the process. Only
    // this thread's mask changes.
    sigset_t pipe_only;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_only, NULL);
    void *session = ssl_api.ssl_new(context);
    if (session == NULL) return NULL;
    if (ssl_api.set_fd(session, descriptor) != 1) {
        ssl_api.ssl_free(session);
        return NULL;
    }
    return session;
}

void *wps_tls_session_new(void *context, int descriptor) {
    void *session = session_on(context, descriptor);
    if (session != NULL) ssl_api.set_accept_state(session);
    return session;
}

void *wps_tls_client_context_new(const wps_tls_client_options *options, char *message, size_t capacity) {
    void *context = context_new(ssl_api.client_method, message, capacity);
    if (context == NULL) return NULL;
    const char *failed = NULL;
    if (options->ca_file != NULL && ssl_api.load_verify(context, options->ca_file, NULL) != 1)
        failed = "cannot load the CA file";
    else if (options->ca_file == NULL && options->verify && ssl_api.default_verify_paths(context) != 1)
        failed = "cannot load the system's trusted certificates";
    else if (options->certificate_file != NULL && ssl_api.use_chain_file(context, options->certificate_file) != 1)
        failed = "cannot load the client certificate";
    else if (options->certificate_file != NULL && (options->key_file == NULL
             || ssl_api.use_key_file(context, options->key_file, SSL_FILETYPE_PEM) != 1))
        failed = "cannot load the client key";
    else if (options->certificate_file != NULL && ssl_api.check_key(context) != 1)
        failed = "the client key does not match the client certificate";
    else if (ssl_api.ctx_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, 0x0303, NULL) != 1)
        failed = "TLS 1.2 is not supported";
    if (failed != NULL) return context_failed(context, failed, message, capacity);
    ssl_api.set_verify(context, options->verify ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, NULL);
    return context_finished(context, 0);
}

void *wps_tls_client_session_new(void *context, int descriptor, const char *server_name, int verify) {
    void *session = session_on(context, descriptor);
    if (session == NULL) return NULL;
    unsigned char address[16];
    int numeric = inet_pton(AF_INET, server_name, address) == 1 || inet_pton(AF_INET6, server_name, address) == 1;
    int ok = 1;
    // SNI names hosts, never addresses (RFC 6066, section 3).
    if (!numeric) ok = ssl_api.ssl_ctrl(session, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name, (void *)server_name) == 1;
    if (ok && verify) {
        ok = numeric ? ssl_api.param_set1_ip_asc(ssl_api.get0_param(session), server_name) == 1
                     : ssl_api.set1_host(session, server_name) == 1;
    }
    if (!ok) {
        ssl_api.err_clear();
        ssl_api.ssl_free(session);
        return NULL;
    }
    ssl_api.set_connect_state(session);
    return session;
}

/// Classifies a failed call: -1 would block (wants set), 0 end of stream, -2 failed.
static int classify(void *session, int result, int *wants) {
    int error = ssl_api.get_error(session, result);
    switch (error) {
    case SSL_ERROR_WANT_READ: *wants = WPS_WANTS_READ; return -1;
    case SSL_ERROR_WANT_WRITE: *wants = WPS_WANTS_WRITE; return -1;
    case SSL_ERROR_ZERO_RETURN: return 0;
    case SSL_ERROR_SYSCALL: return errno == 0 || errno == ECONNRESET || errno == EPIPE ? 0 : -2;
    default: return -2;
    }
}

int wps_tls_handshake(void *session, int *wants, char *message, size_t capacity) {
    *wants = WPS_WANTS_NOTHING;
    ssl_api.err_clear();
    errno = 0;
    int result = ssl_api.do_handshake(session);
    if (result == 1) return 1;
    int outcome = classify(session, result, wants);
    if (outcome == -1) return 0;
    long verified = ssl_api.get_verify_result(session);
    if (verified != X509_V_OK) {
        // This side refused the peer's certificate: OpenSSL's reason ("certificate has
        // expired", "hostname mismatch", "unable to get local issuer certificate").
        ssl_api.err_clear();
        char detail[200];
        snprintf(detail, sizeof(detail), "the peer's certificate was refused: %s", ssl_api.verify_error_string(verified));
        copy_message(message, capacity, detail);
    } else if (outcome == 0) {
        ssl_api.err_clear();
        copy_message(message, capacity, "peer closed during the handshake");
    } else {
        describe_failure("handshake failed", message, capacity);
    }
    return -1;
}

long wps_tls_read(void *session, void *buffer, size_t capacity, int *wants) {
    *wants = WPS_WANTS_NOTHING;
    size_t total = 0;
    while (total < capacity) {
        size_t chunk = capacity - total;
        if (chunk > (1u << 30)) chunk = 1u << 30;
        ssl_api.err_clear();
        errno = 0;
        int result = ssl_api.read(session, (char *)buffer + total, (int)chunk);
        if (result > 0) { total += (size_t)result; continue; }
        int outcome = classify(session, result, wants);
        if (total > 0) return (long)total;  // report the bytes; the condition repeats on the next call
        ssl_api.err_clear();
        return outcome;
    }
    return (long)total;
}

static long write_once(void *session, const void *bytes, size_t length, int *wants) {
    if (length > (1u << 30)) length = 1u << 30;
    ssl_api.err_clear();
    errno = 0;
    int result = ssl_api.write(session, bytes, (int)length);
    if (result > 0) return result;
    int outcome = classify(session, result, wants);
    ssl_api.err_clear();
    return outcome == -1 ? -1 : -2;
}

long wps_tls_write(void *session, const void *first, size_t first_length,
                   const void *second, size_t second_length, int *wants) {
    *wants = WPS_WANTS_NOTHING;
    // Small responses go out as one record: head and body copied together.
    if (first_length + second_length <= 16384 && second_length > 0) {
        unsigned char joined[16384];
        if (first_length) memcpy(joined, first, first_length);
        memcpy(joined + first_length, second, second_length);
        return write_once(session, joined, first_length + second_length, wants);
    }
    if (first_length == 0) return second_length ? write_once(session, second, second_length, wants) : 0;
    long written = write_once(session, first, first_length, wants);
    if (written < (long)first_length || second_length == 0) return written;
    long more = write_once(session, second, second_length, wants);
    return more > 0 ? written + more : written;
}

void wps_tls_shutdown(void *session) {
    if (session == NULL) return;
    ssl_api.err_clear();
    ssl_api.shutdown(session);
    ssl_api.err_clear();
}

void wps_tls_session_free(void *session) {
    if (session != NULL) ssl_api.ssl_free(session);
}

int wps_peek_byte(int descriptor) {
    unsigned char byte = 0;
    for (;;) {
        ssize_t count = recv(descriptor, &byte, 1, MSG_PEEK);
        if (count == 1) return byte;
        if (count == 0) return -2;
        if (errno == EINTR) continue;
        return errno == EAGAIN || errno == EWOULDBLOCK ? -1 : -2;
    }
}

void wps_send_plain(int descriptor, const char *text) {
    (void)send(descriptor, text, strlen(text), MSG_NOSIGNAL | MSG_DONTWAIT);
    (void)shutdown(descriptor, SHUT_WR);
    // Consume what the peer already sent, so closing does not reset the connection before
    // the peer has read the answer.
    char discard[4096];
    for (int round = 0; round < 16; round++) {
        if (recv(descriptor, discard, sizeof(discard), MSG_DONTWAIT) <= 0) break;
    }
}

/// The digest OpenSSL names `name`, or NULL (libcrypto missing, the name unknown).
static const void *digest_named(const char *name) {
    if (name == NULL || wps_tls_load(NULL, 0) != 0) return NULL;
    return ssl_api.digest_by_name(name);
}

int wps_digest(const char *name, const void *data, size_t length, unsigned char *output, size_t capacity) {
    const void *type = digest_named(name);
    if (type == NULL) return -1;
    unsigned char digest[WPS_MAX_DIGEST];
    unsigned int written = 0;
    int ok = ssl_api.digest(data, length, digest, &written, type, NULL) == 1 && written <= capacity;
    if (ok) memcpy(output, digest, written);
    explicit_bzero(digest, sizeof(digest));
    return ok ? (int)written : -1;
}

int wps_hmac(const char *name, const void *key, size_t key_length, const void *data, size_t length,
             unsigned char *output, size_t capacity) {
    const void *type = digest_named(name);
    if (type == NULL || key_length > 1024) return -1;
    unsigned char mac[WPS_MAX_DIGEST];
    unsigned int written = 0;
    int ok = ssl_api.hmac(type, key, (int)key_length, (const unsigned char *)data, length, mac, &written) != NULL
        && written <= capacity;
    if (ok) memcpy(output, mac, written);
    explicit_bzero(mac, sizeof(mac));
    return ok ? (int)written : -1;
}

int wps_aes128_cfb(int encrypt, const unsigned char key[16], const unsigned char iv[16],
                   const void *input, size_t length, void *output) {
    if (wps_tls_load(NULL, 0) != 0 || length > 65536) return -1;
    void *context = ssl_api.cipher_ctx_new();
    if (context == NULL) return -1;
    int ok = ssl_api.cipher_init(context, ssl_api.aes_128_cfb128(), NULL, key, iv, encrypt ? 1 : 0) == 1;
    int written = 0, tail = 0;
    if (ok) ok = ssl_api.cipher_update(context, (unsigned char *)output, &written, (const unsigned char *)input, (int)length) == 1;
    if (ok) ok = ssl_api.cipher_final(context, (unsigned char *)output + written, &tail) == 1;
    ssl_api.cipher_ctx_free(context);
    return ok && (size_t)(written + tail) == length ? 0 : -1;
}

int wps_crypt_load(char *message, size_t capacity) {
    pthread_once(&crypt_once, load_crypt);
    if (crypt_api.loaded) return 0;
    copy_message(message, capacity, crypt_api.error);
    return -1;
}

int wps_crypt(const char *phrase, const char *setting, char *output, size_t capacity) {
    if (wps_crypt_load(NULL, 0) != 0) return -1;
    // struct crypt_data is 32 KiB in libxcrypt and 128.2 KiB in the libcrypt of glibc 2.38 and
    // older (a host whose libcrypt.so.1 is glibc's); 256 KiB holds either. Zeroed means
    // "initialized = 0".
    enum { crypt_data_size = 262144 };
    void *data = calloc(1, crypt_data_size);
    if (data == NULL) return -1;
    const char *result = crypt_api.crypt_r(phrase, setting, data);
    int status = -1;
    if (result != NULL && result[0] != '*' && strlen(result) < capacity) {
        memcpy(output, result, strlen(result) + 1);
        status = 0;
    }
    explicit_bzero(data, crypt_data_size);
    free(data);
    return status;
}
