#include "tools/farm/FarmArtefact.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <functional>

#include "backends/llvm/ArmRunner.h"
#include "backends/vdla/Codegen.h"
#include "backends/vdla/ProgramFile.h"
#include "ir/Target.h"
#include "backends/execute/ChildRun.h"
#include "tuner/CpuRunners.h"
#include "tuner/Measure.h"

namespace texc {

namespace {

const char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

std::string base64_encode(const std::string& bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t v = uint32_t(uint8_t(bytes[i])) << 16;
    if (i + 1 < bytes.size()) v |= uint32_t(uint8_t(bytes[i + 1])) << 8;
    if (i + 2 < bytes.size()) v |= uint32_t(uint8_t(bytes[i + 2]));
    out += kBase64[(v >> 18) & 63];
    out += kBase64[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? kBase64[(v >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kBase64[v & 63] : '=';
  }
  return out;
}

std::optional<std::string> base64_decode(const std::string& text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    uint32_t v = 0;
    int pad = 0;
    for (size_t k = 0; k < 4; ++k) {
      char c = text[i + k];
      int d;
      if (c == '=' && i + 4 == text.size() && k >= 2) {
        d = 0;
        ++pad;
      } else {
        if (pad) return std::nullopt;  // data after padding
        const char* at = c ? std::strchr(kBase64, c) : nullptr;
        if (!at) return std::nullopt;
        d = int(at - kBase64);
      }
      v = v << 6 | uint32_t(d);
    }
    out += char(v >> 16);
    if (pad < 2) out += char(v >> 8 & 255);
    if (pad < 1) out += char(v & 255);
  }
  return out;
}

Json FarmArtefact::to_json() const {
  Json j = Json::obj();
  j.set("kind", Json::str(kind));
  j.set("triple", Json::str(triple));
  j.set("cpu", Json::str(cpu));
  Json f = Json::arr();
  for (const std::string& x : features) f.array.push_back(Json::str(x));
  j.set("features", f);
  j.set("entry", Json::str(entry));
  j.set("bytes", Json::str(base64_encode(bytes)));
  if (kind == "cuda-ptx") {
    for (auto [key, dims] : {std::pair<const char*, const std::array<uint32_t, 3>*>{"grid", &launch.grid},
                             {"block", &launch.block}}) {
      Json a = Json::arr();
      for (uint32_t n : *dims) a.array.push_back(Json::num(double(n)));
      j.set(key, a);
    }
    j.set("shared_bytes", Json::num(double(launch.shared_bytes)));
    if (!launch.zeroed_args.empty()) {  // split-K's outputs, zeroed before each launch: [[argument, bytes]...]
      Json z = Json::arr();
      for (const auto& zeroed : launch.zeroed_args) {
        Json pair = Json::arr();
        pair.array.push_back(Json::num(double(zeroed.first)));
        pair.array.push_back(Json::num(double(zeroed.second)));
        z.array.push_back(pair);
      }
      j.set("zeroed", z);
    }
  }
  if (kind == "arm-object") {
    j.set("driver", Json::str(driver));
    for (auto [key, sizes] : {std::pair<const char*, const std::vector<int64_t>*>{"input_bytes", &input_bytes},
                              {"output_bytes", &output_bytes}}) {
      Json a = Json::arr();
      for (int64_t n : *sizes) a.array.push_back(Json::num(double(n)));
      j.set(key, a);
    }
  }
  return j;
}

ParsedArtefact parse_farm_artefact(const Json& j) {
  if (j.kind != Json::Kind::Object) return {std::nullopt, "an artefact that is not an object"};
  FarmArtefact a;
  for (auto [key, out] : {std::pair<const char*, std::string*>{"kind", &a.kind}, {"triple", &a.triple}, {"cpu", &a.cpu},
                          {"entry", &a.entry}}) {
    const Json* v = j.get(key);
    if (!v || v->kind != Json::Kind::String || v->string.empty())
      return {std::nullopt, std::string("an artefact with no ") + key};
    *out = v->string;
  }
  const Json* features = j.get("features");
  if (!features || features->kind != Json::Kind::Array) return {std::nullopt, "an artefact with no features"};
  for (const Json& f : features->array) {
    if (f.kind != Json::Kind::String) return {std::nullopt, "an artefact feature that is not a string"};
    a.features.push_back(f.string);
  }
  const Json* bytes = j.get("bytes");
  std::optional<std::string> decoded;
  if (bytes && bytes->kind == Json::Kind::String) decoded = base64_decode(bytes->string);
  if (!decoded || decoded->empty()) return {std::nullopt, "an artefact whose bytes are not base64"};
  a.bytes = std::move(*decoded);
  if (a.kind == "arm-object") {
    const Json* driver = j.get("driver");
    if (!driver || driver->kind != Json::Kind::String || driver->string.empty())
      return {std::nullopt, "an arm-object artefact with no driver"};
    a.driver = driver->string;
    for (auto [key, sizes] : {std::pair<const char*, std::vector<int64_t>*>{"input_bytes", &a.input_bytes},
                              {"output_bytes", &a.output_bytes}}) {
      const Json* list = j.get(key);
      if (!list || list->kind != Json::Kind::Array) return {std::nullopt, std::string("an arm-object artefact with no ") + key};
      for (const Json& n : list->array) {
        if (n.kind != Json::Kind::Number || n.number < 0 || n.number != double(int64_t(n.number)) || n.number > 1e12)
          return {std::nullopt, std::string("an arm-object artefact whose ") + key + " are not sizes"};
        sizes->push_back(int64_t(n.number));
      }
    }
    if (a.output_bytes.empty()) return {std::nullopt, "an arm-object artefact with no output"};
  }
  if (a.kind == "cuda-ptx") {
    for (auto [key, dims] : {std::pair<const char*, std::array<uint32_t, 3>*>{"grid", &a.launch.grid},
                             {"block", &a.launch.block}}) {
      const Json* list = j.get(key);
      if (!list || list->kind != Json::Kind::Array || list->array.size() != 3)
        return {std::nullopt, std::string("a cuda-ptx artefact with no ") + key + " of 3 sizes"};
      for (size_t i = 0; i < 3; ++i) {
        const Json& n = list->array[i];
        if (n.kind != Json::Kind::Number || !(n.number >= 1) || n.number > 2147483647.0 || n.number != double(int64_t(n.number)))
          return {std::nullopt, std::string("a cuda-ptx artefact whose ") + key + " is not 3 sizes"};
        (*dims)[i] = uint32_t(n.number);
      }
    }
    const Json* shared = j.get("shared_bytes");
    if (!shared || shared->kind != Json::Kind::Number || !(shared->number >= 0) || shared->number > 4294967295.0 ||
        shared->number != double(int64_t(shared->number)))
      return {std::nullopt, "a cuda-ptx artefact with no shared_bytes"};
    a.launch.shared_bytes = uint32_t(shared->number);
    if (const Json* zeroed = j.get("zeroed")) {
      if (zeroed->kind != Json::Kind::Array) return {std::nullopt, "a cuda-ptx artefact whose zeroed is not a list"};
      for (const Json& pair : zeroed->array) {
        if (pair.kind != Json::Kind::Array || pair.array.size() != 2 || pair.array[0].kind != Json::Kind::Number ||
            pair.array[1].kind != Json::Kind::Number || !(pair.array[0].number >= 0) || !(pair.array[1].number >= 0))
          return {std::nullopt, "a cuda-ptx artefact whose zeroed is not [argument, bytes] pairs"};
        a.launch.zeroed_args.push_back({uint32_t(pair.array[0].number), uint64_t(pair.array[1].number)});
      }
    }
  }
  if (a.kind == "vdla-program") {  // an intact program, of the configuration it names
    try {
      vdla::VdlaProgram program = vdla::parse_vdla(std::vector<uint8_t>(a.bytes.begin(), a.bytes.end()), "the artefact");
      if (vdla_config_id(program.config) != a.cpu)
        return {std::nullopt, "a vdla-program artefact whose program's configuration is not its cpu " + a.cpu};
    } catch (const std::exception& e) {
      return {std::nullopt, std::string("a vdla-program artefact that is not a VDLA program: ") + e.what()};
    }
  }
  return {std::move(a), ""};
}

std::string vdla_config_id(const vdla::VdlaConfig& config) {
  uint32_t h = 2166136261u;  // FNV-1a
  for (unsigned char c : vdla::vdla_config_json(config)) {
    h ^= c;
    h *= 16777619u;
  }
  char buf[24];
  std::snprintf(buf, sizeof buf, "config-%08x", h);
  return buf;
}

std::string artefact_kind_of(const std::string& target) {
  const Target* t = find_target(target);
  if (!t) return "";
  if (std::find(t->outputs.begin(), t->outputs.end(), "ptx") != t->outputs.end()) return "cuda-ptx";  // its code is PTX
  if (generates_vdla_programs(target)) return "vdla-program";
  std::string arch = llvm_cpu_arch_of(target);  // "x86" for x86 and x86-sse, "arm"
  return arch.empty() ? "" : arch + "-object";
}

std::string artefact_refusal(const FarmArtefact& a, const std::string& target, const Machine& worker) {
  std::string runs = artefact_kind_of(target);
  if (a.kind != runs)
    return "a shipped " + a.kind + " for " + a.triple + " (" + a.cpu + "), but this worker measures " + target +
           (runs.empty() ? " and runs no shipped artefacts" : " and runs " + runs + "s only");
  if (a.triple != worker.triple)
    return "a shipped " + a.kind + " for " + a.triple + ", but this worker runs " + worker.triple;
  if (a.kind == "cuda-ptx") {  // the driver compiles PTX for its own device or a newer one, not an older
    const CudaArch* built = find_cuda_arch(a.cpu);
    const CudaArch* device = find_cuda_arch(worker.cpu);
    if (!built) return "a shipped cuda-ptx for " + a.cpu + ", which is not a PTX target texc knows (" + cuda_arch_names() + ")";
    if (!device || built->compute_capability > device->compute_capability)
      return "a shipped cuda-ptx for " + a.cpu + ", newer than this worker's device (" + worker.cpu + ")";
  }
  if (a.kind == "vdla-program" && a.cpu != worker.cpu)
    return "a shipped vdla-program for VDLA configuration " + a.cpu + ", but this worker simulates " + worker.cpu;
  std::vector<std::string> missing;
  for (const std::string& f : a.features)
    if (std::find(worker.features.begin(), worker.features.end(), f) == worker.features.end()) missing.push_back(f);
  if (!missing.empty())
    return "a shipped " + a.kind + " built for " + a.cpu + " with " + joined(missing) + ", which this worker's CPU (" +
           worker.cpu + ") lacks";
  return "";
}

namespace {

/// The artefact `build` makes, built in a child process (killed after `timeout_s`; `knobs` for the
/// test hook), or std::runtime_error saying why there is none.
FarmArtefact built_in_child(const std::function<FarmArtefact()>& build, double timeout_s, const KnobConfig& knobs) {
  ChildOutcome child = run_in_child([&](ChildChannel& parent) {  // the child sends the artefact as its JSON
    if (tune_test_fault(knobs) == "compile-crash") std::raise(SIGSEGV);
    parent.send(build().to_json().dump());
  }, timeout_s);
  if (child.end == ChildOutcome::End::Threw) throw std::runtime_error("compiling it on the tuner's side failed: " + child.message);
  if (!child.returned()) throw std::runtime_error("compiling it on the tuner's side " + child.describe());
  std::optional<Json> j = parse_json(child.data);
  ParsedArtefact parsed = j ? parse_farm_artefact(*j) : ParsedArtefact{std::nullopt, "not JSON"};
  if (!parsed.artefact) throw std::runtime_error("compiling it on the tuner's side gave no artefact: " + parsed.error);
  return std::move(*parsed.artefact);
}

}  // namespace

FarmArtefact compile_farm_artefact(const LoweredFunc& func, const CpuTargetOptions& cpu, double timeout_s,
                                   const KnobConfig& knobs) {
  if (cpu.arch != "x86" && cpu.arch != "arm")
    throw std::runtime_error("texc compiles shipped artefacts for x86 and arm only, not " + cpu.arch);
  return built_in_child([&] {
    Machine m = x86_machine(cpu);
    FarmArtefact a;
    a.kind = cpu.arch + "-object";
    a.triple = m.triple;
    a.cpu = m.cpu;
    a.features = m.features;
    a.entry = func.name;
    if (cpu.arch == "x86") {
      a.bytes = emit_packed_object({func}, cpu);
    } else {
      ArmProgramParts parts = arm_program_parts({func}, func.name, cpu);
      a.bytes = std::move(parts.object);
      a.driver = std::move(parts.driver);
      a.input_bytes = std::move(parts.input_bytes);
      a.output_bytes = std::move(parts.output_bytes);
    }
    return a;
  }, timeout_s, knobs);
}

FarmArtefact compile_farm_ptx(const LoweredFunc& func, const CudaTargetOptions& target, double timeout_s,
                              const KnobConfig& knobs) {
  if (func.kind != FunctionKind::Device)
    throw std::runtime_error("kernel " + func.name + " was lowered to host loops, not for the GPU: no PTX to ship");
  return built_in_child([&] {
    FarmArtefact a;
    a.kind = "cuda-ptx";
    a.triple = kCudaArtefactTriple;
    a.cpu = target.arch;
    a.entry = func.name;
    a.bytes = emit_ptx({func}, target);
    a.launch = cuda_launch_config(func);
    return a;
  }, timeout_s, knobs);
}

FarmArtefact compile_farm_vdla(const LoweredFunc& func, const vdla::VdlaConfig& config, double timeout_s,
                               const KnobConfig& knobs) {
  return built_in_child([&] {
    FarmArtefact a;
    a.kind = "vdla-program";
    a.triple = kVdlaArtefactTriple;
    a.cpu = vdla_config_id(config);
    a.entry = func.name;
    std::vector<uint8_t> file = vdla::serialize_vdla(vdla::generate_program(func, config, SourceLoc{}));
    a.bytes.assign(file.begin(), file.end());
    return a;
  }, timeout_s, knobs);
}

}  // namespace texc
