#include "backends/llvm/ArmRunner.h"

#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/CallerWorkspace.h"
#include "ir/KernelScratch.h"
#include "ir/Diagnostics.h"
#include "ir/SymbolNames.h"
#include "runtime/texrt.h"

namespace texc {

namespace fs = std::filesystem;

namespace {

/// The most threads a program run under qemu-aarch64 gets (see run_on_arm).
constexpr int kMaxEmulatedThreads = 64;

bool host_is_aarch64() {
  struct utsname u;
  return uname(&u) == 0 && std::string(u.machine) == "aarch64";
}

/// The full path of `program` found on PATH, or "" if there is none.
std::string find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    fs::path candidate = fs::path(dir) / program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return "";
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

struct ArmTools {
  std::string cxx;   // the compiler driver that links aarch64 programs
  std::string qemu;  // empty on an aarch64 host
  std::string texrt_lib;
};

/// The aarch64 runtime library: $TEXC_TEXRT_AARCH64, else an installed texc's
/// PREFIX/lib/aarch64/libtexrt.a (beside PREFIX/bin/texc), else the one this build made.
std::string default_aarch64_texrt() {
  if (const char* env = std::getenv("TEXC_TEXRT_AARCH64"); env && *env) return env;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path installed = exe.parent_path() / ".." / "lib" / "aarch64" / "libtexrt.a";
    if (fs::is_regular_file(installed, ec)) return fs::weakly_canonical(installed, ec).string();
  }
  return TEXC_TEXRT_AARCH64_LIB;
}

ArmTools find_arm_tools(const ArmRunOptions& options) {
  ArmTools tools;
  bool native = host_is_aarch64();
  tools.cxx = find_on_path(native ? "g++" : "aarch64-linux-gnu-g++");
  if (tools.cxx.empty())
    throw MissingToolError(native ? "g++ not found on PATH (needed to link arm programs)"
                                  : "aarch64-linux-gnu-g++ not found on PATH (install g++-aarch64-linux-gnu)");
  if (!native) {
    tools.qemu = find_on_path("qemu-aarch64");
    if (tools.qemu.empty()) throw MissingToolError("qemu-aarch64 not found on PATH (install qemu-user)");
  }
  tools.texrt_lib = options.texrt_lib;
  if (tools.texrt_lib.empty()) tools.texrt_lib = default_aarch64_texrt();
  if (!fs::exists(tools.texrt_lib))
    throw MissingToolError("the aarch64 runtime library '" + tools.texrt_lib +
                           "' does not exist (build the target texrt_aarch64, or set TEXC_TEXRT_AARCH64)");
  return tools;
}

/// Runs a shell command with its output in `log`; throws with that output if it fails.
void run_command(const std::string& command, const fs::path& log, const std::string& what) {
  std::string full = command + " > " + shell_quote(log.string()) + " 2>&1";
  int status = std::system(full.c_str());
  if (status != 0) {
    std::ifstream in(log);
    std::stringstream text;
    text << in.rdbuf();
    // The shell reports a program killed by signal S as exit status 128 + S (so does qemu-aarch64
    // for the guest's uncaught signals).
    std::string how = "status " + std::to_string(status);
    if (WIFEXITED(status) && WEXITSTATUS(status) > 128 && WEXITSTATUS(status) < 128 + NSIG) {
      int sig = WEXITSTATUS(status) - 128;
      const char* abbrev = sigabbrev_np(sig);
      how = std::string("crashed: ") + (abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig)) + ", " +
            strsignal(sig);
    } else if (WIFEXITED(status)) {
      how = "exit status " + std::to_string(WEXITSTATUS(status));
    }
    throw std::runtime_error(what + " failed (" + how + "): " + command + "\n" + text.str());
  }
}

void write_bytes(const fs::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::vector<uint8_t> read_bytes(const fs::path& path, int64_t expected) {
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> bytes(static_cast<size_t>(expected), 0);
  in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(expected));
  if (!in || in.gcount() != expected) throw std::runtime_error("cannot read " + std::to_string(expected) + " bytes from " + path.string());
  return bytes;
}

/// The C++ driver: main(dir, repeat) reads dir/in<i>.bin, calls the op, writes that call's outputs to
/// dir/out<i>.bin, then makes `repeat` timed calls and writes
/// dir/times.txt (one time in ms per timed call).
/// A graph's entry is called as `<op>_with_workspace` (ir/CallerWorkspace.h) on one workspace the
/// driver allocates before the first call; a graph kernel's scratch arguments likewise.
std::string driver_source(const LoweredFunc& func) {
  std::optional<LoweredFunc> with_workspace = caller_workspace_entry(func);
  const std::string symbol = op_symbol(with_workspace ? with_workspace->name : func.name);
  std::ostringstream os;
  os << "// Generated by texc's arm runner for op " << func.name << ".\n"
     << "#include <cstdint>\n#include <cstdio>\n#include <cstdlib>\n#include <ctime>\n\n"
     << "extern \"C\" void " << symbol << "(";
  for (size_t i = 0; i < func.args.size(); ++i) os << (i ? ", " : "") << "void*";
  os << (with_workspace ? ", void*" : "") << ");\n\n"
     << "static void* load_or_allocate(const char* dir, const char* name, long bytes, bool read) {\n"
     << "  void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);\n"
     << "  if (!read) return p;\n"
     << "  char path[4096];\n"
     << "  std::snprintf(path, sizeof path, \"%s/%s\", dir, name);\n"
     << "  std::FILE* f = std::fopen(path, \"rb\");\n"
     << "  if (!f || std::fread(p, 1, bytes, f) != size_t(bytes)) { std::fprintf(stderr, \"cannot read %s\\n\", path); std::exit(3); }\n"
     << "  std::fclose(f);\n"
     << "  return p;\n"
     << "}\n\n"
     << "static void store(const char* dir, const char* name, const void* p, long bytes) {\n"
     << "  char path[4096];\n"
     << "  std::snprintf(path, sizeof path, \"%s/%s\", dir, name);\n"
     << "  std::FILE* f = std::fopen(path, \"wb\");\n"
     << "  if (!f || std::fwrite(p, 1, bytes, f) != size_t(bytes)) { std::fprintf(stderr, \"cannot write %s\\n\", path); std::exit(3); }\n"
     << "  std::fclose(f);\n"
     << "}\n\n"
     << "static double now_ms() {\n"
     << "  timespec t;\n"
     << "  clock_gettime(CLOCK_MONOTONIC, &t);\n"
     << "  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;\n"
     << "}\n\n"
     << "int main(int argc, char** argv) {\n"
     << "  if (argc != 3) { std::fprintf(stderr, \"usage: %s DIR REPEAT\\n\", argv[0]); return 2; }\n"
     << "  const char* dir = argv[1];\n"
     << "  int repeat = std::atoi(argv[2]);\n";
  int in = 0, out = 0;
  for (size_t i = 0; i < func.args.size(); ++i) {
    bool is_input = func.args[i]->role == BufferRole::Input;
    if (is_scratch_arg(func.args[i])) {  // a graph kernel's scratch, run alone (ir/KernelScratch.h)
      os << "  void* a" << i << " = load_or_allocate(dir, \"\", " << argument_bytes(func, i) << "L, false);\n";
      continue;
    }
    os << "  void* a" << i << " = load_or_allocate(dir, \"" << (is_input ? "in" : "out") << (is_input ? in++ : out++)
       << ".bin\", " << argument_bytes(func, i) << "L, " << (is_input ? "true" : "false") << ");\n";
  }
  if (with_workspace)
    os << "  void* workspace = load_or_allocate(dir, \"\", " << func.workspace_bytes << "L, false);\n";
  std::string call = symbol + "(";
  for (size_t i = 0; i < func.args.size(); ++i) call += (i ? ", a" : "a") + std::to_string(i);
  call += with_workspace ? ", workspace)" : ")";
  // The outputs of the first (checked) call are stored before the timed calls overwrite them.
  os << "  " << call << ";\n";
  out = 0;
  for (size_t i = 0; i < func.args.size(); ++i)
    if (func.args[i]->role == BufferRole::Output)
      os << "  store(dir, \"out" << out++ << ".bin\", a" << i << ", " << argument_bytes(func, i) << "L);\n";
  os << "  std::FILE* times = std::fopen((std::string(dir) + \"/times.txt\").c_str(), \"w\");\n"
     << "  for (int r = 0; r < repeat; ++r) {\n"
     << "    double start = now_ms();\n"
     << "    " << call << ";\n"
     << "    std::fprintf(times, \"%.6f\\n\", now_ms() - start);\n"
     << "  }\n"
     << "  std::fclose(times);\n";
  os << "  return 0;\n}\n";
  std::string text = os.str();
  // <string> is needed for the times path.
  return text.insert(text.find("#include <ctime>"), "#include <string>\n");
}

class TemporaryDirectory {
 public:
  explicit TemporaryDirectory(const std::string& requested) {
    if (!requested.empty()) {
      path_ = requested;
      fs::create_directories(path_);
      return;
    }
    std::string pattern = (fs::temp_directory_path() / "texc-arm-XXXXXX").string();
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (!mkdtemp(buffer.data())) throw std::runtime_error("cannot create a temporary directory in " + pattern);
    path_ = buffer.data();
    owned_ = true;
  }
  ~TemporaryDirectory() {
    std::error_code ignored;
    if (owned_) fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
  bool owned_ = false;
};

}  // namespace

int64_t argument_bytes(const LoweredFunc& func, size_t i) {
  const Buffer& b = func.args.at(i);
  int64_t elements = 1;
  for (const Expr& extent : b->shape) {
    int64_t v;
    TEXC_CHECK(is_const_int(extent, &v)) << "argument '" << b->name << "' of op " << func.name << " has a non-constant size";
    elements *= v;
  }
  return elements * (b->dtype.is_bool() ? 1 : b->dtype.bytes());
}

void check_arm_tools(const ArmRunOptions& options) { find_arm_tools(options); }

ArmProgramParts arm_program_parts(const std::vector<LoweredFunc>& funcs, const std::string& op_name,
                                  const CpuTargetOptions& target) {
  TEXC_CHECK(target.arch == "arm" || target.arch == "aarch64") << "arm_program_parts with target " << target.arch;
  auto op = std::find_if(funcs.begin(), funcs.end(), [&](const LoweredFunc& f) { return f.name == op_name; });
  if (op == funcs.end()) throw std::runtime_error("no op named '" + op_name + "' to run");
  ArmProgramParts parts;
  {
    TemporaryDirectory dir("");
    const fs::path object = dir.path() / "op.o";
    write_object(funcs, target, object.string());
    std::ifstream in(object, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    parts.object = bytes.str();
  }
  parts.driver = driver_source(*op);
  for (size_t i = 0; i < op->args.size(); ++i)
    if (!is_scratch_arg(op->args[i]))
      (op->args[i]->role == BufferRole::Input ? parts.input_bytes : parts.output_bytes).push_back(argument_bytes(*op, i));
  return parts;
}

ArmRunResult run_on_arm(const std::vector<LoweredFunc>& funcs, const std::string& op_name,
                        const std::vector<std::vector<uint8_t>>& inputs, const CpuTargetOptions& target,
                        const ArmRunOptions& options) {
  TEXC_CHECK(target.arch == "arm" || target.arch == "aarch64") << "run_on_arm with target " << target.arch;
  find_arm_tools(options);  // a missing tool before compiling
  auto op = std::find_if(funcs.begin(), funcs.end(), [&](const LoweredFunc& f) { return f.name == op_name; });
  if (op == funcs.end()) throw std::runtime_error("no op named '" + op_name + "' to run");
  size_t num_inputs = 0;
  for (const Buffer& b : op->args) num_inputs += b->role == BufferRole::Input;
  if (inputs.size() != num_inputs)
    throw std::runtime_error("op " + op_name + " takes " + std::to_string(num_inputs) + " inputs, got " +
                             std::to_string(inputs.size()));
  size_t in = 0;
  for (size_t i = 0; i < op->args.size(); ++i) {
    if (op->args[i]->role != BufferRole::Input) continue;
    if (int64_t(inputs[in].size()) != argument_bytes(*op, i))
      throw std::runtime_error("input '" + op->args[i]->name + "' has " + std::to_string(inputs[in].size()) +
                               " bytes, expected " + std::to_string(argument_bytes(*op, i)));
    ++in;
  }
  return run_arm_object(arm_program_parts(funcs, op_name, target), inputs, options);
}

ArmRunResult run_arm_object(const ArmProgramParts& parts, const std::vector<std::vector<uint8_t>>& inputs,
                            const ArmRunOptions& options) {
  ArmTools tools = find_arm_tools(options);
  if (inputs.size() != parts.input_bytes.size())
    throw std::runtime_error("the arm program takes " + std::to_string(parts.input_bytes.size()) + " inputs, got " +
                             std::to_string(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i)
    if (int64_t(inputs[i].size()) != parts.input_bytes[i])
      throw std::runtime_error("input " + std::to_string(i) + " has " + std::to_string(inputs[i].size()) +
                               " bytes, expected " + std::to_string(parts.input_bytes[i]));

  TemporaryDirectory dir(options.work_dir);
  const fs::path& d = dir.path();
  {
    std::ofstream object(d / "op.o", std::ios::binary);
    object.write(parts.object.data(), std::streamsize(parts.object.size()));
    std::ofstream driver(d / "driver.cpp");
    driver << parts.driver;
    if (!object || !driver) throw std::runtime_error("cannot write the arm program's files in " + d.string());
  }
  for (size_t i = 0; i < inputs.size(); ++i) write_bytes(d / ("in" + std::to_string(i) + ".bin"), inputs[i]);

  std::string link = shell_quote(tools.cxx) + " -static -O1 -std=c++17 -o " + shell_quote((d / "driver").string()) + " " +
                     shell_quote((d / "driver.cpp").string()) + " " + shell_quote((d / "op.o").string()) + " ";
  for (const std::string& input : options.extra_link_inputs) link += shell_quote(input) + " ";
  link += shell_quote(tools.texrt_lib) + " -pthread -lm";
  run_command(link, d / "link.log", "linking the arm driver");

  std::string run;
  int threads = options.num_threads;
  if (!tools.qemu.empty()) {
    // Under qemu-aarch64 each program thread is a host thread with a host and a guest stack, and
    // qemu crashes (SIGSEGV, or a GLib allocation abort) where pthread_create would fail: 1024
    // threads did under a 4 GB address-space limit, 256 under 2 GB. The emulated program runs with
    // at most kMaxEmulatedThreads (docs/cli.md, --threads), and says so once.
    int wanted = threads > 0 ? threads : 0;
    if (wanted == 0)
      if (const char* env = std::getenv("TEXC_NUM_THREADS")) wanted = int(std::min(texrt_parse_num_threads(env), 1000000L));
    if (wanted > kMaxEmulatedThreads) {
      static bool noted = false;
      if (!noted)
        std::fprintf(stderr, "texc: note: the arm program runs with %d threads, not %d, under qemu-aarch64 (each emulated thread "
                     "costs qemu two stacks; more crash it)\n", kMaxEmulatedThreads, wanted);
      noted = true;
      threads = kMaxEmulatedThreads;
    }
  }
  if (threads > 0) run += "TEXC_NUM_THREADS=" + std::to_string(threads) + " ";
  if (!tools.qemu.empty()) run += shell_quote(tools.qemu) + " ";
  run += shell_quote((d / "driver").string()) + " " + shell_quote(d.string()) + " " +
         std::to_string(std::max(options.repeat, 0));
  run_command(run, d / "run.log", "running the arm driver");

  ArmRunResult result;
  result.emulated = !tools.qemu.empty();
  for (size_t i = 0; i < parts.output_bytes.size(); ++i)
    result.outputs.push_back(read_bytes(d / ("out" + std::to_string(i) + ".bin"), parts.output_bytes[i]));
  std::ifstream times(d / "times.txt");
  for (double t; times >> t;) result.times_ms.push_back(t);
  if (!result.times_ms.empty()) {
    std::vector<double> sorted = result.times_ms;
    std::sort(sorted.begin(), sorted.end());
    result.median_ms = sorted[sorted.size() / 2];
  }
  return result;
}

}  // namespace texc
