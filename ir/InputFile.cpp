#include "ir/InputFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ir/Diagnostics.h"

namespace texc {

namespace {

std::vector<InputFileRecord>& registry() {
  static std::vector<InputFileRecord> files;
  return files;
}

void remember(const struct stat& st, const std::string& path, const std::string& what) {
  FileIdentity id{uint64_t(st.st_dev), uint64_t(st.st_ino)};
  if (!find_input_file(id)) registry().push_back({id, path, what});
}

/// "a directory", "a character device", ... (what a file that is not regular is).
std::string file_type_name(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a file";
}

/// "16 MiB", "1 GiB", or bytes.
std::string size_name(uint64_t bytes) {
  if (bytes % (1024 * kMiB) == 0) return std::to_string(bytes / (1024 * kMiB)) + " GiB";
  if (bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
  return std::to_string(bytes) + " bytes";
}

/// A regular file within the kind's limit, else a UserError.
void check_type_and_size(const struct stat& st, const std::string& path, const std::string& name,
                         const InputKind& kind, SourceLoc loc) {
  if (!S_ISREG(st.st_mode)) throw_error(DiagId::InputNotRegularFile, loc, name, path, file_type_name(st.st_mode));
  if (uint64_t(st.st_size) > kind.max_bytes)
    throw_error(DiagId::InputFileTooLarge, loc, name, path, uint64_t(st.st_size), size_name(kind.max_bytes),
                kind.purpose);
}

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

std::string read_input_file(const std::string& path, const InputKind& kind, SourceLoc loc, const std::string& what) {
  const std::string name = what.empty() ? kind.what : what;
  // O_NONBLOCK: opening a FIFO does not wait for a writer; the file type is checked before reading.
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (fd.get() < 0) {
    if (errno == ENOENT || errno == ENOTDIR) throw_error(DiagId::CannotOpenFile, loc, path);
    throw_error(DiagId::CannotReadFile, loc, path, std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw_error(DiagId::CannotReadFile, loc, path, std::strerror(errno));
  check_type_and_size(st, path, name, kind, loc);
  remember(st, path, name);
  std::string text;
  text.reserve(size_t(st.st_size));
  char chunk[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd.get(), chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw_error(DiagId::CannotReadFile, loc, path, std::strerror(errno));
    if (n == 0) break;
    if (text.size() + size_t(n) > kind.max_bytes)  // it grew while being read
      throw_error(DiagId::InputFileTooLarge, loc, name, path, uint64_t(text.size() + size_t(n)),
                  size_name(kind.max_bytes), kind.purpose);
    text.append(chunk, size_t(n));
  }
  return text;
}

void check_input_file(const std::string& path, const InputKind& kind, const std::string& what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return;
  check_type_and_size(st, path, what.empty() ? kind.what : what, kind, SourceLoc{});
}

std::optional<FileIdentity> file_identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileIdentity{uint64_t(st.st_dev), uint64_t(st.st_ino)};
}

void note_input_file(const std::string& path, const std::string& what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) remember(st, path, what);
}

const std::vector<InputFileRecord>& input_files() { return registry(); }

void forget_input_files() { registry().clear(); }

const InputFileRecord* find_input_file(const FileIdentity& identity) {
  // An input deleted (or replaced) since it was read is no longer the file its identity names: the
  // file system may have given its inode to a new file (a process that reads and writes many files,
  // as the tests do), which is not an input.
  for (const InputFileRecord& f : registry())
    if (f.identity == identity && file_identity(f.path) == std::optional<FileIdentity>(identity)) return &f;
  return nullptr;
}

}  // namespace texc
