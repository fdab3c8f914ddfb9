// LinkLibdevice: CUDA's libdevice (libdevice.10.bc, NVIDIA's math library as LLVM bitcode) linked into
// an NVPTX module for the math functions that have no PTX instruction (erf, sin, atan2, fmod, ...).
//
// CodeGenNVPTX calls __nv_erff, __nv_sin, ...; link_libdevice links in just the functions the module
// calls (and what they call), made internal so that they inline and vanish from the PTX. A module
// without __nv_ calls is left alone and needs no CUDA toolkit. libdevice's __nvvm_reflect queries
// (flush denormals to zero? no) are answered by the NVPTX pipeline's NVVMReflect pass.
//
// Where libdevice is looked for: $TEXC_LIBDEVICE (the .bc file) when set, and then only there; else,
// first found wins, $CUDA_HOME/nvvm/libdevice/libdevice.10.bc, $CUDA_PATH/nvvm/libdevice/libdevice.10.bc,
// /usr/local/cuda/nvvm/libdevice/libdevice.10.bc, /usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc.
#pragma once
#include <string>

namespace llvm {
class Module;
}

namespace texc {

/// The math functions CodeGenNVPTX computes with libdevice (on f32 and f64; f16 and bf16 in f32).
bool is_libdevice_math_function(const std::string& name);

/// The libdevice file found (see above), or "" when there is none.
std::string find_libdevice();

/// Links the libdevice functions `module` calls into it. Throws TargetOptionError, naming the
/// functions and the places looked at, when the module calls some and no libdevice is found.
void link_libdevice(llvm::Module& module);

}  // namespace texc
