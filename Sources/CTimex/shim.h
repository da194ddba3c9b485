// glibc's ntp_adjtime and struct timex (sys/timex.h), which Swift's Glibc module leaves out: whether the kernel
// considers the clock synchronised, for the status document (Sources/TagRouterCore/ClockSync.swift).
#include <sys/timex.h>
