#!/usr/bin/python3
"""Taps on two readers at once against a lone tap (docs/development.md, "Readers in parallel").

  sudo Benchmarks/parallel-taps.py [--binary .build/static/release/tagrouter] [--emulator BINARY] [--rounds 20]
                                   [--answer-delay 10ms]

Starts a private pcscd (private mount namespace: root needed) with vpcd's two readers on free ports, a webhook
receiver on 127.0.0.1 and `tagrouter run` with one rule posting every tag's URI to it. Then, round after
round: a lone tap on the first reader, a lone tap on the second, and a tap on both readers at once (two
`tagrouter emulate` started together). Every tag is an NTAG213 holding a 40-byte URI that answers each command
after --answer-delay, as a real reader does (an ACR122U takes about 10 ms a command); `emulate --timeline`
records when it sent its ATR and when each command arrived, the receiver when each request arrived (before
reading its body), all on CLOCK_MONOTONIC.

Per tap, ATR -> webhook received (and ATR -> first command). It prints the medians for lone taps and, for the
taps made together, of the slower and the faster of each pair, and the ratio of the slower's median to the
lone taps' median: 1.0 when the readers do not wait for each other, about 2 when one waits for the other's
whole read. Pairs whose two ATRs are further apart than one lone read did not overlap, and are counted
apart. --emulator presents the tags with another build (one whose `emulate` has --answer-delay) when --binary
is an older build. It asserts nothing.
"""
import argparse, json, os, statistics, subprocess, sys, tempfile, time
from private_pcscd import WebhookReceiver, finish, free_port_pair, start as start_pcscd, wait_for

URI = rb"https://bench\.example/[a-z0-9]+/[0-9]+"


def measure(timeline, arrived):
    """(ATR, ATR -> first command, ATR -> webhook) in ms for one tap; None when it was not seen."""
    entries = [json.loads(line) for line in open(timeline)]
    commands = [e["t_ns"] for e in entries if e["event"] == "command"]
    if not commands or arrived is None:
        return None
    atr = max(e["t_ns"] for e in entries if e["event"] == "atr" and e["t_ns"] <= commands[0])
    return atr, (commands[0] - atr) / 1e6, (arrived - atr) / 1e6


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=".build/static/release/tagrouter")
    parser.add_argument("--emulator", help="the tagrouter whose `emulate` presents the tags; --binary by default")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--answer-delay", default="10ms")
    parser.add_argument("--hold", default="600ms")
    parser.add_argument("--gap", type=float, default=0.6, help="seconds with no tag between taps")
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    emulator = os.path.abspath(args.emulator or args.binary)
    work = tempfile.mkdtemp(prefix="parallel-taps-")
    port = free_port_pair()
    for folder in ("rules", "timelines"):
        os.makedirs(f"{work}/{folder}")
    receiver = WebhookReceiver(URI)
    hook = receiver.url
    with open(f"{work}/rules/bench.yaml", "w") as f:
        f.write("version: 1\nrules:\n  - name: bench\n    cooldown: 0\n    match: { any: true }\n"
                f'    webhook: {{ url: "{hook}" }}\n')
    pcscd, env = start_pcscd(work, port)
    router = None
    lone, slower, faster, skews, apart = [], [], [], [], 0
    serial = 0

    def present(slots):
        """Presents one tag on each slot at once; returns each tag's measure (None when not seen)."""
        nonlocal serial
        taps = []
        for slot in slots:
            serial += 1
            uri = f"https://bench.example/r{slot}/{serial}"
            timeline = f"{work}/timelines/{serial}.jsonl"
            process = subprocess.Popen(
                [emulator, "emulate", "--uri", uri, "--vpcd", f"127.0.0.1:{port + slot}", "--hold", args.hold,
                 "--timeline", timeline, "--answer-delay", args.answer_delay],
                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            taps.append((process, uri, timeline))
        for process, _, _ in taps:
            if process.wait() != 0:
                sys.exit("emulate failed; is --emulator a build with --answer-delay?")
        time.sleep(args.gap)
        return [measure(timeline, receiver.arrivals.get(uri)) for _, uri, timeline in taps]

    try:
        log = open(f"{work}/router.log", "a")
        router = subprocess.Popen([binary, "run", "--rules", f"{work}/rules", "--state-dir", f"{work}/state"],
                                  env=env, stdout=log, stderr=log)
        if not wait_for(lambda: "watching 2 readers" in open(f"{work}/router.log").read(), 10):
            sys.exit(f"the router did not start; see {work}/router.log")
        time.sleep(0.5)
        for _ in range(args.rounds):
            for slot in (0, 1):
                (tap,) = present([slot])
                if tap:
                    lone.append(tap)
            pair = present([0, 1])
            if None in pair:
                print("a tap of a pair was not seen", file=sys.stderr)
                continue
            skew = abs(pair[0][0] - pair[1][0]) / 1e6
            if lone and skew > statistics.median(t[2] for t in lone):
                apart += 1
                continue
            skews.append(skew)
            slower.append(max(pair, key=lambda t: t[2]))
            faster.append(min(pair, key=lambda t: t[2]))
        print(f"{args.rounds} rounds, each command answered after {args.answer_delay}; medians in ms")
        print(f"{'taps':<34}{'ATR -> first command':>22}{'ATR -> webhook':>16}{'count':>7}")
        for name, taps in (("lone", lone), ("together, the slower of the two", slower),
                           ("together, the faster of the two", faster)):
            if taps:
                print(f"{name:<34}{statistics.median(t[1] for t in taps):>22.3f}"
                      f"{statistics.median(t[2] for t in taps):>16.3f}{len(taps):>7}")
        if skews:
            print(f"ATRs of a pair apart by {statistics.median(skews):.3f} ms (median); "
                  f"{apart} pairs further apart than a lone tap left out")
        if lone and slower:
            ratio = statistics.median(t[2] for t in slower) / statistics.median(t[2] for t in lone)
            print(f"slower of two together / lone, median ATR -> webhook: {ratio:.2f}")
    finally:
        receiver.shutdown()
        finish(work, router, pcscd)


if __name__ == "__main__":
    sys.exit(main())
