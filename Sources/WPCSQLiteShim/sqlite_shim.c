// libsqlite3 through dlopen. The constants below are SQLite's stable ABI values (sqlite3.h):
// SQLITE_OPEN_READONLY 0x1, READWRITE 0x2, CREATE 0x4, NOMUTEX 0x8000, NOFOLLOW 0x1000000;
// SQLITE_TRANSIENT ((void (*)(void *))-1).
#include "sqlite_shim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef int (*open_v2_fn)(const char *, void **, int, const char *);
typedef int (*close_fn)(void *);
typedef const char *(*errmsg_fn)(void *);
typedef int (*errcode_fn)(void *);
typedef int (*busy_timeout_fn)(void *, int);
typedef int (*exec_fn)(void *, const char *, void *, void *, char **);
typedef void (*free_fn)(void *);
typedef int64_t (*changes64_fn)(void *);
typedef int (*changes_fn)(void *);
typedef int (*prepare_v2_fn)(void *, const char *, int, void **, const char **);
typedef int (*statement_fn)(void *);
typedef int (*bind_null_fn)(void *, int);
typedef int (*bind_int64_fn)(void *, int, int64_t);
typedef int (*bind_double_fn)(void *, int, double);
typedef int (*bind_text_fn)(void *, int, const char *, int, void (*)(void *));
typedef int (*column_int_fn)(void *, int);
typedef int64_t (*column_int64_fn)(void *, int);
typedef double (*column_double_fn)(void *, int);
typedef const unsigned char *(*column_text_fn)(void *, int);
typedef const char *(*libversion_fn)(void);

static struct {
    open_v2_fn open_v2;
    close_fn close_v2;
    errmsg_fn errmsg;
    errcode_fn extended_errcode;
    busy_timeout_fn busy_timeout;
    exec_fn exec;
    free_fn free;
    changes64_fn changes64;
    changes_fn changes;
    prepare_v2_fn prepare_v2;
    statement_fn finalize, reset, clear_bindings, step, column_count;
    bind_null_fn bind_null;
    bind_int64_fn bind_int64;
    bind_double_fn bind_double;
    bind_text_fn bind_text;
    column_int_fn column_type, column_bytes;
    column_int64_fn column_int64;
    column_double_fn column_double;
    column_text_fn column_text;
    libversion_fn libversion;
    int loaded;
    char error[256];
} api;

// The head of sqlite3_vfs as sqlite3.h lays it out (iVersion 3 and later, SQLite 3.7.6+): only
// the system-call hooks are used here, the other members are placeholders of the same size.
typedef void (*syscall_ptr)(void);
typedef struct vfs {
    int iVersion, szOsFile, mxPathname;
    struct vfs *pNext;
    const char *zName;
    void *pAppData;
    void *methods[12];   // xOpen ... xGetLastError
    void *xCurrentTimeInt64;
    int (*xSetSystemCall)(struct vfs *, const char *, syscall_ptr);
    syscall_ptr (*xGetSystemCall)(struct vfs *, const char *);
} vfs;
typedef vfs *(*vfs_find_fn)(const char *);

// Run as root, SQLite gives each WAL and journal file it creates the owner of the database
// (fchown). Creating it as that owner already, the call changes nothing, yet a system-call filter
// that denies @chown (the systemd unit's ~@privileged) kills the process for it. The unix VFS lets
// a system call be replaced: this one asks only when the owner would change.
typedef int (*fchown_fn)(int, uid_t, gid_t);
static fchown_fn original_fchown;
static int owner_changing_fchown(int fd, uid_t uid, gid_t gid) {
    struct stat status;
    if (fstat(fd, &status) == 0 && status.st_uid == uid && status.st_gid == gid) return 0;
    return original_fchown(fd, uid, gid);
}

static void replace_fchown(void *lib) {
    vfs_find_fn find = (vfs_find_fn)dlsym(lib, "sqlite3_vfs_find");
    vfs *unix_vfs = find ? find(NULL) : NULL;
    if (unix_vfs == NULL || unix_vfs->iVersion < 3 || unix_vfs->zName == NULL || strncmp(unix_vfs->zName, "unix", 4) != 0) return;
    original_fchown = (fchown_fn)unix_vfs->xGetSystemCall(unix_vfs, "fchown");
    if (original_fchown != NULL) unix_vfs->xSetSystemCall(unix_vfs, "fchown", (syscall_ptr)owner_changing_fchown);
}

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static const char *requested;

static void load_library(void) {
    const char *names[] = {requested, "libsqlite3.so.0", "libsqlite3.so", "libsqlite3.0.dylib", "libsqlite3.dylib"};
    void *lib = NULL;
    const char *tried = requested != NULL ? requested : "libsqlite3.so.0";
    for (size_t i = requested != NULL ? 0 : 1; i < sizeof(names) / sizeof(names[0]) && lib == NULL; i++) {
        lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (requested != NULL) break;
    }
    if (lib == NULL) {
        const char *reason = dlerror();
        snprintf(api.error, sizeof(api.error), "libsqlite3 not found (tried %s): %s", tried, reason ? reason : "not found");
        return;
    }
#define LOAD(field, symbol) api.field = (typeof(api.field))dlsym(lib, symbol); \
    if (api.field == NULL) { snprintf(api.error, sizeof(api.error), "libsqlite3 lacks %s", symbol); return; }
    LOAD(open_v2, "sqlite3_open_v2")
    LOAD(close_v2, "sqlite3_close_v2")
    LOAD(errmsg, "sqlite3_errmsg")
    LOAD(extended_errcode, "sqlite3_extended_errcode")
    LOAD(busy_timeout, "sqlite3_busy_timeout")
    LOAD(exec, "sqlite3_exec")
    LOAD(free, "sqlite3_free")
    LOAD(changes, "sqlite3_changes")
    LOAD(prepare_v2, "sqlite3_prepare_v2")
    LOAD(finalize, "sqlite3_finalize")
    LOAD(reset, "sqlite3_reset")
    LOAD(clear_bindings, "sqlite3_clear_bindings")
    LOAD(step, "sqlite3_step")
    LOAD(column_count, "sqlite3_column_count")
    LOAD(bind_null, "sqlite3_bind_null")
    LOAD(bind_int64, "sqlite3_bind_int64")
    LOAD(bind_double, "sqlite3_bind_double")
    LOAD(bind_text, "sqlite3_bind_text")
    LOAD(column_type, "sqlite3_column_type")
    LOAD(column_bytes, "sqlite3_column_bytes")
    LOAD(column_int64, "sqlite3_column_int64")
    LOAD(column_double, "sqlite3_column_double")
    LOAD(column_text, "sqlite3_column_text")
    LOAD(libversion, "sqlite3_libversion")
#undef LOAD
    // sqlite3_changes64 is newer (3.37); sqlite3_changes serves before it.
    api.changes64 = (changes64_fn)dlsym(lib, "sqlite3_changes64");
    replace_fchown(lib);
    api.loaded = 1;
}

int wp_sqlite_load(const char *library, char *message, size_t capacity) {
    static pthread_mutex_t first = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&first);
    if (requested == NULL && library != NULL && library[0] != 0) requested = strdup(library);
    pthread_mutex_unlock(&first);
    pthread_once(&load_once, load_library);
    if (api.loaded) return 0;
    if (message != NULL && capacity > 0) snprintf(message, capacity, "%s", api.error);
    return -1;
}

const char *wp_sqlite_libversion(void) { return api.loaded ? api.libversion() : ""; }

int wp_sqlite_open(const char *path, int create, int readonly, void **db, char *message, size_t capacity) {
    *db = NULL;
    if (wp_sqlite_load(NULL, message, capacity) != 0) return WP_SQLITE_CANTOPEN;
    int flags = (readonly ? 0x1 : 0x2) | (create && !readonly ? 0x4 : 0) | 0x8000 | 0x1000000;
    int code = api.open_v2(path, db, flags, NULL);
    if (code != WP_SQLITE_OK) {
        if (message != NULL && capacity > 0) snprintf(message, capacity, "%s", *db ? api.errmsg(*db) : "out of memory");
        if (*db) api.close_v2(*db);
        *db = NULL;
    }
    return code;
}

int wp_sqlite_close(void *db) { return api.loaded && db ? api.close_v2(db) : WP_SQLITE_OK; }
const char *wp_sqlite_errmsg(void *db) { return api.errmsg(db); }
int wp_sqlite_extended_errcode(void *db) { return api.extended_errcode(db); }
int wp_sqlite_busy_timeout(void *db, int milliseconds) { return api.busy_timeout(db, milliseconds); }

int wp_sqlite_exec(void *db, const char *sql, char *message, size_t capacity) {
    char *error = NULL;
    int code = api.exec(db, sql, NULL, NULL, &error);
    if (code != WP_SQLITE_OK && message != NULL && capacity > 0) {
        snprintf(message, capacity, "%s", error ? error : api.errmsg(db));
    }
    if (error) api.free(error);
    return code;
}

int64_t wp_sqlite_changes(void *db) { return api.changes64 ? api.changes64(db) : api.changes(db); }
int wp_sqlite_prepare(void *db, const char *sql, void **statement) { return api.prepare_v2(db, sql, -1, statement, NULL); }
int wp_sqlite_finalize(void *statement) { return api.finalize(statement); }
int wp_sqlite_reset(void *statement) { return api.reset(statement); }
int wp_sqlite_clear_bindings(void *statement) { return api.clear_bindings(statement); }
int wp_sqlite_step(void *statement) { return api.step(statement); }
int wp_sqlite_bind_null(void *statement, int index) { return api.bind_null(statement, index); }
int wp_sqlite_bind_int64(void *statement, int index, int64_t value) { return api.bind_int64(statement, index, value); }
int wp_sqlite_bind_double(void *statement, int index, double value) { return api.bind_double(statement, index, value); }
int wp_sqlite_bind_text(void *statement, int index, const char *text, int length) {
    return api.bind_text(statement, index, text, length, (void (*)(void *))-1);
}
int wp_sqlite_column_count(void *statement) { return api.column_count(statement); }
int wp_sqlite_column_type(void *statement, int column) { return api.column_type(statement, column); }
int64_t wp_sqlite_column_int64(void *statement, int column) { return api.column_int64(statement, column); }
double wp_sqlite_column_double(void *statement, int column) { return api.column_double(statement, column); }
const unsigned char *wp_sqlite_column_text(void *statement, int column, int *length) {
    const unsigned char *text = api.column_text(statement, column);
    *length = api.column_bytes(statement, column);
    return text;
}
