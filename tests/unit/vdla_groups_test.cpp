// lower/graph/VdlaGroups.h and partition_graph's `alone` nodes: which calls VDLA runs (an int8
// contraction call with its own `schedule vdla`), and the partition of an int8 residual block on
// vdla: each conv call a group alone, nothing fused into it, the other stages grouped among
// themselves, with the remark that says why an elementwise stage left the conv's kernel.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "frontend/Frontend.h"
#include "lower/graph/GraphOps.h"
#include "lower/graph/PartitionGraph.h"
#include "lower/graph/VdlaGroups.h"

using namespace texc;

namespace {

OpDef compile_op(const std::string& text) {
  FrontendOptions o;
  o.stdlib_dir = TEXC_TEST_STDLIB_DIR;
  Program p = compile_source("test.tex", text, o);
  REQUIRE(p.ops.size() == 1);
  return p.ops[0];
}

std::string stages_of(const FusedGroup& g) {
  std::string s;
  for (const std::string& n : g.stages) s += (s.empty() ? "" : " ") + n;
  return s;
}

/// The node of the stages of call `call_site` (or of the own stage named so).
std::vector<const Stage*> node_of(const OpDef& op, const std::string& call_site) {
  std::vector<const Stage*> node;
  for (const Stage& s : op.stages)
    if (s.call_site == call_site || (s.call_site.empty() && s.name == call_site)) node.push_back(&s);
  return node;
}

const char* kResBlock = R"(
import nn.int8
op block(X: i8[1, 32, 6, 6], W1: i8[2, 2, 3, 3, 16, 16], W2: i8[2, 2, 3, 3, 16, 16]) -> Y {
  compute {
    Xb = nchw_to_nchwc_int8(X, block = 16)
    C1 = conv2d_int8(Xb, W1, shift = 7, pad = 1)
    A1[n, cb, y, x, ci] = max(C1[n, cb, y, x, ci], i8(0))
    C2 = conv2d_int8(A1, W2, shift = 7, pad = 1)
    R[n, cb, y, x, ci] = i8(min(max(i32(C2[n, cb, y, x, ci]) + i32(Xb[n, cb, y, x, ci]), 0), 127))
    Y = nchwc_to_nchw_int8(R)
  }
}
)";

}  // namespace

TEST_CASE("VDLA runs the int8 conv calls with their schedule vdla, not the transforms or own stages") {
  OpDef op = compile_op(kResBlock);
  CHECK(runs_on_vdla(op, node_of(op, "C1")));
  CHECK(runs_on_vdla(op, node_of(op, "C2")));
  CHECK_FALSE(runs_on_vdla(op, node_of(op, "Xb")));  // a layout transform: no contraction, no schedule vdla
  CHECK_FALSE(runs_on_vdla(op, node_of(op, "Y")));
  CHECK_FALSE(runs_on_vdla(op, node_of(op, "A1")));  // an own stage
  CHECK_FALSE(runs_on_vdla(op, node_of(op, "R")));
}

TEST_CASE("a float conv call and an int8 contraction written by hand do not run on VDLA") {
  OpDef conv = compile_op(R"(
import nn.conv2d
op f(X: f32[1, 4, 6, 6], W: f32[4, 4, 3, 3]) -> Y {
  compute {
    C = conv2d_direct(X, W, pad = 1)
    Y[n, c, y, x] = max(C[n, c, y, x], 0.0)
  }
}
)");
  CHECK_FALSE(runs_on_vdla(conv, node_of(conv, "C")));
  OpDef own = compile_op(R"(
op g(A: i8[4, 16], B: i8[16, 16]) -> Y {
  compute {
    Acc[m, n] = sum(i32(A[m, k]) * i32(B[n, k]) for k in 0..16)
    Y[m, n] = i8(min(max(Acc[m, n] >> 4, -128), 127))
  }
}
)");
  CHECK_FALSE(runs_on_vdla(own, node_of(own, "Acc")));
}

TEST_CASE("on vdla each conv call is a group alone and the other stages group among themselves") {
  OpDef op = compile_op(kResBlock);
  GraphPartition p = partition_graph(op, "vdla", GraphFusion::ByKind, runs_on_vdla);
  CHECK(p.single_reason.empty());
  REQUIRE(p.groups.size() == 5);
  CHECK(stages_of(p.groups[0]) == "Xb");
  CHECK(stages_of(p.groups[1]) == "Xp Acc C1");
  CHECK(stages_of(p.groups[2]) == "A1");
  CHECK(stages_of(p.groups[3]) == "C2_Xp C2_Acc C2");
  CHECK(stages_of(p.groups[4]) == "R Y");
  std::vector<bool> alone;
  for (const FusedGroup& g : p.groups) alone.push_back(g.alone);
  CHECK(alone == std::vector<bool>{false, true, false, true, false});
  CHECK(p.groups[1].anchor_call == "conv2d_int8");
  // Without `alone` (x86), the same op is two groups: each conv with its epilogue and transforms.
  GraphPartition cpu = partition_graph(op, "x86");
  REQUIRE(cpu.groups.size() == 2);
  CHECK_FALSE(cpu.groups[0].alone);
  // The remarks say why A1 and R are not in the convs' kernels.
  REQUIRE(p.remarks.size() == 2);
  CHECK(p.remarks[0].message.find("elementwise stage 'A1' is not fused into the kernel of 'C1' (conv2d_int8)") == 0);
  CHECK(p.remarks[0].message.find("that kernel runs on the accelerator") != std::string::npos);
  CHECK(p.remarks[1].message.find("elementwise stage 'R'") == 0);
  // The kernels: the VDLA ones read and write the blocked tensors only.
  GraphOps g = split_graph(op, p);
  REQUIRE(g.kernels.size() == 5);
  CHECK(g.kernels[1].op.inputs.size() == 2);
  CHECK(g.kernels[1].op.outputs.size() == 1);
  CHECK(g.kernels[1].op.outputs[0]->name == "C1");
  CHECK(g.intermediates.size() == 4);
}
