#!/usr/bin/python3
"""Tap-to-webhook latency with the web console on and browsers on its Live page (issue 42; docs/performance.md,
"Console").

  sudo Benchmarks/console-tap-latency.py [--binary .build/static/release/tagrouter] [--console-clients 5]
                                         [--extra-webhooks 9] [--rounds 5] [--taps 20]

Tap-latency.py's measurement (Benchmarks/tap-latency.py: a private pcscd with vpcd, `tagrouter emulate
--timeline` tags, a webhook receiver on 127.0.0.1 that notes when each request arrives, CLOCK_MONOTONIC
throughout) with three subjects taking turns, round after round, on the same pcscd, reader and receiver:

  script     Benchmarks/baseline-tap.py: one webhook per tap
  tagrouter  `tagrouter run` without the console
  console    the same binary with `--console 127.0.0.1:PORT` and --console-clients browsers on the Live page

Both routers run the same rule: the measured webhook first, then --extra-webhooks more durable webhooks (through
the outbox in the state database, each with the tap's event document) to a second receiver in a process of its
own. With the defaults, 5 rounds of 20 taps, each router subject delivers 100 x (1 + 9) = 1,000 durable webhooks
in its measured taps; the script posts its 100. Each subject has a state directory of its own.

The Live clients run in a child process (this script with --live-clients, so that they do not share the
receiver's interpreter lock): each signs in with a one-time link of its own (`tagrouter console-login
--state-dir`: GET the link's page, then POST its form, with whatever cookie and hidden fields the page sets),
opens `/events` (Server-Sent Events, http.client in a thread of its own) and reads every event until the round
ends; it counts the `tap` events and the URIs they name. After each round of the console subject, every client
must have received every tap of that round: the script says so, or names the client that missed one.

It prints tap-latency.py's table (medians of ATR -> first command, first -> last command, last command ->
webhook, ATR -> webhook), each router's ratio to the script, the webhooks each receiver counted per subject,
and what each Live client received. It asserts nothing but the clients' counts.
"""
import argparse, http.client, importlib.util, json, multiprocessing, os, re, signal, statistics, subprocess
import sys, tempfile, threading, time, urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from private_pcscd import WebhookReceiver, finish, free_port, print_stretches, start as start_pcscd, wait_for

HERE = os.path.dirname(os.path.abspath(__file__))
URI = rb"https://bench\.example/[a-z]+/[0-9]+"


def tap_latency():
    """Benchmarks/tap-latency.py as a module (its name has a hyphen), for its `stretches`."""
    spec = importlib.util.spec_from_file_location("tap_latency", f"{HERE}/tap-latency.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def counting_receiver(port_out, count):
    """A second webhook receiver, in a process of its own: counts the POSTs (HTTP/1.1 keep-alive, 200)."""
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            with lock:
                count.value += 1
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    port_out.send(server.server_address[1])
    server.serve_forever()


# MARK: the Live clients (child process)

class LiveClient(threading.Thread):
    """One browser on the Live page: signs in with a one-time link, then reads /events until the process ends."""

    def __init__(self, base, link):
        super().__init__(daemon=True)
        self.base, self.link = urllib.parse.urlsplit(base), link
        self.taps, self.events, self.uris = 0, 0, set()
        self.error = None
        self.streaming = threading.Event()

    def connection(self):
        return http.client.HTTPConnection(self.base.hostname, self.base.port, timeout=None)

    def sign_in(self):
        """GET the link's page (keeping any cookie it sets, such as a sign-in CSRF cookie), then POST its form
        with the hidden fields it carries; returns the session cookie."""
        target = urllib.parse.urlsplit(self.link)
        conn = self.connection()
        conn.request("GET", f"{target.path}?{target.query}")
        response = conn.getresponse()
        page = response.read().decode()
        cookies = [c.split(";")[0] for c in response.headers.get_all("Set-Cookie") or []]
        form = re.search(r'<form method="post" action="(/login/link)">(.*?)</form>', page, re.S)
        if not form:
            raise RuntimeError(f"no sign-in form on {self.link} ({response.status})")
        fields = re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form.group(2))
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        if cookies:
            headers["Cookie"] = "; ".join(cookies)
        conn.request("POST", form.group(1), body=urllib.parse.urlencode(fields), headers=headers)
        response = conn.getresponse()
        response.read()
        session = [c.split(";")[0] for c in response.headers.get_all("Set-Cookie") or []
                   if c.startswith("tagrouter_session=")]
        conn.close()
        if response.status != 303 or not session:
            raise RuntimeError(f"sign-in refused: {response.status}")
        return session[0]

    def run(self):
        try:
            cookie = self.sign_in()
            conn = self.connection()
            conn.request("GET", "/events", headers={"Cookie": cookie, "Accept": "text/event-stream"})
            response = conn.getresponse()
            if response.status != 200:
                raise RuntimeError(f"/events answered {response.status}")
            self.streaming.set()
            event = None
            while True:
                line = response.readline()
                if not line:
                    break
                line = line.decode().rstrip("\n")
                if line.startswith("event: "):
                    event = line[7:]
                    self.events += 1
                    if event == "tap":
                        self.taps += 1
                elif line.startswith("data: ") and event == "tap":
                    self.uris.add(json.loads(line[6:]).get("uri", ""))
        except Exception as error:  # reported to the parent, which decides
            self.error = f"{type(error).__name__}: {error}"
            self.streaming.set()


def live_clients(base, links):
    """--live-clients: one thread per link; prints "ready" when every stream is open, then, when standard input
    closes, one JSON line per client: its tap events, all its events, the URIs it saw, its error."""
    clients = [LiveClient(base, link) for link in links]
    for client in clients:
        client.start()
    for client in clients:
        client.streaming.wait(30)
    print("ready", flush=True)
    sys.stdin.read()
    time.sleep(0.2)
    for client in clients:
        print(json.dumps({"taps": client.taps, "events": client.events, "uris": sorted(client.uris),
                          "error": client.error}), flush=True)


# MARK: the benchmark

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=".build/static/release/tagrouter")
    parser.add_argument("--console-clients", type=int, default=5)
    parser.add_argument("--extra-webhooks", type=int, default=9,
                        help="durable webhooks per tap besides the measured one, to a second receiver")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--taps", type=int, default=20, help="taps per subject per round")
    parser.add_argument("--hold", default="600ms")
    parser.add_argument("--gap", type=float, default=0.6, help="seconds with no tag between taps")
    parser.add_argument("--live-clients", nargs="+", metavar=("BASE", "LINK"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.live_clients:
        return live_clients(args.live_clients[0], args.live_clients[1:])

    stretches = tap_latency().stretches
    binary = os.path.abspath(args.binary)
    subjects = ["script", "tagrouter", "console"]
    work = tempfile.mkdtemp(prefix="console-tap-latency-")
    port = free_port()
    os.makedirs(f"{work}/rules")
    os.makedirs(f"{work}/timelines")
    count = multiprocessing.Value("l", 0)
    port_in, port_out = multiprocessing.Pipe()
    extra_receiver = multiprocessing.Process(target=counting_receiver, args=(port_out, count), daemon=True)
    extra_receiver.start()
    extra_url = f"http://127.0.0.1:{port_in.recv()}/extra"
    receiver = WebhookReceiver(URI)
    actions = "".join(f'      - webhook: {{ url: "{url}" }}\n'
                      for url in [receiver.url] + [extra_url] * args.extra_webhooks)
    with open(f"{work}/rules/bench.yaml", "w") as f:
        f.write(f"version: 1\nrules:\n  - name: bench\n    cooldown: 0\n    match: {{ any: true }}\n"
                f"    actions:\n{actions}")
    script = [f"{HERE}/baseline-tap.py", "--webhook", receiver.url]
    pcscd, env = start_pcscd(work, port)
    results = {subject: [] for subject in subjects}
    delivered = {subject: 0 for subject in subjects}
    extras = {subject: 0 for subject in subjects}
    clients_report = []
    problems = []
    try:
        time.sleep(0.5)
        for round_ in range(args.rounds):
            for subject in subjects:
                log_path = f"{work}/{subject}.log"
                log = open(log_path, "a")
                clients = None
                if subject == "script":
                    process = subprocess.Popen(script, env=env, stdout=subprocess.PIPE, stderr=log, text=True)
                    ready = process.stdout.readline().strip() == "ready"
                else:
                    command = [binary, "run", "--rules", f"{work}/rules", "--state-dir", f"{work}/state-{subject}"]
                    if subject == "console":
                        command += ["--console", f"127.0.0.1:{free_port()}"]
                    before = open(log_path).read().count("watching")
                    process = subprocess.Popen(command, env=env, stdout=log, stderr=log)
                    ready = wait_for(lambda: open(log_path).read().count("watching") > before, 10)
                    if ready and subject == "console":
                        ready = wait_for(lambda: os.path.exists(f"{work}/state-console/console-url"), 10)
                        links = [subprocess.run([binary, "console-login", "--state-dir", f"{work}/state-console"],
                                                env=env, capture_output=True, text=True, check=True).stdout.strip()
                                 for _ in range(args.console_clients)]
                        base = open(f"{work}/state-console/console-url").read().strip()
                        clients = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--live-clients",
                                                    base] + links, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                                   text=True)
                        ready = clients.stdout.readline().strip() == "ready"
                if not ready:
                    sys.exit(f"{subject} did not start; see {work}/{subject}.log")
                time.sleep(0.5)
                extra_before = count.value
                tapped = []
                for tap in range(args.taps):
                    uri = f"https://bench.example/{subject}/{round_ * args.taps + tap}"
                    tapped.append(uri)
                    timeline = f"{work}/timelines/{subject}-{round_}-{tap}.jsonl"
                    subprocess.run([binary, "emulate", "--uri", uri, "--vpcd", f"127.0.0.1:{port}", "--hold",
                                    args.hold, "--timeline", timeline], env=env, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, check=True)
                    time.sleep(args.gap)
                    arrived = receiver.arrivals.get(uri)
                    figures = stretches(timeline, arrived)
                    if figures is None:
                        print(f"{subject}: tap {uri} not seen", file=sys.stderr)
                    else:
                        results[subject].append(figures)
                if subject != "script":
                    expected = extra_before + args.taps * args.extra_webhooks
                    wait_for(lambda: count.value >= expected, 30)
                delivered[subject] += sum(1 for uri in tapped if uri in receiver.arrivals)
                extras[subject] += count.value - extra_before
                if clients:
                    output, _ = clients.communicate("", timeout=30)
                    for index, line in enumerate(output.split("\n")):
                        if not line:
                            continue
                        report = json.loads(line)
                        missing = [uri for uri in tapped if uri not in report["uris"]]
                        clients_report.append((round_, index, report["taps"], report["events"], len(missing)))
                        if missing or report["error"]:
                            problems.append(f"round {round_ + 1}, client {index + 1}: {len(missing)} taps missed"
                                            f"{', ' + report['error'] if report['error'] else ''}")
                process.send_signal(signal.SIGTERM)
                process.wait(timeout=10)
        names = ["ATR -> first command", "first -> last command", "last command -> webhook", "ATR -> webhook"]
        print(f"{args.rounds} rounds of {args.taps} taps per subject, alternating; medians in ms; the routers' rule: "
              f"1 measured + {args.extra_webhooks} more durable webhooks a tap; the console with "
              f"{args.console_clients} Live clients; binary {binary}")
        print_stretches(names, subjects, results, "webhook")
        print("taps measured: " + ", ".join(f"{s} {len(results[s])}" for s in subjects))
        print("webhooks received: " + ", ".join(
            f"{s} {delivered[s]} measured + {extras[s]} more = {delivered[s] + extras[s]}" for s in subjects))
        for subject in subjects[1:]:
            if results["script"] and results[subject]:
                ratio = statistics.median(f[3] for f in results[subject]) / statistics.median(
                    f[3] for f in results["script"])
                print(f"{subject} / script, median ATR -> webhook: {ratio:.2f}")
        if results["tagrouter"] and results["console"]:
            ratio = statistics.median(f[3] for f in results["console"]) / statistics.median(
                f[3] for f in results["tagrouter"])
            print(f"console / tagrouter, median ATR -> webhook: {ratio:.2f}")
        per_client = {}
        for round_, index, taps, events, missed in clients_report:
            per_client.setdefault(index, [0, 0, 0])
            per_client[index] = [per_client[index][0] + taps, per_client[index][1] + events,
                                 per_client[index][2] + missed]
        for index, (taps, events, missed) in sorted(per_client.items()):
            print(f"Live client {index + 1}: {taps} tap events ({events} events in all), "
                  f"{missed} of the {args.rounds * args.taps} taps missed")
        if problems:
            print("NOT every client received every tap: " + "; ".join(problems))
            return 1
        if args.console_clients:
            print(f"every Live client received every tap ({args.rounds * args.taps} each)")
    finally:
        receiver.shutdown()
        extra_receiver.terminate()
        finish(work, pcscd)


if __name__ == "__main__":
    sys.exit(main())
