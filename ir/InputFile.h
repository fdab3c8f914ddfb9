// InputFile: the one way texc reads a file its user names — a .tex file and its imports, the
// records of --records, --transfer and --curve-with, --vdla-config, a .vdla program, vdla-sim's
// --dram-in. Guarantees:
//  - only a regular file is read: a directory, a device (/dev/urandom, /dev/zero), a FIFO or a
//    socket is refused before a byte is read (and a FIFO is opened without waiting for a writer);
//  - a file is read only up to its kind's limit (docs/cli.md "Files texc reads and writes"): a
//    larger one is refused with its size and the limit, so no input can make texc read without end
//    or fill the memory;
//  - every file read, and every file noted with note_input_file (one texc hands to another program:
//    an --extern-src given to the C compiler), is remembered by identity (device and inode, so a
//    hard link or a symbolic link is the same file), for the outputs of the run to refuse to
//    replace it (tools/driver/OutputFile.h).
// A mistake is a UserError (exit 1): "--records '/dev/urandom' is a character device, not a
// regular file", "... is 20971520 bytes, more than the 16 MiB texc reads for ...".
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/SourceLoc.h"

namespace texc {

/// What a file is to texc, for messages ("--records", "file"), and how much of it texc reads.
struct InputKind {
  const char* what;     // "--vdla-config": "--vdla-config 'x.json' is a directory, ..."
  const char* purpose;  // "a configuration": "... more than the 16 MiB texc reads for a configuration"
  uint64_t max_bytes;
};

/// The limits (docs/cli.md): a .tex file and each import 16 MiB; a JSON configuration 16 MiB;
/// a records file 1 GiB; a .vdla program 256 MiB; an .npy file of --inputs 64 GiB.
inline constexpr uint64_t kMiB = uint64_t(1) << 20;
inline constexpr InputKind kSourceInput{"source file", "a source file", 16 * kMiB};
inline constexpr InputKind kVdlaConfigInput{"--vdla-config", "a configuration", 16 * kMiB};
inline constexpr InputKind kVdlaProgramInput{"program", "a .vdla program", 256 * kMiB};
inline constexpr InputKind kRecordsInput{"records file", "a records file", 1024 * kMiB};
inline constexpr InputKind kNpyInput{"--inputs file", "an .npy file", 64 * 1024 * kMiB};

/// The whole text of `path`, read as `kind` says. A mistake (no such file, not a regular file,
/// larger than the limit, a read error) throws UserError located at `loc` (none: `texc: error:`).
/// `what` names the file in messages when not empty (e.g. "--transfer"), instead of kind.what.
std::string read_input_file(const std::string& path, const InputKind& kind, SourceLoc loc = {},
                            const std::string& what = "");

/// Throws as read_input_file would for a file that exists but is not a regular file or is larger
/// than the limit, without reading it (for a file texc appends to: the records of `texc tune`).
/// Nothing happens when `path` does not exist.
void check_input_file(const std::string& path, const InputKind& kind, const std::string& what = "");

/// A file's identity: the device and inode it lives on.
struct FileIdentity {
  uint64_t device = 0, inode = 0;
  bool operator==(const FileIdentity& o) const { return device == o.device && inode == o.inode; }
};
/// The identity of the file `path` names (symbolic links followed); nullopt when it does not exist.
std::optional<FileIdentity> file_identity(const std::string& path);

/// An input of this run: its identity, the path it was named by, and what it is ("--records").
struct InputFileRecord {
  FileIdentity identity;
  std::string path, what;
};
/// Remembers `path` as an input of this run without reading it (a file another program reads for
/// texc); nothing happens when it does not exist.
void note_input_file(const std::string& path, const std::string& what);
/// Every input of this run so far (read or noted), in the order they were first met.
const std::vector<InputFileRecord>& input_files();
/// Forgets every input: a process that makes several runs (a test, a program using texc as a
/// library) starts the next run with it, so a file that an earlier run read may be written.
void forget_input_files();
/// The first input of this run with `identity` whose path still names that file, or nullptr.
const InputFileRecord* find_input_file(const FileIdentity& identity);

}  // namespace texc
