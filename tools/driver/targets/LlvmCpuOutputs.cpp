// The outputs of the LLVM CPU targets (x86, x86-sse, arm): the object file, its C header, the LLVM
// IR and the assembly of the module's functions, for the CPU the module was compiled for
// (ModuleOutput::cpu: --mcpu/--mattr or the target's default).
#include "backends/llvm/LLVMBackend.h"
#include "ir/Diagnostics.h"
#include "tools/driver/EnvironmentError.h"
#include "tools/driver/targets/Targets.h"

namespace texc {

void write_llvm_cpu_output(ModuleOutput& out, const std::string& kind, const std::string& path) {
  TEXC_CHECK(out.cpu) << "an LLVM CPU target's module without its CPU";
  const CpuTargetOptions& cpu = *out.cpu;
  const std::vector<LoweredFunc>& funcs = out.functions;
  if (kind == "llvm") return write_output_text(path, emit_llvm_ir(funcs, cpu));
  if (kind == "header") return write_output_text(path, emit_c_header(funcs));
  try {
    if (kind == "obj")
      write_output_through(path, [&](const std::string& file) { write_object(funcs, cpu, file, &out.times.llvm.emplace()); });
    else if (kind == "asm" && path == "-")
      write_output_text("-", emit_assembly(funcs, cpu));
    else if (kind == "asm")
      write_output_through(path, [&](const std::string& file) { write_assembly(funcs, cpu, file); });
    else
      TEXC_CHECK(false) << "output '" << kind << "' of '" << out.options.target << "' passed output_refusal";
  } catch (const TargetOptionError&) {
    throw;
  } catch (const OptionError&) {
    throw;
  } catch (const EnvironmentError&) {
    throw;
  } catch (const std::runtime_error& e) {  // the backend could not write a file
    throw EnvironmentError(e.what());
  }
}

}  // namespace texc
