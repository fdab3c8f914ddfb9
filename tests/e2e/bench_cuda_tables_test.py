#!/usr/bin/env python3
"""bench/run_bench.py's CUDA tables rendered from a saved run (--from-json), no GPU needed: a
synthetic run with texc's default and tensor-core variants and the peers' fp32 and reduced-precision
ones. Checks that each tensor-core variant is compared with the peer of the same precision (GEMM:
cuBLAS gemmex_tf32; conv2d: cuDNN tf32), and the fp32 columns with the fastest fp32 peer only.

usage: bench_cuda_tables_test.py REPO_ROOT"""
import json
import os
import subprocess
import sys
import tempfile

root = sys.argv[1]


def m(workload, kind, peer, variant, gflops):
    return {"workload": workload, "kind": kind, "shape": "s", "peer": peer, "variant": variant, "threads": 1,
            "median_ms": 1000.0 / gflops, "gflops": gflops, "verified": True, "error": None,
            "detail": "x; NVIDIA Test GPU" if peer != "texc" else ""}


run = {"meta": {"target": "cuda", "command": "synthetic", "started": "t0", "finished": "t1", "git": "abc", "repeat": 1},
       "peak": [], "processes": [],
       "measurements": [m("G3", "gemm", "cublas", "sgemm", 100.0), m("G3", "gemm", "cublas", "gemmex_tf32", 400.0),
                        m("G3", "gemm", "texc", "cuda_default", 50.0), m("G3", "gemm", "texc", "cuda_tf32", 300.0),
                        m("C2", "conv", "cudnn", "nchw", 80.0), m("C2", "conv", "cudnn", "tf32", 200.0),
                        m("C2", "conv", "texc", "cuda_default", 40.0), m("C2", "conv", "texc", "cuda_tf32", 100.0)]}
failed = 0


def check(what, cond):
    global failed
    print(("ok   " if cond else "FAIL ") + what)
    failed += not cond


with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "run.json")
    json.dump(run, open(path, "w"))
    doc = os.path.join(tmp, "performance.md")
    open(doc, "w").write("# performance\n\n<!-- run_bench.py --target cuda: the CUDA tables start here -->\n"
                         "<!-- run_bench.py --target cuda: the CUDA tables end here -->\n")
    r = subprocess.run([sys.executable, os.path.join(root, "bench", "run_bench.py"), "--from-json", path, "--out", doc],
                       capture_output=True, text=True)
    check(f"run_bench.py --from-json exits 0 (got {r.returncode}: {r.stderr[-300:]})", r.returncode == 0)
    text = open(doc).read()
    lines = text.splitlines()
    row = lambda w: next((l for l in lines if l.startswith(f"| {w} |")), "")
    check("GEMM: texc tf32 against cuBLAS gemmex_tf32", "texc tf32 / cublas gemmex_tf32" in text and row("G3").rstrip().endswith("| 0.75 |"))
    check("GEMM: texc default against the fastest fp32 peer (sgemm, not TF32)", "| 0.50 (cublas sgemm) |" in row("G3"))
    check("conv2d: texc tf32 against cuDNN tf32", "texc tf32 / cudnn tf32" in text and row("C2").rstrip().endswith("| 0.50 |"))
    check("conv2d: texc default against cuDNN's fp32 (nchw, not TF32)", "| 0.50 (cudnn nchw) |" in row("C2"))
sys.exit(1 if failed else 0)
