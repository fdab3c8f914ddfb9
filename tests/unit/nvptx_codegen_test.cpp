// Unit tests of the cuda code generator (backends/llvm/CodeGenNVPTX.h, CudaBackend.h) on
// hand-written device kernels (tests/unit/cuda_kernels): kernels with global pointers, thread
// indices from the special registers, barriers, shared and local buffers, warp shuffles of every
// width, math without libm, and PTX for each --arch.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "backends/llvm/CodeGenNVPTX.h"
#include "backends/llvm/CudaBackend.h"
#include "backends/llvm/LLVMBackend.h"
#include "backends/llvm/LinkLibdevice.h"

#include <cstdlib>
#include "tests/unit/cuda_test_kernels.h"

using namespace texc;
using namespace texc::cuda_test;

namespace {

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("an elementwise kernel: global pointers, block and thread indices, math without libm") {
  std::vector<LoweredFunc> funcs{kernel_file("elementwise")};
  std::string ir = emit_cuda_llvm_ir(funcs, {});
  CAPTURE(ir);
  CHECK(has(ir, "target triple = \"nvptx64-nvidia-cuda\""));
  CHECK(has(ir, "define ptx_kernel void @add_exp(ptr addrspace(1) noalias nocapture noundef readonly"));
  CHECK(has(ir, "@llvm.nvvm.read.ptx.sreg.tid.x()"));
  CHECK(has(ir, "@llvm.nvvm.read.ptx.sreg.ctaid.x()"));
  CHECK(has(ir, "!{ptr @add_exp, !\"maxntidx\", i32 256}"));
  CHECK(has(ir, "!{ptr @add_exp, !\"maxntidy\", i32 1}"));
  CHECK(has(ir, "@llvm.nvvm.lg2.approx.f"));
  // exp, tanh and sigmoid are polynomials: no libm call is left for the GPU.
  CHECK(!has(ir, "expf"));
  CHECK(!has(ir, "tanhf"));
  CHECK(!has(ir, "@llvm.exp."));
  std::string ptx = emit_ptx(funcs, {});
  CAPTURE(ptx);
  CHECK(has(ptx, ".target sm_80"));
  CHECK(has(ptx, ".entry add_exp("));
  CHECK(has(ptx, ".maxntid 256, 1, 1"));
  CHECK(has(ptx, "%tid.x"));
  CHECK(has(ptx, "%ctaid.x"));
  CHECK(has(ptx, "ld.global"));
  CHECK(has(ptx, "st.global"));
  CHECK(has(ptx, "lg2.approx.f32"));
  CHECK(has(ptx, "sqrt.rn.f32"));
  CHECK(!has(ptx, "call"));
}

TEST_CASE("libdevice math: erf sin atan2 fmod ... linked in and inlined, f16 through f32, isnan/isinf compares") {
  if (find_libdevice().empty()) {
    MESSAGE("SKIP: no libdevice (set TEXC_LIBDEVICE)");
    return;
  }
  std::vector<LoweredFunc> funcs{kernel_file("math_functions")};
  std::string ir = emit_cuda_llvm_ir(funcs, {});
  // Every __nv_ function the kernel called is defined (internal) or gone, none left to link.
  for (const char* f : {"erf", "erfc", "log1p", "expm1", "log2", "exp2", "sin", "cos", "atan2", "fmod"}) {
    CAPTURE(f);
    CHECK(!has(ir, std::string("declare float @__nv_") + f + "f("));
    CHECK(!has(ir, std::string("declare double @__nv_") + f + "("));
  }
  CHECK(!has(ir, "define float @__nv_"));  // internalized: no exported libdevice function
  CHECK(!has(ir, "__nvvm_reflect"));       // the reflect queries are answered
  std::string ptx = emit_ptx(funcs, {});
  CAPTURE(ptx);
  CHECK(count(ptx, ".entry") == 1);
  CHECK(!has(ptx, ".extern"));
  CHECK(!has(ptx, "__nv_"));
  CHECK(has(ptx, "sqrt.rn.f32"));  // rsqrt is 1 / sqrt.rn, not rsqrt.approx
  CHECK(has(ptx, "sqrt.rn.f64"));
  CHECK(has(ptx, "cvt.rzi.f32.f32"));  // trunc
  CHECK(has(ptx, "cvt.rzi.f64.f64"));
}

TEST_CASE("a kernel calling libdevice functions without libdevice is an error naming them and where it looked") {
  setenv("TEXC_LIBDEVICE", "/nonexistent/libdevice.10.bc", 1);
  std::string message;
  try {
    emit_ptx({kernel_file("math_functions")}, {});
  } catch (const TargetOptionError& e) {
    message = e.what();
  }
  unsetenv("TEXC_LIBDEVICE");
  CHECK(has(message, "__nv_erff"));
  CHECK(has(message, "__nv_atan2"));
  CHECK(has(message, "looked at /nonexistent/libdevice.10.bc"));
  // A kernel without those functions needs no libdevice.
  setenv("TEXC_LIBDEVICE", "/nonexistent/libdevice.10.bc", 1);
  CHECK_NOTHROW(emit_ptx({kernel_file("elementwise")}, {}));
  unsetenv("TEXC_LIBDEVICE");
}

TEST_CASE("a shared-memory tile: addrspace(3) buffers, barriers, a local accumulator, 2-D indices") {
  std::vector<LoweredFunc> funcs{kernel_file("shared_tile_matmul")};
  std::string ir = emit_cuda_llvm_ir(funcs, {});
  CAPTURE(ir);
  CHECK(has(ir, "@matmul.As = internal unnamed_addr addrspace(3) global [1024 x i8] undef, align 16"));
  CHECK(has(ir, "@matmul.Bs = internal unnamed_addr addrspace(3) global [1024 x i8] undef, align 16"));
  // At -O0 the two barriers of the k0 loop; at -O3 the loop (4 iterations) is unrolled.
  CHECK(count(emit_cuda_llvm_ir(funcs, {"sm_80", 0}), "call void @llvm.nvvm.barrier0()") == 2);
  CHECK(count(ir, "call void @llvm.nvvm.barrier0()") == 8);
  CHECK(has(ir, "@llvm.nvvm.read.ptx.sreg.tid.y()"));
  CHECK(has(ir, "@llvm.nvvm.read.ptx.sreg.ctaid.y()"));
  CHECK(has(ir, "!{ptr @matmul, !\"maxntidx\", i32 16}"));
  CHECK(has(ir, "!{ptr @matmul, !\"maxntidy\", i32 16}"));
  std::string ptx = emit_ptx(funcs, {});
  CAPTURE(ptx);
  CHECK(has(ptx, ".maxntid 16, 16, 1"));
  CHECK(has(ptx, ".shared .align 16 .b8 matmul_$_As[1024];"));
  CHECK(has(ptx, ".shared .align 16 .b8 matmul_$_Bs[1024];"));
  CHECK(count(ptx, "bar.sync \t0;") == 8);
  CHECK(has(ptx, "ld.shared.f32"));
  CHECK(has(ptx, "st.shared.f32"));
  // The accumulator lives in a register: no local memory.
  CHECK(!has(ptx, ".local"));
}

TEST_CASE("a reduction with warp shuffles and a shared-memory tree") {
  std::vector<LoweredFunc> funcs{kernel_file("shuffle_reduction")};
  std::string ir = emit_cuda_llvm_ir(funcs, {});
  CAPTURE(ir);
  CHECK(count(ir, "call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 ") == 5);
  CHECK(count(ir, "call void @llvm.nvvm.barrier0()") == 1);
  std::string ptx = emit_ptx(funcs, {});
  CAPTURE(ptx);
  CHECK(count(ptx, "shfl.sync.down.b32") == 5);
  CHECK(count(ptx, "bar.sync \t0;") == 1);
}

TEST_CASE("shuffles of 64-, 16- and 8-bit values; f16 and bf16 math computed in f32") {
  std::vector<LoweredFunc> funcs{kernel_file("shuffle_types")};
  std::string ir = emit_cuda_llvm_ir(funcs, {});
  CAPTURE(ir);
  // f64 and i64: two 32-bit shuffles each; f16, bf16 and i8: one each.
  CHECK(count(ir, "@llvm.nvvm.shfl.sync.down.i32(i32 -1") == 7);
  CHECK(has(ir, "fpext half"));
  CHECK(count(ir, ", 32767") == 2);  // exp's and the sum's f32 results rounded to bf16 by integer code (BFloatLLVM.h)
  std::string ptx = emit_ptx(funcs, {});
  CHECK(count(ptx, "shfl.sync.down.b32") == 7);
}

TEST_CASE("--arch picks the PTX target; an unknown one lists the valid values") {
  std::vector<LoweredFunc> funcs{kernel_file("shuffle_reduction")};
  CHECK(has(emit_ptx(funcs, {"sm_70"}), ".target sm_70"));
  CHECK(has(emit_ptx(funcs, {"sm_90"}), ".target sm_90"));
  try {
    emit_ptx(funcs, {"sm_50"});
    FAIL("sm_50 accepted");
  } catch (const TargetOptionError& e) {
    CHECK(std::string(e.what()) == "unknown CUDA architecture 'sm_50'; valid ones are " + cuda_arch_names());
  }
}

TEST_CASE("the host header: int-returning functions on device pointers, launch, shapes, error codes") {
  std::string h = emit_cuda_host_header({kernel_file("shared_tile_matmul"), kernel_file("shuffle_reduction")});
  CAPTURE(h);
  CHECK(has(h, "EVERY POINTER IS A DEVICE POINTER"));
  CHECK(has(h, "int matmul(const float* A, const float* B, float* C);"));
  CHECK(has(h, "int row_sum(const float* A, float* S);"));
  CHECK(has(h, "//   launch: blockIdx.x=4 blockIdx.y=4 threadIdx.x=16 threadIdx.y=16\n"));
  CHECK(has(h, "#define MATMUL_C_SIZE 4096\n"));
  CHECK(has(h, "  TEXRT_CUDA_NO_DEVICE = 1,"));
  CHECK(has(h, "const char* texrt_cuda_error_message(int code);"));
  CHECK(!has(h, "void matmul("));
}

TEST_CASE("shared buffers past the 48 KiB static limit live in dynamic shared memory, asked for at launch") {
  LoweredFunc big = kernel_file("big_shared");
  CHECK(kernel_shared_bytes(big) == 65536);
  CHECK(kernel_shared_bytes(kernel_file("shared_tile_matmul")) == 0);  // 2 KiB: static
  std::string ptx = emit_ptx({big}, {});
  CAPTURE(ptx);
  CHECK(has(ptx, ".extern .shared .align 16 .b8 transpose_64k_dynamic_shared[];"));
  CHECK(!has(ptx, ".shared .align 16 .b8 transpose_64k_$_S"));
  // T starts 32 KiB after S.
  std::string ir = emit_cuda_llvm_ir({big}, {"sm_80", 0});
  CAPTURE(ir);
  CHECK(has(ir, "@transpose_64k_dynamic_shared = external addrspace(3) global [0 x i8], align 16"));
  CHECK(has(ir, "getelementptr inbounds (i8, ptr addrspace(3) @transpose_64k_dynamic_shared, i64 32768)"));
  std::string h = emit_cuda_host_header({big});
  CHECK(has(h, "//   launch: threadIdx.x=1024, 65536 bytes of dynamic shared memory\n"));
}
