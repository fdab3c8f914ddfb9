#include "ir/IR.h"

#include <cmath>
#include <limits>

#include "ir/Diagnostics.h"

namespace texc {

const char* storage_rank_name(StorageRank rank) {
  switch (rank) {
    case StorageRank::Global: return "global";
    case StorageRank::Shared: return "shared";
    case StorageRank::Local: return "local";
  }
  return "?";
}

Var Variable::make(std::string name, Type t) { return std::make_shared<const Variable>(std::move(name), t); }

Buffer BufferNode::make(std::string name, Type dtype, std::vector<Expr> shape, MemScope scope, BufferRole role) {
  TEXC_CHECK(dtype.is_scalar()) << "buffer element type must be scalar";
  for (const Expr& e : shape) TEXC_CHECK(e && e->type.is_integer() && e->type.is_scalar()) << "bad shape of " << name;
  auto b = std::make_shared<BufferNode>();
  b->name = std::move(name);
  b->dtype = dtype;
  b->shape = std::move(shape);
  b->scope = scope;
  b->role = role;
  return b;
}

static int64_t wrap_to(Type t, int64_t v) {
  if (t.is_bool()) return v != 0;
  if (t.bits >= 64) return v;
  uint64_t mask = (uint64_t(1) << t.bits) - 1;
  uint64_t u = uint64_t(v) & mask;
  if (t.is_int() && (u >> (t.bits - 1)) & 1) u |= ~mask;
  return int64_t(u);
}

Expr IntImm::make(Type t, int64_t value) {
  TEXC_CHECK(t.is_integer() || t.is_bool()) << "IntImm of type " << t.str();
  TEXC_CHECK(t.is_scalar()) << "IntImm must be scalar";
  return std::make_shared<const IntImm>(t, wrap_to(t, value));
}

Expr FloatImm::make(Type t, double value) {
  TEXC_CHECK(t.is_float() && t.is_scalar()) << "FloatImm of type " << t.str();
  if (t.bits == 32) value = double(float(value));
  return std::make_shared<const FloatImm>(t, value);
}

const char* binary_op_symbol(BinaryOp op) {
  switch (op) {
#define X(name, sym) \
  case BinaryOp::name: return sym;
    TEXC_BINARY_OPS(X)
#undef X
  }
  return "?";
}

bool is_comparison(BinaryOp op) {
  return op == BinaryOp::EQ || op == BinaryOp::NE || op == BinaryOp::LT || op == BinaryOp::LE || op == BinaryOp::GT ||
         op == BinaryOp::GE;
}

Expr Binary::make(BinaryOp op, Expr a, Expr b) {
  TEXC_CHECK(a && b) << "null operand of " << binary_op_symbol(op);
  TEXC_CHECK(a->type == b->type) << "operand types differ for '" << binary_op_symbol(op) << "': " << a->type.str()
                                 << " vs " << b->type.str();
  Type t = a->type;
  if (is_comparison(op)) t = Bool(a->type.lanes);
  if (op == BinaryOp::And || op == BinaryOp::Or) {
    TEXC_CHECK(a->type.is_bool()) << "logical op on non-bool";
  }
  if (op == BinaryOp::Shl || op == BinaryOp::Shr) {
    TEXC_CHECK(a->type.is_integer()) << "shift of non-integer";
  }
  return std::make_shared<const Binary>(t, op, std::move(a), std::move(b));
}

Expr Not::make(Expr a) {
  TEXC_CHECK(a && a->type.is_bool()) << "! of non-bool";
  Type t = a->type;
  return std::make_shared<const Not>(t, std::move(a));
}

Expr Select::make(Expr cond, Expr tv, Expr fv) {
  TEXC_CHECK(cond && tv && fv) << "null select operand";
  TEXC_CHECK(cond->type.is_bool()) << "select condition is " << cond->type.str();
  TEXC_CHECK(tv->type == fv->type) << "select branches differ: " << tv->type.str() << " vs " << fv->type.str();
  Type t = tv->type;
  return std::make_shared<const Select>(t, std::move(cond), std::move(tv), std::move(fv));
}

Expr Cast::make(Type t, Expr value) {
  TEXC_CHECK(value) << "null cast operand";
  TEXC_CHECK(t.lanes == value->type.lanes) << "cast changes lanes";
  return std::make_shared<const Cast>(t, std::move(value));
}

Expr Call::make(Type t, std::string name, std::vector<Expr> args, CallKind kind) {
  for (const Expr& a : args) TEXC_CHECK(a) << "null argument of call " << name;
  return std::make_shared<const Call>(t, std::move(name), std::move(args), kind);
}

Expr Load::make(Buffer buffer, std::vector<Expr> indices) {
  TEXC_CHECK(buffer) << "load from null buffer";
  TEXC_CHECK(indices.size() == buffer->ndim())
      << "load of '" << buffer->name << "' with " << indices.size() << " indices, rank " << buffer->ndim();
  int lanes = 1;
  for (const Expr& i : indices) {
    TEXC_CHECK(i && i->type.is_integer()) << "non-integer index into " << buffer->name;
    lanes = std::max<int>(lanes, i->type.lanes);
  }
  return std::make_shared<const Load>(buffer->dtype.with_lanes(lanes), std::move(buffer), std::move(indices));
}

Expr Ramp::make(Expr base, Expr stride, int lanes) {
  TEXC_CHECK(base && stride && base->type == stride->type && base->type.is_scalar()) << "bad ramp";
  TEXC_CHECK(lanes > 1) << "ramp of " << lanes << " lanes";
  Type t = base->type.with_lanes(lanes);
  return std::make_shared<const Ramp>(t, std::move(base), std::move(stride), lanes);
}

Expr Broadcast::make(Expr value, int lanes) {
  TEXC_CHECK(value && value->type.is_scalar()) << "bad broadcast";
  TEXC_CHECK(lanes > 1) << "broadcast of " << lanes << " lanes";
  Type t = value->type.with_lanes(lanes);
  return std::make_shared<const Broadcast>(t, std::move(value), lanes);
}

Expr Let::make(Var var, Expr value, Expr body) {
  TEXC_CHECK(var && value && body) << "bad let";
  TEXC_CHECK(var->type == value->type) << "let type mismatch for " << var->name;
  Type t = body->type;
  return std::make_shared<const Let>(t, std::move(var), std::move(value), std::move(body));
}

const char* reduce_kind_name(ReduceKind k) {
  switch (k) {
    case ReduceKind::Sum: return "sum";
    case ReduceKind::Max: return "max";
    case ReduceKind::Min: return "min";
    case ReduceKind::Prod: return "prod";
  }
  return "?";
}

Expr Reduce::make(ReduceKind kind, Expr source, std::vector<IterVar> axes) {
  TEXC_CHECK(source && source->type.is_scalar()) << "bad reduce source";
  TEXC_CHECK(!axes.empty()) << "reduction without axes";
  for (auto& a : axes) TEXC_CHECK(a.var && a.min && a.extent) << "bad reduction axis";
  Type t = source->type;
  return std::make_shared<const Reduce>(t, kind, std::move(source), std::move(axes));
}

Expr Reduce::identity(ReduceKind kind, Type t) {
  switch (kind) {
    case ReduceKind::Sum:
      return t.is_float() ? make_float(0.0, t) : IntImm::make(t, 0);
    case ReduceKind::Prod:
      return t.is_float() ? make_float(1.0, t) : IntImm::make(t, 1);
    case ReduceKind::Max:
      if (t.is_float()) return make_float(-std::numeric_limits<double>::infinity(), t);
      if (t.is_uint() || t.is_bool()) return IntImm::make(t, 0);
      return IntImm::make(t, t.bits >= 64 ? std::numeric_limits<int64_t>::min() : -(int64_t(1) << (t.bits - 1)));
    case ReduceKind::Min:
      if (t.is_float()) return make_float(std::numeric_limits<double>::infinity(), t);
      if (t.is_bool()) return IntImm::make(t, 1);
      if (t.is_uint()) return IntImm::make(t, t.bits >= 64 ? -1 : int64_t((uint64_t(1) << t.bits) - 1));
      return IntImm::make(t, t.bits >= 64 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << (t.bits - 1)) - 1);
  }
  TEXC_UNREACHABLE();
}

Expr Reduce::combine(ReduceKind kind, Expr acc, Expr x) {
  switch (kind) {
    case ReduceKind::Sum: return Binary::make(BinaryOp::Add, std::move(acc), std::move(x));
    case ReduceKind::Prod: return Binary::make(BinaryOp::Mul, std::move(acc), std::move(x));
    case ReduceKind::Max: return Binary::make(BinaryOp::Max, std::move(acc), std::move(x));
    case ReduceKind::Min: return Binary::make(BinaryOp::Min, std::move(acc), std::move(x));
  }
  TEXC_UNREACHABLE();
}

Stmt Store::make(Buffer buffer, std::vector<Expr> indices, Expr value, std::string stage) {
  TEXC_CHECK(buffer && value) << "bad store";
  TEXC_CHECK(indices.size() == buffer->ndim())
      << "store to '" << buffer->name << "' with " << indices.size() << " indices, rank " << buffer->ndim();
  TEXC_CHECK(value->type.element_of() == buffer->dtype)
      << "store of " << value->type.str() << " into '" << buffer->name << "' of " << buffer->dtype.str();
  return std::make_shared<const Store>(std::move(buffer), std::move(indices), std::move(value), std::move(stage));
}

Stmt Store::with(Buffer new_buffer, std::vector<Expr> new_indices, Expr new_value) const {
  return make(std::move(new_buffer), std::move(new_indices), std::move(new_value), stage);
}

const char* for_kind_name(ForKind k) {
  switch (k) {
    case ForKind::Serial: return "for";
    case ForKind::Parallel: return "parallel";
    case ForKind::Vectorized: return "vectorized";
    case ForKind::Unrolled: return "unrolled";
    case ForKind::ThreadBound: return "bound";
    case ForKind::Tensorized: return "tensorized";
  }
  return "?";
}

Stmt For::make(Var var, Expr min, Expr extent, ForKind kind, Stmt body, std::string thread_tag) {
  TEXC_CHECK(var && min && extent && body) << "bad for";
  TEXC_CHECK(min->type == var->type && extent->type == var->type) << "loop bounds of " << var->name << " mistyped";
  return std::make_shared<const For>(std::move(var), std::move(min), std::move(extent), kind, std::move(thread_tag),
                                     std::move(body));
}

Stmt For::with_body(Stmt new_body) const { return make(var, min, extent, for_kind, std::move(new_body), thread_tag); }
Stmt For::with_range(Expr new_min, Expr new_extent, Stmt new_body) const {
  return make(var, std::move(new_min), std::move(new_extent), for_kind, new_body ? std::move(new_body) : body, thread_tag);
}
Stmt For::with_kind(ForKind new_kind, std::string new_thread_tag) const {
  return make(var, min, extent, new_kind, body, std::move(new_thread_tag));
}

Stmt Block::make(std::string stage, std::vector<IterVar> iter_vars, std::vector<Expr> bindings, Expr predicate,
                 Stmt init, Stmt body) {
  TEXC_CHECK(iter_vars.size() == bindings.size()) << "block " << stage << ": bindings do not match iter vars";
  TEXC_CHECK(body) << "block without body";
  return std::make_shared<const Block>(std::move(stage), std::move(iter_vars), std::move(bindings),
                                       std::move(predicate), std::move(init), std::move(body));
}

Stmt Allocate::make(Buffer buffer, Stmt body) {
  TEXC_CHECK(buffer && body) << "bad allocate";
  return std::make_shared<const Allocate>(std::move(buffer), std::move(body));
}

Stmt Seq::make(std::vector<Stmt> stmts) {
  std::vector<Stmt> flat;
  for (Stmt& s : stmts) {
    if (!s) continue;
    if (const Seq* q = s->as<Seq>())
      flat.insert(flat.end(), q->stmts.begin(), q->stmts.end());
    else
      flat.push_back(std::move(s));
  }
  if (flat.size() == 1) return flat[0];
  return std::make_shared<const Seq>(std::move(flat));
}

Stmt IfThenElse::make(Expr cond, Stmt then_case, Stmt else_case) {
  TEXC_CHECK(cond && cond->type.is_bool() && then_case) << "bad if";
  return std::make_shared<const IfThenElse>(std::move(cond), std::move(then_case), std::move(else_case));
}

Stmt LetStmt::make(Var var, Expr value, Stmt body) {
  TEXC_CHECK(var && value && body) << "bad let stmt";
  TEXC_CHECK(var->type == value->type) << "let type mismatch for " << var->name;
  return std::make_shared<const LetStmt>(std::move(var), std::move(value), std::move(body));
}

const char* attr_key_name(AttrKey k) {
  switch (k) {
    case AttrKey::ThreadExtent: return "thread_extent";
    case AttrKey::VirtualThread: return "virtual_thread";
    case AttrKey::DmaCopy: return "dma_copy";
    case AttrKey::Pragma: return "pragma";
  }
  TEXC_UNREACHABLE();
}

std::optional<AttrKey> parse_attr_key(const std::string& name) {
  for (AttrKey k : {AttrKey::ThreadExtent, AttrKey::VirtualThread, AttrKey::DmaCopy, AttrKey::Pragma})
    if (name == attr_key_name(k)) return k;
  return std::nullopt;
}

Stmt AttrStmt::make(AttrKey key, std::string name, Expr value, Stmt body) {
  TEXC_CHECK(value && body) << "bad attr stmt";
  TEXC_CHECK(!name.empty()) << "attr " << attr_key_name(key) << " without a name";
  TEXC_CHECK(value->type.is_scalar() && value->type.is_integer())
      << "attr " << attr_key_name(key) << "(" << name << ") of " << value->type.str() << ", not an integer";
  return std::make_shared<const AttrStmt>(key, std::move(name), std::move(value), std::move(body));
}

Stmt AttrStmt::with_body(Stmt new_body) const { return make(key, name, value, std::move(new_body)); }

Stmt Evaluate::make(Expr value) {
  TEXC_CHECK(value) << "bad evaluate";
  return std::make_shared<const Evaluate>(std::move(value));
}

Expr make_int(int64_t v, Type t) { return IntImm::make(t, v); }
Expr make_float(double v, Type t) { return FloatImm::make(t, v); }
Expr make_bool(bool v) { return IntImm::make(Bool(), v ? 1 : 0); }

bool is_const_int(const Expr& e, int64_t* v) {
  if (!e) return false;
  if (const IntImm* i = e->as<IntImm>()) {
    if (v) *v = i->value;
    return true;
  }
  return false;
}

bool is_const_int(const Expr& e, int64_t expected_value) {
  int64_t v;
  return is_const_int(e, &v) && v == expected_value;
}

}  // namespace texc
