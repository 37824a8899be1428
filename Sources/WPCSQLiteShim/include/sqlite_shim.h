// A minimal bridge to the system's libsqlite3 loaded at run time with dlopen: no sqlite3.h is
// needed at build time and the binary has no link-time dependency on the library. Only the calls
// the history database uses are exposed; their names and result codes are SQLite's stable C API.
#ifndef WPEXPORTER_SQLITE_SHIM_H
#define WPEXPORTER_SQLITE_SHIM_H

#include <stddef.h>
#include <stdint.h>

/// SQLite's result codes the callers look at (sqlite3.h).
enum {
    WP_SQLITE_OK = 0, WP_SQLITE_BUSY = 5, WP_SQLITE_LOCKED = 6, WP_SQLITE_READONLY = 8,
    WP_SQLITE_CORRUPT = 11, WP_SQLITE_FULL = 13, WP_SQLITE_CANTOPEN = 14, WP_SQLITE_NOTADB = 26,
    WP_SQLITE_ROW = 100, WP_SQLITE_DONE = 101,
};

/// Column types (sqlite3.h).
enum { WP_SQLITE_INTEGER = 1, WP_SQLITE_FLOAT = 2, WP_SQLITE_TEXT = 3, WP_SQLITE_BLOB = 4, WP_SQLITE_NULL = 5 };

/// Loads the library once (the first call's `library`, else libsqlite3.so.0 and the other usual
/// names); 0 when it is usable, -1 with the reason in `message` otherwise (the same answer for
/// every later call).
int wp_sqlite_load(const char *library, char *message, size_t capacity);

/// The library's version (`3.46.1`); "" when it is not loaded.
const char *wp_sqlite_libversion(void);

/// Opens (creating when `create`) the database at `path`, read-write or read-only, in
/// serialized-off (one connection per thread) mode, without following a symbolic link as the
/// last component. SQLite's result code; on failure `*db` is closed and NULL and `message`
/// says why.
int wp_sqlite_open(const char *path, int create, int readonly, void **db, char *message, size_t capacity);
int wp_sqlite_close(void *db);
/// The message of the connection's last error.
const char *wp_sqlite_errmsg(void *db);
/// The extended result code of the connection's last error.
int wp_sqlite_extended_errcode(void *db);
int wp_sqlite_busy_timeout(void *db, int milliseconds);
/// Runs `sql` (one or more statements, no results); SQLite's result code, the message in `message`.
int wp_sqlite_exec(void *db, const char *sql, char *message, size_t capacity);
/// Rows changed by the last statement.
int64_t wp_sqlite_changes(void *db);

int wp_sqlite_prepare(void *db, const char *sql, void **statement);
int wp_sqlite_finalize(void *statement);
int wp_sqlite_reset(void *statement);
int wp_sqlite_clear_bindings(void *statement);
int wp_sqlite_step(void *statement);
int wp_sqlite_bind_null(void *statement, int index);
int wp_sqlite_bind_int64(void *statement, int index, int64_t value);
int wp_sqlite_bind_double(void *statement, int index, double value);
/// Binds `length` UTF-8 bytes, copied by SQLite.
int wp_sqlite_bind_text(void *statement, int index, const char *text, int length);
int wp_sqlite_column_count(void *statement);
int wp_sqlite_column_type(void *statement, int column);
int64_t wp_sqlite_column_int64(void *statement, int column);
double wp_sqlite_column_double(void *statement, int column);
/// The column's UTF-8 bytes (valid until the next step, reset or finalize) and their number.
const unsigned char *wp_sqlite_column_text(void *statement, int column, int *length);

#endif
