#include "tuner/Records.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>
#include <fstream>
#include <limits>
#include <map>
#include <stdexcept>

#include "ir/ConstEval.h"
#include "tuner/Json.h"

namespace texc {

Shapes op_shapes(const OpDef& op) {
  Shapes shapes;
  auto add = [&](const Buffer& b) {
    std::vector<int64_t> dims;
    for (const Expr& e : b->shape) dims.push_back(eval_int(e).value_or(-1));
    shapes.emplace_back(b->name, dims);
  };
  for (const Buffer& b : op.inputs) add(b);
  for (const Buffer& b : op.outputs) add(b);
  return shapes;
}

std::string format_shapes(const Shapes& shapes) {
  std::string out;
  for (const auto& [name, dims] : shapes) {
    out += (out.empty() ? "" : " ") + name + "[";
    for (size_t i = 0; i < dims.size(); ++i) out += (i ? ", " : "") + std::to_string(dims[i]);
    out += "]";
  }
  return out;
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string record_to_json(const Record& r) {
  Json j = Json::obj();
  j.set("op", Json::str(r.op));
  j.set("target", Json::str(r.target));
  j.set("device", Json::str(r.device));
  Json shapes = Json::obj();
  for (const auto& [name, dims] : r.shapes) {
    Json d = Json::arr();
    for (int64_t x : dims) d.array.push_back(Json::num(double(x)));
    shapes.set(name, d);
  }
  j.set("shapes", shapes);
  Json knobs = Json::obj();
  for (const std::string& name : r.knob_order)
    if (r.knobs.count(name)) knobs.set(name, Json::num(double(r.knobs.at(name))));
  for (const auto& [name, v] : r.knobs)
    if (!knobs.get(name)) knobs.set(name, Json::num(double(v)));
  j.set("knobs", knobs);
  j.set("index", Json::num(double(r.index)));
  j.set("status", Json::str(r.status));
  j.set("median_ms", Json::num(r.median_ms));
  j.set("min_ms", Json::num(r.min_ms));
  j.set("max_ms", Json::num(r.max_ms));
  j.set("spread", Json::num(r.spread));
  j.set("repeats", Json::num(r.repeats));
  j.set("gflops", Json::num(r.gflops));
  j.set("max_rel_err", Json::num(r.max_rel_err));
  j.set("message", Json::str(r.message));
  j.set("tuner", Json::str(r.tuner));
  j.set("trial", Json::num(r.trial));
  j.set("texc_version", Json::str(r.texc_version));
  j.set("time", Json::str(r.time));
  j.set("features_version", Json::num(r.features_version));
  Json features = Json::arr();
  for (float f : r.features) features.array.push_back(Json::num(std::round(double(f) * 1e4) / 1e4));
  j.set("features", features);
  return j.dump();
}

std::optional<Record> parse_record(const std::string& line) {
  std::optional<Json> j = parse_json(line);
  if (!j || j->kind != Json::Kind::Object) return std::nullopt;
  auto str = [&](const char* k) -> std::optional<std::string> {
    const Json* v = j->get(k);
    if (!v || v->kind != Json::Kind::String) return std::nullopt;
    return v->string;
  };
  auto num = [&](const char* k) {
    const Json* v = j->get(k);
    return v && v->kind == Json::Kind::Number ? v->number : 0.0;
  };
  Record r;
  auto op = str("op"), target = str("target"), status = str("status");
  const Json* shapes = j->get("shapes");
  const Json* knobs = j->get("knobs");
  if (!op || !target || !status || !shapes || shapes->kind != Json::Kind::Object || !knobs ||
      knobs->kind != Json::Kind::Object)
    return std::nullopt;
  r.op = *op;
  r.target = *target;
  r.status = *status;
  r.device = str("device").value_or("");
  for (const auto& [name, dims] : shapes->object) {
    if (dims.kind != Json::Kind::Array) return std::nullopt;
    std::vector<int64_t> d;
    for (const Json& x : dims.array) d.push_back(int64_t(x.number));
    r.shapes.emplace_back(name, d);
  }
  for (const auto& [name, v] : knobs->object) {
    if (v.kind != Json::Kind::Number) return std::nullopt;
    r.knobs[name] = int64_t(v.number);
    r.knob_order.push_back(name);
  }
  r.index = uint64_t(num("index"));
  r.median_ms = num("median_ms");
  r.min_ms = num("min_ms");
  r.max_ms = num("max_ms");
  r.spread = num("spread");
  r.repeats = int(num("repeats"));
  r.gflops = num("gflops");
  r.max_rel_err = num("max_rel_err");
  r.message = str("message").value_or("");
  r.tuner = str("tuner").value_or("");
  r.trial = int(num("trial"));
  r.texc_version = str("texc_version").value_or("");
  r.time = str("time").value_or("");
  r.features_version = int(num("features_version"));
  if (const Json* f = j->get("features"); f && f->kind == Json::Kind::Array)
    for (const Json& x : f->array) r.features.push_back(float(x.number));
  return r;
}

RecordFile read_records(const std::string& path) {
  RecordFile file;
  std::ifstream in(path);
  if (!in) {
    if (access(path.c_str(), F_OK) != 0) return file;
    throw std::runtime_error("cannot read records file '" + path + "': " + std::strerror(errno));
  }
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (auto r = parse_record(line)) file.records.push_back(std::move(*r));
    else ++file.malformed;
  }
  return file;
}

RecordWriter::RecordWriter(const std::string& path) : path_(path) {
  fd_ = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error("cannot open records file '" + path + "' for appending: " + std::strerror(errno));
  // A line cut short by a killed run: end it, so the next record starts on its own line.
  int rd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (rd >= 0) {
    off_t size = lseek(rd, 0, SEEK_END);
    char last = '\n';
    if (size > 0 && pread(rd, &last, 1, size - 1) == 1 && last != '\n') {
      if (write(fd_, "\n", 1) != 1) throw std::runtime_error("cannot write records file '" + path + "'");
    }
    close(rd);
  }
}

RecordWriter::~RecordWriter() {
  if (fd_ >= 0) close(fd_);
}

void RecordWriter::append(const Record& r) {
  std::string line = record_to_json(r) + "\n";
  size_t done = 0;
  while (done < line.size()) {  // one write: O_APPEND keeps a line together
    ssize_t n = write(fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error("cannot write records file '" + path_ + "': " + std::strerror(errno));
    done += size_t(n);
  }
  fdatasync(fd_);
}

namespace {

/// Sum of |log(a/b)| over the dimensions, or nullopt when the ranks differ.
std::optional<double> shape_distance(const Shapes& a, const Shapes& b) {
  if (a.size() != b.size()) return std::nullopt;
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].second.size() != b[i].second.size()) return std::nullopt;
    for (size_t k = 0; k < a[i].second.size(); ++k)
      d += std::fabs(std::log(double(std::max<int64_t>(a[i].second[k], 1)) / double(std::max<int64_t>(b[i].second[k], 1))));
  }
  return d;
}

}  // namespace

bool same_device(const std::string& a, const std::string& b) {
  if (a == b) return true;
  auto without_cpu = [](const std::string& d) {
    size_t open = d.rfind(" (");
    return open != std::string::npos && !d.empty() && d.back() == ')' ? d.substr(0, open) : d;
  };
  return without_cpu(a) == b || a == without_cpu(b);
}

namespace {

/// Records of one configuration of one workload on one machine: the measurements that
/// `texc tune --remeasure` repeated.
std::string configuration_key(const Record& r) {
  std::string key = r.op + "|" + r.target + "|" + format_shapes(r.shapes) + "|" + r.device + "|";
  for (const auto& [name, v] : r.knobs) key += name + "=" + std::to_string(v) + " ";
  return key;
}

}  // namespace

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

RecordChoice choose_record(const std::vector<Record>& records, const std::string& op, const std::string& target,
                           const Shapes& shapes, const std::optional<std::set<std::string>>& knob_names,
                           const std::string& device) {
  // A configuration measured more than once counts with the median of its measurements' times,
  // so that one lucky measurement does not outrank it.
  std::map<std::string, std::vector<double>> times;
  for (const Record& r : records)
    if (r.ok() && r.op == op && r.target == target && r.median_ms > 0) times[configuration_key(r)].push_back(r.median_ms);
  std::map<std::string, double> config_ms;
  for (const auto& [key, v] : times) config_ms[key] = median_of(v);
  const Record* best = nullptr;
  double best_ms = 0;
  double best_distance = std::numeric_limits<double>::infinity();
  bool best_on_device = false;
  size_t stale = 0;
  for (const Record& r : records) {
    if (!r.ok() || r.op != op || r.target != target || r.median_ms <= 0) continue;
    if (knob_names && std::any_of(r.knobs.begin(), r.knobs.end(),
                                  [&](const auto& knob) { return !knob_names->count(knob.first); })) {
      ++stale;  // another version of the op's template
      continue;
    }
    std::optional<double> d = shape_distance(r.shapes, shapes);
    if (!d) continue;
    bool on_device = device.empty() || same_device(r.device, device);
    bool nearer = *d < best_distance - 1e-12;
    bool as_near = !nearer && std::fabs(*d - best_distance) <= 1e-12;
    double ms = config_ms.at(configuration_key(r));
    if (nearer || (as_near && on_device && !best_on_device) ||
        (as_near && on_device == best_on_device && ms < best_ms)) {
      best = &r;
      best_ms = ms;
      best_distance = *d;
      best_on_device = on_device;
    }
  }
  RecordChoice choice;
  if (!best) {
    choice.how = "no valid record for op '" + op + "' on " + target + ": default knobs";
    if (stale)
      choice.how += " (" + std::to_string(stale) + " records name knobs the op no longer declares: its schedule changed since)";
    return choice;
  }
  choice.record = *best;
  choice.measurements = int(times.at(configuration_key(*best)).size());
  if (choice.measurements > 1) {  // the configuration's median, not one of its measurements
    choice.record->gflops *= choice.record->median_ms / best_ms;
    choice.record->median_ms = best_ms;
  }
  choice.how = best_distance == 0 ? "the best record of the same shapes"
                                  : "the best record of the nearest shapes, " + format_shapes(best->shapes);
  if (!best_on_device) choice.how += ", measured on another device (" + best->device + "; none on this one)";
  return choice;
}

}  // namespace texc
