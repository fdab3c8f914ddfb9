#include "tools/texc/CommandLine.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "ir/Target.h"
#include "tuner/Explorer.h"
#include "runtime/texrt.h"

namespace texc {

const std::vector<std::string>& emit_kinds() {
  static const std::vector<std::string> kinds = {"obj", "header", "llvm", "asm", "ptx", "vdla", "loops", "graph", "graph-dot"};
  return kinds;
}

std::string usage_text() {
  std::string text = R"(usage:
  texc FILE.tex [--target T] [-o OUT] [--emit KINDS] [--op NAME] [-D NAME=VALUE]... [-I DIR]...
                [--records R.jsonl [--records-any-machine] | --no-records] [--knob NAME=VALUE]...
                [--no-fuse] [--no-graph-fusion] [--layout L] [--remarks] [--weights W]
  texc run  FILE.tex [--target T] [--op NAME] [-D ...] [--records R.jsonl [--records-any-machine] |
                --no-records] [--knob NAME=VALUE]...
                [--repeat N] [--check full|sampled|none] [--json] [--inputs DIR] [--weights W]
                [--input-range [NAME=]LO,HI]... [--save-io DIR] [--threads N] [--seed S]
                [--extern-lib LIB]... [--extern-src FILE.c]...
  texc tune FILE.tex [--target T] --trials N --records R.jsonl [--op NAME] [--seed S] [--json]
                [--tuner xgb|ga|random|grid] [--transfer R.jsonl] [--early-stopping N] [--allow-tf32] [--curve F.svg]
                [--curve-with R.jsonl]... [--timeout S] [--objective rank|reg] [--remeasure N]
                [--broker redis://HOST:PORT [--device NAME] [--password-file F] [--compile-on tuner|worker]
                 [--insecure-broker]]
  texc worker --broker redis://HOST:PORT --device NAME [--target T] [--mcpu CPU] [--mattr A]
                [--password-file F] [--name NAME] [--visibility S] [--max-job-bytes N] [--max-jobs N]
                [--insecure-broker]
  texc farm status --broker redis://HOST:PORT [--password-file F] [--json] [--insecure-broker]
  texc import MODEL.onnx -o MODEL.tex [--weights W] [--weights-dir DIR] [--op NAME] [--layout L]
                (docs/onnx.md: the model as one op of stdlib calls; its initializers in the weights
                container W, by default MODEL.weights beside the .tex, for 'texc run --weights W';
                --weights-dir DIR also writes them as DIR/OP.NAME.npy for 'texc run --inputs DIR')
  texc --version | --help

targets (--target; host, the default, is x86 on x86-64 and arm on aarch64):
@TARGETS@--emit KINDS       comma-separated: obj header llvm asm ptx vdla loops graph graph-dot (default obj,header;
                   cuda: obj,header,ptx; vdla: vdla, and obj,header for a graph of VDLA and host kernels;
                   interp and cuda-interp: loops)
-o OUT             output stem (default: the input file's stem in the current directory); a name
                   ending in an emitted kind's extension is taken as given (-o mm.o: mm.o, mm.h);
                   -o - writes the one text output asked for (header, llvm, asm, loops) to stdout
--op NAME          only this op of the file
-D NAME=VALUE      override a param (or bind a dimension variable of an entry op)
-I DIR             add DIR to the import search path
--records R.jsonl  use the best knob configuration recorded by `texc tune` on this machine, else on
                   a CPU with the same features (x86); without it, the records texc ships for this
                   machine kind (STDLIB/records/TARGET.jsonl) give knobs to ops of their shapes
--records-any-machine  also records measured on other machines (a warning says which)
--no-records       none of the shipped records: the schedules' default knobs (unless --records)
--knob NAME=VALUE  give a schedule knob one of its values (repeatable; bool knobs: true or false, or 1 or 0)
--no-fuse          no automatic fusion of stages by kind
--no-graph-fusion  compile/run: an op compiled as a graph of kernels gets one kernel per layer
                   call and per own stage, none fused with its neighbours (to measure what fusion
                   wins; docs/graph.md)
--layout L         nchwc keeps chains of convolutions in the channel-blocked NCHW16c layout
                   (layout planning: an op of stdlib calls, or an ONNX model's import), nchw
                   compiles the op as written (imports every node on NCHW); default: nchwc for the
                   CPU targets, else nchw (texc import: nchw; docs/graph.md "Layout planning")
--remarks          compile/run: say where the schedule was not honoured as written (a vectorized
                   loop left scalar, a parallel loop's tail run apart, a cache larger than L2), at its line
--verify-each      run the IR verifier after every lowering pass (always on in debug builds)
--repeat N         run: time N runs after the checked one and report the median
                   (default 10; 1 on interp; 3 for arm under qemu)
--check MODE       run: full (every output element against the reference), sampled (the default:
                   whole outputs when small and cheap, else a sample; an op compiled as a graph of
                   kernels has each kernel checked on its own inputs, then its outputs against
                   the kernels' run one by one) or none (run and time only; docs/graph.md)
--json             run/tune: one JSON object per op instead of the table
--inputs DIR       run: read inputs from DIR/OP.NAME.npy; inputs without a file there are random
--weights W        run/compile: the weights container W (texc import's MODEL.weights, docs/onnx.md)
                   holds every const input of the op (checked: name, dtype, shape); run reads each
                   input it has a tensor of that name for from it (before --inputs)
--input-range [NAME=]LO,HI
                   run: random values of input NAME (without NAME: of every input) uniform in
                   [LO, HI] (integers: the whole numbers there); default [-1, 1] for floats
--save-io DIR      run: write every input and output as DIR/OP.NAME.npy
--threads N        run: worker threads of parallel loops (default: TEXC_NUM_THREADS, else every core)
--seed S           run/tune: the seed of random inputs and samples (default 0)
--mcpu CPU, --mattr FEATURES, --arch SM    code generation options of the LLVM targets
--vdla-config F    vdla: the accelerator's configuration (JSON; keys and defaults: docs/vdla.md)
--trace F.json     run --target vdla: the simulator's timeline in the Trace Event Format
--print-after-each, --print-changed, --time-passes    lowering pass logs (to stderr)
--time-compile     per-phase compile times of each file (frontend, lowering, LLVM codegen,
                   optimization, object emission; to stderr)
--extern-lib LIB   run: a library with the C functions of `lower extern "sym"` intrinsics
                   (x86/interp: a shared object, dlopen'ed; arm: an aarch64 .o or .a, linked in)
--tuner T          tune: xgb (cost model + simulated annealing, default), ga, random or grid
--transfer R.jsonl tune: warm-start the cost model from records of other shapes or ops (repeatable)
--early-stopping N tune: stop after N trials without a better result
--allow-tf32       tune: also explore configurations whose kernels multiply in TF32 (tensor cores,
                   docs/cuda.md); without it they are invalid candidates
--remeasure N      tune: then measure the N best configurations a second time (re-ranked by the
                   median of their measurements, as --records ranks them)
--curve F.svg      tune: draw the best GFLOP/s so far against trials (one line per records file)
--curve-with R.jsonl  tune: another records file drawn on the curve (repeatable)
--timeout S        tune: time limit of one candidate's build and runs (default 10 s)
--objective O      tune: the cost model's objective, reg (default) or rank
--broker URL       tune: measure on the farm's workers at redis://HOST:PORT (docs/tuning.md)
--device NAME      tune --broker: the workers' device kind (default: the target's name)
--password-file F  tune --broker, worker: the broker's password, the file's first line
--compile-on W     tune --broker: where candidates are compiled, worker (default) or tuner (x86,
                   arm, cuda, vdla: the job ships the object, PTX or VDLA program; the workers
                   only load, run, check and time it)
--insecure-broker  tune --broker, worker, farm status: accept a broker off loopback in plain TCP
                   (a network you trust; else reach it through a tunnel: docs/tuning.md, Security)
--extern-src FILE  run: a C file with such functions, compiled with the C compiler (x86/interp:
                   $CC or cc, into a shared object; arm: aarch64-linux-gnu-gcc)

exit codes: 0 success, 1 an error in the input or a failed check, 2 a missing tool or device
)";
  // One line per registered target (ir/Target.h), so --help lists every one.
  std::string targets;
  for (const Target& t : all_targets()) {
    std::string name = t.name;
    targets += "  " + name + std::string(name.size() < 12 ? 12 - name.size() : 1, ' ') + t.description + "\n";
  }
  text.replace(text.find("@TARGETS@"), 9, targets);
  return text;
}

namespace {

std::string parse_layout(const std::string& text) {
  if (text != "nchw" && text != "nchwc") throw CommandLineError("--layout takes nchw or nchwc, not '" + text + "'");
  return text;
}

int64_t parse_int(const std::string& flag, const std::string& text) {
  if (text.empty()) throw CommandLineError(flag + " needs an integer value");
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno == ERANGE) throw CommandLineError(flag + ": '" + text + "' is out of range");
  if (*end != '\0') throw CommandLineError(flag + " needs an integer value, not '" + text + "'");
  return v;
}

void add_knob(CommandLine& cl, const std::string& text) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw CommandLineError("--knob needs NAME=VALUE, not '" + text + "'");
  cl.knobs.emplace_back(text.substr(0, eq), text.substr(eq + 1));
}

// --input-range [NAME=]LO,HI: two finite numbers, LO <= HI; NAME (an input's name) or none (every input).
void add_input_range(CommandLine& cl, const std::string& text) {
  size_t eq = text.find('=');
  std::string name = eq == std::string::npos ? "" : text.substr(0, eq);
  std::string bounds = eq == std::string::npos ? text : text.substr(eq + 1);
  size_t comma = bounds.find(',');
  auto number = [&](const std::string& part) {
    char* end = nullptr;
    double v = std::strtod(part.c_str(), &end);
    if (part.empty() || *end != '\0' || !std::isfinite(v))
      throw CommandLineError("--input-range needs [NAME=]LO,HI with two numbers, not '" + text + "'");
    return v;
  };
  if ((eq != std::string::npos && name.empty()) || comma == std::string::npos)
    throw CommandLineError("--input-range needs [NAME=]LO,HI with two numbers, not '" + text + "'");
  double lo = number(bounds.substr(0, comma)), hi = number(bounds.substr(comma + 1));
  if (lo > hi) throw CommandLineError("--input-range " + text + ": LO is larger than HI");
  cl.input_ranges[name] = {lo, hi};
}

int parse_count(const std::string& flag, const std::string& text, int min, int max = 1000000000) {
  int64_t v = parse_int(flag, text);
  if (v < min) throw CommandLineError(flag + " must be at least " + std::to_string(min) + ", not " + text);
  if (v > max) throw CommandLineError(flag + " must be at most " + std::to_string(max) + ", not " + text);
  return int(v);
}

void add_define(CommandLine& cl, const std::string& text) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw CommandLineError("-D needs NAME=VALUE, not '" + text + "'");
  std::string name = text.substr(0, eq);
  bool is_identifier = std::isalpha(uint8_t(name[0])) || name[0] == '_';
  for (char c : name) is_identifier = is_identifier && (std::isalnum(uint8_t(c)) || c == '_');
  if (!is_identifier) throw CommandLineError("-D " + text + ": '" + name + "' is not a name");
  // A whole number, else a float with a fraction or an exponent (only float attributes take one).
  std::string value = text.substr(eq + 1);
  if (value.find_first_of(".eE") == std::string::npos) {
    cl.defines[name] = parse_int("-D " + name, value);
    return;
  }
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(value.c_str(), &end);
  if (*end != '\0' || errno == ERANGE || !std::isfinite(v) || value.find_first_of("xXnN") != std::string::npos)
    throw CommandLineError("-D " + name + " needs a number, not '" + value + "'");
  cl.defines[name] = DefineValue::real(v, value);
}

/// The arguments one at a time: each one's name (`--flag=VALUE` split at the '=') and its value,
/// attached or the next argument.
class ArgumentCursor {
 public:
  ArgumentCursor(const std::vector<std::string>& args, size_t first) : args_(args), next_(first) {}
  /// Moves to the next argument; false after the last.
  bool next() {
    if (next_ >= args_.size()) return false;
    arg_ = args_[next_++];
    attached_.reset();
    if (arg_.rfind("--", 0) == 0 && arg_.find('=') != std::string::npos) {
      attached_ = arg_.substr(arg_.find('=') + 1);
      arg_ = arg_.substr(0, arg_.find('='));
    }
    return true;
  }
  const std::string& arg() const { return arg_; }
  /// The option's value: attached, else the next argument (taken). Neither may be empty.
  std::string value() {
    if (attached_ && attached_->empty()) throw CommandLineError(arg_ + " needs a value, not an empty string");
    if (attached_) return *attached_;
    if (next_ >= args_.size()) throw CommandLineError(arg_ + " needs a value");
    if (args_[next_].empty()) throw CommandLineError(arg_ + " needs a value, not an empty string");
    return args_[next_++];
  }
  /// For a flag: an attached value is an error.
  void no_value() const {
    if (attached_) throw CommandLineError(arg_ + " takes no value");
  }

 private:
  const std::vector<std::string>& args_;
  size_t next_;
  std::string arg_;
  std::optional<std::string> attached_;
};

/// `texc import MODEL.onnx -o OUT.tex [--weights-dir DIR] [--op NAME]` (args[0] is "import").
CommandLine parse_import_command_line(const std::vector<std::string>& args) {
  CommandLine cl;
  cl.command = Command::Import;
  ArgumentCursor cursor(args, 1);
  while (cursor.next()) {
    const std::string arg = cursor.arg();
    auto value = [&] { return cursor.value(); };
    if (arg == "--help" || arg == "-h") {
      cl.command = Command::Help;
      return cl;
    } else if (arg == "-o") {
      cl.output_stem = value();
    } else if (arg == "--weights-dir") {
      cl.weights_dir = value();
    } else if (arg == "--weights") {
      cl.weights_file = value();
    } else if (arg == "--op") {
      cl.op = value();
    } else if (arg == "--layout") {
      cl.layout = parse_layout(value());
    } else if (arg.size() > 1 && arg[0] == '-') {
      throw CommandLineError("unknown option '" + arg + "' of 'texc import' (it takes -o, --weights, --weights-dir, --op and --layout)");
    } else if (cl.file.empty()) {
      cl.file = arg;
    } else {
      throw CommandLineError("more than one input file: '" + cl.file + "' and '" + arg + "'");
    }
  }
  if (cl.file.empty()) throw CommandLineError("texc import: no model file");
  if (cl.output_stem.empty()) throw CommandLineError("texc import: -o OUT.tex is required");
  if (std::filesystem::is_directory(cl.output_stem))
    throw CommandLineError("-o takes the .tex file to write, not the directory '" + cl.output_stem + "'");
  return cl;
}

}  // namespace

CommandLine parse_command_line(int argc, const char* const* argv) {
  CommandLine cl;
  std::vector<std::string> args(argv + 1, argv + argc);
  size_t first = 0;
  if (!args.empty() && args[0] == "import") return parse_import_command_line(args);
  if (!args.empty() && (args[0] == "run" || args[0] == "tune")) {
    cl.command = args[0] == "run" ? Command::Run : Command::Tune;
    ++first;
  }
  bool saw_records = false;
  ArgumentCursor cursor(args, first);
  while (cursor.next()) {
    const std::string arg = cursor.arg();
    auto value = [&] { return cursor.value(); };
    auto no_value = [&] { cursor.no_value(); };
    if (arg == "--help" || arg == "-h") {
      cl.command = Command::Help;
      return cl;
    } else if (arg == "--version") {
      cl.command = Command::Version;
      return cl;
    } else if (arg == "--target") {
      cl.target = value();
    } else if (arg == "-o") {
      cl.output_stem = value();
    } else if (arg == "--emit") {
      std::string list = value();
      size_t start = 0;
      while (start <= list.size()) {
        size_t comma = std::min(list.find(',', start), list.size());
        std::string kind = list.substr(start, comma - start);
        const auto& kinds = emit_kinds();
        if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end())
          throw CommandLineError("--emit: unknown output kind '" + kind + "' (expected obj, header, llvm, asm, ptx, vdla, loops, graph or graph-dot)");
        if (std::find(cl.emit.begin(), cl.emit.end(), kind) == cl.emit.end()) cl.emit.push_back(kind);
        start = comma + 1;
      }
    } else if (arg == "--op") {
      cl.op = value();
    } else if (arg == "-D") {
      add_define(cl, value());
    } else if (arg.rfind("-D", 0) == 0 && arg.size() > 2) {
      add_define(cl, arg.substr(2));
    } else if (arg == "-I") {
      cl.include_dirs.push_back(value());
    } else if (arg.rfind("-I", 0) == 0 && arg.size() > 2) {
      cl.include_dirs.push_back(arg.substr(2));
    } else if (arg == "--records") {
      cl.records = value();
      saw_records = true;
    } else if (arg == "--records-any-machine") {
      no_value();
      cl.records_any_machine = true;
    } else if (arg == "--no-records") {
      no_value();
      cl.no_records = true;
    } else if (arg == "--knob") {
      add_knob(cl, value());
    } else if (arg == "--no-fuse") {
      no_value();
      cl.no_fuse = true;
    } else if (arg == "--no-graph-fusion") {
      no_value();
      cl.no_graph_fusion = true;
    } else if (arg == "--layout") {
      cl.layout = parse_layout(value());
    } else if (arg == "--remarks") {
      no_value();
      cl.remarks = true;
    } else if (arg == "--verify-each") {
      no_value();
      cl.verify_each = true;
    } else if (arg == "--repeat") {
      cl.repeat = parse_count(arg, value(), 1);
    } else if (arg == "--check") {
      cl.check = value();
      if (cl.check != "full" && cl.check != "sampled" && cl.check != "none")
        throw CommandLineError("--check takes full, sampled or none, not '" + cl.check + "'");
    } else if (arg == "--json") {
      no_value();
      cl.json = true;
    } else if (arg == "--inputs") {
      cl.inputs_dir = value();
    } else if (arg == "--weights") {
      cl.weights_file = value();
    } else if (arg == "--input-range") {
      add_input_range(cl, value());
    } else if (arg == "--save-io") {
      cl.save_io_dir = value();
    } else if (arg == "--threads") {
      cl.threads = parse_count(arg, value(), 1, TEXRT_MAX_THREADS);
    } else if (arg == "--trials") {
      cl.trials = parse_count(arg, value(), 1);
    } else if (arg == "--seed") {
      int64_t s = parse_int(arg, value());
      if (s < 0) throw CommandLineError("--seed must not be negative");
      cl.seed = uint64_t(s);
    } else if (arg == "--mcpu") {
      cl.mcpu = value();
    } else if (arg == "--mattr") {
      cl.mattr = value();
    } else if (arg == "--arch") {
      cl.arch = value();
    } else if (arg == "--vdla-config") {
      cl.vdla_config = value();
    } else if (arg == "--trace") {
      cl.trace = value();
    } else if (arg == "--print-after-each") {
      no_value();
      cl.print_after_each = true;
    } else if (arg == "--print-changed") {
      no_value();
      cl.print_changed = true;
    } else if (arg == "--time-passes") {
      no_value();
      cl.time_passes = true;
    } else if (arg == "--time-compile") {
      no_value();
      cl.time_compile = true;
    } else if (arg == "--extern-lib") {
      cl.extern_libs.push_back(value());
    } else if (arg == "--extern-src") {
      cl.extern_srcs.push_back(value());
    } else if (arg == "--tuner") {
      cl.tuner = value();
      const std::vector<std::string>& explorers = explorer_names();
      if (std::find(explorers.begin(), explorers.end(), cl.tuner) == explorers.end())
        throw CommandLineError("--tuner takes " + explorer_name_list() + ", not '" + cl.tuner + "'");
    } else if (arg == "--transfer") {
      cl.transfer.push_back(value());
    } else if (arg == "--allow-tf32") {
      cl.allow_tf32 = true;
    } else if (arg == "--early-stopping") {
      cl.early_stopping = parse_count(arg, value(), 1);
    } else if (arg == "--remeasure") {
      cl.remeasure = parse_count(arg, value(), 1);
    } else if (arg == "--curve") {
      cl.curve = value();
    } else if (arg == "--curve-with") {
      cl.curve_with.push_back(value());
    } else if (arg == "--timeout") {
      cl.timeout_s = double(parse_count(arg, value(), 1, 86400));
    } else if (arg == "--broker") {
      cl.broker = value();
    } else if (arg == "--device") {
      cl.device_kind = value();
    } else if (arg == "--password-file") {
      cl.password_file = value();
    } else if (arg == "--compile-on") {
      cl.compile_on = value();
      if (cl.compile_on != "tuner" && cl.compile_on != "worker")
        throw CommandLineError("--compile-on takes tuner or worker, not '" + cl.compile_on + "'");
    } else if (arg == "--insecure-broker") {
      cl.insecure_broker = true;
    } else if (arg == "--objective") {
      cl.objective = value();
      if (cl.objective != "rank" && cl.objective != "reg")
        throw CommandLineError("--objective takes rank or reg, not '" + cl.objective + "'");
    } else if (arg.size() > 1 && arg[0] == '-') {
      throw CommandLineError("unknown option '" + arg + "'");
    } else if (cl.file.empty()) {
      cl.file = arg;
    } else {
      throw CommandLineError("more than one input file: '" + cl.file + "' and '" + arg + "'");
    }
  }

  if (cl.file.empty()) throw CommandLineError("no input file");
  if (is_host_alias(cl.target)) {
    if (host_target().empty())
      throw CommandLineError(std::string(cl.target.empty() ? "no target" : "--target host") +
                             ": this machine is neither x86-64 nor aarch64; pass --target " + target_names());
    cl.target = host_target();
  }
  if (!find_target(cl.target))
    throw CommandLineError("unknown target '" + cl.target + "' (expected host, " + target_names() + ")");
  if (!cl.arch.empty()) {
    if (!is_gpu_target(cl.target))
      throw CommandLineError("--arch chooses the GPU architecture of --target cuda or cuda-interp, not of '" +
                             cl.target + "' (for CPUs: --mcpu)");
    if (!find_cuda_arch(cl.arch))
      throw CommandLineError("unknown --arch '" + cl.arch + "' (expected one of " + cuda_arch_names() + "; default " +
                             kDefaultCudaArch + ")");
  }
  if (!cl.vdla_config.empty() && !generates_vdla_programs(cl.target))
    throw CommandLineError("--vdla-config configures --target vdla, not '" + cl.target + "'");
  if (!cl.trace.empty() && (cl.command != Command::Run || !generates_vdla_programs(cl.target)))
    throw CommandLineError("--trace writes the VDLA simulator's timeline: it applies to 'texc run --target vdla'");
  if (!cl.output_stem.empty()) {
    std::string name = std::filesystem::path(cl.output_stem).filename().string();
    if (name.empty() || name == "." || name == ".." || std::filesystem::is_directory(cl.output_stem))
      throw CommandLineError("-o takes an output stem (e.g. 'out/matmul' for out/matmul.o and out/matmul.h), not the "
                             "directory '" + cl.output_stem + "'");
  }
  if (cl.command != Command::Compile && (!cl.emit.empty() || !cl.output_stem.empty()))
    throw CommandLineError("--emit and -o apply to compiling, not to 'texc run' or 'texc tune'");
  if (cl.command != Command::Run &&
      (cl.repeat || !cl.inputs_dir.empty() || !cl.save_io_dir.empty() || cl.threads || !cl.input_ranges.empty() ||
       !cl.check.empty()))
    throw CommandLineError("--repeat, --check, --inputs, --input-range, --save-io and --threads apply to 'texc run' only");
  if (!cl.inputs_dir.empty() && !std::filesystem::is_directory(cl.inputs_dir))
    throw CommandLineError("--inputs " + cl.inputs_dir + ": no such directory");
  if (!cl.weights_file.empty() && cl.command != Command::Run && cl.command != Command::Compile)
    throw CommandLineError("--weights applies to compiling and 'texc run' (and names the container 'texc import' writes)");
  if (!cl.weights_file.empty() && !std::filesystem::is_regular_file(cl.weights_file))
    throw CommandLineError("--weights " + cl.weights_file + ": no such file");
  std::error_code same_error;
  if (!cl.inputs_dir.empty() && !cl.save_io_dir.empty() &&
      std::filesystem::equivalent(cl.inputs_dir, cl.save_io_dir, same_error))
    throw CommandLineError("--save-io " + cl.save_io_dir + " is the --inputs directory: the run would write over the "
                           "files it reads; save them in another directory");
  if (cl.command == Command::Tune && (!cl.trials || !saw_records))
    throw CommandLineError("'texc tune' needs --trials N and --records R.jsonl");
  if (cl.command == Command::Tune && (cl.records_any_machine || cl.no_records))
    throw CommandLineError("--records-any-machine and --no-records apply to compiling and 'texc run' (texc tune "
                           "writes its --records file)");
  if (cl.no_records && saw_records)
    throw CommandLineError("--no-records and --records exclude each other (--records alone uses only that file)");
  if (cl.records_any_machine && !saw_records)
    throw CommandLineError("--records-any-machine needs --records R.jsonl (the shipped records are used only on "
                           "their own machine kind)");
  if (cl.command != Command::Tune && cl.trials) throw CommandLineError("--trials applies to 'texc tune' only");
  if (cl.command != Command::Tune && (!cl.tuner.empty() || !cl.transfer.empty() || cl.early_stopping || cl.remeasure ||
                                      cl.allow_tf32 ||
                                      !cl.curve.empty() || !cl.curve_with.empty() || cl.timeout_s || !cl.objective.empty()))
    throw CommandLineError("--tuner, --transfer, --early-stopping, --allow-tf32, --remeasure, --curve, --curve-with, --timeout and "
                           "--objective apply to 'texc tune' only");
  if (cl.command != Command::Tune && (!cl.broker.empty() || !cl.device_kind.empty() || !cl.password_file.empty() ||
                                      !cl.compile_on.empty() || cl.insecure_broker))
    throw CommandLineError("--broker, --device, --password-file, --compile-on and --insecure-broker apply to 'texc tune' "
                           "and 'texc worker' only");
  if (cl.broker.empty() && (!cl.device_kind.empty() || !cl.password_file.empty() || !cl.compile_on.empty() ||
                            cl.insecure_broker))
    throw CommandLineError("--device, --password-file, --compile-on and --insecure-broker need --broker redis://HOST:PORT");
  if (cl.command != Command::Run && (!cl.extern_libs.empty() || !cl.extern_srcs.empty()))
    throw CommandLineError("--extern-lib and --extern-src apply to 'texc run' only (a compiled object is linked "
                           "with the extern functions by whoever links it)");
  return cl;
}

}  // namespace texc
