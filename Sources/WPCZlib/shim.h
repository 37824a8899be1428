#ifndef WPEXPORTER_CZLIB_SHIM_H
#define WPEXPORTER_CZLIB_SHIM_H
#include <zlib.h>
#endif
