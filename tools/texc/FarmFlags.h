// FarmFlags: the flags of `texc worker` and `texc farm` (their own small parsers: neither takes a
// .tex file), walked in order: `--name VALUE` or `--name=VALUE`, or a flag without a value.
#pragma once
#include <string>

#include "tools/texc/CommandLine.h"

namespace texc {

class FarmFlags {
 public:
  FarmFlags(int argc, const char* const* argv, int first) : argc_(argc), argv_(argv), next_(first) {}
  /// Moves to the next argument; false after the last. Its name is flag().
  bool next() {
    if (next_ >= argc_) return false;
    current_ = next_++;
    flag_ = argv_[current_];
    size_t eq = flag_.find('=');
    attached_ = flag_.rfind("--", 0) == 0 && eq != std::string::npos;
    if (attached_) {
      value_ = flag_.substr(eq + 1);
      flag_ = flag_.substr(0, eq);
    }
    return true;
  }
  const std::string& flag() const { return flag_; }
  /// The argument as given (for "does not take '...'").
  std::string given() const { return argv_[current_]; }
  /// The flag's value: attached, else the next argument. Throws CommandLineError when there is none.
  std::string value() {
    if (attached_) return value_;
    if (next_ >= argc_) throw CommandLineError(flag_ + " needs a value");
    return argv_[next_++];
  }

 private:
  int argc_;
  const char* const* argv_;
  int next_, current_ = 0;
  std::string flag_, value_;
  bool attached_ = false;
};

}  // namespace texc
