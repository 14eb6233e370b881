#ifndef FINGERLOCK_CKEYUTILS_SHIM_H
#define FINGERLOCK_CKEYUTILS_SHIM_H
#include <keyutils.h>
#endif
