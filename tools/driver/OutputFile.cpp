#include "tools/driver/OutputFile.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <streambuf>

#include "ir/InputFile.h"
#include "tools/driver/CompileOptions.h"
#include "tools/driver/EnvironmentError.h"

namespace texc {

void refuse_input_as_output(const std::string& path, const std::string& what) {
  std::optional<FileIdentity> id = file_identity(path);
  if (!id) return;
  if (const InputFileRecord* input = find_input_file(*id))
    throw OptionError(what + " '" + path + "' is the same file as " + input->what + " '" + input->path +
                           "', which this run reads; texc does not overwrite its inputs");
}

void check_output_path(const std::string& path, const std::string& what) {
  refuse_input_as_output(path, what);
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) throw OptionError(what + " '" + path + "' is a directory");
}

namespace {

std::string reason() { return std::strerror(errno); }

}  // namespace

OutputFile::OutputFile(std::string path, std::string what) : path_(std::move(path)), what_(std::move(what)) {
  refuse_input_as_output(path_, what_);
  struct stat st {};
  if (::stat(path_.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) throw OptionError(what_ + " '" + path_ + "' is a directory");
    in_place_ = true;  // /dev/null, a FIFO: written as it is
    write_path_ = path_;
    return;
  }
  // A symbolic link to a file: the file is replaced, the link stays.
  std::error_code ec;
  std::filesystem::path target = std::filesystem::is_symlink(path_, ec) && std::filesystem::exists(path_, ec)
                                     ? std::filesystem::canonical(path_, ec)
                                     : std::filesystem::path(path_);
  if (ec) target = path_;
  target_ = target.string();
  std::filesystem::path dir = target.parent_path();
  std::string pattern = (dir.empty() ? std::string(".") : dir.string()) + "/." + target.filename().string() + ".XXXXXX";
  int fd = ::mkstemp(pattern.data());
  if (fd < 0) throw EnvironmentError("cannot write '" + path_ + "': " + reason());
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);  // as a newly created file, not mkstemp's 0600
  ::close(fd);
  write_path_ = pattern;
}

OutputFile::~OutputFile() {
  if (!committed_ && !in_place_) ::unlink(write_path_.c_str());
}

void OutputFile::commit() {
  if (in_place_) {
    committed_ = true;
    return;
  }
  int fd = ::open(write_path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || ::fsync(fd) != 0) {
    std::string why = reason();
    if (fd >= 0) ::close(fd);
    throw EnvironmentError("cannot write '" + path_ + "': " + why);
  }
  if (::close(fd) != 0) throw EnvironmentError("cannot write '" + path_ + "': " + reason());
  if (::rename(write_path_.c_str(), target_.c_str()) != 0)
    throw EnvironmentError("cannot write '" + path_ + "': " + reason());
  committed_ = true;
}

void write_output_file(const std::string& path, const std::string& what, const std::string& text) {
  if (path == "-") {
    std::cout << text << std::flush;
    return;
  }
  OutputFile out(path, what);
  int fd = ::open(out.write_path().c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) throw EnvironmentError("cannot write '" + path + "': " + reason());
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::string why = n < 0 ? reason() : "nothing was written";
      ::close(fd);
      throw EnvironmentError("cannot write '" + path + "': " + why);
    }
    done += size_t(n);
  }
  if (::close(fd) != 0) throw EnvironmentError("cannot write '" + path + "': " + reason());
  out.commit();
}

namespace {

/// std::cout's buffer: passes everything to stdout and remembers why the first write failed.
class WatchedStandardOutput : public std::streambuf {
 public:
  int error = 0;

 protected:
  int overflow(int c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    char ch = traits_type::to_char_type(c);
    return xsputn(&ch, 1) == 1 ? c : traits_type::eof();
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    size_t written = std::fwrite(s, 1, size_t(n), stdout);
    if (written != size_t(n)) remember();
    return std::streamsize(written);
  }
  int sync() override {
    if (std::fflush(stdout) == 0) return 0;
    remember();
    return -1;
  }

 private:
  void remember() {
    if (!error) error = errno ? errno : EIO;
  }
};

WatchedStandardOutput& watched() {
  static WatchedStandardOutput* buffer = new WatchedStandardOutput;  // outlives std::cout's last flush
  return *buffer;
}

}  // namespace

void watch_standard_output() { std::cout.rdbuf(&watched()); }

int finish_standard_output(int exit_code) {
  std::cout.flush();
  errno = 0;
  if (std::fflush(stdout) != 0 && !watched().error) watched().error = errno ? errno : EIO;
  if (std::ferror(stdout) && !watched().error) watched().error = EIO;
  if (!watched().error) return exit_code;
  std::cerr << "texc: error: cannot write to standard output: " << std::strerror(watched().error) << "\n";
  return 2;
}

}  // namespace texc
