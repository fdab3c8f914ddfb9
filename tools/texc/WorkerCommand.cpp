// `texc worker --broker redis://HOST:PORT --device NAME [--target T] [--mcpu CPU] [--mattr A]
// [--password-file F] [--name NAME] [--visibility S] [--max-job-bytes N] [--max-jobs N]
// [--insecure-broker]`: a
// measuring process of the farm (tools/farm/FarmWorker.h, docs/tuning.md). Each job's candidate is
// rebuilt from the job (FarmJobOfCommandLine.h) and measured exactly as `texc tune` measures it
// here: the same runner (make_tuning_runner), the same per-op options (tune_options_of,
// set_op_options), the same child isolation (tuner/Measure.h). A job of a network's task names a
// kernel of its op's graph: the worker builds the graph as `texc tune` does (graph_of), checks the
// kernel is the job's task (graph_task_key) and measures that kernel (set_kernel_options). A job
// that ships its candidate compiled (`texc tune --compile-on tuner`, FarmArtefact.h) is not lowered
// or compiled here: the worker links the object in the measuring child (x86:
// make_x86_object_runner; arm: with its driver, make_arm_object_runner), loads the PTX on its
// device and launches it with the shipped launch (cuda: make_cuda_ptx_runner) or simulates the
// program (vdla: make_vdla_program_runner), and checks and times it against the op of the job's
// sources (or its kernel) as above.
#include "tools/texc/Commands.h"
#include "tools/driver/EnvironmentError.h"

#ifdef TEXC_HAVE_FARM
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "lower/SplitPrepare.h"
#include "tools/driver/LowerForTarget.h"
#include "tools/driver/CpuTarget.h"
#include "tools/driver/CudaRunner.h"
#include "tools/driver/VdlaExecutor.h"
#include "backends/vdla/ProgramFile.h"
#include "tools/driver/EnvironmentError.h"
#include "tools/driver/TuningRunner.h"
#include "tools/farm/FarmWorker.h"
#include "tools/texc/Commands.h"
#include "tools/texc/FarmFlags.h"
#include "tools/texc/FarmJobOfCommandLine.h"
#include "tuner/CpuRunners.h"
#include "tuner/GraphTask.h"
#include "tuner/Space.h"
#include "tuner/VdlaRunner.h"

namespace texc {

namespace {

double positive_number(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end || !(v > 0)) throw CommandLineError(flag + " takes a positive number, not '" + text + "'");
  return v;
}

/// A job's sources and arguments compiled (not its knobs or measurement). The worker keeps the
/// last one: a tuner's jobs share it, so the front end runs once a task, not once a job (and the
/// SourceManager keeps each task's files once).
struct LoadedJob {
  std::string key;  // the job's JSON less its knobs, seed, repeat and timeout; "" = nothing loaded
  CommandLine cl;
  Program program, definitions;
  std::optional<GraphOps> graph;  // the graph of the job's op, for a job naming one of its kernels
};

/// The kernel named `job.kernel` of `graph` (the job's op compiled as a graph here), after checking
/// that this worker's graph makes it the job's task: a worker whose texc builds the op's graph
/// otherwise (another version) would measure something else than the tuner tunes.
const OpDef& job_kernel(const FarmJob& job, const std::optional<GraphOps>& graph) {
  if (!graph)
    throw std::runtime_error("op '" + job.op + "' does not compile to a graph of kernels here, but the job names its kernel " +
                             job.kernel);
  for (const GraphKernel& k : graph->kernels) {
    if (k.op.name != job.kernel) continue;
    std::string task = graph_task_key(k);
    if (task != job.task)
      throw std::runtime_error("kernel " + job.kernel + " of op '" + job.op + "' is task '" + task +
                               "' here, not the job's '" + job.task + "' (is this worker's texc another version?)");
    return k.op;
  }
  throw std::runtime_error("op '" + job.op + "' compiles to " + std::to_string(graph->kernels.size()) +
                           " kernels here, none of them " + job.kernel);
}

/// Measures `job`'s candidate with `runner`; unless `loaded` holds its sources and arguments, they
/// are written to `dir`/job (emptied first; an empty `dir`/stdlib is the standard library of a job
/// that ships none of its files) and compiled into `loaded`.
Measurement measure_job(const FarmJob& job, Runner& runner, const CompileOptions& worker, const std::string& dir,
                        LoadedJob& loaded) {
  const std::string& worker_target = worker.target;
  FarmJob sources_and_arguments = job;
  sources_and_arguments.artefact.reset();
  sources_and_arguments.knobs.clear();
  sources_and_arguments.seed = 0;
  sources_and_arguments.repeat = 1;
  sources_and_arguments.timeout_s = 1;
  std::string key = sources_and_arguments.to_json();
  if (loaded.key != key) {
    loaded.key.clear();  // a failure below leaves nothing loaded
    const std::string root = dir + "/job", empty_stdlib = dir + "/stdlib";
    std::filesystem::remove_all(root);
    std::filesystem::create_directories(root);
    std::filesystem::create_directories(empty_stdlib);
    write_job_sources(job.sources, root);
    loaded.cl = command_line_of_job(job, root, empty_stdlib);
    if (loaded.cl.target != worker_target)
      throw std::runtime_error("a job for target " + loaded.cl.target + " (this worker measures " + worker_target + ")");
    loaded.program = load_program(loaded.cl);
    loaded.definitions = load_definitions(loaded.cl);
    loaded.graph.reset();
    if (!job.kernel.empty())  // built once for the task's jobs, as the tuner built it
      for (const OpDef& whole : loaded.program.ops)
        if (whole.name == job.op) {
          std::optional<PreparedOp> split = split_prepare(whole);
          loaded.graph = graph_of(split ? split->main : whole, loaded.cl);
        }
    loaded.key = key;
  }
  const CommandLine& cl = loaded.cl;
  const Program& program = loaded.program;
  const Program& definitions = loaded.definitions;
  for (const OpDef& whole : program.ops) {
    if (whole.name != job.op) continue;
    std::optional<PreparedOp> split = split_prepare(whole);
    TuneOptions options = tune_options_of(cl);
    set_op_options(cl, whole, split ? split->main : whole, bool(split), definitions, options);
    // What is measured: the op (its main half when split), or the job's kernel of its graph.
    const OpDef& op = job.kernel.empty() ? (split ? split->main : whole) : job_kernel(job, loaded.graph);
    if (!job.kernel.empty()) set_kernel_options(cl, op, options);
    options.measure.seed = job.seed;
    options.measure.repeat = job.repeat;
    options.measure.timeout_s = job.timeout_s;
    Space space(op, cl.target);
    uint64_t index = space.index(job.knobs);
    if (index == UINT64_MAX)
      throw std::runtime_error("knobs " + space.describe(job.knobs) + " are not in " +
                               (job.kernel.empty() ? "op " + job.op : "kernel " + job.kernel) + "'s lists");
    if (job.artefact) {  // compiled by the tuner: linked and run in the measuring child, nothing compiled here
      Candidate c;
      c.index = index;
      c.config = job.knobs;
      c.valid = true;
      c.func.name = job.artefact->entry;
      std::unique_ptr<Runner> shipped;
      if (job.artefact->kind == "arm-object")
        shipped = make_arm_object_runner({job.artefact->bytes, job.artefact->driver, job.artefact->input_bytes,
                                          job.artefact->output_bytes}, {});
      else if (job.artefact->kind == "cuda-ptx")
        shipped = make_cuda_ptx_runner(job.artefact->bytes, job.artefact->launch, op.inputs.size(), runner.device());
      else if (job.artefact->kind == "vdla-program")  // intact: checked when the job was read
        shipped = make_vdla_program_runner(
            vdla::parse_vdla(std::vector<uint8_t>(job.artefact->bytes.begin(), job.artefact->bytes.end()), "the job's artefact"),
            runner.device());
      else
        shipped = make_x86_object_runner(job.artefact->bytes, cpu_target_options(worker));
      return measure(op, c, *shipped, options.measure);
    }
    Candidate c = lower_candidate(op, space, index, options.lower);
    if (!c.valid) {
      Measurement m;
      m.status = "error";
      m.message = "invalid on the worker: " + c.invalid_reason;
      return m;
    }
    return measure(op, c, runner, options.measure);
  }
  throw std::runtime_error("no op '" + job.op + "' in " + job.sources.main);
}

}  // namespace

int worker_command(int argc, const char* const* argv) {
  WorkerOptions options;
  CompileOptions device;
  std::string broker, password_file;
  bool insecure_broker = false;
  for (FarmFlags flags(argc, argv, 2); flags.next();) {
    const std::string& arg = flags.flag();
    if (arg == "--broker") broker = flags.value();
    else if (arg == "--device") options.farm.device = flags.value();
    else if (arg == "--password-file") password_file = flags.value();
    else if (arg == "--target") device.target = flags.value();
    else if (arg == "--mcpu") device.mcpu = flags.value();
    else if (arg == "--mattr") device.mattr = flags.value();
    else if (arg == "--arch") device.arch = flags.value();
    else if (arg == "--name") options.consumer = flags.value();
    else if (arg == "--visibility") options.visibility_s = positive_number(arg, flags.value());
    else if (arg == "--max-job-bytes") options.max_job_bytes = size_t(positive_number(arg, flags.value()));
    else if (arg == "--max-jobs") options.max_jobs = int(positive_number(arg, flags.value()));
    else if (flags.given() == "--insecure-broker") insecure_broker = true;
    else throw CommandLineError("'texc worker' does not take '" + flags.given() + "'");
  }
  if (broker.empty() || options.farm.device.empty())
    throw CommandLineError("'texc worker' needs --broker redis://HOST:PORT and --device NAME");
  if (device.target.empty()) device.target = host_target();
  try {  // a mistake in the address or the password file: exit 1
    options.farm.broker = BrokerAddress::parse(broker);
    check_broker_is_private(options.farm.broker, insecure_broker);
    if (!password_file.empty()) options.farm.password = read_password_file(password_file);
  } catch (const BrokerError& e) {
    throw CommandLineError(e.what());
  }
  options.target = device.target;
  std::unique_ptr<Runner> runner = make_tuning_runner(device);
  const std::string runs = artefact_kind_of(device.target);
  if (runs == "cuda-ptx") {  // shipped PTX must be for the device's architecture or an older one
    options.machine.triple = kCudaArtefactTriple;
    options.machine.cpu = cuda_arch_of_device(runner->device());
  } else if (runs == "vdla-program") {  // shipped programs must be of the configuration it simulates
    options.machine.triple = kVdlaArtefactTriple;
    options.machine.cpu = vdla_config_id(vdla_config_of(device));
  } else if (!runs.empty()) {
    options.machine = x86_machine(cpu_target_options(device));
  }
  // The jobs' sources: a folder of its own in TMPDIR (else /tmp), removed when the worker stops.
  std::error_code ec;
  std::filesystem::path tmp = std::filesystem::temp_directory_path(ec);
  std::string dir_template = (ec ? std::string("/tmp") : tmp.string()) + "/texc-worker-XXXXXX";
  if (!mkdtemp(dir_template.data()))
    throw EnvironmentError("cannot create a folder for the jobs' sources (" + dir_template + ")");
  std::string dir = dir_template;
  try {  // the broker cannot be reached, refuses or is lost: exit 2
    LoadedJob loaded;
    run_worker(options, *runner, [&](const FarmJob& job) { return measure_job(job, *runner, device, dir, loaded); },
               std::cerr);
  } catch (const BrokerError& e) {
    std::filesystem::remove_all(dir);
    throw EnvironmentError(e.what());
  }
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace texc
#else
namespace texc {
int worker_command(int, const char* const*) {
  throw EnvironmentError("'texc worker': this texc was built without hiredis (Debian: apt-get install "
                         "libhiredis-dev, then rebuild)");
}
}  // namespace texc
#endif
