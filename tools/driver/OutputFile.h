// OutputFile: how texc writes a file — every output of `texc FILE` (-o, --emit), `texc tune
// --curve` and `texc run --trace`. Guarantees:
//  - a file the run reads is never replaced: a destination that is the same file (device and
//    inode: a hard link or a symbolic link counts) as an input of the run (ir/InputFile.h: the
//    .tex, its imports, --records, --transfer, --curve-with, --vdla-config, --extern-src, ...) is
//    refused before anything is written (OptionError, exit 1);
//  - a regular destination is written whole or not at all: the text goes to a temporary file in
//    the same folder, which is flushed to the disk (fsync) and renamed over the destination; a
//    failed write (a full disk) leaves the old file as it was and is an EnvironmentError naming
//    the file and the reason (exit 2); a destination that exists and is not a regular file
//    (/dev/null, a FIFO) is written in place, its errors reported the same way;
//  - standard output (`-o -`, the lines of run and tune) is checked at exit (finish_standard_output).
#pragma once
#include <string>

#include "tools/driver/CompileOptions.h"

namespace texc {

/// Refuses `path` when it is a file this run reads (OptionError: "--curve 'r.jsonl' is the
/// --records file of this run; texc does not overwrite its inputs"). `what` names the output.
void refuse_input_as_output(const std::string& path, const std::string& what);
/// refuse_input_as_output, and an OptionError for a directory: what OutputFile would refuse, asked
/// of every output before the first is written.
void check_output_path(const std::string& path, const std::string& what);

/// One output file being written. The writer writes to write_path() (a temporary file beside
/// `path`, or `path` itself when that is a device or FIFO); commit() puts it in place. Destroyed
/// without commit(), the temporary file is removed.
class OutputFile {
 public:
  /// Refuses an input of the run (refuse_input_as_output); creates the temporary file (an
  /// EnvironmentError when the folder cannot take it).
  OutputFile(std::string path, std::string what);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  const std::string& write_path() const { return write_path_; }
  /// Flushes the written file to the disk and renames it over the destination. EnvironmentError
  /// ("cannot write 'mm.h': No space left on device") when that fails.
  void commit();

 private:
  std::string path_, what_, write_path_;
  std::string target_;  // what the temporary file is renamed to (path_, or the file it links to)
  bool in_place_ = false, committed_ = false;
};

/// Writes `text` to `path` through an OutputFile; "-" is standard output.
void write_output_file(const std::string& path, const std::string& what, const std::string& text);

/// Makes std::cout remember why a write to standard output failed. Called first in main().
void watch_standard_output();
/// Flushes standard output; when a write to it failed, prints "texc: error: cannot write to
/// standard output: REASON" and returns 2, else `exit_code`.
int finish_standard_output(int exit_code);

}  // namespace texc
