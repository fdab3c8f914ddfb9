#include "frontend/Scope.h"

#include "frontend/Suggest.h"

namespace texc {

const Symbol* Scope::lookup(const std::string& name) const {
  for (const Scope* s = this; s; s = s->parent_) {
    auto it = s->symbols_.find(name);
    if (it != s->symbols_.end()) return &it->second;
  }
  return nullptr;
}

void Scope::define(const std::string& name, SourceLoc loc, Symbol symbol) {
  if (const Symbol* previous = lookup(name)) {
    throw_with_note(make_diagnostic(DiagId::Redefinition, loc, name), previous->loc,
                    fmt::format("'{}' is defined here", name));
  }
  symbol.loc = loc;
  symbols_[name] = std::move(symbol);
}

bool Scope::is_declared_later(const std::string& name) const {
  for (const Scope* s = this; s; s = s->parent_)
    if (s->later_.count(name)) return true;
  return false;
}

std::vector<std::string> Scope::visible_names() const {
  std::vector<std::string> names;
  for (const Scope* s = this; s; s = s->parent_)
    for (const auto& [name, symbol] : s->symbols_) names.push_back(name);
  return names;
}

void Scope::throw_unknown(const std::string& name, SourceLoc loc) const {
  if (is_declared_later(name)) throw_error(DiagId::UsedBeforeDefinition, loc, name);
  std::string suggestion = closest_name(name, visible_names());
  if (!suggestion.empty()) throw_error(DiagId::UnknownNameSuggest, loc, name, suggestion);
  throw_error(DiagId::UnknownName, loc, name);
}

void throw_with_note(Diagnostic diag, SourceLoc note_loc, std::string note) {
  if (note_loc.valid()) diag.notes.push_back({note_loc, std::move(note)});
  throw UserError(std::move(diag));
}

}  // namespace texc
