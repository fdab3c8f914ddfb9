#!/usr/bin/env python3
"""The one benchmark command (issue 5): builds the bench targets, measures the machine's fp32 FMA
peak, runs every peer (and texc, once bench_texc exists) on the workloads of
docs/workloads.md at 1 and 2 threads, and writes docs/performance.md. The int8 convolutions
Q2-Q12 (C2-C12 as u8 x s8 -> u8, issue 14) are among them: texc and oneDNN only, on a CPU with
AVX-512 VNNI (without it both skip them with a line on stderr).

    bench/run_bench.py                       # everything, writes docs/performance.md
    bench/run_bench.py --quick               # a subset (G1,G5,C2,C9,D1,D5): a quick re-run
    bench/run_bench.py --json-out run.json   # also the whole run as JSON
    bench/run_bench.py --from-json run.json  # only re-render docs/performance.md from a saved run
    bench/run_bench.py --target cuda         # GPU: texc (texc run --target cuda) vs cuBLAS and cuDNN

The CUDA run builds bench_cublas and bench_cudnn (ninja target texc_bench_cuda) and texc, runs them
on device 0 and writes its tables into the CUDA section of docs/performance.md (between
CUDA_BEGIN and CUDA_END), leaving the CPU tables alone. Without a CUDA device it exits 2 with
"no CUDA device" once the peers are built.

Each peer library runs in its own process (bench/build-bench/bench/bench_<peer>): Halide 14 loads
LLVM 14 and must never share a process with texc's LLVM 19. See bench/README.md.
"""

import argparse
import datetime
import json
import math
import os
import platform
import re
import shlex
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUICK_WORKLOADS = "G1,G5,C2,C9,D1,D5"
PEERS = ["texc", "openblas", "onednn", "halide"]  # bench_<name> executables, in table order
DEFAULT_REFERENCE = os.path.join(os.path.dirname(ROOT), "shared", "reference", "peers-measured-here.md")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


# ---- build ------------------------------------------------------------------------------------

def build(build_dir, jobs, target="texc_bench"):
    if not os.path.exists(os.path.join(build_dir, "build.ninja")):
        cmd = ["cmake", "-S", ROOT, "-B", build_dir, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"]
        log("+ " + " ".join(cmd))
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    cmd = ["ninja", "-C", build_dir, f"-j{jobs}", target]
    log("+ " + " ".join(cmd))
    subprocess.run(cmd, check=True)


# ---- running ----------------------------------------------------------------------------------

def run_json_lines(cmd, env=None, timeout=3600):
    """Runs one bench executable; returns (objects parsed from its stdout, stderr text, rc)."""
    log("+ " + " ".join(shlex.quote(c) for c in cmd))
    full_env = dict(os.environ)
    for k, v in (env or {}).items():  # None: unset
        if v is None:
            full_env.pop(k, None)
        else:
            full_env[k] = v
    try:
        p = subprocess.run(cmd, env=full_env, capture_output=True, text=True, timeout=timeout)
        out, err, rc = p.stdout, p.stderr, p.returncode
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        err, rc = f"timed out after {timeout} s", -1
    objs = []
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                objs.append(json.loads(line))
            except json.JSONDecodeError:
                log(f"  unparsable line: {line[:120]}")
    return objs, err, rc


def wait_quiet(max_load, max_wait_s):
    """Waits until the 1-minute load average is below max_load (other people's compiles), at most
    max_wait_s seconds. Returns the load seen when it stopped waiting."""
    if max_load <= 0:
        return loadavg()
    t0 = time.time()
    while True:
        load = loadavg()
        try:
            if float(load.split()[0]) < max_load or time.time() - t0 > max_wait_s:
                return load
        except ValueError:
            return load
        log(f"  load {load}: waiting for < {max_load}")
        time.sleep(15)


# Environment variables that override a peer's thread count, kernels or ISA. Each peer sets its
# threads itself; these are removed from every benchmark process (and listed in the report) so that
# a stray setting in the shell -- e.g. OPENBLAS_CORETYPE=Haswell, which confines OpenBLAS to AVX2 --
# cannot change what is measured.
OVERRIDE_PREFIXES = ("OPENBLAS_", "GOTO_", "OMP_", "GOMP_", "KMP_", "DNNL_", "ONEDNN_", "HL_")


def overrides_in_environment():
    return {k: v for k, v in os.environ.items() if k.startswith(OVERRIDE_PREFIXES)}


def peer_runs(bin_dir, peers):
    """(peer, executable, environment changes, label) for every process to run per thread count."""
    clean = {k: None for k in overrides_in_environment()}
    runs = []
    for peer in peers:
        exe = os.path.join(bin_dir, f"bench_{peer}")
        if not os.path.exists(exe):
            log(f"  bench_{peer} not built: skipped")
            continue
        runs.append((peer, exe, clean, peer))
    return runs


def skipped_lines(stderr):
    """The lines of a bench process's stderr that say it skipped workloads it cannot run on this
    machine (the qconv workloads without AVX-512 VNNI): reported, not failures."""
    return [l.strip() for l in stderr.splitlines() if "workloads skipped:" in l]


def core_to_core(bin_dir):
    """bench_c2c's cache-line round trip between the first two CPUs, in ns (None without it):
    tens of ns where they share a cache, hundreds where they do not (a VM's vCPUs move between
    the two states, and 2-thread figures with them)."""
    exe = os.path.join(bin_dir, "bench_c2c")
    if not os.path.exists(exe):
        return None
    objs, _, rc = run_json_lines([exe, "--json"], {})
    return objs[0]["round_trip_ns"] if rc == 0 and objs else None


def measure_all(args):
    bin_dir = os.path.join(args.build_dir, "bench")
    threads = [int(t) for t in args.threads.split(",")]
    run = {"meta": machine_info(args), "peak": [], "measurements": [], "processes": []}

    peak_exe = os.path.join(bin_dir, "bench_peak")
    if os.path.exists(peak_exe):
        before = wait_quiet(args.wait_load, args.wait_max)
        objs, err, rc = run_json_lines([peak_exe, "--threads", str(max(threads)), "--json"],
                                       {k: None for k in overrides_in_environment()})
        run["peak"] = objs
        run["processes"].append({"label": "peak", "rc": rc, "loadavg_before": before,
                                 "loadavg_after": loadavg(), "stderr": err[-2000:]})
    for peer, exe, env, label in peer_runs(bin_dir, args.peers.split(",")):
        for t in threads:
            cmd = [exe, "--workloads", args.workloads, "--threads", str(t), "--repeat", str(args.repeat), "--json"]
            before = wait_quiet(args.wait_load, args.wait_max)
            c2c_before, t0 = core_to_core(bin_dir), time.time()
            objs, err, rc = run_json_lines(cmd, env)
            seconds, c2c_after = round(time.time() - t0, 1), core_to_core(bin_dir)
            for o in objs:
                log(f"  {o['workload']:4} {o['peer']}/{o['variant']} t={o['threads']}: "
                    f"{fmt(o.get('gflops'))} GFLOP/s {'ok' if o.get('verified') else 'NOT VERIFIED'}"
                    + (f" error: {o['error']}" if o.get("error") else ""))
            for line in skipped_lines(err):
                log(f"  {line}")
            run["measurements"].extend(objs)
            run["processes"].append({"label": f"{label} t={t}", "command": " ".join(shlex.quote(c) for c in cmd),
                                     "env": env, "rc": rc, "seconds": seconds,
                                     "loadavg_before": before, "loadavg_after": loadavg(),
                                     "c2c_ns_before": c2c_before, "c2c_ns_after": c2c_after,
                                     "stderr": err[-2000:]})
    run["meta"]["finished"] = now()
    return run


# ---- CUDA: texc vs cuBLAS and cuDNN on device 0 ----------------------------------------------

CUDA_PEERS = ["cublas", "cudnn"]  # bench_<name> executables (bench/cuda/), in table order
CUDA_BEGIN = "<!-- run_bench.py --target cuda: the CUDA tables start here -->"
CUDA_END = "<!-- run_bench.py --target cuda: the CUDA tables end here -->"
KIND_OF = {"G": "gemm", "C": "conv", "D": "dwconv", "Q": "qconv"}


class NoCudaDevice(Exception):
    """A benchmark process exited 2 saying there is no CUDA device (or no driver)."""


def no_device(rc, err):
    return rc == 2 and "no CUDA device" in err


def workload_names(spec):
    """The workload names of a --workloads list (names, kinds or all), in workloads.md order."""
    names = [f"G{i}" for i in range(1, 7)] + [f"C{i}" for i in range(1, 13)] + [f"D{i}" for i in range(1, 10)]
    chosen = []
    for item in spec.split(","):
        item = item.strip()
        if item == "all":
            chosen += names
        elif item in ("gemm", "conv", "dwconv"):
            chosen += [n for n in names if KIND_OF[n[0]] == item]
        elif item in names:
            chosen.append(item)
        else:
            raise SystemExit(f"run_bench.py: unknown workload '{item}' (names G1-G6, C1-C12, D1-D9, kinds or all)")
    return [n for n in names if n in chosen]


# texc's tensor-core variants of the GEMM workloads (linalg.matmul's MMG_TC), and the cuBLAS
# variant each is compared with in the tables (cuda_fp16 runs bench/texc_workloads/f16/, cuda_bf16
# bench/texc_workloads/bf16/).
TEXC_TENSOR_CORE_KNOBS = [("cuda_tf32", 1), ("cuda_3xtf32", 2)]
# The k tile of the TF32 schedule must divide K: G5's K = 1000 takes tiles of 8 (the default 16
# would leave it on the CUDA cores). f16 and bf16 need K % 16 == 0 (one mma's k): not G5 or G6.
TEXC_TENSOR_CORE_EXTRA = {"G5": ["--knob", "MMG_TBK=8"]}
# nn.conv2d on the TF32 tensor cores (CVG_TC=1) where its schedule applies (F >= 32, 8 | C, OW >=
# CVG_TOX: C1's 3 channels and C10-C12's 7 columns do not), with the column tile per workload.
TEXC_CONV_TENSOR_CORE_TOX = {"C2": 16, "C3": 16, "C4": 16, "C5": 16, "C6": 16, "C7": 8, "C8": 8, "C9": 8}
# texc's tensor-core variant -> the peer and its variant of the same precision, per kind
TENSOR_CORE_PEERS = {"gemm": [("cuda_tf32", "cublas", "gemmex_tf32"), ("cuda_3xtf32", "cublas", "sgemm"),
                              ("cuda_fp16", "cublas", "gemmex_fp16"), ("cuda_bf16", "cublas", "gemmex_bf16")],
                     "conv": [("cuda_tf32", "cudnn", "tf32")]}
# peers' variants that are not fp32 arithmetic (left out of the fp32 columns' fastest peer)
REDUCED_PRECISION_PEER_VARIANTS = {"gemmex_tf32", "gemmex_fp16", "gemmex_bf16", "tf32"}


def texc_cuda_record(obj, workload, texc_cmd, variant="cuda_default"):
    """A `texc run --json` object as a benchmark record (bench/README.md): texc's own check against
    its reference interpreter (on a sample of points for large outputs) and the median of its
    CUDA-event times. Variant cuda_default: the stdlib's GPU schedule as shipped; cuda_tuned: with
    the knobs of the best record in --cuda-records (texc run --records)."""
    passed = obj.get("status") == "pass"
    schedule = {"cuda_default": "the stdlib op's default GPU schedule",
                "cuda_tuned": "the stdlib op's GPU schedule with the knobs of its best texc tune record",
                "cuda_tf32": ("nn.conv2d's tensor-core schedule, TF32 (CVG_TC=1)" if workload.startswith("C")
                              else "linalg.matmul's tensor-core schedule, TF32 (MMG_TC=1)"),
                "cuda_3xtf32": "linalg.matmul's tensor-core schedule, 3xTF32 (MMG_TC=2)",
                "cuda_fp16": "linalg.matmul_f16 (f16 operands, tensor cores)",
                "cuda_bf16": "linalg.matmul_bf16 (bf16 operands, tensor cores)"}[variant]
    return {"workload": workload, "kind": KIND_OF[workload[0]], "shape": "", "peer": "texc",
            "variant": variant, "threads": 1, "median_ms": obj.get("median_ms"), "min_ms": None,
            "cpu_ms": 0, "gflops": obj.get("gflops"), "verified": passed, "max_rel_err": obj.get("max_rel_err"),
            "checked_points": obj.get("points_checked"), "total_points": None, "runs": None, "inner": 1,
            "detail": f"texc run --target cuda: {schedule} (docs/cuda.md), "
                      "median of CUDA-event times of single launches; checked by texc run against the reference "
                      "interpreter",
            "error": None if passed else (obj.get("message") or "failed its check"), "command": texc_cmd}


def measure_cuda(args):
    """Runs bench_cublas, bench_cudnn and texc (texc run --target cuda) on the chosen workloads;
    raises NoCudaDevice when one of them finds no device."""
    bin_dir = os.path.join(args.build_dir, "bench")
    run = {"meta": machine_info(args), "peak": [], "measurements": [], "processes": []}
    run["meta"]["target"] = "cuda"
    names = workload_names(args.workloads)
    peers = args.peers.split(",")
    for peer in [p for p in CUDA_PEERS if p in peers]:
        exe = os.path.join(bin_dir, f"bench_{peer}")
        if not os.path.exists(exe):
            log(f"  bench_{peer} not built: skipped (CUDA toolkit or cuDNN missing at configure time)")
            continue
        cmd = [exe, "--workloads", ",".join(names), "--repeat", str(args.repeat), "--json"]
        t0 = time.time()
        objs, err, rc = run_json_lines(cmd)
        if no_device(rc, err):
            raise NoCudaDevice(err.strip())
        run["measurements"].extend(objs)
        run["processes"].append({"label": peer, "command": " ".join(shlex.quote(c) for c in cmd), "rc": rc,
                                 "seconds": round(time.time() - t0, 1), "loadavg_before": "", "loadavg_after": "",
                                 "stderr": err[-2000:]})
    if "texc" in peers:
        texc = os.path.join(args.build_dir, "tools", "texc", "texc")
        variants = [("cuda_default", [])]
        if args.cuda_records and os.path.exists(args.cuda_records):
            variants.append(("cuda_tuned", ["--records", args.cuda_records]))
        for w in names:
            tex = os.path.join(ROOT, "bench", "texc_workloads", f"{w}.tex")
            runs = [(variant, tex, extra) for variant, extra in variants]
            if w.startswith("G"):  # the tensor cores (docs/cuda.md): TF32, 3xTF32, f16 and bf16 operands
                runs += [(v, tex, ["--knob", f"MMG_TC={tc}"] + TEXC_TENSOR_CORE_EXTRA.get(w, []))
                         for v, tc in TEXC_TENSOR_CORE_KNOBS]
                runs.append(("cuda_fp16", os.path.join(ROOT, "bench", "texc_workloads", "f16", f"{w}.tex"), []))
                runs.append(("cuda_bf16", os.path.join(ROOT, "bench", "texc_workloads", "bf16", f"{w}.tex"), []))
            if w in TEXC_CONV_TENSOR_CORE_TOX:
                runs.append(("cuda_tf32", tex, ["--knob", "CVG_TC=1", "--knob", f"CVG_TOX={TEXC_CONV_TENSOR_CORE_TOX[w]}"]))
            for variant, tex, extra in runs:
                cmd = [texc, "run", tex, "--target", "cuda", "--json", "--repeat", str(args.repeat)] + extra
                t0 = time.time()
                objs, err, rc = run_json_lines(cmd)
                if no_device(rc, err):
                    raise NoCudaDevice(err.strip())
                texc_cmd = " ".join(shlex.quote(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c) for c in cmd)
                if objs:
                    run["measurements"].append(texc_cuda_record(objs[0], w, texc_cmd, variant))
                else:
                    rec = texc_cuda_record({"status": "fail", "message": f"texc exited {rc}: {err.strip()[-300:]}"},
                                           w, texc_cmd, variant)
                    run["measurements"].append(rec)
                run["processes"].append({"label": f"texc {w} {variant}", "command": texc_cmd, "rc": rc,
                                         "seconds": round(time.time() - t0, 1), "loadavg_before": "",
                                         "loadavg_after": "", "stderr": err[-2000:]})
    # texc's GFLOP/s with the workload's FLOP count (the peers'), so that the columns compare.
    for m in run["measurements"]:
        peer = next((p for p in run["measurements"] if p["workload"] == m["workload"] and p["peer"] != "texc"
                     and p.get("shape")), None)
        if m["peer"] == "texc" and peer:
            m["shape"] = peer["shape"]
            if peer.get("gflops") and peer.get("median_ms") and m.get("median_ms"):
                m["gflops"] = peer["gflops"] * peer["median_ms"] / m["median_ms"]
    run["meta"]["finished"] = now()
    return run


def cuda_tables(run):
    """The markdown of a CUDA run: per kind, GFLOP/s and median ms of every column, and texc / the
    fastest peer."""
    meta = run["meta"]
    out = [CUDA_BEGIN, ""]
    out.append(f"- command: `{meta['command']}`; date {meta['started']} to {meta.get('finished', '?')} (UTC), "
               f"texc commit {meta.get('git', '?')}")
    devices = sorted({d.split("; ")[-1] for m in run["measurements"] if m["peer"] != "texc"
                      for d in [m.get("detail") or ""] if d})
    out.append(f"- device: {', '.join(devices) if devices else '?'}; median of {meta['repeat']} timed samples, "
               "CUDA events, data on the device, warm")
    ms = run["measurements"]
    for kind in ["gemm", "conv", "dwconv"]:
        km = [m for m in ms if m.get("kind") == kind]
        if not km:
            continue
        cols = []
        for m in km:
            if column(m) not in cols:
                cols.append(column(m))
        cols.sort(key=lambda c: (not c.startswith("texc"), c))
        texc_variants = [v for v in ["cuda_default", "cuda_tuned"]
                         if any(m["peer"] == "texc" and m["variant"] == v for m in km)]
        tensor_core_pairs = [(v, peer, p) for v, peer, p in TENSOR_CORE_PEERS.get(kind, [])
                             if any(m["peer"] == "texc" and m["variant"] == v for m in km)]
        out.append(f"\n### {KIND_TITLES[kind]}: GFLOP/s (median ms)\n")
        out.append("| workload | shape | " + " | ".join(cols) + " | " +
                   " | ".join(f"texc {v[5:]} / fastest peer" for v in texc_variants) +
                   "".join(f" | texc {v[5:]} / {peer} {p}" for v, peer, p in tensor_core_pairs) + " |")
        out.append("|---|---|" + "---|" * (len(cols) + len(texc_variants) + len(tensor_core_pairs)))
        by = {(m["workload"], column(m)): m for m in km}
        for w in workload_order(run):
            if not any(m["workload"] == w for m in km):
                continue
            shape = next((m.get("shape") for m in km if m["workload"] == w and m.get("shape")), "")
            cells = []
            for c in cols:
                m = by.get((w, c))
                cells.append("" if m is None else "error" if not ok(m) else f"{fmt(m['gflops'])} ({m['median_ms']:.3f})")
            # the fp32 columns against the fastest fp32 peer (not cuBLAS's TF32 or f16 variants)
            peer = best_of(km, w, 1, lambda m: m["peer"] != "texc" and
                           m["variant"] not in REDUCED_PRECISION_PEER_VARIANTS)
            ratios = []
            for v in texc_variants:
                mine = next((m for m in km if m["workload"] == w and m["peer"] == "texc" and m["variant"] == v
                             and ok(m)), None)
                ratios.append(f"{mine['gflops'] / peer['gflops']:.2f} ({column(peer)})" if mine and peer else "")
            for v, peer_name, p in tensor_core_pairs:  # texc's tensor-core variant against the peer's of the same precision
                mine = next((m for m in km if m["workload"] == w and m["peer"] == "texc" and m["variant"] == v
                             and ok(m)), None)
                theirs = next((m for m in km if m["workload"] == w and m["peer"] == peer_name and m["variant"] == p
                               and ok(m)), None)
                ratios.append(f"{mine['gflops'] / theirs['gflops']:.2f}" if mine and theirs else "")
            out.append(f"| {w} | {shape} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")
    bad = [m for m in ms if not ok(m)]
    if bad:
        out.append("\nFailures: " + "; ".join(f"{m['workload']} {column(m)}: {m.get('error') or 'not verified'}" for m in bad))
    out.append("")
    out.append(CUDA_END)
    return "\n".join(out)


def write_cuda_markdown(run, path):
    """Replaces the text between CUDA_BEGIN and CUDA_END in `path` (the CUDA section of
    docs/performance.md, kept by CPU re-runs) with the tables of this run."""
    text = open(path).read()
    if CUDA_BEGIN not in text or CUDA_END not in text:
        raise SystemExit(f"run_bench.py: {path} has no CUDA section ({CUDA_BEGIN} ... {CUDA_END})")
    head, rest = text.split(CUDA_BEGIN, 1)
    tail = rest.split(CUDA_END, 1)[1]
    with open(path, "w") as f:
        f.write(head + cuda_tables(run) + tail)
    log(f"wrote the CUDA section of {path}")


# ---- machine ----------------------------------------------------------------------------------

def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=30).stdout.strip()
    except Exception:
        return ""


def vector_isa():
    """The host's machine kind as texc's shipped records and stdlib defaults see it (docs/tuning.md,
    "Records know their machine"): its widest vector ISA and the features that move a schedule."""
    flags = set()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    except OSError:
        pass
    if not flags:
        return "?"
    kind = ("AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "AVX" if "avx" in flags
            else "SSE4.2" if "sse4_2" in flags else "SSE2")
    relevant = ["avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512_vnni",
                "avx512_bf16", "avx_vnni", "amx_tile"]
    return f"{kind} ({' '.join(f for f in relevant if f in flags)})"


def machine_info(args):
    lscpu = sh("lscpu")
    def field(name):
        m = re.search(rf"^{re.escape(name)}:\s*(.+)$", lscpu, re.M)
        return m.group(1).strip() if m else "?"
    pkgs = sh("dpkg-query -W -f='${Package} ${Version}\\n' libdnnl2 libhalide14-0 libopenblas0-pthread 2>/dev/null")
    return {
        "started": now(),
        "command": args.command_line,
        "cpu_model": field("Model name"),
        "cpu_family_model": f"family {field('CPU family')} model {field('Model')}",
        "cpus": field("CPU(s)"),
        "caches": f"L1d {field('L1d cache')}, L2 {field('L2 cache')}, L3 {field('L3 cache')}",
        "hypervisor": field("Hypervisor vendor"),
        "vector_isa": vector_isa(),
        "memory": sh("free -g | awk '/Mem:/{print $2\" GiB\"}'"),
        "kernel": platform.release(),
        "compiler": sh("c++ --version | head -1"),
        "packages": [p for p in pkgs.splitlines() if p],
        "git": sh(f"git -C {shlex.quote(ROOT)} rev-parse --short HEAD"),
        "workloads": args.workloads,
        "threads": args.threads,
        "repeat": args.repeat,
        "removed_environment": overrides_in_environment(),
    }


# ---- the report -------------------------------------------------------------------------------

def fmt(x, digits=1):
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "—"
    return f"{x:.{digits}f}"


def peak_by_threads(run):
    """threads -> (best GFLOP/s over ISAs, isa)."""
    best = {}
    for p in run["peak"]:
        t = p["threads"]
        if t not in best or p["gflops"] > best[t][0]:
            best[t] = (p["gflops"], p["variant"])
    return best


def column(m):
    return f"{m['peer']} {m['variant']}"


KIND_TITLES = {
    "gemm": "GEMM C=A·B (row-major, M×N×K)",
    "conv": "conv2d, ResNet-18 layers (batch 1, NCHW in/out, OIHW weights)",
    "dwconv": "depthwise conv2d, MobileNet layers (batch 1, NCHW in/out)",
    "qconv": "int8 conv2d, ResNet-18 layers C2–C12 (u8 × s8 → u8)",
}
CPU_KINDS = ["gemm", "conv", "dwconv", "qconv"]  # the CPU report's tables, in this order
INT_KINDS = {"qconv"}  # their figures are GOP/s of integer multiply-adds: no % of the fp32 FMA peak


def ordered_columns(ms):
    cols = []
    for peer in PEERS:
        for m in ms:
            c = column(m)
            if m["peer"] == peer and c not in cols:
                cols.append(c)
    for m in ms:
        if column(m) not in cols:
            cols.append(column(m))
    return cols


PREEMPTED = 0.8  # 1 thread: CPU time below this fraction of wall time = the process was preempted


def preempted(m):
    return m["threads"] == 1 and bool(m.get("cpu_ms")) and m["cpu_ms"] < PREEMPTED * m["median_ms"]


def ok(m):
    return m.get("verified") and not m.get("error") and m.get("gflops")


def cell(m, peak):
    if m is None:
        return ""
    if m.get("error"):
        return "error"
    s = fmt(m["gflops"])
    if peak:
        s += f" ({100 * m['gflops'] / peak:.0f}%)"
    if not m.get("verified"):
        s += " ⚠wrong"
    if preempted(m):
        s += " †"
    return s


def workload_order(run):
    order = []
    for m in run["measurements"]:
        if m["workload"] not in order:
            order.append(m["workload"])
    return order


def perf_tables(run, out):
    peaks = peak_by_threads(run)
    order = workload_order(run)
    for kind in CPU_KINDS:
        for t in sorted({m["threads"] for m in run["measurements"]}):
            ms = [m for m in run["measurements"] if m.get("kind") == kind and m["threads"] == t]
            if not ms:
                continue
            peak = None if kind in INT_KINDS else peaks.get(t, (None, ""))[0]
            cols = ordered_columns(ms)
            unit = "GOP/s" if kind in INT_KINDS else "GFLOP/s (% of measured peak)"
            out.append(f"\n### {KIND_TITLES[kind]}, {t} thread{'s' if t > 1 else ''}: {unit}\n")
            out.append("| workload | shape | " + " | ".join(cols) + " |")
            out.append("|---|---|" + "---|" * len(cols))
            by = {(m["workload"], column(m)): m for m in ms}
            shapes = {m["workload"]: m.get("shape", "") for m in ms}
            for w in [w for w in order if w in shapes]:
                out.append(f"| {w} | {shapes[w]} | " + " | ".join(cell(by.get((w, c)), peak) for c in cols) + " |")
            if kind != "gemm":
                # All layers as one network: sum of flops / sum of median times.
                row = []
                for c in cols:
                    cm = [by.get((w, c)) for w in shapes]
                    if all(m and ok(m) for m in cm):
                        flops = sum(m["gflops"] * m["median_ms"] for m in cm)  # GFLOP/s * ms = MFLOP
                        total_ms = sum(m["median_ms"] for m in cm)
                        g = flops / total_ms
                        row.append(f"**{fmt(g)}**" + (f" ({100 * g / peak:.0f}%)" if peak else "") + f", {total_ms:.2f} ms")
                    else:
                        row.append("")
                out.append(f"| **all** | sum flops / sum time | " + " | ".join(row) + " |")


def best_of(ms, w, t, pred):
    cands = [m for m in ms if m["workload"] == w and m["threads"] == t and pred(m) and ok(m)]
    return max(cands, key=lambda m: m["gflops"]) if cands else None


# The comparisons of issue 5: texc's figure over the peer's (higher is better for texc).
RATIOS = {
    "gemm": [("best of OpenBLAS, oneDNN", lambda m: m["peer"] in ("openblas", "onednn")),
             ("Halide Mullapudi2016", lambda m: m["peer"] == "halide" and m["variant"] == "mullapudi2016")],
    "conv": [("oneDNN preferred layout", lambda m: m["peer"] == "onednn" and m["variant"] == "any"),
             ("oneDNN NCHW end-to-end", lambda m: m["peer"] == "onednn" and m["variant"] == "nchw_e2e"),
             ("Halide Mullapudi2016", lambda m: m["peer"] == "halide" and m["variant"] == "mullapudi2016")],
    "dwconv": [("oneDNN preferred layout", lambda m: m["peer"] == "onednn" and m["variant"] == "any"),
               ("oneDNN NCHW end-to-end", lambda m: m["peer"] == "onednn" and m["variant"] == "nchw_e2e"),
               ("Halide Mullapudi2016", lambda m: m["peer"] == "halide" and m["variant"] == "mullapudi2016")],
    "qconv": [("oneDNN int8_any", lambda m: m["peer"] == "onednn" and m["variant"] == "int8_any")],
}


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def ratio_tables(run, out):
    ms = run["measurements"]
    texc = [m for m in ms if m["peer"] == "texc"]
    out.append("\n## texc / peer\n")
    if not texc:
        out.append("No texc figures in this run: `bench_texc` is not built yet (texc's JIT and stdlib "
                   "schedules plug in through the interface in `bench/README.md`). The ratios appear here "
                   "once it exists.")
        return
    out.append("Ratio of GFLOP/s (int8: GOP/s), texc / peer, same run, same thread count (> 1: texc faster). For matrix "
               "products the peer is the fastest of OpenBLAS and oneDNN (sgemm, matmul) for that workload. † = either figure "
               "was taken while preempted (see below).")
    order = workload_order(run)
    for kind in CPU_KINDS:
        for t in sorted({m["threads"] for m in texc}):
            tv = [m for m in texc if m.get("kind") == kind and m["threads"] == t]
            if not tv:
                continue
            variants = []
            for m in tv:
                if m["variant"] not in variants:
                    variants.append(m["variant"])
            cols = [(v, name, pred) for v in variants for name, pred in RATIOS[kind]]
            out.append(f"\n### {KIND_TITLES[kind]}, {t} thread{'s' if t > 1 else ''}\n")
            out.append("| workload | " + " | ".join(f"texc {v} / {name}" for v, name, _ in cols) + " |")
            out.append("|---|" + "---|" * len(cols))
            per_col = {i: [] for i in range(len(cols))}
            for w in [w for w in order if any(m["workload"] == w for m in tv)]:
                row = []
                for i, (v, name, pred) in enumerate(cols):
                    mine = next((m for m in tv if m["workload"] == w and m["variant"] == v), None)
                    peer = best_of(ms, w, t, pred)
                    if mine is None or not ok(mine) or peer is None:
                        row.append("error" if mine is not None and not ok(mine) else "")
                        continue
                    r = mine["gflops"] / peer["gflops"]
                    per_col[i].append(r)
                    row.append(f"{r:.2f}" + (f" ({peer['peer']} {peer['variant']})" if kind == "gemm" and i == 0 else "")
                               + (" †" if preempted(mine) or preempted(peer) else ""))
                out.append(f"| {w} | " + " | ".join(row) + " |")
            out.append("| **geomean** | " + " | ".join(f"**{fmt(geomean(per_col[i]), 2)}**" for i in range(len(cols))) + " |")


# ---- agreement with the reference measurements (--reference: a report kept outside the repository) ------

REF_COLUMNS = {  # our column -> the reference file's column
    "openblas sgemm": "openblas",
    "onednn sgemm": "onednn_sgemm", "onednn matmul": "onednn_matmul",
    "onednn any": "onednn_any", "onednn nchw_e2e": "onednn_nchw_e2e", "onednn plain": "onednn_plain",
    "halide hand": "halide_hand", "halide mullapudi2016": "halide_mullapudi2016",
}


def parse_reference(path):
    """{(kind, threads): {(workload, column): percent of peak}} from the reference tables."""
    try:
        text = open(path).read()
    except OSError:
        return {}
    tables, key, header = {}, None, None
    shape_to_name = {}
    for line in text.splitlines():
        h = re.match(r"^## (GEMM|conv2d|depthwise conv2d).*?(\d+) threads?", line)
        if h:
            key = ({"GEMM": "gemm", "conv2d": "conv", "depthwise conv2d": "dwconv"}[h.group(1)], int(h.group(2)))
            header = None
            continue
        if line.startswith("## "):
            key = None
            continue
        if key and line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if cells[0] == "workload":
                header = cells
                continue
            if header is None or cells[0].startswith("---") or cells[0].startswith("**"):
                continue
            for col, c in zip(header[1:], cells[1:]):
                m = re.search(r"([\d.]+) \((\d+)%\)", c)
                if m:
                    tables.setdefault(key, {})[(cells[0], col)] = (float(m.group(2)), float(m.group(1)))
    return tables


def reference_peaks(path):
    """{threads: GFLOP/s} from the reference's 'Peak used for the percentages' line."""
    try:
        text = open(path).read()
    except OSError:
        return {}
    m = re.search(r"Peak used for the percentages:(.*)", text)
    return {int(t): float(g) for t, g in re.findall(r"(\d+) threads? = ([\d.]+) GFLOP/s", m.group(1))} if m else {}


def reference_section(run, ref_path, out):
    ref = parse_reference(ref_path)
    if not ref:
        return
    peaks = peak_by_threads(run)
    ref_peaks = reference_peaks(ref_path)
    out.append("\n## Agreement with the reference measurements\n")
    out.append("The reference measurements are a report of the same peers measured by the project's authors on a "
               f"machine of the same description, kept outside this repository (`{os.path.basename(ref_path)}`, read by "
               "`bench/run_bench.py --reference FILE`; without it this section is left out). They were taken on "
               "\"AMD EPYC, 2 cores, KVM guest\". Measured fp32 peak there: "
               + ", ".join(f"{t} thread{'s' if t > 1 else ''} {g:.1f} GFLOP/s" for t, g in sorted(ref_peaks.items()))
               + "; here: " + ", ".join(f"{t} thread{'s' if t > 1 else ''} {g:.1f} GFLOP/s" for t, (g, _) in sorted(peaks.items()))
               + ". Where they differ the host CPU behind the VM differs (e.g. AVX-512 executed at half width vs full "
               "width), so absolute GFLOP/s are not comparable and the comparison is in **% of each machine's own "
               "measured peak**: geometric mean over the workloads both runs have, this run / reference (1.00 = the same "
               "efficiency; well below 1 with a load above ~1 in the load table = the shared machine, not the setup).\n")
    out.append("The last column compares absolute GFLOP/s instead: for code limited by memory or latency rather than by "
               "FMA throughput (the autoscheduled Halide schedules, depthwise convolutions) a wider FMA unit does not "
               "help, and that column is the better check. 1-thread figures marked † (preempted) are left out of both; "
               "`workloads` says how many were compared.\n")
    out.append("| kind | threads | column | workloads | this run, % of peak | reference, % of peak | ratio of % | ratio of GFLOP/s |")
    out.append("|---|---|---|---|---|---|---|---|")
    for (kind, t), table in sorted(ref.items()):
        peak = peaks.get(t, (None, ""))[0]
        if not peak:
            continue
        for ours, theirs in REF_COLUMNS.items():
            pairs, seen = [], 0
            for m in run["measurements"]:
                if m.get("kind") != kind or m["threads"] != t or column(m) != ours or not ok(m):
                    continue
                seen += 1
                if preempted(m):
                    continue
                name = m["workload"] if kind != "gemm" else m.get("shape", "")
                r = table.get((name, theirs))
                if r:
                    pairs.append((100 * m["gflops"] / peak, r[0], m["gflops"], r[1]))
            if pairs:
                a, b = geomean([p[0] for p in pairs]), geomean([p[1] for p in pairs])
                ga, gb = geomean([p[2] for p in pairs]), geomean([p[3] for p in pairs])
                out.append(f"| {kind} | {t} | {ours} (ref: {theirs}) | {len(pairs)} of {seen} | {a:.0f}% | {b:.0f}% | {a / b:.2f} | {ga / gb:.2f} |")


KEEP_MARKER = "<!-- run_bench.py: everything below this line is written by hand and kept on re-runs -->"


def write_markdown(run, path, ref_path):
    meta = run["meta"]
    peaks = peak_by_threads(run)
    out = ["# Performance", ""]
    out.append("Generated by `bench/run_bench.py`; do not edit by hand. Re-run with the command below "
               "(`--quick` for a subset).\n")
    out.append(f"- command: `{meta['command']}`")
    out.append(f"- date: {meta['started']} to {meta.get('finished', '?')} (UTC), texc commit {meta.get('git', '?')}")
    out.append(f"- CPU: {meta['cpu_model']} ({meta['cpu_family_model']}), {meta['cpus']} CPUs, {meta['caches']}, "
               f"hypervisor {meta['hypervisor']}, {meta['memory']} RAM")
    out.append(f"- machine kind: {meta.get('vector_isa', '?')} (from /proc/cpuinfo; texc's stdlib defaults and "
               "shipped records follow it)")
    out.append(f"- compiler: {meta['compiler']}; packages: {', '.join(meta['packages'])}")
    out.append(f"- workloads: `{meta['workloads']}`, threads {meta['threads']}, median of {meta['repeat']} timed "
               "samples after warm-up (at least 3 calls and 0.2 s); calls under 1 ms are repeated within a sample "
               "so that a sample lasts about 1 ms. Data stay in cache between calls (warm-cache timing).")
    out.append("- every result is checked against a float64 reference computed by the benchmark, before and after "
               "timing: max |out − ref| / max |ref| < 1e-4, over all output points when that costs ≤ 2^27 "
               "multiply-adds, else over 65,536 random points plus the first and last (`checked_points` in the JSON). "
               "int8 convolutions (Q2–Q12) against an exact integer reference at every output point: each output must be "
               "clip(floor(sum / 2^shift)) or clip(round(sum / 2^shift)) (texc shifts, oneDNN scales and rounds), so at most 1 "
               "off the first (`max_rel_err` holds that difference).")
    removed = meta.get("removed_environment") or {}
    out.append("- environment overrides removed from every benchmark process (each peer sets its threads itself): "
               + (", ".join(f"`{k}={v}`" for k, v in sorted(removed.items())) if removed else "none were set"))
    out.append("- GFLOP/s = FLOPs / median time, a multiply-add counted as 2 FLOPs; % = of the measured fp32 FMA "
               "peak at the same thread count. int8: GOP/s, counted alike, no %.")
    def c2c(p):
        if p.get("c2c_ns_before") is None or p.get("c2c_ns_after") is None:
            return ""
        return f"; CPU 0 ↔ 1 round trip {p['c2c_ns_before']:.0f} → {p['c2c_ns_after']:.0f} ns"
    loads = [f"{p['label']}: {p['loadavg_before']} → {p['loadavg_after']}{c2c(p)}" for p in run["processes"]]
    out.append("\n**Noise.** This machine is shared with other engineers compiling on the same 2 CPUs; "
               "the 1/5/15-minute load averages before → after each process were:\n")
    out.append("<details><summary>load averages per process</summary>\n")
    out.extend(f"- {l}" for l in loads)
    out.append("\n</details>\n")
    if any(p.get("c2c_ns_before") is not None for p in run["processes"]):
        out.append("The round trip is `bench_c2c`'s: a cache line handed between two threads pinned to CPUs 0 "
                   "and 1. Tens of ns: the two share a cache; hundreds: they do not (a VM's vCPUs move between "
                   "the two), and data one thread writes and the other reads then costs a 2-thread kernel more.\n")
    out.append("A load above ~0.5 before a process means its figures are likely low. 1-thread figures taken while "
               "the process was preempted are marked †; long calls suffer most (short ones often fit between "
               "preemptions). 2-thread figures suffer more: oneDNN splits work statically across its OpenMP threads, so "
               "when one thread is descheduled every barrier waits a scheduler time slice and a call can take 10-100x "
               "longer; OpenBLAS and Halide's thread pool degrade more gracefully, but a busy second CPU still leaves "
               "them one. **With the load shown, the 2-thread tables and the texc/peer ratios at 2 threads are not "
               "fit to quote**; re-run on a quiet machine (`--wait-load 0.5`, or `--quick` for a subset) for figures "
               "to quote.")

    out.append("\n## Machine peak (bench_peak)\n")
    out.append("Independent FMA chains (acc = acc·a + b) on 8, 12 or 16 vector accumulators, threads pinned to distinct CPUs; "
               "best of many ~1–3 ms trials and of the accumulator counts.\n")
    out.append("| measurement | " + " | ".join(f"{t} thread{'s' if t > 1 else ''}" for t in sorted(peaks)) + " |")
    out.append("|---|" + "---|" * len(peaks))
    for isa in sorted({p["variant"] for p in run["peak"]}):
        cells = []
        for t in sorted(peaks):
            p = next((p for p in run["peak"] if p["variant"] == isa and p["threads"] == t), None)
            cells.append(f"{fmt(p['gflops'])} GFLOP/s ({p['accumulators']} acc)" if p else "")
        out.append(f"| fp32 FMA peak, {isa} | " + " | ".join(cells) + " |")
    out.append("\nPeak used for the percentages: " +
               ", ".join(f"{t} thread{'s' if t > 1 else ''} = {fmt(g)} GFLOP/s ({isa})" for t, (g, isa) in sorted(peaks.items())) + ".")

    ratio_tables(run, out)
    out.append("\n## GFLOP/s per workload\n")
    out.append("Columns are `peer variant`; the variants are described in `bench/README.md`: "
               "`openblas sgemm` = OpenBLAS with the kernels it detects for this CPU; `onednn any` = convolution primitive alone in its preferred layouts, "
               "`nchw_e2e` = NCHW in/out including the layout reorders, `plain` = primitive forced to NCHW/OIHW; "
               "`halide hand` = our hand schedule, `mullapudi2016` = Halide's autoscheduler; int8: `texc stdlib` = "
               "nn.int8_cpu.conv2d_u8s8 on its blocked layouts, `onednn int8_any` = the u8s8 primitive alone in its preferred "
               "layouts, `int8_nchw_e2e` = u8 NCHW in/out including the reorders.")
    out.append(f"\n† = 1 thread, and the process got less than {PREEMPTED:.0%} of a CPU during the timed calls "
               "(median CPU time / median wall time): preempted by other work, the figure is low.")
    perf_tables(run, out)
    reference_section(run, ref_path, out)

    out.append("\n## Implementation details recorded by the benchmarks\n")
    details = {}
    for m in run["measurements"]:
        d = m.get("detail") or ""
        details.setdefault((m.get("kind"), column(m)), [])
        if d and d not in details[(m.get("kind"), column(m))]:
            details[(m.get("kind"), column(m))].append(d)
    for (kind, col), ds in details.items():
        shown = " | ".join(ds[:3]) + (f" | ... ({len(ds) - 3} more)" if len(ds) > 3 else "")
        out.append(f"- **{kind} / {col}**: {shown}")

    bad = [m for m in run["measurements"] if not ok(m)]
    failed = [p for p in run["processes"] if p["rc"] not in (0, None)]
    out.append("\n## Failures\n")
    if not bad and not failed:
        out.append("None: every measurement ran and verified.")
    for m in bad:
        out.append(f"- {m['workload']} {column(m)} t={m['threads']}: "
                   + (f"error: {m['error']}" if m.get("error") else f"not verified, max_rel_err {m.get('max_rel_err')}"))
    for p in failed:
        out.append(f"- process {p['label']} exited with {p['rc']}: {p['stderr'][-300:]!r}")
    skipped = [f"{p['label']}: {line}" for p in run["processes"] for line in skipped_lines(p.get("stderr", ""))]
    if skipped:
        out.append("\nSkipped on this machine (not failures): " + "; ".join(skipped) + ".")
    # Hand-written sections (the analysis of misses, the compile-time table of
    # tools/compile_time_table.sh) live after KEEP_MARKER and survive a re-run.
    kept = ""
    try:
        old = open(path).read()
        if KEEP_MARKER in old:
            kept = old[old.index(KEEP_MARKER):]
    except OSError:
        pass
    if not kept:
        kept = KEEP_MARKER + "\n"
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n\n" + kept)
    log(f"wrote {path}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--target", choices=["cpu", "cuda"], default="cpu",
                    help="cpu (default): the CPU peers at --threads; cuda: texc vs cuBLAS and cuDNN on CUDA device 0")
    ap.add_argument("--quick", action="store_true", help=f"only {QUICK_WORKLOADS}")
    ap.add_argument("--workloads", default="all", help="names, kinds or all (default all)")
    ap.add_argument("--threads", default="1,2", help="thread counts (default 1,2)")
    ap.add_argument("--repeat", type=int, default=10, help="timed samples per measurement (default 10)")
    ap.add_argument("--peers", default=None,
                    help="bench_<peer> executables to run, when built (default: " + ",".join(PEERS) +
                         "; with --target cuda: texc," + ",".join(CUDA_PEERS) + ")")
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build-bench"))
    ap.add_argument("--jobs", type=int, default=2, help="ninja -j (default 2)")
    ap.add_argument("--wait-load", type=float, default=0.0,
                    help="before each process, wait until the 1-minute load average is below this (0: don't)")
    ap.add_argument("--wait-max", type=float, default=600, help="wait at most this many seconds per process")
    ap.add_argument("--no-build", action="store_true", help="use the executables already built")
    ap.add_argument("--cuda-records", default=os.path.join(ROOT, "bench", "records", "cuda.jsonl"),
                    help="--target cuda: texc tune records for the 'texc cuda_tuned' column, when the file exists "
                         "(default bench/records/cuda.jsonl)")
    ap.add_argument("--json-out", help="write the whole run (meta, peak, measurements) as JSON here")
    ap.add_argument("--from-json", help="do not measure: render the report from a run saved with --json-out")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "performance.md"), help="the markdown report")
    ap.add_argument("--no-doc", action="store_true", help="do not write the markdown report")
    ap.add_argument("--reference", default=DEFAULT_REFERENCE,
                    help="reference measurements to compare with: a report of the same peers measured elsewhere "
                         "(default: the project's peers-measured-here.md beside the repository; absent, the section is left out)")
    args = ap.parse_args()
    if args.quick and args.workloads == "all":
        args.workloads = QUICK_WORKLOADS
    args.command_line = "bench/run_bench.py" + "".join(" " + shlex.quote(a) for a in sys.argv[1:])

    if args.peers is None:
        args.peers = ",".join(["texc"] + CUDA_PEERS if args.target == "cuda" else PEERS)
    if args.target == "cuda" or (args.from_json and json.load(open(args.from_json))["meta"].get("target") == "cuda"):
        return main_cuda(args)
    if args.from_json:
        with open(args.from_json) as f:
            run = json.load(f)
    else:
        if not args.no_build:
            build(args.build_dir, args.jobs)
        run = measure_all(args)
        if args.json_out:
            with open(args.json_out, "w") as f:
                json.dump(run, f, indent=1)
            log(f"wrote {args.json_out}")
    if not args.no_doc:
        write_markdown(run, args.out, args.reference)
    bad = [m for m in run["measurements"] if not ok(m)]
    return 1 if bad else 0


def main_cuda(args):
    """--target cuda: build the CUDA peers and texc, measure on device 0, write the CUDA section.
    Exit 2, with a message and no traceback, when there is no CUDA device."""
    args.threads = "1"
    if args.from_json:
        with open(args.from_json) as f:
            run = json.load(f)
    else:
        if not args.no_build:
            try:
                build(args.build_dir, args.jobs, "texc_bench_cuda")
            except subprocess.CalledProcessError as e:
                log(f"run_bench.py: building the CUDA peers failed ({e})")
                return 1
        try:
            run = measure_cuda(args)
        except NoCudaDevice as e:
            log(f"run_bench.py: no CUDA device: the CUDA tables need a machine with a GPU "
                f"(the peers and texc are built; {args.out} is unchanged)\n  {e}")
            return 2
        if args.json_out:
            with open(args.json_out, "w") as f:
                json.dump(run, f, indent=1)
            log(f"wrote {args.json_out}")
    if not args.no_doc:
        write_cuda_markdown(run, args.out)
    return 1 if [m for m in run["measurements"] if not ok(m)] else 0


if __name__ == "__main__":
    sys.exit(main())
