#include "backends/llvm/LinkLibdevice.h"

#include <llvm/IR/Module.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/SourceMgr.h>

#include <cstdlib>
#include <set>
#include <unistd.h>

#include "backends/llvm/LLVMBackend.h"
#include "ir/Diagnostics.h"

namespace texc {

namespace {

constexpr const char* kPrefix = "__nv_";

std::vector<std::string> libdevice_candidates() {
  std::vector<std::string> paths;
  if (const char* p = std::getenv("TEXC_LIBDEVICE")) return {p};  // the user's choice, and only it
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* p = std::getenv(var)) paths.push_back(std::string(p) + "/nvvm/libdevice/libdevice.10.bc");
  paths.push_back("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc");
  paths.push_back("/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc");
  return paths;
}

}  // namespace

bool is_libdevice_math_function(const std::string& name) {
  static const std::set<std::string> names = {"erf", "erfc", "log1p", "expm1", "exp2",
                                              "log2", "sin", "cos", "atan2", "fmod"};
  return names.count(name) > 0;
}

std::string find_libdevice() {
  for (const std::string& path : libdevice_candidates())
    if (access(path.c_str(), R_OK) == 0) return path;
  return "";
}

void link_libdevice(llvm::Module& module) {
  std::string called;
  for (const llvm::Function& f : module.functions())
    if (f.isDeclaration() && f.getName().starts_with(kPrefix)) called += (called.empty() ? "" : ", ") + f.getName().str();
  if (called.empty()) return;
  std::string path = find_libdevice();
  if (path.empty()) {
    std::string looked;
    for (const std::string& p : libdevice_candidates()) looked += (looked.empty() ? "" : ", ") + p;
    throw TargetOptionError("the cuda target computes " + called +
                            " with CUDA's libdevice, which was not found (looked at " + looked +
                            "; set TEXC_LIBDEVICE to the libdevice.10.bc file)");
  }
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> libdevice = llvm::parseIRFile(path, error, module.getContext());
  if (!libdevice) throw TargetOptionError("cannot read libdevice " + path + ": " + error.getMessage().str());
  libdevice->setTargetTriple(module.getTargetTriple());
  libdevice->setDataLayout(module.getDataLayout());
  bool failed = llvm::Linker::linkModules(module, std::move(libdevice), llvm::Linker::Flags::LinkOnlyNeeded);
  TEXC_CHECK(!failed) << "linking libdevice " << path << " failed";
  for (llvm::Function& f : module.functions())
    if (!f.isDeclaration() && f.getCallingConv() != llvm::CallingConv::PTX_Kernel &&
        (f.getName().starts_with(kPrefix) || f.hasLinkOnceLinkage() || f.hasWeakLinkage()))
      f.setLinkage(llvm::GlobalValue::InternalLinkage);
  for (llvm::GlobalVariable& g : module.globals())
    if (!g.isDeclaration() && g.getName().starts_with(kPrefix)) g.setLinkage(llvm::GlobalValue::InternalLinkage);
}

}  // namespace texc
