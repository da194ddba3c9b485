/// Malformed NDEF messages and the exact error sentence each must produce: the NDEF unit tests decode them, the
/// fault suite presents each on a virtual tag to a running router.
public let malformedNDEFVectors: [(hex: String, error: String)] = [
    // Truncated headers.
    ("d1", "record 0 at byte 0: record header needs 3 bytes but the message ends after 1 byte"),
    ("c1 01 00 00", "record 0 at byte 0: record header needs 6 bytes but the message ends after 4 bytes"),
    ("d9 01 04", "record 0 at byte 0: record header needs 4 bytes but the message ends after 3 bytes"),
    ("95 00 00 51", "record 1 at byte 3: record header needs 3 bytes but the message ends after 1 byte"),
    // Lengths past the end.
    (
        "95 00 05 0102030405  15 00 06 010203040506  45 00 0000012c 000102030405060708090a0b0c0d0e0f1011",
        "record 2 at byte 17: payload length 300 runs past the end of the message (41 bytes)"
    ),
    ("d1 05 00 55", "record 0 at byte 0: type length 5 runs past the end of the message (4 bytes)"),
    ("d9 01 00 04 55 41", "record 0 at byte 0: ID length 4 runs past the end of the message (6 bytes)"),
    (
        "c5 00 ffffffff 00000000",
        "record 0 at byte 0: payload length 4294967295 runs past the end of the message (10 bytes)"
    ),
    // MB and ME.
    ("55 00 00", "record 0 at byte 0: the first record does not have the MB (message begin) flag"),
    ("95 00 00 d5 00 00", "record 1 at byte 3: a record after the first has the MB (message begin) flag"),
    ("95 00 00 15 00 00", "record 1 at byte 3: the message ends without a record that has the ME (message end) flag"),
    (
        "d5 00 00 15 00 00",
        "record 1 at byte 3: the message continues for 3 bytes after the record that has the ME (message end) flag"
    ),
    (
        "d5 00 00 00",
        "record 1 at byte 3: the message continues for 1 byte after the record that has the ME (message end) flag"
    ),
    // TNF rules.
    ("d7 00 00", "record 0 at byte 0: TNF 7 is reserved"),
    (
        "d0 01 00 55",
        "record 0 at byte 0: an empty record (TNF 0) has type length 1, ID length 0 and payload length 0, all must be 0"
    ),
    (
        "d0 00 01 00",
        "record 0 at byte 0: an empty record (TNF 0) has type length 0, ID length 0 and payload length 1, all must be 0"
    ),
    ("d5 01 00 55", "record 0 at byte 0: a record with TNF 5 (unknown) has type length 1, must be 0"),
    ("d1 00 00", "record 0 at byte 0: a record with TNF 1 (well-known) has no type"),
    ("d2 00 01 00", "record 0 at byte 0: a record with TNF 2 (media) has no type"),
    // Chunk misuse.
    ("d6 00 00", "record 0 at byte 0: TNF 6 (unchanged) without a chunked record before it"),
    ("b1 01 01 55 04  51 01 01 55 61", "record 1 at byte 5: a chunked record continues with TNF 1 instead of 6"),
    ("f1 01 01 55 04", "record 0 at byte 0: a record with the CF (chunk) flag also has the ME (message end) flag"),
    (
        "b1 01 01 55 04  56 01 01 55 61",
        "record 1 at byte 5: a record with TNF 6 (unchanged) has type length 1, must be 0"
    ),
    ("b1 01 01 55 04  5e 00 01 01 41 61", "record 1 at byte 5: a chunk continuation has the IL (ID length) flag"),
    ("b1 01 01 55 04  36 00 01 61", "record 1 at byte 5: the message ends inside a chunked record"),
    ("b0 00 00", "record 0 at byte 0: an empty record (TNF 0) has the CF (chunk) flag"),
    ("b1 01 01 55 04  d6 00 01 61", "record 1 at byte 5: a record after the first has the MB (message begin) flag"),
    // URI records.
    ("d1 01 02 55 24 61", "record 0 at byte 4: URI identifier code 0x24 is reserved (0x00 to 0x23 are defined)"),
    ("d1 01 02 55 ff 61", "record 0 at byte 4: URI identifier code 0xFF is reserved (0x00 to 0x23 are defined)"),
    ("d1 01 01 55 04", "record 0 at byte 4: URI record holds only its identifier code 0x04 and no URI text"),
    ("d1 01 01 55 00", "record 0 at byte 4: URI record holds only its identifier code 0x00 and no URI text"),
    ("d1 01 00 55", "record 0 at byte 4: URI record has an empty payload"),
    ("d1 01 03 55 04 c3 28", "record 0 at byte 5: URI text is not valid UTF-8"),
    ("d1 01 06 55 04 61 62 ed a0 80", "record 0 at byte 7: URI text is not valid UTF-8"),
    ("d1 01 04 55 04 61 c0 af", "record 0 at byte 6: URI text is not valid UTF-8"),
    ("d1 01 03 55 04 61 0a", "record 0 at byte 6: URI text holds the control character 0x0A"),
    (
        "b1 01 01 55 30  56 00 01 61",
        "record 0 at byte 0: URI identifier code 0x30 is reserved (0x00 to 0x23 are defined)"
    ),
    ("d3 01 00 ff", "record 0 at byte 0: absolute URI type is not valid UTF-8"),
    // Text records.
    ("d1 01 00 54", "record 0 at byte 4: Text record has an empty payload"),
    ("d1 01 02 54 00 61", "record 0 at byte 4: Text record has an empty language code"),
    (
        "d1 01 03 54 05 65 6e",
        "record 0 at byte 4: Text record language code length 5 runs past the end of its payload (3 bytes)"
    ),
    ("d1 01 04 54 02 65 ff 61", "record 0 at byte 6: Text record language code holds the byte 0xFF"),
    ("d1 01 04 54 02 65 6e ff", "record 0 at byte 7: Text record text is not valid UTF-8"),
    ("d1 01 06 54 02 65 6e 61 e2 82", "record 0 at byte 8: Text record text is not valid UTF-8"),
    ("d1 01 04 54 82 65 6e 00", "record 0 at byte 7: Text record UTF-16 text has an odd length (1 byte)"),
    ("d1 01 05 54 82 65 6e d8 00", "record 0 at byte 7: Text record text is not valid UTF-16"),
    ("d1 01 09 54 82 65 6e fffe 4100 00dc", "record 0 at byte 11: Text record text is not valid UTF-16"),
    // Smart Posters.
    (
        "d1 02 09 5370 d1 01 05 54 02656e4869",
        "record 0 at byte 5: Smart Poster holds 0 URI records, must hold exactly 1"
    ),
    (
        "d1 02 0c 5370 91 01 02 55 0461  51 01 02 55 0462",
        "record 0 at byte 5: Smart Poster holds 2 URI records, must hold exactly 1"
    ),
    (
        "d1 02 0d 5370 91 01 02 55 0461  51 03 01 616374 07",
        "record 0 at byte 5: Smart Poster action 7 is not 0 (open), 1 (save) or 2 (edit)"
    ),
    (
        "d1 02 0e 5370 91 01 02 55 0461  51 03 02 616374 0000",
        "record 0 at byte 5: Smart Poster action record has a 2-byte payload, must be 1"
    ),
    (
        "d1 02 0d 5370 91 01 02 55 0461  51 01 03 73 000001",
        "record 0 at byte 5: Smart Poster size record has a 3-byte payload, must be 4"
    ),
    (
        "d1 02 03 5370 91 01 05",
        "record 0 at byte 5: in the Smart Poster, record 0: type length 1 runs past the end of the Smart Poster "
            + "payload (3 bytes)"
    ),
    (
        "d1 02 06 5370 d1 01 02 55 30 61",
        "record 0 at byte 9: in the Smart Poster, record 0: URI identifier code 0x30 is reserved (0x00 to 0x23 are "
            + "defined)"
    ),
    (
        "d1 02 05 5370 d1 01 01 55 04",
        "record 0 at byte 9: in the Smart Poster, record 0: URI record holds only its identifier code 0x04 and no "
            + "URI text"
    ),
    // Android Application Records.
    (
        "d4 0f 00 616e64726f69642e636f6d3a706b67",
        "record 0 at byte 18: Android Application Record has an empty package name"
    ),
    (
        "d4 0f 01 616e64726f69642e636f6d3a706b67 ff",
        "record 0 at byte 18: Android Application Record package name is not valid UTF-8"
    ),
]
