#!/usr/bin/python3
"""One round of PyTorch (CPU) on a benchmark model, for run_e2e.py: the model rebuilt by
export_models.build (the same seeded weights the exported ONNX file holds), run on X.bin in one of
two modes:
  eager   model(x) under torch.inference_mode()
  jit     torch.jit.freeze(torch.jit.trace(model, x)) (weights folded as constants, conv + batch norm
          fused by freezing), then torch.jit.optimize_for_inference, called under inference_mode
THREADS intra-op threads (torch.set_num_threads) and one inter-op thread; untimed warm-up calls for
at least 100 ms (the JIT's profiling runs fall in it), then REPEAT timed calls (by the wall clock,
or by the process's CPU time when E2E_CPU_CLOCK is set, as run_e2e.py --clock cpu does). Prints one JSON line
{"mode", "threads", "times_ms", "median_ms", "min_ms"} and writes the output as raw float32 to OUT.bin.
usage: /usr/bin/python3 torch_bench.py MODEL eager|jit X.bin THREADS REPEAT OUT.bin
(Debian's python3 with python3-torch and python3-torchvision.)
"""
import json
import os
import statistics
import sys
import time

import numpy as np
import torch

import export_models


def main(argv):
    name, mode, x_path, threads, repeat, out_path = argv
    threads, repeat = int(threads), int(repeat)
    torch.set_num_threads(threads)
    torch.set_num_interop_threads(1)
    model, x = export_models.build(name)
    x = torch.from_numpy(np.fromfile(x_path, np.float32).reshape(x.shape))
    if mode == "jit":
        with torch.no_grad():
            model = torch.jit.optimize_for_inference(torch.jit.freeze(torch.jit.trace(model, x)))
    elif mode != "eager":
        raise SystemExit("torch_bench: mode is eager or jit, not %r" % mode)
    clock = time.process_time if os.environ.get("E2E_CPU_CLOCK") else time.perf_counter
    with torch.inference_mode():
        start = time.perf_counter()
        while time.perf_counter() - start < 0.1:
            y = model(x)
        times = []
        for _ in range(repeat):
            t0 = clock()
            y = model(x)
            times.append((clock() - t0) * 1e3)
    y.numpy().astype(np.float32).tofile(out_path)
    print(json.dumps({"mode": mode, "threads": threads, "times_ms": times, "median_ms": statistics.median(times),
                      "min_ms": min(times)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
