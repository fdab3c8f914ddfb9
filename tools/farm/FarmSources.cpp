#include "tools/farm/FarmSources.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#include "frontend/ModuleLoader.h"
#include "frontend/Parser.h"
#include "ir/Diagnostics.h"
#include "ir/SourceLoc.h"

namespace texc {

namespace fs = std::filesystem;

namespace {

fs::path canonical(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
  if (ec) p = fs::absolute(path).lexically_normal();
  return p.has_filename() || !p.has_parent_path() ? p : p.parent_path();  // "lib/" as "lib"
}

/// Whether `path` is `folder` or inside it (both canonical).
bool inside(const fs::path& folder, const fs::path& path) {
  auto f = folder.begin(), p = path.begin();
  for (; f != folder.end(); ++f, ++p)
    if (p == path.end() || *f != *p) return false;
  return true;
}

/// The deepest folder that holds every one of `folders` (canonical, not empty).
fs::path common_folder(const std::vector<fs::path>& folders) {
  fs::path common = folders.front();
  for (const fs::path& f : folders)
    while (!inside(common, f)) common = common.parent_path();
  return common;
}

std::string relative_to(const fs::path& root, const fs::path& path) {
  std::string r = path.lexically_relative(root).generic_string();
  return r.empty() ? "." : r;
}

/// Whether `p` is a plain relative path: components neither empty nor `.` nor `..` (a folder may be
/// "." itself, the root).
bool plain_relative(const std::string& p, bool folder) {
  if (folder && p == ".") return true;
  if (p.empty() || p.front() == '/' || p.find('\0') != std::string::npos) return false;
  size_t start = 0;
  for (;;) {
    size_t slash = p.find('/', start);
    std::string part = p.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (part.empty() || part == "." || part == "..") return false;
    if (slash == std::string::npos) return true;
    start = slash + 1;
  }
}

}  // namespace

JobSources collect_job_sources(const std::string& path, const std::vector<std::string>& include_dirs,
                               const std::string& stdlib_dir) {
  ModuleLoader loader(stdlib_dir, include_dirs);
  loader.load_main_file(path);
  std::vector<fs::path> files;  // canonical, each after the files it imports: the main file last
  std::vector<std::string> texts;
  for (const ast::File* f : loader.files_in_dependency_order()) {
    files.push_back(canonical(f->path));
    texts.push_back(SourceManager::get().text(f->file_id));
  }
  auto holds_a_file = [&files](const fs::path& folder) {
    for (const fs::path& f : files)
      if (inside(folder, f)) return true;
    return false;
  };
  std::vector<fs::path> folders;  // every file's folder, and the -I and stdlib folders that hold one
  for (const fs::path& f : files) folders.push_back(f.parent_path());
  std::vector<fs::path> used_include_dirs;
  for (const std::string& dir : include_dirs) {
    fs::path d = canonical(dir);
    if (holds_a_file(d)) used_include_dirs.push_back(d);
  }
  folders.insert(folders.end(), used_include_dirs.begin(), used_include_dirs.end());
  fs::path stdlib = canonical(stdlib_dir);
  bool stdlib_used = holds_a_file(stdlib);
  if (stdlib_used) folders.push_back(stdlib);
  fs::path root = common_folder(folders);

  JobSources out;
  for (size_t i = 0; i < files.size(); ++i) out.files[relative_to(root, files[i])] = texts[i];
  out.main = relative_to(root, files.back());
  for (const fs::path& d : used_include_dirs) out.include_dirs.push_back(relative_to(root, d));
  if (stdlib_used) out.stdlib_dir = relative_to(root, stdlib);
  std::string why = check_job_sources(out);
  if (!why.empty()) throw std::runtime_error(path + " cannot be shipped to the farm's workers: " + why);
  return out;
}

std::string check_job_sources(const JobSources& sources) {
  if (!sources.files.count(sources.main)) return fmt::format("the main file '{}' is not among its files", sources.main);
  for (const auto& [path, text] : sources.files) {
    if (!plain_relative(path, false)) return fmt::format("a file path '{}' that is not a plain relative path", path);
    for (fs::path folder = fs::path(path).parent_path(); !folder.empty(); folder = folder.parent_path())
      if (sources.files.count(folder.generic_string()))
        return fmt::format("'{}' is a file and a folder", folder.generic_string());
  }
  for (const std::string& dir : sources.include_dirs)
    if (!plain_relative(dir, true)) return fmt::format("an include folder '{}' that is not a plain relative path", dir);
  if (!sources.stdlib_dir.empty() && !plain_relative(sources.stdlib_dir, true))
    return fmt::format("a standard library folder '{}' that is not a plain relative path", sources.stdlib_dir);

  // The quoted imports, looked up as ModuleLoader::resolve does: the importing file's folder, then
  // each include folder, up to the first shipped file. (Dotted imports are names: they cannot leave.)
  for (const auto& [path, text] : sources.files) {
    if (text.find("import") == std::string::npos) continue;
    ast::File file;
    try {  // file id 0, registered nowhere: a worker checks every job, and its diagnostics are dropped
      file = parse_tex(0, path, text);
    } catch (const UserError&) {
      continue;  // the worker's front end reports it, before following any import of the file
    }
    for (const ast::Import& import : file.imports) {
      if (import.path.empty()) continue;
      if (fs::path(import.path).is_absolute())
        return fmt::format("'{}' imports \"{}\" by an absolute path (name its folder with -I instead)", path, import.path);
      std::vector<fs::path> places = {fs::path(path).parent_path() / import.path};
      for (const std::string& dir : sources.include_dirs) places.push_back(fs::path(dir) / import.path);
      for (const fs::path& place : places) {
        fs::path normal = place.lexically_normal();
        std::string p = normal.generic_string();
        if (p == ".." || p.rfind("../", 0) == 0)
          return fmt::format("'{}' imports \"{}\", which looks outside the shipped files (at {})", path, import.path,
                             place.generic_string());
        if (sources.files.count(p)) break;
      }
    }
  }
  return "";
}

void write_job_sources(const JobSources& sources, const std::string& root) {
  for (const auto& [path, text] : sources.files) {
    fs::path file = fs::path(root) / path;
    std::error_code ec;
    fs::create_directories(file.parent_path(), ec);
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + file.string());
  }
}

}  // namespace texc
