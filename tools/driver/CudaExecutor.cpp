#include "tools/driver/CudaExecutor.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "backends/execute/TimeCalls.h"
#include "backends/interp/InterpError.h"
#include "ir/Diagnostics.h"
#include "ir/KernelCalls.h"
#include "ir/SymbolNames.h"
#include "ir/Target.h"
#include "runtime/CudaDriver.h"
#include "runtime/CudaKernel.h"
#include "tools/driver/EnvironmentError.h"

namespace texc {

using namespace texrt;

namespace {

/// The driver with device 0's primary context current on this thread, or EnvironmentError.
const CudaDriver& current_driver() {
  const CudaDriverStatus& status = cuda_driver();
  if (status.code != TEXRT_CUDA_SUCCESS) throw EnvironmentError(status.message);
  const CudaDriver& d = *status.driver;
  if (CUresult r = d.cuCtxSetCurrent(d.context); r != kCudaSuccess)
    throw EnvironmentError("cannot make the context of CUDA device 0 current: " + d.error_string(r));
  return d;
}

/// A failed driver call while running an op: its FAIL line.
[[noreturn]] void fail(const CudaDriver& d, CUresult r, const std::string& what) {
  throw InterpError(what + ": " + d.error_string(r));
}

/// `status` as an InterpError (a FAIL line) when it is a failure.
void check(const CudaStatus& status) {
  if (!status.ok()) throw InterpError(status.message);
}

/// The kernel loaded on the device; the module is unloaded with the last executor that uses it.
struct LoadedKernel {
  const CudaDriver* driver = nullptr;
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  ~LoadedKernel() {
    if (module) driver->cuModuleUnload(module);
  }
};

/// Device memory for one execution's arguments, freed at the end of it (also when it fails).
struct DeviceBuffers {
  const CudaDriver& driver;
  std::vector<CUdeviceptr> pointers;
  explicit DeviceBuffers(const CudaDriver& d) : driver(d) {}
  ~DeviceBuffers() {
    for (CUdeviceptr p : pointers) driver.cuMemFree(p);
  }
};

/// CUDA events, destroyed at the end of an execution.
struct Events {
  const CudaDriver& driver;
  std::vector<CUevent> events;
  explicit Events(const CudaDriver& d) : driver(d) {}
  ~Events() {
    for (CUevent e : events) driver.cuEventDestroy(e);
  }
};

/// One launch of `function` with its configuration on the default stream; a refused launch is a
/// FAIL line naming the kernel and its configuration.
void launch_checked(const CudaDriver& d, CUfunction function, const CudaLaunchConfig& config, std::vector<void*>& params,
                    const std::string& name) {
  for (const auto& zeroed : config.zeroed_args)  // split-K: its blocks add into these outputs atomically
    check(zero_output(d, *static_cast<CUdeviceptr*>(params.at(zeroed.first)), zeroed.second,
                      "argument " + std::to_string(zeroed.first), name));
  check(launch_kernel(d, function, config.grid.data(), config.block.data(), config.shared_bytes, params.data(), name));
}

/// Copies each argument (the outputs too) into device memory of its own, kept in `buffers`.
void copy_args_to_device(const CudaDriver& d, std::vector<Tensor*>& args, DeviceBuffers& buffers, const std::string& name) {
  for (Tensor* t : args) {
    CUdeviceptr p = 0;
    if (CUresult r = d.cuMemAlloc(&p, std::max<size_t>(t->num_bytes(), 1)); r != kCudaSuccess)
      fail(d, r, "cannot allocate " + std::to_string(t->num_bytes()) + " bytes of device memory for op '" + name + "'");
    buffers.pointers.push_back(p);
    if (CUresult r = d.cuMemcpyHtoD(p, t->data(), t->num_bytes()); r != kCudaSuccess)
      fail(d, r, "cannot copy an argument of op '" + name + "' to the device");
  }
}

/// The checked run's outputs (args from num_inputs on) copied back from their device buffers.
void copy_outputs_from_device(const CudaDriver& d, std::vector<Tensor*>& args, size_t num_inputs,
                              const DeviceBuffers& buffers, const std::string& name) {
  for (size_t i = num_inputs; i < args.size(); ++i)
    if (CUresult r = d.cuMemcpyDtoH(args[i]->data(), buffers.pointers[i], args[i]->num_bytes()); r != kCudaSuccess)
      fail(d, r, "cannot copy an output of op '" + name + "' from the device");
}

/// `repeat` runs of `run_once`, a CUDA event recorded before the first and after each: each run's
/// time is the elapsed time between its events (GPU time, no host overhead), labelled "CUDA events".
template <class RunOnce>
CallTimes time_with_events(const CudaDriver& d, int repeat, RunOnce&& run_once, const std::string& what) {
  CallTimes times;
  times.label = "CUDA events";
  if (repeat <= 0) return times;
  Events events(d);
  for (int k = 0; k <= repeat; ++k) {
    CUevent e = nullptr;
    if (CUresult r = d.cuEventCreate(&e, 0); r != kCudaSuccess) fail(d, r, "cannot create a CUDA event");
    events.events.push_back(e);
  }
  if (CUresult r = d.cuEventRecord(events.events[0], nullptr); r != kCudaSuccess) fail(d, r, "cannot record a CUDA event");
  for (int k = 1; k <= repeat; ++k) {
    run_once();
    if (CUresult r = d.cuEventRecord(events.events[size_t(k)], nullptr); r != kCudaSuccess)
      fail(d, r, "cannot record a CUDA event");
  }
  if (CUresult r = d.cuEventSynchronize(events.events.back()); r != kCudaSuccess)
    fail(d, r, what + " failed in a timed run");
  for (int k = 1; k <= repeat; ++k) {
    float ms = 0;
    if (CUresult r = d.cuEventElapsedTime(&ms, events.events[size_t(k - 1)], events.events[size_t(k)]); r != kCudaSuccess)
      fail(d, r, "cannot read the time of a run");
    times.times_ms.push_back(double(ms));
  }
  times.median_ms = median_of(times.times_ms);
  return times;
}

std::shared_ptr<LoadedKernel> load_kernel(const std::string& ptx, const std::string& name, uint32_t shared_bytes) {
  const CudaDriver& d = current_driver();
  auto kernel = std::make_shared<LoadedKernel>();
  kernel->driver = &d;
  check(load_module(d, ptx.c_str(), " of op '" + name + "'", &kernel->module));
  check(find_kernel(d, kernel->module, op_symbol(name).c_str(), shared_bytes, name, &kernel->function));
  return kernel;
}

/// The kernel's executions: device memory for the arguments, the checked launch, the timed ones.
class CudaExecutor : public Executor {
 public:
  CudaExecutor(std::shared_ptr<LoadedKernel> kernel, CudaLaunchConfig launch, size_t num_inputs, std::string name)
      : kernel_(std::move(kernel)), launch_(launch), num_inputs_(num_inputs), name_(std::move(name)) {}

  CallTimes run(std::vector<Tensor*>& args, int timed_rounds) override {
    const std::shared_ptr<LoadedKernel>& kernel = kernel_;
    const CudaLaunchConfig& launch = launch_;
    const size_t num_inputs = num_inputs_;
    const std::string& name = name_;
    const int repeat = std::max(timed_rounds, 0);
    const CudaDriver& d = current_driver();
    DeviceBuffers buffers(d);
    copy_args_to_device(d, args, buffers, name);
    std::vector<void*> params;
    for (CUdeviceptr& p : buffers.pointers) params.push_back(&p);
    auto launch_once = [&] { launch_checked(d, kernel->function, launch, params, name); };
    launch_once();  // the checked call, which also warms up
    if (CUresult r = d.cuCtxSynchronize(); r != kCudaSuccess) fail(d, r, "kernel " + name + " failed");
    // Its outputs are the ones checked (a kernel wrong only on its first launch fails): copied back
    // before the timed launches overwrite them.
    copy_outputs_from_device(d, args, num_inputs, buffers, name);
    return time_with_events(d, repeat, launch_once, "kernel " + name);
  }

 private:
  std::shared_ptr<LoadedKernel> kernel_;
  CudaLaunchConfig launch_;
  size_t num_inputs_;
  std::string name_;
};

}  // namespace

CudaDeviceInfo open_cuda_device(const std::string& requested_arch) {
  const CudaDriver& d = current_driver();
  CudaDeviceInfo info;
  char name[256] = {0};
  if (d.cuDeviceGetName(name, int(sizeof name) - 1, d.device) == kCudaSuccess) info.name = name;
  int major = 0, minor = 0;
  CUresult r = d.cuDeviceGetAttribute(&major, kCuDeviceAttributeComputeMajor, d.device);
  if (r == kCudaSuccess) r = d.cuDeviceGetAttribute(&minor, kCuDeviceAttributeComputeMinor, d.device);
  if (r != kCudaSuccess) throw EnvironmentError("cannot read the compute capability of CUDA device 0: " + d.error_string(r));
  info.compute_capability = major * 10 + minor;
  std::string device = "CUDA device 0 (" + info.name + ", compute capability " + std::to_string(major) + "." +
                       std::to_string(minor) + ")";
  if (!requested_arch.empty()) {
    const CudaArch* arch = find_cuda_arch(requested_arch);
    if (arch && arch->compute_capability > info.compute_capability)
      throw EnvironmentError("--arch " + requested_arch + " is newer than " + device + "; use an older --arch or none");
    info.arch = requested_arch;  // an unknown one is reported by the code generator
    return info;
  }
  for (const CudaArch& arch : cuda_archs())
    if (arch.compute_capability <= info.compute_capability) info.arch = arch.name;
  if (info.arch.empty())
    throw EnvironmentError(device + " is older than every architecture texc generates PTX for (" + cuda_arch_names() + ")");
  return info;
}

std::unique_ptr<Executor> make_cuda_executor(const LoweredFunc& func, const CudaTargetOptions& target) {
  if (func.kind != FunctionKind::Device)
    throw EnvironmentError("target 'cuda' needs the GPU lowering, which this build of texc lacks: op '" + func.name +
                           "' was lowered to host loops with no thread binding");
  return make_cuda_ptx_executor(emit_ptx({func}, target), func.name, cuda_launch_config(func), count_inputs(func));
}

std::unique_ptr<Executor> make_cuda_ptx_executor(const std::string& ptx, const std::string& name,
                                                 const CudaLaunchConfig& launch, size_t num_inputs) {
  std::shared_ptr<LoadedKernel> kernel = load_kernel(ptx, name, launch.shared_bytes);
  return std::make_unique<CudaExecutor>(std::move(kernel), launch, num_inputs, name);
}

namespace {

// One kernel call of a graph: the kernel (its function in the graph's module) and its arguments.
struct GraphLaunch {
  std::shared_ptr<LoadedKernel> kernel;  // the module's owner, shared by the launches
  CUfunction function = nullptr;
  CudaLaunchConfig config;
  std::string name;
  std::vector<KernelCallArg> args;
};

// The graph's executions: device memory for the arguments and the workspace, the checked run
// of every kernel, the timed runs of them all.
class CudaGraphExecutor : public Executor {
 public:
  CudaGraphExecutor(std::vector<GraphLaunch> launches, size_t num_inputs, std::string name, int64_t workspace_bytes)
      : launches_(std::move(launches)), num_inputs_(num_inputs), name_(std::move(name)),
        workspace_bytes_(workspace_bytes) {}

  CallTimes run(std::vector<Tensor*>& args, int timed_rounds) override {
    const std::vector<GraphLaunch>& launches = launches_;
    const size_t num_inputs = num_inputs_;
    const std::string& name = name_;
    const int64_t workspace_bytes = workspace_bytes_;
    const int repeat = std::max(timed_rounds, 0);
    const CudaDriver& d = current_driver();
    DeviceBuffers buffers(d);
    copy_args_to_device(d, args, buffers, name);
    CUdeviceptr workspace = 0;
    if (workspace_bytes > 0) {
      if (CUresult r = d.cuMemAlloc(&workspace, size_t(workspace_bytes)); r != kCudaSuccess)
        fail(d, r, "cannot allocate the " + std::to_string(workspace_bytes) + " bytes of workspace of op '" + name + "'");
      buffers.pointers.push_back(workspace);
    }
    // Each launch's kernelParams: the device pointer of each argument.
    std::vector<std::vector<CUdeviceptr>> pointers;
    std::vector<std::vector<void*>> params(launches.size());
    for (const GraphLaunch& launch : launches) {
      pointers.emplace_back();
      for (const KernelCallArg& a : launch.args)
        pointers.back().push_back(a.arg >= 0 ? buffers.pointers[size_t(a.arg)] : workspace + CUdeviceptr(a.workspace_offset));
    }
    for (size_t k = 0; k < launches.size(); ++k)
      for (CUdeviceptr& p : pointers[k]) params[k].push_back(&p);
    auto run_once = [&] {  // every kernel, in order, on the default stream
      for (size_t k = 0; k < launches.size(); ++k) {
        launch_checked(d, launches[k].function, launches[k].config, params[k], launches[k].name);
      }
    };
    run_once();  // the checked run, which also warms up
    if (CUresult r = d.cuCtxSynchronize(); r != kCudaSuccess) fail(d, r, "a kernel of op " + name + " failed");
    copy_outputs_from_device(d, args, num_inputs, buffers, name);
    return time_with_events(d, repeat, run_once, "a kernel of op " + name);
  }

 private:
  std::vector<GraphLaunch> launches_;
  size_t num_inputs_;
  std::string name_;
  int64_t workspace_bytes_;
};

}  // namespace

std::unique_ptr<Executor> make_cuda_graph_executor(const std::vector<LoweredFunc>& funcs, const CudaTargetOptions& target) {
  TEXC_CHECK(funcs.size() >= 2) << "a graph of kernels without kernels";
  const LoweredFunc& entry = funcs.back();
  std::optional<KernelCalls> calls = kernel_calls(entry);
  TEXC_CHECK(calls) << "the last function of graph " << entry.name << " is not its host entry";
  std::vector<LoweredFunc> kernels(funcs.begin(), funcs.end() - 1);
  for (const LoweredFunc& func : kernels)
    if (func.kind != FunctionKind::Device)
      throw EnvironmentError("target 'cuda' needs the GPU lowering, which this build of texc lacks: kernel '" +
                             func.name + "' was lowered to host loops with no thread binding");
  // Every kernel in one module, loaded once; each call launches its kernel with its own configuration.

  std::string ptx = emit_ptx(kernels, target);
  std::vector<GraphLaunch> launches;
  std::shared_ptr<LoadedKernel> module;
  for (const KernelCall& call : calls->calls) {
    auto it = std::find_if(kernels.begin(), kernels.end(), [&](const LoweredFunc& f) { return f.name == call.kernel; });
    TEXC_CHECK(it != kernels.end()) << "graph entry " << entry.name << " calls " << call.kernel << ", not one of its kernels";
    GraphLaunch launch;
    launch.config = cuda_launch_config(*it);
    launch.name = it->name;
    launch.args = call.args;
    if (!module) {
      module = load_kernel(ptx, it->name, launch.config.shared_bytes);
      launch.function = module->function;
    } else {
      check(find_kernel(*module->driver, module->module, op_symbol(it->name).c_str(), launch.config.shared_bytes,
                        it->name, &launch.function));
    }
    launch.kernel = module;
    launches.push_back(std::move(launch));
  }
  size_t num_inputs = 0;
  for (const Buffer& b : entry.args) num_inputs += b->role == BufferRole::Input;
  std::string name = entry.name;
  int64_t workspace_bytes = calls->workspace_bytes;
  return std::make_unique<CudaGraphExecutor>(std::move(launches), num_inputs, name, workspace_bytes);
}

}  // namespace texc
