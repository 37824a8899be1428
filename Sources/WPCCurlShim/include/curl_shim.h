// A minimal bridge to libcurl loaded at run time with dlopen: no curl headers are needed at
// build time. Only the handful of calls the HTTP client's https:// transfers use are exposed.
#ifndef WPEXPORTER_CURL_SHIM_H
#define WPEXPORTER_CURL_SHIM_H

#include <stddef.h>

/// The outcome of one transfer. `curl_code` is libcurl's CURLcode (0 = success);
/// `shim_error` is nonzero when the shim itself failed (library missing, out of memory).
typedef struct {
    int curl_code;
    int shim_error;
    /// Nonzero when the transfer stopped because the body exceeded max_body_bytes.
    int body_overflow;
    long status;
    char message[256];
} wp_curl_result;

/// Collected response bytes; free with wp_curl_buffer_free.
typedef struct {
    unsigned char *data;
    size_t length;
    size_t capacity;
} wp_curl_buffer;

/// Options of one request. Strings are NUL-terminated; headers is an array of
/// header_count "Name: value" strings. body may be NULL for GET.
/// A flag one thread raises and a transfer on another polls: an `_Atomic int` that only
/// the functions below touch (a release store, an acquire load), so the raise and the read
/// never race.
typedef struct wp_abort_flag wp_abort_flag;

/// A new flag, not raised; NULL when out of memory.
wp_abort_flag *wp_abort_flag_create(void);

/// Raises `flag` (idempotent; any thread).
void wp_abort_flag_raise(wp_abort_flag *flag);

/// Whether `flag` was raised; NULL is never raised.
int wp_abort_flag_is_raised(const wp_abort_flag *flag);

/// Frees `flag`; nothing may use it afterwards.
void wp_abort_flag_destroy(wp_abort_flag *flag);

typedef struct {
    const char *method;
    const char *url;
    const char *const *headers;
    size_t header_count;
    const unsigned char *body;
    size_t body_length;
    long timeout_ms;
    int verify_peer;
    const char *ca_file;
    const char *user_agent;
    size_t max_body_bytes;
    /// Polled during the transfer (an atomic load); the transfer aborts once it is raised.
    /// NULL: never aborted.
    const struct wp_abort_flag *abort_flag;
} wp_curl_request;

/// Loads libcurl (once per process; thread-safe). Returns 0 on success, else writes a
/// message into `message` (size `capacity`).
int wp_curl_load(char *message, size_t capacity);

/// Creates an easy handle, or NULL if libcurl is unavailable.
void *wp_curl_handle_create(void);

/// Destroys a handle made by wp_curl_handle_create (NULL is ignored).
void wp_curl_handle_destroy(void *handle);

/// Performs one request on `handle`, reusing its connections. Not thread-safe per handle.
wp_curl_result wp_curl_perform(void *handle, const wp_curl_request *request,
                               wp_curl_buffer *body, wp_curl_buffer *headers);

void wp_curl_buffer_free(wp_curl_buffer *buffer);

#endif
