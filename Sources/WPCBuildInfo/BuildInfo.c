#include "WPCBuildInfo.h"

#ifndef WPEXPORTER_GIT_COMMIT
#define WPEXPORTER_GIT_COMMIT "unknown"
#endif

const char *cbuildinfo_date(void) { return __DATE__; }
const char *cbuildinfo_time(void) { return __TIME__; }
const char *cbuildinfo_commit(void) { return WPEXPORTER_GIT_COMMIT; }
