// Tests of the files the LLVM backend writes: object files for x86 and aarch64 (ELF, the op defined,
// the runtime only referenced), assembly, LLVM IR and the C header.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "backends/llvm/LLVMBackend.h"
#include "tests/unit/llvm_test_ops.h"

using namespace texc;
using namespace texc::llvm_test;

namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("texc_llvm_emit_" + std::to_string(getpid()) + "_" + name)).string();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// `nm` output lines for an object file ("U texrt_parallel_for", "T matmul", ...).
std::string symbols_of(const std::string& object) {
  std::string out;
  FILE* p = popen(("nm " + object + " 2>&1").c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[512];
  while (fgets(buf, sizeof buf, p)) out += buf;
  pclose(p);
  return out;
}

uint16_t elf_machine(const std::string& bytes) {
  REQUIRE(bytes.size() > 20);
  REQUIRE(bytes.compare(0, 4, "\x7f" "ELF") == 0);
  uint16_t machine;
  std::memcpy(&machine, bytes.data() + 18, 2);
  return machine;
}

}  // namespace

TEST_CASE("object files for x86 and aarch64 define the ops and only reference the runtime") {
  std::vector<LoweredFunc> funcs = {matmul(16, 16, 16, true), vectorized_axpy(37)};
  struct {
    const char* arch;
    uint16_t machine;
  } targets[] = {{"x86", 62 /* EM_X86_64 */}, {"arm", 183 /* EM_AARCH64 */}};
  for (auto t : targets) {
    CAPTURE(t.arch);
    std::string path = temp_path(std::string(t.arch) + ".o");
    write_object(funcs, CpuTargetOptions{t.arch, "", "", 3}, path);
    CHECK(elf_machine(read_file(path)) == t.machine);
    std::string syms = symbols_of(path);
    CHECK(syms.find(" T matmul\n") != std::string::npos);
    CHECK(syms.find(" T axpy\n") != std::string::npos);
    CHECK(syms.find(" U texrt_parallel_for\n") != std::string::npos);
    CHECK(syms.find(" T texrt_") == std::string::npos);
    CHECK(syms.find(" t matmul.par.0\n") != std::string::npos);  // closures are local symbols
    std::remove(path.c_str());
  }
}

TEST_CASE("assembly and LLVM IR") {
  std::vector<LoweredFunc> funcs = {vectorized_axpy(64)};
  std::string arm = emit_assembly(funcs, CpuTargetOptions{"arm", "", "", 3});
  CHECK(arm.find("axpy:") != std::string::npos);
  CHECK(arm.find("fmla") != std::string::npos);  // NEON fused multiply-add on v registers
  CHECK(arm.find(".4s") != std::string::npos);
  std::string a53 = emit_assembly(funcs, CpuTargetOptions{"arm", "cortex-a53", "", 3});
  CHECK(a53.find("axpy:") != std::string::npos);

  std::string x86 = emit_assembly(funcs, CpuTargetOptions{"x86", "haswell", "", 3});
  CHECK(x86.find("ymm") != std::string::npos);  // AVX2 registers for <8 x float>
  std::string sse = emit_assembly(funcs, CpuTargetOptions{"x86", "x86-64", "", 3});
  CHECK(sse.find("ymm") == std::string::npos);  // baseline x86-64 has no AVX
  CHECK(sse.find("xmm") != std::string::npos);

  std::string path = temp_path("axpy.s");
  write_assembly(funcs, CpuTargetOptions{"arm", "", "", 3}, path);
  CHECK(read_file(path).find("axpy:") != std::string::npos);
  std::remove(path.c_str());

  std::string ir = emit_llvm_ir(funcs, CpuTargetOptions{"arm", "", "", 3});
  CHECK(ir.find("target triple = \"aarch64-unknown-linux-gnu\"") != std::string::npos);
  CHECK(ir.find("\"target-features\"=\"+neon\"") != std::string::npos);
  CHECK(ir.find("define void @axpy(ptr noalias nocapture noundef readonly") != std::string::npos);

  std::string parallel_ir = emit_llvm_ir_unoptimized({matmul(8, 8, 8, true)}, CpuTargetOptions{});
  CHECK(parallel_ir.find("define internal void @matmul.par.0(i64 %i.task, ptr noalias nocapture readonly %closure)") !=
        std::string::npos);
  CHECK(parallel_ir.find("call void @texrt_parallel_for(i64 8, ptr @matmul.par.0") != std::string::npos);
}

TEST_CASE("aligned vector accesses on texc's own buffers") {
  // allocate T: f32[64] { for xo in 0..8: T[ramp(xo*8, 1, 8)] = A[ramp(xo*8, 1, 8)];
  //                       for xo in 0..8: Out[ramp(xo*8, 1, 8)] = T[ramp(xo*8, 1, 8)] }
  Buffer a = input("A", Float(32), 64), out = output("Out", Float(32), 64);
  Buffer t = BufferNode::make("T", Float(32), {i64(64)});
  Var x = Variable::make("xo"), y = Variable::make("yo");
  Stmt copy_in = loop(x, 0, 8, store(t, ramp(Expr(x) * 8, 8), load(a, ramp(Expr(x) * 8, 8))));
  Stmt copy_out = loop(y, 0, 8, store(out, ramp(Expr(y) * 8, 8), load(t, ramp(Expr(y) * 8, 8))));
  LoweredFunc f{"copy", {a, out}, Allocate::make(t, Seq::make({copy_in, copy_out})), {}};
  std::string ir = emit_llvm_ir_unoptimized({f}, CpuTargetOptions{});
  // T's accesses are 32-byte aligned (xo*8 floats from a 64-byte aligned base); A's and Out's only
  // have the caller's element alignment.
  int aligned = 0, unaligned = 0;
  std::istringstream lines(ir);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("<8 x float>") == std::string::npos) continue;
    aligned += line.find(", align 32") != std::string::npos;
    unaligned += line.find(", align 4,") != std::string::npos;
  }
  CHECK(aligned == 2);
  CHECK(unaligned == 2);
}

TEST_CASE("C header") {
  LoweredFunc mm = matmul(64, 16, 32, true);
  LoweredFunc ints = floor_div_mod(Int(8), 16, 1, "divmod");
  Buffer h = input("H", Float(16), 4), flags = output("flags", Bool(), 4);
  Var i = Variable::make("i");
  LoweredFunc half{"half_op", {h, flags}, loop(i, 0, 4, store(flags, i, load(h, i) > make_float(0.0, Float(16)))), {{2, 2}, {4}}};
  Buffer bh = input("BH", BFloat16(), 4), bsum = output("bsum", BFloat16(), 4);
  Var i2 = Variable::make("i");
  LoweredFunc bf{"bf16_op", {bh, bsum}, loop(i2, 0, 4, store(bsum, i2, load(bh, i2) + load(bh, i2))), {{4}, {4}}};
  std::string header = emit_c_header({mm, ints, half, bf});
  CHECK(header.find("#pragma once") != std::string::npos);
  CHECK(header.find("#include <stdint.h>") != std::string::npos);
  CHECK(header.find("extern \"C\" {") != std::string::npos);
  CHECK(header.find("void matmul(const float* A, const float* B, float* C);") != std::string::npos);
  CHECK(header.find("//   A: f32[64, 32] (input)") != std::string::npos);
  CHECK(header.find("//   B: f32[32, 16] (input)") != std::string::npos);
  CHECK(header.find("//   C: f32[64, 16] (output)") != std::string::npos);
  CHECK(header.find("void divmod(const int8_t* A, const int8_t* B, int8_t* Q, int8_t* R,") != std::string::npos);
  CHECK(header.find("void half_op(const uint16_t* H, bool* flags);") != std::string::npos);
  CHECK(header.find("//   H: f16[2, 2] (input)") != std::string::npos);
  CHECK(header.find("f16 elements are IEEE binary16") != std::string::npos);
  CHECK(header.find("void bf16_op(const uint16_t* BH, uint16_t* bsum);") != std::string::npos);
  CHECK(header.find("//   BH: bf16[4] (input)") != std::string::npos);
  CHECK(header.find("bf16 elements are bfloat16 values (an f32's upper 16 bits) passed as their uint16_t bits") !=
        std::string::npos);

  // The header compiles as C and as C++.
  std::string path = temp_path("ops.h");
  std::string source = temp_path("use_ops.c");
  std::ofstream(path) << header;
  std::ofstream(source) << "#include \"" << path << "\"\nvoid (*use)(const float*, const float*, float*) = matmul;\n";
  for (const char* compiler : {"cc -x c", "c++ -x c++"}) {
    std::string command = std::string(compiler) + " -fsyntax-only -Wall -Werror " + source;
    CHECK(std::system(command.c_str()) == 0);
  }
  std::remove(path.c_str());
  std::remove(source.c_str());
}

TEST_CASE("a vectorized loop the lowering left scalar is a serial loop with a vectorization hint") {
  // vectorized i in 0..32 { Out[i] = A[i] * 2 } (no vector nodes): LLVM is asked to vectorize it.
  Buffer a = input("A", Float(32), 32), out = output("Out", Float(32), 32);
  Var i = Variable::make("i");
  LoweredFunc f{"hinted", {a, out}, loop(i, 0, 32, store(out, i, load(a, i) * make_float(2.0)), ForKind::Vectorized), {}};
  std::string ir = emit_llvm_ir_unoptimized({f}, CpuTargetOptions{});
  CHECK(ir.find("!\"llvm.loop.vectorize.enable\", i1 true") != std::string::npos);
  CHECK(emit_llvm_ir({f}, CpuTargetOptions{"x86", "haswell", "", 3}).find("<8 x float>") != std::string::npos);
}
