#!/usr/bin/python3
"""Idle footprint of `tagrouter run`: resident memory, its split, and idle CPU (docs/development.md, "Footprint").

  sudo Benchmarks/idle-footprint.py [--binary .build/static/release/tagrouter] [--settle 15] [--idle 30] [--taps 0]
                                    [--top 12] [--sections] [--dump-pages FILE] [--python]

Starts a private pcscd (private mount namespace: root needed) with vpcd's two virtual readers on free ports,
the way Benchmarks/tap-latency.py does, a webhook receiver on 127.0.0.1, then `tagrouter run` on a rules
folder with a webhook rule and a `run` rule and its state directory in a temporary directory. --settle seconds
after the router logs "watching" (with --taps N: after that, N taps alternating between the two rules and the
two readers, presented by `tagrouter emulate`, and --settle seconds more) it reads /proc/PID/smaps_rollup and
/proc/PID/smaps and prints:
  - Rss, of it anonymous (the process's own heap and stacks) and file-backed (pages of the binary and the
    shared libraries that were touched), and Pss;
  - per mapped file, the resident KiB (all mappings of that file together), largest first (--top of them);
  - with --sections, the binary's resident KiB per ELF section (from /proc/PID/pagemap);
then the CPU it used (utime+stime from /proc/PID/stat) over --idle seconds with both readers attached and no
tag, and Rss again. With --python it measures Benchmarks/baseline-tap.py (the plain script,
pyscard + urllib) the same way instead.
It prints figures and asserts nothing.
"""
import argparse, collections, os, subprocess, sys, tempfile, time
from private_pcscd import WebhookReceiver, cpu_seconds, finish, free_port_pair, start as start_pcscd, wait_for

HERE = os.path.dirname(os.path.abspath(__file__))


def rollup(pid):
    values = {}
    for line in open(f"/proc/{pid}/smaps_rollup"):
        parts = line.split()
        if len(parts) >= 3 and parts[-1] == "kB":
            values[parts[0].rstrip(":")] = int(parts[1])
    return values


def per_file(pid):
    """Resident KiB per mapped file (all its mappings), and per kind of anonymous mapping."""
    files = collections.Counter()
    name = None
    for line in open(f"/proc/{pid}/smaps"):
        head = line.split()
        if not head:
            continue
        if "-" in head[0] and not head[0].endswith(":"):
            name = head[5] if len(head) >= 6 else "[anonymous]"
        elif head[0] == "Rss:":
            files[name] += int(head[1])
    return files


def resident_sections(pid, binary):
    """Resident KiB of the binary per ELF section (from /proc/PID/pagemap, root only), and the resident
    addresses (relative to the load address, so comparable with `nm`)."""
    sections = []
    for line in subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True).stdout.splitlines():
        fields = line.replace("[ ", "[").split()
        if len(fields) >= 7 and fields[0].startswith("[") and fields[0] != "[Nr]" and fields[3] != "00000000" \
                and int(fields[3], 16) and fields[2] != "NOBITS":
            sections.append((int(fields[3], 16), int(fields[3], 16) + int(fields[5], 16), fields[1]))
    real = os.path.realpath(binary)
    mappings = []
    for line in open(f"/proc/{pid}/maps"):
        fields = line.split()
        if len(fields) >= 6 and fields[5] == real:
            start, end = (int(x, 16) for x in fields[0].split("-"))
            mappings.append((start, end, int(fields[2], 16)))
    base = min(start - offset for start, _, offset in mappings)
    page = os.sysconf("SC_PAGE_SIZE")
    counts, addresses = collections.Counter(), []
    with open(f"/proc/{pid}/pagemap", "rb") as pagemap:
        for start, end, _ in mappings:
            pagemap.seek(start // page * 8)
            entries = pagemap.read((end - start) // page * 8)
            for index in range(0, len(entries), 8):
                if int.from_bytes(entries[index:index + 8], "little") >> 63:
                    address = start + index // 8 * page - base
                    addresses.append(address)
                    owners = [name for low, high, name in sections if low < address + page and high > address]
                    for name in owners or ["(no section)"]:
                        counts[name] += page // 1024 / len(owners or [1])
    return counts, addresses


def threads(pid):
    return len(os.listdir(f"/proc/{pid}/task"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=".build/static/release/tagrouter")
    parser.add_argument("--settle", type=float, default=15, help="seconds after 'watching' before measuring")
    parser.add_argument("--idle", type=float, default=30, help="seconds over which idle CPU is measured")
    parser.add_argument("--top", type=int, default=12, help="files listed by resident size")
    parser.add_argument("--taps", type=int, default=0,
                        help="tags presented (alternately a webhook and a run tag, on both readers) before measuring")
    parser.add_argument("--python", action="store_true", help="measure Benchmarks/baseline-tap.py instead")
    parser.add_argument("--sections", action="store_true", help="also the binary's resident KiB per ELF section")
    parser.add_argument("--dump-pages", metavar="FILE", help="write the binary's resident addresses (hex) to FILE")
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    work = tempfile.mkdtemp(prefix="idle-footprint-")
    port = free_port_pair()
    os.makedirs(f"{work}/rules")
    receiver = WebhookReceiver()
    hook = receiver.url
    with open(f"{work}/rules/idle.yaml", "w") as f:
        f.write("version: 1\nrules:\n"
                "  - name: hook\n    match: { domains: [idle.example], paths: ['/hook/*'] }\n    cooldown: 0\n"
                f"    webhook: {{ url: '{hook}' }}\n"
                "  - name: command\n    match: { domains: [idle.example], paths: ['/run/*'] }\n    cooldown: 0\n"
                "    run: ['/bin/true', '{uri}']\n")
    pcscd, env = start_pcscd(work, port)
    process = None
    try:
        time.sleep(0.5)
        log = open(f"{work}/subject.log", "w")
        if args.python:
            subject = "baseline-tap.py"
            process = subprocess.Popen([f"{HERE}/baseline-tap.py", "--webhook", hook],
                                       env=env, stdout=subprocess.PIPE, stderr=log, text=True)
            ready = process.stdout.readline().strip() == "ready"
        else:
            subject = f"tagrouter run ({args.binary})"
            process = subprocess.Popen([binary, "run", "--rules", f"{work}/rules", "--state-dir", f"{work}/state"],
                                       env=env, stdout=log, stderr=log)
            ready = wait_for(lambda: "watching" in open(f"{work}/subject.log").read(), 10)
        if not ready:
            sys.exit(f"{subject} did not start; see {work}/subject.log")
        if args.taps:
            time.sleep(args.settle)
        for tap in range(args.taps):
            path = "hook" if tap % 2 == 0 else "run"
            subprocess.run([binary, "emulate", "--uri", f"https://idle.example/{path}/{tap}", "--vpcd",
                            f"127.0.0.1:{port + tap // 2 % 2}", "--hold", "600ms"], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            time.sleep(0.6)
        time.sleep(args.settle)
        totals = rollup(process.pid)
        files = per_file(process.pid)
        if (args.sections or args.dump_pages) and not args.python:
            sections, addresses = resident_sections(process.pid, binary)
            if args.dump_pages:
                with open(args.dump_pages, "w") as f:
                    f.write("".join(f"{address:x}\n" for address in addresses))
        before = cpu_seconds(process.pid)
        time.sleep(args.idle)
        used = cpu_seconds(process.pid) - before
        after = rollup(process.pid)
        anonymous = totals.get("Anonymous", 0)
        taps = f", {args.taps} taps ({receiver.received} webhooks received) and {args.settle:g} s" if args.taps else ""
        print(f"{subject}, idle with two virtual readers, {args.settle:g} s after start-up{taps} "
              f"({threads(process.pid)} threads)")
        print(f"{'what':<44}{'KiB':>9}{'MiB':>8}")
        rows = [("Rss", totals.get("Rss", 0)), ("  anonymous (heap, stacks)", anonymous),
                ("  file-backed (binary, libraries, data)", totals.get("Rss", 0) - anonymous),
                ("Pss", totals.get("Pss", 0)), (f"Rss after {args.idle:g} s idle", after.get("Rss", 0)),
                ("  anonymous", after.get("Anonymous", 0))]
        for what, kib in rows:
            print(f"{what:<44}{kib:>9}{kib / 1024:>8.1f}")
        print(f"\n{'resident per mapping':<44}{'KiB':>9}")
        for name, kib in files.most_common(args.top):
            print(f"{os.path.basename(name) if name.startswith('/') else name:<44}{kib:>9}")
        rest = sum(kib for _, kib in files.most_common()[args.top:])
        print(f"{'(the rest)':<44}{rest:>9}")
        if args.sections and not args.python:
            print(f"\n{'resident per section of the binary':<44}{'KiB':>9}")
            for name, kib in sections.most_common(args.top):
                print(f"{name:<44}{kib:>9.0f}")
        print(f"\nidle CPU over {args.idle:g} s: {used:.2f} s = {100 * used / args.idle:.3f} % of one core")
    finally:
        receiver.shutdown()
        finish(work, process, pcscd)


if __name__ == "__main__":
    sys.exit(main())
