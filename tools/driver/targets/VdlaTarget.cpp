// vdla: the op's VDLA program (backends/vdla/Codegen.h) on the simulator (VdlaExecutor.h), with
// --vdla-config's configuration (or the spec's defaults); --trace writes the last run's timeline.
// `texc run` calls each op once and reports the simulated time (cycles at the nominal clock, as
// `texc tune` records it, tuner/VdlaRunner.h), labelled simulated, followed by the simulator's
// statistics; the simulator's own time on this host is reported apart. An op compiled as a graph of
// VDLA and host kernels (VdlaGraph.h) runs kernel by kernel (VdlaGraphExecutor.h), its host
// functions JIT-compiled for the host CPU; `texc run` reports the VDLA kernels' simulated cycles and
// the host kernels' measured time apart, kernel by kernel and in total.
// Its built-in vdla.gemm is the GEMM micro-op of that configuration (backends/vdla/VdlaIntrinsics.h).
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "backends/vdla/Codegen.h"
#include "backends/vdla/Listing.h"
#include "backends/vdla/ProgramFile.h"
#include "backends/vdla/VdlaIntrinsics.h"
#include "backends/llvm/VdlaHostObject.h"
#include "ir/Diagnostics.h"
#include "ir/KernelCalls.h"
#include "tools/driver/CpuTarget.h"
#include "tools/driver/VdlaGraph.h"
#include "tools/driver/VdlaExecutor.h"
#include "tools/driver/VdlaGraphExecutor.h"
#include "tools/driver/targets/Targets.h"
#include "backends/execute/VdlaExecutor.h"
#include "tuner/VdlaRunner.h"

namespace texc {

namespace {

std::shared_ptr<Executor> make_vdla_executor_of(TargetExecutors& executors, const LoweredFunc& func, const OpDef& op) {
  if (!func.target.empty())  // a host function of a graph of VDLA and host kernels
    return make_vdla_host_executor(executors, func);
  return make_vdla_executor(func, *executors.vdla_config, op.loc, keep_vdla_run(executors.vdla_stats, executors.trace_path),
                            !executors.trace_path.empty());
}

// The table line or JSON object of a VDLA result, its time the simulated one, labelled simulated
// (cli.md), with the cycles and the host's wall time in --json and the statistics' line after the
// table line.
// A graph of VDLA and host kernels: the time is the VDLA kernels' simulated time plus the host
// kernels' measured time (they run one after the other), labelled so; each kernel's line follows,
// then the totals apart.
std::string format_vdla_graph_result(const VdlaGraphStats& stats, RunResult& result, double flops, bool json) {
  uint64_t cycles = 0;
  double simulator_ms = 0, host_ms = 0;
  int64_t to_vdla = 0, from_vdla = 0;
  int on_vdla = 0, on_host = 0;
  std::string lines, kernels;
  for (const VdlaGraphKernelRun& k : stats.kernels) {
    if (k.on_vdla) {
      ++on_vdla;
      cycles += k.sim.total_cycles;
      simulator_ms += k.simulator_ms;
      to_vdla += k.bytes_to_vdla;
      from_vdla += k.bytes_from_vdla;
      VdlaRunStats one;
      one.result = k.sim;
      one.ran = true;
      one.host_ms = k.simulator_ms;
      std::string stat = format_vdla_stats(one);  // "  vdla: N cycles ..."
      lines += "\n  vdla kernel " + k.name + ":" + stat.substr(stat.find(':') + 1) +
               fmt::format("; copies: {} bytes host -> VDLA DRAM before, {} bytes VDLA DRAM -> host after",
                           k.bytes_to_vdla, k.bytes_from_vdla);
      kernels += fmt::format("{}{{\"name\": \"{}\", \"device\": \"vdla\", \"cycles\": {}, \"simulated_ms\": {:.6g}, "
                             "\"simulator_host_ms\": {:.6g}, \"bytes_to_vdla\": {}, \"bytes_from_vdla\": {}}}",
                             kernels.empty() ? "" : ", ", k.name, k.sim.total_cycles, vdla_cycles_to_ms(k.sim.total_cycles),
                             k.simulator_ms, k.bytes_to_vdla, k.bytes_from_vdla);
    } else {
      ++on_host;
      host_ms += k.host_ms;
      lines += fmt::format("\n  host kernel {}: {:.4g} ms on the host CPU ({}){}", k.name, k.host_ms, stats.host,
                           k.host_timed ? ", median of its timed calls" : ", one call's wall time");
      kernels += fmt::format("{}{{\"name\": \"{}\", \"device\": \"{}\", \"ms\": {:.6g}}}", kernels.empty() ? "" : ", ",
                             k.name, stats.host, k.host_ms);
    }
  }
  const double vdla_ms = vdla_cycles_to_ms(cycles);
  result.median_ms = vdla_ms + host_ms;
  result.gflops = result.median_ms > 0 ? flops / (result.median_ms * 1e6) : 0;
  std::string text = json ? format_result_json(result) : format_result_line(result);
  if (json)
    return text.substr(0, text.size() - 1) +
           fmt::format(", \"timing\": \"VDLA kernels {} + host kernels measured on {}\", \"cycles\": {}, "
                       "\"vdla_ms\": {:.6g}, \"host_kernels_ms\": {:.6g}, \"host_ms\": {:.6g}, \"bytes_to_vdla\": {}, "
                       "\"bytes_from_vdla\": {}, \"kernels\": [{}]}}",
                       vdla_timing_label(), stats.host, cycles, vdla_ms, host_ms, simulator_ms, to_vdla, from_vdla, kernels);
  size_t ms = text.find(" ms ");
  if (ms != std::string::npos) text.insert(ms + 3, " (VDLA simulated + host)");
  return text + lines +
         fmt::format("\n  total: VDLA {} kernels, {} cycles = {:.4g} ms simulated at a nominal {:.0f} MHz clock; host ({}) {} "
                     "kernels, {:.4g} ms; copied {} bytes host -> VDLA DRAM, {} bytes VDLA DRAM -> host",
                     on_vdla, cycles, vdla_ms, kVdlaNominalClockMhz, stats.host, on_host, host_ms, to_vdla, from_vdla);
}

std::string format_vdla_result(const TargetExecutors& executors, RunResult& result, double flops, bool json) {
  if (executors.vdla_graph_stats->ran) return format_vdla_graph_result(*executors.vdla_graph_stats, result, flops, json);
  VdlaRunStats& stats = *executors.vdla_stats;
  if (!stats.ran) return json ? format_result_json(result) : format_result_line(result);
  stats.host_ms = result.median_ms;
  result.median_ms = vdla_cycles_to_ms(stats.result.total_cycles);
  result.gflops = result.median_ms > 0 ? flops / (result.median_ms * 1e6) : 0;
  std::string text = json ? format_result_json(result) : format_result_line(result);
  if (json)
    return text.substr(0, text.size() - 1) + fmt::format(", \"timing\": \"{}\", \"cycles\": {}, \"host_ms\": {:.6g}}}",
                                                         vdla_timing_label(), stats.result.total_cycles, stats.host_ms);
  size_t ms = text.find(" ms ");
  if (ms != std::string::npos) text.insert(ms + 3, " (simulated)");
  return text + "\n" + format_vdla_stats(stats);
}

// A graph of VDLA and host kernels (VdlaGraph.h): its host functions have the host's target, its
// VDLA kernels none. The kernels the graphs' entries call.
std::set<std::string> graph_kernel_names(const std::vector<LoweredFunc>& funcs) {
  std::set<std::string> names;
  for (const LoweredFunc& func : funcs)
    if (std::optional<KernelCalls> calls = kernel_calls(func); calls && !func.target.empty())
      for (const KernelCall& call : calls->calls) names.insert(call.kernel);
  return names;
}

// vdla: one program per VDLA function (a graph's kernels included) with its listing
// (ModuleOutput::files: PATH.vdla and PATH.vdla.txt, or one pair per function), generated for
// --vdla-config's configuration.
void write_vdla_programs(ModuleOutput& out) {
  vdla::VdlaConfig config = vdla_config_of(out.options);
  size_t file = 0;
  for (size_t i = 0; i < out.functions.size(); ++i) {
    const LoweredFunc& func = out.functions[i];
    if (!func.target.empty()) continue;  // a host function of a graph
    vdla::VdlaProgram prog = vdla::generate_program(func, config, out.function_locs[i]);
    write_output_through(out.files[file++], [&](const std::string& f) {
      if (!vdla::write_vdla_file(f, prog)) throw std::runtime_error("cannot write '" + f + "'");
    });
    write_output_through(out.files[file++], [&](const std::string& f) {
      if (!vdla::write_vdla_listing(f, prog)) throw std::runtime_error("cannot write '" + f + "'");
    });
  }
}

// obj and header: the host part of the graphs of VDLA and host kernels (backends/llvm/
// VdlaHostObject.h): their host functions compiled for the host CPU as `texc run` JIT-compiles
// them, their VDLA kernels' programs embedded. An op of one VDLA program is not in them.
void write_vdla_graph_host_part(ModuleOutput& out, const std::string& kind, const std::string& path) {
  vdla::VdlaConfig config = vdla_config_of(out.options);
  const std::set<std::string> graph_kernels = graph_kernel_names(out.functions);
  std::vector<LoweredFunc> declared;    // the host functions and the graphs' VDLA kernels, in order
  std::vector<LoweredFunc> host_funcs;  // compiled for the host CPU
  std::vector<VdlaKernelProgram> programs;
  for (size_t i = 0; i < out.functions.size(); ++i) {
    const LoweredFunc& func = out.functions[i];
    if (!func.target.empty()) {
      declared.push_back(func);
      host_funcs.push_back(func);
    } else if (graph_kernels.count(func.name)) {
      declared.push_back(func);
      if (kind == "obj")
        programs.push_back({func, vdla::serialize_vdla(vdla::generate_program(func, config, out.function_locs[i]))});
    }
  }
  if (kind == "header") return write_output_text(path, emit_vdla_host_header(declared));
  TEXC_CHECK(kind == "obj") << "output '" << kind << "' of 'vdla' passed output_refusal";
  CpuTargetOptions cpu = cpu_target_options(function_options(out.options, false));
  write_output_through(path, [&](const std::string& f) {
    write_vdla_host_object(host_funcs, programs, cpu, f, &out.times.llvm.emplace());
  });
}

void write_vdla_output(ModuleOutput& out, const std::string& kind, const std::string& path) {
  if (kind == "vdla") return write_vdla_programs(out);
  write_vdla_graph_host_part(out, kind, path);
}

// vdla.gemm as the accelerator of --vdla-config (or the spec's) computes it.
std::vector<IntrinsicDef> vdla_builtin_intrinsics(const CompileOptions& opts) {
  return vdla::builtin_intrinsics(vdla_config_of(opts));
}

std::unique_ptr<Runner> make_vdla_tuning_runner(const CompileOptions& opts) {
  std::string config_name =
      opts.vdla_config.empty() ? "default" : std::filesystem::path(opts.vdla_config).filename().string();
  return make_vdla_runner(vdla_config_of(opts), config_name);
}

}  // namespace

TargetBehaviour vdla_target() {
  TargetBehaviour b;
  b.name = "vdla";
  b.run_repeat = 1;
  b.make_executor = make_vdla_executor_of;
  b.make_graph_executor = make_vdla_graph_executor;
  b.format_run_result = format_vdla_result;
  b.make_tuning_runner = make_vdla_tuning_runner;
  b.builtin_intrinsics = vdla_builtin_intrinsics;
  b.write_output = write_vdla_output;
  return b;
}

}  // namespace texc
