#!/usr/bin/env python3
"""bench/farm_broker_bench.py — what the measurement farm asks of its broker (docs/tuning.md, "A
measurement farm", "Paper plan"): the size of real jobs and results, and the Redis CPU time one job
costs, measured with the commands texc sends, one round trip each as texc sends them.

1. Job sizes: `texc tune --broker` on several tasks (a small matmul, examples/04_knobs.tex, the
   stdlib matmul of workload G1, the stdlib conv2d of C1 with its two imports, G1 for --target
   cuda) against a kind registered by hand with no worker, so the jobs stay in the stream and are
   read back (XRANGE); a result's size from one job measured by a real `texc worker`.
2. Broker cost: for each job size, JOBS jobs pushed through a redis-server started here on a free
   port (no persistence, then the append-only file with fsync every second), by one tuner process
   and WORKERS worker processes speaking RESP over their own sockets (no client library):
     tuner:  EXISTS result, XADD job; then MGET of the batch's results every 20 ms until all are in
     worker: XREADGROUP COUNT 1, EXISTS result, SET result NX EX, INCR done, TIME, ZADD finished,
             ZREMRANGEBYSCORE finished, XACK, XDEL  (tools/farm/FarmWorker.cpp; the heartbeat, one
             SET and one XCLAIM every visibility/3 seconds a worker, is left out: ~0.1 command/s)
   The redis-server's own CPU time (/proc/PID/stat) divided by the jobs is what one job costs the
   broker; Redis runs commands on one thread, so 1 / that is where one broker saturates, whatever
   the clients. The clients here are Python and share the 2 cores, so the jobs/s they reach is a
   lower bound, not the broker's limit.

usage: bench/farm_broker_bench.py [TEXC] [--jobs N] [--workers W]
"""
import argparse
import json
import re
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from multiprocessing import Process

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Redis:
    """One connection; command() sends one command and reads its reply (RESP2)."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    def command(self, *args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        self.sock.sendall(b"".join(out))
        return self._reply()

    def _line(self):
        while b"\r\n" not in self.buf:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise ConnectionError("the broker closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind in (b"+",):
            return rest.decode()
        if kind == b"-":
            raise RuntimeError(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            while len(self.buf) < n + 2:
                self.buf += self.sock.recv(1 << 20)
            data, self.buf = self.buf[:n], self.buf[n + 2:]
            return data
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self._reply() for _ in range(n)]
        raise RuntimeError("bad reply %r" % line)


def start_redis(work, port, appendonly):
    work = f"{work}/{port}"  # a folder of its own: no append-only file of another run is loaded
    os.makedirs(work)
    subprocess.run(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                    "--appendonly", "yes" if appendonly else "no", "--appendfsync", "everysec",
                    "--dir", work, "--daemonize", "yes", "--pidfile", f"{work}/redis-{port}.pid",
                    "--logfile", f"{work}/redis-{port}.log"], check=True)
    for _ in range(100):
        try:
            if Redis(port).command("PING") == "PONG":
                break
        except OSError:
            time.sleep(0.05)
    return int(open(f"{work}/redis-{port}.pid").read())


def stop_redis(work, port):
    try:
        os.kill(int(open(f"{work}/{port}/redis-{port}.pid").read()), 15)
    except (OSError, ValueError):
        pass
    time.sleep(0.3)


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# --- 1. job and result sizes ----------------------------------------------------------------------

TASKS = [
    ("tests/tuner/small_matmul.tex", "x86", []),
    ("examples/04_knobs.tex", "x86", []),
    ("bench/texc_workloads/G1.tex", "x86", []),
    ("bench/texc_workloads/C1.tex", "x86", []),
    ("bench/texc_workloads/G1.tex", "cuda", []),
]


def job_sizes(texc, work):
    port = free_port()
    start_redis(work, port, False)
    r = Redis(port)
    url = f"redis://127.0.0.1:{port}"
    sizes = []
    try:
        for i, (path, target, extra) in enumerate(TASKS):
            kind = f"size{i}"
            r.command("HSET", f"texc:device:{kind}", "device", "registered by farm_broker_bench.py")
            tune = subprocess.Popen([texc, "tune", os.path.join(ROOT, path), "--target", target, "--trials", "8",
                                     "--tuner", "random", "--records", f"{work}/{kind}.jsonl", "--broker", url,
                                     "--device", kind] + extra, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            entry = None
            for _ in range(600):
                got = r.command("XRANGE", f"texc:jobs:{kind}", "-", "+", "COUNT", "1")
                if got:
                    entry = got[0]
                    break
                if tune.poll() is not None:
                    break
                time.sleep(0.05)
            tune.kill()
            tune.wait()
            if not entry:
                print(f"  {path} ({target}): no job published: {tune.stderr.read().decode()[-300:]}")
                continue
            fields = entry[1]
            job = json.loads(fields[3])
            size = sum(len(f) for f in fields)
            sizes.append((f"{os.path.basename(path)} ({target})", size, len(job["files"])))
        # a result: one job of the small matmul measured by a real worker
        kind = "result"
        worker = subprocess.Popen([texc, "worker", "--broker", url, "--device", kind, "--target", "x86",
                                   "--max-jobs", "1"], stderr=subprocess.DEVNULL)
        subprocess.run([texc, "tune", os.path.join(ROOT, TASKS[0][0]), "--target", "x86", "--trials", "1",
                        "--records", f"{work}/result.jsonl", "--broker", url, "--device", kind],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
        worker.wait(timeout=60)
        keys = r.command("KEYS", "texc:result:*")
        result = len(r.command("GET", keys[0])) if keys else 0
    finally:
        stop_redis(work, port)
    return sizes, result


# --- 2. the broker's cost per job -----------------------------------------------------------------

def run_worker(port, kind, name, result_bytes):
    r = Redis(port)
    stream = f"texc:jobs:{kind}"
    result = b"r" * result_bytes
    while True:
        got = r.command("XREADGROUP", "GROUP", "workers", name, "COUNT", "1", "BLOCK", "200", "STREAMS", stream, ">")
        if got is None:
            if r.command("EXISTS", f"texc:stop:{kind}"):
                return
            continue
        entry_id, fields = got[0][1][0]
        job_id = fields[1].decode()
        r.command("EXISTS", f"texc:result:{job_id}")
        r.command("SET", f"texc:result:{job_id}", result, "NX", "EX", "3600")
        r.command("INCR", f"texc:done:{kind}")
        sec, usec = r.command("TIME")
        ms = int(sec) * 1000 + int(usec) // 1000
        r.command("ZADD", f"texc:finished:{kind}", ms, job_id)
        r.command("ZREMRANGEBYSCORE", f"texc:finished:{kind}", "-inf", ms - 600 * 1000)
        r.command("XACK", stream, "workers", entry_id)
        r.command("XDEL", stream, entry_id)


def run_tuner(port, kind, jobs, job_bytes, batch=8):
    r = Redis(port)
    payload = b"j" * max(0, job_bytes - 40)
    n = 0
    while n < jobs:
        ids = [f"{kind}-{n + i:08d}".ljust(32, "0") for i in range(min(batch, jobs - n))]
        for i in ids:
            r.command("EXISTS", f"texc:result:{i}")
            r.command("XADD", f"texc:jobs:{kind}", "*", "id", i, "job", payload)
        waiting = list(ids)
        while waiting:
            got = r.command("MGET", *[f"texc:result:{i}" for i in waiting])
            waiting = [i for i, v in zip(waiting, got) if v is None]
            if waiting:
                time.sleep(0.02)
        n += len(ids)


def broker_cost(work, job_bytes, result_bytes, jobs, workers, appendonly):
    port = free_port()
    pid = start_redis(work, port, appendonly)
    kind = "bench"
    r = Redis(port)
    r.command("XGROUP", "CREATE", f"texc:jobs:{kind}", "workers", "0", "MKSTREAM")
    procs = [Process(target=run_worker, args=(port, kind, f"w{i}", result_bytes)) for i in range(workers)]
    for p in procs:
        p.start()
    cpu0, t0 = cpu_seconds(pid), time.time()
    # two tuners, as several tasks share a farm; each waits for its batch as texc tune does
    tuners = [Process(target=run_tuner, args=(port, kind + "", jobs // 2, job_bytes)) for _ in range(2)]
    for t in tuners:
        t.start()
    for t in tuners:
        t.join()
    wall, cpu = time.time() - t0, cpu_seconds(pid) - cpu0
    r.command("SET", f"texc:stop:{kind}", "1")
    for p in procs:
        p.join()
    stats = r.command("INFO", "commandstats").decode()
    calls = {}
    for line in stats.splitlines():  # cmdstat_xadd:calls=4000,usec=...,usec_per_call=...
        if line.startswith("cmdstat_"):
            name, rest = line[len("cmdstat_"):].split(":", 1)
            calls[name] = int(rest.split("calls=")[1].split(",")[0])
    stop_redis(work, port)
    return wall, cpu, calls


def redis_benchmark_xadd(work, job_bytes):
    """redis-benchmark's XADD of a job of `job_bytes`, 16 clients, no pipelining: requests/s."""
    port = free_port()
    start_redis(work, port, False)
    out = subprocess.run(["redis-benchmark", "-p", str(port), "-n", "50000", "-c", "16", "-q", "XADD", "texc:jobs:b",
                          "MAXLEN", "~", "1000", "*", "id", "0" * 32, "job", "j" * job_bytes],
                         capture_output=True, text=True).stdout
    stop_redis(work, port)
    found = re.findall(r"([0-9.]+) requests per second", out)
    return float(found[-1]) if found else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("texc", nargs="?", default=os.path.join(ROOT, "build/tools/texc/texc"))
    ap.add_argument("--jobs", type=int, default=4000)
    ap.add_argument("--workers", type=int, default=4)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as work:
        print(f"load before: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
        sizes, result = job_sizes(os.path.abspath(args.texc), work)
        print("job sizes (the stream entry: id, job JSON and field names; the files each ships):")
        for name, size, files in sizes:
            print(f"  {name:32s} {size:7d} bytes, {files} file(s)")
        print(f"result size (texc:result:ID of a small matmul): {result} bytes")
        print(f"broker cost: {args.jobs} jobs, 2 tuners, {args.workers} workers, 10 commands a job (+ MGET polls)")
        print("  job bytes  persistence   wall s  jobs/s (clients)  commands/job (MGET)  broker CPU us/job  "
              "saturates at jobs/s")
        for size in sorted({s for _, s, _ in sizes}):
            for appendonly in (False, True):
                wall, cpu, calls = broker_cost(work, size, result, args.jobs, args.workers, appendonly)
                per_job = cpu / args.jobs * 1e6
                commands = sum(v for k, v in calls.items() if k not in ("info", "xgroup|create", "xgroup", "set|stop"))
                print(f"  {size:9d}  {'AOF everysec' if appendonly else 'none':12s} {wall:7.1f} {args.jobs / wall:12.0f}"
                      f" {commands / args.jobs:14.1f} ({calls.get('mget', 0) / args.jobs:.1f})"
                      f" {per_job:16.1f} {1e6 / per_job if per_job else float('inf'):18.0f}")
        print("redis-benchmark XADD of a job alone (16 clients, one round trip each):")
        for size in sorted({s for _, s, _ in sizes}):
            print(f"  {size:9d} bytes: {redis_benchmark_xadd(work, size):9.0f} XADD/s")
        print(f"load after: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")


if __name__ == "__main__":
    main()
