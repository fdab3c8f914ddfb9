// texc: the command-line driver (docs/cli.md). Parses the command line, runs the command
// and maps every failure to its exit code: 1 for a mistake in the input or on the command line
// (a located diagnostic, or `texc: error: ...`) and for a failed check, 2 when the machine or this
// build lacks something the command needs. Internal errors (InternalError, ir/Diagnostics.h)
// print "texc: internal error ..." and abort.
// Standard output is checked at the end: a write to it that failed (a full disk, /dev/full) is
// `texc: error: cannot write to standard output: REASON` and exit 2 (OutputFile.h).
#include <cstdlib>
#include <iostream>

#include "backends/interp/Npy.h"
#include "backends/interp/WeightsFile.h"
#include "backends/llvm/ArmRunner.h"
#include "ir/Diagnostics.h"
#include "tools/texc/CommandLine.h"
#include "tools/texc/Commands.h"
#include "tools/driver/EnvironmentError.h"
#include "tools/driver/OutputFile.h"

namespace {

int run_texc(int argc, char** argv) {
  using namespace texc;
  CommandLine cl;
  try {
    if (argc > 1 && std::string(argv[1]) == "worker") cl.command = Command::Worker;  // its own arguments
    else if (argc > 1 && std::string(argv[1]) == "farm") cl.command = Command::Farm;
    else cl = parse_command_line(argc, argv);
  } catch (const CommandLineError& e) {
    std::cerr << "texc: error: " << e.what() << "\nrun 'texc --help' for usage\n";
    return 1;
  }
  try {
    switch (cl.command) {
      case Command::Help: std::cout << usage_text(); return 0;
      case Command::Version: std::cout << "texc " TEXC_VERSION "\n"; return 0;
      case Command::Compile: return compile_command(cl);
      case Command::Run: return run_command(cl);
      case Command::Tune: return tune_command(cl);
      case Command::Import:
#ifdef TEXC_HAVE_ONNX
        return import_command(cl);
#else
        throw EnvironmentError("this texc was built without the ONNX importer (configured with TEXC_WITH_ONNX=OFF, or "
                               "libonnx-dev and libprotobuf-dev were not found): 'texc import' is not available");
#endif
      case Command::Worker: return worker_command(argc, argv);
      case Command::Farm: return farm_command(argc, argv);
    }
  } catch (const UserError& e) {
    print_diagnostic(std::cerr, e.diag);
    return 1;
  } catch (const CommandLineError& e) {
    std::cerr << "texc: error: " << e.what() << "\n";
    return 1;
  } catch (const NpyError& e) {
    std::cerr << "texc: error: " << e.what() << "\n";
    return 1;
  } catch (const WeightsFileError& e) {  // --weights: not a container, truncated, a tensor missing or mis-shaped
    std::cerr << "texc: error: " << e.what() << "\n";
    return 1;
  } catch (const TargetOptionError& e) {  // --mcpu / --mattr the target does not know
    std::cerr << "texc: error: " << e.what() << "\n";
    return 1;
  } catch (const EnvironmentError& e) {
    std::cerr << "texc: error: " << e.what() << "\n";
    return 2;
  } catch (const MissingToolError& e) {  // the arm runner's cross compiler, emulator or runtime
    std::cerr << "texc: error: " << e.what() << "\n";
    return 2;
  } catch (const InternalError& e) {  // a bug in texc: said so, and an abort (a crash to fuzzers and tests)
    print_internal_error(std::cerr, e);
    std::abort();
  }
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  texc::watch_standard_output();
  return texc::finish_standard_output(run_texc(argc, argv));
}
