#ifndef CPCSCLITE_SHIM_H
#define CPCSCLITE_SHIM_H
#include <winscard.h>
#include <reader.h>
#endif
