// SourceLoc and SourceManager: where a piece of IR came from in the user's .tex files.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace texc {

/// A position in a source file. file == 0 means "no location" (compiler-generated).
struct SourceLoc {
  uint32_t file = 0;
  uint32_t line = 0;  // 1-based
  uint32_t col = 0;   // 1-based
  bool valid() const { return file != 0; }
};

/// Owns the text of every loaded source file so diagnostics can quote the line.
/// One per process; files are never unloaded.
class SourceManager {
 public:
  static SourceManager& get();
  /// Registers a file's text; returns its id (>= 1).
  uint32_t add(std::string path, std::string text);
  const std::string& path(uint32_t file) const;
  const std::string& text(uint32_t file) const;
  /// The text of line `line` (1-based) without its newline; empty if out of range.
  std::string line_text(uint32_t file, uint32_t line) const;

 private:
  struct File {
    std::string path, text;
  };
  std::vector<File> files_;
};

}  // namespace texc
