// Build facts compiled into the wpexporter executable.
#ifndef CBUILDINFO_H
#define CBUILDINFO_H

/// The compiler's __DATE__ ("Nov 22 2026") when this unit was compiled.
const char *cbuildinfo_date(void);
/// The compiler's __TIME__ ("02:50:07") when this unit was compiled.
const char *cbuildinfo_time(void);
/// The git commit the manifest found, or "unknown".
const char *cbuildinfo_commit(void);

#endif
