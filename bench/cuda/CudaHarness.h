// What the GPU peers (bench_cublas, bench_cudnn) add to bench/common/Harness.h: the device check,
// device buffers filled from the host's seeded data, and timing with CUDA events. The record, the
// workloads and the float64 reference check are the CPU peers' (Harness.h), so the GPU figures
// and texc's `texc run --target cuda` figures are checked the same way. See bench/README.md.
//
// Built with the host C++ compiler against the CUDA runtime (cudart): the peers contain no device
// code of their own, only calls into cuBLAS and cuDNN.
#pragma once

#include "bench/common/Harness.h"

#include <cuda_runtime_api.h>

#include <functional>
#include <stdexcept>
#include <string>

namespace bench {

// Exits 2 with "bench_<peer>: no CUDA device: <the runtime's reason>" on stderr when the CUDA
// runtime finds no device (no driver, or no GPU); else returns a description of device 0
// ("NVIDIA H100 80GB HBM3, sm_90, driver 13.0").
std::string require_cuda_device(const std::string &peer);

// Throws std::runtime_error("WHAT: <cudaGetErrorString>") unless `e` is cudaSuccess.
void cuda_check(cudaError_t e, const char *what);

// A device array of n floats, zeroed; upload/download copy whole arrays (synchronously).
class DeviceFloats {
public:
  explicit DeviceFloats(int64_t n);
  ~DeviceFloats();
  DeviceFloats(const DeviceFloats &) = delete;
  DeviceFloats &operator=(const DeviceFloats &) = delete;
  float *data() { return p_; }
  const float *data() const { return p_; }
  void upload(const Floats &host);
  void download(Floats &host) const;

private:
  float *p_ = nullptr;
  int64_t n_ = 0;
};

// GPU timing, the rule of time_it (Harness.h) with CUDA events: warm-up of at least 3 calls and
// 0.2 s; then `repeat` samples, each `inner` calls between two events on the default stream
// (inner > 1 only when a call takes < 1 ms, so that a sample lasts about 1 ms); the time of a call
// is the events' elapsed time / inner (GPU time; the host's launch overhead counts only where the
// GPU waits for it). cpu_ms is 0: the host's CPU time is not a figure here.
Timing time_gpu(const std::function<void()> &call, int repeat);

// measure() of Harness.h on the GPU: `call` enqueues the operator on the default stream, `check`
// downloads the output and verifies it (after the warm-up and again after timing).
bool measure_gpu(const Options &o, const Workload &w, const std::string &peer, const std::string &variant,
                 const std::function<void()> &call, const std::function<Check()> &check,
                 const std::string &detail = "");

}  // namespace bench
