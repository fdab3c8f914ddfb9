// tools/farm/FarmSources.h: the files a farm job ships. Collected from a tree with a -I folder, a
// quoted import and a standard library, they are stored relative to their common folder (unused
// -I folders and an unused stdlib left out); written elsewhere and collected again with the folders
// mapped, they are the same files (the worker's front end finds what the tuner's found). The
// worker's check refuses paths and quoted imports that reach outside the shipped files.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "tools/farm/FarmJob.h"
#include "tools/farm/FarmSources.h"

using namespace texc;
namespace fs = std::filesystem;

namespace {

std::string temp_dir() {
  std::string t = (fs::temp_directory_path() / "texc-farm-sources-XXXXXX").string();
  REQUIRE(mkdtemp(t.data()) != nullptr);
  return t;
}

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

const char* kOp = "op add1(A: f32[M, K]) -> B {\n  compute { B[i, j] = A[i, j] + 1.0 }\n}\n";

JobSources sources(std::map<std::string, std::string> files, std::vector<std::string> include_dirs = {}) {
  JobSources s;
  s.main = files.begin()->first;
  s.files = std::move(files);
  s.include_dirs = std::move(include_dirs);
  return s;
}

}  // namespace

TEST_CASE("collected relative to the common folder, and found again where a worker writes them") {
  fs::path t = temp_dir();
  write(t / "proj/src/main.tex", "import kern.ops\nimport tensor.pad\n");
  write(t / "proj/lib/kern/ops.tex", "import \"../sizes.tex\"\n" + std::string(kOp));
  write(t / "proj/lib/sizes.tex", "param M = 4\nparam K = 8\n");
  write(t / "std/tensor/pad.tex", "param P = 1\n");
  write(t / "std/tensor/unused.tex", "param Q = 1\n");
  fs::create_directories(t / "empty-include");
  std::vector<std::string> includes = {(t / "empty-include").string(), (t / "proj/lib").string()};
  JobSources s = collect_job_sources((t / "proj/src/main.tex").string(), includes, (t / "std").string());
  CHECK(s.main == "proj/src/main.tex");
  CHECK(s.files.size() == 4);
  CHECK(s.files.count("proj/lib/kern/ops.tex"));
  CHECK(s.files.count("proj/lib/sizes.tex"));
  CHECK(s.files.at("std/tensor/pad.tex") == "param P = 1\n");
  CHECK(s.include_dirs == std::vector<std::string>{"proj/lib"});  // the empty -I folder left out
  CHECK(s.stdlib_dir == "std");
  CHECK(check_job_sources(s) == "");

  // Written under another folder, with the folders mapped: the same files, found the same way.
  fs::path w = temp_dir();
  write_job_sources(s, w.string());
  JobSources again = collect_job_sources((w / s.main).string(), {(w / "proj/lib").string()}, (w / "std").string());
  CHECK(again.files == s.files);
  CHECK(again.include_dirs == s.include_dirs);
  CHECK(again.stdlib_dir == s.stdlib_dir);
  fs::remove_all(t);
  fs::remove_all(w);
}

TEST_CASE("no file of the standard library: none shipped, and the root is the sources' folder") {
  fs::path t = temp_dir();
  write(t / "a/main.tex", "import \"b.tex\"\n");
  write(t / "a/b.tex", kOp);
  JobSources s = collect_job_sources((t / "a/main.tex").string(), {}, (t / "std").string());
  CHECK(s.main == "main.tex");
  CHECK(s.files.size() == 2);
  CHECK(s.stdlib_dir == "");
  fs::remove_all(t);
}

TEST_CASE("an import by an absolute path cannot be shipped") {
  fs::path t = temp_dir();
  write(t / "b.tex", kOp);
  write(t / "main.tex", "import \"" + (t / "b.tex").string() + "\"\n");
  CHECK_THROWS_WITH_AS(collect_job_sources((t / "main.tex").string(), {}, (t / "std").string()),
                       doctest::Contains("by an absolute path (name its folder with -I instead)"), std::runtime_error);
  fs::remove_all(t);
}

TEST_CASE("the worker's check") {
  CHECK(check_job_sources(sources({{"a.tex", ""}})) == "");
  JobSources no_main = sources({{"a.tex", ""}});
  no_main.main = "b.tex";
  CHECK(check_job_sources(no_main) == "the main file 'b.tex' is not among its files");
  CHECK(check_job_sources(sources({{"a.tex", ""}, {"../b.tex", ""}})) ==
        "a file path '../b.tex' that is not a plain relative path");
  CHECK(check_job_sources(sources({{"a.tex", ""}, {"x/./b.tex", ""}})) ==
        "a file path 'x/./b.tex' that is not a plain relative path");
  CHECK(check_job_sources(sources({{"a.tex", ""}, {"/b.tex", ""}})) == "a file path '/b.tex' that is not a plain relative path");
  CHECK(check_job_sources(sources({{"a.tex", ""}, {"a.tex/b.tex", ""}})) == "'a.tex' is a file and a folder");
  CHECK(check_job_sources(sources({{"a.tex", ""}}, {".."})) == "an include folder '..' that is not a plain relative path");
  JobSources bad_stdlib = sources({{"a.tex", ""}});
  bad_stdlib.stdlib_dir = "/usr/share";
  CHECK(check_job_sources(bad_stdlib) == "a standard library folder '/usr/share' that is not a plain relative path");

  CHECK(check_job_sources(sources({{"a.tex", "import \"/etc/x.tex\"\n"}})) ==
        "'a.tex' imports \"/etc/x.tex\" by an absolute path (name its folder with -I instead)");
  CHECK(check_job_sources(sources({{"d/a.tex", "import \"../../x.tex\"\n"}})) ==
        "'d/a.tex' imports \"../../x.tex\", which looks outside the shipped files (at d/../../x.tex)");
  // Up to the first shipped file only: a look outside after it is never taken...
  CHECK(check_job_sources(sources({{"d/a.tex", "import \"../b.tex\"\n"}, {"b.tex", ""}}, {"d"})) == "");
  // ...but one before it would find the worker's own file first.
  CHECK(check_job_sources(sources({{"d/a.tex", "import \"../../b.tex\"\n"}, {"b.tex", ""}}, {"d/e/f"})) ==
        "'d/a.tex' imports \"../../b.tex\", which looks outside the shipped files (at d/../../b.tex)");
  // A dotted import is a name: it cannot leave; a file that does not parse follows no import.
  CHECK(check_job_sources(sources({{"a.tex", "import nn.conv2d\n"}})) == "");
  CHECK(check_job_sources(sources({{"a.tex", "import \"../x.tex\" op ((\n"}})) == "");
}

TEST_CASE("a job's sources survive its JSON, and a job with bad sources is not well-formed") {
  FarmJob job;
  job.device = "kind";
  job.sources = sources({{"lib/a.tex", "import \"b.tex\"\n"}, {"lib/b.tex", kOp}}, {"lib"});
  job.sources.main = "lib/a.tex";
  job.sources.stdlib_dir = "std";
  job.op = "add1";
  ParsedJob parsed = parse_farm_job(job.to_json());
  REQUIRE(parsed.job);
  CHECK(parsed.job->sources.files == job.sources.files);
  CHECK(parsed.job->sources.main == "lib/a.tex");
  CHECK(parsed.job->sources.include_dirs == job.sources.include_dirs);
  CHECK(parsed.job->sources.stdlib_dir == "std");
  CHECK(parsed.job->id() == job.id());
  job.sources.files["lib/a.tex"] = "import \"../../etc/passwd\"\n";
  parsed = parse_farm_job(job.to_json());
  CHECK(!parsed.job);
  CHECK(parsed.error == "'lib/a.tex' imports \"../../etc/passwd\", which looks outside the shipped files (at lib/../../etc/passwd)");
}
