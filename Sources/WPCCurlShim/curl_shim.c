// libcurl through dlopen. The constants below are libcurl's stable ABI values
// (curl/curl.h: CURLOPT_* = type base + number, CURLINFO_RESPONSE_CODE = 0x200000 + 2).
#include "curl_shim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

enum {
    OPT_WRITEDATA = 10001, OPT_URL = 10002, OPT_ERRORBUFFER = 10010, OPT_WRITEFUNCTION = 20011,
    OPT_POSTFIELDS = 10015, OPT_USERAGENT = 10018, OPT_HTTPHEADER = 10023, OPT_HEADERDATA = 10029,
    OPT_CUSTOMREQUEST = 10036, OPT_NOPROGRESS = 43, OPT_POST = 47, OPT_FOLLOWLOCATION = 52,
    OPT_XFERINFODATA = 10057, OPT_POSTFIELDSIZE = 60, OPT_SSL_VERIFYPEER = 64, OPT_CAINFO = 10065,
    OPT_HEADERFUNCTION = 20079, OPT_HTTPGET = 80, OPT_SSL_VERIFYHOST = 81, OPT_NOSIGNAL = 99,
    OPT_TIMEOUT_MS = 155, OPT_CONNECTTIMEOUT_MS = 156, OPT_PROTOCOLS = 181, OPT_XFERINFOFUNCTION = 20219,
    INFO_RESPONSE_CODE = 0x200002,
    PROTO_HTTP_HTTPS = 1 | 2,
    CODE_ABORTED_BY_CALLBACK = 42, CODE_WRITE_ERROR = 23,
};

typedef void *(*easy_init_fn)(void);
typedef void (*easy_cleanup_fn)(void *);
typedef void (*easy_reset_fn)(void *);
typedef int (*easy_setopt_fn)(void *, int, ...);
typedef int (*easy_perform_fn)(void *);
typedef int (*easy_getinfo_fn)(void *, int, ...);
typedef const char *(*easy_strerror_fn)(int);
typedef void *(*slist_append_fn)(void *, const char *);
typedef void (*slist_free_all_fn)(void *);
typedef int (*global_init_fn)(long);

static struct {
    easy_init_fn easy_init;
    easy_cleanup_fn easy_cleanup;
    easy_reset_fn easy_reset;
    easy_setopt_fn easy_setopt;
    easy_perform_fn easy_perform;
    easy_getinfo_fn easy_getinfo;
    easy_strerror_fn easy_strerror;
    slist_append_fn slist_append;
    slist_free_all_fn slist_free_all;
    global_init_fn global_init;
    int loaded;
    char error[200];
} api;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load_library(void) {
    const char *names[] = {"libcurl.so.4", "libcurl.so", "libcurl.4.dylib", "libcurl.dylib"};
    void *lib = NULL;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && lib == NULL; i++) {
        lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    }
    if (lib == NULL) {
        snprintf(api.error, sizeof(api.error), "libcurl not found (tried libcurl.so.4): %s", dlerror());
        return;
    }
#define LOAD(field, symbol) api.field = (typeof(api.field))dlsym(lib, symbol); \
    if (api.field == NULL) { snprintf(api.error, sizeof(api.error), "libcurl lacks %s", symbol); return; }
    LOAD(easy_init, "curl_easy_init")
    LOAD(easy_cleanup, "curl_easy_cleanup")
    LOAD(easy_reset, "curl_easy_reset")
    LOAD(easy_setopt, "curl_easy_setopt")
    LOAD(easy_perform, "curl_easy_perform")
    LOAD(easy_getinfo, "curl_easy_getinfo")
    LOAD(easy_strerror, "curl_easy_strerror")
    LOAD(slist_append, "curl_slist_append")
    LOAD(slist_free_all, "curl_slist_free_all")
    LOAD(global_init, "curl_global_init")
#undef LOAD
    api.global_init(3 /* CURL_GLOBAL_ALL */);
    api.loaded = 1;
}

int wp_curl_load(char *message, size_t capacity) {
    pthread_once(&load_once, load_library);
    if (api.loaded) return 0;
    if (message != NULL && capacity > 0) snprintf(message, capacity, "%s", api.error);
    return -1;
}

void *wp_curl_handle_create(void) {
    if (wp_curl_load(NULL, 0) != 0) return NULL;
    return api.easy_init();
}

void wp_curl_handle_destroy(void *handle) {
    if (handle != NULL && api.loaded) api.easy_cleanup(handle);
}

void wp_curl_buffer_free(wp_curl_buffer *buffer) {
    free(buffer->data);
    buffer->data = NULL;
    buffer->length = 0;
    buffer->capacity = 0;
}

typedef struct {
    wp_curl_buffer *buffer;
    size_t limit;
    int overflow;
} sink;

static size_t append(char *data, size_t size, size_t count, void *context) {
    sink *target = context;
    size_t n = size * count;
    wp_curl_buffer *b = target->buffer;
    if (b->length + n > target->limit) { /* makes libcurl fail with CURLE_WRITE_ERROR */
        target->overflow = 1;
        return 0;
    }
    if (b->length + n > b->capacity) {
        size_t capacity = b->capacity ? b->capacity : 16384;
        while (capacity < b->length + n) capacity *= 2;
        unsigned char *grown = realloc(b->data, capacity);
        if (grown == NULL) return 0;
        b->data = grown;
        b->capacity = capacity;
    }
    memcpy(b->data + b->length, data, n);
    b->length += n;
    return n;
}

struct wp_abort_flag {
    _Atomic int raised;
};

wp_abort_flag *wp_abort_flag_create(void) {
    wp_abort_flag *flag = malloc(sizeof(*flag));
    if (flag != NULL) atomic_init(&flag->raised, 0);
    return flag;
}

void wp_abort_flag_raise(wp_abort_flag *flag) {
    if (flag != NULL) atomic_store_explicit(&flag->raised, 1, memory_order_release);
}

int wp_abort_flag_is_raised(const wp_abort_flag *flag) {
    if (flag == NULL) return 0;
    return atomic_load_explicit((_Atomic int *)&flag->raised, memory_order_acquire);
}

void wp_abort_flag_destroy(wp_abort_flag *flag) {
    free(flag);
}

static int progress(void *context, long long dltotal, long long dlnow, long long ultotal, long long ulnow) {
    (void)dltotal; (void)dlnow; (void)ultotal; (void)ulnow;
    return wp_abort_flag_is_raised(context) ? 1 : 0;
}

wp_curl_result wp_curl_perform(void *handle, const wp_curl_request *request,
                               wp_curl_buffer *body, wp_curl_buffer *headers) {
    wp_curl_result result;
    memset(&result, 0, sizeof(result));
    if (wp_curl_load(result.message, sizeof(result.message)) != 0 || handle == NULL) {
        result.shim_error = 1;
        if (handle == NULL && result.message[0] == 0) snprintf(result.message, sizeof(result.message), "no curl handle");
        return result;
    }
    void *list = NULL;
    for (size_t i = 0; i < request->header_count; i++) {
        void *grown = api.slist_append(list, request->headers[i]);
        if (grown == NULL) {
            api.slist_free_all(list);
            result.shim_error = 1;
            snprintf(result.message, sizeof(result.message), "out of memory building headers");
            return result;
        }
        list = grown;
    }
    char error_buffer[256] = {0};
    sink body_sink = {body, request->max_body_bytes, 0};
    sink header_sink = {headers, 65536, 0};

    api.easy_reset(handle); /* keeps live connections, the TLS session and DNS caches */
    api.easy_setopt(handle, OPT_URL, request->url);
    api.easy_setopt(handle, OPT_PROTOCOLS, (long)PROTO_HTTP_HTTPS);
    api.easy_setopt(handle, OPT_NOSIGNAL, 1L);
    api.easy_setopt(handle, OPT_FOLLOWLOCATION, 0L);
    api.easy_setopt(handle, OPT_ERRORBUFFER, error_buffer);
    api.easy_setopt(handle, OPT_TIMEOUT_MS, request->timeout_ms);
    api.easy_setopt(handle, OPT_CONNECTTIMEOUT_MS, request->timeout_ms);
    api.easy_setopt(handle, OPT_WRITEFUNCTION, append);
    api.easy_setopt(handle, OPT_WRITEDATA, &body_sink);
    api.easy_setopt(handle, OPT_HEADERFUNCTION, append);
    api.easy_setopt(handle, OPT_HEADERDATA, &header_sink);
    api.easy_setopt(handle, OPT_NOPROGRESS, 0L);
    api.easy_setopt(handle, OPT_XFERINFOFUNCTION, progress);
    api.easy_setopt(handle, OPT_XFERINFODATA, (void *)request->abort_flag);
    if (list != NULL) api.easy_setopt(handle, OPT_HTTPHEADER, list);
    if (request->user_agent != NULL) api.easy_setopt(handle, OPT_USERAGENT, request->user_agent);
    if (!request->verify_peer) {
        api.easy_setopt(handle, OPT_SSL_VERIFYPEER, 0L);
        api.easy_setopt(handle, OPT_SSL_VERIFYHOST, 0L);
    } else if (request->ca_file != NULL) {
        api.easy_setopt(handle, OPT_CAINFO, request->ca_file);
    }
    if (strcmp(request->method, "GET") == 0) {
        api.easy_setopt(handle, OPT_HTTPGET, 1L);
    } else {
        if (strcmp(request->method, "POST") == 0) {
            api.easy_setopt(handle, OPT_POST, 1L);
        } else {
            api.easy_setopt(handle, OPT_CUSTOMREQUEST, request->method);
        }
        api.easy_setopt(handle, OPT_POSTFIELDSIZE, (long)request->body_length);
        api.easy_setopt(handle, OPT_POSTFIELDS, request->body != NULL ? (const char *)request->body : "");
    }

    result.curl_code = api.easy_perform(handle);
    api.easy_getinfo(handle, INFO_RESPONSE_CODE, &result.status);
    if (result.curl_code != 0) {
        const char *text = error_buffer[0] ? error_buffer : api.easy_strerror(result.curl_code);
        snprintf(result.message, sizeof(result.message), "%s", text);
        if (result.curl_code == CODE_WRITE_ERROR && body_sink.overflow) {
            result.body_overflow = 1;
            snprintf(result.message, sizeof(result.message), "response body larger than %zu bytes", request->max_body_bytes);
        }
    }
    /* Drop references to stack memory and the header list before returning. */
    api.easy_setopt(handle, OPT_HTTPHEADER, (void *)NULL);
    api.easy_setopt(handle, OPT_ERRORBUFFER, (void *)NULL);
    api.slist_free_all(list);
    return result;
}
