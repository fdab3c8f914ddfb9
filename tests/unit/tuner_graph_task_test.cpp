// tuner/GraphTask.h: the tuning tasks of a graph (the same layer in two networks is one task, the
// same op with other attributes and equal shapes is another, kernels of one task are tuned once)
// and split_graph's knobs per kernel (a kernel's space holds its own layers' knobs only).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <set>

#include "frontend/Frontend.h"
#include "lower/graph/GraphOps.h"
#include "lower/graph/PartitionGraph.h"
#include "tuner/GraphTask.h"
#include "tuner/Space.h"

using namespace texc;

namespace {

OpDef compile_op(const std::string& text) {
  FrontendOptions o;
  o.stdlib_dir = TEXC_TEST_STDLIB_DIR;
  Program p = compile_source("test.tex", text, o);
  REQUIRE(p.ops.size() == 1);
  return p.ops[0];
}

GraphOps graph_of(const std::string& text) {
  OpDef op = compile_op(text);
  return split_graph(op, partition_graph(op, "x86"));
}

std::set<std::string> knob_names(const OpDef& op) {
  std::set<std::string> names;
  Space space(op, "x86");
  for (const SchedKnob& k : space.knobs()) names.insert(k.name);
  return names;
}

/// The key up to its digest.
std::string head(const std::string& key) { return key.substr(0, key.find(" #")); }

}  // namespace

TEST_CASE("the same layer in two networks is one task, whatever its tensors and epilogue") {
  GraphOps a = graph_of(R"(
import nn.conv2d
op a(X: f32[1, 4, 6, 6], W1: f32[4, 4, 3, 3], S1: f32[4], W2: f32[4, 4, 3, 3]) -> Y {
  compute {
    C1 = conv2d_direct(X, W1, pad = 1)
    A1[n, c, y, x] = max(C1[n, c, y, x] * S1[c], 0.0)
    C2 = conv2d_direct(A1, W2, pad = 1)
    Y[n, c, y, x] = max(C2[n, c, y, x] + X[n, c, y, x], 0.0)
  }
}
)");
  GraphOps b = graph_of(R"(
import nn.conv2d
op b(Image: f32[1, 4, 6, 6], K: f32[4, 4, 3, 3]) -> Out {
  compute {
    Conv = conv2d_direct(Image, K, pad = 1)
    Out[n, c, y, x] = max(Conv[n, c, y, x], 0.0)
  }
}
)");
  REQUIRE(a.kernels.size() == 2);
  REQUIRE(b.kernels.size() == 1);
  std::string key = graph_task_key(a.kernels[0]);
  CHECK(head(key) == "conv2d_direct(f32[1, 4, 6, 6], f32[4, 4, 3, 3]) -> f32[1, 4, 6, 6]");
  CHECK(key.size() == head(key).size() + 10);  // " #" and 8 hex digits
  CHECK(graph_task_key(a.kernels[1]) == key);  // the second conv (residual add fused) too
  CHECK(graph_task_key(b.kernels[0]) == key);  // another network, other names, no scale
  std::vector<GraphTask> tasks = graph_tasks(a);
  REQUIRE(tasks.size() == 1);
  CHECK(tasks[0].kernels == std::vector<size_t>{0, 1});
  CHECK(tasks[0].flops >= 2 * (4 * 6 * 6) * (4 * 3 * 3));  // a multiply and an add per term
}

TEST_CASE("the same op with other attributes is another task, also where the shapes agree") {
  // 8 + 2*1 - 3 = 7, / 2 -> 4 outputs; 8 + 2*2 - 3 = 9, / 3 -> 4 outputs: the same shapes.
  GraphOps g = graph_of(R"(
import nn.conv2d
op strides(X: f32[1, 2, 8, 8], W1: f32[2, 2, 3, 3], W2: f32[2, 2, 3, 3]) -> Y1, Y2 {
  compute {
    C1 = conv2d_direct(X, W1, pad = 1, stride = 2)
    Y1[n, c, y, x] = max(C1[n, c, y, x], 0.0)
    C2 = conv2d_direct(X, W2, pad = 2, stride = 3)
    Y2[n, c, y, x] = max(C2[n, c, y, x], 0.0)
  }
}
)");
  REQUIRE(g.kernels.size() == 2);
  std::string k1 = graph_task_key(g.kernels[0]), k2 = graph_task_key(g.kernels[1]);
  CHECK(head(k1) == head(k2));
  CHECK(k1 != k2);
  CHECK(graph_tasks(g).size() == 2);
}

TEST_CASE("a kernel's knobs are those of its own layers") {
  GraphOps g = graph_of(R"(
import nn.conv2d
import nn.pool
op net(X: f32[1, 4, 8, 8], W: f32[4, 4, 3, 3]) -> P {
  compute {
    C = conv2d_direct(X, W, pad = 1)
    A[n, c, y, x] = max(C[n, c, y, x], 0.0)
    P = max_pool2d(A, kernel = 2, stride = 2)
  }
}
)");
  REQUIRE(g.kernels.size() == 2);
  std::set<std::string> conv = knob_names(g.kernels[0].op), pool = knob_names(g.kernels[1].op);
  CHECK(conv.count("CV_FB"));
  CHECK(!conv.count("MP_XB"));
  CHECK(pool.count("MP_XB"));
  CHECK(!pool.count("CV_FB"));
  CHECK(head(graph_task_key(g.kernels[1])) == "max_pool2d(f32[1, 4, 8, 8]) -> f32[1, 4, 4, 4]");
}
