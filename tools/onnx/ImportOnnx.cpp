#include "tools/onnx/ImportOnnx.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <onnx/onnx_pb.h>

#include "backends/interp/Npy.h"
#include "tools/onnx/OnnxTensor.h"

namespace texc {
namespace {

using Shape = std::vector<int64_t>;

/// A tensor of the graph as the op sees it.
struct Value {
  std::string tex;                 // the .tex name (once materialized, for constants)
  Type type;
  Shape shape;                     // ONNX's shape (rank 0 allowed)
  std::optional<Tensor> constant;  // initializers and Constant outputs: the value
  bool materialized = false;       // a tensor of the op (a parameter or a stage)
  bool used = false;               // read as a tensor by a node (or copied to an output)
  // Layout planning (OnnxImportOptions::blocked_layout): the .tex name of the value's NCHW[block]c
  // form ("" = none) and its channels per block. A value a blocked op produced has only that form
  // (tex "") until a node that needs NCHW reads it: then `tex` is its nchwc_to_nchw, made once.
  // A graph output keeps its name for its NCHW form: `tex` is reserved, made once read.
  std::string blocked;
  int64_t block = 0;
  bool plain_pending = false;  // tex names the NCHW form, which is not made yet
};

int64_t product(const Shape& s, size_t from = 0, size_t to = size_t(-1)) {
  int64_t p = 1;
  size_t end = std::min(to, s.size());
  for (auto it = s.begin() + int64_t(std::min(from, end)); it != s.begin() + int64_t(end); ++it) p *= *it;
  return p;
}

/// The .tex dimensions of an ONNX shape: rank 0 is [1].
Shape tex_dims(const Shape& s) { return s.empty() ? Shape{1} : s; }

std::string join(const std::vector<std::string>& parts, const std::string& sep = ", ") {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

std::string shape_text(const Shape& s) {
  std::vector<std::string> parts;
  for (int64_t d : s) parts.push_back(std::to_string(d));
  std::string text = join(parts);  // (not "[" + ...: GCC 12 warns -Wrestrict there)
  text.insert(text.begin(), '[');
  return text + "]";
}

/// A float literal of the language (always with a '.' or an exponent; negative in parentheses).
std::string literal(double v) {
  if (!std::isfinite(v)) throw std::invalid_argument("not finite");
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", std::fabs(v));
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  size_t e = s.find('e');
  if (e != std::string::npos && s.find('.') == std::string::npos) s.insert(e, ".0");
  if (e != std::string::npos && s[e + 1] == '+') s.erase(e + 1, 1);
  return v < 0 ? "(-" + s + ")" : s;
}

const std::set<std::string>& reserved_names() {
  static const std::set<std::string> names = {
      "import", "param", "op", "intrinsic", "compute", "const", "schedule", "lower", "extern", "knob", "in",
      "factors", "if", "else", "for", "true", "false", "target", "exp", "log", "sqrt", "tanh", "sigmoid",
      "floor", "ceil", "abs", "pow", "max", "min", "select", "sum", "prod", "f16", "bf16", "f32", "f64", "i8", "i16",
      "i32", "i64", "u8", "u16", "u32", "u64", "bool", "int", "conv2d", "conv2d_dilated", "depthwise_conv2d",
      "matmul", "dense", "relu", "sigmoid_act", "tanh_act", "softmax", "log_softmax", "batch_norm",
      "max_pool2d", "avg_pool2d", "global_avg_pool2d", "transpose"};
  return names;
}

/// Index variables of the emitted expressions: i0, i1, ... (the stage's axes), r0, r1, ... (reductions).
std::string index_name(char prefix, size_t k) {  // (not "i" + to_string: GCC 12 warns -Wrestrict there)
  std::string s = std::to_string(k);
  s.insert(s.begin(), prefix);
  return s;
}
std::string ivar(size_t k) { return index_name('i', k); }
std::string rvar(size_t k) { return index_name('r', k); }

class Importer {
 public:
  /// `dynamic`: each symbolic first dimension of a graph input (by its dim_param, "" for one with
  /// neither a value nor a name) and the number it stands for in this import (import_onnx_bytes).
  Importer(const onnx::ModelProto& model, const OnnxImportOptions& options, std::map<std::string, int64_t> dynamic)
      : model_(model), options_(options), dynamic_(std::move(dynamic)) {}

  ImportedModel run();

 private:
  const onnx::ModelProto& model_;
  const OnnxImportOptions& options_;
  std::map<std::string, int64_t> dynamic_;
  int64_t opset_ = 0;
  std::map<std::string, Value> values_;
  std::set<std::string> taken_;           // .tex names in use
  std::set<std::string> imports_;         // stdlib modules
  std::set<std::string> graph_outputs_;   // the graph's output names
  std::map<std::string, std::vector<const onnx::NodeProto*>> consumers_;  // the nodes reading each value
  std::set<const onnx::NodeProto*> folded_batch_norms_;  // folded into the Conv they follow
  std::vector<std::string> lines_;        // the compute block
  std::vector<std::string> param_decls_;  // the op's parameters in order
  std::map<std::string, Shape> declared_;  // shapes the graph declares (outputs, value_info)
  ImportedModel result_;
  // The node being imported, for messages.
  const onnx::NodeProto* node_ = nullptr;
  int node_index_ = 0;

  // ---- names and messages
  std::string fresh_name(const std::string& onnx_name) {
    std::string s;
    for (char c : onnx_name) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
    if (s.empty()) s = "t";
    if (std::isdigit(static_cast<unsigned char>(s[0]))) s = "t_" + s;
    bool index_like = (s[0] == 'i' || s[0] == 'r') && s.size() > 1 &&
                      std::all_of(s.begin() + 1, s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    if (reserved_names().count(s) || index_like || s == result_.op_name) s += "_";
    std::string name = s;
    for (int k = 2; taken_.count(name); ++k) name = s + "_" + std::to_string(k);
    taken_.insert(name);
    return name;
  }

  [[noreturn]] void fail(const std::string& message) const {
    std::string where;
    if (node_) {
      where = "node " + (node_->name().empty() ? "#" + std::to_string(node_index_) : "'" + node_->name() + "'") + " (" +
              node_->op_type() + ", opset " + std::to_string(opset_) + "): ";
    }
    throw OnnxImportError(where + message, node_ ? node_->op_type() : std::string());
  }

  // ---- attributes
  const onnx::AttributeProto* attr(const std::string& name) const {
    for (const auto& a : node_->attribute())
      if (a.name() == name) return &a;
    return nullptr;
  }
  int64_t attr_int(const std::string& name, int64_t dflt) const {
    const auto* a = attr(name);
    return a ? a->i() : dflt;
  }
  double attr_float(const std::string& name, double dflt) const {
    const auto* a = attr(name);
    return a ? double(a->f()) : dflt;
  }
  std::string attr_string(const std::string& name, const std::string& dflt) const {
    const auto* a = attr(name);
    return a ? a->s() : dflt;
  }
  std::optional<std::vector<int64_t>> attr_ints(const std::string& name) const {
    const auto* a = attr(name);
    if (!a) return std::nullopt;
    return std::vector<int64_t>(a->ints().begin(), a->ints().end());
  }
  /// Fails on an attribute the node has but the importer does not read.
  void only_attributes(std::initializer_list<const char*> known) const {
    for (const auto& a : node_->attribute())
      if (std::find_if(known.begin(), known.end(), [&](const char* k) { return a.name() == k; }) == known.end())
        fail("attribute '" + a.name() + "' is not supported");
  }

  // ---- inputs
  size_t num_inputs() const {  // trailing absent optional inputs ("") not counted
    size_t n = size_t(node_->input_size());
    while (n > 0 && node_->input(int(n) - 1).empty()) --n;
    return n;
  }
  bool has_input(size_t k) const { return k < num_inputs() && !node_->input(int(k)).empty(); }
  Value& input(size_t k) {
    if (!has_input(k)) fail("input " + std::to_string(k) + " is missing");
    auto it = values_.find(node_->input(int(k)));
    if (it == values_.end()) fail("input '" + node_->input(int(k)) + "' is not defined before the node");
    return it->second;
  }
  /// The .tex name of input k as a tensor of the op (a constant becomes a const input).
  std::string tensor(size_t k) { return materialize(input(k)); }
  std::string materialize(Value& v) {
    v.used = true;
    if (!v.blocked.empty() && (v.tex.empty() || v.plain_pending)) {  // a blocked value read as NCHW: back to NCHW, once
      // (its first shape[1] channels: the padding lanes of a channel count no multiple of the block dropped)
      if (v.tex.empty()) v.tex = fresh_name(v.blocked + "_nchw");
      v.plain_pending = false;
      imports_.insert("nn.conv2d_nchwc");
      emit(v.tex + " = nchwc_to_nchw(" + v.blocked + (v.shape[1] % v.block ? ", channels = " + std::to_string(v.shape[1]) : "") + ")");
      return v.tex;
    }
    if (std::find(v.shape.begin(), v.shape.end(), 0) != v.shape.end())
      fail("tensor of shape " + shape_text(v.shape) + " has no elements (texc's extents are positive)");
    if (!v.materialized) {  // a constant used as data: a const input of the op
      result_.weights.push_back({v.tex, v.tex, *v.constant});
      param_decls_.push_back(v.tex + ": const " + v.type.str() + shape_text(tex_dims(v.shape)));
      v.materialized = true;
    }
    return v.tex;
  }
  /// The values of a constant input (Reshape's shape, Clip's bounds ...).
  const Tensor& constant_input(size_t k, const std::string& what) {
    Value& v = input(k);
    if (!v.constant) fail(what + " (input '" + node_->input(int(k)) + "') must be an initializer or a Constant");
    return *v.constant;
  }
  std::vector<int64_t> constant_ints(size_t k, const std::string& what) {
    const Tensor& t = constant_input(k, what);
    std::vector<int64_t> out;
    if (t.dtype().is_float()) fail(what + " must be integers");
    for (int64_t i = 0; i < t.num_elements(); ++i) out.push_back(t.get_int(i));
    if (input(k).shape.empty() && out.size() == 1) return out;
    return out;
  }
  void require_float(const Value& v, bool f32_only = false) {
    if (f32_only ? v.type != Float(32) : !(v.type == Float(32) || v.type == Float(64)))
      fail("element type " + v.type.str() + " is not supported (" + (f32_only ? "f32" : "f32 or f64") + " only)");
  }
  void require_types(std::initializer_list<Type> types, const Value& v) {
    for (Type t : types)
      if (v.type == t) return;
    fail("element type " + v.type.str() + " is not supported");
  }
  int64_t axis_of(int64_t axis, size_t rank) {
    int64_t r = int64_t(rank);
    if (axis < -r || axis >= std::max<int64_t>(r, 1)) fail("axis " + std::to_string(axis) + " is out of range");
    return axis < 0 ? axis + r : axis;
  }

  /// The shape the graph declares for output 0 (a value computed at run time that decides a shape:
  /// static shapes only, so the graph must declare the result's).
  Shape declared_output_shape(const std::string& what) {
    auto it = declared_.find(node_->output(0));
    if (it == declared_.end()) fail(what + " is not a constant and the output's shape is not declared");
    return it->second;
  }

  // ---- outputs
  /// Declares output k of the node: a new stage named after it.
  std::string define_output(size_t k, Type type, const Shape& shape) {
    if (int(k) >= node_->output_size() || node_->output(int(k)).empty()) fail("output " + std::to_string(k) + " is missing");
    const std::string& name = node_->output(int(k));
    if (values_.count(name)) fail("output '" + name + "' is defined twice");
    if (std::find(shape.begin(), shape.end(), 0) != shape.end())
      fail("output '" + name + "' of shape " + shape_text(shape) + " has no elements (texc's extents are positive)");
    Value v;
    v.tex = fresh_name(name);
    v.type = type;
    v.shape = shape;
    v.materialized = true;
    values_[name] = v;
    return v.tex;
  }
  std::string temp(const std::string& base) { return fresh_name(base); }
  /// Declares the values const input `tex` is drawn from by `texc run` without weights (" in LO..HI",
  /// docs/language.md "Input domains"): a variance is not negative.
  void declare_const_domain(const std::string& tex, const std::string& domain) {
    for (std::string& decl : param_decls_)
      if (decl.rfind(tex + ": const ", 0) == 0 && decl.find(" in ") == std::string::npos) decl += domain;
  }

  // ---- layout planning (OnnxImportOptions::blocked_layout; docs/onnx.md "Layouts")
  /// Input k is f32 in the NCHW[x]c layout already (a blocked op produced it).
  bool blocked_input(size_t k) {
    Value& v = input(k);
    return !v.blocked.empty() && v.type == Float(32) && v.shape.size() == 4;
  }
  /// Whether value `name` reaches a convolution of one group, or a depthwise one (one weight
  /// channel per group), through nodes that keep the blocked layout (Relu, Clip, MaxPool, Add,
  /// BatchNormalization): only then does a convolution on NCHW input pay for computing its result
  /// in blocks.
  bool feeds_blocked_conv(const std::string& name, int depth = 0) const {
    auto it = consumers_.find(name);
    if (it == consumers_.end() || depth > 8) return false;
    for (const onnx::NodeProto* n : it->second) {
      const std::string& t = n->op_type();
      if (t == "Conv") {
        int64_t group = 1;
        for (const auto& a : n->attribute())
          if (a.name() == "group") group = a.i();
        if (group == 1) return true;
        auto w = n->input_size() > 1 ? values_.find(n->input(1)) : values_.end();
        if (w != values_.end() && w->second.shape.size() == 4 && w->second.shape[1] == 1 && w->second.shape[0] == group)
          return true;  // depthwise: depthwise_conv2d_nchwc keeps the blocks
      } else if ((t == "Relu" || t == "Clip" || t == "MaxPool" || t == "Add" || t == "BatchNormalization") && n->output_size() > 0 &&
                 feeds_blocked_conv(n->output(0), depth + 1)) {
        return true;
      }
    }
    return false;
  }
  /// The BatchNormalization that folds into this Conv (docs/onnx.md "Batch norm folding"): the only
  /// reader of the Conv's output, neither of them a graph output, with constant scale, B, mean and var of
  /// the Conv's output channels and its default attributes; null when there is none.
  const onnx::NodeProto* foldable_batch_norm(int64_t out_channels) const {
    const std::string& y = node_->output(0);
    auto it = consumers_.find(y);
    if (graph_outputs_.count(y) || it == consumers_.end() || it->second.size() != 1) return nullptr;
    const onnx::NodeProto* bn = it->second[0];
    if (bn->op_type() != "BatchNormalization" || bn->input_size() < 5 || bn->input(0) != y || bn->output_size() < 1 ||
        graph_outputs_.count(bn->output(0)))
      return nullptr;
    for (int k = 1; k < bn->output_size(); ++k)
      if (!bn->output(k).empty()) return nullptr;
    for (const auto& a : bn->attribute())
      if (!((a.name() == "epsilon") || (a.name() == "momentum") || (a.name() == "spatial" && a.i() == 1) ||
            (a.name() == "training_mode" && a.i() == 0)))
        return nullptr;
    for (int k = 1; k <= 4; ++k) {
      auto v = values_.find(bn->input(k));
      if (v == values_.end() || !v->second.constant || v->second.type != Float(32) || v->second.shape != Shape{out_channels})
        return nullptr;
    }
    return bn;
  }
  /// The .tex dimensions of the NCHW[block]c form of a logical NCHW shape (the channels padded to a
  /// multiple of block).
  static Shape blocked_dims(const Shape& nchw, int64_t block) {
    return {nchw[0], (nchw[1] + block - 1) / block, nchw[2], nchw[3], block};
  }
  /// The NCHW[block]c form of `v` (f32, 4-D; the channels padded with zeros to a multiple of block),
  /// made from its NCHW form by nchw_to_nchwc once where it has none.
  std::string blocked_form(Value& v, int64_t block) {
    v.used = true;
    if (!v.blocked.empty() && v.block == block) return v.blocked;
    std::string plain = materialize(v);
    std::string b = fresh_name(plain + "_nchw" + std::to_string(block) + "c");
    imports_.insert("nn.conv2d_nchwc");
    emit(b + " = nchw_to_nchwc(" + plain + ", block = " + std::to_string(block) + ")");
    if (v.blocked.empty()) {
      v.blocked = b;
      v.block = block;
    }
    return b;
  }
  /// Declares output k of the node as an f32 tensor of logical NCHW shape `shape` that exists in
  /// the NCHW[block]c layout only (until a node reads it as NCHW).
  std::string define_blocked_output(size_t k, const Shape& shape, int64_t block) {
    std::string name = define_output(k, Float(32), shape);
    Value& v = values_[node_->output(int(k))];
    v.block = block;
    if (graph_outputs_.count(node_->output(int(k)))) {  // the name stays the NCHW output's
      v.blocked = fresh_name(node_->output(int(k)) + "_nchw" + std::to_string(block) + "c");
      v.plain_pending = true;
      return v.blocked;
    }
    v.blocked = name;
    v.tex.clear();
    return name;
  }
  /// An elementwise node on `count` inputs of one NCHW shape, one of them blocked at least: the
  /// output in that input's layout (the others converted to it). `expr` gets each input's access
  /// at the output's point.
  void blocked_elementwise(const std::function<std::string(const std::vector<std::string>&)>& expr, size_t count) {
    const Shape shape = input(0).shape;
    int64_t block = 0;
    for (size_t k = 0; k < count && !block; ++k)
      if (blocked_input(k)) block = input(k).block;
    std::vector<std::string> args;
    for (size_t k = 0; k < count; ++k) args.push_back(at(blocked_form(input(k), block), ivars(5)));
    std::string y = define_blocked_output(0, shape, block);
    emit(lhs(y, blocked_dims(shape, block)) + " = " + expr(args));
  }
  void emit(const std::string& line) { lines_.push_back("    " + line); }
  /// `name[i0: d0, i1: d1, ...]`, the left side of a definition.
  static std::string lhs(const std::string& name, const Shape& shape) {
    Shape d = tex_dims(shape);
    std::vector<std::string> parts;
    for (size_t k = 0; k < d.size(); ++k) parts.push_back(ivar(k) + ": " + std::to_string(d[k]));
    return name + "[" + join(parts) + "]";
  }
  /// Access of tensor `name` of shape `in` from a stage of shape `out` under numpy broadcasting.
  static std::string bcast(const std::string& name, const Shape& in, const Shape& out) {
    if (in.empty()) return name + "[0]";
    std::vector<std::string> idx;
    size_t off = out.size() - in.size();
    for (size_t k = 0; k < in.size(); ++k) idx.push_back(in[k] == 1 && out[off + k] != 1 ? "0" : ivar(off + k));
    return name + "[" + join(idx) + "]";
  }
  static std::string at(const std::string& name, const std::vector<std::string>& idx) {
    return name + "[" + (idx.empty() ? std::string("0") : join(idx)) + "]";
  }
  static std::vector<std::string> ivars(size_t n) {
    std::vector<std::string> v;
    for (size_t k = 0; k < n; ++k) v.push_back(ivar(k));
    return v;
  }
  Shape broadcast_shape(const std::vector<Shape>& shapes) {
    size_t rank = 0;
    for (const Shape& s : shapes) rank = std::max(rank, s.size());
    Shape out(rank, 1);
    for (const Shape& s : shapes)
      for (size_t k = 0; k < s.size(); ++k) {
        int64_t& o = out[rank - s.size() + k];
        if (s[k] == o || s[k] == 1) continue;
        if (o != 1) fail("shapes " + shape_text(shapes[0]) + " and " + shape_text(s) + " do not broadcast");
        o = s[k];
      }
    return out;
  }

  // ---- the ops
  void import_node();
  void elementwise(Type out_type, const std::function<std::string(const std::vector<std::string>&)>& expr,
                   size_t first = 0, size_t count = size_t(-1));
  void unary_float(const std::function<std::string(const std::string&)>& expr, bool any_numeric = false);
  void copy_reshaped(const Shape& out_shape);
  void conv();
  void pool(bool is_max);
  /// Conv's and pool's output extent along each spatial axis of `in` (N, C, spatial...), appended
  /// to `out`; `auto_pad` SAME_UPPER/SAME_LOWER/VALID rewrites `pads` (begins, then ends) as ONNX says.
  void append_spatial_extents(const Shape& in, const std::vector<int64_t>& K, const std::vector<int64_t>& strides,
                              const std::vector<int64_t>& dil, const std::string& auto_pad, std::vector<int64_t>& pads,
                              Shape& out) const;
  void global_pool(bool is_max);
  void batch_norm();
  void softmax(bool log);
  void matmul();
  void gemm();
  void clip();
  void concat();
  void reduce(const std::string& kind);
  void transpose();
  void layer_norm();
  void gather(bool elements);
  void arg_reduce(bool is_max);
  void split();
  void cast();
  void slice();
  void conv_transpose();
  void pad();
  void nll_loss(bool softmax_first);
  bool more_ops();  // the ops of OnnxOpsMore below; false when the op type is none of them
  /// A constant output (Shape, ConstantOfShape): folded, a const input where a node reads it.
  void define_constant(size_t k, Tensor value, const Shape& shape) {
    const std::string& name = node_->output(int(k));
    Value v;
    v.type = value.dtype();
    v.shape = shape;
    v.constant = std::move(value);
    v.tex = fresh_name(name);
    values_[name] = std::move(v);
  }
  /// A literal of type t ("f64(0.5)" for f64 and integers; float literals are f32 where alone).
  static std::string typed(Type t, const std::string& lit) { return t == Float(32) ? lit : t.str() + "(" + lit + ")"; }
  std::map<std::string, std::string> domains_;  // tex name -> " in LO..HI" of an index input (Gather)
};

void Importer::elementwise(Type out_type, const std::function<std::string(const std::vector<std::string>&)>& expr,
                           size_t first, size_t count) {
  size_t n = std::min(num_inputs(), first + count);
  std::vector<Shape> shapes;
  for (size_t k = first; k < n; ++k) shapes.push_back(input(k).shape);
  Shape out = broadcast_shape(shapes);
  std::vector<std::string> args;
  for (size_t k = first; k < n; ++k) {
    std::string t = tensor(k);
    args.push_back(bcast(t, input(k).shape, out));
  }
  std::string y = define_output(0, out_type, out);
  emit(lhs(y, out) + " = " + expr(args));
}

void Importer::unary_float(const std::function<std::string(const std::string&)>& expr, bool any_numeric) {
  if (num_inputs() != 1) fail("takes one input");
  if (!any_numeric) require_float(input(0));
  elementwise(input(0).type, [&](const std::vector<std::string>& a) { return expr(a[0]); });
}

/// Y = X with another shape of the same elements (row-major order kept).
void Importer::copy_reshaped(const Shape& out) {
  Value& x = input(0);
  if (product(x.shape) != product(out)) fail("cannot reshape " + shape_text(x.shape) + " to " + shape_text(out));
  std::string xn = tensor(0);
  Shape in = x.shape;
  Type type = x.type;
  std::string y = define_output(0, type, out);
  if (in == out) {
    emit(lhs(y, out) + " = " + at(xn, ivars(out.size())));
    return;
  }
  // flat index of the output point, then the input's index of it
  std::vector<std::string> terms;
  for (size_t k = 0; k < out.size(); ++k) {
    int64_t stride = product(out, k + 1);
    if (out[k] == 1) continue;
    terms.push_back(stride == 1 ? ivar(k) : ivar(k) + " * " + std::to_string(stride));
  }
  std::string flat = terms.empty() ? "0" : join(terms, " + ");
  std::vector<std::string> idx;
  for (size_t m = 0; m < in.size(); ++m) {
    int64_t stride = product(in, m + 1);
    if (in[m] == 1) { idx.push_back("0"); continue; }
    std::string e = flat;
    if (stride != 1) e = (terms.size() > 1 ? "(" + e + ")" : e) + " / " + std::to_string(stride);
    // the quotient is below in[m] when no earlier dimension has more than one index
    if (product(in, 0, m) > 1) e = (terms.size() > 1 || stride != 1 ? "(" + e + ")" : e) + " % " + std::to_string(in[m]);
    idx.push_back(e);
  }
  emit(lhs(y, out) + " = " + at(xn, idx));
}

void Importer::transpose() {
  only_attributes({"perm"});
  Value& x = input(0);
  size_t r = x.shape.size();
  std::vector<int64_t> perm(r);
  if (auto p = attr_ints("perm")) perm = *p;
  else
    for (size_t k = 0; k < r; ++k) perm[k] = int64_t(r - 1 - k);
  std::vector<bool> seen(r, false);
  if (perm.size() != r) fail("perm has " + std::to_string(perm.size()) + " entries for rank " + std::to_string(r));
  for (int64_t p : perm) {
    if (p < 0 || p >= int64_t(r) || seen[size_t(p)]) fail("perm is not a permutation");
    seen[size_t(p)] = true;
  }
  Shape out(r);
  for (size_t k = 0; k < r; ++k) out[k] = x.shape[size_t(perm[k])];
  Type type = x.type;
  std::string xn = tensor(0);
  std::string y = define_output(0, type, out);
  if (r == 2 && type == Float(32) && perm[0] == 1) {
    imports_.insert("tensor.transpose");
    emit(y + " = transpose(" + xn + ")");
    return;
  }
  std::vector<std::string> idx(r);
  for (size_t k = 0; k < r; ++k) idx[size_t(perm[k])] = ivar(k);
  emit(lhs(y, out) + " = " + at(xn, idx));
}

void Importer::append_spatial_extents(const Shape& in, const std::vector<int64_t>& K, const std::vector<int64_t>& strides,
                                      const std::vector<int64_t>& dil, const std::string& auto_pad,
                                      std::vector<int64_t>& pads, Shape& out) const {
  size_t sp = in.size() - 2;
  for (size_t d = 0; d < sp; ++d) {
    int64_t D = in[2 + d], ek = dil[d] * (K[d] - 1) + 1;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      int64_t o = (D + strides[d] - 1) / strides[d];
      int64_t total = std::max<int64_t>(0, (o - 1) * strides[d] + ek - D);
      pads[d] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pads[sp + d] = total - pads[d];
    } else if (auto_pad == "VALID") {
      pads[d] = pads[sp + d] = 0;
    } else if (auto_pad != "NOTSET") {
      fail("auto_pad '" + auto_pad + "' is not supported");
    }
    int64_t o = (D + pads[d] + pads[sp + d] - ek) / strides[d] + 1;
    if (o < 1) fail("the kernel is larger than the padded input");
    out.push_back(o);
  }
}

void Importer::conv() {
  only_attributes({"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
  Value& x = input(0);
  Value& w = input(1);
  require_float(x, true);
  require_float(w, true);
  if (x.shape.size() < 3) fail("input of rank " + std::to_string(x.shape.size()) + " is not supported");
  if (w.shape.size() != x.shape.size()) fail("weights of rank " + std::to_string(w.shape.size()) + " for an input of rank " + std::to_string(x.shape.size()));
  size_t sp = x.shape.size() - 2;
  int64_t N = x.shape[0], C = x.shape[1], M = w.shape[0], G = attr_int("group", 1);
  if (G < 1 || C % G || M % G || w.shape[1] != C / G) fail("group " + std::to_string(G) + " does not fit " + std::to_string(C) + " input and " + std::to_string(M) + " output channels and weights " + shape_text(w.shape));
  Shape K(w.shape.begin() + 2, w.shape.end());
  if (auto ks = attr_ints("kernel_shape"))
    if (Shape(*ks) != K) fail("kernel_shape " + shape_text(*ks) + " differs from the weights' " + shape_text(K));
  std::vector<int64_t> strides = attr_ints("strides").value_or(std::vector<int64_t>(sp, 1));
  std::vector<int64_t> dil = attr_ints("dilations").value_or(std::vector<int64_t>(sp, 1));
  std::vector<int64_t> pads = attr_ints("pads").value_or(std::vector<int64_t>(2 * sp, 0));
  if (strides.size() != sp || dil.size() != sp || pads.size() != 2 * sp) fail("strides, dilations or pads do not match the rank");
  std::string auto_pad = attr_string("auto_pad", "NOTSET");
  Shape out{N, M};
  append_spatial_extents(x.shape, K, strides, dil, auto_pad, pads, out);
  bool has_bias = has_input(2);
  if (has_bias && (input(2).shape != Shape{M} || input(2).type != Float(32))) fail("bias must be f32[" + std::to_string(M) + "]");
  bool uniform = sp == 2 && strides[0] == strides[1] && dil[0] == dil[1] && pads[0] == pads[1] && pads[0] == pads[2] &&
                 pads[0] == pads[3];
  std::string args = ", stride = " + std::to_string(strides[0]) + ", pad = " + std::to_string(pads[0]);
  // Batch norm folding: a BatchNormalization with constant parameters that alone reads this
  // result becomes part of the weights and bias, W'[o, ...] = W[o, ...] * s[o] and
  // b'[o] = (b[o] - mean[o]) * s[o] + B[o] with s = scale / sqrt(var + eps): const stages, computed
  // once by the prepare function. The Conv then writes the BatchNormalization's output.
  std::string wn = tensor(1), bn = has_bias ? tensor(2) : "";
  std::string out_name = node_->output(0);
  if (const onnx::NodeProto* norm = foldable_batch_norm(M)) {
    double eps = 1e-5;
    for (const auto& a : norm->attribute())
      if (a.name() == "epsilon") eps = double(a.f());
    auto param = [&](int k) { return materialize(values_.at(norm->input(k))); };
    std::string sn = param(1), betan = param(2), meann = param(3), varn = param(4);
    declare_const_domain(varn, " in 0.0..4.0");  // as nn.batch_norm's var
    std::string m = std::to_string(M);
    std::string scale = temp(out_name + "_bn_scale"), wf = temp(wn + "_bn"), bf = temp(out_name + "_bn_bias");
    emit(scale + "[i0: " + m + "] = " + sn + "[i0] / sqrt(" + varn + "[i0] + " + literal(double(float(eps))) + ")");
    emit(lhs(wf, w.shape) + " = " + at(wn, ivars(w.shape.size())) + " * " + scale + "[i0]");
    emit(bf + "[i0: " + m + "] = " + (has_bias ? "(" + bn + "[i0] - " + meann + "[i0])" : "(0.0 - " + meann + "[i0])") +
         " * " + scale + "[i0] + " + betan + "[i0]");
    wn = wf;
    bn = bf;
    has_bias = true;
    folded_batch_norms_.insert(norm);
  }
  // Layout planning: a convolution conv2d would compute in blocks anyway (not 1x1 without padding,
  // whose conv2d_1x1 reads NCHW as it is) whose result reaches another convolution through ops
  // that keep blocks (feeds_blocked_conv), or one whose input is blocked already (1x1 included), is
  // computed by conv2d_nchwc on the NCHW[16]c form of its input (the network's input: in blocks of
  // its C < 16 channels), its weights blocked by oihw_to_oihwio (const: once, in the prepare
  // function), its result and bias in NCHW16c for the next blocked op. Output channels that are no
  // multiple of 16 (MobileNetV2's 24) are padded with zeros to one: the padded weights are zeros
  // (oihw_to_oihwio), the bias is selected to 0.0 there, and the next convolution's padded weights
  // are zeros too, so the padding lanes never reach a real channel (docs/onnx.md "Layouts": at 1
  // thread 2% faster end to end than blocks of 8 for those channels).
  bool pointwise = K[0] == 1 && K[1] == 1 && pads[0] == 0;
  bool input_blocked = x.block == 16 && blocked_input(0);
  std::string m = std::to_string(M);
  // the bias on the blocks of C channels: 0.0 in the padding lanes past C
  auto blocked_bias = [&](int64_t channels) {
    std::string at_c = bn + "[i1 * 16 + i4]";
    return channels % 16 ? "select(i1 * 16 + i4 < " + std::to_string(channels) + ", " + at_c + ", 0.0)" : at_c;
  };
  if (options_.blocked_layout && uniform && G == 1 && dil[0] == 1 &&
      (input_blocked || (!pointwise && (C % 16 == 0 || C < 16) && feeds_blocked_conv(node_->output(0))))) {
    int64_t in_block = input_blocked || C % 16 == 0 ? 16 : C;
    std::string xb = blocked_form(x, in_block);
    std::string wb = temp(wn + "_blocked");
    imports_.insert("nn.conv2d_nchwc");
    emit(wb + " = oihw_to_oihwio(" + wn + ", in_block = " + std::to_string(in_block) + ", out_block = 16)");
    std::string y = define_blocked_output(0, out, 16);
    std::string conv_out = has_bias ? temp(node_->output(0) + "_conv") : y;
    emit(conv_out + " = conv2d_nchwc(" + xb + ", " + wb + args + ")");
    if (has_bias) emit(lhs(y, blocked_dims(out, 16)) + " = " + at(conv_out, ivars(5)) + " + " + blocked_bias(M));
    return;
  }
  // A depthwise convolution (one input channel per group, channel multiplier 1) of a blocked input
  // is depthwise_conv2d_nchwc on the blocks, its weights re-laid out once (a const stage:
  // `<op>_prepare`) as Wb[cb, ry, rx, ci] = W[cb * 16 + ci, 0, ry, rx] (0.0 in the padding lanes),
  // its bias added on the blocks.
  if (options_.blocked_layout && uniform && G == C && M == C && w.shape[1] == 1 && dil[0] == 1 && input_blocked) {
    std::string xb = blocked_form(x, 16);
    std::string wb = temp(wn + "_blocked");
    imports_.insert("nn.depthwise_conv2d");
    std::string w_at = wn + "[i0 * 16 + i3, 0, i1, i2]";
    emit(lhs(wb, Shape{(C + 15) / 16, K[0], K[1], 16}) + " = " +
         (C % 16 ? "select(i0 * 16 + i3 < " + m + ", " + w_at + ", 0.0)" : w_at));
    std::string y = define_blocked_output(0, out, 16);
    std::string conv_out = has_bias ? temp(node_->output(0) + "_conv") : y;
    emit(conv_out + " = depthwise_conv2d_nchwc(" + xb + ", " + wb + args + ")");
    if (has_bias) emit(lhs(y, blocked_dims(out, 16)) + " = " + at(conv_out, ivars(5)) + " + " + blocked_bias(M));
    return;
  }
  std::string xn = tensor(0);
  std::string y = define_output(0, Float(32), out);
  std::string conv_out = has_bias ? temp(node_->output(0) + "_conv") : y;
  if (uniform && G == 1) {
    imports_.insert("nn.conv2d");
    if (dil[0] == 1) emit(conv_out + " = conv2d(" + xn + ", " + wn + args + ")");
    else emit(conv_out + " = conv2d_dilated(" + xn + ", " + wn + args + ", dilation = " + std::to_string(dil[0]) + ")");
  } else if (uniform && G == C && w.shape[1] == 1) {
    imports_.insert("nn.depthwise_conv2d");
    emit(conv_out + " = depthwise_conv2d(" + xn + ", " + wn + args + ", dilation = " + std::to_string(dil[0]) + ")");
  } else {
    // the general convolution: taps in the padding left out of the sum
    int64_t Cg = C / G, Mg = M / G;
    std::vector<std::string> xi{ivar(0), G == 1 ? rvar(0) : "(" + ivar(1) + " / " + std::to_string(Mg) + ") * " + std::to_string(Cg) + " + " + rvar(0)};
    std::vector<std::string> wi{ivar(1), rvar(0)}, conds, fors{rvar(0) + " in 0.." + std::to_string(Cg)};
    if (G > 1 && Mg == 1) xi[1] = ivar(1) + " * " + std::to_string(Cg) + " + " + rvar(0);
    for (size_t d = 0; d < sp; ++d) {
      std::string pos = ivar(2 + d) + (strides[d] != 1 ? " * " + std::to_string(strides[d]) : "") + " + " + rvar(1 + d) +
                        (dil[d] != 1 ? " * " + std::to_string(dil[d]) : "");
      int64_t D = x.shape[2 + d];
      if (pads[d] > 0) conds.push_back(pos + " >= " + std::to_string(pads[d]));
      if ((out[2 + d] - 1) * strides[d] + (K[d] - 1) * dil[d] >= D + pads[d]) conds.push_back(pos + " < " + std::to_string(D + pads[d]));
      xi.push_back(pads[d] > 0 ? pos + " - " + std::to_string(pads[d]) : pos);
      wi.push_back(rvar(1 + d));
      fors.push_back(rvar(1 + d) + " in 0.." + std::to_string(K[d]));
    }
    std::string term = at(xn, xi) + " * " + at(wn, wi);
    if (!conds.empty()) term = "select(" + join(conds, " && ") + ", " + term + ", 0.0)";
    emit(lhs(conv_out, out) + " = sum(" + term + " for " + join(fors) + ")");
  }
  if (has_bias) emit(lhs(y, out) + " = " + at(conv_out, ivars(out.size())) + " + " + bn + "[" + ivar(1) + "]");
}

void Importer::pool(bool is_max) {
  if (is_max) only_attributes({"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"});
  else only_attributes({"auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads", "strides"});
  bool with_indices = node_->output_size() > 1 && !node_->output(1).empty();
  if (with_indices && !is_max) fail("has a second output");
  Value& x = input(0);
  // MaxPool of 8-bit integers (opset 12 on): an expression, the padding the type's least value.
  bool integer = is_max && (x.type == Int(8) || x.type == UInt(8));
  if (!integer) require_float(x, true);
  if (x.shape.size() < 3) fail("input of rank " + std::to_string(x.shape.size()) + " is not supported");
  size_t sp = x.shape.size() - 2;
  auto ks = attr_ints("kernel_shape");
  if (!ks || ks->size() != sp) fail("kernel_shape is missing or does not match the rank");
  Shape K = *ks;
  std::vector<int64_t> strides = attr_ints("strides").value_or(std::vector<int64_t>(sp, 1));
  std::vector<int64_t> dil = attr_ints("dilations").value_or(std::vector<int64_t>(sp, 1));
  std::vector<int64_t> pads = attr_ints("pads").value_or(std::vector<int64_t>(2 * sp, 0));
  if (strides.size() != sp || dil.size() != sp || pads.size() != 2 * sp) fail("strides, dilations or pads do not match the rank");
  bool column_major = attr_int("storage_order", 0) != 0;
  if (column_major && !with_indices) fail("storage_order = 1 without the Indices output is not supported");
  bool include_pad = attr_int("count_include_pad", 0) != 0;
  std::string auto_pad = attr_string("auto_pad", "NOTSET");
  Shape out{x.shape[0], x.shape[1]};
  append_spatial_extents(x.shape, K, strides, dil, auto_pad, pads, out);
  // ceil_mode: a last, partial window where the floor leaves input over, if it starts inside the
  // input or its left padding (as PyTorch and ONNX Runtime): its taps past the end are not read
  // (max) and not counted (average, count_include_pad or not), as the conditions below say.
  bool ceil_extended = false;
  if (attr_int("ceil_mode", 0) != 0 && auto_pad == "NOTSET") {
    for (size_t d = 0; d < sp; ++d) {
      int64_t span = x.shape[2 + d] + pads[d] + pads[sp + d] - (dil[d] * (K[d] - 1) + 1);
      int64_t o = (span + strides[d] - 1) / strides[d] + 1;
      if ((o - 1) * strides[d] >= x.shape[2 + d] + pads[d]) --o;
      ceil_extended |= o != out[2 + d];
      out[2 + d] = o;
    }
  }
  bool uniform = sp == 2 && K[0] == K[1] && strides[0] == strides[1] && dil[0] == 1 && dil[1] == 1 &&
                 pads[0] == pads[1] && pads[0] == pads[2] && pads[0] == pads[3] && !ceil_extended && !integer && !with_indices;
  std::string args = ", kernel = " + std::to_string(K[0]) + ", stride = " + std::to_string(strides[0]) +
                     ", pad = " + std::to_string(pads[0]);
  if (is_max && uniform && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" && blocked_input(0)) {
    imports_.insert("nn.pool_nchwc");  // layout planning: the input's blocks kept
    std::string xb = blocked_form(x, x.block);
    emit(define_blocked_output(0, out, x.block) + " = max_pool2d_nchwc(" + xb + args + ")");
    return;
  }
  std::string xn = tensor(0);
  std::string y = define_output(0, x.type, out);
  if (uniform && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER") {
    imports_.insert("nn.pool");
    if (is_max) emit(y + " = max_pool2d(" + xn + args + ")");
    else emit(y + " = avg_pool2d(" + xn + args + ", count_include_pad = " + (include_pad ? "1" : "0") + ")");
    return;
  }
  std::vector<std::string> xi{ivar(0), ivar(1)}, conds, fors;
  for (size_t d = 0; d < sp; ++d) {
    std::string pos = ivar(2 + d) + (strides[d] != 1 ? " * " + std::to_string(strides[d]) : "") + " + " + rvar(d) +
                      (dil[d] != 1 ? " * " + std::to_string(dil[d]) : "");
    int64_t D = x.shape[2 + d];
    if (pads[d] > 0) conds.push_back(pos + " >= " + std::to_string(pads[d]));
    if ((out[2 + d] - 1) * strides[d] + (K[d] - 1) * dil[d] >= D + pads[d]) conds.push_back(pos + " < " + std::to_string(D + pads[d]));
    xi.push_back(pads[d] > 0 ? pos + " - " + std::to_string(pads[d]) : pos);
    fors.push_back(rvar(d) + " in 0.." + std::to_string(K[d]));
  }
  std::string cond = join(conds, " && ");
  if (is_max) {
    std::string least = !integer ? literal(-3.4028234663852886e38) : x.type == Int(8) ? "i8(-128)" : "u8(0)";
    std::string term = conds.empty() ? at(xn, xi) : "select(" + cond + ", " + at(xn, xi) + ", " + least + ")";
    emit(lhs(y, out) + " = max(" + term + " for " + join(fors) + ")");
    if (with_indices) {
      // Indices (opset 8 on): the index into the whole input (batch and channel included) of the
      // window's first element holding the maximum; its spatial part row-major, or column-major
      // with storage_order = 1. (The select of `term` guards the read; a padded tap never holds
      // the maximum.)
      std::string flat = "(" + xi[0] + ") * " + std::to_string(x.shape[1]) + " + " + xi[1];
      std::string spatial;
      for (size_t k = 0; k < sp; ++k) {
        size_t d = column_major ? 2 + sp - 1 - k : 2 + k;
        spatial = spatial.empty() ? xi[d] : "(" + spatial + ") * " + std::to_string(x.shape[d]) + " + " + xi[d];
      }
      flat = "(" + flat + ") * " + std::to_string(product(x.shape, 2)) + " + " + spatial;
      std::string hit = term + " == " + at(y, ivars(out.size()));
      std::string none = std::to_string(product(x.shape));
      std::string indices = define_output(1, Int(64), out);
      emit(lhs(indices, out) + " = min(select(" + hit + ", " + flat + ", " + none + ") for " + join(fors) + ")");
    }
    return;
  }
  std::string term = conds.empty() ? at(xn, xi) : "select(" + cond + ", " + at(xn, xi) + ", 0.0)";
  std::string count = literal(double(product(K)));
  if (!conds.empty() && !include_pad) count = "sum(select(" + cond + ", 1.0, 0.0) for " + join(fors) + ")";
  else if (!conds.empty()) {
    // count_include_pad counts the taps inside the padded input (not those past it)
    std::vector<std::string> pc;
    for (size_t d = 0; d < sp; ++d) {
      std::string pos = ivar(2 + d) + (strides[d] != 1 ? " * " + std::to_string(strides[d]) : "") + " + " + rvar(d) +
                        (dil[d] != 1 ? " * " + std::to_string(dil[d]) : "");
      if ((out[2 + d] - 1) * strides[d] + (K[d] - 1) * dil[d] >= x.shape[2 + d] + pads[d] + pads[sp + d])
        pc.push_back(pos + " < " + std::to_string(x.shape[2 + d] + pads[d] + pads[sp + d]));
    }
    if (!pc.empty()) count = "sum(select(" + join(pc, " && ") + ", 1.0, 0.0) for " + join(fors) + ")";
  }
  emit(lhs(y, out) + " = sum(" + term + " for " + join(fors) + ") / " + count);
}

void Importer::global_pool(bool is_max) {
  only_attributes({});
  Value& x = input(0);
  require_float(x, true);
  if (x.shape.size() < 3) fail("input of rank " + std::to_string(x.shape.size()) + " is not supported");
  Shape out{x.shape[0], x.shape[1]};
  std::vector<std::string> xi{ivar(0), ivar(1)}, fors;
  for (size_t d = 2; d < x.shape.size(); ++d) {
    out.push_back(1);
    xi.push_back(rvar(d - 2));
    fors.push_back(rvar(d - 2) + " in 0.." + std::to_string(x.shape[d]));
  }
  if (!is_max && blocked_input(0)) {  // layout planning: the input's blocks kept
    imports_.insert("nn.pool_nchwc");
    std::string xb = blocked_form(x, x.block);
    emit(define_blocked_output(0, out, x.block) + " = global_avg_pool2d_nchwc(" + xb + ")");
    return;
  }
  std::string xn = tensor(0);
  std::string y = define_output(0, Float(32), out);
  if (!is_max && x.shape.size() == 4) {
    imports_.insert("nn.pool");
    emit(y + " = global_avg_pool2d(" + xn + ")");
    return;
  }
  if (is_max) emit(lhs(y, out) + " = max(" + at(xn, xi) + " for " + join(fors) + ")");
  else emit(lhs(y, out) + " = sum(" + at(xn, xi) + " for " + join(fors) + ") / " + literal(double(product(x.shape, 2))));
}

void Importer::batch_norm() {
  if (folded_batch_norms_.count(node_)) {  // folded into the Conv before it: its output is the Conv's
    values_[node_->output(0)] = values_.at(node_->input(0));
    lines_.back() += " (folded into the weights and bias of the Conv before it)";
    return;
  }
  only_attributes({"epsilon", "momentum", "spatial", "training_mode"});
  if (attr_int("spatial", 1) != 1) fail("spatial = 0 is not supported");
  if (attr_int("training_mode", 0) != 0) fail("training_mode = 1 is not supported (inference only)");
  for (int k = 1; k < node_->output_size(); ++k)
    if (!node_->output(k).empty()) fail("the training outputs (mean, var, ...) are not supported");
  Value& x = input(0);
  require_float(x, true);
  if (x.shape.size() < 2) fail("input of rank " + std::to_string(x.shape.size()) + " is not supported");
  int64_t C = x.shape[1];
  for (size_t k = 1; k <= 4; ++k)
    if (input(k).shape != Shape{C} || input(k).type != Float(32)) fail("scale, B, mean and var must be f32[" + std::to_string(C) + "]");
  double eps = attr_float("epsilon", 1e-5);
  Shape shape = x.shape;
  if (blocked_input(0) && C % x.block == 0) {  // (padded blocks: NCHW, as its parameters have C entries)
    // Layout planning: on the blocks, as a multiply-add per channel, y = x * s + t with s = scale /
    // sqrt(var + eps) and t = B - mean * s; with const parameters s and t are computed once, by
    // the prepare function, and the multiply-add joins the convolution's epilogue.
    std::string sn = tensor(1), bn = tensor(2), mn = tensor(3), vn = tensor(4);
    declare_const_domain(vn, " in 0.0..4.0");  // as nn.batch_norm's var
    std::string s = temp(node_->output(0) + "_scale"), t = temp(node_->output(0) + "_shift");
    emit(s + "[i0: " + std::to_string(C) + "] = " + sn + "[i0] / sqrt(" + vn + "[i0] + " + literal(double(float(eps))) + ")");
    emit(t + "[i0: " + std::to_string(C) + "] = " + bn + "[i0] - " + mn + "[i0] * " + s + "[i0]");
    std::string c = "[i1 * " + std::to_string(x.block) + " + i4]";
    return blocked_elementwise([&](const std::vector<std::string>& a) { return a[0] + " * " + s + c + " + " + t + c; }, 1);
  }
  std::string xn = tensor(0), sn = tensor(1), bn = tensor(2), mn = tensor(3), vn = tensor(4);
  std::string y = define_output(0, Float(32), shape);
  if (shape.size() == 4) {
    imports_.insert("nn.norm");
    emit(y + " = batch_norm(" + xn + ", " + mn + ", " + vn + ", " + sn + ", " + bn + ", eps = " + literal(eps) + ")");
    return;
  }
  std::string c = ivar(1);
  emit(lhs(y, shape) + " = (" + at(xn, ivars(shape.size())) + " - " + mn + "[" + c + "]) / sqrt(" + vn + "[" + c + "] + " +
       literal(double(float(eps))) + ") * " + sn + "[" + c + "] + " + bn + "[" + c + "]");
}

void Importer::softmax(bool log) {
  only_attributes({"axis"});
  Value& x = input(0);
  require_float(x, true);
  size_t r = x.shape.size();
  if (r == 0) fail("a rank-0 input is not supported");
  int64_t axis = axis_of(attr_int("axis", opset_ >= 13 ? -1 : 1), r);
  // reduced dimensions: the axis (opset 13) or every dimension from it (before: the 2-D coercion)
  size_t first = size_t(axis), last = opset_ >= 13 ? size_t(axis) + 1 : r;
  Shape shape = x.shape;
  std::string xn = tensor(0);
  std::string y = define_output(0, Float(32), shape);
  if (r == 2 && last == 2 && first == 1) {
    imports_.insert("nn.softmax");
    emit(y + (log ? " = log_softmax(" : " = softmax(") + xn + ")");
    return;
  }
  // the kept dimensions index the per-row stages; the reduced ones are r0, r1, ...
  Shape kept;
  std::vector<std::string> kept_vars, xr, fors;
  for (size_t k = 0; k < r; ++k) {
    if (k >= first && k < last) {
      xr.push_back(rvar(k - first));
      fors.push_back(rvar(k - first) + " in 0.." + std::to_string(shape[k]));
    } else {
      kept.push_back(shape[k]);
      kept_vars.push_back(ivar(k));
      xr.push_back(ivar(k));
    }
  }
  // a per-row stage of the kept dimensions, indexed from the full stage and from its own axes
  auto row_lhs = [&](const std::string& name) {
    if (kept.empty()) return name + "[" + ivar(0) + ": 1]";
    std::vector<std::string> parts;
    for (size_t k = 0, j = 0; k < r; ++k)
      if (!(k >= first && k < last)) parts.push_back(ivar(k) + ": " + std::to_string(kept[j++]));
    return name + "[" + join(parts) + "]";
  };
  auto row_at = [&](const std::string& name) { return at(name, kept_vars); };
  std::string mx = temp(node_->output(0) + "_max"), ex = temp(node_->output(0) + "_exp"), sm = temp(node_->output(0) + "_sum");
  std::vector<std::string> all = ivars(r);
  emit(row_lhs(mx) + " = max(" + at(xn, xr) + " for " + join(fors) + ")");
  if (log) {
    emit(row_lhs(sm) + " = sum(exp(" + at(xn, xr) + " - " + row_at(mx) + ") for " + join(fors) + ")");
    emit(lhs(y, shape) + " = " + at(xn, all) + " - " + row_at(mx) + " - log(" + row_at(sm) + ")");
    return;
  }
  emit(lhs(ex, shape) + " = exp(" + at(xn, all) + " - " + row_at(mx) + ")");
  std::vector<std::string> er = xr;
  emit(row_lhs(sm) + " = sum(" + at(ex, er) + " for " + join(fors) + ")");
  emit(lhs(y, shape) + " = " + at(ex, all) + " / " + row_at(sm));
}

void Importer::matmul() {
  only_attributes({});
  Value& a = input(0);
  Value& b = input(1);
  require_float(a);
  if (a.type != b.type) fail("inputs of types " + a.type.str() + " and " + b.type.str());
  if (a.shape.empty() || b.shape.empty()) fail("rank-0 inputs are not supported");
  Shape as = a.shape, bs = b.shape;
  bool a1 = as.size() == 1, b1 = bs.size() == 1;
  if (a1) as.insert(as.begin(), 1);
  if (b1) bs.push_back(1);
  int64_t M = as[as.size() - 2], K = as.back(), N = bs.back();
  if (bs[bs.size() - 2] != K) fail("shapes " + shape_text(a.shape) + " and " + shape_text(b.shape) + " do not multiply");
  Shape batch = broadcast_shape({Shape(as.begin(), as.end() - 2), Shape(bs.begin(), bs.end() - 2)});
  Shape full = batch;
  full.push_back(M);
  full.push_back(N);
  Shape out = batch;
  if (!a1) out.push_back(M);
  if (!b1) out.push_back(N);
  Type type = a.type;
  std::string an = tensor(0), bn = tensor(1);
  std::string y = define_output(0, type, out);
  if (a.shape.size() == 2 && b.shape.size() == 2 && type == Float(32)) {
    imports_.insert("linalg.matmul");
    emit(y + " = matmul(" + an + ", " + bn + ")");
    return;
  }
  // out's axes: batch..., [i if !a1], [j if !b1]
  size_t nb = batch.size();
  std::string iv = a1 ? "0" : ivar(nb), jv = b1 ? "0" : ivar(nb + (a1 ? 0 : 1));
  auto operand = [&](const std::string& name, const Shape& orig, bool is_a) {
    std::vector<std::string> idx;
    size_t obatch = orig.size() >= 2 ? orig.size() - 2 : 0;
    for (size_t k = 0; k < obatch; ++k) {
      size_t ok = nb - obatch + k;
      idx.push_back(orig[k] == 1 && batch[ok] != 1 ? "0" : ivar(ok));
    }
    if (is_a) {
      if (orig.size() >= 2) idx.push_back(iv);
      idx.push_back(rvar(0));
    } else {
      idx.push_back(rvar(0));
      if (orig.size() >= 2) idx.push_back(jv);
    }
    return at(name, idx);
  };
  emit(lhs(y, out) + " = sum(" + operand(an, a.shape, true) + " * " + operand(bn, b.shape, false) + " for " + rvar(0) +
       " in 0.." + std::to_string(K) + ")");
}

void Importer::gemm() {
  only_attributes({"alpha", "beta", "transA", "transB", "broadcast"});
  Value& a = input(0);
  Value& b = input(1);
  require_float(a, true);
  require_float(b, true);
  if (a.shape.size() != 2 || b.shape.size() != 2) fail("A and B must be 2-D");
  bool ta = attr_int("transA", 0) != 0, tb = attr_int("transB", 0) != 0;
  double alpha = attr_float("alpha", 1.0), beta = attr_float("beta", 1.0);
  int64_t M = ta ? a.shape[1] : a.shape[0], K = ta ? a.shape[0] : a.shape[1];
  int64_t N = tb ? b.shape[0] : b.shape[1];
  if ((tb ? b.shape[1] : b.shape[0]) != K) fail("shapes " + shape_text(a.shape) + " and " + shape_text(b.shape) + " do not multiply");
  Shape out{M, N};
  bool has_c = has_input(2) && beta != 0.0;
  if (has_c) {
    require_float(input(2), true);
    broadcast_shape({input(2).shape, out});
    if (broadcast_shape({input(2).shape, out}) != out) fail("C does not broadcast to " + shape_text(out));
  }
  std::string an = tensor(0), bn = tensor(1), cn = has_c ? tensor(2) : "";
  Shape cs = has_c ? input(2).shape : Shape{};
  std::string y = define_output(0, Float(32), out);
  bool epilogue = has_c || alpha != 1.0;
  std::string prod = epilogue ? temp(node_->output(0) + "_mm") : y;
  if (!ta && !tb) {
    imports_.insert("linalg.matmul");
    emit(prod + " = matmul(" + an + ", " + bn + ")");
  } else if (!ta && tb) {
    imports_.insert("nn.dense");
    emit(prod + " = dense(" + an + ", " + bn + ")");
  } else {
    std::string ai = ta ? an + "[r0, i0]" : an + "[i0, r0]", bi = tb ? bn + "[i1, r0]" : bn + "[r0, i1]";
    emit(lhs(prod, out) + " = sum(" + ai + " * " + bi + " for r0 in 0.." + std::to_string(K) + ")");
  }
  if (!epilogue) return;
  std::string e = prod + "[i0, i1]";
  if (alpha != 1.0) e += " * " + literal(double(float(alpha)));
  if (has_c) e += " + " + bcast(cn, cs, out) + (beta != 1.0 ? " * " + literal(double(float(beta))) : "");
  emit(lhs(y, out) + " = " + e);
}

void Importer::clip() {
  Value& x = input(0);
  if (!x.type.is_float() && opset_ < 12) fail("integer inputs need opset 12");
  require_types({Float(32), Float(64), Int(8), Int(16), Int(32), Int(64), UInt(8), UInt(16), UInt(32), UInt(64)}, x);
  std::string lo, hi;
  if (opset_ < 11) {
    only_attributes({"min", "max"});
    if (attr("min")) lo = literal(attr_float("min", 0));
    if (attr("max")) hi = literal(attr_float("max", 0));
  } else {
    only_attributes({});
    for (size_t k = 1; k <= 2; ++k) {
      if (!has_input(k)) continue;
      Value& b = input(k);
      if (b.type != x.type || product(b.shape) != 1) fail("min and max must be scalars of the input's type");
      if (b.constant && x.type.is_float() && std::isinf(b.constant->get_double(0)) && (b.constant->get_double(0) < 0) == (k == 1))
        continue;  // an infinite bound on its own side clamps nothing
      std::string s = b.constant ? (x.type.is_float() ? literal(b.constant->get_double(0)) : typed(x.type, std::to_string(b.constant->get_int(0)))) : at(tensor(k), std::vector<std::string>(tex_dims(b.shape).size(), "0"));
      (k == 1 ? lo : hi) = s;
    }
  }
  auto clamp = [&](const std::vector<std::string>& a) {
    std::string e = a[0];
    if (!lo.empty()) e = "max(" + e + ", " + lo + ")";
    if (!hi.empty()) e = "min(" + e + ", " + hi + ")";
    return e;
  };
  if (blocked_input(0)) return blocked_elementwise(clamp, 1);  // layout planning: the blocks kept
  elementwise(x.type, clamp, 0, 1);
}

void Importer::concat() {
  only_attributes({"axis"});
  size_t n = num_inputs();
  if (n == 0) fail("takes at least one input");
  Value& x0 = input(0);
  size_t r = x0.shape.size();
  if (r == 0) fail("rank-0 inputs are not supported");
  int64_t axis = axis_of(attr_int("axis", 0), r);
  Shape out = x0.shape;
  out[size_t(axis)] = 0;
  std::vector<int64_t> starts;
  for (size_t k = 0; k < n; ++k) {
    Value& v = input(k);
    if (v.type != x0.type || v.shape.size() != r) fail("inputs of different types or ranks");
    for (size_t d = 0; d < r; ++d)
      if (d != size_t(axis) && v.shape[d] != x0.shape[d]) fail("inputs' shapes differ off the axis");
    starts.push_back(out[size_t(axis)]);
    out[size_t(axis)] += v.shape[size_t(axis)];
  }
  std::vector<std::string> names;
  for (size_t k = 0; k < n; ++k) names.push_back(tensor(k));
  Type type = x0.type;
  std::string y = define_output(0, type, out);
  std::string e;
  for (size_t k = n; k-- > 0;) {
    if (input(k).shape[size_t(axis)] == 0) continue;
    std::vector<std::string> idx = ivars(r);
    if (starts[k]) idx[size_t(axis)] = ivar(size_t(axis)) + " - " + std::to_string(starts[k]);
    std::string access = at(names[k], idx);
    e = e.empty() ? access : "select(" + ivar(size_t(axis)) + " < " + std::to_string(starts[k] + input(k).shape[size_t(axis)]) + ", " + access + ", " + e + ")";
  }
  emit(lhs(y, out) + " = " + e);
}

void Importer::reduce(const std::string& kind) {
  Value& x = input(0);
  if (kind == "ReduceMean" || kind == "ReduceL2" || kind == "ReduceLogSumExp") require_float(x);
  else require_types({Float(32), Float(64), Int(32), Int(64)}, x);
  size_t r = x.shape.size();
  std::vector<int64_t> axes;
  bool noop_empty = attr_int("noop_with_empty_axes", 0) != 0;
  if (kind == "ReduceSum" && opset_ >= 13) {
    only_attributes({"keepdims", "noop_with_empty_axes"});
    if (has_input(1)) axes = constant_ints(1, "axes");
  } else {
    only_attributes({"axes", "keepdims"});
    axes = attr_ints("axes").value_or(std::vector<int64_t>{});
  }
  bool keep = attr_int("keepdims", 1) != 0;
  std::vector<bool> reduced(r, axes.empty() && !noop_empty);
  for (int64_t a : axes) reduced[size_t(axis_of(a, r))] = true;
  Shape out;
  std::vector<std::string> xi, fors;
  int64_t count = 1;
  size_t oi = 0, ri = 0;
  for (size_t k = 0; k < r; ++k) {
    if (reduced[k]) {
      if (keep) out.push_back(1), ++oi;
      xi.push_back(rvar(ri));
      fors.push_back(rvar(ri++) + " in 0.." + std::to_string(x.shape[k]));
      count *= x.shape[k];
    } else {
      out.push_back(x.shape[k]);
      xi.push_back(ivar(oi++));
    }
  }
  Type type = x.type;
  std::string xn = tensor(0);
  std::string y = define_output(0, type, out);
  std::string a = at(xn, xi);
  if (fors.empty()) {
    emit(lhs(y, out) + " = " + at(xn, ivars(r)));
    return;
  }
  std::string f = " for " + join(fors) + ")";
  std::string e;
  if (kind == "ReduceSum") e = "sum(" + a + f;
  else if (kind == "ReduceMean") e = "sum(" + a + f + " / " + literal(double(count));
  else if (kind == "ReduceMax") e = "max(" + a + f;
  else if (kind == "ReduceMin") e = "min(" + a + f;
  else if (kind == "ReduceProd") e = "prod(" + a + f;
  else if (kind == "ReduceSumSquare") e = "sum(" + a + " * " + a + f;
  else if (kind == "ReduceL1") e = "sum(abs(" + a + ")" + f;
  else if (kind == "ReduceL2") e = "sqrt(sum(" + a + " * " + a + f + ")";
  else if (kind == "ReduceLogSum") e = "log(sum(" + a + f + ")";
  else if (kind == "ReduceLogSumExp") e = "log(sum(exp(" + a + ")" + f + ")";
  emit(lhs(y, out) + " = " + e);
}


void Importer::cast() {
  Value& x = input(0);
  std::optional<Type> to;
  if (node_->op_type() == "CastLike") {  // the type of the second input
    only_attributes({});
    to = input(1).type;
  } else {
    only_attributes({"to"});
    to = texc_type_of_onnx(int(attr_int("to", 0)));
    if (!to) fail("casting to " + onnx_type_name(int(attr_int("to", 0))) + " is not supported");
  }
  Type from = x.type;
  if (from.bits == 16 && from.is_float() && !(to->is_float())) fail("casting f16 to " + to->str() + " is not supported");
  Type target = *to;
  elementwise(target, [&](const std::vector<std::string>& a) {
    if (target.is_bool()) return from.is_bool() ? a[0] : a[0] + (from.is_float() ? " != 0.0" : " != 0");
    if (from.is_bool()) return target.str() + "(select(" + a[0] + ", 1, 0))";
    return target == from ? a[0] : target.str() + "(" + a[0] + ")";
  }, 0, 1);
}

void Importer::layer_norm() {
  only_attributes({"axis", "epsilon", "stash_type"});
  Value& x = input(0);
  require_float(x, true);
  size_t r = x.shape.size();
  if (r == 0) fail("a rank-0 input is not supported");
  size_t axis = size_t(axis_of(attr_int("axis", -1), r));
  double eps = double(float(attr_float("epsilon", 1e-5)));
  Shape stat = x.shape;  // the statistics' shape: the normalized dimensions kept as 1
  std::vector<std::string> xr = ivars(r), sr = ivars(r), fors;
  int64_t count = 1;
  for (size_t k = axis; k < r; ++k) {
    stat[k] = 1;
    sr[k] = std::string(1, '0');
    xr[k] = rvar(k - axis);
    fors.push_back(rvar(k - axis) + " in 0.." + std::to_string(x.shape[k]));
    count *= x.shape[k];
  }
  for (size_t k = 1; k < 3; ++k)
    if (has_input(k) && (input(k).type != Float(32) || broadcast_shape({input(k).shape, x.shape}) != x.shape))
      fail("Scale and B must be f32 and broadcast to the input");
  std::string xn = tensor(0), sc = tensor(1), bn = has_input(2) ? tensor(2) : "";
  Shape xs = x.shape, ss = input(1).shape, bs = has_input(2) ? input(2).shape : Shape{};
  std::string y = define_output(0, Float(32), xs);
  bool want_mean = node_->output_size() > 1 && !node_->output(1).empty();
  bool want_inv = node_->output_size() > 2 && !node_->output(2).empty();
  std::string mean = want_mean ? define_output(1, Float(32), stat) : temp(node_->output(0) + "_mean");
  std::string var = temp(node_->output(0) + "_var");
  std::string inv = want_inv ? define_output(2, Float(32), stat) : temp(node_->output(0) + "_inv_std");
  std::string cnt = literal(double(count));
  emit(lhs(mean, stat) + " = sum(" + at(xn, xr) + " for " + join(fors) + ") / " + cnt);
  std::string d = "(" + at(xn, xr) + " - " + at(mean, sr) + ")";
  emit(lhs(var, stat) + " = sum(" + d + " * " + d + " for " + join(fors) + ") / " + cnt);
  emit(lhs(inv, stat) + " = 1.0 / sqrt(" + at(var, sr) + " + " + literal(eps) + ")");
  std::string e = "(" + at(xn, ivars(r)) + " - " + at(mean, sr) + ") * " + at(inv, sr) + " * " + bcast(sc, ss, xs);
  if (!bn.empty()) e += " + " + bcast(bn, bs, xs);
  emit(lhs(y, xs) + " = " + e);
}

void Importer::gather(bool elements) {
  only_attributes({"axis"});
  Value& x = input(0);
  Value& ind = input(1);
  require_types({Int(32), Int(64)}, ind);
  size_t r = x.shape.size();
  if (r == 0) fail("a rank-0 input is not supported");
  size_t axis = size_t(axis_of(attr_int("axis", 0), r));
  int64_t D = x.shape[axis];
  Shape out;
  if (elements) {
    if (ind.shape.size() != r) fail("indices must have the input's rank");
    out = ind.shape;
  } else {
    out.assign(x.shape.begin(), x.shape.begin() + int64_t(axis));
    out.insert(out.end(), ind.shape.begin(), ind.shape.end());
    out.insert(out.end(), x.shape.begin() + int64_t(axis) + 1, x.shape.end());
  }
  Type type = x.type;
  std::string xn = tensor(0), in = tensor(1);
  if (!ind.constant) domains_[in] = " in " + std::to_string(-D) + ".." + std::to_string(D);
  else
    for (int64_t i = 0; i < ind.constant->num_elements(); ++i)
      if (ind.constant->get_int(i) < -D || ind.constant->get_int(i) >= D) fail("index " + std::to_string(ind.constant->get_int(i)) + " is out of range");
  Shape ishape = ind.shape;
  std::string y = define_output(0, type, out);
  std::vector<std::string> ii;
  if (elements) ii = ivars(r);
  else
    for (size_t k = 0; k < ishape.size(); ++k) ii.push_back(ivar(axis + k));
  std::string raw = at(in, ii);
  if (ind.type != Int(64)) raw = "i64(" + raw + ")";
  std::string idx = "select(" + raw + " < 0, " + raw + " + " + std::to_string(D) + ", " + raw + ")";
  std::vector<std::string> xi;
  for (size_t k = 0; k < r; ++k) {
    if (k == axis) xi.push_back(idx);
    else if (elements) xi.push_back(ivar(k));
    else xi.push_back(ivar(k < axis ? k : k - 1 + ishape.size()));
  }
  emit(lhs(y, out) + " = " + at(xn, xi));
}

void Importer::arg_reduce(bool is_max) {
  only_attributes({"axis", "keepdims", "select_last_index"});
  Value& x = input(0);
  require_types({Float(32), Float(64), Int(32), Int(64)}, x);
  size_t r = x.shape.size();
  if (r == 0) fail("a rank-0 input is not supported");
  size_t axis = size_t(axis_of(attr_int("axis", 0), r));
  bool keep = attr_int("keepdims", 1) != 0, last = attr_int("select_last_index", 0) != 0;
  int64_t D = x.shape[axis];
  Shape out;
  std::vector<std::string> xr, ext;
  size_t oi = 0;
  for (size_t k = 0; k < r; ++k) {
    if (k == axis) {
      if (keep) out.push_back(1), ++oi;
      xr.push_back(rvar(0));
    } else {
      out.push_back(x.shape[k]);
      xr.push_back(ivar(oi++));
    }
  }
  std::string xn = tensor(0);
  std::string y = define_output(0, Int(64), out);
  std::string best = temp(node_->output(0) + (is_max ? "_max" : "_min"));
  std::string f = " for " + rvar(0) + " in 0.." + std::to_string(D) + ")";
  emit(lhs(best, out) + (is_max ? " = max(" : " = min(") + at(xn, xr) + f);
  std::string hit = at(xn, xr) + " == " + at(best, ivars(tex_dims(out).size()));
  if (last) emit(lhs(y, out) + " = max(select(" + hit + ", " + rvar(0) + ", -1)" + f);
  else emit(lhs(y, out) + " = min(select(" + hit + ", " + rvar(0) + ", " + std::to_string(D) + ")" + f);
}

void Importer::split() {
  only_attributes({"axis", "split"});
  Value& x = input(0);
  size_t r = x.shape.size();
  if (r == 0) fail("a rank-0 input is not supported");
  size_t axis = size_t(axis_of(attr_int("axis", 0), r));
  size_t n = size_t(node_->output_size());
  std::vector<int64_t> sizes;
  if (opset_ >= 13 && has_input(1) && !input(1).constant) {  // sizes given at run time: the graph's declared shapes
    for (size_t k = 0; k < n; ++k) {
      auto it = declared_.find(node_->output(int(k)));
      if (it == declared_.end() || it->second.size() != r) fail("split (input '" + node_->input(1) + "') is not a constant and the outputs' shapes are not declared");
      sizes.push_back(it->second[axis]);
    }
  } else if (opset_ >= 13 && has_input(1)) sizes = constant_ints(1, "split");
  else if (auto a = attr_ints("split")) sizes = *a;
  else {
    if (x.shape[axis] % int64_t(n)) fail("dimension " + std::to_string(x.shape[axis]) + " does not split into " + std::to_string(n) + " equal parts");
    sizes.assign(n, x.shape[axis] / int64_t(n));
  }
  if (sizes.size() != n) fail("split has " + std::to_string(sizes.size()) + " sizes for " + std::to_string(n) + " outputs");
  int64_t total = 0;
  for (int64_t v : sizes) total += v;
  if (total != x.shape[axis]) fail("split sizes do not add up to the dimension");
  Type type = x.type;
  Shape xs = x.shape;
  std::string xn = tensor(0);
  int64_t start = 0;
  for (size_t k = 0; k < n; ++k) {
    Shape out = xs;
    out[axis] = sizes[k];
    std::string y = define_output(k, type, out);
    std::vector<std::string> xi = ivars(r);
    if (start) xi[axis] = ivar(axis) + " + " + std::to_string(start);
    emit(lhs(y, out) + " = " + at(xn, xi));
    start += sizes[k];
  }
}

void Importer::slice() {
  Value& x = input(0);
  size_t r = x.shape.size();
  if (r == 0) fail("a rank-0 input is not supported");
  std::vector<int64_t> starts, ends, axes, steps;
  if (opset_ < 10) {
    only_attributes({"starts", "ends", "axes"});
    starts = attr_ints("starts").value_or(std::vector<int64_t>{});
    ends = attr_ints("ends").value_or(std::vector<int64_t>{});
    axes = attr_ints("axes").value_or(std::vector<int64_t>{});
  } else {
    only_attributes({});
    starts = constant_ints(1, "starts");
    ends = constant_ints(2, "ends");
    if (has_input(3)) axes = constant_ints(3, "axes");
    if (has_input(4)) steps = constant_ints(4, "steps");
  }
  if (axes.empty())
    for (size_t k = 0; k < starts.size(); ++k) axes.push_back(int64_t(k));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    fail("starts, ends, axes and steps differ in length");
  Shape out = x.shape;
  std::vector<int64_t> first(r, 0), step(r, 1);
  for (size_t k = 0; k < starts.size(); ++k) {
    size_t a = size_t(axis_of(axes[k], r));
    int64_t D = x.shape[a], st = steps[k];
    if (st == 0) fail("a step of 0");
    // ONNX's clamping: starts and ends to [0, D] for positive steps, [-1, D - 1] for negative ones
    auto clampi = [&](int64_t v) {
      v = std::clamp<int64_t>(v, -(int64_t(1) << 62), int64_t(1) << 62);
      if (v < 0) v += D;
      return st > 0 ? std::clamp<int64_t>(v, 0, D) : std::clamp<int64_t>(v, -1, D - 1);
    };
    int64_t b = clampi(starts[k]), e = clampi(ends[k]);
    int64_t n = st > 0 ? (e - b + st - 1) / st : (b - e + (-st) - 1) / (-st);
    out[a] = std::max<int64_t>(0, n);
    first[a] = b;
    step[a] = st;
  }
  Type ty = x.type;
  std::string xn = tensor(0);
  std::string y = define_output(0, ty, out);
  std::vector<std::string> xi;
  for (size_t k = 0; k < r; ++k) {
    std::string e = ivar(k);
    if (step[k] != 1) e += " * " + (step[k] < 0 ? "(" + std::to_string(step[k]) + ")" : std::to_string(step[k]));
    if (first[k]) e += " + " + std::to_string(first[k]);
    xi.push_back(e);
  }
  emit(lhs(y, out) + " = " + at(xn, xi));
}

void Importer::conv_transpose() {
  only_attributes({"auto_pad", "dilations", "group", "kernel_shape", "output_padding", "output_shape", "pads", "strides"});
  Value& x = input(0);
  Value& w = input(1);
  require_float(x, true);
  require_float(w, true);
  if (x.shape.size() < 3 || w.shape.size() != x.shape.size()) fail("input and weights must have one rank of 3 or more");
  size_t sp = x.shape.size() - 2;
  int64_t N = x.shape[0], C = x.shape[1], G = attr_int("group", 1);
  if (G < 1 || C % G || w.shape[0] != C) fail("group " + std::to_string(G) + " does not fit the weights " + shape_text(w.shape));
  int64_t Mg = w.shape[1], M = Mg * G, Cg = C / G;
  Shape K(w.shape.begin() + 2, w.shape.end());
  std::vector<int64_t> strides = attr_ints("strides").value_or(std::vector<int64_t>(sp, 1));
  std::vector<int64_t> dil = attr_ints("dilations").value_or(std::vector<int64_t>(sp, 1));
  std::vector<int64_t> pads = attr_ints("pads").value_or(std::vector<int64_t>(2 * sp, 0));
  std::vector<int64_t> opad = attr_ints("output_padding").value_or(std::vector<int64_t>(sp, 0));
  if (strides.size() != sp || dil.size() != sp || pads.size() != 2 * sp || opad.size() != sp) fail("strides, dilations, pads or output_padding do not match the rank");
  std::string auto_pad = attr_string("auto_pad", "NOTSET");
  auto oshape = attr_ints("output_shape");
  if (oshape && oshape->size() == sp + 2) oshape = std::vector<int64_t>(oshape->begin() + 2, oshape->end());
  Shape out{N, M};
  for (size_t d = 0; d < sp; ++d) {
    int64_t D = x.shape[2 + d], full = strides[d] * (D - 1) + opad[d] + (K[d] - 1) * dil[d] + 1;
    if (oshape || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      if (oshape && oshape->size() != sp) fail("output_shape does not match the rank");
      int64_t o = oshape ? (*oshape)[d] : D * strides[d];
      // the spec's total padding (negative: more output than the full one) and its split, with
      // Python's floor division: SAME_UPPER puts the smaller half first, otherwise the larger
      int64_t total = full - o;
      int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
      pads[d] = auto_pad == "SAME_UPPER" ? half : total - half;
      pads[sp + d] = total - pads[d];
    } else if (auto_pad == "VALID") {
      pads[d] = pads[sp + d] = 0;
    } else if (auto_pad != "NOTSET") {
      fail("auto_pad '" + auto_pad + "' is not supported");
    }
    int64_t o = full - pads[d] - pads[sp + d];
    if (o < 1) fail("the output would be empty");
    out.push_back(o);
  }
  bool has_bias = has_input(2);
  if (has_bias && (input(2).shape != Shape{M} || input(2).type != Float(32))) fail("bias must be f32[" + std::to_string(M) + "]");
  std::string xn = tensor(0), wn = tensor(1), bn = has_bias ? tensor(2) : "";
  std::string y = define_output(0, Float(32), out);
  // Y[n, m, o] = sum over c, k of X[n, g*Cg + c, q] * W[g*Cg + c, m % Mg, k] where o + pad - k*dil = q*stride
  std::string g = G == 1 ? "" : "(" + ivar(1) + " / " + std::to_string(Mg) + ") * " + std::to_string(Cg) + " + ";
  std::vector<std::string> xi{ivar(0), g + rvar(0)}, wi{g + rvar(0), G == 1 ? ivar(1) : ivar(1) + " % " + std::to_string(Mg)};
  std::vector<std::string> conds, fors{rvar(0) + " in 0.." + std::to_string(Cg)};
  for (size_t d = 0; d < sp; ++d) {
    std::string t = ivar(2 + d) + (pads[d] > 0 ? " + " + std::to_string(pads[d]) : pads[d] < 0 ? " - " + std::to_string(-pads[d]) : "") + " - " + rvar(1 + d) +
                    (dil[d] != 1 ? " * " + std::to_string(dil[d]) : "");
    std::string s = std::to_string(strides[d]);
    conds.push_back(t + " >= 0");
    if (strides[d] != 1) conds.push_back("(" + t + ") % " + s + " == 0");
    std::string q = strides[d] != 1 ? "(" + t + ") / " + s : t;
    conds.push_back(q + " < " + std::to_string(x.shape[2 + d]));
    xi.push_back(q);
    wi.push_back(rvar(1 + d));
    fors.push_back(rvar(1 + d) + " in 0.." + std::to_string(K[d]));
  }
  std::string e = "sum(select(" + join(conds, " && ") + ", " + at(xn, xi) + " * " + at(wn, wi) + ", 0.0) for " + join(fors) + ")";
  if (has_bias) e += " + " + bn + "[" + ivar(1) + "]";
  emit(lhs(y, out) + " = " + e);
}

void Importer::pad() {
  Value& x = input(0);
  size_t r = x.shape.size();
  std::string mode = attr_string("mode", "constant");
  std::vector<int64_t> pads;
  std::string value;
  if (opset_ < 11) {
    only_attributes({"mode", "pads", "value"});
    pads = attr_ints("pads").value_or(std::vector<int64_t>{});
    value = literal(attr_float("value", 0.0));
  } else {
    only_attributes({"mode"});
    pads = constant_ints(1, "pads");
    if (has_input(2)) {
      if (input(2).type != x.type) fail("the constant value's type differs from the input's");
      value = input(2).constant ? (x.type.is_float() ? literal(input(2).constant->get_double(0)) : std::to_string(input(2).constant->get_int(0)))
                                : at(tensor(2), {"0"});
    } else {
      value = x.type.is_float() ? "0.0" : "0";
    }
  }
  if (x.type.is_float() && input(0).type != Float(32) && value.find('[') == std::string::npos) value = typed(x.type, value);
  if (pads.size() != 2 * r) fail("pads has " + std::to_string(pads.size()) + " entries for rank " + std::to_string(r));
  if (mode != "constant" && mode != "edge" && mode != "reflect") fail("mode '" + mode + "' is not supported");
  Shape out = x.shape;
  for (size_t k = 0; k < r; ++k) {
    if (pads[k] < 0 || pads[r + k] < 0) fail("negative pads are not supported");
    if (mode == "reflect" && (pads[k] >= x.shape[k] || pads[r + k] >= x.shape[k])) fail("reflect pads must be smaller than the dimension");
    out[k] += pads[k] + pads[r + k];
  }
  Shape xs = x.shape;
  Type ty = x.type;
  std::string xn = tensor(0);
  std::string y = define_output(0, ty, out);
  std::vector<std::string> xi, conds;
  for (size_t k = 0; k < r; ++k) {
    std::string p = pads[k] ? ivar(k) + " - " + std::to_string(pads[k]) : ivar(k);
    std::string D = std::to_string(xs[k]), Dm1 = std::to_string(xs[k] - 1);
    if (pads[k] == 0 && pads[r + k] == 0) { xi.push_back(ivar(k)); continue; }
    if (mode == "constant") {
      if (pads[k]) conds.push_back(ivar(k) + " >= " + std::to_string(pads[k]));
      if (pads[r + k]) conds.push_back(ivar(k) + " < " + std::to_string(pads[k] + xs[k]));
      xi.push_back(p);
    } else if (mode == "edge") {
      xi.push_back("min(max(" + p + ", 0), " + Dm1 + ")");
    } else {  // reflect: -j -> j, D - 1 + j -> D - 1 - j
      xi.push_back(Dm1 + " - abs(" + Dm1 + " - abs(" + p + "))");
    }
  }
  std::string e = at(xn, xi);
  if (!conds.empty()) e = "select(" + join(conds, " && ") + ", " + e + ", " + value + ")";
  emit(lhs(y, out) + " = " + e);
}

/// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (its log-probabilities first, over axis 1).
void Importer::nll_loss(bool softmax_first) {
  only_attributes({"ignore_index", "reduction"});
  Value& x = input(0);
  Value& tg = input(1);
  require_float(x);
  require_types({Int(32), Int(64)}, tg);
  size_t r = x.shape.size();
  if (r < 2 || tg.shape.size() != r - 1) fail("input must be [N, C, ...] and target [N, ...]");
  int64_t C = x.shape[1];
  for (size_t k = 0; k + 1 < r; ++k)
    if (tg.shape[k] != x.shape[k == 0 ? 0 : k + 1]) fail("target's shape does not match the input's");
  bool has_w = has_input(2);
  if (has_w && (input(2).type != x.type || input(2).shape != Shape{C})) fail("weight must be of the input's type and shape [C]");
  std::string reduction = attr_string("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean") fail("reduction '" + reduction + "' is not supported");
  std::optional<int64_t> ignore;
  if (attr("ignore_index")) ignore = attr_int("ignore_index", 0);
  Type ty = x.type;
  Shape xs = x.shape, ts = tg.shape;
  std::string xn = tensor(0), tn = tensor(1), wn = has_w ? tensor(2) : "";
  if (!tg.constant && (!ignore || (*ignore >= 0 && *ignore < C))) domains_[tn] = " in 0.." + std::to_string(C);
  std::string zero = typed(ty, "0.0"), one = typed(ty, "1.0");
  // the log-probabilities (SoftmaxCrossEntropyLoss), as LogSoftmax over axis 1
  std::string lp = xn;
  if (softmax_first) {
    bool want = node_->output_size() > 1 && !node_->output(1).empty();
    lp = want ? define_output(1, ty, xs) : temp(node_->output(0) + "_log_prob");
    Shape row = xs;
    row[1] = 1;
    std::vector<std::string> xr = ivars(r), rr = ivars(r);
    xr[1] = rvar(0);
    rr[1] = std::string(1, '0');
    std::string f = " for " + rvar(0) + " in 0.." + std::to_string(C) + ")";
    std::string mx = temp(node_->output(0) + "_max"), sm = temp(node_->output(0) + "_sum");
    emit(lhs(mx, row) + " = max(" + at(xn, xr) + f);
    emit(lhs(sm, row) + " = sum(exp(" + at(xn, xr) + " - " + at(mx, rr) + ")" + f);
    emit(lhs(lp, xs) + " = " + at(xn, ivars(r)) + " - " + at(mx, rr) + " - log(" + at(sm, rr) + ")");
  }
  // per element: -logp[n, t, d...] * w[t], 0 where t is ignore_index
  std::vector<std::string> ti = ivars(r - 1);
  std::string t = "i64(" + at(tn, ti) + ")";
  if (tg.type == Int(64)) t = at(tn, ti);
  std::vector<std::string> xi{ivar(0), t};
  for (size_t k = 1; k + 1 < r; ++k) xi.push_back(ivar(k));
  std::string w = has_w ? wn + "[" + t + "]" : "";
  std::string term = "-" + at(lp, xi) + (has_w ? " * " + w : "");
  std::string per = ignore ? "select(" + t + " == " + std::to_string(*ignore) + ", " + zero + ", " + term + ")" : term;
  if (reduction == "none") {
    std::string y = define_output(0, ty, ts);
    emit(lhs(y, ts) + " = " + per);
    return;
  }
  std::string l = temp(node_->output(0) + "_each");
  emit(lhs(l, ts) + " = " + per);
  std::vector<std::string> rv, fors;
  for (size_t k = 0; k < ts.size(); ++k) {
    rv.push_back(rvar(k));
    fors.push_back(rvar(k) + " in 0.." + std::to_string(ts[k]));
  }
  std::string y = define_output(0, ty, {});
  std::string total = "sum(" + at(l, rv) + " for " + join(fors) + ")";
  if (reduction == "sum") {
    emit(lhs(y, {}) + " = " + total);
    return;
  }
  // mean: over the weights of the elements counted (1 each without weights)
  std::string wsum = temp(node_->output(0) + "_weight");
  std::string wt = has_w ? w : one;
  if (ignore) wt = "select(" + t + " == " + std::to_string(*ignore) + ", " + zero + ", " + wt + ")";
  emit(lhs(wsum, ts) + " = " + wt);
  emit(lhs(y, {}) + " = " + total + " / sum(" + at(wsum, rv) + " for " + join(fors) + ")");
}

bool Importer::more_ops() {
  const std::string& t = node_->op_type();
  auto numeric = {Float(32), Float(64), Int(8), Int(16), Int(32), Int(64), UInt(8), UInt(16), UInt(32), UInt(64)};
  if (t == "Cast" || t == "CastLike") { cast(); return true; }
  if (t == "LayerNormalization") { layer_norm(); return true; }
  if (t == "Gather" || t == "GatherElements") { gather(t == "GatherElements"); return true; }
  if (t == "ArgMax" || t == "ArgMin") { arg_reduce(t == "ArgMax"); return true; }
  if (t == "Split") { split(); return true; }
  if (t == "Slice") { slice(); return true; }
  if (t == "ConvTranspose") { conv_transpose(); return true; }
  if (t == "Pad") { pad(); return true; }
  if (t == "NegativeLogLikelihoodLoss" || t == "SoftmaxCrossEntropyLoss") { nll_loss(t == "SoftmaxCrossEntropyLoss"); return true; }
  if (t == "Round") {
    // half to even: floor, then at a tie the even one of floor and floor + 1
    only_attributes({});
    require_float(input(0));
    elementwise(input(0).type, [](const std::vector<std::string>& a) {
      std::string f = "floor(" + a[0] + ")", d = "(" + a[0] + " - " + f + ")";
      return "select(" + d + " > 0.5, " + f + " + 1.0, select(" + d + " < 0.5, " + f + ", select(" + f + " - 2.0 * floor(" + f +
             " * 0.5) == 0.0, " + f + ", " + f + " + 1.0)))";
    });
    return true;
  }
  if (t == "Range") {
    only_attributes({});
    Type ty = input(0).type;
    require_types({Float(32), Float(64), Int(16), Int(32), Int(64)}, input(0));
    for (size_t k = 1; k < 3; ++k)
      if (input(k).type != ty) fail("start, limit and delta must have one type");
    if (input(0).constant && input(1).constant && input(2).constant) {
      double st = input(0).constant->get_double(0), li = input(1).constant->get_double(0), de = input(2).constant->get_double(0);
      if (de == 0) fail("delta is 0");
      int64_t n = std::max<int64_t>(0, int64_t(std::ceil((li - st) / de)));
      if (n == 0) fail("the range is empty");
      Tensor v(ty, {n});
      for (int64_t i = 0; i < n; ++i) ty.is_float() ? v.set_double(i, st + double(i) * de) : v.set_int(i, input(0).constant->get_int(0) + i * input(2).constant->get_int(0));
      define_constant(0, std::move(v), {n});
      return true;
    }
    Shape out = declared_output_shape("start, limit or delta");
    if (out.size() != 1) fail("the declared shape is not 1-D");
    std::string start = at(tensor(0), {"0"}), delta = at(tensor(2), {"0"});
    std::string y = define_output(0, ty, out);
    emit(lhs(y, out) + " = " + start + " + " + ty.str() + "(" + ivar(0) + ") * " + delta);
    return true;
  }
  if (t == "OneHot") {
    only_attributes({"axis"});
    Value& ind = input(0);
    Value& vals = input(2);
    require_types({Float(32), Float(64), Int(32), Int(64)}, ind);
    if (product(vals.shape) != 2) fail("values must have two elements (off, on)");
    size_t r = ind.shape.size() + 1;
    size_t axis = size_t(axis_of(attr_int("axis", -1), r));
    Shape out = ind.shape;
    if (input(1).constant) {
      out.insert(out.begin() + int64_t(axis), int64_t(input(1).constant->get_double(0)));
    } else {
      out = declared_output_shape("depth (input '" + node_->input(1) + "')");
      if (out.size() != r) fail("the declared shape has another rank");
    }
    int64_t depth = out[axis];
    Type ty = vals.type;
    Shape is = ind.shape;
    bool float_ind = ind.type.is_float();
    std::string in = tensor(0), vn = tensor(2);
    std::string y = define_output(0, ty, out);
    std::vector<std::string> ii;
    for (size_t k = 0; k < r; ++k)
      if (k != axis) ii.push_back(ivar(k));
    std::string raw = is.empty() ? in + "[0]" : at(in, ii);
    raw = "i64(" + raw + ")";
    (void)float_ind;
    std::string idx = "select(" + raw + " < 0, " + raw + " + " + std::to_string(depth) + ", " + raw + ")";
    emit(lhs(y, out) + " = select(" + idx + " == " + ivar(axis) + ", " + vn + "[1], " + vn + "[0])");
    return true;
  }
  if (t == "Hardmax") {
    only_attributes({"axis"});
    Value& x = input(0);
    require_float(x, true);
    size_t r = x.shape.size();
    if (r == 0) fail("a rank-0 input is not supported");
    size_t axis = size_t(axis_of(attr_int("axis", opset_ >= 13 ? -1 : 1), r));
    if (opset_ < 13 && axis != r - 1) fail("axis " + std::to_string(axis) + " before opset 13 (the 2-D coercion) is not supported");
    int64_t D = x.shape[axis];
    Shape xs = x.shape, red = x.shape;
    red[axis] = 1;
    std::vector<std::string> xr = ivars(r), rr = ivars(r);
    xr[axis] = rvar(0);
    rr[axis] = std::string(1, '0');
    std::string xn = tensor(0);
    std::string y = define_output(0, Float(32), xs);
    std::string mx = temp(node_->output(0) + "_max"), am = temp(node_->output(0) + "_argmax");
    std::string f = " for " + rvar(0) + " in 0.." + std::to_string(D) + ")";
    emit(lhs(mx, red) + " = max(" + at(xn, xr) + f);
    emit(lhs(am, red) + " = min(select(" + at(xn, xr) + " == " + at(mx, rr) + ", " + rvar(0) + ", " + std::to_string(D) + ")" + f);
    emit(lhs(y, xs) + " = select(" + ivar(axis) + " == " + at(am, rr) + ", 1.0, 0.0)");
    return true;
  }
  if (t == "CumSum") {
    only_attributes({"exclusive", "reverse"});
    Value& x = input(0);
    require_types({Float(32), Float(64), Int(32), Int(64), UInt(32), UInt(64)}, x);
    size_t r = x.shape.size();
    if (r == 0) fail("a rank-0 input is not supported");
    size_t axis = size_t(axis_of(constant_ints(1, "axis")[0], r));
    bool excl = attr_int("exclusive", 0) != 0, rev = attr_int("reverse", 0) != 0;
    Shape xs = x.shape;
    Type ty = x.type;
    std::string xn = tensor(0);
    std::string y = define_output(0, ty, xs);
    std::vector<std::string> xr = ivars(r);
    xr[axis] = rvar(0);
    std::string cond = rvar(0) + (rev ? (excl ? " > " : " >= ") : (excl ? " < " : " <= ")) + ivar(axis);
    std::string zero = ty.is_float() ? "0.0" : "0";
    emit(lhs(y, xs) + " = sum(select(" + cond + ", " + at(xn, xr) + ", " + zero + ") for " + rvar(0) + " in 0.." +
         std::to_string(xs[axis]) + ")");
    return true;
  }
  if (t == "BitShift") {
    only_attributes({"direction"});
    std::string dir = attr_string("direction", "");
    if (dir != "LEFT" && dir != "RIGHT") fail("direction '" + dir + "' is not supported");
    if (input(0).type != input(1).type || !input(0).type.is_uint()) fail("inputs must be unsigned integers of one type");
    elementwise(input(0).type, [&](const std::vector<std::string>& a) { return a[0] + (dir == "LEFT" ? " << " : " >> ") + a[1]; });
    return true;
  }
  if (t == "Sinh" || t == "Cosh" || t == "Asinh" || t == "Acosh" || t == "Atanh") {
    // from exp, log and sqrt (the language has no hyperbolic functions but tanh)
    only_attributes({});
    require_float(input(0), true);
    elementwise(Float(32), [&](const std::vector<std::string>& a) {
      const std::string& x = a[0];
      if (t == "Sinh") return "(exp(" + x + ") - exp(-" + x + ")) * 0.5";
      if (t == "Cosh") return "(exp(" + x + ") + exp(-" + x + ")) * 0.5";
      if (t == "Asinh")  // odd: from |x|, so large negative x does not cancel
        return "select(" + x + " < 0.0, -1.0, 1.0) * log(abs(" + x + ") + sqrt(" + x + " * " + x + " + 1.0))";
      if (t == "Acosh") return "log(" + x + " + sqrt(" + x + " * " + x + " - 1.0))";
      return "0.5 * log((1.0 + " + x + ") / (1.0 - " + x + "))";
    });
    return true;
  }
  if (t == "LRN") {
    only_attributes({"alpha", "beta", "bias", "size"});
    Value& x = input(0);
    require_float(x, true);
    if (x.shape.size() < 3) fail("the input must have rank 3 or more");
    int64_t size = attr_int("size", 0), C = x.shape[1];
    if (size < 1) fail("size must be positive");
    std::string al = literal(double(float(attr_float("alpha", 1e-4))) / double(size)), be = literal(double(float(attr_float("beta", 0.75)))),
                bi = literal(double(float(attr_float("bias", 1.0))));
    int64_t lo = (size - 1) / 2, hi = size - 1 - lo;  // channels c - lo .. c + hi
    Shape xs = x.shape;
    size_t r = xs.size();
    std::string xn = tensor(0);
    std::string y = define_output(0, Float(32), xs);
    std::string sq = temp(node_->output(0) + "_square_sum");
    std::vector<std::string> xi = ivars(r);
    std::string ch = ivar(1) + " + " + rvar(0) + " - " + std::to_string(lo);
    xi[1] = ch;
    emit(lhs(sq, xs) + " = sum(select(" + ch + " >= 0 && " + ch + " < " + std::to_string(C) + ", " + at(xn, xi) + " * " +
         at(xn, xi) + ", 0.0) for " + rvar(0) + " in 0.." + std::to_string(lo + hi + 1) + ")");
    emit(lhs(y, xs) + " = " + at(xn, ivars(r)) + " / pow(" + bi + " + " + al + " * " + at(sq, ivars(r)) + ", " + be + ")");
    return true;
  }
  if (t == "DequantizeLinear" || t == "QuantizeLinear") {
    only_attributes({"axis"});
    Value& x = input(0);
    Value& sc = input(1);
    if (sc.type != Float(32)) fail("the scale must be f32");
    bool deq = t == "DequantizeLinear";
    Type qt = deq ? x.type : (has_input(2) ? input(2).type : UInt(8));
    if (qt != UInt(8) && qt != Int(8) && !(deq && qt == Int(32))) fail("quantized type " + qt.str() + " is not supported");
    if (!deq) require_float(x, true);
    size_t r = x.shape.size();
    // a scale (and zero point) per tensor, or per slice along axis
    int64_t axis = product(sc.shape) > 1 ? axis_of(attr_int("axis", 1), r) : -1;
    if (axis >= 0 && (sc.shape.size() != 1 || sc.shape[0] != x.shape[size_t(axis)])) fail("the scale's shape does not fit the axis");
    Shape xs = x.shape;
    std::string xn = tensor(0), sn = tensor(1), zn = has_input(2) ? tensor(2) : "";
    std::string per = axis >= 0 ? "[" + ivar(size_t(axis)) + "]" : "[0]";
    std::string s = sn + per, z = zn.empty() ? "" : zn + per;
    std::string y = define_output(0, deq ? Float(32) : qt, xs);
    std::string xa = at(xn, ivars(tex_dims(xs).size()));
    if (deq) {
      std::string v = z.empty() ? "f32(" + xa + ")" : "f32(i32(" + xa + ") - i32(" + z + "))";
      emit(lhs(y, xs) + " = " + v + " * " + s);
      return true;
    }
    // round half to even, add the zero point, saturate. The quotient is a stage of its own: stored
    // in f32 it is what ONNX rounds (texc's reference interpreter keeps an f32 expression's
    // intermediates in double, where 0.5 / 0.019607844 is 25.4999995, not the f32 25.5)
    std::string qn = temp(node_->output(0) + "_scaled");
    emit(lhs(qn, xs) + " = " + xa + " / " + s);
    std::string q = at(qn, ivars(tex_dims(xs).size()));
    std::string f = "floor(" + q + ")", d = "(" + q + " - " + f + ")";
    std::string rnd = "select(" + d + " > 0.5, " + f + " + 1.0, select(" + d + " < 0.5, " + f + ", select(" + f + " - 2.0 * floor(" + f +
                      " * 0.5) == 0.0, " + f + ", " + f + " + 1.0)))";
    std::string v = rnd + (z.empty() ? "" : " + f32(" + z + ")");
    std::string lo = qt == UInt(8) ? "0.0" : "-128.0", hi = qt == UInt(8) ? "255.0" : "127.0";
    emit(lhs(y, xs) + " = " + qt.str() + "(min(max(" + v + ", " + lo + "), " + hi + "))");
    return true;
  }
  if (t == "MeanVarianceNormalization") {
    only_attributes({"axes"});
    Value& x = input(0);
    require_float(x, true);
    size_t r = x.shape.size();
    std::vector<int64_t> axes = attr_ints("axes").value_or(std::vector<int64_t>{0, 2, 3});
    std::vector<bool> red(r, false);
    for (int64_t a : axes) red[size_t(axis_of(a, r))] = true;
    Shape xs = x.shape, st = x.shape;
    std::vector<std::string> xr = ivars(r), sr = ivars(r), fors;
    int64_t count = 1;
    size_t rk = 0;
    for (size_t k = 0; k < r; ++k)
      if (red[k]) {
        st[k] = 1;
        sr[k] = std::string(1, '0');
        xr[k] = rvar(rk);
        fors.push_back(rvar(rk++) + " in 0.." + std::to_string(xs[k]));
        count *= xs[k];
      }
    std::string xn = tensor(0);
    std::string y = define_output(0, Float(32), xs);
    std::string mean = temp(node_->output(0) + "_mean"), var = temp(node_->output(0) + "_var");
    std::string cnt = literal(double(count));
    emit(lhs(mean, st) + " = sum(" + at(xn, xr) + " for " + join(fors) + ") / " + cnt);
    // the spec's variance: E[x^2] - E[x]^2
    emit(lhs(var, st) + " = sum(" + at(xn, xr) + " * " + at(xn, xr) + " for " + join(fors) + ") / " + cnt + " - " +
         at(mean, sr) + " * " + at(mean, sr));
    emit(lhs(y, xs) + " = (" + at(xn, ivars(r)) + " - " + at(mean, sr) + ") / (sqrt(" + at(var, sr) + ") + 1e-09)");
    return true;
  }
  if (t == "Size") {
    only_attributes({});
    Tensor v(Int(64), {1});
    v.set_int(0, product(input(0).shape));
    define_constant(0, std::move(v), {});
    return true;
  }
  if (t == "Shrink") {
    only_attributes({"bias", "lambd"});
    require_float(input(0));
    std::string l = literal(double(float(attr_float("lambd", 0.5)))), b = literal(double(float(attr_float("bias", 0.0))));
    elementwise(input(0).type, [&](const std::vector<std::string>& a) {
      return "select(" + a[0] + " < -" + l + ", " + a[0] + " + " + b + ", select(" + a[0] + " > " + l + ", " + a[0] + " - " + b + ", 0.0))";
    });
    return true;
  }
  if (t == "EyeLike") {
    only_attributes({"dtype", "k"});
    Value& x = input(0);
    if (x.shape.size() != 2) fail("the input must be 2-D");
    std::optional<Type> ty = attr("dtype") ? texc_type_of_onnx(int(attr_int("dtype", 1))) : std::optional<Type>(x.type);
    if (!ty || ty->is_bool()) fail("dtype " + onnx_type_name(int(attr_int("dtype", 1))) + " is not supported");
    int64_t k = attr_int("k", 0);
    Tensor v(*ty, x.shape);
    for (int64_t i = 0; i < x.shape[0]; ++i)
      for (int64_t j = 0; j < x.shape[1]; ++j) v.set_int(i * x.shape[1] + j, j - i == k ? 1 : 0);
    define_constant(0, std::move(v), x.shape);
    return true;
  }
  if (t == "Shape") {
    only_attributes({"start", "end"});
    const Shape& s = input(0).shape;
    int64_t r = int64_t(s.size()), start = attr_int("start", 0), end = attr_int("end", r);
    start = std::clamp(start < 0 ? start + r : start, int64_t(0), r);
    end = std::clamp(end < 0 ? end + r : end, int64_t(0), r);
    int64_t n = std::max<int64_t>(0, end - start);
    if (n == 0) fail("an empty shape is not supported");
    Tensor v(Int(64), {n});
    for (int64_t k = 0; k < n; ++k) v.set_int(k, s[size_t(start + k)]);
    define_constant(0, std::move(v), {n});
    return true;
  }
  if (t == "ConstantOfShape") {
    only_attributes({"value"});
    Shape out = input(0).constant ? constant_ints(0, "shape") : declared_output_shape("the shape input '" + node_->input(0) + "'");
    Tensor v0(Float(32), {1});
    if (const auto* a = attr("value")) {
      try {
        v0 = tensor_of_onnx(a->t());
      } catch (const OnnxTensorError& e) {
        fail(e.what());
      }
    }
    if (out.empty() || product(out) == 0) fail("an empty or rank-0 result is not supported");
    Tensor v(v0.dtype(), out);
    for (int64_t i = 0; i < v.num_elements(); ++i) v.dtype().is_float() ? v.set_double(i, v0.get_double(0)) : v.set_int(i, v0.get_int(0));
    define_constant(0, std::move(v), out);
    return true;
  }
  if (t == "Erf") {
    only_attributes({});
    require_float(input(0), true);
    elementwise(Float(32), [](const std::vector<std::string>& a) { return "erf(" + a[0] + ")"; });
    return true;
  }
  if (t == "Greater" || t == "Less" || t == "Equal" || t == "GreaterOrEqual" || t == "LessOrEqual") {
    only_attributes({});
    if (input(0).type != input(1).type) fail("inputs of types " + input(0).type.str() + " and " + input(1).type.str());
    if (!input(0).type.is_bool()) require_types(numeric, input(0));
    else if (t != "Equal") fail("comparing bool tensors is not supported");
    std::string o = t == "Greater" ? " > " : t == "Less" ? " < " : t == "Equal" ? " == " : t == "GreaterOrEqual" ? " >= " : " <= ";
    elementwise(Bool(), [&](const std::vector<std::string>& a) { return a[0] + o + a[1]; });
    return true;
  }
  if (t == "And" || t == "Or" || t == "Xor" || t == "Not") {
    only_attributes({});
    for (size_t k = 0; k < num_inputs(); ++k)
      if (!input(k).type.is_bool()) fail("inputs must be bool");
    std::string o = t == "And" ? " && " : t == "Or" ? " || " : " != ";
    elementwise(Bool(), [&](const std::vector<std::string>& a) { return t == "Not" ? "!" + a[0] : a[0] + o + a[1]; });
    return true;
  }
  if (t == "Where") {
    only_attributes({});
    if (!input(0).type.is_bool() || input(1).type != input(2).type) fail("takes a bool condition and two inputs of one type");
    elementwise(input(1).type, [](const std::vector<std::string>& a) { return "select(" + a[0] + ", " + a[1] + ", " + a[2] + ")"; });
    return true;
  }
  if (t == "IsNaN" || t == "IsInf") {
    only_attributes({"detect_negative", "detect_positive"});
    require_float(input(0));
    std::string big = literal(input(0).type == Float(32) ? 3.4028234663852886e38 : 1.7976931348623157e308);
    bool pos = attr_int("detect_positive", 1) != 0, neg = attr_int("detect_negative", 1) != 0;
    elementwise(Bool(), [&](const std::vector<std::string>& a) {
      if (t == "IsNaN") return a[0] + " != " + a[0];
      std::vector<std::string> c;
      if (pos) c.push_back(a[0] + " > " + big);
      if (neg) c.push_back(a[0] + " < -" + big);
      return c.empty() ? std::string("false") : join(c, " || ");
    });
    return true;
  }
  if (t == "Sign") {
    only_attributes({});
    require_types({Float(32), Float(64), Int(8), Int(16), Int(32), Int(64)}, input(0));
    Type ty = input(0).type;
    bool fl = ty.is_float();
    elementwise(ty, [&](const std::vector<std::string>& a) {
      std::string z = fl ? "0.0" : "0";
      return ty.str() + "(select(" + a[0] + " > " + z + ", 1, select(" + a[0] + " < " + z + ", -1, 0)))";
    });
    return true;
  }
  if (t == "HardSwish") {
    only_attributes({});
    require_float(input(0), true);
    elementwise(Float(32), [](const std::vector<std::string>& a) {
      return a[0] + " * max(min(" + a[0] + " * " + literal(double(float(1.0 / 6.0))) + " + 0.5, 1.0), 0.0)";
    });
    return true;
  }
  if (t == "Mod") {
    only_attributes({"fmod"});
    bool fmod = attr_int("fmod", 0) != 0;
    if (input(0).type != input(1).type) fail("inputs of types " + input(0).type.str() + " and " + input(1).type.str());
    Type ty = input(0).type;
    if (ty.is_float() && !fmod) fail("fmod = 0 on floats is not allowed by the spec");
    if (ty.is_float()) fail("fmod on floats is not supported");
    require_types(numeric, input(0));
    elementwise(ty, [&](const std::vector<std::string>& a) {
      std::string m = a[0] + " % " + a[1];  // floor modulo: the divisor's sign, as ONNX's fmod = 0
      if (!fmod || ty.is_uint()) return m;
      // C's fmod: the dividend's sign
      return "select(" + m + " != 0 && ((" + a[0] + " < 0 && " + a[1] + " > 0) || (" + a[0] + " > 0 && " + a[1] +
             " < 0)), " + m + " - " + a[1] + ", " + m + ")";
    });
    return true;
  }
  if (t == "Trilu") {
    only_attributes({"upper"});
    bool upper = attr_int("upper", 1) != 0;
    std::string k = "0";
    if (has_input(1) && input(1).constant) k = std::to_string(constant_ints(1, "k")[0]);
    else if (has_input(1)) {  // k given at run time: an i64 scalar input
      if (input(1).type != Int(64)) fail("k must be i64");
      k = at(tensor(1), {"0"});
    }
    size_t r = input(0).shape.size();
    if (r < 2) fail("the input must have rank 2 or more");
    Type ty = input(0).type;
    std::string zero = ty.is_float() ? "0.0" : "0";
    std::string cond = ivar(r - 1) + " - " + ivar(r - 2) + (upper ? " >= " : " <= ") + k;
    elementwise(ty, [&](const std::vector<std::string>& a) {
      return ty.is_bool() ? a[0] + " && " + cond : "select(" + cond + ", " + a[0] + ", " + typed(ty, zero) + ")";
    }, 0, 1);
    return true;
  }
  if (t == "DepthToSpace" || t == "SpaceToDepth") {
    only_attributes({"blocksize", "mode"});
    Value& x = input(0);
    if (x.shape.size() != 4) fail("the input must be 4-D");
    int64_t b = attr_int("blocksize", 0), N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
    std::string mode = attr_string("mode", "DCR");
    if (b < 1) fail("blocksize must be positive");
    if (mode != "DCR" && mode != "CRD") fail("mode '" + mode + "' is not supported");
    Type ty = x.type;
    std::string xn = tensor(0), B = std::to_string(b);
    if (t == "DepthToSpace") {
      if (C % (b * b)) fail("channels are not a multiple of blocksize^2");
      int64_t Cq = C / (b * b);
      std::string y = define_output(0, ty, {N, Cq, H * b, W * b});
      std::string c = mode == "DCR" ? "((i2 % " + B + ") * " + B + " + i3 % " + B + ") * " + std::to_string(Cq) + " + i1"
                                    : "i1 * " + std::to_string(b * b) + " + (i2 % " + B + ") * " + B + " + i3 % " + B;
      emit(lhs(y, {N, Cq, H * b, W * b}) + " = " + xn + "[i0, " + c + ", i2 / " + B + ", i3 / " + B + "]");
    } else {
      if (H % b || W % b) fail("height and width are not multiples of blocksize");
      Shape out{N, C * b * b, H / b, W / b};
      std::string y = define_output(0, ty, out);
      std::string Cs = std::to_string(C);
      emit(lhs(y, out) + " = " + xn + "[i0, i1 % " + Cs + ", i2 * " + B + " + i1 / " + Cs + " / " + B + ", i3 * " + B +
           " + (i1 / " + Cs + ") % " + B + "]");
    }
    return true;
  }
  if (t == "Expand" || t == "Tile") {
    only_attributes({});
    Value& x = input(0);
    Shape out;
    if (input(1).constant) {
      std::vector<int64_t> v = constant_ints(1, t == "Expand" ? "shape" : "repeats");
      if (t == "Expand") out = broadcast_shape({x.shape, v});
      else {
        if (v.size() != x.shape.size()) fail("repeats must have one entry per dimension");
        for (size_t k = 0; k < v.size(); ++k) out.push_back(x.shape[k] * v[k]);
      }
    } else {
      out = declared_output_shape(std::string(t == "Expand" ? "the shape" : "the repeats") + " input '" + node_->input(1) + "'");
      if (t == "Expand" && broadcast_shape({x.shape, out}) != out) fail("the declared shape is not the broadcast one");
      if (t == "Tile") {
        if (out.size() != x.shape.size()) fail("the declared shape has another rank");
        for (size_t k = 0; k < out.size(); ++k)
          if (out[k] % x.shape[k]) fail("the declared shape is not a tiling of the input");
      }
    }
    Shape xs = x.shape;
    Type ty = x.type;
    std::string xn = tensor(0);
    std::string y = define_output(0, ty, out);
    if (t == "Expand") {
      emit(lhs(y, out) + " = " + bcast(xn, xs, out));
    } else {
      std::vector<std::string> xi;
      for (size_t k = 0; k < xs.size(); ++k)
        xi.push_back(xs[k] == 1 ? "0" : out[k] == xs[k] ? ivar(k) : ivar(k) + " % " + std::to_string(xs[k]));
      emit(lhs(y, out) + " = " + at(xn, xi));
    }
    return true;
  }
  return false;
}

void Importer::import_node() {
  const std::string& t = node_->op_type();
  if (!node_->domain().empty() && node_->domain() != "ai.onnx") fail("operators of domain '" + node_->domain() + "' are not supported");
  auto same_type_inputs = [&]() {
    for (size_t k = 1; k < num_inputs(); ++k)
      if (input(k).type != input(0).type) fail("inputs of types " + input(0).type.str() + " and " + input(k).type.str());
  };
  auto f32_4d = [&]() { return input(0).type == Float(32) && input(0).shape.size() == 4; };
  if (t == "Relu") {
    only_attributes({});
    require_types({Float(32), Float(64), Int(8), Int(16), Int(32), Int(64)}, input(0));
    if (blocked_input(0))  // layout planning: the blocks kept
      return blocked_elementwise([](const std::vector<std::string>& a) { return "max(" + a[0] + ", 0.0)"; }, 1);
    if (f32_4d()) {
      imports_.insert("nn.activation");
      std::string xn = tensor(0);
      emit(define_output(0, Float(32), input(0).shape) + " = relu(" + xn + ")");
      return;
    }
    std::string zero = input(0).type.is_float() ? "0.0" : "0";
    return unary_float([&](const std::string& x) { return "max(" + x + ", " + zero + ")"; }, true);
  }
  if (t == "Sigmoid" || t == "Tanh") {
    only_attributes({});
    if (f32_4d()) {
      imports_.insert("nn.activation");
      std::string xn = tensor(0);
      emit(define_output(0, Float(32), input(0).shape) + (t == "Sigmoid" ? " = sigmoid_act(" : " = tanh_act(") + xn + ")");
      return;
    }
    std::string f = t == "Sigmoid" ? "sigmoid(" : "tanh(";
    return unary_float([&](const std::string& x) { return f + x + ")"; });
  }
  if (t == "LeakyRelu") {
    only_attributes({"alpha"});
    std::string alpha = literal(double(float(attr_float("alpha", 0.01))));
    return unary_float([&](const std::string& x) { return "select(" + x + " > 0.0, " + x + ", " + x + " * " + alpha + ")"; });
  }
  if (t == "Elu" || t == "Celu") {
    only_attributes({"alpha"});
    double alpha = double(float(attr_float("alpha", 1.0)));
    std::string al = literal(alpha);
    if (t == "Celu") require_float(input(0), true);
    return unary_float([&](const std::string& x) {
      std::string ex = t == "Elu" ? "exp(" + x + ")" : "exp(" + x + " / " + al + ")";
      return "select(" + x + " > 0.0, " + x + ", " + al + " * (" + ex + " - 1.0))";
    });
  }
  if (t == "Selu") {
    only_attributes({"alpha", "gamma"});
    std::string al = literal(double(float(attr_float("alpha", 1.67326319217681884765625)))),
                ga = literal(double(float(attr_float("gamma", 1.05070102214813232421875))));
    return unary_float([&](const std::string& x) {
      return "select(" + x + " > 0.0, " + ga + " * " + x + ", " + ga + " * (" + al + " * exp(" + x + ") - " + al + "))";
    });
  }
  if (t == "HardSigmoid") {
    only_attributes({"alpha", "beta"});
    std::string al = literal(double(float(attr_float("alpha", 0.2)))), be = literal(double(float(attr_float("beta", 0.5))));
    return unary_float([&](const std::string& x) { return "max(min(" + al + " * " + x + " + " + be + ", 1.0), 0.0)"; });
  }
  if (t == "ThresholdedRelu") {
    only_attributes({"alpha"});
    std::string al = literal(double(float(attr_float("alpha", 1.0))));
    return unary_float([&](const std::string& x) { return "select(" + x + " > " + al + ", " + x + ", 0.0)"; });
  }
  if (t == "Softplus") { only_attributes({}); return unary_float([](const std::string& x) { return "log(exp(" + x + ") + 1.0)"; }); }
  if (t == "Softsign") { only_attributes({}); return unary_float([](const std::string& x) { return x + " / (1.0 + abs(" + x + "))"; }); }
  if (t == "Exp" || t == "Log" || t == "Sqrt" || t == "Floor" || t == "Ceil") {
    only_attributes({});
    std::string f = t == "Exp" ? "exp" : t == "Log" ? "log" : t == "Sqrt" ? "sqrt" : t == "Floor" ? "floor" : "ceil";
    return unary_float([&](const std::string& x) { return f + "(" + x + ")"; });
  }
  if (t == "Reciprocal") { only_attributes({}); return unary_float([](const std::string& x) { return "1.0 / " + x; }); }
  if (t == "Abs" || t == "Neg") {
    only_attributes({});
    require_types({Float(32), Float(64), Int(8), Int(16), Int(32), Int(64)}, input(0));
    if (t == "Abs") return unary_float([](const std::string& x) { return "abs(" + x + ")"; }, true);
    return unary_float([](const std::string& x) { return "-" + x; }, true);
  }
  if (t == "Identity" || t == "Dropout") {
    if (t == "Dropout") {
      only_attributes({"ratio", "seed", "is_test"});
      if (has_input(2)) {
        const Tensor& tm = constant_input(2, "training_mode");
        if (tm.get_int(0) != 0) fail("training_mode = true is not supported (inference only)");
      }
      if (node_->output_size() > 1 && !node_->output(1).empty()) {  // the mask: every element kept at inference
        if (opset_ < 10) fail("the mask output is supported from opset 10 (bool)");
        Tensor mask(Bool(), tex_dims(input(0).shape));
        for (int64_t i = 0; i < mask.num_elements(); ++i) mask.set_int(i, 1);
        define_constant(1, std::move(mask), input(0).shape);
      }
    } else {
      only_attributes({});
    }
    if (num_inputs() < 1) fail("takes one input");
    return copy_reshaped(input(0).shape);
  }
  if (t == "Pow" && num_inputs() == 2) {
    // A float base: pow in its type (the exponent cast to it). An integer base (opset 12 on): pow
    // in f64, truncated to the base's type, as ONNX's reference (numpy's power, then the cast);
    // exact while the result fits f64's 53-bit mantissa.
    only_attributes({});
    Type base = input(0).type, exponent = input(1).type;
    if (base.is_float()) require_float(input(0));
    else require_types({Int(32), Int(64)}, input(0));
    require_types({Float(16), Float(32), Float(64), Int(8), Int(16), Int(32), Int(64), UInt(8), UInt(16), UInt(32), UInt(64)},
                  input(1));
    return elementwise(base, [&](const std::vector<std::string>& a) {
      if (base.is_float()) return "pow(" + a[0] + ", " + (exponent == base ? a[1] : base.str() + "(" + a[1] + ")") + ")";
      return base.str() + "(pow(f64(" + a[0] + "), f64(" + a[1] + ")))";
    });
  }
  if (t == "Add" || t == "Sub" || t == "Mul" || t == "Div" || t == "Pow") {
    only_attributes({});
    if (num_inputs() != 2) fail("takes two inputs");
    same_type_inputs();
    if (t == "Div" && input(0).type.is_uint()) require_types({UInt(8), UInt(16), UInt(32), UInt(64)}, input(0));
    else if (t == "Div" || t == "Pow") require_float(input(0));
    else require_types({Float(32), Float(64), Int(8), Int(16), Int(32), Int(64), UInt(8), UInt(16), UInt(32), UInt(64)}, input(0));
    std::string o = t == "Add" ? " + " : t == "Sub" ? " - " : t == "Mul" ? " * " : " / ";
    // layout planning: a residual add of two tensors of one shape, one of them blocked, in blocks
    if (t == "Add" && input(0).shape == input(1).shape && (blocked_input(0) || blocked_input(1))) {
      return blocked_elementwise([](const std::vector<std::string>& a) { return a[0] + " + " + a[1]; }, 2);
    }
    return elementwise(input(0).type, [&](const std::vector<std::string>& a) {
      return t == "Pow" ? "pow(" + a[0] + ", " + a[1] + ")" : a[0] + o + a[1];
    });
  }
  if (t == "Max" || t == "Min" || t == "Sum" || t == "Mean") {
    only_attributes({});
    if (num_inputs() < 1) fail("takes at least one input");
    same_type_inputs();
    if (t == "Mean") require_float(input(0));
    else require_types({Float(32), Float(64), Int(8), Int(16), Int(32), Int(64), UInt(8), UInt(16), UInt(32), UInt(64)}, input(0));
    size_t n = num_inputs();
    return elementwise(input(0).type, [&](const std::vector<std::string>& a) {
      std::string e = a[0];
      for (size_t k = 1; k < a.size(); ++k)
        e = t == "Max" ? "max(" + e + ", " + a[k] + ")" : t == "Min" ? "min(" + e + ", " + a[k] + ")" : e + " + " + a[k];
      if (t == "Mean") e = "(" + e + ") / " + literal(double(n));
      return e;
    });
  }
  if (t == "PRelu") {
    only_attributes({});
    same_type_inputs();
    require_float(input(0));
    if (broadcast_shape({input(0).shape, input(1).shape}) != input(0).shape) fail("slope does not broadcast to X");
    return elementwise(input(0).type, [](const std::vector<std::string>& a) {
      return "select(" + a[0] + " < 0.0, " + a[0] + " * " + a[1] + ", " + a[0] + ")";
    });
  }
  if (more_ops()) return;
  if (t == "Clip") return clip();
  if (t == "Conv") return conv();
  if (t == "MaxPool" || t == "AveragePool") return pool(t == "MaxPool");
  if (t == "GlobalAveragePool" || t == "GlobalMaxPool") return global_pool(t == "GlobalMaxPool");
  if (t == "BatchNormalization") return batch_norm();
  if (t == "Softmax" || t == "LogSoftmax") return softmax(t == "LogSoftmax");
  if (t == "MatMul") return matmul();
  if (t == "Gemm") return gemm();
  if (t == "Concat") return concat();
  if (t == "Transpose") return transpose();
  if (t.rfind("Reduce", 0) == 0 && (t == "ReduceSum" || t == "ReduceMean" || t == "ReduceMax" || t == "ReduceMin" ||
                                    t == "ReduceProd" || t == "ReduceSumSquare" || t == "ReduceL1" || t == "ReduceL2" ||
                                    t == "ReduceLogSum" || t == "ReduceLogSumExp"))
    return reduce(t);
  if (t == "Flatten") {
    only_attributes({"axis"});
    const Shape& s = input(0).shape;
    int64_t a = attr_int("axis", 1);
    if (a < -int64_t(s.size()) || a > int64_t(s.size())) fail("axis " + std::to_string(a) + " is out of range");
    if (a < 0) a += int64_t(s.size());
    return copy_reshaped({product(s, 0, size_t(a)), product(s, size_t(a))});
  }
  if (t == "Reshape") {
    only_attributes({"allowzero"});
    const Shape& s = input(0).shape;
    Shape out;
    if (input(1).constant) {
      out = constant_ints(1, "shape");
      bool allowzero = attr_int("allowzero", 0) != 0;
      int64_t known = 1, infer = -1;
      for (size_t k = 0; k < out.size(); ++k) {
        if (out[k] == 0 && !allowzero) {
          if (k >= s.size()) fail("shape has a 0 past the input's rank");
          out[k] = s[k];
        }
        if (out[k] == -1) {
          if (infer >= 0) fail("shape has two -1");
          infer = int64_t(k);
        } else if (out[k] < 0) {
          fail("shape has a negative dimension");
        } else {
          known *= out[k];
        }
      }
      if (infer >= 0) {
        if (known == 0 || product(s) % known) fail("cannot reshape " + shape_text(s) + " to the shape given");
        out[size_t(infer)] = product(s) / known;
      }
    } else {
      out = declared_output_shape("the shape input '" + node_->input(1) + "'");
    }
    return copy_reshaped(out);
  }
  if (t == "Squeeze" || t == "Unsqueeze") {
    const Shape& s = input(0).shape;
    std::vector<int64_t> axes;
    if (opset_ >= 13) {
      only_attributes({});
      if (has_input(1) && !input(1).constant) return copy_reshaped(declared_output_shape("the axes input '" + node_->input(1) + "'"));
      if (has_input(1)) axes = constant_ints(1, "axes");
    } else {
      only_attributes({"axes"});
      axes = attr_ints("axes").value_or(std::vector<int64_t>{});
    }
    Shape out;
    if (t == "Squeeze") {
      std::vector<bool> drop(s.size(), axes.empty());
      for (int64_t a : axes) drop[size_t(axis_of(a, s.size()))] = true;
      for (size_t k = 0; k < s.size(); ++k) {
        if (drop[k] && s[k] != 1 && !axes.empty()) fail("cannot squeeze dimension " + std::to_string(k) + " of size " + std::to_string(s[k]));
        if (!(drop[k] && s[k] == 1)) out.push_back(s[k]);
      }
    } else {
      size_t r = s.size() + axes.size();
      std::vector<bool> added(r, false);
      for (int64_t a : axes) {
        if (a < -int64_t(r) || a >= int64_t(r)) fail("axis " + std::to_string(a) + " is out of range");
        size_t p = size_t(a < 0 ? a + int64_t(r) : a);
        if (added[p]) fail("axis " + std::to_string(a) + " is given twice");
        added[p] = true;
      }
      for (size_t k = 0, j = 0; k < r; ++k) out.push_back(added[k] ? 1 : s[j++]);
    }
    return copy_reshaped(out);
  }
  if (t == "Constant") {
    only_attributes({"value", "value_float", "value_floats", "value_int", "value_ints"});
    Tensor value;
    if (const auto* a = attr("value")) {
      try {
        value = tensor_of_onnx(a->t());
      } catch (const OnnxTensorError& e) {
        fail(e.what());
      }
      Shape s(a->t().dims().begin(), a->t().dims().end());
      Value v;
      v.type = value.dtype();
      v.shape = s;
      v.constant = std::move(value);
      v.tex = fresh_name(node_->output(0));
      values_[node_->output(0)] = std::move(v);
      return;
    }
    Value v;
    if (const auto* a = attr("value_float")) { value = Tensor(Float(32), {1}); value.set_double(0, a->f()); }
    else if (const auto* a2 = attr("value_int")) { value = Tensor(Int(64), {1}); value.set_int(0, a2->i()); }
    else if (const auto* a3 = attr("value_floats")) {
      value = Tensor(Float(32), {int64_t(a3->floats_size())});
      for (int k = 0; k < a3->floats_size(); ++k) value.set_double(k, a3->floats(k));
      v.shape = {int64_t(a3->floats_size())};
    } else if (const auto* a4 = attr("value_ints")) {
      value = Tensor(Int(64), {int64_t(a4->ints_size())});
      for (int k = 0; k < a4->ints_size(); ++k) value.set_int(k, a4->ints(k));
      v.shape = {int64_t(a4->ints_size())};
    } else {
      fail("has no value");
    }
    v.type = value.dtype();
    v.constant = std::move(value);
    v.tex = fresh_name(node_->output(0));
    values_[node_->output(0)] = std::move(v);
    return;
  }
  fail("this op type is not supported");
}


/// The static shape and element type of a graph input or output, or a message saying why not. A
/// symbolic first dimension that `dynamic` binds (Importer) takes its number.
std::optional<std::string> static_type_of(const onnx::ValueInfoProto& vi, Type* type, Shape* shape,
                                          const std::map<std::string, int64_t>& dynamic = {}) {
  if (!vi.type().has_tensor_type()) return "'" + vi.name() + "' is not a tensor";
  const auto& tt = vi.type().tensor_type();
  std::optional<Type> t = texc_type_of_onnx(tt.elem_type());
  if (!t) return "'" + vi.name() + "' has element type " + onnx_type_name(tt.elem_type()) + ", which texc does not have";
  *type = *t;
  if (!tt.has_shape()) return "'" + vi.name() + "' has no shape";
  shape->clear();
  for (const auto& d : tt.shape().dim()) {
    auto bound = dynamic.find(d.dim_param());
    if (!d.has_dim_value() && shape->empty() && bound != dynamic.end()) {
      shape->push_back(bound->second);
      continue;
    }
    if (!d.has_dim_value())
      return "'" + vi.name() + "' has a dimension '" + d.dim_param() +
             "' that is not a number (only a first dimension may be symbolic: a dynamic batch)";
    if (d.dim_value() <= 0 || d.dim_value() > (int64_t(1) << 40))
      return "'" + vi.name() + "' has a dimension of " + std::to_string(d.dim_value()) + " (texc's extents are positive)";
    shape->push_back(d.dim_value());
  }
  return std::nullopt;
}

ImportedModel Importer::run() {
  const onnx::GraphProto& g = model_.graph();
  for (const auto& o : model_.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") opset_ = o.version();
  if (opset_ == 0) opset_ = 1;
  if (opset_ < 7 || opset_ > 17)
    throw OnnxImportError("the model's opset is " + std::to_string(opset_) + "; texc imports opsets 7 to 17");
  result_.opset = opset_;
  std::string base = options_.op_name.empty() ? (g.name().empty() ? "model" : g.name()) : options_.op_name;
  result_.op_name = fresh_name(base);
  for (const auto& [dim_param, number] : dynamic_) {
    (void)number;
    result_.dynamic_dims.push_back({dim_param, fresh_name(dim_param.empty() ? "N" : dim_param)});
  }
  for (const auto& vi : g.value_info()) {
    Type t;
    Shape s;
    if (!static_type_of(vi, &t, &s, dynamic_)) declared_[vi.name()] = s;
  }
  for (const auto& vi : g.output()) {
    Type t;
    Shape s;
    if (!static_type_of(vi, &t, &s, dynamic_)) declared_[vi.name()] = s;
    graph_outputs_.insert(vi.name());
  }
  // initializers: constants, materialized as const inputs where a node reads them as data
  for (const auto& init : g.initializer()) {
    Value v;
    try {
      v.constant = tensor_of_onnx(init);
    } catch (const OnnxTensorError& e) {
      throw OnnxImportError(std::string("initializer: ") + e.what());
    }
    v.type = v.constant->dtype();
    v.shape = Shape(init.dims().begin(), init.dims().end());
    v.tex = fresh_name(init.name());
    values_[init.name()] = std::move(v);
  }
  std::vector<std::string> input_order;
  for (const auto& vi : g.input()) {
    if (values_.count(vi.name())) continue;  // an initializer listed as an input too (older exporters)
    Value v;
    if (auto why = static_type_of(vi, &v.type, &v.shape, dynamic_)) throw OnnxImportError("graph input " + *why);
    v.tex = fresh_name(vi.name());
    v.materialized = true;
    values_[vi.name()] = v;
    input_order.push_back(vi.name());
  }
  result_.graph_inputs = input_order;
  for (const auto& n : g.node())
    for (const auto& in : n.input()) consumers_[in].push_back(&n);
  for (int k = 0; k < g.node_size(); ++k) {
    node_ = &g.node(k);
    node_index_ = k;
    lines_.push_back("    # " + (node_->name().empty() ? "node #" + std::to_string(k) : "'" + node_->name() + "'") + ": " +
                     node_->op_type());
    try {
      import_node();
    } catch (const std::invalid_argument&) {  // literal() of an attribute or constant that is not finite
      fail("a value that is not a finite number (an attribute or a constant) is not supported");
    } catch (const AllocationError& e) {
      fail(std::string("a constant is too large: ") + e.what());
    } catch (const OnnxTensorError& e) {
      fail(e.what());
    }
    auto d = declared_.find(node_->output_size() ? node_->output(0) : std::string());
    if (d != declared_.end() && values_.count(d->first) && values_[d->first].shape != d->second)
      fail("computed the shape " + shape_text(values_[d->first].shape) + " for '" + d->first + "', the graph declares " +
           shape_text(d->second));
  }
  node_ = nullptr;
  // outputs: every graph output must be a stage of the op
  std::vector<std::string> output_names;
  for (const auto& vi : g.output()) {
    auto it = values_.find(vi.name());
    if (it == values_.end()) throw OnnxImportError("graph output '" + vi.name() + "' is not computed by any node");
    Value& v = it->second;
    bool is_input = std::find(input_order.begin(), input_order.end(), vi.name()) != input_order.end();
    if (!v.blocked.empty() && (v.tex.empty() || v.plain_pending)) materialize(v);  // the graph's outputs are NCHW
    if (v.constant || is_input || std::find(output_names.begin(), output_names.end(), v.tex) != output_names.end()) {
      std::string src = materialize(v);
      std::string copy = fresh_name(vi.name() + "_out");
      lines_.push_back("    " + lhs(copy, v.shape) + " = " + at(src, ivars(tex_dims(v.shape).size())));
      output_names.push_back(copy);
      result_.outputs.push_back({vi.name(), copy, v.type, tex_dims(v.shape)});
      continue;
    }
    output_names.push_back(v.tex);
    result_.outputs.push_back({vi.name(), v.tex, v.type, tex_dims(v.shape)});
  }
  if (output_names.empty()) throw OnnxImportError("the graph has no outputs");
  // the op's parameters: the graph inputs that the nodes read, then the const inputs in order of first use
  std::vector<std::string> params;
  for (const std::string& name : input_order) {
    const Value& v = values_[name];
    if (!v.used) continue;  // only a shape (Reshape's, with the output's shape declared): not an input of the op
    params.push_back(v.tex + ": " + v.type.str() + shape_text(tex_dims(v.shape)) + domains_[v.tex]);
    result_.inputs.push_back({name, v.tex, v.type, tex_dims(v.shape)});
  }
  for (const std::string& p : param_decls_) params.push_back(p);
  std::ostringstream out;
  out << "# Imported from " << (options_.source_name.empty() ? "an ONNX model" : options_.source_name)
      << " by `texc import` (ONNX opset " << opset_;
  if (!model_.producer_name().empty()) out << ", produced by " << model_.producer_name();
  out << ").\n";
  if (!result_.weights.empty())
    out << "# The const inputs are the model's initializers, in the weights container `texc import` writes:\n"
        << "# `texc run FILE.tex --weights MODEL.weights` (docs/onnx.md).\n";
  for (const std::string& m : imports_) out << "import " << m << "\n";
  for (const DynamicDim& d : result_.dynamic_dims)
    out << "\n# The graph inputs' dynamic first dimension '" << d.dim_param << "' (set it with -D " << d.param
        << "=SIZE)\nparam " << d.param << " = 1\n";
  out << "\nop " << result_.op_name << "(" << join(params, ",\n" + std::string(4 + result_.op_name.size(), ' ')) << ")\n    -> "
      << join(output_names) << " {\n  compute {\n";
  for (const std::string& l : lines_) out << l << "\n";
  out << "  }\n}\n";
  result_.tex_source = out.str();
  for (ImportedWeight& w : result_.weights) {
    for (const auto& [onnx_name, v] : values_)
      if (v.tex == w.tex_name && v.constant) w.onnx_name = onnx_name;
  }
  return std::move(result_);
}

}  // namespace

namespace {

/// The dim_params of the graph inputs' symbolic first dimensions ("" for one with no name), in order.
std::vector<std::string> dynamic_first_dims(const onnx::ModelProto& model) {
  std::set<std::string> initializers;
  for (const auto& init : model.graph().initializer()) initializers.insert(init.name());
  std::vector<std::string> names;
  for (const auto& vi : model.graph().input()) {
    if (initializers.count(vi.name()) || !vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) continue;
    const auto& dims = vi.type().tensor_type().shape().dim();
    if (dims.empty() || dims[0].has_dim_value()) continue;
    if (std::find(names.begin(), names.end(), dims[0].dim_param()) == names.end()) names.push_back(dims[0].dim_param());
  }
  return names;
}

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

/// `text` with every integer literal equal to a number of `dynamic` (a whole token: not part of a
/// name or of a float literal) replaced by the param that stands for it.
std::string with_params(const std::string& text, const std::map<std::string, int64_t>& dynamic,
                        const std::vector<DynamicDim>& dims) {
  std::map<std::string, std::string> param_of;  // the number's digits -> the param
  for (const DynamicDim& d : dims) param_of[std::to_string(dynamic.at(d.dim_param))] = d.param;
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (!std::isdigit(static_cast<unsigned char>(text[i])) || (i > 0 && is_word_char(text[i - 1]))) {
      out += text[i++];
      continue;
    }
    size_t j = i;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
    std::string token = text.substr(i, j - i);
    bool whole = j == text.size() || !(is_word_char(text[j]) || text[j] == 'e' || text[j] == 'E');
    auto it = param_of.find(token);
    out += whole && it != param_of.end() ? it->second : token;
    i = j;
  }
  return out;
}

bool same_weights(const ImportedModel& a, const ImportedModel& b) {
  if (a.weights.size() != b.weights.size()) return false;
  for (size_t k = 0; k < a.weights.size(); ++k) {
    const Tensor& x = a.weights[k].value;
    const Tensor& y = b.weights[k].value;
    if (a.weights[k].tex_name != b.weights[k].tex_name || x.dtype() != y.dtype() || x.shape() != y.shape() ||
        std::memcmp(x.data(), y.data(), x.num_bytes()) != 0)
      return false;
  }
  return true;
}

}  // namespace

ImportedModel import_onnx_bytes(const std::string& bytes, const OnnxImportOptions& options) {
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes))
    throw OnnxImportError((options.source_name.empty() ? std::string("the input") : options.source_name) +
                          " is not an ONNX model (a serialized ModelProto)");
  std::vector<std::string> dynamic = dynamic_first_dims(model);
  if (dynamic.empty()) return Importer(model, options, {}).run();
  // A dynamic batch: the model imported twice, the symbolic dimension standing for a different
  // prime each time (sizes no model has). Where both texts, with each prime written as the param,
  // are the same (and so are the weights), every size and index the importer derived from the
  // dimension is the dimension itself, and the text holds for any value the param takes. Where they
  // differ, the dimension went into a product, a constant or a float (a Reshape to a computed
  // size, a mean over the batch): refused.
  static const int64_t first[] = {7919, 7927, 7933, 7937}, second[] = {8011, 8017, 8039, 8053};
  if (dynamic.size() > 4) throw OnnxImportError("the graph inputs have more than 4 symbolic first dimensions");
  std::map<std::string, int64_t> bind_a, bind_b;
  for (size_t k = 0; k < dynamic.size(); ++k) {
    bind_a[dynamic[k]] = first[k];
    bind_b[dynamic[k]] = second[k];
  }
  ImportedModel a = Importer(model, options, bind_a).run();
  ImportedModel b = Importer(model, options, bind_b).run();
  std::string text = with_params(a.tex_source, bind_a, a.dynamic_dims);
  if (text != with_params(b.tex_source, bind_b, b.dynamic_dims) || !same_weights(a, b)) {
    std::string names;
    for (const DynamicDim& d : a.dynamic_dims) names += (names.empty() ? "'" : ", '") + d.dim_param + "'";
    throw OnnxImportError("the dynamic first dimension " + names +
                          " of the graph inputs enters a size texc cannot write as a param (a product, a "
                          "constant or a float computed from it: a Reshape or Flatten across the batch, a mean "
                          "over it ...); give the inputs a fixed first dimension");
  }
  a.tex_source = std::move(text);
  // The shapes reported are those of the default, 1.
  for (std::vector<ImportedTensor>* list : {&a.inputs, &a.outputs})
    for (ImportedTensor& t : *list)
      for (int64_t& d : t.shape)
        for (const auto& [dim_param, number] : bind_a)
          if (d == number) d = 1;
  return a;
}

ImportedModel import_onnx_file(const std::string& path, OnnxImportOptions options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw OnnxImportError("cannot read " + path);
  std::stringstream bytes;
  bytes << in.rdbuf();
  if (options.source_name.empty()) options.source_name = std::filesystem::path(path).filename().string();
  return import_onnx_bytes(bytes.str(), options);
}

std::vector<std::string> onnx_node_op_types(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  onnx::ModelProto model;
  if (!in.is_open() || !model.ParseFromString(bytes.str())) throw OnnxImportError(path + " is not an ONNX model");
  std::vector<std::string> types;
  for (const auto& n : model.graph().node()) types.push_back(n.op_type());
  return types;
}

void write_weights(const ImportedModel& model, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw OnnxImportError("cannot create the directory " + dir + ": " + ec.message());
  for (const ImportedWeight& w : model.weights) {
    std::string path = (std::filesystem::path(dir) / (model.op_name + "." + w.tex_name + ".npy")).string();
    try {
      write_npy(path, w.value);
    } catch (const NpyError& e) {
      throw OnnxImportError(e.what());
    }
  }
}

}  // namespace texc
