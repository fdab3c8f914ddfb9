#include "backends/vdla/Codegen.h"

#include "backends/vdla/Simulator.h"
#include "backends/vdla/lowering/ExpandVirtualThreads.h"
#include "backends/vdla/lowering/FoldUopLoops.h"
#include "backends/vdla/lowering/InjectDmaCopies.h"
#include "backends/vdla/lowering/InsertDependencyTokens.h"
#include "backends/vdla/lowering/WalkLoops.h"
#include "ir/Diagnostics.h"
#include "ir/IRVisitor.h"

namespace texc::vdla {

namespace {

// The program of a placed stream: each instruction and micro-op checked against its fields' widths
// (a UserError at `loc` naming the instruction), then the whole stream run through the simulator's
// token model (it must balance and never deadlock; else an internal error).
VdlaProgram emit_program(VdlaProgram program, const std::vector<ThreadedInsn>& stream, const std::vector<Uop>& uops,
                         const VdlaDerived& derived, SourceLoc loc, const std::string& name) {
  for (const ThreadedInsn& ti : stream) {
    if (auto problem = check_insn_fields(ti.insn, derived))
      throw_error(DiagId::VdlaFieldOverflow, loc, problem->insn, problem->field, problem->value, problem->width,
                  problem->range + (ti.comment.empty() ? "" : "; for " + ti.comment));
    program.insns.push_back(ti.insn);
    program.comments.push_back(ti.comment + (ti.thread > 0 ? " [vthread " + std::to_string(ti.thread) + "]" : ""));
  }
  program.uops = uops;
  program.dram_bytes = program.uop_dram_offset + uops.size() * uint64_t(derived.uop_elem_bytes);
  for (const Uop& u : uops)
    if (auto problem = check_uop_fields(u, derived))
      throw_error(DiagId::VdlaFieldOverflow, loc, problem->insn, problem->field, problem->value, problem->width,
                  problem->range);
  std::vector<uint8_t> dram = make_dram_image(program);
  SimOptions options;
  options.execute_datapath = false;
  SimResult check = simulate(program, dram, options);
  TEXC_CHECK(check.ok()) << "the VDLA stream of " << name << " is not valid: " << check.error.message;
  return program;
}

}  // namespace

VdlaProgram generate_program(const LoweredFunc& func, const VdlaConfig& config, SourceLoc loc) {
  // VDLA has no floating point anywhere (int8 inputs and weights, int32 accumulators): say that
  // first, rather than what a float stage's stores or loops would have needed.
  for (const Buffer& b : func.args)
    if (b->dtype.is_float())
      throw_error(DiagId::VdlaCannotMap, loc, func.name,
                  "its tensor '" + b->name + "' is " + b->dtype.str() +
                      ", and VDLA computes in integers only (int8 inputs and weights, int32 accumulators, "
                      "int8 outputs; docs/vdla.md): write the op in i8/i32, or run it on another target");
  // Nor a math function (exp, round, abs, ...): its ALU has +, *, >>, min and max of integers.
  std::string math_call;
  for_each_expr(func.body, [&](const Expr& e) {
    if (auto* c = e->as<Call>(); c && c->call_kind == CallKind::Math && math_call.empty()) math_call = c->name;
  });
  if (!math_call.empty())
    throw_error(DiagId::VdlaCannotMap, loc, func.name,
                "it calls the math function '" + math_call +
                    "', and VDLA's ALU computes only +, *, >>, min and max of integers (docs/vdla.md): "
                    "leave it out, or run the op on another target");
  // The VDLA pipeline. Epilogues in chunks need a few more micro-op kernels; an op whose kernels
  // then overflow the UOP buffer is lowered again with whole-tile epilogues (and reported if even
  // those do not fit).
  const VdlaDerived derived = derive(config);
  // 1. loop AST -> loop AST: each vthread loop sunk to the runs of one engine's leaves under it
  //    (lowering/ExpandVirtualThreads.h).
  const LoweredFunc expanded = expand_virtual_threads(func, loc);
  for (bool chunk_store_out : {true, false}) {
    // 2. loop AST -> stream: on-chip buffers placed, each leaf run with concrete loop values, once
    //    per virtual thread in a row (lowering/WalkLoops.h), its GEMM/ALU intrinsics and copies
    //    recognised (lowering/InjectIntrinsics.h).
    auto [layout, stream] = walk_loops(expanded, config, loc, chunk_store_out);
    // 3. copies -> 2-D LOAD/STORE DMAs (lowering/InjectDmaCopies.h).
    inject_dma_copies(stream, derived, loc);
    // 4. micro-op nests -> GEMM/ALU loops over a shared micro-op table (lowering/FoldUopLoops.h).
    std::vector<Uop> uops = fold_uop_loops(stream, layout.uop_dram_offset, derived);
    if (int64_t(uops.size()) > derived.uop_depth) {
      if (chunk_store_out) continue;
      throw_error(DiagId::VdlaCannotMap, loc, func.name,
                  "its micro-op kernels need " + std::to_string(uops.size()) + " micro-ops, more than the UOP buffer's " +
                      std::to_string(derived.uop_depth) + "; use smaller tiles");
    }
    // 5. dependency tokens (lowering/InsertDependencyTokens.h).
    std::vector<ThreadedInsn> placed = insert_dependency_tokens(std::move(stream), uops);
    // Emission: fields checked, the program checked by the simulator's token model.
    return emit_program(std::move(layout), placed, uops, derived, loc, func.name);
  }
  TEXC_UNREACHABLE();
}

}  // namespace texc::vdla
