#!/usr/bin/python3
"""Tap-to-action latency, TagRouter against a plain script, side by side (docs/development.md, "Tap latency").

  sudo Benchmarks/tap-latency.py [--binary .build/static/release/tagrouter] [--action webhook|run] [--rounds 5]
                                 [--taps 20] [--against OTHER_BUILD] [--other-args ARGS]

Starts a private pcscd (private mount namespace: root needed) with vpcd on free ports, a webhook receiver on
127.0.0.1, and then, round after round, the plain script (Benchmarks/baseline-tap.py) and `tagrouter run`
in turn, each for --taps taps of an NTAG213 holding a 40-byte URI, presented by `tagrouter emulate
--timeline`. Only one of the two runs at a time, on the same pcscd, reader, tags and receiver. With
--against, a second build of tagrouter takes its turn too (column "other"), to compare two builds in one run;
--other-args adds options to that subject's `run` (the same build with `--against` and `--other-args` compares
one option's effect, such as `--other-args=--concurrency=1`).

Every time comes from CLOCK_MONOTONIC, which all processes share: the virtual tag records when it was
powered and sent its ATR, when each command arrived and was answered; the receiver records when each
request arrived (before reading its body); for --action run, the command run records when it started. Per
tap, three stretches:
  ATR -> first command        pcscd's card event to the first APDU (watcher, connect)
  first -> last command       the tag's commands (read)
  last command -> action      after the last answer: disconnect, decode, match, outbox, HTTP or exec
and their sum, ATR -> action. It prints the median of each for both and the ratio of the medians of the sums.
It asserts nothing.
"""
import argparse, json, os, signal, statistics, subprocess, sys, tempfile, time
from private_pcscd import (WebhookReceiver, finish, free_port, print_stretches, realtime_offset, start as start_pcscd,
                           wait_for)

HERE = os.path.dirname(os.path.abspath(__file__))
URI = rb"https://bench\.example/[a-z]+/[0-9]+"


def stretches(timeline, arrived):
    entries = [json.loads(line) for line in open(timeline)]
    commands = [e for e in entries if e["event"] == "command"]
    answers = [e for e in entries if e["event"] == "answered"]
    if not commands or arrived is None:
        return None
    first = commands[0]["t_ns"]
    atr = max(e["t_ns"] for e in entries if e["event"] == "atr" and e["t_ns"] <= first)
    last = answers[-1]["t_ns"]
    return [(first - atr) / 1e6, (last - first) / 1e6, (arrived - last) / 1e6, (arrived - atr) / 1e6,
            len(commands)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=".build/static/release/tagrouter")
    parser.add_argument("--action", choices=["webhook", "run"], default="webhook")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--taps", type=int, default=20, help="taps per subject per round")
    parser.add_argument("--hold", default="600ms")
    parser.add_argument("--gap", type=float, default=0.6, help="seconds with no tag between taps")
    parser.add_argument("--against", help="a second tagrouter build, run in turn with the first (column 'other')")
    parser.add_argument("--other-args", default="", help="options added to the 'other' subject's run command")
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    binaries = {"tagrouter": binary}
    if args.against:
        binaries["other"] = os.path.abspath(args.against)
    subjects = ["script"] + list(binaries)
    work = tempfile.mkdtemp(prefix="tap-latency-")
    port = free_port()
    for folder in ("rules", "timelines"):
        os.makedirs(f"{work}/{folder}")
    receiver = WebhookReceiver(URI)
    hook = receiver.url
    started = f"{work}/started.txt"
    record = ["/bin/sh", "-c", f'echo "$(date +%s%N) $1" >> {started}', "sh"]
    if args.action == "webhook":
        action = f'    webhook: {{ url: "{hook}" }}\n'
        script = [f"{HERE}/baseline-tap.py", "--webhook", hook]
    else:
        action = f"    run: {json.dumps(record + ['{uri}'])}\n"
        script = [f"{HERE}/baseline-tap.py", "--run"] + record
    with open(f"{work}/rules/bench.yaml", "w") as f:
        f.write(f"version: 1\nrules:\n  - name: bench\n    cooldown: 0\n    match: {{ any: true }}\n{action}")
    pcscd, env = start_pcscd(work, port)
    offset = realtime_offset()
    results = {subject: [] for subject in subjects}
    try:
        time.sleep(0.5)
        for round_ in range(args.rounds):
            for subject in subjects:
                log = open(f"{work}/{subject}.log", "a")
                if subject == "script":
                    process = subprocess.Popen(script, env=env, stdout=subprocess.PIPE, stderr=log, text=True)
                    ready = process.stdout.readline().strip() == "ready"
                else:
                    extra = args.other_args.split() if subject == "other" else []
                    process = subprocess.Popen(
                        [binaries[subject], "run", "--rules", f"{work}/rules", "--state-dir", f"{work}/state"] + extra,
                        env=env, stdout=log, stderr=log)
                    ready = wait_for(lambda: "watching" in open(f"{work}/{subject}.log").read(), 10)
                if not ready:
                    sys.exit(f"{subject} did not start; see {work}/{subject}.log")
                time.sleep(0.5)
                for tap in range(args.taps):
                    uri = f"https://bench.example/{subject}/{round_ * args.taps + tap}"
                    timeline = f"{work}/timelines/{subject}-{round_}-{tap}.jsonl"
                    subprocess.run([binary, "emulate", "--uri", uri, "--vpcd", f"127.0.0.1:{port}", "--hold",
                                    args.hold, "--timeline", timeline], env=env, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, check=True)
                    time.sleep(args.gap)
                    if args.action == "run":
                        lines = open(started).read().split("\n") if os.path.exists(started) else []
                        seen = [int(line.split()[0]) - offset for line in lines if line.endswith(uri)]
                        arrived = seen[0] if seen else None
                    else:
                        arrived = receiver.arrivals.get(uri)
                    figures = stretches(timeline, arrived)
                    if figures is None:
                        print(f"{subject}: tap {uri} not seen", file=sys.stderr)
                    else:
                        results[subject].append(figures)
                process.send_signal(signal.SIGTERM)
                process.wait(timeout=10)
        names = ["ATR -> first command", "first -> last command", "last command -> action", "ATR -> action"]
        print(f"action: {args.action}; {args.rounds} rounds of {args.taps} taps each, alternating; medians in ms")
        print_stretches(names, subjects, results, "action")
        print("commands per tap: " + ", ".join(f"{s} {sorted({f[4] for f in results[s]})}" for s in subjects)
              + "; taps measured: " + ", ".join(f"{s} {len(results[s])}" for s in subjects))
        for subject in subjects[1:]:
            if results["script"] and results[subject]:
                ratio = statistics.median(f[3] for f in results[subject]) / statistics.median(
                    f[3] for f in results["script"])
                print(f"{subject} / script, median ATR -> action: {ratio:.2f}")
    finally:
        receiver.shutdown()
        finish(work, pcscd)


if __name__ == "__main__":
    sys.exit(main())
