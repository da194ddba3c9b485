#!/usr/bin/env python3
"""Writes Tests/NDEFTests/Fixtures/ndeflib-vectors.json: NDEF messages encoded by ndeflib (PyPI `ndeflib`) and
the fields ndeflib decodes from those same bytes. Only ndeflib's encoder and decoder are used, never TagRouter's
codec, so the fixture is an independent reference. Deterministic (fixed seed); run once and commit the output:

    pip install ndeflib && python3 scripts/gen-ndef-fixture.py
"""
import json
import os
import random

import ndef

random.seed(20261123)

WORDS = ["door", "kitchen", "tag", "räksmörgås", "日本語", "emoji-🎉", "a b", "x?y=1&z=2", "path/to/thing", ""]
LANGS = ["en", "de", "fr", "de-CH", "ja", "zh-Hant-TW", "x"]
MEDIA = ["text/plain", "application/json", "application/vnd.example+json", "image/png", "video/mp4",
         "text/vcard", "Application/Octet-Stream"]
EXTERNAL = ["example.com:thing", "android.com:pkg", "nfcpy.org:test", "Example.ORG:Mixed"]


def word():
    return random.choice(WORDS)


def uri_for_prefix(prefix):
    tail = random.choice(["example.com/", "home.example.org/door/kitchen?key=1", "+15551234", "user@example.com",
                          "bücher.example/ü", "x", "a/b/c#frag"])
    return prefix + tail


def text_record():
    encoding = random.choice(["UTF-8", "UTF-16"])
    return ndef.TextRecord(word() + " " + word(), random.choice(LANGS), encoding)


def smart_poster():
    sp = ndef.SmartposterRecord(uri_for_prefix(random.choice(ndef.UriRecord._prefix_strings)))
    for lang in random.sample(LANGS, random.randint(0, 3)):
        sp.set_title(word() + " " + lang, lang, random.choice(["UTF-8", "UTF-16"]))
    if random.random() < 0.6:
        sp.action = random.choice(["exec", "save", "edit"])
    if random.random() < 0.4:
        sp.resource_size = random.randint(0, 2**32 - 1)
    if random.random() < 0.4:
        sp.resource_type = random.choice(["text/html", "audio/mpeg", "image/png"])
    if random.random() < 0.3:
        sp.add_icon(random.choice(["image/png", "image/gif", "video/mp4"]), bytes(random.randrange(256)
                                                                               for _ in range(random.randint(0, 40))))
    return sp


def other_record():
    kind = random.choice(["media", "absolute", "external", "aar", "unknown", "empty", "wellknown"])
    payload = bytes(random.randrange(256) for _ in range(random.choice([0, 1, 5, 40, 255, 256, 300])))
    if kind == "media":
        return ndef.Record(random.choice(MEDIA), None, payload)
    if kind == "absolute":
        return ndef.Record(random.choice(["https://example.com/schema#t", "http://example.org/x", "https://example.com/a?b=c"]),
                           None, payload)
    if kind == "external":
        return ndef.Record("urn:nfc:ext:" + random.choice(EXTERNAL[:1] + EXTERNAL[2:]), None, payload)
    if kind == "aar":
        return ndef.Record("urn:nfc:ext:android.com:pkg", None,
                           random.choice(["com.example.app", "org.nfcpy.demo", "com.ü.app"]).encode())
    if kind == "unknown":
        return ndef.Record("unknown", None, payload)
    if kind == "wellknown":
        return ndef.Record("urn:nfc:wkt:" + random.choice(["Gc", "Xy", "abc", "V"]), None, payload)
    return ndef.Record()


def maybe_name(record):
    if random.random() < 0.25:
        record.name = random.choice(["1", "id-42", "#x", "a" * 200])
    return record


def describe(record):
    tnf, rtype = ndef.Record._encode_type(record.type)
    out = {"tnf": tnf, "type": rtype.decode("ascii"), "id": record.name.encode("latin").hex(),
           "payload": bytes(record.data).hex()}
    if isinstance(record, ndef.UriRecord):
        out["uri"] = record.iri
    elif isinstance(record, ndef.TextRecord):
        out.update(text=record.text, lang=record.language, encoding=record.encoding.lower())
    elif isinstance(record, ndef.SmartposterRecord):
        out["uri"] = record.resource.iri
        out["titles"] = record.titles
        if record.action_records:
            out["action"] = {"exec": "open", "save": "save", "edit": "edit"}[record.action]
        if record.resource_size is not None:
            out["size"] = record.resource_size
        if record.resource_type is not None:
            out["resourceType"] = record.resource_type
        out["records"] = [describe(r) for r in ndef.message_decoder(bytes(record.data))]
    elif tnf == 3:
        out["uri"] = record.type  # the absolute URI is the record type
    elif record.type == "urn:nfc:ext:android.com:pkg":
        out["package"] = bytes(record.data).decode("utf-8")
    return out


def main():
    messages = []
    # Every URI identifier code, three URIs each.
    for prefix in ndef.UriRecord._prefix_strings:
        for _ in range(3):
            messages.append([maybe_name(ndef.UriRecord(uri_for_prefix(prefix)))])
    for _ in range(60):
        messages.append([maybe_name(text_record())])
    for _ in range(50):
        messages.append([maybe_name(smart_poster())])
    for _ in range(40):
        messages.append([maybe_name(other_record())])
    makers = [lambda: ndef.UriRecord(uri_for_prefix(random.choice(ndef.UriRecord._prefix_strings))), text_record,
              smart_poster, other_record]
    for _ in range(80):
        messages.append([maybe_name(random.choice(makers)()) for _ in range(random.randint(2, 6))])

    vectors = []
    for records in messages:
        octets = b"".join(ndef.message_encoder(records))
        # ndeflib's own decoder, strict. A copy of the registry keeps every record decoded with the top-level
        # types (by default ndeflib switches to the first record's local types, so a Smart Poster that comes
        # first makes later Smart Posters opaque).
        decoded = list(ndef.message_decoder(octets, known_types=dict(ndef.Record._known_types)))
        vectors.append({"hex": octets.hex(), "records": [describe(r) for r in decoded]})

    path = os.path.join(os.path.dirname(__file__), "..", "Tests", "NDEFTests", "Fixtures", "ndeflib-vectors.json")
    with open(path, "w", encoding="utf-8") as out:
        json.dump({"generator": "scripts/gen-ndef-fixture.py", "ndeflib": "0.3.3", "vectors": vectors}, out,
                  ensure_ascii=False, indent=1, sort_keys=True)
        out.write("\n")
    print(f"wrote {len(vectors)} messages to {os.path.normpath(path)}")


if __name__ == "__main__":
    main()
