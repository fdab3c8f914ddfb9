#include "bench/cuda/CudaHarness.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace bench {

std::string require_cuda_device(const std::string &peer) {
  // Without a driver the runtime says "CUDA driver version is insufficient": name the real reason.
  if (void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
    dlclose(driver);
  } else {
    std::fprintf(stderr, "bench_%s: no CUDA device: libcuda.so.1 cannot be loaded (%s)\n", peer.c_str(), dlerror());
    std::exit(2);
  }
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    std::fprintf(stderr, "bench_%s: no CUDA device: %s\n", peer.c_str(),
                 e != cudaSuccess ? cudaGetErrorString(e) : "the CUDA runtime reports none");
    std::exit(2);
  }
  cudaDeviceProp prop{};
  cuda_check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  int driver = 0;
  cudaDriverGetVersion(&driver);
  return std::string(prop.name) + ", sm_" + std::to_string(prop.major * 10 + prop.minor) + ", driver " +
         std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10);
}

void cuda_check(cudaError_t e, const char *what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

DeviceFloats::DeviceFloats(int64_t n) : n_(n) {
  cuda_check(cudaMalloc(reinterpret_cast<void **>(&p_), size_t(std::max<int64_t>(n, 1)) * sizeof(float)), "cudaMalloc");
  cuda_check(cudaMemset(p_, 0, size_t(n) * sizeof(float)), "cudaMemset");
}

DeviceFloats::~DeviceFloats() { cudaFree(p_); }

void DeviceFloats::upload(const Floats &host) {
  if (host.size() != n_) throw std::runtime_error("upload: sizes differ");
  cuda_check(cudaMemcpy(p_, host.data(), size_t(n_) * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy to device");
}

void DeviceFloats::download(Floats &host) const {
  if (host.size() != n_) throw std::runtime_error("download: sizes differ");
  cuda_check(cudaMemcpy(host.data(), p_, size_t(n_) * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy to host");
}

namespace {

struct Event {
  cudaEvent_t e = nullptr;
  Event() { cuda_check(cudaEventCreate(&e), "cudaEventCreate"); }
  ~Event() { cudaEventDestroy(e); }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The GPU time of `calls` calls, in ms.
double gpu_ms(const std::function<void()> &call, int calls, Event &start, Event &stop) {
  cuda_check(cudaEventRecord(start.e, 0), "cudaEventRecord");
  for (int k = 0; k < calls; ++k) call();
  cuda_check(cudaEventRecord(stop.e, 0), "cudaEventRecord");
  cuda_check(cudaEventSynchronize(stop.e), "the operator");  // an asynchronous kernel error shows here
  float ms = 0;
  cuda_check(cudaEventElapsedTime(&ms, start.e, stop.e), "cudaEventElapsedTime");
  return double(ms);
}

}  // namespace

Timing time_gpu(const std::function<void()> &call, int repeat) {
  Event start, stop;
  using Clock = std::chrono::steady_clock;
  auto t0 = Clock::now();
  double fastest = 1e30;
  for (int n = 0; n < 3 || std::chrono::duration<double>(Clock::now() - t0).count() < 0.2; ++n)
    fastest = std::min(fastest, gpu_ms(call, 1, start, stop));
  Timing t;
  t.inner = fastest >= 1.0 ? 1 : std::min(1000, int(std::ceil(1.0 / std::max(fastest, 1e-6))));
  std::vector<double> samples;
  for (int r = 0; r < repeat; ++r) samples.push_back(gpu_ms(call, t.inner, start, stop) / t.inner);
  t.median_ms = median(samples);
  t.min_ms = *std::min_element(samples.begin(), samples.end());
  t.cpu_ms = 0;
  t.runs = int(samples.size());
  return t;
}

bool measure_gpu(const Options &o, const Workload &w, const std::string &peer, const std::string &variant,
                 const std::function<void()> &call, const std::function<Check()> &check, const std::string &detail) {
  if (!o.want_variant(variant)) return true;
  Measurement m;
  m.workload = w.name, m.peer = peer, m.variant = variant, m.threads = o.threads;
  m.detail = detail;
  try {
    call();
    cuda_check(cudaDeviceSynchronize(), "the operator");
    Check before = check();
    m.timing = time_gpu(call, o.repeat);
    Check after = check();
    m.check = after;
    m.check.ok = before.ok && after.ok;
    m.check.max_rel_err = std::max(before.max_rel_err, after.max_rel_err);
    m.gflops = w.flops() / (m.timing.median_ms * 1e6);
  } catch (const std::exception &e) {
    m.error = e.what();
  }
  report(o, w, m);
  return m.error.empty() && m.check.ok;
}

}  // namespace bench
