// One round of ONNX Runtime (onnxruntime-node, CPU) on a model, for run_e2e.py: a session with every
// graph optimization (graphOptimizationLevel 'all'), THREADS intra-op threads, one inter-op thread,
// sequential execution; untimed warm-up runs for at least 100 ms, then REPEAT timed runs of session.run on the same
// input. Prints one JSON line: {"threads", "times_ms": [...], "median_ms", "min_ms"}; writes the
// output (the first) as raw float32 to OUT.bin.
// usage: node ort_bench.js MODEL.onnx X.bin D0,D1,... THREADS REPEAT OUT.bin
// (run_e2e.py sets NODE_PATH to the git-ignored bench/e2e/ort/node_modules: `npm install
// --ignore-scripts onnxruntime-node` there.)
'use strict';
const fs = require('fs');
const ort = require('onnxruntime-node');

// E2E_CPU_CLOCK set: the process's CPU time (process.cpuUsage: user + system, every thread) instead
// of the wall clock (run_e2e.py --clock cpu).
const cpuClock = !!process.env.E2E_CPU_CLOCK;
function nowNs() {
  if (!cpuClock) return process.hrtime.bigint();
  const u = process.cpuUsage();
  return BigInt(u.user + u.system) * 1000n;
}

async function main() {
  const [model, xPath, dims, threads, repeat, outPath] = process.argv.slice(2);
  const shape = dims.split(',').map(Number);
  const raw = fs.readFileSync(xPath);
  const x = new Float32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4);
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    intraOpNumThreads: Number(threads),
    interOpNumThreads: 1,
    executionMode: 'sequential',
  });
  const feeds = {[session.inputNames[0]]: new ort.Tensor('float32', x, shape)};
  let result = await session.run(feeds);  // warm-up: runs for at least 100 ms, as texc_driver.py's
  for (const start = nowNs(); nowNs() - start < 100000000n;) result = await session.run(feeds);
  const times = [];
  for (let i = 0; i < Number(repeat); ++i) {
    const t0 = nowNs();
    result = await session.run(feeds);
    times.push(Number(nowNs() - t0) / 1e6);
  }
  const y = result[session.outputNames[0]].data;
  fs.writeFileSync(outPath, Buffer.from(y.buffer, y.byteOffset, y.byteLength));
  const sorted = [...times].sort((a, b) => a - b);
  console.log(JSON.stringify({threads: Number(threads), times_ms: times, median_ms: sorted[Math.floor(sorted.length / 2)],
                              min_ms: sorted[0]}));
}

main().catch((e) => {
  console.error('ort_bench: ' + e.message);
  process.exit(1);
});
