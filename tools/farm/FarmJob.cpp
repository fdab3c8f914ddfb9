#include "tools/farm/FarmJob.h"

#include <cmath>
#include <cstdio>

#include "tuner/Json.h"

namespace texc {

std::string FarmJob::to_json() const {
  Json j = Json::obj();
  j.set("v", Json::num(kernel.empty() ? 2 : 3));
  j.set("device", Json::str(device));
  j.set("main", Json::str(sources.main));
  Json files = Json::obj();
  for (const auto& [path, text] : sources.files) files.set(path, Json::str(text));
  j.set("files", files);
  Json include_dirs = Json::arr();
  for (const std::string& dir : sources.include_dirs) include_dirs.array.push_back(Json::str(dir));
  j.set("include_dirs", include_dirs);
  j.set("stdlib", Json::str(sources.stdlib_dir));
  Json a = Json::arr();
  for (const std::string& s : args) a.array.push_back(Json::str(s));
  j.set("args", a);
  j.set("op", Json::str(op));
  if (!kernel.empty()) {
    j.set("kernel", Json::str(kernel));
    j.set("task", Json::str(task));
  }
  Json k = Json::obj();
  for (const auto& [name, value] : knobs) k.set(name, Json::num(double(value)));
  j.set("knobs", k);
  j.set("seed", Json::str(std::to_string(seed)));  // 64 bits: not a double
  j.set("repeat", Json::num(repeat));
  j.set("timeout_s", Json::num(timeout_s));
  if (artefact) j.set("artefact", artefact->to_json());
  return j.dump();
}

namespace {

std::string fmt_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

uint64_t fnv1a(const std::string& text, uint64_t basis) {
  uint64_t h = basis;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace

std::string FarmJob::id() const {
  std::string text = to_json();
  char buf[40];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", (unsigned long long)fnv1a(text, 0xcbf29ce484222325ull),
                (unsigned long long)fnv1a(text, 0x84222325cbf29ce4ull));
  return buf;
}

ParsedJob parse_farm_job(const std::string& text) {
  ParsedJob out;
  std::optional<Json> j = parse_json(text);
  if (!j || j->kind != Json::Kind::Object) return {std::nullopt, "not a JSON object"};
  auto field = [&](const char* key, Json::Kind kind) -> const Json* {
    const Json* v = j->get(key);
    if (!v || v->kind != kind) out.error = std::string("no ") + key + " of the right type";
    return v && v->kind == kind ? v : nullptr;
  };
  const Json* v = field("v", Json::Kind::Number);
  const Json* device = field("device", Json::Kind::String);
  const Json* main = field("main", Json::Kind::String);
  const Json* files = field("files", Json::Kind::Object);
  const Json* include_dirs = field("include_dirs", Json::Kind::Array);
  const Json* stdlib = field("stdlib", Json::Kind::String);
  const Json* args = field("args", Json::Kind::Array);
  const Json* op = field("op", Json::Kind::String);
  const Json* knobs = field("knobs", Json::Kind::Object);
  const Json* seed = field("seed", Json::Kind::String);
  const Json* repeat = field("repeat", Json::Kind::Number);
  const Json* timeout = field("timeout_s", Json::Kind::Number);
  if (!out.error.empty()) return out;
  if (v->number != 2 && v->number != 3)
    return {std::nullopt, "version " + fmt_number(v->number) + " (this worker reads 2 and 3)"};
  FarmJob job;
  if (v->number == 3) {  // a kernel of the op's graph
    const Json* kernel = field("kernel", Json::Kind::String);
    const Json* task = field("task", Json::Kind::String);
    if (!out.error.empty()) return out;
    if (kernel->string.empty() || task->string.empty()) return {std::nullopt, "a version 3 job with no kernel or task"};
    job.kernel = kernel->string;
    job.task = task->string;
  }
  job.device = device->string;
  job.sources.main = main->string;
  for (const auto& [path, text] : files->object) {
    if (text.kind != Json::Kind::String) return {std::nullopt, "file " + path + " is not a string"};
    if (!job.sources.files.emplace(path, text.string).second) return {std::nullopt, "file " + path + " twice"};
  }
  for (const Json& dir : include_dirs->array) {
    if (dir.kind != Json::Kind::String) return {std::nullopt, "an include folder that is not a string"};
    job.sources.include_dirs.push_back(dir.string);
  }
  job.sources.stdlib_dir = stdlib->string;
  for (const Json& a : args->array) {
    if (a.kind != Json::Kind::String) return {std::nullopt, "an argument that is not a string"};
    job.args.push_back(a.string);
  }
  job.op = op->string;
  for (const auto& [name, value] : knobs->object) {
    if (value.kind != Json::Kind::Number || value.number != std::floor(value.number))
      return {std::nullopt, "knob " + name + " is not a whole number"};
    job.knobs[name] = int64_t(value.number);
  }
  if (seed->string.empty() || seed->string.find_first_not_of("0123456789") != std::string::npos)
    return {std::nullopt, "the seed is not a number"};
  job.seed = std::stoull(seed->string);
  if (repeat->number < 1 || repeat->number > 1000) return {std::nullopt, "repeat out of 1..1000"};
  job.repeat = int(repeat->number);
  if (!(timeout->number > 0) || timeout->number > 3600) return {std::nullopt, "timeout_s out of (0, 3600]"};
  job.timeout_s = timeout->number;
  if (const Json* artefact = j->get("artefact")) {
    ParsedArtefact a = parse_farm_artefact(*artefact);
    if (!a.artefact) return {std::nullopt, a.error};
    job.artefact = std::move(a.artefact);
  }
  if (std::string why = check_job_sources(job.sources); !why.empty()) return {std::nullopt, why};
  out.job = std::move(job);
  return out;
}

std::string measurement_to_json(const Measurement& m) {
  Json j = Json::obj();
  j.set("status", Json::str(m.status));
  Json times = Json::arr();
  for (double t : m.times) times.array.push_back(Json::num(t));
  j.set("times", times);
  j.set("median", Json::num(m.median));
  j.set("min", Json::num(m.min));
  j.set("max", Json::num(m.max));
  j.set("max_rel_err", Json::num(m.max_rel_err));
  j.set("message", Json::str(m.message));
  return j.dump();
}

std::optional<Measurement> measurement_from_json(const std::string& text) {
  std::optional<Json> j = parse_json(text);
  if (!j || j->kind != Json::Kind::Object) return std::nullopt;
  const Json* status = j->get("status");
  const Json* times = j->get("times");
  if (!status || status->kind != Json::Kind::String || !times || times->kind != Json::Kind::Array) return std::nullopt;
  Measurement m;
  m.status = status->string;
  for (const Json& t : times->array)
    if (t.kind == Json::Kind::Number) m.times.push_back(t.number);
  auto number = [&](const char* key) {
    const Json* v = j->get(key);
    return v && v->kind == Json::Kind::Number ? v->number : 0.0;
  };
  m.median = number("median");
  m.min = number("min");
  m.max = number("max");
  m.max_rel_err = number("max_rel_err");
  if (const Json* msg = j->get("message"); msg && msg->kind == Json::Kind::String) m.message = msg->string;
  return m;
}

}  // namespace texc
