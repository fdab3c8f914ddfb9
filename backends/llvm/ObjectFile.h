// write_module_file: an LLVM module emitted as an object or assembly file by its target machine,
// the one way the backends write machine code to a file.
#pragma once
#include <llvm/Target/TargetMachine.h>

#include <string>

namespace llvm {
class Module;
}

namespace texc {

/// Emits `module` for `target_machine` as `kind` at `path`. Throws std::runtime_error when the
/// file cannot be written or the target cannot emit that kind.
void write_module_file(llvm::Module& module, llvm::TargetMachine& target_machine, const std::string& path,
                       llvm::CodeGenFileType kind);

}  // namespace texc
