// Names visible while checking an op: params, attributes, dimension variables and sizes (all
// compile-time integers by then), tensors, and index variables, in nested scopes
// (globals <- op <- one tensor definition <- one reduction).
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/Diagnostics.h"
#include "ir/IR.h"

namespace texc {

struct Symbol {
  enum class Kind { Size, Tensor, Index, FloatAttribute };
  Kind kind = Kind::Size;
  SourceLoc loc;       // where it was defined
  int64_t value = 0;   // Size: its value
  Buffer buffer;       // Tensor
  Var var;             // Index: an axis of the tensor being defined, or a reduction variable
  int64_t offset = 0;  // Index: the name stands for var + offset (`r in LO..HI` has offset LO)
  int axis = -1;       // Index: position among the defined tensor's axes; -1 for reduction variables
  double real = 0;     // FloatAttribute: its value (`eps: f32 = 1e-5`), a constant of type `type`
  Type type;           // FloatAttribute: its declared float type

  static Symbol size(int64_t v, SourceLoc l) {
    Symbol s;
    s.kind = Kind::Size;
    s.value = v;
    s.loc = l;
    return s;
  }
  static Symbol float_attribute(double v, Type t, SourceLoc l) {
    Symbol s;
    s.kind = Kind::FloatAttribute;
    s.real = v;
    s.type = t;
    s.loc = l;
    return s;
  }
  static Symbol tensor(Buffer b, SourceLoc l) {
    Symbol s;
    s.kind = Kind::Tensor;
    s.buffer = std::move(b);
    s.loc = l;
    return s;
  }
};

class Scope {
 public:
  explicit Scope(const Scope* parent = nullptr) : parent_(parent) {}

  /// The innermost definition of `name`, or null.
  const Symbol* lookup(const std::string& name) const;
  /// Defines `name` here; a name visible from here already is an error ("'N' is already defined",
  /// with a note at the previous definition).
  void define(const std::string& name, SourceLoc loc, Symbol symbol);
  /// Names that will be defined later in this scope (tensors of the compute block not reached yet),
  /// so that a use before the definition gets its own message.
  void declare_later(const std::string& name) { later_.insert(name); }
  void defined_now(const std::string& name) { later_.erase(name); }
  bool is_declared_later(const std::string& name) const;
  /// Every visible name (for "did you mean").
  std::vector<std::string> visible_names() const;

  /// Throws the right diagnostic for a name that lookup() did not find.
  [[noreturn]] void throw_unknown(const std::string& name, SourceLoc loc) const;

 private:
  const Scope* parent_;
  std::map<std::string, Symbol> symbols_;
  std::set<std::string> later_;
};

/// Throws `diag` with one note attached.
[[noreturn]] void throw_with_note(Diagnostic diag, SourceLoc note_loc, std::string note);

}  // namespace texc
