// vdla: the op's VDLA program (backends/vdla/Codegen.h) on the simulator (VdlaExecutor.h), with
// --vdla-config's configuration (or the spec's defaults); --trace writes the last run's timeline.
// `texc run` calls each op once and reports the simulated time (cycles at the nominal clock, as
// `texc tune` records it, tuner/VdlaRunner.h), labelled simulated, followed by the simulator's
// statistics; the simulator's own time on this host is reported apart. Its built-in vdla.gemm is
// the GEMM micro-op of that configuration (backends/vdla/VdlaIntrinsics.h).
#include <filesystem>

#include <fmt/format.h>

#include "backends/vdla/Codegen.h"
#include "backends/vdla/Listing.h"
#include "backends/vdla/ProgramFile.h"
#include "backends/vdla/VdlaIntrinsics.h"
#include "ir/Diagnostics.h"
#include "tools/driver/VdlaExecutor.h"
#include "tools/driver/targets/Targets.h"
#include "tuner/VdlaRunner.h"

namespace texc {

namespace {

OpExecutor make_vdla_executor_of(TargetExecutors& executors, const LoweredFunc& func, const OpDef& op) {
  return make_vdla_executor(func, *executors.vdla_config, op.loc, executors.vdla_stats, executors.trace_path);
}

// The table line or JSON object of a VDLA result, its time the simulated one, labelled simulated
// (cli.md), with the cycles and the host's wall time in --json and the statistics' line after the
// table line.
std::string format_vdla_result(const TargetExecutors& executors, RunResult& result, double flops, bool json) {
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

// One program per function with its listing (ModuleOutput::files: PATH.vdla and PATH.vdla.txt, or
// one pair per op), generated for --vdla-config's configuration.
void write_vdla_output(ModuleOutput& out, const std::string& kind, const std::string& path) {
  TEXC_CHECK(kind == "vdla") << "output '" << kind << "' of 'vdla' passed output_refusal";
  vdla::VdlaConfig config = vdla_config_of(out.options);
  for (size_t i = 0; i < out.functions.size(); ++i) {
    vdla::VdlaProgram prog = vdla::generate_program(out.functions[i], config, out.function_locs[i]);
    write_output_through(out.files[2 * i], [&](const std::string& file) {
      if (!vdla::write_vdla_file(file, prog)) throw std::runtime_error("cannot write '" + file + "'");
    });
    write_output_through(out.files[2 * i + 1], [&](const std::string& file) {
      if (!vdla::write_vdla_listing(file, prog)) throw std::runtime_error("cannot write '" + file + "'");
    });
  }
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
  b.format_run_result = format_vdla_result;
  b.make_tuning_runner = make_vdla_tuning_runner;
  b.builtin_intrinsics = vdla_builtin_intrinsics;
  b.write_output = write_vdla_output;
  return b;
}

}  // namespace texc
