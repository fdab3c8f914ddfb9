#include "backends/llvm/ObjectFile.h"

#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/raw_ostream.h>

#include <stdexcept>

namespace texc {

void write_module_file(llvm::Module& module, llvm::TargetMachine& target_machine, const std::string& path,
                       llvm::CodeGenFileType kind) {
  std::error_code error;
  llvm::raw_fd_ostream os(path, error, kind == llvm::CodeGenFileType::ObjectFile ? llvm::sys::fs::OF_None
                                                                                  : llvm::sys::fs::OF_Text);
  if (error) throw std::runtime_error("cannot write '" + path + "': " + error.message());
  {  // the passes (the assembly printer's stream) are gone, flushed, before the file is closed
    llvm::legacy::PassManager passes;  // the codegen pipeline is still legacy-PM only in LLVM 19
    if (target_machine.addPassesToEmitFile(passes, os, nullptr, kind))
      throw std::runtime_error("the LLVM target cannot emit this file type");
    passes.run(module);
  }
  os.close();
  if (os.has_error()) {
    std::string message = "cannot write '" + path + "': " + os.error().message();
    os.clear_error();  // else its destructor reports a fatal error
    throw std::runtime_error(message);
  }
}

}  // namespace texc
