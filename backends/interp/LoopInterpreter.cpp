#include "backends/interp/LoopInterpreter.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "backends/interp/ExternRegistry.h"
#include "backends/interp/Half.h"
#include "backends/interp/InterpError.h"
#include "backends/interp/ScalarOps.h"
#include "ir/ConstEval.h"
#include "ir/Intrinsics.h"

namespace texc {

namespace {

struct BufferBinding {
  uint8_t* data = nullptr;
  std::vector<int64_t> shape;
};

/// The run-time state of one execution: variable slots (a vector variable takes one slot per
/// lane) and the current storage of every buffer.
struct Frame {
  std::vector<Value> vars;
  std::vector<BufferBinding> buffers;
};

using ExprFn = std::function<Value(Frame&, int lane)>;
using StmtFn = std::function<void(Frame&)>;
using PointerFn = std::function<void*(Frame&)>;
using ReadFn = Value (*)(const uint8_t*, int64_t);
using WriteFn = void (*)(uint8_t*, int64_t, Value);

template <typename T>
Value read_int(const uint8_t* p, int64_t i) {
  return int_value(int64_t(reinterpret_cast<const T*>(p)[i]));
}
template <typename T>
void write_int(uint8_t* p, int64_t i, Value v) {
  reinterpret_cast<T*>(p)[i] = T(v.i);
}

ReadFn reader_for(Type t) {
  switch (t.code) {
    case TypeCode::Bool: return [](const uint8_t* p, int64_t i) { return int_value(p[i] != 0); };
    case TypeCode::Int:
      return t.bits == 8 ? read_int<int8_t> : t.bits == 16 ? read_int<int16_t> : t.bits == 32 ? read_int<int32_t>
                                                                                               : read_int<int64_t>;
    case TypeCode::UInt:
      return t.bits == 8 ? read_int<uint8_t> : t.bits == 16 ? read_int<uint16_t> : t.bits == 32 ? read_int<uint32_t>
                                                                                                 : read_int<int64_t>;
    case TypeCode::Float:
      if (t.bits == 32) return [](const uint8_t* p, int64_t i) { return float_value(reinterpret_cast<const float*>(p)[i]); };
      if (t.bits == 64) return [](const uint8_t* p, int64_t i) { return float_value(reinterpret_cast<const double*>(p)[i]); };
      return [](const uint8_t* p, int64_t i) {
        return float_value(half_to_float(reinterpret_cast<const uint16_t*>(p)[i]));
      };
    case TypeCode::BFloat:
      return [](const uint8_t* p, int64_t i) {
        return float_value(bfloat_to_float(reinterpret_cast<const uint16_t*>(p)[i]));
      };
  }
  return nullptr;
}

WriteFn writer_for(Type t) {
  switch (t.code) {
    case TypeCode::Bool: return [](uint8_t* p, int64_t i, Value v) { p[i] = v.i != 0; };
    case TypeCode::Int:
    case TypeCode::UInt:
      return t.bits == 8 ? write_int<uint8_t> : t.bits == 16 ? write_int<uint16_t> : t.bits == 32 ? write_int<uint32_t>
                                                                                                   : write_int<int64_t>;
    case TypeCode::Float:
      if (t.bits == 32) return [](uint8_t* p, int64_t i, Value v) { reinterpret_cast<float*>(p)[i] = float(v.f); };
      if (t.bits == 64) return [](uint8_t* p, int64_t i, Value v) { reinterpret_cast<double*>(p)[i] = v.f; };
      return [](uint8_t* p, int64_t i, Value v) { reinterpret_cast<uint16_t*>(p)[i] = float_to_half(float(v.f)); };
    case TypeCode::BFloat:
      return [](uint8_t* p, int64_t i, Value v) { reinterpret_cast<uint16_t*>(p)[i] = float_to_bfloat(float(v.f)); };
  }
  return nullptr;
}

/// Storage for an Allocate'd (or auto-allocated) buffer, filled with NaN / 0xA5 bytes.
std::unique_ptr<uint8_t[]> allocate_poisoned(Type dtype, int64_t elements) {
  size_t bytes = size_t(std::max<int64_t>(elements, 1)) * size_t(dtype.bytes());
  std::unique_ptr<uint8_t[]> storage(new uint8_t[bytes]);
  if (dtype.is_float()) {
    WriteFn write = writer_for(dtype);
    for (int64_t i = 0; i < elements; ++i) write(storage.get(), i, float_value(std::nan("")));
  } else {
    std::memset(storage.get(), 0xA5, bytes);
  }
  return storage;
}

[[noreturn]] void out_of_bounds(const char* access, const std::string& name, const std::vector<int64_t>& index,
                                size_t dim, const std::vector<int64_t>& shape) {
  throw InterpError(std::string("out-of-bounds ") + access + " '" + name + "' at " + shape_string(index) +
                    ": index " + std::to_string(index[dim]) + " in dimension " + std::to_string(dim) +
                    " is outside [0, " + std::to_string(shape[dim]) + ") (shape " + shape_string(shape) + ")");
}

[[noreturn]] void unbound_buffer(const char* access, const std::string& name) {
  throw InterpError(std::string(access) + " '" + name + "' outside the Allocate that gives it storage");
}

/// Evaluates every index at `lane`, checks it against the buffer's current shape and returns the
/// row-major flat index.
int64_t flat_index(Frame& f, const BufferBinding& b, const std::vector<ExprFn>& indices, int lane,
                   const char* access, const std::string& name) {
  if (!b.data) unbound_buffer(access, name);
  int64_t flat = 0;
  for (size_t d = 0; d < indices.size(); ++d) {
    int64_t i = indices[d](f, lane).i;
    if (i < 0 || i >= b.shape[d]) {
      std::vector<int64_t> all;
      for (size_t e = 0; e < indices.size(); ++e) all.push_back(e == d ? i : indices[e](f, lane).i);
      out_of_bounds(access, name, all, d, b.shape);
    }
    flat = flat * b.shape[d] + i;
  }
  return flat;
}

/// Compiles a loop AST into closures. Variables get frame slots when their binding (For, Let,
/// LetStmt, Block) is compiled and are usable only inside it; buffers get slots on first mention.
class Compiler {
 public:
  Compiler(const std::string& func_name, LoopObserver* observer) : func_name_(func_name), observer_(observer) {}

  ExprFn expr(const Expr& e);
  StmtFn stmt(const Stmt& s);

  int buffer_slot(const Buffer& b) {
    auto it = buffer_slots_.find(b.get());
    if (it != buffer_slots_.end()) return it->second;
    int slot = int(buffers_.size());
    buffers_.push_back(b);
    buffer_slots_[b.get()] = slot;
    return slot;
  }

  int num_var_slots() const { return num_var_slots_; }
  const std::vector<Buffer>& buffers() const { return buffers_; }
  bool is_allocated(const BufferNode* b) const { return allocated_.count(b) != 0; }

 private:
  // Every binding site gets its own slots (one per lane); a variable's innermost live binding is
  // the back of its stack.
  int bind(const Var& v) {
    int slot = num_var_slots_;
    num_var_slots_ += v->type.lanes;
    vars_[v.get()].push_back(slot);
    return slot;
  }
  void unbind(const Var& v) { vars_[v.get()].pop_back(); }

  ExprFn binary(const Binary* b);
  ExprFn call(const Call* c);
  PointerFn address_of(const Expr& e);
  PointerFn element_address(const Load* load);  // the address of a buffer element, checked in the buffer
  ExprFn atomic_add(const Call* c);            // atomic_add(B[idx], x): B[idx] += x, seen as one access

  std::string func_name_;
  LoopObserver* observer_;
  std::unordered_map<const Variable*, std::vector<int>> vars_;
  int num_var_slots_ = 0;
  std::vector<Buffer> buffers_;
  std::unordered_map<const BufferNode*, int> buffer_slots_;
  std::unordered_set<const BufferNode*> allocated_;
};

ExprFn Compiler::binary(const Binary* b) {
  Type t = b->a->type.element_of();
  BinaryOp op = b->op;
  ExprFn x = expr(b->a), y = expr(b->b);
  if (op == BinaryOp::And) return [x, y](Frame& f, int l) { return int_value(x(f, l).i && y(f, l).i); };
  if (op == BinaryOp::Or) return [x, y](Frame& f, int l) { return int_value(x(f, l).i || y(f, l).i); };
  if (t.is_float()) {
    if (is_comparison(op))
      return [x, y, op](Frame& f, int l) { return int_value(float_binary(op, x(f, l).f, y(f, l).f) != 0); };
    if (t.bits == 32) {
      switch (op) {
        case BinaryOp::Add: return [x, y](Frame& f, int l) { return float_value(float(x(f, l).f + y(f, l).f)); };
        case BinaryOp::Sub: return [x, y](Frame& f, int l) { return float_value(float(x(f, l).f - y(f, l).f)); };
        case BinaryOp::Mul: return [x, y](Frame& f, int l) { return float_value(float(x(f, l).f * y(f, l).f)); };
        case BinaryOp::Div: return [x, y](Frame& f, int l) { return float_value(float(x(f, l).f / y(f, l).f)); };
        default: break;
      }
    }
    if (op == BinaryOp::Shl || op == BinaryOp::Shr)
      throw InterpError(std::string("shift '") + binary_op_symbol(op) + "' of floating-point values in '" + func_name_ + "'");
    return [x, y, op, t](Frame& f, int l) { return float_value(round_float(t, float_binary(op, x(f, l).f, y(f, l).f))); };
  }
  if (t == Index()) {  // index arithmetic: the hot path of every loop nest
    switch (op) {
      case BinaryOp::Add:
        return [x, y](Frame& f, int l) { return int_value(int64_t(uint64_t(x(f, l).i) + uint64_t(y(f, l).i))); };
      case BinaryOp::Sub:
        return [x, y](Frame& f, int l) { return int_value(int64_t(uint64_t(x(f, l).i) - uint64_t(y(f, l).i))); };
      case BinaryOp::Mul:
        return [x, y](Frame& f, int l) { return int_value(int64_t(uint64_t(x(f, l).i) * uint64_t(y(f, l).i))); };
      case BinaryOp::LT: return [x, y](Frame& f, int l) { return int_value(x(f, l).i < y(f, l).i); };
      case BinaryOp::GE: return [x, y](Frame& f, int l) { return int_value(x(f, l).i >= y(f, l).i); };
      default: break;
    }
  }
  return [x, y, op, t](Frame& f, int l) { return int_value(int_binary(op, t, x(f, l).i, y(f, l).i)); };
}

PointerFn Compiler::address_of(const Expr& e) {
  const Call* c = e->as<Call>();
  const Load* load = c && c->args.size() == 1 ? c->args[0]->as<Load>() : nullptr;
  if (!load) throw InterpError("address_of of something other than a buffer element in '" + func_name_ + "'");
  return element_address(load);
}

PointerFn Compiler::element_address(const Load* load) {
  int slot = buffer_slot(load->buffer);
  std::string name = load->buffer->name;
  size_t bytes = size_t(load->buffer->dtype.bytes());
  std::vector<ExprFn> indices;
  for (const Expr& i : load->indices) indices.push_back(expr(i));
  return [slot, name, bytes, indices](Frame& f) -> void* {
    const BufferBinding& b = f.buffers[slot];
    int64_t flat = flat_index(f, b, indices, 0, "address of", name);
    return b.data + size_t(flat) * bytes;
  };
}

// One thread runs at a time: the add is the load, the sum and the store, with the old value as
// the call's value; an observer sees one atomic access.
ExprFn Compiler::atomic_add(const Call* c) {
  const Load* load = c->args[0]->as<Load>();
  if (!load || load->type.lanes != 1 || c->args[1]->type.lanes != 1)
    throw InterpError("atomic_add of something other than one buffer element in '" + func_name_ + "'");
  int slot = buffer_slot(load->buffer);
  std::string name = load->buffer->name;
  Type t = load->buffer->dtype;
  ReadFn read = reader_for(t);
  WriteFn write = writer_for(t);
  std::vector<ExprFn> indices;
  for (const Expr& i : load->indices) indices.push_back(expr(i));
  ExprFn value = expr(c->args[1]);
  LoopObserver* observer = observer_;
  int watched = observer_ ? observer_->watch_buffer(load->buffer) : -1;
  return [slot, name, t, read, write, indices, value, observer, watched](Frame& f, int) {
    Value x = value(f, 0);
    BufferBinding& b = f.buffers[slot];
    int64_t flat = flat_index(f, b, indices, 0, "atomic add to", name);
    if (watched >= 0) observer->atomic_access(watched, flat);
    Value old = read(b.data, flat);
    Value sum = t.is_float() ? float_value(round_float(t, old.f + x.f)) : int_value(wrap_int(t, int64_t(uint64_t(old.i) + uint64_t(x.i))));
    write(b.data, flat, sum);
    return old;
  };
}

ExprFn Compiler::call(const Call* c) {
  Type t = c->type.element_of();
  if (c->call_kind == CallKind::Extern) {
    const ExternFunction* fn = find_extern(c->name);
    if (!fn) throw InterpError("extern function '" + c->name + "' is not registered with the loop interpreter");
    ExternFunction function = *fn;
    std::vector<PointerFn> pointers;
    std::vector<ExprFn> values;
    std::vector<Type> types;
    for (const Expr& a : c->args) {
      const Call* ac = a->as<Call>();
      bool is_address = is_intrinsic_call(ac, Intrinsic::AddressOf);
      pointers.push_back(is_address ? address_of(a) : nullptr);
      values.push_back(is_address ? nullptr : expr(a));
      types.push_back(a->type);
    }
    return [function, pointers, values, types](Frame& f, int) {
      std::vector<ExternArg> args(pointers.size());
      for (size_t i = 0; i < args.size(); ++i) {
        if (pointers[i]) args[i].pointer = pointers[i](f);
        else if (types[i].is_float()) args[i].f = values[i](f, 0).f;
        else args[i].i = values[i](f, 0).i;
      }
      return int_value(function(args));
    };
  }
  if (c->call_kind == CallKind::Intrinsic) {
    if (is_value_hint(c)) return expr(c->args[0]);
    if (is_intrinsic_call(c, Intrinsic::AtomicAdd)) return atomic_add(c);
    if (is_intrinsic_call(c, Intrinsic::Prefetch)) {  // no cache to fill: only the address, checked in the buffer
      const Load* load = c->args[0]->as<Load>();
      if (!load) throw InterpError("prefetch of something other than a buffer element in '" + func_name_ + "'");
      PointerFn address = element_address(load);
      return [address](Frame& f, int) {
        address(f);
        return int_value(0);
      };
    }
    if (is_intrinsic_call(c, Intrinsic::RoundTf32)) {  // cuda-interp's form of a TF32 mma (lower/gpu/MmaExchange.h)
      ExprFn x = expr(c->args[0]);
      return [x](Frame& f, int l) { return float_value(round_tf32(x(f, l).f)); };
    }
    throw InterpError("intrinsic '" + c->name + "' cannot be executed by the loop interpreter");
  }
  if (c->name == "abs" && c->args.size() == 1 && !t.is_float()) {
    ExprFn x = expr(c->args[0]);
    bool is_unsigned = t.is_uint() || t.is_bool();
    return [x, t, is_unsigned](Frame& f, int l) {
      int64_t v = x(f, l).i;
      return int_value(wrap_int(t, v < 0 && !is_unsigned ? int64_t(0 - uint64_t(v)) : v));
    };
  }
  MathFunction fn = find_math_function(c->name, c->args.size());
  if (!fn)
    throw InterpError("unknown math function '" + c->name + "' with " + std::to_string(c->args.size()) +
                      " argument(s) in '" + func_name_ + "'");
  std::vector<ExprFn> args;
  std::vector<Type> types;
  for (const Expr& a : c->args) {
    args.push_back(expr(a));
    types.push_back(a->type.element_of());
  }
  return [fn, args, types, t](Frame& f, int l) {
    double x[2] = {0, 0};
    for (size_t i = 0; i < args.size(); ++i) {
      Value v = args[i](f, l);
      x[i] = types[i].is_float() ? v.f : cast_to_float(Float(64), types[i], v.i, 0);
    }
    double r = fn(x);
    return t.is_float() ? float_value(round_float(t, r)) : int_value(cast_to_int(t, Float(64), 0, r));
  };
}

ExprFn Compiler::expr(const Expr& e) {
  switch (e->kind) {
    case ExprKind::IntImm: {
      Value v = int_value(e->as<IntImm>()->value);
      return [v](Frame&, int) { return v; };
    }
    case ExprKind::FloatImm: {
      Value v = float_value(round_float(e->type, e->as<FloatImm>()->value));
      return [v](Frame&, int) { return v; };
    }
    case ExprKind::Variable: {
      const Variable* var = e->as<Variable>();
      auto it = vars_.find(var);
      if (it == vars_.end() || it->second.empty())
        throw InterpError("variable '" + var->name + "' is used outside the loop, let or block that binds it in '" +
                          func_name_ + "'");
      int slot = it->second.back();
      if (var->type.lanes > 1) return [slot](Frame& f, int l) { return f.vars[slot + l]; };
      return [slot](Frame& f, int) { return f.vars[slot]; };
    }
    case ExprKind::Binary: return binary(e->as<Binary>());
    case ExprKind::Not: {
      ExprFn x = expr(e->as<Not>()->a);
      return [x](Frame& f, int l) { return int_value(x(f, l).i == 0); };
    }
    case ExprKind::Select: {
      auto* s = e->as<Select>();
      ExprFn c = expr(s->cond), t = expr(s->true_value), fv = expr(s->false_value);
      return [c, t, fv](Frame& f, int l) { return c(f, l).i ? t(f, l) : fv(f, l); };
    }
    case ExprKind::Cast: {
      auto* c = e->as<Cast>();
      Type to = c->type.element_of(), from = c->value->type.element_of();
      ExprFn x = expr(c->value);
      if (to.is_float())
        return [x, to, from](Frame& f, int l) {
          Value v = x(f, l);
          return float_value(cast_to_float(to, from, v.i, v.f));
        };
      return [x, to, from](Frame& f, int l) {
        Value v = x(f, l);
        return int_value(cast_to_int(to, from, v.i, v.f));
      };
    }
    case ExprKind::Call: return call(e->as<Call>());
    case ExprKind::Load: {
      auto* load = e->as<Load>();
      int slot = buffer_slot(load->buffer);
      std::string name = load->buffer->name;
      ReadFn read = reader_for(load->buffer->dtype);
      std::vector<ExprFn> indices;
      for (const Expr& i : load->indices) indices.push_back(expr(i));
      if (int watched = observer_ ? observer_->watch_buffer(load->buffer) : -1; watched >= 0) {
        LoopObserver* observer = observer_;
        return [slot, name, read, indices, observer, watched](Frame& f, int l) {
          const BufferBinding& b = f.buffers[slot];
          int64_t flat = flat_index(f, b, indices, l, "load from", name);
          observer->access(watched, flat, false);
          return read(b.data, flat);
        };
      }
      if (indices.size() == 1) {
        ExprFn i0 = indices[0];
        return [slot, name, read, i0](Frame& f, int l) {
          const BufferBinding& b = f.buffers[slot];
          if (!b.data) unbound_buffer("load from", name);
          int64_t i = i0(f, l).i;
          if (i < 0 || i >= b.shape[0]) out_of_bounds("load from", name, {i}, 0, b.shape);
          return read(b.data, i);
        };
      }
      return [slot, name, read, indices](Frame& f, int l) {
        const BufferBinding& b = f.buffers[slot];
        return read(b.data, flat_index(f, b, indices, l, "load from", name));
      };
    }
    case ExprKind::Ramp: {
      auto* r = e->as<Ramp>();
      ExprFn base = expr(r->base), stride = expr(r->stride);
      Type t = r->type.element_of();
      if (t.is_float())
        return [base, stride, t](Frame& f, int l) {
          return float_value(round_float(t, base(f, 0).f + double(l) * stride(f, 0).f));
        };
      return [base, stride, t](Frame& f, int l) {
        return int_value(wrap_int(t, int64_t(uint64_t(base(f, 0).i) + uint64_t(l) * uint64_t(stride(f, 0).i))));
      };
    }
    case ExprKind::Broadcast: {
      ExprFn x = expr(e->as<Broadcast>()->value);
      return [x](Frame& f, int) { return x(f, 0); };
    }
    case ExprKind::Let: {
      auto* let = e->as<Let>();
      ExprFn value = expr(let->value);
      int slot = bind(let->var);
      ExprFn body = expr(let->body);
      unbind(let->var);
      bool is_vector = let->var->type.lanes > 1;
      return [value, body, slot, is_vector](Frame& f, int l) {
        f.vars[slot + (is_vector ? l : 0)] = value(f, l);
        return body(f, l);
      };
    }
    case ExprKind::Reduce:
      throw InterpError("a reduction is left in the loop AST of '" + func_name_ + "' (lowering should have expanded it)");
  }
  throw InterpError("unknown expression kind in '" + func_name_ + "'");
}

StmtFn Compiler::stmt(const Stmt& s) {
  switch (s->kind) {
    case StmtKind::Store: {
      auto* st = s->as<Store>();
      int slot = buffer_slot(st->buffer);
      std::string name = st->buffer->name;
      WriteFn write = writer_for(st->buffer->dtype);
      ExprFn value = expr(st->value);
      std::vector<ExprFn> indices;
      int lanes = st->value->type.lanes;
      for (const Expr& i : st->indices) {
        indices.push_back(expr(i));
        lanes = std::max<int>(lanes, i->type.lanes);
      }
      if (int watched = observer_ ? observer_->watch_buffer(st->buffer) : -1; watched >= 0) {
        LoopObserver* observer = observer_;
        return [slot, name, write, value, indices, lanes, observer, watched](Frame& f) {
          std::vector<Value> v(static_cast<size_t>(lanes));
          for (int l = 0; l < lanes; ++l) v[l] = value(f, l);
          BufferBinding& b = f.buffers[slot];
          for (int l = 0; l < lanes; ++l) {
            int64_t flat = flat_index(f, b, indices, l, "store to", name);
            observer->access(watched, flat, true);
            write(b.data, flat, v[l]);
          }
        };
      }
      if (lanes == 1)
        return [slot, name, write, value, indices](Frame& f) {
          Value v = value(f, 0);
          BufferBinding& b = f.buffers[slot];
          write(b.data, flat_index(f, b, indices, 0, "store to", name), v);
        };
      return [slot, name, write, value, indices, lanes](Frame& f) {
        // Every lane of the value is read before any lane is stored, as a vector store does.
        std::vector<Value> v;
        v.resize(size_t(lanes));
        for (int l = 0; l < lanes; ++l) v[l] = value(f, l);
        BufferBinding& b = f.buffers[slot];
        for (int l = 0; l < lanes; ++l) write(b.data, flat_index(f, b, indices, l, "store to", name), v[l]);
      };
    }
    case StmtKind::For: {
      auto* loop = s->as<For>();
      ExprFn min = expr(loop->min), extent = expr(loop->extent);
      int slot = bind(loop->var);
      StmtFn body = stmt(loop->body);
      unbind(loop->var);
      return [min, extent, slot, body](Frame& f) {
        int64_t lo = min(f, 0).i, hi = lo + extent(f, 0).i;
        for (int64_t i = lo; i < hi; ++i) {
          f.vars[slot].i = i;
          body(f);
        }
      };
    }
    case StmtKind::Block: {
      auto* block = s->as<Block>();
      std::vector<ExprFn> bindings, reduce_mins;
      std::vector<int> slots, reduce_slots;
      for (const Expr& b : block->bindings) bindings.push_back(expr(b));
      for (const IterVar& iv : block->iter_vars)
        if (iv.is_reduce) reduce_mins.push_back(expr(iv.min));
      for (const IterVar& iv : block->iter_vars) {
        slots.push_back(bind(iv.var));
        if (iv.is_reduce) reduce_slots.push_back(slots.back());
      }
      ExprFn predicate = block->predicate ? expr(block->predicate) : nullptr;
      StmtFn init = block->init ? stmt(block->init) : nullptr;
      StmtFn body = stmt(block->body);
      for (const IterVar& iv : block->iter_vars) unbind(iv.var);
      return [bindings, slots, reduce_mins, reduce_slots, predicate, init, body](Frame& f) {
        for (size_t i = 0; i < slots.size(); ++i) f.vars[slots[i]] = bindings[i](f, 0);
        if (predicate && !predicate(f, 0).i) return;
        if (init) {
          bool first = true;
          for (size_t i = 0; first && i < reduce_slots.size(); ++i)
            first = f.vars[reduce_slots[i]].i == reduce_mins[i](f, 0).i;
          if (first) init(f);
        }
        body(f);
      };
    }
    case StmtKind::Allocate: {
      auto* alloc = s->as<Allocate>();
      int slot = buffer_slot(alloc->buffer);
      allocated_.insert(alloc->buffer.get());
      std::vector<ExprFn> shape;
      for (const Expr& e : alloc->buffer->shape) shape.push_back(expr(e));
      StmtFn body = stmt(alloc->body);
      Type dtype = alloc->buffer->dtype;
      std::string name = alloc->buffer->name;
      return [slot, shape, body, dtype, name](Frame& f) {
        BufferBinding binding;
        int64_t elements = 1;
        for (const ExprFn& e : shape) {
          binding.shape.push_back(e(f, 0).i);
          if (binding.shape.back() < 0 || binding.shape.back() > (int64_t(1) << 34) / elements)
            throw InterpError("allocation of '" + name + "' with shape " + shape_string(binding.shape) +
                              " is negative or too large");
          elements *= binding.shape.back();
        }
        std::unique_ptr<uint8_t[]> storage = allocate_poisoned(dtype, elements);
        binding.data = storage.get();
        std::swap(f.buffers[slot], binding);
        body(f);
        std::swap(f.buffers[slot], binding);
      };
    }
    case StmtKind::Seq: {
      std::vector<StmtFn> stmts;
      for (const Stmt& x : s->as<Seq>()->stmts) stmts.push_back(stmt(x));
      return [stmts](Frame& f) {
        for (const StmtFn& x : stmts) x(f);
      };
    }
    case StmtKind::IfThenElse: {
      auto* i = s->as<IfThenElse>();
      ExprFn cond = expr(i->cond);
      StmtFn then_case = stmt(i->then_case);
      StmtFn else_case = i->else_case ? stmt(i->else_case) : nullptr;
      return [cond, then_case, else_case](Frame& f) {
        if (cond(f, 0).i) then_case(f);
        else if (else_case) else_case(f);
      };
    }
    case StmtKind::LetStmt: {
      auto* let = s->as<LetStmt>();
      ExprFn value = expr(let->value);
      int slot = bind(let->var);
      StmtFn body = stmt(let->body);
      unbind(let->var);
      int lanes = let->var->type.lanes;
      return [value, slot, body, lanes](Frame& f) {
        for (int l = 0; l < lanes; ++l) f.vars[slot + l] = value(f, l);
        body(f);
      };
    }
    case StmtKind::Evaluate: {
      ExprFn value = expr(s->as<Evaluate>()->value);
      return [value](Frame& f) { value(f, 0); };
    }
    case StmtKind::AttrStmt: {  // on a CPU every attribute is advice: the body runs as it is
      auto* attr = s->as<AttrStmt>();
      int watched = observer_ && attr->key == AttrKey::Pragma ? observer_->watch_pragma(*attr) : -1;
      if (watched < 0) return stmt(attr->body);
      LoopObserver* observer = observer_;
      ExprFn value = expr(attr->value);
      StmtFn body = stmt(attr->body);
      return [observer, watched, value, body](Frame& f) {
        observer->pragma(watched, value(f, 0).i);
        body(f);
      };
    }
  }
  throw InterpError("unknown statement kind in '" + func_name_ + "'");
}

std::vector<int64_t> constant_shape(const Buffer& b) {
  std::vector<int64_t> shape;
  for (const Expr& e : b->shape) {
    auto v = eval_int(e);
    if (!v) throw InterpError("buffer '" + b->name + "' has a shape that is not a constant");
    shape.push_back(*v);
  }
  return shape;
}

int64_t product(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t e : shape) n *= e;
  return n;
}

}  // namespace

struct LoopInterpreter::Program {
  std::string name;
  StmtFn body;
  int num_var_slots = 0;
  size_t num_buffers = 0;
  struct Arg {
    int slot;
    Buffer buffer;
    std::vector<int64_t> shape;
  };
  std::vector<Arg> args;
  std::vector<Arg> unbound;  // auto-allocated per run (allocate_unbound_buffers)
};

LoopInterpreter::LoopInterpreter(const LoweredFunc& func, LoopInterpreterOptions options)
    : program_(std::make_unique<Program>()) {
  Program& p = *program_;
  p.name = func.name;
  Compiler compiler(func.name, options.observer);
  for (const Buffer& b : func.args) p.args.push_back({compiler.buffer_slot(b), b, constant_shape(b)});
  if (!func.body) throw InterpError("function '" + func.name + "' has no body");
  p.body = compiler.stmt(func.body);
  p.num_var_slots = compiler.num_var_slots();
  p.num_buffers = compiler.buffers().size();
  for (size_t slot = p.args.size(); slot < compiler.buffers().size(); ++slot) {
    const Buffer& b = compiler.buffers()[slot];
    if (compiler.is_allocated(b.get())) continue;
    if (!options.allocate_unbound_buffers)
      throw InterpError("buffer '" + b->name + "' is used in '" + func.name +
                        "' but is neither an argument nor allocated");
    p.unbound.push_back({int(slot), b, constant_shape(b)});
  }
}

LoopInterpreter::~LoopInterpreter() = default;

void LoopInterpreter::run(const std::vector<Tensor*>& args) const {
  const Program& p = *program_;
  if (args.size() != p.args.size())
    throw InterpError("function '" + p.name + "' takes " + std::to_string(p.args.size()) + " arguments, got " +
                      std::to_string(args.size()));
  Frame f;
  f.vars.assign(size_t(p.num_var_slots), int_value(0));
  f.buffers.resize(p.num_buffers);
  for (size_t i = 0; i < args.size(); ++i) {
    const Program::Arg& a = p.args[i];
    if (!args[i] || args[i]->dtype() != a.buffer->dtype || args[i]->num_elements() != product(a.shape))
      throw InterpError("argument '" + a.buffer->name + "' of '" + p.name + "' must be " + a.buffer->dtype.str() +
                        shape_string(a.shape) + ", got " + (args[i] ? args[i]->describe() : "nothing"));
    f.buffers[a.slot] = {static_cast<uint8_t*>(args[i]->data()), a.shape};
  }
  std::vector<std::unique_ptr<uint8_t[]>> storage;
  for (const Program::Arg& a : p.unbound) {
    storage.push_back(allocate_poisoned(a.buffer->dtype, product(a.shape)));
    f.buffers[a.slot] = {storage.back().get(), a.shape};
  }
  p.body(f);
}

}  // namespace texc
