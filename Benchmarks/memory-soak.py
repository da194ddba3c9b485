#!/usr/bin/env python3
"""Whether the router's own memory stays flat over many taps (issue 28, item 10; docs/development.md, "Memory
over many taps").

  sudo Benchmarks/memory-soak.py [--binary .build/static/release/tagrouter] [--taps 10000] [--tags same|new|both]
                                 [--every 1000] [--cooldown 0] [--hold-max 3] [--gap 0.5]

It starts a private pcscd (private mount namespace: root needed) with vpcd's two virtual readers on free ports
(Benchmarks/private_pcscd.py), a webhook receiver on 127.0.0.1 (http.server, HTTP/1.1 keep-alive, answers 200),
and `tagrouter run` with one rule that runs a command (`/bin/sh -c 'echo "$1" >> FILE'`, one line per dispatch)
and then sends a webhook to the receiver (`--actions webhook`: the webhook alone). It then taps --taps times, on both readers at once, and reads
RssAnon (the process's own heap and stacks: what a leak grows) from /proc/PID/status before the first tap and
after every --every taps, once the router has dispatched them all and --settle seconds have passed.

--tags same taps one tag (one UID, one URI) again and again; --tags new a new UID and a new URI every time;
--tags both runs the two one after the other, each with a fresh router and state directory.

The tags are NTAG213s emulated here, in Python, over vpcd's socket protocol (2-byte big-endian length, then the
payload; a 1-byte payload is a control: 0 power off, 1 power on, 2 reset, 4 the ATR), answering FF CA (UID) and
FF B0 (READ BINARY, 16 bytes), as Sources/VirtualTag/Type2Card.swift does: `tagrouter emulate` has one fixed
UID, and a process per tap is slower. pcscd learns that a card came or went only by polling vpcd, about every
410 ms (PCSCLITE_STATUS_POLL_RATE, 400 ms, plus 10 µs), and asks the card for its ATR each time: a tag is
taken away as soon as the router has read its NDEF TLV to the end, and the reader stays empty for --gap seconds,
more than one poll, so that pcscd sees it gone before the next tag comes. A tag not read within --hold-max
seconds is counted as missed. About 2.5-3 taps a second over the two readers: 10,000 taps take about an hour
per --tags mode.

It prints the series (taps, dispatches, webhooks received, RssAnon, VmRSS) and the difference between the last
reading and the one after --warmup taps; it asserts nothing. With --probe it also asks the router, through gdb,
for the bytes in use in malloc's arenas (glibc's malloc_stats(), written to the router's log) and the bytes SQLite
holds (sqlite3_memory_used(): its page caches and statements), to tell a leak from a cache filling up; --sqlite-soft-heap-limit KiB sets SQLite's soft heap limit in the
router before the first tap (sqlite3_soft_heap_limit64, with gdb), to see the series with SQLite's caches bounded
without rebuilding the router.
"""
import argparse, os, signal, socket, struct, subprocess, sys, tempfile, threading, time
from private_pcscd import WebhookReceiver, finish, free_port_pair, start as start_pcscd, wait_for


def contactless_atr(historical):
    atr = [0x3B, 0x80 | len(historical), 0x80, 0x01] + historical
    checksum = 0
    for byte in atr[1:]:
        checksum ^= byte
    return bytes(atr + [checksum])


# The storage-card ATR of an ISO 14443A-3 Ultralight/NTAG (Sources/VirtualTag/VirtualCard.swift, ATR.storageCard).
NTAG_ATR = contactless_atr([0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06, 0x03, 0x00, 0x03, 0, 0, 0, 0])
URI_PREFIXES = [("https://www.", 0x02), ("http://www.", 0x01), ("https://", 0x04), ("http://", 0x03)]


class NTAG213:
    """An NTAG213 (45 pages) holding one URI record, laid out as Sources/VirtualTag/Type2Layout.swift does
    (without the lock control TLV)."""
    PAGES = 45

    def __init__(self, uid, uri):
        self.uid = bytes(uid)
        code, rest = 0x00, uri
        for prefix, value in URI_PREFIXES:
            if uri.startswith(prefix):
                code, rest = value, uri[len(prefix):]
                break
        payload = bytes([code]) + rest.encode()
        record = bytes([0xD1, 0x01, len(payload), 0x55]) + payload
        tlv = bytes([0x03, len(record)]) + record + bytes([0xFE])
        u = self.uid
        memory = bytearray(self.PAGES * 4)
        memory[0:12] = bytes([u[0], u[1], u[2], 0x88 ^ u[0] ^ u[1] ^ u[2], u[3], u[4], u[5], u[6],
                              u[3] ^ u[4] ^ u[5] ^ u[6], 0x48, 0, 0])
        memory[12:16] = bytes([0xE1, 0x10, 0x12, 0x00])
        memory[16:16 + len(tlv)] = tlv
        memory[41 * 4:41 * 4 + 8] = bytes([0x04, 0, 0, 0xFF, 0, 0x05, 0, 0])
        self.memory = bytes(memory)
        self.end = 16 + len(tlv) - 1  # the end of the message: a reader need not read the terminator TLV
        self.read_to = 0

    def respond(self, apdu):
        if len(apdu) < 4 or apdu[0] != 0xFF:
            return b"\x6E\x00"
        if apdu[1] == 0xCA:
            return self.uid + b"\x90\x00" if apdu[2] == 0 else b"\x6A\x81"
        if apdu[1] == 0xB0:
            page = apdu[3]
            if page >= self.PAGES:
                return b"\x63\x00"
            start = page * 4
            data = bytes(self.memory[(start + i) % len(self.memory)] for i in range(16))
            self.read_to = max(self.read_to, start + 16)
            return data + b"\x90\x00"
        return b"\x6D\x00"

    @property
    def is_read(self):
        return self.read_to >= self.end


def receive_exactly(sock, count):
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def present(port, card, hold_max):
    """Presents `card` on vpcd's `port` until the router has read its NDEF TLV (or hold_max seconds); returns
    whether it was read."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    deadline = time.monotonic() + hold_max
    try:
        while not card.is_read:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            sock.settimeout(remaining)
            try:
                header = receive_exactly(sock, 2)
                message = header and receive_exactly(sock, header[0] << 8 | header[1])
            except socket.timeout:
                return False
            if message is None:
                return False
            if len(message) == 1:
                if message[0] == 0x04:
                    sock.sendall(struct.pack(">H", len(NTAG_ATR)) + NTAG_ATR)
                continue
            response = card.respond(message)
            sock.sendall(struct.pack(">H", len(response)) + response)
        return True
    finally:
        sock.close()


def status(pid):
    values = {}
    for line in open(f"/proc/{pid}/status"):
        name, _, rest = line.partition(":")
        if name in ("RssAnon", "VmRSS", "Threads"):
            values[name] = int(rest.split()[0])
    return values


def probe(pid, log_path):
    """With gdb: the bytes SQLite holds (sqlite3_memory_used()) and the bytes in use in malloc's arenas (glibc's
    malloc_stats(), which the router writes to its standard error, the log). gdb stops the router for a moment."""
    offset = os.path.getsize(log_path)
    result = subprocess.run(["gdb", "-p", str(pid), "-batch", "-nx", "-ex", "call (long long) sqlite3_memory_used()",
                             "-ex", "call (void) malloc_stats()"], capture_output=True, text=True)
    sqlite = None
    for line in result.stdout.splitlines():
        if line.startswith("$1 = "):
            sqlite = int(line.split("=")[1]) // 1024
    in_use = None
    with open(log_path) as f:
        f.seek(offset)
        lines = f.read().splitlines()
    for index, line in enumerate(lines):
        if line.startswith("Total (incl. mmap)"):
            in_use = int(lines[index + 2].split("=")[1]) // 1024
    return sqlite, in_use


def count_lines(path):
    if not os.path.exists(path):
        return 0
    with open(path, "rb") as f:
        return sum(1 for _ in f)


def soak(args, binary, mode):
    work = tempfile.mkdtemp(prefix=f"memory-soak-{mode}-")
    port = free_port_pair()
    os.makedirs(f"{work}/rules")
    receiver = WebhookReceiver()
    hook = receiver.url
    commands = f"{work}/commands.txt"
    with open(f"{work}/rules/soak.yaml", "w") as f:
        f.write("version: 1\nrules:\n  - name: soak\n    match: { any: true }\n"
                f"    cooldown: {args.cooldown}\n"
                + (f"    run: ['/bin/sh', '-c', 'echo \"$1\" >> {commands}', 'sh', '{{uri}}']\n"
                   if args.actions == "run+webhook" else "")
                + f"    webhook: {{ url: '{hook}' }}\n")
    pcscd, env = start_pcscd(work, port)
    router = None
    try:
        log = open(f"{work}/router.log", "w")
        router = subprocess.Popen([binary, "run", "--rules", f"{work}/rules", "--state-dir", f"{work}/state"]
                                  + args.router_args, env=env, stdout=log, stderr=log)
        if not wait_for(lambda: "watching 2 readers" in open(f"{work}/router.log").read(), 15):
            sys.exit(f"the router did not see both readers; see {work}/router.log")
        if args.sqlite_soft_heap_limit is not None:
            # An experiment without a rebuild: SQLite recycles its page caches' pages rather than allocate more
            # once the bytes it holds reach this (sqlite3_soft_heap_limit64), as a smaller cache_size would.
            subprocess.run(["gdb", "-p", str(router.pid), "-batch", "-nx", "-ex",
                            f"call (long long) sqlite3_soft_heap_limit64({args.sqlite_soft_heap_limit * 1024}LL)"],
                           capture_output=True, check=True)
        time.sleep(args.settle)
        print(f"\n--tags {mode}: {args.taps} taps, a reading every {args.every} "
              f"(router pid {router.pid}, {work})", flush=True)
        print(f"{'taps':>7}{'missed':>8}{'commands':>10}{'webhooks':>10}{'RssAnon KiB':>13}{'VmRSS KiB':>11}"
              f"{'threads':>9}{'s':>7}" + (f"{'malloc in use':>15}{'SQLite':>9}" if args.probe else ""), flush=True)
        series = []
        started = time.monotonic()

        def reading(taps, missed):
            expected = taps - missed
            runs = expected if args.actions == "run+webhook" else 0
            wait_for(lambda: count_lines(commands) >= runs and receiver.received >= expected, 30)
            time.sleep(args.settle)
            values = status(router.pid)
            series.append((taps, values["RssAnon"]))
            probed = ""
            if args.probe:
                sqlite, in_use = probe(router.pid, f"{work}/router.log")
                probed = f"{in_use if in_use is not None else '?':>15}{sqlite if sqlite is not None else '?':>9}"
            print(f"{taps:>7}{missed:>8}{count_lines(commands):>10}{receiver.received:>10}"
                  f"{values['RssAnon']:>13}{values['VmRSS']:>11}{values['Threads']:>9}"
                  f"{time.monotonic() - started:>7.0f}" + probed, flush=True)

        reading(0, 0)
        next_tap = [0]
        missed = [0]
        lock = threading.Lock()
        batch_end = [0]

        def slot(offset):
            while True:
                with lock:
                    if next_tap[0] >= batch_end[0]:
                        return
                    index = next_tap[0]
                    next_tap[0] += 1
                if mode == "same":
                    card = NTAG213([0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0x80], "https://soak.example/door")
                else:
                    card = NTAG213([0x04] + list((index + 1).to_bytes(6, "big")), f"https://soak.example/tag/{index}")
                if not present(port + offset, card, args.hold_max):
                    with lock:
                        missed[0] += 1
                time.sleep(args.gap)

        done = 0
        while done < args.taps:
            batch_end[0] = min(args.taps, done + args.every)
            threads = [threading.Thread(target=slot, args=(offset,), daemon=True) for offset in (0, 1)]
            for thread in threads:
                thread.start()
            for thread in threads:
                while thread.is_alive():
                    thread.join(0.5)  # with a timeout, so that Ctrl-C or SIGTERM ends the run (and its router)
            done = batch_end[0]
            reading(done, missed[0])
        warm = [kib for taps, kib in series if taps >= args.warmup]
        if len(warm) >= 2:
            print(f"RssAnon from {args.warmup} taps to {series[-1][0]}: {warm[0]} -> {warm[-1]} KiB "
                  f"({warm[-1] - warm[0]:+d} KiB, {(warm[-1] - warm[0]) * 1024 / max(1, series[-1][0] - args.warmup):+.0f} "
                  f"bytes per tap)", flush=True)
        return series
    finally:
        receiver.shutdown()
        finish(work, router, pcscd, keep_variable="SOAK_KEEP", timeout=20)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=".build/static/release/tagrouter")
    parser.add_argument("--taps", type=int, default=10000)
    parser.add_argument("--tags", choices=["same", "new", "both"], default="both",
                        help="one tag again and again, a new UID and URI every tap, or the two in turn")
    parser.add_argument("--every", type=int, default=1000, help="taps between two readings")
    parser.add_argument("--warmup", type=int, default=1000, help="taps after which the growth is counted")
    parser.add_argument("--actions", choices=["run+webhook", "webhook"], default="run+webhook",
                        help="the rule's actions: a command and a webhook (the default), or the webhook alone")
    parser.add_argument("--cooldown", default="0", help="the rule's cooldown (0: every tap dispatches)")
    parser.add_argument("--hold-max", type=float, default=3, help="seconds a tag waits to be read")
    parser.add_argument("--gap", type=float, default=0.5, help="seconds a reader stays empty (> pcscd's poll)")
    parser.add_argument("--settle", type=float, default=2, help="seconds before each reading")
    parser.add_argument("--probe", action="store_true",
                        help="also the KiB in use in malloc's arenas and held by SQLite, read with gdb")
    parser.add_argument("--sqlite-soft-heap-limit", type=int, metavar="KiB",
                        help="an experiment: set SQLite's soft heap limit in the router (with gdb) before the taps")
    parser.add_argument("--router-args", nargs=argparse.REMAINDER, default=[],
                        help="further arguments to `tagrouter run` (last on the line)")
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("stopped by SIGTERM"))
    for mode in (["same", "new"] if args.tags == "both" else [args.tags]):
        soak(args, binary, mode)


if __name__ == "__main__":
    sys.exit(main())
