// Unit test of flatten_storage (lower/passes/FlattenStorage.h): besides flattening the buffers, it
// keeps what the function says of where it runs (host or device, launch attributes).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "ir/Function.h"
#include "ir/IROperators.h"
#include "lower/passes/FlattenStorage.h"

using namespace texc;

TEST_CASE("flatten_storage keeps the function's kind and launch attributes") {
  Buffer a = BufferNode::make("A", Float(32), {make_int(2), make_int(3)}, MemScope::Global, BufferRole::Output);
  Var i = Variable::make("i"), j = Variable::make("j");
  Stmt body = For::make(i, make_int(0), make_int(2), ForKind::Serial,
                        For::make(j, make_int(0), make_int(3), ForKind::Serial, Store::make(a, {i, j}, make_float(0.0))));
  LoweredFunc f{"zero", {a}, body, {}};
  f.kind = FunctionKind::Device;
  f.launch.thread_extents.push_back({"blockIdx.x", make_int(2)});
  f.launch.dynamic_shared_bytes = 256;

  LoweredFunc flat = flatten_storage(f);
  CHECK(flat.args[0]->shape.size() == 1);
  CHECK(flat.arg_dims == std::vector<std::vector<int64_t>>{{2, 3}});
  CHECK(flat.kind == FunctionKind::Device);
  REQUIRE(flat.launch.thread_extents.size() == 1);
  CHECK(flat.launch.thread_extents[0].tag == "blockIdx.x");
  CHECK(is_const_int(flat.launch.thread_extents[0].extent, 2));
  CHECK(flat.launch.dynamic_shared_bytes == 256);
  CHECK(flatten_storage(LoweredFunc{"host", {a}, body, {}}).kind == FunctionKind::Host);
}
