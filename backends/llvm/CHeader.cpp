// emit_c_header: the C declarations of compiled ops (cli.md `--emit header`), and a #define of
// each argument's rank, dimensions, size and shape; emit_cuda_host_header, the same for the cuda
// host functions (CudaBackend.h); emit_vdla_host_header, for a graph of VDLA and host kernels
// (VdlaHostObject.h). Each op is declared under its symbol (ir/SymbolNames.h: the
// op's name, or texc_op_<name> when the name is a C keyword, a C library name, ...), the symbol
// the object defines; a parameter named like a C keyword or standard macro gets a trailing '_'.
#include <cctype>
#include <optional>
#include <set>
#include <sstream>

#include "backends/llvm/CodeGenNVPTX.h"
#include "backends/llvm/CudaBackend.h"
#include "backends/llvm/LLVMBackend.h"
#include "backends/llvm/VdlaHostObject.h"
#include "ir/KernelCalls.h"
#include "ir/CallerWorkspace.h"
#include "ir/KernelScratch.h"
#include "ir/Diagnostics.h"
#include "ir/IRPrinter.h"
#include "ir/SymbolNames.h"

namespace texc {

std::string c_type_name(Type t) {
  TEXC_CHECK(t.is_scalar()) << "C type of vector type " << t.str();
  switch (t.code) {
    case TypeCode::Bool: return "bool";
    case TypeCode::Int: return "int" + std::to_string(t.bits) + "_t";
    case TypeCode::UInt: return "uint" + std::to_string(t.bits) + "_t";
    case TypeCode::Float:
      if (t.bits == 32) return "float";
      if (t.bits == 64) return "double";
      if (t.bits == 16) return "uint16_t";  // IEEE half bits
      break;
    case TypeCode::BFloat: return "uint16_t";  // bfloat16 bits: the upper half of an f32
  }
  TEXC_UNREACHABLE() << "no C type for " << t.str();
}

namespace {

/// name with every character that cannot appear in a C identifier replaced by '_'.
std::string c_identifier(const std::string& name) {
  std::string id = name.empty() ? "_" : name;
  for (char& c : id)
    if (!(isalnum((unsigned char)c) || c == '_')) c = '_';
  if (isdigit((unsigned char)id[0])) id = "_" + id;
  return id;
}

std::string shape_text(const LoweredFunc& func, size_t i) {
  std::ostringstream os;
  os << "[";
  if (i < func.arg_dims.size() && !func.arg_dims[i].empty()) {
    for (size_t d = 0; d < func.arg_dims[i].size(); ++d) os << (d ? ", " : "") << func.arg_dims[i][d];
  } else {
    const Buffer& b = func.args[i];
    for (size_t d = 0; d < b->shape.size(); ++d) {
      int64_t v;
      os << (d ? ", " : "");
      if (is_const_int(b->shape[d], &v)) os << v;
      else os << "?";
    }
  }
  os << "]";
  return os.str();
}

/// The constant dimensions of argument i, or nothing if one is not a constant.
std::optional<std::vector<int64_t>> constant_dims(const LoweredFunc& func, size_t i) {
  if (i < func.arg_dims.size() && !func.arg_dims[i].empty()) return func.arg_dims[i];
  std::vector<int64_t> dims;
  for (const Expr& e : func.args[i]->shape) {
    int64_t v;
    if (!is_const_int(e, &v)) return std::nullopt;
    dims.push_back(v);
  }
  return dims;
}

std::string upper(std::string s) {
  for (char& c : s) c = char(toupper((unsigned char)c));
  return s;
}

/// The shape macros of argument i: OP_ARG_RANK, OP_ARG_DIM0.., OP_ARG_SIZE (elements) and
/// OP_ARG_SHAPE (a brace initializer), names upper-cased. A prefix already used in this header
/// (arguments `a` and `A`) gets none.
void shape_macros(std::ostream& os, const LoweredFunc& func, size_t i, std::set<std::string>& prefixes) {
  std::optional<std::vector<int64_t>> dims = constant_dims(func, i);
  std::string prefix = upper(op_symbol(func.name) + "_" + c_identifier(func.args[i]->name));
  if (!dims || !prefixes.insert(prefix).second) return;
  int64_t size = 1;
  std::string shape;
  os << "#define " << prefix << "_RANK " << dims->size() << "\n";
  for (size_t d = 0; d < dims->size(); ++d) {
    os << "#define " << prefix << "_DIM" << d << " " << (*dims)[d] << "\n";
    size *= (*dims)[d];
    shape += (d ? ", " : "") + std::to_string((*dims)[d]);
  }
  os << "#define " << prefix << "_SIZE " << size << "\n";
  os << "#define " << prefix << "_SHAPE {" << shape << "}\n";
}

/// The attributes the op was compiled with, as constants (they are folded into the code, not
/// arguments): `//   eps = 1e-05 (f32, compiled in)` and OP_ATTR_EPS. A prefix already used gets
/// no macro.
void attribute_macros(std::ostream& os, const LoweredFunc& func, std::set<std::string>& prefixes) {
  for (const AttributeValue& a : func.attributes) {
    std::string type = a.type.is_float() ? a.type.str() : "int";
    os << "//   " << a.name << " = " << a.text << " (" << type << " attribute, compiled in)\n";
  }
  for (const AttributeValue& a : func.attributes) {
    std::string macro = upper(op_symbol(func.name) + "_ATTR_" + c_identifier(a.name));
    std::string value = a.text[0] == '-' ? "(" + a.text + ")" : a.text;
    if (prefixes.insert(macro).second) os << "#define " << macro << " " << value << "\n";
  }
}

/// Whose functions a header declares.
enum class HeaderKind {
  Cpu,       // the CPU ops: `void op(...)`
  Cuda,      // the cuda host functions: `int op(...)` taking device pointers, the texrt_cuda error codes
  VdlaHost,  // a graph of VDLA and host kernels (VdlaHostObject.h): its entries and VDLA kernels `int`
};

/// A graph's host entry (ir/KernelCalls.h) or a VDLA kernel of a graph on vdla (its target empty,
/// where the graph's host functions have the host's).
bool returns_code(const LoweredFunc& func, HeaderKind kind) {
  if (kind == HeaderKind::Cuda) return true;
  return kind == HeaderKind::VdlaHost && (func.target.empty() || kernel_calls(func));
}

std::string header(const std::vector<LoweredFunc>& funcs, HeaderKind kind) {
  const bool cuda = kind == HeaderKind::Cuda;
  std::ostringstream os;
  if (kind == HeaderKind::VdlaHost)
    os << "// Generated by texc --target vdla: an op compiled as a graph of VDLA and host kernels. Its entry\n"
       << "// runs the kernels in order: the VDLA kernels' programs (embedded in the object) on texc's VDLA\n"
       << "// simulator through runtime/texrt_vdla.h, each tensor they read copied into the accelerator's\n"
       << "// DRAM and each they write copied back; the host kernels on this CPU. Link the object with\n"
       << "// libtexrt.a, libtexc_backends_vdla.a and libtexc_ir.a (-lfmt -lstdc++ -lpthread -lm when\n"
       << "// linking with a C compiler). The entry and each VDLA kernel return 0, or -1 when a program\n"
       << "// fails (texrt_vdla_last_error() says why); texrt_vdla_thread_cycles() counts their cycles.\n"
       << "// Each argument points to a dense row-major array of the shape given below; inputs are\n"
       << "// read-only, outputs are overwritten; buffers must not overlap. For each argument ARG of op OP\n"
       << "// the macros OP_ARG_RANK, OP_ARG_DIM0.., OP_ARG_SIZE (elements) and OP_ARG_SHAPE ({d0, ...})\n"
       << "// give its shape (names upper-cased); OP_ATTR_NAME is the value attribute NAME was compiled with.\n";
  else if (!cuda)
    os << "// Generated by texc: the compiled ops of this unit. Link the object file with libtexrt.a\n"
       << "// (-lstdc++ -lpthread -lm when linking with a C compiler). Each argument points to a dense\n"
       << "// row-major array of the shape given below; inputs are read-only, outputs are overwritten;\n"
       << "// buffers must not overlap; pointers need only the element type's alignment. Parallel loops\n"
       << "// use TEXC_NUM_THREADS threads (default: every core). For each argument ARG of op OP the\n"
       << "// macros OP_ARG_RANK, OP_ARG_DIM0.., OP_ARG_SIZE (elements) and OP_ARG_SHAPE ({d0, d1, ...})\n"
       << "// give its shape (names upper-cased); OP_ATTR_NAME is the value attribute NAME was compiled with.\n";
  else
    os << "// Generated by texc --target cuda: one host function per op, which runs the op's kernel(s) on\n"
       << "// the GPU and waits for them. Link the object file with libtexrt.a (-lstdc++ -lpthread -ldl\n"
       << "// when linking with a C compiler); the CUDA driver (libcuda.so.1) is loaded at run time, so\n"
       << "// nothing links against CUDA. EVERY POINTER IS A DEVICE POINTER (cudaMalloc / cuMemAlloc) to a\n"
       << "// dense row-major array of the shape given below; inputs are read-only, outputs are\n"
       << "// overwritten; buffers must not overlap. Kernels run in the context current on the calling\n"
       << "// thread (the CUDA runtime's, if it made one), else in device 0's primary context. Each\n"
       << "// function returns TEXRT_CUDA_SUCCESS (0) or an error code (TEXRT_CUDA_NO_DEVICE when there\n"
       << "// is no driver or no device...); texrt_cuda_error_message(code) says what went wrong. For\n"
       << "// each argument ARG of op OP the macros OP_ARG_RANK, OP_ARG_DIM0.., OP_ARG_SIZE (elements)\n"
       << "// and OP_ARG_SHAPE ({d0, d1, ...}) give its shape (names upper-cased); OP_ATTR_NAME is the\n"
       << "// value attribute NAME was compiled with.\n";
  os << "#pragma once\n"
     << "#include <stdint.h>\n"
     << "#ifndef __cplusplus\n"
     << "#include <stdbool.h>\n"
     << "#endif\n\n"
     << "#ifdef __cplusplus\n"
     << "extern \"C\" {\n"
     << "#endif\n";
  if (cuda)
    os << "\n// The error codes and message function of runtime/texrt_cuda.h.\n"
       << "#ifndef TEXRT_CUDA_ERROR_CODES\n"
       << "#define TEXRT_CUDA_ERROR_CODES\n"
       << "enum {\n"
       << "  TEXRT_CUDA_SUCCESS = 0,\n"
       << "  TEXRT_CUDA_NO_DEVICE = 1,      // no driver (libcuda.so.1 cannot be loaded) or no CUDA device\n"
       << "  TEXRT_CUDA_INIT_FAILED = 2,    // the driver failed to initialise or to make a context\n"
       << "  TEXRT_CUDA_MODULE_FAILED = 3,  // the driver rejected the PTX (e.g. a driver older than the PTX)\n"
       << "  TEXRT_CUDA_LAUNCH_FAILED = 4,  // the launch was refused\n"
       << "  TEXRT_CUDA_KERNEL_FAILED = 5,  // the kernel failed while running (e.g. an invalid device pointer)\n"
       << "};\n"
       << "#endif\n"
       << "const char* texrt_cuda_error_message(int code);\n"
       << "int texrt_cuda_release_workspace(void);\n";
  if (kind == HeaderKind::VdlaHost)
    os << "\n// Of runtime/texrt_vdla.h.\n"
       << "const char* texrt_vdla_last_error(void);\n"
       << "uint64_t texrt_vdla_thread_cycles(void);\n";
  std::set<std::string> macro_prefixes;
  for (const LoweredFunc& func : funcs) {
    os << "\n// " << func.name << "\n";
    if (std::string why = reserved_symbol_reason(func.name); !why.empty())
      os << "// (declared as " << op_symbol(func.name) << ": '" << func.name << "' is " << why << ")\n";
    for (const std::string& line : func.doc) os << "// " << line << "\n";
    bool any_f16 = false, any_bf16 = false;
    for (size_t i = 0; i < func.args.size(); ++i) {
      const Buffer& b = func.args[i];
      any_f16 |= b->dtype.is_half();
      any_bf16 |= b->dtype.is_bfloat();
      os << "//   " << b->name << ": " << b->dtype.str() << shape_text(func, i)
         << (b->role == BufferRole::Input ? " (input)"
             : is_scratch_arg(b)           ? " (scratch: its contents are undefined on entry and on return)"
                                           : " (output)")
         << "\n";
    }
    if (any_f16) os << "//   f16 elements are IEEE binary16 values passed as their uint16_t bits.\n";
    if (any_bf16) os << "//   bf16 elements are bfloat16 values (an f32's upper 16 bits) passed as their uint16_t bits.\n";
    for (size_t i = 0; i < func.args.size(); ++i) shape_macros(os, func, i, macro_prefixes);
    attribute_macros(os, func, macro_prefixes);
    std::optional<LoweredFunc> with_workspace = caller_workspace_entry(func);
    const std::string bytes_macro = upper(op_symbol(func.name) + "_WORKSPACE_BYTES");
    const std::string alignment_macro = upper(op_symbol(func.name) + "_WORKSPACE_ALIGNMENT");
    if (func.workspace_bytes > 0) {
      if (macro_prefixes.insert(bytes_macro).second)
        os << "#define " << bytes_macro << " " << func.workspace_bytes << "\n";
      if (with_workspace && macro_prefixes.insert(alignment_macro).second)
        os << "#define " << alignment_macro << " " << kCallerWorkspaceAlignment << "\n";
    }
    if (cuda && func.kind == FunctionKind::Host) {  // a graph's host entry (ir/KernelCalls.h)
      os << "//   Launches its kernels in order on the default stream, without waiting between them, then waits\n"
         << "//   for them once"
         << (func.workspace_bytes > 0 ? ", the intermediates in the calling thread's workspace of device memory\n//   (allocated at its first call, kept for the next; texrt_cuda_release_workspace() frees it)"
                                      : "")
         << ".\n//   All pointers are device pointers. Returns 0 or a TEXRT_CUDA_ error code (a kernel's failure\n"
         << "//   names the op; the kernels' own functions each launch one and wait).\n";
    } else if (kind == HeaderKind::VdlaHost && kernel_calls(func)) {
      os << "//   Runs its kernels in order" << (with_workspace ? ", allocating its workspace of " + bytes_macro + " bytes on each call" : "")
         << ".\n//   Returns 0, or -1 when a VDLA kernel fails (texrt_vdla_last_error() says why).\n";
    } else if (kind == HeaderKind::VdlaHost && func.target.empty()) {
      os << "//   Runs on VDLA: its program is embedded. Returns 0, or -1 (texrt_vdla_last_error() says why).\n";
    } else if (!cuda && with_workspace) {
      os << "//   Allocates its workspace of " << bytes_macro << " bytes on each call.\n";
    } else if (cuda) {
      os << "//   launch:";
      for (const auto& extent : func.launch.thread_extents) os << " " << extent.tag << "=" << to_string(extent.extent);
      if (int64_t shared = func.launch.dynamic_shared_bytes + kernel_shared_bytes(func))
        os << ", " << shared << " bytes of dynamic shared memory";
      for (const std::string& output : func.launch.zeroed_outputs)  // split-K (docs/cuda.md)
        os << "\n//   Zeroes " << output << " before the launch: its blocks add their partial sums into it atomically.";
      os << "\n//   All pointers are device pointers. Returns 0 or a TEXRT_CUDA_ error code.\n";
    }
    auto declare = [&](const std::string& symbol, bool workspace_parameter) {
      os << (returns_code(func, kind) ? "int " : "void ") << symbol << "(";
      for (size_t i = 0; i < func.args.size(); ++i) {
        const Buffer& b = func.args[i];
        os << (i ? ", " : "") << (b->role == BufferRole::Input ? "const " : "") << c_type_name(b->dtype) << "* "
           << c_parameter_name(c_identifier(b->name));
      }
      os << (workspace_parameter ? ", void* workspace" : "") << ");\n";
    };
    declare(op_symbol(func.name), false);
    if (with_workspace) {  // ir/CallerWorkspace.h
      os << "//   " << func.name << " with the caller's workspace" << (cuda ? " in device memory" : "") << ": at least "
         << bytes_macro << " bytes aligned to " << alignment_macro << ",\n"
         << "//   overlapping no other argument. It allocates "
         << (cuda ? "nothing (launches only)"
             : kind == HeaderKind::VdlaHost
                 ? "no workspace (the simulator allocates each VDLA kernel's DRAM image)"
                 : "nothing: the kernels' scratch over 64 KB is in the workspace too,\n//   but for a buffer per task of a parallel loop")
         << ".\n//   Nothing is kept in the workspace between calls: one buffer serves every call, one call at a time.\n";
      declare(op_symbol(with_workspace->name), true);
    }
  }
  os << "\n#ifdef __cplusplus\n"
     << "}  // extern \"C\"\n"
     << "#endif\n";
  return os.str();
}

}  // namespace

std::string emit_c_header(const std::vector<LoweredFunc>& funcs) { return header(funcs, HeaderKind::Cpu); }

std::string emit_cuda_host_header(const std::vector<LoweredFunc>& funcs) { return header(funcs, HeaderKind::Cuda); }

std::string emit_vdla_host_header(const std::vector<LoweredFunc>& funcs) { return header(funcs, HeaderKind::VdlaHost); }

}  // namespace texc
