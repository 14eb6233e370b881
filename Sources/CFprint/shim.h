#ifndef FINGERLOCK_CFPRINT_SHIM_H
#define FINGERLOCK_CFPRINT_SHIM_H
#include <fprint.h>
#endif
