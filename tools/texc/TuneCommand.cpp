// `texc tune FILE.tex --target T --trials N --records R.jsonl ...`: searches the knob space of each
// op (or --op NAME) for the target with the tuner (tuner/Tuner.h), measuring every candidate in a
// child process, appending a record per measurement to R.jsonl (resuming from what it already
// holds), a progress line per batch on stderr and a summary line (or --json object) per op on
// stdout; --curve F.svg draws best-so-far against trials for R.jsonl and every --curve-with file
// (written through OutputFile.h: never over an input, whole or not at all). Two tuners on one
// R.jsonl take turns batch by batch (tuner/Tuner.h).
//   x86     JIT in the measuring child (tuner/CpuRunners.h); interp: the loop interpreter;
//   arm     the qemu arm runner (times labelled emulated); vdla: the simulator's cycles
//           (tuner/VdlaRunner.h); cuda: CUDA-event times on device 0 (tools/driver/CudaRunner.h; exit 2
//           without a device).
// With --broker redis://HOST:PORT the candidates are measured by the farm's workers of --device
// (tools/farm/FarmMeasurer.h; `texc worker`), each batch at once, into the same records; with
// --compile-on tuner (x86, arm, cuda, vdla) each candidate is compiled here, for the CPU (cuda: the
// PTX target) the workers registered, and its job ships the object, PTX or VDLA program
// (tools/farm/FarmArtefact.h).
// An op compiled as a graph of kernels (lower/graph/, docs/graph.md) is tuned task by task
// (tuner/GraphTask.h; docs/tuning.md "Tuning a network"): each task once, through its first kernel,
// with the --trials split by the tasks' FLOPs; records carry the task, so another network with
// the same layer finds them. Through the farm (--broker) each task's jobs name its kernel and task
// (FarmJob.h), and the worker measures that kernel of the op's graph. Exit 1 when some task (or op)
// has no valid configuration, naming it.
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <iostream>

#include "backends/llvm/ArmRunner.h"
#include "tools/texc/Commands.h"
#include "ir/Target.h"
#include "tools/driver/CpuTarget.h"
#include "tools/driver/TargetPropertiesOf.h"
#include "tools/driver/TargetRegistry.h"
#include "tools/driver/CudaRunner.h"
#include "tools/driver/EnvironmentError.h"
#include "tools/driver/KnobOptions.h"
#include "tools/driver/LowerForTarget.h"
#include "lower/SplitPrepare.h"
#include "tools/driver/LoadProgram.h"
#include "tools/driver/RecordKnobs.h"
#include "tools/driver/OutputFile.h"
#include "tools/driver/TuningRunner.h"
#include "tools/driver/VdlaExecutor.h"
#include "tools/driver/VdlaGraph.h"
#include "tuner/CpuRunners.h"
#include "tuner/Curve.h"
#include "tuner/GraphTask.h"
#include "tuner/Json.h"
#include "tuner/Records.h"
#include "tuner/Space.h"
#include "tuner/Tuner.h"
#include "tuner/VdlaRunner.h"
#ifdef TEXC_HAVE_FARM
#include "tools/farm/FarmMeasurer.h"
#include "tools/texc/FarmJobOfCommandLine.h"
#endif

namespace texc {

namespace {

/// Best GFLOP/s so far after each record of `op` in `path` (named by the flag `what`), in file
/// order; records with a record_defect are left out (tune_op warned of those of --records).
CurveSeries curve_of(const std::string& path, const std::string& what, const std::string& op, const std::string& target,
                     const std::string& task = "") {
  CurveSeries s;
  s.label = std::filesystem::path(path).filename().string();
  double best = 0;
  std::string tuner;
  for (const Record& r : read_records(path, what).records) {
    if ((task.empty() ? r.op != op || !r.task.empty() : r.task != task) || r.target != target ||
        r.tuner == kRemeasureTuner)
      continue;  // trials only
    if (record_defect(r)) continue;
    if (tuner.empty()) tuner = r.tuner;
    if (r.ok()) best = std::max(best, r.gflops);
    s.best_so_far.push_back(best);
  }
  if (!tuner.empty()) s.label += " (" + tuner + ")";
  return s;
}

std::string summary_line(const OpDef& op, const CommandLine& cl, const TuneSummary& s, const Space& space) {
  char buf[512];
  std::string best = "no valid configuration";
  if (s.best) {
    std::snprintf(buf, sizeof buf, "best %.2f GFLOP/s (%.4g ms, spread %.0f%%) %s", s.best->gflops, s.best->median_ms,
                  s.best->spread * 100, space.describe(s.best->knobs).c_str());
    best = buf;
  }
  std::snprintf(buf, sizeof buf, "%-24s %-7s %s  %d trials (%d resumed, %d new, %d failed)%s%s", op.name.c_str(),
                cl.target.c_str(), best.c_str(), s.total, s.resumed, s.measured, s.failures,
                s.exhausted ? ", space exhausted" : "", s.stopped_early ? ", stopped early" : "");
  std::string line = buf;
  if (cl.remeasure > 0)
    line += ", " + std::to_string(s.remeasured + s.remeasured_before) + " measured again (the best by its median)";
  return line;
}

Json summary_json(const OpDef& op, const CommandLine& cl, const TuneSummary& s) {
  Json j = Json::obj();
  j.set("op", Json::str(op.name));
  j.set("target", Json::str(cl.target));
  j.set("trials", Json::num(s.total));
  j.set("resumed", Json::num(s.resumed));
  j.set("new", Json::num(s.measured));
  j.set("failed", Json::num(s.failures));
  j.set("exhausted", Json::boolean_value(s.exhausted));
  j.set("stopped_early", Json::boolean_value(s.stopped_early));
  j.set("remeasured", Json::num(s.remeasured + s.remeasured_before));
  if (s.best) {
    j.set("best_gflops", Json::num(s.best->gflops));
    j.set("best_ms", Json::num(s.best->median_ms));
    Json knobs = Json::obj();
    for (const std::string& k : s.best->knob_order)
      if (s.best->knobs.count(k)) knobs.set(k, Json::num(double(s.best->knobs.at(k))));
    j.set("best_knobs", knobs);
  }
  j.set("records", Json::str(cl.records));
  return j;
}


/// The FLOPs of a task in its network: one kernel's times the kernels of the task.
double network_flops(const GraphTask& task) { return task.flops * double(task.kernels.size()); }

/// The trials of each task of a graph: one each (its defaults at least), then the rest of `trials`
/// split among the tasks with more than one configuration in proportion to their FLOPs in the
/// network, none past the size of its space; what flooring leaves goes to the largest task that can
/// take it.
std::vector<int> split_trials(const std::vector<GraphTask>& tasks, const std::vector<uint64_t>& space_sizes, int trials) {
  std::vector<int> budget(tasks.size(), 1);
  int rest = std::max(0, trials - int(tasks.size()));
  auto room = [&](size_t i) { return space_sizes[i] > uint64_t(budget[i]); };
  while (rest > 0) {
    double total = 0;
    for (size_t i = 0; i < tasks.size(); ++i)
      if (room(i)) total += std::max(network_flops(tasks[i]), 1.0);
    if (total == 0) break;  // every space exhausted
    int given = 0;
    for (size_t i = 0; i < tasks.size(); ++i) {
      if (!room(i)) continue;
      uint64_t share = uint64_t(rest * std::max(network_flops(tasks[i]), 1.0) / total);
      share = std::min<uint64_t>(share, space_sizes[i] - uint64_t(budget[i]));
      budget[i] += int(share);
      given += int(share);
    }
    if (given == 0) {  // every share floored to 0: one trial to the largest task with room
      size_t best = tasks.size();
      for (size_t i = 0; i < tasks.size(); ++i)
        if (room(i) && (best == tasks.size() || network_flops(tasks[i]) > network_flops(tasks[best]))) best = i;
      ++budget[best];
      given = 1;
    }
    rest -= given;
  }
  return budget;
}

/// "small_cnn_k0, small_cnn_k2"
std::string kernel_names(const GraphOps& graph, const GraphTask& task) {
  std::string names;
  for (size_t k : task.kernels) names += (names.empty() ? "" : ", ") + graph.kernels[k].op.name;
  return names;
}

}  // namespace

TuneOptions tune_options_of(const CommandLine& cl) {
  TuneOptions options;
  options.trials = cl.trials;
  options.records = cl.records;
  options.transfer = cl.transfer;
  options.tuner = cl.tuner.empty() ? "xgb" : cl.tuner;
  options.objective = cl.objective == "rank" ? CostObjective::Rank : CostObjective::Regression;
  options.seed = cl.seed;
  options.early_stopping = cl.early_stopping;
  options.remeasure = cl.remeasure;
  options.measure.seed = cl.seed;
  if (cl.timeout_s > 0) options.measure.timeout_s = cl.timeout_s;
  options.lower.target = cl.target;
  options.lower.arch = cl.arch;
  options.lower.no_fuse = cl.no_fuse;
  options.lower.allow_tf32 = cl.allow_tf32;
  options.lower.caches = CacheSizes::host();
  if (generates_vdla_programs(cl.target)) options.lower.vdla_config = vdla_config_of(cl);
  options.lower.target_properties = target_properties_of(cl);
  options.lower.builtin_intrinsics = builtin_intrinsics_of(cl);  // vdla.gemm of --vdla-config's block
  options.texc_version = TEXC_VERSION;
  return options;
}

void set_op_options(const CommandLine& cl, const OpDef& whole, const OpDef& op, bool split, const Program& definitions,
                    TuneOptions& options) {
  options.lower.fixed = knob_options_for(cl, op);
  if (is_llvm_cpu_target(cl.target)) options.lower.cpu_features = cpu_feature_query(cl, op);  // tensorize's instructions
  options.measure.reference = nullptr;
  options.measure.definition = nullptr;
  for (const OpDef& d : definitions.ops)
    if (d.name == whole.name) options.measure.definition = &d;  // what the GFLOP/s count
  if (!split) options.measure.reference = options.measure.definition;
}

void set_kernel_options(const CommandLine& cl, const OpDef& kernel, TuneOptions& options) {
  options.lower.fixed = knob_options_for(cl, kernel);
  if (is_llvm_cpu_target(cl.target)) options.lower.cpu_features = cpu_feature_query(cl, kernel);
  options.measure.reference = nullptr;   // the kernel is checked against its own stages
  options.measure.definition = nullptr;  // and its GFLOP/s count its own arithmetic
}

namespace {

/// Tunes the op `op` (the whole op, or its main half), compiled as `graph`, task by task: each
/// task's first kernel is tuned with its share of --trials (split_trials), its records carrying
/// the task (so those of another network with the same layer are resumed, not measured again).
/// A line per task on stdout; the tasks without a valid configuration are added to `without_valid`.
/// On vdla a host kernel's task is tuned on the host CPU target, by this process, its records
/// that target's (the farm, if any, measures the VDLA kernels only).
/// `before_task` (when set) is told each task's kernel and key before it is tuned (the farm's jobs
/// name them).
void tune_graph(const CommandLine& graph_cl, const OpDef& op, const GraphOps& graph, Runner& graph_runner,
                const TuneOptions& graph_options, std::vector<std::string>& without_valid,
                const std::function<void(const std::string& kernel, const std::string& task)>& before_task) {
  std::vector<GraphTask> tasks = graph_tasks(graph);
  // A host kernel of a graph on vdla (tools/driver/VdlaGraph.h) runs on the host CPU: it is tuned
  // there, here, its records the host target's (what `texc run --target vdla` lowers it with).
  auto on_host = [&](const GraphTask& t) {
    return generates_vdla_programs(graph_cl.target) && !graph.kernels[t.kernels.front()].group.alone;
  };
  CommandLine host_cl = graph_cl;
  host_cl.target = function_options(graph_cl, false).target;
  host_cl.broker.clear();
  std::unique_ptr<Runner> host_runner;
  std::vector<uint64_t> sizes;
  double total_flops = 0;
  for (const GraphTask& t : tasks) {
    sizes.push_back(Space(graph.kernels[t.kernels.front()].op, on_host(t) ? host_cl.target : graph_cl.target).size());
    total_flops += network_flops(t);
  }
  std::vector<int> budget = split_trials(tasks, sizes, graph_cl.trials);
  std::cerr << "texc: op '" << op.name << "' is a graph of " << graph.kernels.size() << " kernels: " << tasks.size()
            << " tuning task" << (tasks.size() == 1 ? "" : "s") << ", " << graph_cl.trials
            << " trials split by their FLOPs\n";
  for (size_t t = 0; t < tasks.size(); ++t) {
    const GraphTask& task = tasks[t];
    const OpDef& kernel = graph.kernels[task.kernels.front()].op;
    char share[64];
    std::snprintf(share, sizeof share, "%.4g FLOP x %zu (%.0f%% of the op)", task.flops, task.kernels.size(),
                  total_flops > 0 ? 100 * network_flops(task) / total_flops : 0.0);
    std::cerr << "texc: task " << t + 1 << "/" << tasks.size() << " '" << task.key << "': kernel"
              << (task.kernels.size() == 1 ? " " : "s ") << kernel_names(graph, task) << ", " << share << ", "
              << sizes[t] << " configuration" << (sizes[t] == 1 ? "" : "s") << ", " << budget[t] << " trial"
              << (budget[t] == 1 ? "" : "s") << "\n";
    const CommandLine& cl = on_host(task) ? host_cl : graph_cl;
    TuneOptions options = graph_options;
    if (on_host(task)) {
      if (!host_runner) host_runner = make_tuning_runner(host_cl);
      options = tune_options_of(host_cl);
      options.tty = graph_options.tty;
    }
    Runner& runner = on_host(task) ? *host_runner : graph_runner;
    options.trials = budget[t];
    options.task = task.key;
    options.progress_label = "task " + std::to_string(t + 1) + "/" + std::to_string(tasks.size()) + " " + kernel.name;
    set_kernel_options(cl, kernel, options);
    if (before_task && !on_host(task)) before_task(kernel.name, task.key);
    Space space(kernel, cl.target);
    TuneSummary summary;
    try {
      summary = tune_op(kernel, runner, options, std::cerr);
    } catch (const std::runtime_error& e) {
      throw EnvironmentError(e.what());
    }
    if (cl.json) {
      Json line = summary_json(kernel, cl, summary);
      Json kernels = Json::arr();
      for (size_t k : task.kernels) kernels.array.push_back(Json::str(graph.kernels[k].op.name));
      line.set("graph_op", Json::str(op.name));
      line.set("task", Json::str(task.key));
      line.set("kernels", kernels);
      std::cout << line.dump() << std::endl;
    } else {
      std::cout << summary_line(kernel, cl, summary, space) << "  task '" << task.key << "'" << std::endl;
    }
    if (!summary.best) without_valid.push_back("task '" + task.key + "' (kernel " + kernel_names(graph, task) + ")");
    if (!cl.curve.empty() && t + 1 == tasks.size()) {  // the curve of the task with the most FLOPs
      size_t largest = 0;
      for (size_t i = 0; i < tasks.size(); ++i)
        if (network_flops(tasks[i]) > network_flops(tasks[largest])) largest = i;
      const std::string& name = graph.kernels[tasks[largest].kernels.front()].op.name;
      const std::string& target = on_host(tasks[largest]) ? host_cl.target : graph_cl.target;
      std::vector<CurveSeries> series = {curve_of(cl.records, "--records", name, target, tasks[largest].key)};
      for (const std::string& path : cl.curve_with)
        series.push_back(curve_of(path, "--curve-with", name, target, tasks[largest].key));
      write_output_file(cl.curve, "--curve", curve_svg(series, "texc tune " + op.name + ", task " + tasks[largest].key +
                                                                   " (" + target + ")"));
    }
  }
}

}  // namespace

int tune_command(const CommandLine& command_line) {
  CommandLine cl = command_line;  // --compile-on tuner: the CPU the workers registered, when --mcpu names none
  std::unique_ptr<Runner> runner;
#ifdef TEXC_HAVE_FARM
  std::unique_ptr<FarmMeasurer> farm;
  FarmJobTemplate job;
  const bool compile_on_tuner = cl.compile_on == "tuner";
  if (!cl.broker.empty()) {
    FarmOptions farm_options;
    try {  // a mistake in the address or the password file: exit 1
      farm_options = {BrokerAddress::parse(cl.broker),
                      cl.password_file.empty() ? "" : read_password_file(cl.password_file),
                      cl.device_kind.empty() ? cl.target : cl.device_kind};
      check_broker_is_private(farm_options.broker, cl.insecure_broker);
    } catch (const BrokerError& e) {
      throw CommandLineError(e.what());
    }
    if (compile_on_tuner && artefact_kind_of(cl.target).empty())
      throw CommandLineError("--compile-on tuner: texc ships compiled candidates for --target x86, arm, cuda and vdla only, "
                             "not " + cl.target + " (its workers compile each job themselves: leave --compile-on out)");
    job = farm_job_template(cl);  // the sources, before waiting for a worker: a mistake shows at once
    try {  // the broker cannot be reached or refuses: exit 2
      farm = std::make_unique<FarmMeasurer>(farm_options, std::cerr);
      runner = make_farm_device(farm_options, std::cerr);
    } catch (const BrokerError& e) {
      throw EnvironmentError(e.what());
    }
    // Compiled here, the candidates are lowered and compiled for the CPU the kind's workers
    // registered (as each worker lowers and compiles for its own CPU otherwise).
    const std::string shipped = compile_on_tuner ? artefact_kind_of(cl.target) : "";
    if (is_llvm_cpu_target(cl.target) && compile_on_tuner && cl.mcpu.empty() && !runner->machine().cpu.empty()) {
      cl.mcpu = runner->machine().cpu;
      job = farm_job_template(cl);
    }
    // cuda: the PTX target of the device the kind's workers registered, unless --arch names one.
    if (shipped == "cuda-ptx" && cl.arch.empty() && !cuda_arch_of_device(runner->device()).empty()) {
      cl.arch = cuda_arch_of_device(runner->device());
      job = farm_job_template(cl);
    }
  }
#else
  if (!cl.broker.empty())
    throw EnvironmentError("--broker: this texc was built without hiredis (Debian: apt-get install libhiredis-dev, "
                           "then rebuild)");
#endif
  if (!runner) runner = make_tuning_runner(cl);
  Program program = load_program(cl);
  Program definitions = load_definitions(cl);  // what candidates are checked against
  TuneOptions options = tune_options_of(cl);
  options.tty = isatty(STDERR_FILENO);
  for (const std::string& path : cl.transfer)
    if (!std::filesystem::exists(path)) throw CommandLineError("--transfer " + path + ": no such file");

  std::vector<std::string> without_valid;  // ops none of whose configurations ran and passed
  for (const OpDef& whole : program.ops) {
    // An op with a prepare function (const inputs, lower/SplitPrepare.h) is tuned as what is timed
    // on every call: its main half, on random prepared inputs, checked against itself.
    std::optional<PreparedOp> split = split_prepare(whole);
    const OpDef& op = split ? split->main : whole;
    set_op_options(cl, whole, op, bool(split), definitions, options);
#ifdef TEXC_HAVE_FARM
    if (farm) {
      job.op = whole.name;
      job.seed = options.measure.seed;
      job.repeat = options.measure.repeat;
      job.timeout_s = options.measure.timeout_s;
      farm->set_template(job);
      const std::string shipped = compile_on_tuner ? artefact_kind_of(cl.target) : "";
      if (shipped == "vdla-program") {
        vdla::VdlaConfig config = options.lower.vdla_config;
        double timeout_s = options.measure.timeout_s;
        farm->set_compiler([config, timeout_s](const Candidate& c) { return compile_farm_vdla(c.func, config, timeout_s, c.config); });
      } else if (shipped == "cuda-ptx") {
        CudaTargetOptions gpu;
        if (!cl.arch.empty()) gpu.arch = cl.arch;
        double timeout_s = options.measure.timeout_s;
        farm->set_compiler([gpu, timeout_s](const Candidate& c) { return compile_farm_ptx(c.func, gpu, timeout_s, c.config); });
      } else if (compile_on_tuner) {
        CpuTargetOptions cpu = cpu_target_options(cl);
        double timeout_s = options.measure.timeout_s;
        farm->set_compiler([cpu, timeout_s](const Candidate& c) { return compile_farm_artefact(c.func, cpu, timeout_s, c.config); });
      }
      options.measurer = farm.get();
    }
#endif
    if (std::optional<GraphOps> graph = graph_of(op, cl)) {  // a network: tuned task by task
      std::function<void(const std::string&, const std::string&)> before_task;
#ifdef TEXC_HAVE_FARM
      if (farm)  // each task's jobs name its kernel and task: the worker measures that kernel of the op's graph
        before_task = [&farm, job](const std::string& kernel, const std::string& task) {
          FarmJobTemplate t = job;
          t.kernel = kernel;
          t.task = task;
          farm->set_template(t);
        };
#endif
      tune_graph(cl, op, *graph, *runner, options, without_valid, before_task);
      continue;
    }
    Space space(op, cl.target);
    TuneSummary summary;
    try {
      summary = tune_op(op, *runner, options, std::cerr);
    } catch (const std::runtime_error& e) {  // the records file cannot be read or written; XGBoost failed; the broker
      throw EnvironmentError(e.what());
    }
    std::cout << (cl.json ? summary_json(op, cl, summary).dump() : summary_line(op, cl, summary, space)) << std::endl;
    if (!summary.best) without_valid.push_back("op '" + op.name + "'");
    if (!cl.curve.empty()) {
      std::vector<CurveSeries> series = {curve_of(cl.records, "--records", op.name, cl.target)};
      for (const std::string& path : cl.curve_with) series.push_back(curve_of(path, "--curve-with", op.name, cl.target));
      write_output_file(cl.curve, "--curve", curve_svg(series, "texc tune " + op.name + " (" + cl.target + ")"));
    }
  }
  if (!without_valid.empty()) {  // nothing to use: a failure, like a failed check (the records say why)
    std::string names;
    for (const std::string& n : without_valid) names += (names.empty() ? "" : ", ") + n;
    std::cerr << "texc: error: no valid configuration of " << names << " on " << cl.target << " (every candidate "
              << "was invalid, wrong, crashed or timed out; the records in " << cl.records << " say why)\n";
    return 1;
  }
  return 0;
}

}  // namespace texc
