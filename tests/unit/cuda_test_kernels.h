// Hand-written device kernels for the cuda code generator's tests (tests/unit/cuda_kernels/*.ir,
// the printed loop form of ir/IRParser.h), made into what the cuda lowering hands the code
// generator: a Device LoweredFunc whose launch has each thread-bound loop's tag and extent.
#pragma once
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>

#include "ir/IRParser.h"
#include "ir/IRVisitor.h"

namespace texc::cuda_test {

/// `func` as a kernel: kind Device, launch extents from its thread-bound loops (min 0).
inline LoweredFunc as_kernel(LoweredFunc func) {
  func.kind = FunctionKind::Device;
  std::map<std::string, Expr> extents;
  for_each_stmt(func.body, [&](const Stmt& s) {
    if (const For* f = s->as<For>(); f && f->for_kind == ForKind::ThreadBound) extents.emplace(f->thread_tag, f->extent);
  });
  for (const auto& [tag, extent] : extents) func.launch.thread_extents.push_back({tag, extent});
  return func;
}

/// The kernel written in tests/unit/cuda_kernels/<name>.ir.
inline LoweredFunc kernel_file(const std::string& name) {
  std::string path = std::string(TEXC_CUDA_KERNELS_DIR) + "/" + name + ".ir";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  return as_kernel(parse_func(text.str(), path));
}

}  // namespace texc::cuda_test
