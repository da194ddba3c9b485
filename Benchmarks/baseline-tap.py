#!/usr/bin/python3
"""The plain script TagRouter must beat (docs/development.md, "Tap latency"): pyscard + urllib, ~60 lines.

  Benchmarks/baseline-tap.py --webhook URL            POST {"uid", "uri"} for each tag presented
  Benchmarks/baseline-tap.py --run PROGRAM [ARG...]   run PROGRAM with ARGs and the URI last, for each tag

It waits for a card on every reader (SCardGetStatusChange), connects, asks the UID (FF CA), reads an NFC Forum
Type 2 tag from page 3 (the capability container) in 16-byte READ BINARY commands until the NDEF TLV is
covered (the same commands TagRouter sends), decodes a one-record URI message, and POSTs it or runs the
program. It prints "ready" once it waits for cards. Debian's python3-pyscard; PCSCLITE_CSOCK_NAME is honoured.
"""
import json, signal, subprocess, sys, urllib.request
from smartcard import scard

PREFIXES = ["", "http://www.", "https://www.", "http://", "https://"]


def transmit(card, proto, apdu):
    rv, response = scard.SCardTransmit(card, proto, apdu)
    if rv != scard.SCARD_S_SUCCESS or response[-2:] != [0x90, 0x00]:
        raise IOError(f"{bytes(apdu).hex()}: {scard.SCardGetErrorMessage(rv)} {bytes(response).hex()}")
    return response[:-2]


def read_tag(context, reader):
    rv, card, proto = scard.SCardConnect(context, reader, scard.SCARD_SHARE_SHARED,
                                         scard.SCARD_PROTOCOL_T0 | scard.SCARD_PROTOCOL_T1)
    if rv != scard.SCARD_S_SUCCESS:
        raise IOError(scard.SCardGetErrorMessage(rv))
    try:
        uid = bytes(transmit(card, proto, [0xFF, 0xCA, 0x00, 0x00, 0x00])).hex().upper()
        memory, page = b"", 3
        while True:
            memory += bytes(transmit(card, proto, [0xFF, 0xB0, 0x00, page, 0x10]))
            page += 4
            data, offset = memory[4:], 0
            while offset < len(data) and data[offset] in (0x00, 0x01, 0x02):  # NULL, Lock/Memory Control
                offset += 1 if data[offset] == 0 else 2 + (data[offset + 1] if offset + 1 < len(data) else 0)
            if offset + 2 <= len(data) and data[offset] == 0x03 and offset + 2 + data[offset + 1] <= len(data):
                message = data[offset + 2:offset + 2 + data[offset + 1]]
                break
    finally:
        scard.SCardDisconnect(card, scard.SCARD_LEAVE_CARD)
    # One short URI record: header D1, type length 1, payload length, type "U", prefix code, the rest.
    if len(message) < 5 or message[3] != 0x55:
        return uid, None
    return uid, PREFIXES[message[4]] + message[5:].decode()


def main():
    webhook = sys.argv[2] if sys.argv[1] == "--webhook" else None
    program = sys.argv[2:] if sys.argv[1] == "--run" else None
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the programs run are reaped by the kernel
    _, context = scard.SCardEstablishContext(scard.SCARD_SCOPE_USER)
    _, readers = scard.SCardListReaders(context, [])
    states = [(reader, scard.SCARD_STATE_UNAWARE) for reader in readers]
    print("ready", flush=True)
    while True:
        rv, changed = scard.SCardGetStatusChange(context, scard.INFINITE, states)
        if rv != scard.SCARD_S_SUCCESS:
            continue
        previous, states = dict(states), []
        for reader, state, atr in changed:
            was_present = previous.get(reader, 0) & scard.SCARD_STATE_PRESENT
            states.append((reader, state & ~scard.SCARD_STATE_CHANGED))
            if state & scard.SCARD_STATE_CHANGED and state & scard.SCARD_STATE_PRESENT and not was_present:
                try:
                    uid, uri = read_tag(context, reader)
                except IOError as error:
                    print(f"{reader}: {error}", file=sys.stderr, flush=True)
                    continue
                if webhook:
                    body = json.dumps({"uid": uid, "uri": uri}).encode()
                    request = urllib.request.Request(webhook, body, {"Content-Type": "application/json"})
                    urllib.request.urlopen(request, timeout=5).read()
                else:
                    subprocess.Popen(program + [uri])


if __name__ == "__main__":
    main()
