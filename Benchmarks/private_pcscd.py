"""What the benchmark scripts share: a private pcscd with the vsmartcard vpcd driver, started in its own mount
namespace on a socket of its own (PCSCLITE_CSOCK_NAME), free loopback ports, polling, CPU time from /proc, a
webhook receiver on 127.0.0.1, and the clean-up at the end of a run."""
import os, re, shutil, signal, socket, subprocess, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def free_port_pair():
    """A port p with p+1 free as well: vpcd's two readers listen on CHANNELID and CHANNELID+1."""
    while True:
        port = free_port()
        if port < 65000:
            try:
                with socket.socket() as t:
                    t.bind(("127.0.0.1", port + 1))
                return port
            except OSError:
                continue


def wait_for(predicate, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False


def realtime_offset():
    """CLOCK_REALTIME minus CLOCK_MONOTONIC, for `date +%s%N` (which only knows the real-time clock)."""
    samples = []
    for _ in range(20):
        a = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        r = time.clock_gettime_ns(time.CLOCK_REALTIME)
        b = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        samples.append((b - a, r - (a + b) // 2))
    return min(samples)[1]


def cpu_seconds(pid):
    """utime + stime of a process, in seconds."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start(work, port):
    """Starts pcscd with vpcd listening on `port` (and port+1 for the second reader), its socket under
    WORK/run; returns the process and the environment that reaches it. Exits if pcscd does not come up."""
    for folder in ("run", "conf.d"):
        os.makedirs(f"{work}/{folder}", exist_ok=True)
    with open(f"{work}/conf.d/vpcd", "w") as f:
        f.write(f'FRIENDLYNAME "Virtual PCD"\nDEVICENAME /dev/null:0x{port:X}\n'
                f"LIBPATH /usr/lib/pcsc/drivers/serial/libifdvpcd.so\nCHANNELID 0x{port:X}\n")
    env = dict(os.environ, PCSCLITE_CSOCK_NAME=f"{work}/run/pcscd.comm")
    pcscd = subprocess.Popen(["unshare", "-m", "sh", "-c",
                              f"mkdir -p /run/pcscd && mount --bind {work}/run /run/pcscd && exec pcscd -f -c {work}/conf.d"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not wait_for(lambda: os.path.exists(f"{work}/run/pcscd.comm"), 5):
        pcscd.kill()
        raise SystemExit("pcscd did not start")
    return pcscd, env


class WebhookReceiver:
    """A webhook receiver on 127.0.0.1 (http.server, HTTP/1.1 keep-alive, 200 to every POST). It counts the
    requests and, when `pattern` (bytes) finds a URI in a body, records when the first request naming that URI
    arrived: CLOCK_MONOTONIC in ns, taken before the body is read. The URL to give a rule is `url`."""

    def __init__(self, pattern=None):
        self.received = 0
        self.arrivals = {}
        lock = threading.Lock()
        uri = re.compile(pattern) if pattern else None
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                arrived = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                match = uri.search(body.replace(b"\\/", b"/")) if uri else None
                with lock:
                    receiver.received += 1
                    if match:
                        receiver.arrivals.setdefault(match.group().decode(), arrived)
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def shutdown(self):
        self.server.shutdown()


def finish(work, *processes, keep_variable="BENCH_KEEP", timeout=10):
    """Stops the processes still set (SIGTERM, then waits up to `timeout` seconds each, in order), and removes the
    work directory unless the environment variable `keep_variable` is set."""
    for process in processes:
        if process:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=timeout)
    if os.environ.get(keep_variable):
        print(f"kept {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)


def print_stretches(names, subjects, results, last_stretch):
    """Prints the median of each stretch per subject (results[subject]: one list of stretches per tap, in the order
    of names), then each subject's p50 and p99 of the third stretch, TagRouter's own time after the last card
    answer (the rest of the tap is pcscd and the tag); last_stretch names it ("action", "webhook")."""
    import statistics
    print(f"{'stretch':<26}" + "".join(f"{s:>12}" for s in subjects))
    for index, name in enumerate(names):
        values = [statistics.median(f[index] for f in results[s]) if results[s] else float("nan") for s in subjects]
        print(f"{name:<26}" + "".join(f"{v:>12.3f}" for v in values))
    for subject in subjects:
        values = sorted(f[2] for f in results[subject])
        if values:
            p99 = values[min(len(values) - 1, int(round(0.99 * (len(values) - 1))))]
            print(f"{subject}: last command -> {last_stretch} p50 {statistics.median(values):.3f} ms, p99 {p99:.3f} ms")
