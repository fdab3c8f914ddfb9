#include "frontend/ModuleLoader.h"

#include <filesystem>

#include "frontend/Parser.h"
#include "frontend/Scope.h"
#include "ir/Diagnostics.h"
#include "ir/InputFile.h"

namespace texc {

namespace fs = std::filesystem;

namespace {

/// The text of `path` (a regular file within the source limit, ir/InputFile.h), or a diagnostic at loc.
std::string read_or_throw(const std::string& path, SourceLoc loc) { return read_input_file(path, kSourceInput, loc); }

std::string canonical(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
  return ec ? path : p.string();
}

std::string file_name(const std::string& path) { return fs::path(path).filename().string(); }

std::string parent_dir(const std::string& path) {
  fs::path p = fs::path(path).parent_path();
  return p.empty() ? "." : p.string();
}

}  // namespace

const ast::File& ModuleLoader::load_main_file(const std::string& path) {
  std::string text = read_or_throw(path, SourceLoc{});
  return load(canonical(path), path, text, parent_dir(path));
}

const ast::File& ModuleLoader::load_main_source(const std::string& name, const std::string& text,
                                                const std::string& dir) {
  return load("<source>:" + name, name, text, dir);
}

std::string ModuleLoader::resolve(const ast::Import& import, const std::string& importing_dir) const {
  std::vector<std::string> candidates;
  if (!import.module.empty()) {
    std::string relative = import.module;
    for (char& ch : relative)
      if (ch == '.') ch = '/';
    relative += ".tex";
    // The importing file's folder, each -I directory, then the stdlib: a user's own library next
    // to their file is found as the stdlib's modules are.
    candidates.push_back((fs::path(importing_dir) / relative).string());
    for (const std::string& dir : include_dirs_) candidates.push_back((fs::path(dir) / relative).string());
    candidates.push_back((fs::path(stdlib_dir_) / relative).string());
  } else {
    if (fs::path(import.path).is_absolute()) {
      candidates.push_back(import.path);
    } else {
      candidates.push_back((fs::path(importing_dir) / import.path).string());
      for (const std::string& dir : include_dirs_) candidates.push_back((fs::path(dir) / import.path).string());
    }
  }
  std::error_code ec;
  for (const std::string& c : candidates)
    if (fs::is_regular_file(c, ec)) return c;
  std::string searched;
  for (const std::string& c : candidates) searched += (searched.empty() ? "" : ", ") + c;
  throw_error(DiagId::ImportNotFound, import.loc, import.module.empty() ? import.path : import.module, searched);
}

const ast::File& ModuleLoader::load(const std::string& key, const std::string& display_path, const std::string& text,
                                    const std::string& dir) {
  uint32_t file_id = SourceManager::get().add(display_path, text);
  auto file = std::make_unique<ast::File>(parse_tex(file_id, display_path, text));
  ast::File& f = *file;
  files_[key] = std::move(file);
  stack_.push_back({key, display_path, {}});
  std::vector<const ast::File*>& direct_imports = imports_[&f];
  for (const ast::Import& import : f.imports) {
    std::string path = resolve(import, dir);
    std::string imported_key = canonical(path);
    stack_.back().current_import = import.loc;
    for (size_t i = 0; i < stack_.size(); ++i) {
      if (stack_[i].key != imported_key) continue;
      // Reported at the import that entered the cycle, with the import that closes it as a note.
      std::string chain;
      for (size_t j = i; j < stack_.size(); ++j) chain += file_name(stack_[j].display_path) + " -> ";
      chain += file_name(stack_[i].display_path);
      throw_with_note(make_diagnostic(DiagId::ImportCycle, stack_[i].current_import, chain), import.loc,
                      fmt::format("'{}' imports '{}' here", file_name(display_path), file_name(path)));
    }
    if (auto loaded = files_.find(imported_key); loaded != files_.end()) {  // loaded already (not on the stack)
      direct_imports.push_back(loaded->second.get());
      continue;
    }
    std::string imported_text = read_or_throw(path, import.loc);
    direct_imports.push_back(&load(imported_key, path, imported_text, parent_dir(path)));
  }
  stack_.pop_back();
  order_.push_back(&f);
  return f;
}

}  // namespace texc
