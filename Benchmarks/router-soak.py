#!/usr/bin/env python3
"""Measures the router end to end on a private pcscd with the virtual reader (issue 6 figures).

  Benchmarks/router-soak.py [--binary .build/static/release/tagrouter] [--taps 1000] [--idle 60]

It starts a private pcscd (private mount namespace: root needed) with two virtual readers on free ports, then
`tagrouter run` with one rule whose command appends a line per dispatch, and:
  1. presents --taps virtual tags on the two readers (two at a time, one per reader), each with its own URI,
     resting --hold and then away for --gap (pcscd polls vpcd every 400 ms, so shorter rests or gaps are
     not seen by pcscd at all), and counts the dispatches: exactly --taps are expected;
  2. reads from the router's JSON log the time each tap spent in the router outside the reader
     (latency_ms - read_ms: reader event to dispatch, minus connect and the tag's commands) and prints
     p50/p99/max;
  3. leaves the router idle with both readers attached for --idle seconds and prints its CPU use
     (utime+stime from /proc) and resident memory (VmRSS).
It prints the figures; it asserts nothing about time.
"""
import argparse, json, os, subprocess, sys, tempfile, time
from private_pcscd import cpu_seconds, finish, free_port_pair, start as start_pcscd


def rss_kib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=".build/static/release/tagrouter")
    parser.add_argument("--taps", type=int, default=1000)
    parser.add_argument("--idle", type=int, default=60)
    parser.add_argument("--hold", default="700ms", help="how long each virtual tag rests (pcscd polls vpcd)")
    parser.add_argument("--gap", type=float, default=0.6, help="seconds with no tag between taps")
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    work = tempfile.mkdtemp(prefix="router-soak-")
    port = free_port_pair()
    os.makedirs(f"{work}/rules")
    out = f"{work}/dispatched.txt"
    with open(f"{work}/rules/soak.yaml", "w") as f:
        f.write("version: 1\nrules:\n  - name: soak\n    cooldown: 0\n    match: { any: true }\n"
                f'    run: ["/bin/sh", "-c", "echo \\"$1\\" >> {out}", "sh", "{{uri}}"]\n')
    pcscd, env = start_pcscd(work, port)
    router = None
    try:
        log = open(f"{work}/router.log", "w")
        router = subprocess.Popen([binary, "run", "--rules", f"{work}/rules", "--state-dir", f"{work}/state",
                                   "--log-format", "json"], env=env, stdout=log, stderr=log)
        time.sleep(2)
        start = time.monotonic()
        for index in range(0, args.taps, 2):
            tags = []
            for slot in (0, 1):
                if index + slot >= args.taps:
                    break
                tags.append(subprocess.Popen(
                    [binary, "emulate", "--uri", f"https://soak.example/{index + slot}",
                     "--vpcd", f"127.0.0.1:{port + slot}", "--hold", args.hold],
                    env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            for tag in tags:
                tag.wait()
            time.sleep(args.gap)
        elapsed = time.monotonic() - start
        deadline = time.monotonic() + 10
        lines = []
        while time.monotonic() < deadline:
            lines = open(out).read().split() if os.path.exists(out) else []
            if len(lines) >= args.taps:
                break
            time.sleep(0.2)
        time.sleep(1)
        lines = open(out).read().split() if os.path.exists(out) else []
        print(f"taps presented: {args.taps} over two readers in {elapsed:.1f} s")
        print(f"dispatches: {len(lines)} (distinct tag URIs: {len(set(lines))})")
        overhead = []
        for line in open(f"{work}/router.log"):
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("message") == "tap" and "latency_ms" in event:
                overhead.append((float(event["latency_ms"]) - float(event["read_ms"])) * 1000)
        if overhead:
            print(f"router time outside the reader (us): p50 {percentile(overhead, 50):.0f}, "
                  f"p99 {percentile(overhead, 99):.0f}, max {max(overhead):.0f} over {len(overhead)} taps")
        before = cpu_seconds(router.pid)
        time.sleep(args.idle)
        used = cpu_seconds(router.pid) - before
        print(f"idle {args.idle} s with two readers: {used:.2f} s CPU = {100 * used / args.idle:.3f} % of one core")
        print(f"resident memory: {rss_kib(router.pid) / 1024:.1f} MiB")
    finally:
        finish(work, router, pcscd, keep_variable="SOAK_KEEP")


if __name__ == "__main__":
    sys.exit(main())
