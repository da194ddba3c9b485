"""What the benchmark scripts share: a private pcscd with the vsmartcard vpcd driver, started in its own mount
namespace on a socket of its own (PCSCLITE_CSOCK_NAME), free loopback ports, polling, and CPU time from /proc."""
import os, socket, subprocess, time


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
