// JobSources: the .tex files a farm job ships (docs/tuning.md, "A measurement farm"): the main
// file and every file it imports, found as the tuner's front end finds them (the importing file's
// folder, each -I folder, the standard library), so that a worker measures exactly the tuner's
// source, whatever its own standard library or disk holds.
//
// The files keep their places relative to one another: each is stored under its path relative to
// the deepest folder that holds all of them, and with them go the -I folders and the standard
// library's folder that hold one, as paths relative to the same folder. A worker writes the files
// under a folder of its own and compiles the main file with those folders mapped into it. Every
// import then resolves on the worker to the file it resolved to on the tuner: a place the loader
// looks at holds a file there only if it held that file here (only loaded files are shipped, at
// their own relative places), and the file the tuner's loader chose is shipped. An -I folder that
// holds none of the files is left out (no import found anything there), and a job with no file of
// the standard library gets an empty one.
//
// check_job_sources is what a worker checks before writing a job's files: every path relative,
// without `.` or `..`, and no quoted import that looks outside the shipped files before finding
// one (`import "/etc/x.tex"`, `import "../../x.tex"`): a job cannot make a worker read a file of
// its own. collect_job_sources runs the same check, so the tuner refuses such a source at once.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace texc {

struct JobSources {
  std::string main;                          // the main file's path, a key of `files`
  std::map<std::string, std::string> files;  // relative path ('/'-separated) -> the file's text
  std::vector<std::string> include_dirs;     // the -I folders that hold a file, in -I order ("." = the root)
  std::string stdlib_dir;                    // the standard library's folder; "" when none of its files is used
};

/// The sources of the .tex file `path` compiled with `include_dirs` (-I) and the standard library
/// in `stdlib_dir`. Throws UserError for a source the front end rejects (an import not found, a
/// syntax error, a cycle) and std::runtime_error for one that cannot be shipped (check_job_sources).
JobSources collect_job_sources(const std::string& path, const std::vector<std::string>& include_dirs,
                               const std::string& stdlib_dir);

/// "" when `sources` can be written and compiled inside a folder without reaching out of it,
/// else why not (the paths, the main file, the quoted imports: see above).
std::string check_job_sources(const JobSources& sources);

/// Writes the files under the existing folder `root` (check_job_sources first). Throws
/// std::runtime_error when a file cannot be written.
void write_job_sources(const JobSources& sources, const std::string& root);

}  // namespace texc
