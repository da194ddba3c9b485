#!/usr/bin/python3
"""The same tap with reader feedback on and off, side by side (docs/development.md, "Reader feedback").

  sudo Benchmarks/feedback-latency.py [--binary .build/static/release/tagrouter] [--rounds 5] [--taps 20]
                                      [--answer-delay 10ms]

Starts a private pcscd (private mount namespace: root needed) with vpcd on free ports, then, round after round,
`tagrouter run` twice in turn on the same reader and tags: once with a rules folder that has no `readers:`
entry ("off"), once with one whose entry gives every outcome a signal ("on"). Each tap is an NTAG213 presented
by `tagrouter emulate --timeline`, whose emulated reader answers the LED and buzzer command; the one rule's
`run` action notes when it started (`date +%s%N`, converted to CLOCK_MONOTONIC). Per tap:
  last tag command -> action     after the tag's last answer: disconnect, decode, match, exec
  ATR -> action                  the whole tap
  action -> feedback command     ("on" only) when the reader's LED and buzzer command arrived, against the
                                 command's own start stamp (taken in the child, after its fork and exec: the
                                 router sends the signal once it has started the command, so this is usually
                                 negative, the signal arriving while the child is still being exec'd)
It prints the medians of each for both. The feedback must not delay the action: the first two stretches
should match. It asserts nothing.
"""
import argparse, json, os, signal, statistics, subprocess, sys, tempfile, time
from private_pcscd import finish, free_port, realtime_offset, start as start_pcscd, wait_for

PSEUDO_APDUS = ("FF0040", "FF0052", "FF0048")


def figures(timeline, started):
    """(last tag command -> action, ATR -> action, action -> first feedback command or None) in ms."""
    entries = [json.loads(line) for line in open(timeline)]
    tag_answers, feedback = [], []
    for index, entry in enumerate(entries):
        if entry["event"] != "command":
            continue
        if entry["apdu"].startswith(PSEUDO_APDUS):
            feedback.append(entry["t_ns"])
        elif index + 1 < len(entries) and entries[index + 1]["event"] == "answered":
            tag_answers.append(entries[index + 1]["t_ns"])
    if not tag_answers or started is None:
        return None
    commands = [e["t_ns"] for e in entries if e["event"] == "command"]
    atr = max(e["t_ns"] for e in entries if e["event"] == "atr" and e["t_ns"] <= commands[0])
    after = (feedback[0] - started) / 1e6 if feedback else None
    return ((started - tag_answers[-1]) / 1e6, (started - atr) / 1e6, after)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=".build/static/release/tagrouter")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--taps", type=int, default=20, help="taps per subject per round")
    parser.add_argument("--hold", default="600ms")
    parser.add_argument("--gap", type=float, default=0.6, help="seconds with no tag between taps")
    parser.add_argument("--answer-delay", default="0ms", help="how long the emulated tag and reader take per command")
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    work = tempfile.mkdtemp(prefix="feedback-latency-")
    port = free_port()
    started = f"{work}/started.txt"
    record = ["/bin/sh", "-c", f'echo "$(date +%s%N) $1" >> {started}', "sh", "{uri}"]
    rule = f"rules:\n  - name: bench\n    cooldown: 0\n    match: {{ any: true }}\n    run: {json.dumps(record)}\n"
    readers = ('readers:\n  - name: "Virtual PCD 00 00"\n    feedback:\n'
               "      accepted: { led: green, beep: short }\n      ignored: { led: orange }\n"
               "      failed: { led: red, blink: 2 }\n")
    subjects = {"off": "version: 1\n" + rule, "on": "version: 1\n" + readers + rule}
    for subject, text in subjects.items():
        os.makedirs(f"{work}/{subject}/rules")
        with open(f"{work}/{subject}/rules/bench.yaml", "w") as f:
            f.write(text)
    os.makedirs(f"{work}/timelines")
    pcscd, env = start_pcscd(work, port)
    offset = realtime_offset()
    results = {subject: [] for subject in subjects}
    try:
        time.sleep(0.5)
        for round_ in range(args.rounds):
            for subject in subjects:
                log = open(f"{work}/{subject}.log", "a")
                process = subprocess.Popen(
                    [binary, "run", "--rules", f"{work}/{subject}/rules", "--state-dir", f"{work}/{subject}/state"],
                    env=env, stdout=log, stderr=log)
                if not wait_for(lambda: "watching" in open(f"{work}/{subject}.log").read(), 10):
                    sys.exit(f"{subject} did not start; see {work}/{subject}.log")
                time.sleep(0.5)
                for tap in range(args.taps):
                    uri = f"https://bench.example/{subject}/{round_ * args.taps + tap}"
                    timeline = f"{work}/timelines/{subject}-{round_}-{tap}.jsonl"
                    subprocess.run([binary, "emulate", "--uri", uri, "--vpcd", f"127.0.0.1:{port}", "--hold",
                                    args.hold, "--timeline", timeline, "--answer-delay", args.answer_delay],
                                   env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
                    time.sleep(args.gap)
                    lines = open(started).read().split("\n") if os.path.exists(started) else []
                    seen = [int(line.split()[0]) - offset for line in lines if line.endswith(uri)]
                    result = figures(timeline, seen[0] if seen else None)
                    if result is None:
                        print(f"{subject}: tap {uri} not seen", file=sys.stderr)
                    else:
                        results[subject].append(result)
                process.send_signal(signal.SIGTERM)
                process.wait(timeout=10)
        print(f"{args.rounds} rounds of {args.taps} taps each, alternating; answer delay {args.answer_delay}; "
              "medians in ms")
        print(f"{'stretch':<30}" + "".join(f"{s:>10}" for s in subjects))
        for index, name in enumerate(["last tag command -> action", "ATR -> action"]):
            values = [statistics.median(r[index] for r in results[s]) if results[s] else float("nan")
                      for s in subjects]
            print(f"{name:<30}" + "".join(f"{v:>10.3f}" for v in values))
        after = [r[2] for r in results["on"] if r[2] is not None]
        if after:
            print(f"on: command's own start stamp -> feedback command, median {statistics.median(after):.3f} ms, "
                  f"min {min(after):.3f} ms, max {max(after):.3f} ms ({sum(1 for a in after if a < 0)} of "
                  f"{len(after)} before the stamp: the signal went out while the command was being exec'd)")
        print("taps measured: " + ", ".join(f"{s} {len(results[s])}" for s in subjects))
    finally:
        finish(work, pcscd)


if __name__ == "__main__":
    sys.exit(main())
