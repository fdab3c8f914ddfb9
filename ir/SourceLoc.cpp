#include "ir/SourceLoc.h"

namespace texc {

SourceManager& SourceManager::get() {
  static SourceManager instance;
  return instance;
}

uint32_t SourceManager::add(std::string path, std::string text) {
  files_.push_back({std::move(path), std::move(text)});
  return uint32_t(files_.size());
}

const std::string& SourceManager::path(uint32_t file) const {
  static const std::string unknown = "<unknown>";
  return file >= 1 && file <= files_.size() ? files_[file - 1].path : unknown;
}

const std::string& SourceManager::text(uint32_t file) const {
  static const std::string empty;
  return file >= 1 && file <= files_.size() ? files_[file - 1].text : empty;
}

std::string SourceManager::line_text(uint32_t file, uint32_t line) const {
  const std::string& t = text(file);
  size_t pos = 0;
  for (uint32_t l = 1; l < line && pos != std::string::npos; ++l) {
    pos = t.find('\n', pos);
    if (pos != std::string::npos) ++pos;
  }
  if (pos == std::string::npos || pos > t.size()) return {};
  size_t end = t.find('\n', pos);
  return t.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
}

}  // namespace texc
