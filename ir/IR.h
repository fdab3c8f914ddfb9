// The texc IR: expressions and statements of the loop AST, as plain immutable structs.
//
// Expr and Stmt are shared pointers to const nodes; rewrite by building new nodes (IRMutator).
// Each node has a static make() that checks its invariants. Variables and buffers are compared by
// identity (pointer), never by name.
//
// The same expression IR is used for compute definitions (where a Reduce may appear and Loads read
// the tensors of other stages) and for the loop AST (where Blocks mark each stage's computation
// until lower_blocks replaces them by plain stores).
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/SourceLoc.h"
#include "ir/Type.h"

namespace texc {

enum class ExprKind : uint8_t {
#define TEXC_EXPR_NODE(name) name,
#include "ir/NodeKinds.def"
};
enum class StmtKind : uint8_t {
#define TEXC_STMT_NODE(name) name,
#include "ir/NodeKinds.def"
};

struct ExprNode {
  ExprKind kind;
  Type type;
  ExprNode(ExprKind k, Type t) : kind(k), type(t) {}
  virtual ~ExprNode() = default;
  template <typename T>
  const T* as() const {
    return kind == T::kKind ? static_cast<const T*>(this) : nullptr;
  }
};

struct StmtNode {
  StmtKind kind;
  explicit StmtNode(StmtKind k) : kind(k) {}
  virtual ~StmtNode() = default;
  template <typename T>
  const T* as() const {
    return kind == T::kKind ? static_cast<const T*>(this) : nullptr;
  }
};

using Expr = std::shared_ptr<const ExprNode>;
using Stmt = std::shared_ptr<const StmtNode>;

// ---------------------------------------------------------------------------------------------
// Variables and buffers

struct Variable;
using Var = std::shared_ptr<const Variable>;

/// A named variable. Identity is the pointer; names need not be unique but printers uniquify.
struct Variable : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Variable;
  std::string name;
  Variable(std::string n, Type t) : ExprNode(kKind, t), name(std::move(n)) {}
  static Var make(std::string name, Type t = Index());
};

/// The level of the memory hierarchy a buffer lives in (TVM's StorageRank): `global` is ordinary
/// memory; `shared` is GPU block memory; `local` is a stack/register buffer on CPUs, per-thread
/// memory on GPUs, and a target's on-chip buffers.
enum class StorageRank : uint8_t { Global, Shared, Local };
/// "global", "shared", "local".
const char* storage_rank_name(StorageRank rank);

/// Where a buffer lives (TVM's StorageScope): a rank, and a tag naming one of the target's own
/// memories of that rank. The untagged scopes are the ranks themselves (global, shared, local);
/// a tagged scope is declared by the target that has it, in its entry of ir/Target.cpp (vdla:
/// `local` with the tags vdla.inp, vdla.wgt, vdla.acc), and is spelled by its tag; a name resolves
/// to a scope through the targets (ir/Target.h: find_scope, find_any_scope). Two scopes are the
/// same when rank and tag are: a pass asking for MemScope::Local means the untagged rank.
struct MemScope {
  StorageRank rank = StorageRank::Global;
  std::string tag;  // "" (the rank itself) or the declared name, "vdla.inp"
  /// As the schedule language and the IR text spell it: the tag, or the rank's name.
  std::string name() const { return tag.empty() ? storage_rank_name(rank) : tag; }
  bool operator==(const MemScope& o) const { return rank == o.rank && tag == o.tag; }
  bool operator<(const MemScope& o) const { return rank != o.rank ? rank < o.rank : tag < o.tag; }
  static const MemScope Global, Shared, Local;
};
inline const MemScope MemScope::Global{StorageRank::Global, ""};
inline const MemScope MemScope::Shared{StorageRank::Shared, ""};
inline const MemScope MemScope::Local{StorageRank::Local, ""};

enum class BufferRole : uint8_t { Input, Output, Intermediate };

struct BufferNode;
using Buffer = std::shared_ptr<const BufferNode>;

/// A multi-dimensional array of one element type. Before storage flattening it is indexed with
/// one index per dimension; after, it has a single dimension (shape = {total size}).
struct BufferNode {
  std::string name;
  Type dtype;                 // scalar element type
  std::vector<Expr> shape;    // extents, outermost first
  MemScope scope = MemScope::Global;
  BufferRole role = BufferRole::Intermediate;
  static Buffer make(std::string name, Type dtype, std::vector<Expr> shape, MemScope scope = MemScope::Global,
                     BufferRole role = BufferRole::Intermediate);
  size_t ndim() const { return shape.size(); }
};

/// A loop or index variable with its domain [min, min + extent). is_reduce marks reduction axes.
struct IterVar {
  Var var;
  Expr min;
  Expr extent;
  bool is_reduce = false;
};

// ---------------------------------------------------------------------------------------------
// Expressions

struct IntImm : ExprNode {
  static constexpr ExprKind kKind = ExprKind::IntImm;
  int64_t value;
  IntImm(Type t, int64_t v) : ExprNode(kKind, t), value(v) {}
  /// Integer or bool constant; the value is wrapped to the type's width.
  static Expr make(Type t, int64_t value);
};

struct FloatImm : ExprNode {
  static constexpr ExprKind kKind = ExprKind::FloatImm;
  double value;
  FloatImm(Type t, double v) : ExprNode(kKind, t), value(v) {}
  static Expr make(Type t, double value);
};

#define TEXC_BINARY_OPS(X)                                                                      \
  X(Add, "+") X(Sub, "-") X(Mul, "*") X(Div, "/") X(Mod, "%") X(Min, "min") X(Max, "max")      \
  X(Shl, "<<") X(Shr, ">>") X(EQ, "==") X(NE, "!=") X(LT, "<") X(LE, "<=") X(GT, ">") X(GE, ">=") \
  X(And, "&&") X(Or, "||")

enum class BinaryOp : uint8_t {
#define X(name, sym) name,
  TEXC_BINARY_OPS(X)
#undef X
};
const char* binary_op_symbol(BinaryOp op);
bool is_comparison(BinaryOp op);

/// a op b. Both operands have the same type. Integer Div and Mod are floor division and floor
/// modulo (the sign of the result of Mod follows the divisor); Shr is arithmetic on signed types.
/// Comparisons and And/Or have type bool (with the operands' lanes).
struct Binary : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Binary;
  BinaryOp op;
  Expr a, b;
  Binary(Type t, BinaryOp o, Expr a_, Expr b_) : ExprNode(kKind, t), op(o), a(std::move(a_)), b(std::move(b_)) {}
  static Expr make(BinaryOp op, Expr a, Expr b);
};

struct Not : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Not;
  Expr a;
  Not(Type t, Expr a_) : ExprNode(kKind, t), a(std::move(a_)) {}
  static Expr make(Expr a);
};

struct Select : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Select;
  Expr cond, true_value, false_value;
  Select(Type t, Expr c, Expr tv, Expr fv)
      : ExprNode(kKind, t), cond(std::move(c)), true_value(std::move(tv)), false_value(std::move(fv)) {}
  static Expr make(Expr cond, Expr true_value, Expr false_value);
};

struct Cast : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Cast;
  Expr value;
  Cast(Type t, Expr v) : ExprNode(kKind, t), value(std::move(v)) {}
  static Expr make(Type t, Expr value);
};

enum class CallKind : uint8_t {
  Math,       // exp log sqrt tanh sigmoid abs pow floor ceil: pure, elementwise on floats (abs on ints too)
  Intrinsic,  // texc-internal pure intrinsics, e.g. "likely"
  Extern,     // a C function (tensorize `lower extern`), called for its side effect
};

/// Address of buffer element (for extern calls): Call{Intrinsic, "address_of", {Load}}.
struct Call : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Call;
  std::string name;
  std::vector<Expr> args;
  CallKind call_kind;
  Call(Type t, std::string n, std::vector<Expr> a, CallKind k)
      : ExprNode(kKind, t), name(std::move(n)), args(std::move(a)), call_kind(k) {}
  static Expr make(Type t, std::string name, std::vector<Expr> args, CallKind kind);
};

/// buffer[indices]. A vector load has Ramp/Broadcast indices (type lanes = index lanes).
struct Load : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Load;
  Buffer buffer;
  std::vector<Expr> indices;
  Load(Type t, Buffer b, std::vector<Expr> i) : ExprNode(kKind, t), buffer(std::move(b)), indices(std::move(i)) {}
  static Expr make(Buffer buffer, std::vector<Expr> indices);
};

struct Ramp : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Ramp;
  Expr base, stride;
  int lanes;
  Ramp(Type t, Expr b, Expr s, int l) : ExprNode(kKind, t), base(std::move(b)), stride(std::move(s)), lanes(l) {}
  static Expr make(Expr base, Expr stride, int lanes);
};

struct Broadcast : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Broadcast;
  Expr value;
  int lanes;
  Broadcast(Type t, Expr v, int l) : ExprNode(kKind, t), value(std::move(v)), lanes(l) {}
  static Expr make(Expr value, int lanes);
};

struct Let : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Let;
  Var var;
  Expr value, body;
  Let(Type t, Var v, Expr val, Expr b) : ExprNode(kKind, t), var(std::move(v)), value(std::move(val)), body(std::move(b)) {}
  static Expr make(Var var, Expr value, Expr body);
};

enum class ReduceKind : uint8_t { Sum, Max, Min, Prod };
const char* reduce_kind_name(ReduceKind k);

/// A reduction of `source` over `axes` (each with its domain). Appears only in compute
/// definitions; lowering turns it into an accumulation loop nest with an initialisation.
struct Reduce : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Reduce;
  ReduceKind reduce_kind;
  Expr source;
  std::vector<IterVar> axes;
  Reduce(Type t, ReduceKind k, Expr s, std::vector<IterVar> a)
      : ExprNode(kKind, t), reduce_kind(k), source(std::move(s)), axes(std::move(a)) {}
  static Expr make(ReduceKind kind, Expr source, std::vector<IterVar> axes);
  /// The identity of the reduction for type t (0, -inf/lowest, +inf/highest, 1).
  static Expr identity(ReduceKind kind, Type t);
  /// combine(acc, x): acc + x, max(acc, x), ...
  static Expr combine(ReduceKind kind, Expr acc, Expr x);
};

// ---------------------------------------------------------------------------------------------
// Statements

/// buffer[indices] = value. `stage` names the schedule stage the store computes (set by
/// lower_blocks from the Block it came from, empty for stores no stage owns): metadata that every
/// rebuild keeps (use with()), so listings, features and backends can name the stage after the
/// Blocks are gone and buffers have been merged or flattened. Not part of structural equality.
struct Store : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Store;
  Buffer buffer;
  std::vector<Expr> indices;
  Expr value;
  std::string stage;
  Store(Buffer b, std::vector<Expr> i, Expr v, std::string st = "")
      : StmtNode(kKind), buffer(std::move(b)), indices(std::move(i)), value(std::move(v)), stage(std::move(st)) {}
  static Stmt make(Buffer buffer, std::vector<Expr> indices, Expr value, std::string stage = "");
  /// This store with buffer, indices and value replaced and its stage tag kept.
  Stmt with(Buffer new_buffer, std::vector<Expr> new_indices, Expr new_value) const;
};

enum class ForKind : uint8_t { Serial, Parallel, Vectorized, Unrolled, ThreadBound, Tensorized };
const char* for_kind_name(ForKind k);

/// for var in min .. min+extent. A ThreadBound loop carries thread_tag ("blockIdx.x",
/// "threadIdx.y", "vthread"). The loop's user-visible name (e.g. "C.i", "io") is var->name.
struct For : StmtNode {
  static constexpr StmtKind kKind = StmtKind::For;
  Var var;
  Expr min, extent;
  ForKind for_kind;
  std::string thread_tag;
  Stmt body;
  For(Var v, Expr mn, Expr ext, ForKind k, std::string tag, Stmt b)
      : StmtNode(kKind), var(std::move(v)), min(std::move(mn)), extent(std::move(ext)), for_kind(k),
        thread_tag(std::move(tag)), body(std::move(b)) {}
  static Stmt make(Var var, Expr min, Expr extent, ForKind kind, Stmt body, std::string thread_tag = "");
  /// This loop with one part replaced and every other field kept (so a new field of For needs no
  /// edit where loops are rebuilt).
  Stmt with_body(Stmt new_body) const;
  Stmt with_range(Expr new_min, Expr new_extent, Stmt new_body = nullptr) const;  // null: keep the body
  Stmt with_kind(ForKind new_kind, std::string new_thread_tag = "") const;
};

/// One stage's computation at one point of its iteration domain, while scheduling.
///
/// iter_vars are the stage's own axes (spatial, then reduction) with their full domains; each is
/// bound to bindings[i], an expression of the enclosing loop variables. The body (a Store to the
/// stage's buffer) runs when `predicate` holds (null = always). `init`, if set, is the reduction's
/// initialisation; it must run before the first update of each output point, i.e. when every
/// reduction iter var is at its domain's min. lower_blocks replaces Blocks by plain statements.
struct Block : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Block;
  std::string stage;
  std::vector<IterVar> iter_vars;
  std::vector<Expr> bindings;
  Expr predicate;  // may be null
  Stmt init;       // may be null
  Stmt body;
  Block(std::string s, std::vector<IterVar> iv, std::vector<Expr> bnd, Expr pred, Stmt ini, Stmt b)
      : StmtNode(kKind), stage(std::move(s)), iter_vars(std::move(iv)), bindings(std::move(bnd)),
        predicate(std::move(pred)), init(std::move(ini)), body(std::move(b)) {}
  static Stmt make(std::string stage, std::vector<IterVar> iter_vars, std::vector<Expr> bindings, Expr predicate,
                   Stmt init, Stmt body);
};

struct Allocate : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Allocate;
  Buffer buffer;
  Stmt body;
  Allocate(Buffer b, Stmt s) : StmtNode(kKind), buffer(std::move(b)), body(std::move(s)) {}
  static Stmt make(Buffer buffer, Stmt body);
};

struct Seq : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Seq;
  std::vector<Stmt> stmts;
  explicit Seq(std::vector<Stmt> s) : StmtNode(kKind), stmts(std::move(s)) {}
  /// Flattens nested Seqs and drops nulls; returns the single statement if only one remains.
  static Stmt make(std::vector<Stmt> stmts);
};

struct IfThenElse : StmtNode {
  static constexpr StmtKind kKind = StmtKind::IfThenElse;
  Expr cond;
  Stmt then_case, else_case;  // else_case may be null
  IfThenElse(Expr c, Stmt t, Stmt e) : StmtNode(kKind), cond(std::move(c)), then_case(std::move(t)), else_case(std::move(e)) {}
  static Stmt make(Expr cond, Stmt then_case, Stmt else_case = nullptr);
};

struct LetStmt : StmtNode {
  static constexpr StmtKind kKind = StmtKind::LetStmt;
  Var var;
  Expr value;
  Stmt body;
  LetStmt(Var v, Expr val, Stmt b) : StmtNode(kKind), var(std::move(v)), value(std::move(val)), body(std::move(b)) {}
  static Stmt make(Var var, Expr value, Stmt body);
};

/// What an AttrStmt says about its body.
enum class AttrKey : uint8_t {
  ThreadExtent,   // name: a thread tag (blockIdx.x, threadIdx.y...); value: its extent in the body
  VirtualThread,  // name: the virtual thread's loop name; value: the number of virtual threads
  DmaCopy,        // name: the destination buffer; value: the rank of its memory scope (int of StorageRank); body: the copy
  Pragma,         // name: the pragma; value: its argument
};
const char* attr_key_name(AttrKey k);
/// The key named `name` (as attr_key_name prints it), or nullopt.
std::optional<AttrKey> parse_attr_key(const std::string& name);

/// A scoped attribute: `key(name) = value` holds for the statements of `body` (TVM's AttrStmt).
/// Lowering for GPUs and accelerators marks launch extents, virtual threads and DMA copies with it;
/// a pass that does not know a key keeps the statement and walks its body.
struct AttrStmt : StmtNode {
  static constexpr StmtKind kKind = StmtKind::AttrStmt;
  AttrKey key;
  std::string name;
  Expr value;
  Stmt body;
  AttrStmt(AttrKey k, std::string n, Expr v, Stmt b)
      : StmtNode(kKind), key(k), name(std::move(n)), value(std::move(v)), body(std::move(b)) {}
  static Stmt make(AttrKey key, std::string name, Expr value, Stmt body);
  Stmt with_body(Stmt new_body) const;
};

struct Evaluate : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Evaluate;
  Expr value;
  explicit Evaluate(Expr v) : StmtNode(kKind), value(std::move(v)) {}
  static Stmt make(Expr value);
};

// ---------------------------------------------------------------------------------------------
// Convenience constructors (see also IROperators.h)

Expr make_int(int64_t v, Type t = Index());
Expr make_float(double v, Type t = Float(32));
Expr make_bool(bool v);
/// True if e is an IntImm (of any integer/bool type); sets *v.
bool is_const_int(const Expr& e, int64_t* v = nullptr);
bool is_const_int(const Expr& e, int64_t expected_value);

}  // namespace texc
