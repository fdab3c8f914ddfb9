// compile_file / compile_source: load, declare, evaluate params, elaborate intrinsics and entry ops.
#include "frontend/Frontend.h"

#include <algorithm>
#include <filesystem>

#include "frontend/ConstExpr.h"
#include "frontend/LayoutPlan.h"
#include "frontend/ModuleLoader.h"
#include "frontend/OpElaborator.h"
#include "frontend/Suggest.h"
#include "ir/Schedule.h"

namespace texc {

namespace {

/// The names -D may bind: params, and attributes and dimension variables of the main file's ops.
std::set<std::string> definable_names(const std::vector<const ast::File*>& files, const ast::File& main) {
  std::set<std::string> names;
  for (const ast::File* f : files)
    for (const ast::ParamDecl& p : f->params) names.insert(p.name.text);
  for (const ast::OpDecl& op : main.ops) {
    for (const ast::OpParam& p : op.params) {
      if (p.is_attribute()) names.insert(p.name.text);
      for (const ast::ExprPtr& d : p.dims)
        if (auto* n = d->as<ast::NameRef>()) names.insert(n->name);
    }
  }
  return names;
}

/// Params are lexically scoped: an op sees the params of its own file and of the files that file
/// imports (directly or not), never those of a file that imports it — a caller's `param H` does not
/// change the `H` of an imported op's signature. A file's own param shadows an imported one of the
/// same name (in that file and the files importing it); two imported files that both declare it
/// are an error where both become visible. Files come in dependency order, so each file's
/// imports have their params evaluated before its own.
void declare_params(const ModuleLoader& loader, const std::map<std::string, DefineValue>& defines,
                    ProgramSymbols& program) {
  std::map<const ast::File*, std::vector<const ast::ParamDecl*>> visible;  // own params and imported ones
  for (const ast::File* f : loader.files_in_dependency_order()) {
    std::vector<const ast::ParamDecl*>& mine = visible[f];
    Scope& scope = program.file_scopes[f->file_id];
    std::set<std::string> own;
    for (const ast::ParamDecl& p : f->params) own.insert(p.name.text);
    for (const ast::File* imported : loader.imports_of(*f)) {
      for (const ast::ParamDecl* p : visible.at(imported)) {
        if (std::find(mine.begin(), mine.end(), p) != mine.end()) continue;  // reached by two paths
        if (own.count(p->name.text)) continue;  // the file's own param of that name shadows it
        scope.define(p->name.text, p->name.loc, *program.file_scopes.at(p->name.loc.file).lookup(p->name.text));
        mine.push_back(p);
      }
    }
    for (const ast::ParamDecl& p : f->params) {
      auto d = defines.find(p.name.text);
      int64_t value = d != defines.end() ? define_as_int(d->first, d->second) : eval_const_int(*p.value, scope);
      scope.define(p.name.text, p.name.loc, Symbol::size(value, p.name.loc));
      mine.push_back(&p);
    }
  }
}

/// Ops are lexically scoped like params: a file sees its own ops and those of the files it imports
/// (directly or not). A file's own op shadows an imported one of the same name, so a user's
/// `op conv2d_1x1` does not clash with the stdlib op that nn.conv2d calls, and nn.conv2d still calls
/// its own; two ops of one name in one file, or from two imported files, are an error (an
/// intrinsic's name is global: an op may not reuse it).
void declare_ops(const ModuleLoader& loader, ProgramSymbols& program) {
  for (const ast::File* f : loader.files_in_dependency_order()) {
    std::map<std::string, const ast::OpDecl*>& visible = program.file_ops[f->file_id];
    std::map<std::string, const ast::OpDecl*> own;
    for (const ast::OpDecl& op : f->ops) {
      const ast::OpDecl* clash = own.count(op.name.text) ? own.at(op.name.text) : nullptr;
      if (!clash && !op.is_intrinsic && program.intrinsic_decls.count(op.name.text))
        clash = program.intrinsic_decls.at(op.name.text);
      if (clash && clash != &op)
        throw_with_note(make_diagnostic(DiagId::Redefinition, op.name.loc, op.name.text), clash->name.loc,
                        fmt::format("'{}' is defined here", op.name.text));
      own[op.name.text] = &op;
    }
    for (const ast::File* imported : loader.imports_of(*f)) {
      for (const auto& [name, op] : program.file_ops.at(imported->file_id)) {
        if (own.count(name)) continue;  // the file's own op shadows it
        auto [it, fresh] = visible.emplace(name, op);
        if (!fresh && it->second != op) {
          throw_with_note(make_diagnostic(DiagId::Redefinition, op->name.loc, name), it->second->name.loc,
                          fmt::format("'{}' is defined here", name));
        }
      }
    }
    for (const auto& [name, op] : own)
      if (!op->is_intrinsic) visible[name] = op;
  }
}

/// The op `name` that the main file sees when it is the standard library's (not one of the user's).
const ast::OpDecl* stdlib_op(const ProgramSymbols& program, const std::string& name) {
  auto it = program.ops.find(name);
  if (it == program.ops.end()) return nullptr;
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path file = fs::weakly_canonical(SourceManager::get().path(it->second->name.loc.file), ec);
  fs::path stdlib = fs::weakly_canonical(program.stdlib_dir, ec);
  auto [mismatch, rest] = std::mismatch(stdlib.begin(), stdlib.end(), file.begin(), file.end());
  return mismatch == stdlib.end() ? it->second : nullptr;
}

/// `op` elaborated for the target, with its layouts planned when options say so and the plan
/// changes something (frontend/LayoutPlan.h). The planned op is elaborated from the rewritten
/// syntax tree; should that fail, which would be a bug of the plan, the op is kept as written.
OpDef elaborate_entry(OpElaborator& elaborator, const ast::OpDecl& op, const ProgramSymbols& program,
                      const FrontendOptions& options) {
  OpDef def = elaborator.entry(op);
  if (!options.plan_layouts) return def;
  LayoutPlanContext context{[&](const std::string& name) { return stdlib_op(program, name); },
                            !options.target.empty() && schedule_applies("cpu", options.target)};
  std::unique_ptr<ast::OpDecl> planned = plan_layouts(op, def, context);
  if (!planned) return def;
  try {
    return elaborator.entry(*planned);
  } catch (const UserError&) {
    return def;
  }
}

/// The most stages (computed tensors) an entry op may have (docs/language.md "Limits").
constexpr size_t kMaxStagesPerOp = 2048;

Program elaborate_program(const ModuleLoader& loader, const ast::File& main, const FrontendOptions& options) {
  const std::vector<const ast::File*>& files = loader.files_in_dependency_order();
  for (const auto& [name, value] : options.defines) {
    if (!definable_names(files, main).count(name)) throw_error(DiagId::UnknownDefine, SourceLoc{}, name, name);
  }

  ProgramSymbols program;
  std::map<std::string, SourceLoc> intrinsics_declared;
  for (const ast::File* f : files) {
    for (const ast::OpDecl& op : f->ops) {
      if (!op.is_intrinsic) {
        program.callables.ops.insert(op.name.text);
        continue;
      }
      auto previous = intrinsics_declared.find(op.name.text);
      if (previous != intrinsics_declared.end()) {
        throw_with_note(make_diagnostic(DiagId::Redefinition, op.name.loc, op.name.text), previous->second,
                        fmt::format("'{}' is defined here", op.name.text));
      }
      intrinsics_declared[op.name.text] = op.name.loc;
      program.intrinsic_decls[op.name.text] = &op;
      program.callables.intrinsics.insert(op.name.text);
    }
  }
  declare_ops(loader, program);
  program.ops = program.file_ops.at(main.file_id);
  declare_params(loader, options.defines, program);
  program.stdlib_dir = options.stdlib_dir.empty() ? default_stdlib_dir() : options.stdlib_dir;

  OpElaborator elaborator(program, options.defines, options.target);
  for (const ast::File* f : files) {
    for (const ast::OpDecl& op : f->ops) {
      if (op.is_intrinsic) program.intrinsics[op.name.text] = elaborator.intrinsic(op);
    }
  }

  Program out;
  out.main_file = main.path;
  bool found = options.only_op.empty();
  std::vector<std::string> op_names;
  for (const ast::OpDecl& op : main.ops) {
    if (op.is_intrinsic) continue;
    op_names.push_back(op.name.text);
    if (!options.only_op.empty() && op.name.text != options.only_op) continue;
    found = true;
    try {
      out.ops.push_back(elaborate_entry(elaborator, op, program, options));
      // Scheduling and lowering visit every stage's nest once per stage (automatic inlining, the
      // data-flow checks): 2000 stages take seconds, 5000 took half a minute.
      if (const OpDef& def = out.ops.back(); def.stages.size() > kMaxStagesPerOp)
        throw_error(DiagId::TooManyStages, def.stages[kMaxStagesPerOp].loc, def.name, kMaxStagesPerOp);
    } catch (const UserError& e) {
      bool unbound = e.diag.id == DiagId::UnboundDimension || e.diag.id == DiagId::MissingAttributeEntry;
      if (!options.skip_unbound_ops || !options.only_op.empty() || !unbound) throw;
      out.skipped.push_back({op.name.text, e.diag});
    }
  }
  if (!found) {
    std::string suggestion = closest_name(options.only_op, op_names);
    if (!suggestion.empty())
      throw_error(DiagId::UnknownEntryOpSuggest, SourceLoc{}, options.only_op, options.only_op, suggestion);
    throw_error(DiagId::UnknownEntryOp, SourceLoc{}, options.only_op, options.only_op);
  }
  if (out.ops.empty() && !out.skipped.empty()) throw UserError(out.skipped.front().reason);
  return out;
}

}  // namespace

Program compile_file(const std::string& path, const FrontendOptions& options) {
  ModuleLoader loader(options.stdlib_dir.empty() ? default_stdlib_dir() : options.stdlib_dir, options.include_dirs);
  const ast::File& main = loader.load_main_file(path);
  return elaborate_program(loader, main, options);
}

Program compile_source(const std::string& name, const std::string& text, const FrontendOptions& options) {
  ModuleLoader loader(options.stdlib_dir.empty() ? default_stdlib_dir() : options.stdlib_dir, options.include_dirs);
  const ast::File& main = loader.load_main_source(name, text, ".");
  return elaborate_program(loader, main, options);
}

}  // namespace texc
