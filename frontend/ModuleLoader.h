// Loading a .tex file and everything it imports, each file once.
//
// `import nn.conv2d` looks for nn/conv2d.tex in the importing file's folder, then in each -I
// directory, then in the standard library;
// `import "my/ops.tex"` looks relative to the importing file's folder, then in each -I directory.
// A file that imports itself through a chain of imports is an error that shows the chain (file
// names), located at the import that entered the cycle.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "frontend/Ast.h"

namespace texc {

class ModuleLoader {
 public:
  ModuleLoader(std::string stdlib_dir, std::vector<std::string> include_dirs)
      : stdlib_dir_(std::move(stdlib_dir)), include_dirs_(std::move(include_dirs)) {}

  /// Loads the main file from disk (CannotOpenFile if it cannot be read) and its imports.
  const ast::File& load_main_file(const std::string& path);
  /// Loads in-memory source text as the main file; its relative imports resolve against `dir`.
  const ast::File& load_main_source(const std::string& name, const std::string& text, const std::string& dir);

  /// Every loaded file, each after the files it imports (the main file last).
  const std::vector<const ast::File*>& files_in_dependency_order() const { return order_; }
  /// The files `file` imports directly, in the order of its import statements.
  const std::vector<const ast::File*>& imports_of(const ast::File& file) const { return imports_.at(&file); }

 private:
  const ast::File& load(const std::string& key, const std::string& display_path, const std::string& text,
                        const std::string& dir);
  std::string resolve(const ast::Import& import, const std::string& importing_dir) const;

  std::string stdlib_dir_;
  std::vector<std::string> include_dirs_;
  std::map<std::string, std::unique_ptr<ast::File>> files_;  // by canonical path
  std::vector<const ast::File*> order_;
  std::map<const ast::File*, std::vector<const ast::File*>> imports_;
  struct Loading {
    std::string key;           // canonical path
    std::string display_path;  // as given or resolved
    SourceLoc current_import;  // the import statement of this file being followed
  };
  std::vector<Loading> stack_;  // files being loaded, outermost first
};

}  // namespace texc
