// lower/graph: partition_graph on ops written with stdlib calls (which stages fuse into which
// group, the anchor and kind, the topological order) and split_graph (each kernel's inputs and
// outputs, the intermediates); each kernel's op is evaluated by the reference interpreter on the
// tensors the earlier kernels produced and compared with the whole op's reference. On the GPU
// targets: the flatten and absorption rules, with_anchor_schedules, and the host entry read back
// by kernel_calls (ir/KernelCalls.h). A kernel's heap scratch as arguments (ScratchParameters.h),
// placed in the workspace with the intermediates and passed by the entry.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <map>

#include "backends/interp/ReferenceInterpreter.h"
#include "backends/interp/RunOp.h"
#include "frontend/Frontend.h"
#include "ir/CallerWorkspace.h"
#include "ir/IRParser.h"
#include "ir/IRPrinter.h"
#include "ir/KernelScratch.h"
#include "ir/StructuralEqual.h"
#include "ir/KernelCalls.h"
#include "lower/graph/GraphEntry.h"
#include "lower/graph/GraphOps.h"
#include "lower/graph/PartitionGraph.h"
#include "lower/graph/PlanWorkspace.h"
#include "lower/graph/ScratchParameters.h"

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

std::string names(const std::vector<Buffer>& bs) {
  std::string s;
  for (const Buffer& b : bs) s += (s.empty() ? "" : " ") + b->name;
  return s;
}

const char* kBlock = R"(
import nn.conv2d
op block(X: f32[1, 4, 6, 6], W1: f32[4, 4, 3, 3], S1: f32[4], W2: f32[4, 4, 3, 3]) -> Y {
  compute {
    C1 = conv2d_direct(X, W1, pad = 1)
    A1[n, c, y, x] = max(C1[n, c, y, x] * S1[c], 0.0)
    C2 = conv2d_direct(A1, W2, pad = 1)
    Y[n, c, y, x] = max(C2[n, c, y, x] + X[n, c, y, x], 0.0)
  }
}
)";

}  // namespace

TEST_CASE("a residual block: each conv absorbs its epilogue, the residual add joins the second conv") {
  OpDef op = compile_op(kBlock);
  GraphPartition p = partition_graph(op, "x86");
  CHECK(p.single_reason.empty());
  REQUIRE(p.groups.size() == 2);
  CHECK(p.groups[0].kind == GroupKind::ComplexOut);
  CHECK(p.groups[1].kind == GroupKind::ComplexOut);
  CHECK(p.groups[0].anchor == "C1");
  CHECK(p.groups[0].anchor_call == "conv2d_direct");
  CHECK(p.groups[0].stages.back() == "A1");
  CHECK(p.groups[1].stages.back() == "Y");
  GraphOps g = split_graph(op, p);
  REQUIRE(g.kernels.size() == 2);
  CHECK(g.kernels[0].op.name == "block_k0");
  CHECK(names(g.kernels[0].op.inputs) == "X W1 S1");
  CHECK(names(g.kernels[0].op.outputs) == "A1");
  CHECK(names(g.kernels[1].op.inputs) == "X W2 A1");
  CHECK(names(g.kernels[1].op.outputs) == "Y");
  REQUIRE(g.intermediates.size() == 1);
  CHECK(g.intermediates[0].buffer->name == "A1");
  CHECK(g.intermediates[0].producer == 0);
  CHECK(g.intermediates[0].last_reader == 1);
  CHECK(g.kernels[1].op.elided_stages.count("C1"));

  // The kernels in order compute what the op computes (the reference interpreter on both).
  std::map<std::string, Tensor> tensors;
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    tensors.emplace(op.inputs[i]->name, Tensor(op.inputs[i]->dtype, buffer_shape(op.inputs[i])));
    tensors.at(op.inputs[i]->name).fill_random(input_seed(1, i));
  }
  for (const GraphKernel& k : g.kernels) {
    std::vector<const Tensor*> in;
    for (const Buffer& b : k.op.inputs) in.push_back(&tensors.at(b->name));
    ReferenceInterpreter ref(k.op, in);
    for (const Buffer& b : k.op.outputs) tensors.emplace(b->name, ref.evaluate_all(b->name));
  }
  std::vector<const Tensor*> in;
  for (const Buffer& b : op.inputs) in.push_back(&tensors.at(b->name));
  ReferenceInterpreter whole(op, in);
  Tensor expected = whole.evaluate_all("Y");
  const Tensor& got = tensors.at("Y");
  REQUIRE(got.num_elements() == expected.num_elements());
  for (int64_t i = 0; i < got.num_elements(); ++i) CHECK(got.get_double(i) == doctest::Approx(expected.get_double(i)));
}

TEST_CASE("without graph fusion each call and each own stage is a kernel of its own") {
  OpDef op = compile_op(kBlock);
  GraphPartition p = partition_graph(op, "x86", GraphFusion::None);
  CHECK(p.single_reason.empty());
  CHECK(p.remarks.empty());
  REQUIRE(p.groups.size() == 4);  // conv, its scale + ReLU, conv, the residual add + ReLU
  CHECK(p.groups[0].anchor == "C1");
  CHECK(p.groups[1].kind == GroupKind::Injective);
  CHECK(stages_of(p.groups[1]) == "A1");
  CHECK(p.groups[2].anchor == "C2");
  CHECK(stages_of(p.groups[3]) == "Y");
  GraphOps g = split_graph(op, p);
  REQUIRE(g.kernels.size() == 4);
  CHECK(names(g.kernels[1].op.inputs) == "S1 C1");
  CHECK(names(g.kernels[3].op.inputs) == "X C2");
  // An op of its own stages stays one kernel without fusion too.
  OpDef own = compile_op(R"(
op own(X: f32[4, 4]) -> Y {
  compute {
    A[i, j] = X[i, j] * 2.0
    Y[i] = sum(A[i, k] for k in 0..4)
  }
}
)");
  CHECK(partition_graph(own, "x86", GraphFusion::None).groups.size() == 1);
}

/// A small CNN: conv, ReLU, max pool, flatten, dense, softmax.
const char* const kSmallCnn = R"(
import nn.conv2d
import nn.pool
import nn.dense
import nn.softmax
op net(X: f32[1, 2, 4, 4], W1: f32[4, 2, 3, 3], W3: f32[3, 16]) -> Y {
  compute {
    C1 = conv2d_direct(X, W1, pad = 1)
    A1[n, c, y, x] = max(C1[n, c, y, x], 0.0)
    P1 = max_pool2d(A1, kernel = 2, stride = 2)
    F[n, k: 16] = P1[n, k / 4, (k / 2) % 2, k % 2]
    D = dense(F, W3)
    Y = softmax(D)
  }
}
)";

TEST_CASE("a small CNN: pooling, flatten, dense and softmax each find their group") {
  OpDef op = compile_op(kSmallCnn);
  GraphPartition p = partition_graph(op, "x86");
  REQUIRE(p.groups.size() == 4);
  CHECK(p.groups[0].kind == GroupKind::ComplexOut);
  CHECK(p.groups[1].kind == GroupKind::Reduction);  // the pool, with the flatten after it
  CHECK(p.groups[1].stages.back() == "F");
  CHECK(p.groups[2].kind == GroupKind::ComplexOut);  // dense
  CHECK(p.groups[2].anchor_call == "dense");
  CHECK(p.groups[3].kind == GroupKind::Reduction);  // softmax
  CHECK(p.groups[3].anchor_call == "softmax");

  // The workspace: A1 (k0 -> k1), P1 (k1 -> k2), F (k2 -> k3... ): lives that meet never overlap.
  GraphOps g = split_graph(op, p);
  WorkspacePlan plan = plan_workspace(g);
  REQUIRE(plan.offsets.size() == g.intermediates.size());
  CHECK(plan.bytes >= plan.lower_bound);
  CHECK(plan.bytes <= plan.unshared);
  CHECK(plan.bytes < plan.unshared);  // A1 is dead when F is written: they share bytes
  for (size_t a = 0; a < g.intermediates.size(); ++a) {
    CHECK(plan.offsets[a] % 64 == 0);
    CHECK(plan.offsets[a] + buffer_bytes(g.intermediates[a].buffer) <= plan.bytes);
    for (size_t b = a + 1; b < g.intermediates.size(); ++b) {
      const GraphIntermediate& x = g.intermediates[a];
      const GraphIntermediate& y = g.intermediates[b];
      bool meet = x.producer <= y.last_reader && y.producer <= x.last_reader;
      bool overlap = plan.offsets[a] < plan.offsets[b] + buffer_bytes(y.buffer) &&
                     plan.offsets[b] < plan.offsets[a] + buffer_bytes(x.buffer);
      CHECK(!(meet && overlap));
    }
  }
}

TEST_CASE("on a GPU target a flatten is a kernel of its own, and an anchor absorbs no producer") {
  OpDef op = compile_op(kSmallCnn);
  for (const char* target : {"cuda", "cuda-interp"}) {
    GraphPartition p = partition_graph(op, target);
    REQUIRE(p.groups.size() == 5);
    CHECK(p.groups[0].kind == GroupKind::ComplexOut);
    CHECK(p.groups[0].stages.back() == "A1");  // the pointwise epilogue still joins the conv
    CHECK(p.groups[1].kind == GroupKind::Reduction);
    CHECK(p.groups[1].stages.back() == "P1");
    CHECK(p.groups[2].kind == GroupKind::Injective);  // the flatten reads P1 at other points
    CHECK(stages_of(p.groups[2]) == "F");
    CHECK(p.groups[3].anchor_call == "dense");        // which dense does not absorb
    CHECK(p.groups[4].anchor_call == "softmax");
    REQUIRE(p.remarks.size() == 1);
    CHECK(p.remarks[0].message.find("on a GPU target") != std::string::npos);
  }
  // The dense kernel keeps the blocks of its own call only (split_graph already keeps a kernel's
  // own calls' blocks; with_anchor_schedules keeps the anchor's), and caches F as its input.
  GraphOps g = split_graph(op, partition_graph(op, "cuda"));
  OpDef dense = with_anchor_schedules(g.kernels[3]);
  CHECK(dense.schedules.size() <= g.kernels[3].op.schedules.size());
  CHECK(!dense.schedules.empty());
  for (const ScheduleBlock& b : dense.schedules)
    CHECK((b.origin.empty() || std::find(b.call_stages.begin(), b.call_stages.end(), g.kernels[3].group.anchor) !=
                                   b.call_stages.end()));
  CHECK(g.kernels[3].op.elided_stages.count("F"));
  CHECK(!dense.elided_stages.count("F"));
}

/// The host entry of kBlock's two kernels (only their names matter to it).
static LoweredFunc block_entry(const OpDef& op, const GraphOps& g) {
  std::vector<LoweredFunc> kernels(g.kernels.size());
  for (size_t k = 0; k < kernels.size(); ++k) kernels[k].name = g.kernels[k].op.name;
  return make_graph_entry(op, g, kernels);
}

TEST_CASE("a graph's host entry read back as its kernel calls (ir/KernelCalls.h)") {
  OpDef op = compile_op(kBlock);
  GraphOps g = split_graph(op, partition_graph(op, "cuda"));
  REQUIRE(g.kernels.size() == 2);
  LoweredFunc entry = block_entry(op, g);
  std::optional<KernelCalls> calls = kernel_calls(entry);
  REQUIRE(calls);
  CHECK(calls->workspace_bytes == entry.workspace_bytes);
  CHECK(calls->workspace_bytes == plan_workspace(g).bytes);
  REQUIRE(calls->calls.size() == 2);
  // block_k0(X, W1, S1, A1): three entry arguments, then A1 in the workspace; block_k1(X, W2, A1, Y).
  CHECK(calls->calls[0].kernel == "block_k0");
  REQUIRE(calls->calls[0].args.size() == 4);
  CHECK(calls->calls[0].args[0].arg == 0);
  CHECK(calls->calls[0].args[1].arg == 1);
  CHECK(calls->calls[0].args[2].arg == 2);
  CHECK(calls->calls[0].args[3].arg == -1);
  CHECK(calls->calls[1].kernel == "block_k1");
  REQUIRE(calls->calls[1].args.size() == 4);
  CHECK(calls->calls[1].args[0].arg == 0);
  CHECK(calls->calls[1].args[1].arg == 3);
  CHECK(calls->calls[1].args[2].arg == -1);
  CHECK(calls->calls[1].args[2].workspace_offset == calls->calls[0].args[3].workspace_offset);
  CHECK(calls->calls[1].args[3].arg == 4);  // Y
  // A function of loops, and a device function, are not entries.
  LoweredFunc device = entry;
  device.kind = FunctionKind::Device;
  CHECK(!kernel_calls(device));
  LoweredFunc loops = entry;
  loops.body = Evaluate::make(make_int(0));
  CHECK(!kernel_calls(loops));
}

TEST_CASE("a graph's host entry with the caller's workspace (ir/CallerWorkspace.h)") {
  OpDef op = compile_op(kBlock);
  GraphOps g = split_graph(op, partition_graph(op, "cuda"));
  REQUIRE(g.kernels.size() == 2);
  LoweredFunc entry = block_entry(op, g);
  REQUIRE(entry.workspace_bytes > 0);
  std::optional<LoweredFunc> with = caller_workspace_entry(entry);
  REQUIRE(with);
  CHECK(with->name == "block_with_workspace");
  REQUIRE(with->args.size() == entry.args.size() + 1);
  const Buffer& workspace = with->args.back();
  CHECK(workspace->name == "workspace");
  CHECK(workspace->role == BufferRole::Output);  // the kernels write it
  CHECK(workspace->dtype == UInt(8));
  CHECK(is_const_int(workspace->shape[0], entry.workspace_bytes));
  CHECK(with->arg_dims.back() == std::vector<int64_t>{entry.workspace_bytes});
  CHECK(!with->body->as<Allocate>());  // nothing allocated
  // The same calls, the workspace's now the last argument's at the same offsets.
  std::optional<KernelCalls> calls = kernel_calls(entry);
  std::optional<KernelCalls> with_calls = kernel_calls(*with);
  REQUIRE(calls);
  REQUIRE(with_calls);
  CHECK(with_calls->workspace_bytes == 0);
  REQUIRE(with_calls->calls.size() == calls->calls.size());
  const int last = int(entry.args.size());
  for (size_t c = 0; c < calls->calls.size(); ++c) {
    CHECK(with_calls->calls[c].kernel == calls->calls[c].kernel);
    REQUIRE(with_calls->calls[c].args.size() == calls->calls[c].args.size());
    for (size_t a = 0; a < calls->calls[c].args.size(); ++a) {
      const KernelCallArg& before = calls->calls[c].args[a];
      const KernelCallArg& after = with_calls->calls[c].args[a];
      if (before.arg >= 0) {
        CHECK(after.arg == before.arg);
      } else {
        CHECK(after.arg == last);
        CHECK(before.workspace_offset == 0);  // block's one intermediate, A1, at offset 0
      }
    }
  }
  // A function without a workspace has none to take.
  LoweredFunc loops = entry;
  loops.body = Evaluate::make(make_int(0));
  CHECK(!caller_workspace_entry(loops));
  LoweredFunc none = entry;
  none.workspace_bytes = 0;
  CHECK(!caller_workspace_entry(none));
}

TEST_CASE("injective stages before a reduction fuse into it; one group stays one") {
  OpDef op = compile_op(R"(
op norm(X: f32[8, 16]) -> Y {
  compute {
    T[i, j] = X[i, j] * 2.0
    Y[i] = sum(T[i, j] * T[i, j] for j in 0..16)
  }
}
)");
  GraphPartition p = partition_graph(op, "x86");
  REQUIRE(p.groups.size() == 1);
  CHECK(p.groups[0].kind == GroupKind::Reduction);  // T * T reads one tensor: not a contraction
  CHECK(stages_of(p.groups[0]) == "T Y");
}

TEST_CASE("an injective stage that would close a cycle does not join the later group") {
  OpDef op = compile_op(R"(
import linalg.matmul
op diamond(A: f32[8, 8], B: f32[8, 8]) -> Z {
  compute {
    M = matmul(A, B)
    E[i, j] = M[i, j] + 1.0
    R[i] = max(M[i, j] for j in 0..8)
    Z[i, j] = E[i, j] - R[i]
  }
}
)");
  GraphPartition p = partition_graph(op, "x86");
  // M and E: the matmul and its epilogue; R reads M: a group of its own; Z reads E and R, joins R's
  // (joining M's group would make M's group read R's and R's read M's).
  REQUIRE(p.groups.size() == 2);
  CHECK(p.groups[0].kind == GroupKind::ComplexOut);
  CHECK(p.groups[0].stages.back() == "E");
  CHECK(stages_of(p.groups[1]) == "R Z");
}

TEST_CASE("a softmax written out after a layer call is one group; an op without layer calls is one kernel") {
  OpDef op = compile_op(R"(
import linalg.matmul
op head(A: f32[4, 8], B: f32[8, 6]) -> Y {
  compute {
    L = matmul(A, B)
    M[i] = max(L[i, j] for j in 0..6)
    E[i, j] = exp(L[i, j] - M[i])
    S[i] = sum(E[i, j] for j in 0..6)
    Y[i, j] = E[i, j] / S[i]
  }
}
)");
  GraphPartition p = partition_graph(op, "x86");
  REQUIRE(p.groups.size() == 2);
  CHECK(stages_of(p.groups[1]) == "M E S Y");
  CHECK(p.groups[1].kind == GroupKind::Reduction);

  OpDef own = compile_op(R"(
op two(A: f32[8, 8], B: f32[8, 8], C: f32[8, 8]) -> Z {
  compute {
    M[i, j] = sum(A[i, k] * B[k, j] for k in 0..8)
    Z[i, j] = sum(M[i, k] * C[k, j] for k in 0..8)
  }
}
)");
  GraphPartition q = partition_graph(own, "x86");
  REQUIRE(q.groups.size() == 1);
  CHECK(q.single_reason.find("no call of an imported op") != std::string::npos);
}

TEST_CASE("an op's own schedule relating stages of two groups keeps it one group") {
  OpDef op = compile_op(R"(
import linalg.matmul
op two(A: f32[8, 8], B: f32[8, 8], C: f32[8, 8]) -> Z {
  compute {
    M = matmul(A, B)
    Z = matmul(M, C)
  }
  schedule x86 {
    compute_at(M, Z.i)
  }
}
)");
  GraphPartition p = partition_graph(op, "x86");
  REQUIRE(p.groups.size() == 1);
  CHECK(p.single_reason.find("relates stages of two groups") != std::string::npos);
  // One remark, at the compute_at (line 9 of the text), not one per stage.
  REQUIRE(p.remarks.size() == 1);
  CHECK(p.remarks[0].loc.line == 9);
  CHECK(p.remarks[0].message.find("op 'two' stays one kernel: this compute_at relates stages 'M' and 'Z'") == 0);
  GraphPartition arm = partition_graph(op, "arm");  // no arm block: two groups
  CHECK(arm.groups.size() == 2);
  CHECK(arm.remarks.empty());
}

TEST_CASE("a shared elementwise producer that no anchor may absorb is a remark at its stage") {
  OpDef op = compile_op(R"(
import nn.conv2d
op shared_pre(X: f32[1, 4, 8, 8], W0: f32[4, 4, 3, 3], W1: f32[4, 4, 3, 3]) -> Y {
  compute {
    R[n, c, y, x] = X[n, c, y, x] * 0.5
    C0 = conv2d(X, W0, pad = 1)
    Z[n, c, y, x] = C0[n, c, y, x] + R[n, c, y, x]
    C1 = conv2d(R, W1, pad = 1)
    Y[n, c, y, x] = Z[n, c, y, x] + C1[n, c, y, x]
  }
}
)");
  GraphPartition p = partition_graph(op, "x86");
  REQUIRE(p.groups.size() == 3);
  CHECK(p.groups[0].stages == std::vector<std::string>{"R"});
  REQUIRE(p.remarks.size() == 1);
  CHECK(p.remarks[0].loc.line == 5);
  CHECK(p.remarks[0].message ==
        "elementwise stage 'R' is not fused into the kernel of 'C1' (conv2d), which reads it: stage 'Z' of another "
        "kernel reads it too; it is a kernel without an anchor (shared_pre_k0)");
  // Without the second reader Z, the second conv absorbs R: no remark.
  OpDef alone = compile_op(R"(
import nn.conv2d
op alone(X: f32[1, 4, 8, 8], W1: f32[4, 4, 3, 3]) -> Y {
  compute {
    R[n, c, y, x] = X[n, c, y, x] * 0.5
    C1 = conv2d(R, W1, pad = 1)
    Y = conv2d(C1, W1, pad = 1)
  }
}
)");
  GraphPartition q = partition_graph(alone, "x86");
  CHECK(q.groups.size() == 2);
  CHECK(q.remarks.empty());
}

TEST_CASE("an op written by hand is one kernel and has no partition remarks") {
  OpDef op = compile_op(R"(
op own(A: f32[8, 8]) -> C {
  compute {
    S[i] = sum(A[i, k] * A[i, k] for k in 0..8)
    R[i, j] = A[i, j] * 2.0
    T[i] = sum(R[i, k] for k in 0..8)
    C[i, j] = R[i, j] + S[i] + T[i]
  }
}
)");
  GraphPartition p = partition_graph(op, "x86");
  CHECK(p.groups.size() == 1);
  CHECK(p.remarks.empty());
}

TEST_CASE("a kernel's heap buffers outside parallel loops become its scratch arguments (ScratchParameters.h)") {
  // Xp (80000 bytes, global: the heap) at the top, Wp (80000 bytes) inside a serial loop: both
  // taken, in order. T (128 bytes: the stack) and Q (80000 bytes, but one per task of the
  // parallel loop) stay.
  LoweredFunc before = parse_func(R"(func k(X: f32[100] input, Y: f32[100] output) {
  allocate Xp: f32[20000] global {
    allocate T: f32[32] global {
      for i in 0..100 {
        Xp[i] = X[i]
        T[0] = X[i]
      }
      for r in 0..2 {
        allocate Wp: f32[20000] global {
          for i in 0..100 {
            Wp[i] = Xp[i] + T[0]
          }
          parallel p in 0..4 {
            allocate Q: f32[20000] global {
              Q[p] = Wp[p]
              Y[p] = Q[p]
            }
          }
        }
      }
    }
  }
}
)", "before.txt");
  LoweredFunc expected = parse_func(R"(func k(X: f32[100] input, Y: f32[100] output, Xp: f32[20000] temp, Wp: f32[20000] temp) {
  allocate T: f32[32] global {
    for i in 0..100 {
      Xp[i] = X[i]
      T[0] = X[i]
    }
    for r in 0..2 {
      for i in 0..100 {
        Wp[i] = Xp[i] + T[0]
      }
      parallel p in 0..4 {
        allocate Q: f32[20000] global {
          Q[p] = Wp[p]
          Y[p] = Q[p]
        }
      }
    }
  }
}
)", "expected.txt");
  LoweredFunc after = scratch_as_parameters(before);
  CHECK_MESSAGE(structurally_equal(after, expected), to_string(after));
  REQUIRE(after.args.size() == 4);
  CHECK(is_scratch_arg(after.args[2]));
  CHECK(is_scratch_arg(after.args[3]));
  CHECK(!is_scratch_arg(after.args[1]));
  CHECK(after.arg_dims[2] == std::vector<int64_t>{20000});
  // One region: Xp at 0, Wp at the next multiple of 64 after 80000 bytes.
  CHECK(kernel_scratch_offsets(after) == std::vector<int64_t>{-1, -1, 0, 80000});
  CHECK(kernel_scratch_bytes(after) == 160000);
  // The limits are the code generator's: 64 KB global (65536 bytes stay on the stack), 1 MB local.
  CHECK(!cpu_allocates_on_heap(BufferNode::make("a", Float(32), {make_int(16384)}, MemScope::Global)));
  CHECK(cpu_allocates_on_heap(BufferNode::make("b", Float(32), {make_int(16385)}, MemScope::Global)));
  CHECK(!cpu_allocates_on_heap(BufferNode::make("c", Float(32), {make_int(16385)}, MemScope::Local)));
  // A kernel without such a buffer is returned as it was.
  LoweredFunc small = parse_func(R"(func s(X: f32[4] input, Y: f32[4] output) {
  allocate T: f32[4] global {
    for i in 0..4 {
      T[i] = X[i]
      Y[i] = T[i]
    }
  }
}
)", "small.txt");
  LoweredFunc same = scratch_as_parameters(small);
  CHECK(same.body == small.body);
  CHECK(same.args.size() == small.args.size());
}

TEST_CASE("the kernels' scratch in the workspace: alive during its kernel only (PlanWorkspace.h)") {
  OpDef op = compile_op(kBlock);
  GraphOps g = split_graph(op, partition_graph(op, "x86"));
  REQUIRE(g.kernels.size() == 2);
  REQUIRE(g.intermediates.size() == 1);  // A1, k0 -> k1
  const int64_t a1 = buffer_bytes(g.intermediates[0].buffer);  // 576 bytes
  // Scratch of 1000 bytes in k0 and 5000 in k1: A1 is alive in both, so neither overlaps it; the
  // two scratch regions share bytes (their lives do not meet).
  WorkspacePlan plan = plan_workspace(g, {1000, 5000});
  REQUIRE(plan.scratch_offsets.size() == 2);
  auto overlap = [](int64_t a, int64_t an, int64_t b, int64_t bn) { return a < b + bn && b < a + an; };
  CHECK(!overlap(plan.offsets[0], a1, plan.scratch_offsets[0], 1000));
  CHECK(!overlap(plan.offsets[0], a1, plan.scratch_offsets[1], 5000));
  CHECK(overlap(plan.scratch_offsets[0], 1000, plan.scratch_offsets[1], 5000));
  CHECK(plan.scratch_offsets[0] % 64 == 0);
  CHECK(plan.scratch_offsets[1] % 64 == 0);
  CHECK(plan.lower_bound == 576 + 5000 + 56);  // A1 and k1's scratch, rounded up to 64
  CHECK(plan.bytes == plan.lower_bound);
  CHECK(plan.unshared == 576 + 1024 + 5056);
  // No scratch: the plan of the intermediates alone, as before.
  WorkspacePlan none = plan_workspace(g, {0, 0});
  CHECK(none.scratch_offsets == std::vector<int64_t>{-1, -1});
  CHECK(none.offsets == plan_workspace(g).offsets);
  CHECK(none.bytes == a1);

  // The entry passes k1's scratch argument at its region's offset in the arena.
  std::vector<LoweredFunc> kernels(2);
  for (size_t k = 0; k < 2; ++k) kernels[k].name = g.kernels[k].op.name;
  kernels[1].args.push_back(BufferNode::make("Xp", Float(32), {make_int(1250)}, MemScope::Global, BufferRole::Intermediate));
  LoweredFunc entry = make_graph_entry(op, g, kernels);
  std::optional<KernelCalls> calls = kernel_calls(entry);
  REQUIRE(calls);
  CHECK(calls->workspace_bytes == plan_workspace(g, {0, 5056}).bytes);
  REQUIRE(calls->calls[1].args.size() == 5);  // X, W2, A1, Y, then Xp
  CHECK(calls->calls[1].args[4].arg == -1);
  CHECK(calls->calls[1].args[4].workspace_offset == plan_workspace(g, {0, 5056}).scratch_offsets[1]);
  CHECK(calls->calls[0].args.size() == 4);  // k0 has none
}
