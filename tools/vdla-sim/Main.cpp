// vdla-sim: runs a .vdla file on the VDLA simulator (backends/vdla/) and prints its statistics.
//
//   vdla-sim FILE.vdla [--dram-in FILE] [--dram-out FILE] [--trace FILE.json] [--listing]
//
// --dram-in: the whole DRAM image as raw bytes (a regular file of exactly the program's DRAM size); without it,
//   DRAM is zero. The micro-op table is written over it at its offset either way.
// --dram-out: writes the DRAM image after the run. --trace: the Trace Event Format timeline.
// --listing: prints the readable listing instead of running.
// Exit codes: 0 ran cleanly; 1 a bad file or command line, or the run failed (deadlock,
// unbalanced queues, ...: the report says which instruction, engine and queue); 2 an output file
// could not be written.
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

#include "backends/vdla/Listing.h"
#include "backends/vdla/ProgramFile.h"
#include "backends/vdla/Simulator.h"
#include "backends/vdla/Trace.h"
#include "ir/Diagnostics.h"
#include "ir/InputFile.h"

namespace {

const char* kUsage = "usage: vdla-sim FILE.vdla [--dram-in FILE] [--dram-out FILE] [--trace FILE.json] [--listing]\n";

int usage_error(const std::string& message) {
  std::cerr << "vdla-sim: error: " << message << "\n" << kUsage;
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace texc;
  using namespace texc::vdla;
  std::string file, dram_in, dram_out, trace;
  bool listing = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](std::string& out) {
      if (i + 1 >= argc) return false;
      out = argv[++i];
      return true;
    };
    if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      return 0;
    } else if (a == "--listing") {
      listing = true;
    } else if (a == "--dram-in" || a == "--dram-out" || a == "--trace") {
      if (!value(a == "--dram-in" ? dram_in : a == "--dram-out" ? dram_out : trace)) return usage_error(a + " needs a file name");
    } else if (!a.empty() && a[0] == '-') {
      return usage_error("unknown option '" + a + "'");
    } else if (file.empty()) {
      file = a;
    } else {
      return usage_error("more than one input file ('" + file + "' and '" + a + "')");
    }
  }
  if (file.empty()) return usage_error("no .vdla file given");
  try {
    VdlaProgram program = read_vdla_file(file);
    if (listing) {
      std::cout << vdla_listing(program);
      return 0;
    }
    std::vector<uint8_t> dram = make_dram_image(program);
    if (!dram_in.empty()) {
      // A regular file of at most the image's size (ir/InputFile.h): /dev/zero is refused, not read.
      std::string image = read_input_file(dram_in, InputKind{"--dram-in", "the program's DRAM image", dram.size()});
      std::vector<uint8_t> bytes(image.begin(), image.end());
      if (bytes.size() != dram.size())
        return usage_error("--dram-in " + dram_in + " has " + std::to_string(bytes.size()) + " bytes, but the program's DRAM image has " +
                           std::to_string(dram.size()));
      std::vector<uint8_t> uops = dram;
      dram = std::move(bytes);
      std::copy(uops.begin() + long(program.uop_dram_offset), uops.begin() + long(program.uop_dram_offset + 4 * program.uops.size()),
                dram.begin() + long(program.uop_dram_offset));
    }
    SimOptions options;
    options.record_timeline = !trace.empty();
    SimResult result = simulate(program, dram, options);
    std::cout << format_sim_report(result);
    if (!trace.empty() && !write_trace(trace, program, result)) {
      std::cerr << "vdla-sim: error: cannot write '" << trace << "'\n";
      return 2;
    }
    if (!dram_out.empty()) {
      std::ofstream out(dram_out, std::ios::binary);
      out.write(reinterpret_cast<const char*>(dram.data()), std::streamsize(dram.size()));
      if (!out.flush()) {
        std::cerr << "vdla-sim: error: cannot write '" << dram_out << "'\n";
        return 2;
      }
    }
    return result.ok() ? 0 : 1;
  } catch (const UserError& e) {
    print_diagnostic(std::cerr, e.diag);
    return 1;
  }
}
