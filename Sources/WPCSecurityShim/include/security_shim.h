// OpenSSL 3 or 1.1 (libssl.so.3 and libcrypto.so.3, else libssl.so.1.1 and libcrypto.so.1.1)
// and libcrypt's crypt_r reached through dlopen: no
// headers and no link-time dependency, so builds without a web configuration file need
// neither. Only the calls the HTTP server's TLS listener, the MQTT client's TLS, basic
// authentication and the SNMPv3 user-based security model use.
#ifndef WPEXPORTER_SECURITY_SHIM_H
#define WPEXPORTER_SECURITY_SHIM_H

#include <stddef.h>

/// What a non-blocking TLS call waits for.
enum { WPS_WANTS_NOTHING = 0, WPS_WANTS_READ = 1, WPS_WANTS_WRITE = 2 };

/// Client certificate policies (the Prometheus exporter-toolkit's client_auth_type values).
enum {
    WPS_CLIENT_NONE = 0,
    WPS_CLIENT_REQUEST = 1,
    WPS_CLIENT_REQUIRE_ANY = 2,
    WPS_CLIENT_VERIFY_IF_GIVEN = 3,
    WPS_CLIENT_REQUIRE_AND_VERIFY = 4,
};

/// Protocol versions as OpenSSL numbers them (TLS1_2_VERSION = 0x0303); 0 = library default.
typedef struct {
    const char *certificate_file;
    const char *key_file;
    const char *client_ca_file;   // NULL when none
    int client_auth;
    int min_version;
    int max_version;
    const char *cipher_list;      // OpenSSL TLS 1.2 cipher list; NULL for the default
    int prefer_server_ciphers;
} wps_tls_options;

/// A client context's options: how the server's certificate is checked and what the client
/// shows of itself.
typedef struct {
    const char *ca_file;          // PEM bundle to trust; NULL: the system's trust store
    const char *certificate_file; // the client's certificate chain; NULL: none
    const char *key_file;         // its key; NULL when no certificate
    int verify;                   // 0: accept any certificate (encrypted, not authenticated)
} wps_tls_client_options;

/// Loads libssl and libcrypto once (OpenSSL 3, else 1.1); 0 on success, else a message in `message`.
int wps_tls_load(char *message, size_t capacity);
/// "OpenSSL 3" or "OpenSSL 1.1": the release loaded; NULL when neither could be.
const char *wps_tls_release(void);
/// A server context from certificate and key files; NULL with a message on failure.
void *wps_tls_context_new(const wps_tls_options *options, char *message, size_t capacity);
void wps_tls_context_free(void *context);
/// A server session on a connected non-blocking socket; NULL on failure.
void *wps_tls_session_new(void *context, int descriptor);
/// A client context; NULL with a message on failure (a CA file or a certificate that cannot be
/// loaded, a key that does not match).
void *wps_tls_client_context_new(const wps_tls_client_options *options, char *message, size_t capacity);
/// A client session on a connected non-blocking socket, for the server `server_name` (a host
/// name, sent as SNI and matched against the certificate's names, or an IP address, matched
/// against its addresses); NULL on failure.
void *wps_tls_client_session_new(void *context, int descriptor, const char *server_name, int verify);
/// Advances the handshake of either side: 1 done, 0 in progress (`wants` says for what), -1
/// failed (message; a certificate the client refused is named with OpenSSL's reason).
int wps_tls_handshake(void *session, int *wants, char *message, size_t capacity);
/// Reads decrypted bytes until `capacity` is filled or the socket is drained:
/// >0 bytes, 0 end of stream, -1 would block (`wants`), -2 failed.
long wps_tls_read(void *session, void *buffer, size_t capacity, int *wants);
/// Writes `first` then `second`: >0 bytes accepted, -1 would block (`wants`), -2 failed.
long wps_tls_write(void *session, const void *first, size_t first_length,
                   const void *second, size_t second_length, int *wants);
/// Sends close_notify, best effort, without waiting for the peer's.
void wps_tls_shutdown(void *session);
void wps_tls_session_free(void *session);

/// The first byte waiting on a socket without consuming it: 0...255, -1 none yet, -2 closed.
int wps_peek_byte(int descriptor);
/// Writes a short plain-text answer and shuts down sending, best effort (for plain HTTP sent
/// to the TLS port); consumes what the peer already sent so closing does not reset.
void wps_send_plain(int descriptor, const char *text);

/// The longest digest libcrypto makes (EVP_MAX_MD_SIZE: SHA-512's 64 bytes).
enum { WPS_MAX_DIGEST = 64 };

/// The digest of `data` with the hash libcrypto names `name` (EVP_get_digestbyname: "SHA1",
/// "SHA224", "SHA256", "SHA384", "SHA512") into `output`: its length in bytes, or -1 when
/// libcrypto is missing, the name unknown, or the digest longer than `capacity`.
int wps_digest(const char *name, const void *data, size_t length, unsigned char *output, size_t capacity);
/// HMAC of `data` with the hash libcrypto names `name` (as `wps_digest`) and `key` (up to
/// 1,024 bytes) into `output`: its length in bytes, or -1 as `wps_digest`.
int wps_hmac(const char *name, const void *key, size_t key_length, const void *data, size_t length,
             unsigned char *output, size_t capacity);
/// AES-128 in CFB-128 mode (RFC 3826 for SNMPv3 privacy), `length` up to 65,536 bytes into
/// `output` (same length); `encrypt` 1 to encrypt, 0 to decrypt; 0 on success, -1 otherwise.
int wps_aes128_cfb(int encrypt, const unsigned char key[16], const unsigned char iv[16],
                   const void *input, size_t length, void *output);

/// Loads libcrypt once; 0 on success, else a message.
int wps_crypt_load(char *message, size_t capacity);
/// crypt_r(phrase, setting) into `output`; 0 on success, -1 when the setting is rejected.
int wps_crypt(const char *phrase, const char *setting, char *output, size_t capacity);

#endif
