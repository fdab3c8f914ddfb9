// ONNX Runtime's per-node profile of a model, for profile_kernels.py: a session as ort_bench.js's
// (every graph optimization, THREADS intra-op threads, one inter-op thread, sequential) with
// enableProfiling; REPEAT runs on a seeded input; the profile (Chrome trace JSON, one event per node
// per run) is written to PREFIX_<date>.json.
// usage: node ort_profile.js MODEL.onnx D0,D1,... THREADS REPEAT PREFIX
'use strict';
const ort = require('onnxruntime-node');

async function main() {
  const [model, dims, threads, repeat, prefix] = process.argv.slice(2);
  const shape = dims.split(',').map(Number);
  const x = new Float32Array(shape.reduce((a, b) => a * b, 1));
  for (let i = 0; i < x.length; ++i) x[i] = Math.sin(i);
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    intraOpNumThreads: Number(threads),
    interOpNumThreads: 1,
    executionMode: 'sequential',
    enableProfiling: true,
    profileFilePrefix: prefix,
  });
  const feeds = {[session.inputNames[0]]: new ort.Tensor('float32', x, shape)};
  for (let i = 0; i < Number(repeat); ++i) await session.run(feeds);
  session.endProfiling();
}

main().catch((e) => {
  console.error('ort_profile: ' + e.message);
  process.exit(1);
});
