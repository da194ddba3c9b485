// zlib's crc32, for the CRC32 that NTAG 424 DNA's ChangeKey carries (Sources/SUNMessage/EV2Session.swift).
#include <zlib.h>
