// tools/farm/FarmJob.h: a job of a network's task names the kernel of its op's graph and its task.
// Such a job is version 3 and survives its JSON with both; its id differs from the same candidate
// of the op tuned whole (or of another task), which is version 2 with neither field, as before; a
// version 3 job without a kernel or a task is not well-formed, and nor is a version a worker does
// not read.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <optional>

#include "tools/farm/FarmJob.h"
#include "tuner/Json.h"

using namespace texc;

namespace {

FarmJob job_of_op() {
  FarmJob job;
  job.device = "x86-test";
  job.sources.main = "a.tex";
  job.sources.files = {{"a.tex", "op add1(A: f32[4]) -> B {\n  compute { B[i] = A[i] + 1.0 }\n}\n"}};
  job.op = "add1";
  job.knobs = {{"TI", 8}};
  return job;
}

/// `text` with member `key` of its top-level object replaced by `value` (or removed when null).
std::string with_member(const std::string& text, const std::string& key, std::optional<Json> value) {
  Json j = *parse_json(text);
  Json out = Json::obj();
  for (const auto& [k, v] : j.object)
    if (k != key) out.set(k, v);
  if (value) out.set(key, *value);
  return out.dump();
}

}  // namespace

TEST_CASE("a job of the op tuned whole: version 2, no kernel or task") {
  FarmJob job = job_of_op();
  Json j = *parse_json(job.to_json());
  CHECK(j.get("v")->number == 2);
  CHECK(!j.get("kernel"));
  CHECK(!j.get("task"));
  ParsedJob parsed = parse_farm_job(job.to_json());
  REQUIRE(parsed.job);
  CHECK(parsed.job->kernel.empty());
  CHECK(parsed.job->task.empty());
  CHECK(parsed.job->id() == job.id());
}

TEST_CASE("a job of a network's task: version 3 with its kernel and task, another id") {
  FarmJob whole = job_of_op();
  FarmJob job = whole;
  job.kernel = "add1_k0";
  job.task = "add(f32[4]) -> f32[4] #0123abcd";
  Json j = *parse_json(job.to_json());
  CHECK(j.get("v")->number == 3);
  CHECK(j.get("kernel")->string == "add1_k0");
  CHECK(j.get("task")->string == "add(f32[4]) -> f32[4] #0123abcd");
  ParsedJob parsed = parse_farm_job(job.to_json());
  REQUIRE(parsed.job);
  CHECK(parsed.job->kernel == job.kernel);
  CHECK(parsed.job->task == job.task);
  CHECK(parsed.job->id() == job.id());
  CHECK(job.id() != whole.id());
  FarmJob other_task = job;
  other_task.task = "add(f32[8]) -> f32[8] #0123abcd";
  CHECK(other_task.id() != job.id());
}

TEST_CASE("a version 3 job without its kernel or task, or another version, is not well-formed") {
  FarmJob job = job_of_op();
  job.kernel = "add1_k0";
  job.task = "add(f32[4]) -> f32[4] #0123abcd";
  const std::string text = job.to_json();
  CHECK(parse_farm_job(with_member(text, "kernel", std::nullopt)).error == "no kernel of the right type");
  CHECK(parse_farm_job(with_member(text, "task", Json::num(1))).error == "no task of the right type");
  CHECK(parse_farm_job(with_member(text, "task", Json::str(""))).error == "a version 3 job with no kernel or task");
  CHECK(parse_farm_job(with_member(text, "v", Json::num(4))).error == "version 4 (this worker reads 2 and 3)");
  // A version 2 job's kernel, if any, is not read: it measures the op whole.
  ParsedJob v2 = parse_farm_job(with_member(text, "v", Json::num(2)));
  REQUIRE(v2.job);
  CHECK(v2.job->kernel.empty());
}
