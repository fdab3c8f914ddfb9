#include "tuner/Records.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <limits>
#include <map>
#include <stdexcept>
#include <thread>

#include "backends/execute/TimeCalls.h"  // median_of
#include "ir/ConstEval.h"
#include "ir/InputFile.h"
#include "ir/Target.h"
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
  if (!r.task.empty()) j.set("task", Json::str(r.task));
  if (r.machine.known()) {
    Json machine = Json::obj();
    machine.set("name", Json::str(r.machine.name));
    machine.set("triple", Json::str(r.machine.triple));
    machine.set("cpu", Json::str(r.machine.cpu));
    Json features = Json::arr();
    for (const std::string& f : r.machine.features) features.array.push_back(Json::str(f));
    machine.set("features", features);
    j.set("machine", machine);
  }
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
  r.task = str("task").value_or("");
  if (const Json* machine = j->get("machine"); machine && machine->kind == Json::Kind::Object) {
    auto field = [&](const char* k) {
      const Json* v = machine->get(k);
      return v && v->kind == Json::Kind::String ? v->string : std::string();
    };
    r.machine.name = field("name");
    r.machine.triple = field("triple");
    r.machine.cpu = field("cpu");
    if (const Json* features = machine->get("features"); features && features->kind == Json::Kind::Array)
      for (const Json& f : features->array)
        if (f.kind == Json::Kind::String) r.machine.features.push_back(f.string);
    std::sort(r.machine.features.begin(), r.machine.features.end());
  }
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

namespace {

/// The records of the whole lines of `text` (a line without its line break is left out: it is
/// being written or was cut short), numbered from `first_line`; what it used of text in *used.
RecordFile parse_record_lines(const std::string& text, int first_line, size_t* used) {
  RecordFile file;
  size_t start = 0;
  int line_no = first_line;
  for (size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1, ++line_no) {
    std::string line = text.substr(start, end - start);
    if (line.empty() || line[0] == '#') continue;
    if (auto r = parse_record(line)) {
      r->line = line_no;
      file.records.push_back(std::move(*r));
    } else {
      ++file.malformed;
    }
  }
  *used = start;
  return file;
}

/// The descriptors of the RecordWriters of this process. A child forked to measure a candidate
/// closes them (pthread_atfork): the lock belongs to the file description the child would share,
/// so a measuring child left running after its tuner was killed would keep other tuners waiting.
std::vector<int>& writer_descriptors() {
  static std::vector<int> fds;
  return fds;
}

void close_writers_in_child() {
  for (int fd : writer_descriptors()) close(fd);
  writer_descriptors().clear();
}

std::string io_error(const std::string& what, const std::string& path) {
  return "cannot " + what + " records file '" + path + "': " + std::strerror(errno);
}

}  // namespace

RecordFile read_records(const std::string& path, const std::string& what) {
  if (access(path.c_str(), F_OK) != 0) return {};
  std::string text = read_input_file(path, kRecordsInput, SourceLoc{}, what);
  if (!text.empty() && text.back() != '\n') text += '\n';  // a last line cut short: one malformed line
  size_t used = 0;
  return parse_record_lines(text, 1, &used);
}

std::optional<std::string> record_defect(const Record& r) {
  static const std::set<std::string> statuses = {"ok", "invalid", "wrong", "crash", "timeout", "error"};
  auto number = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return std::string(buf);
  };
  if (!statuses.count(r.status)) return "status '" + r.status + "' is none that texc writes";
  for (auto [name, v] : {std::pair<const char*, double>{"median_ms", r.median_ms}, {"min_ms", r.min_ms},
                         {"max_ms", r.max_ms}, {"gflops", r.gflops}})
    if (!std::isfinite(v) || v < 0) return std::string(name) + " is " + number(v);
  if (!r.ok()) return std::nullopt;
  if (r.median_ms <= 0) return "an ok record with median_ms " + number(r.median_ms) + " (a time must be above 0)";
  double peak = plausible_peak_gflops(r.target);
  if (r.gflops > 100 * peak)
    return "gflops " + number(r.gflops) + " is more than 100 times the " + number(peak) + " GFLOP/s any " + r.target +
           " machine reaches";
  return std::nullopt;
}

double plausible_peak_gflops(const std::string& target) {
  const Target* t = find_target(target);
  if (t && t->peak_gflops > 0) return t->peak_gflops;
  double cores = std::max(1u, std::thread::hardware_concurrency());
  return cores * 5.0 * 256;  // GHz x operations per cycle
}

RecordWriter::RecordWriter(const std::string& path) : path_(path) {
  check_input_file(path, kRecordsInput, "--records");
  // O_NONBLOCK: a FIFO put there since is refused below, not waited on.
  fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NONBLOCK, 0644);
  if (fd_ < 0) throw std::runtime_error(io_error("open", path) + " (for appending)");
  struct stat st {};
  if (fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd_);
    check_input_file(path, kRecordsInput, "--records");  // says what it is
    throw std::runtime_error("records file '" + path + "' is not a regular file");
  }
  static const bool close_in_children = pthread_atfork(nullptr, nullptr, close_writers_in_child) == 0;
  (void)close_in_children;
  writer_descriptors().push_back(fd_);
  note_input_file(path, "--records");  // no output of the run may replace it
}

RecordWriter::~RecordWriter() {
  std::vector<int>& fds = writer_descriptors();
  fds.erase(std::remove(fds.begin(), fds.end(), fd_), fds.end());
  if (fd_ >= 0) close(fd_);  // releases the lock
}

void RecordWriter::lock(const std::function<void()>& waiting) {
  if (flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
  if (errno != EWOULDBLOCK) throw std::runtime_error(io_error("lock", path_));
  if (waiting) waiting();
  while (flock(fd_, LOCK_EX) != 0)
    if (errno != EINTR) throw std::runtime_error(io_error("lock", path_));
}

void RecordWriter::unlock() { flock(fd_, LOCK_UN); }

RecordFile RecordWriter::read_new() {
  struct stat st {};
  if (fstat(fd_, &st) != 0) throw std::runtime_error(io_error("read", path_));
  if (uint64_t(st.st_size) > kRecordsInput.max_bytes) check_input_file(path_, kRecordsInput, "--records");
  if (uint64_t(st.st_size) <= read_offset_) return {};
  std::string text(size_t(uint64_t(st.st_size) - read_offset_), '\0');
  size_t got = 0;
  while (got < text.size()) {
    ssize_t n = pread(fd_, text.data() + got, text.size() - got, off_t(read_offset_ + got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error(io_error("read", path_));
    if (n == 0) break;
    got += size_t(n);
  }
  text.resize(got);
  size_t used = 0;
  RecordFile file = parse_record_lines(text, lines_read_ + 1, &used);
  lines_read_ += int(std::count(text.begin(), text.begin() + long(used), '\n'));
  known_end_ = read_offset_ + got;
  read_offset_ += used;
  return file;
}

void RecordWriter::append(const Record& r) {
  std::string line = record_to_json(r) + "\n";
  // A line cut short by a killed run: end it, so this record starts on its own line.
  struct stat st {};
  if (fstat(fd_, &st) != 0) throw std::runtime_error(io_error("write", path_));
  char last = '\n';
  if (st.st_size > 0 && pread(fd_, &last, 1, st.st_size - 1) == 1 && last != '\n') line = "\n" + line;
  // Under the lock, right after read_new, the record lands where reading stopped: read_new does
  // not return this process's own records.
  bool read_to_end = uint64_t(st.st_size) == known_end_;
  size_t done = 0;
  while (done < line.size()) {  // one write: O_APPEND keeps a line together
    ssize_t n = write(fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error(io_error("write", path_));
    done += size_t(n);
  }
  if (fdatasync(fd_) != 0) throw std::runtime_error(io_error("write", path_));
  if (read_to_end) {
    read_offset_ = known_end_ = uint64_t(st.st_size) + line.size();
    lines_read_ += int(std::count(line.begin(), line.end(), '\n'));
  }
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
  std::string key = (r.task.empty() ? r.op + "|" + format_shapes(r.shapes) : "task " + r.task) + "|" + r.target + "|" +
                    r.device + "|";
  for (const auto& [name, v] : r.knobs) key += name + "=" + std::to_string(v) + " ";
  return key;
}

}  // namespace

namespace {

/// How a record's machine is named in `how`.
std::string measured_on(const Record& r) {
  return r.machine.known() ? describe_machine(r.machine) : "an unknown machine ('" + r.device + "')";
}

/// Whether record `r` may be used for `q`, ignoring its machine and shapes.
bool same_workload_kind(const Record& r, const RecordQuery& q) {
  if (r.target != q.target) return false;
  if (!q.task.empty() || !r.task.empty()) return r.task == q.task;
  if (r.op == q.op) return true;
  if (!q.same_template || !q.knob_names || q.knob_names->empty() || r.knobs.size() != q.knob_names->size()) return false;
  return std::all_of(r.knobs.begin(), r.knobs.end(), [&](const auto& knob) { return q.knob_names->count(knob.first); });
}

}  // namespace

RecordChoice choose_record(const std::vector<Record>& records, const RecordQuery& query) {
  // A configuration measured more than once counts with the median of its measurements' times,
  // so that one lucky measurement does not outrank it.
  std::map<std::string, std::vector<double>> times;
  RecordChoice choice;
  std::vector<const Record*> usable;  // ok records of the op and target without a defect
  for (const Record& r : records) {
    if (!same_workload_kind(r, query)) continue;
    if (std::optional<std::string> defect = record_defect(r)) {
      if (!choice.defective++) choice.first_defect = (r.line ? "line " + std::to_string(r.line) + ": " : "") + *defect;
      continue;
    }
    if (r.ok()) usable.push_back(&r);
  }
  for (const Record* r : usable) times[configuration_key(*r)].push_back(r->median_ms);
  std::map<std::string, double> config_ms;
  for (const auto& [key, v] : times) config_ms[key] = median_of(v);
  const Record* best = nullptr;
  double best_ms = 0;
  double best_distance = std::numeric_limits<double>::infinity();
  MachineMatch best_match = MachineMatch::Unknown;
  size_t stale = 0;
  std::set<std::string> foreign_machines;  // of the records left out for their machine
  for (const Record* usable_record : usable) {
    const Record& r = *usable_record;
    if (query.knob_names && std::any_of(r.knobs.begin(), r.knobs.end(), [&](const auto& knob) {
          return !query.knob_names->count(knob.first);
        })) {
      ++stale;  // another version of the op's template
      continue;
    }
    // A task's records are of its workload whatever the kernel's shapes (its epilogue's inputs).
    std::optional<double> d = query.task.empty() ? shape_distance(r.shapes, query.shapes) : std::optional<double>(0);
    if (!d || (query.exact_shapes && *d != 0)) continue;
    MachineMatch match = query.here ? match_machine(r.machine, *query.here) : MachineMatch::Same;
    bool foreign = match == MachineMatch::Other || match == MachineMatch::Unknown;
    if (foreign) {
      foreign_machines.insert(measured_on(r));
      ++choice.foreign;
      if (!query.any_machine) continue;
    }
    bool nearer = *d < best_distance - 1e-12;
    bool as_near = !nearer && std::fabs(*d - best_distance) <= 1e-12;
    double ms = config_ms.at(configuration_key(r));
    // MachineMatch's order is nearest first (Other and Unknown rank alike).
    int rank = std::min(int(match), int(MachineMatch::Other)), best_rank = std::min(int(best_match), int(MachineMatch::Other));
    if (nearer || (as_near && rank < best_rank) || (as_near && rank == best_rank && ms < best_ms)) {
      best = &r;
      best_ms = ms;
      best_distance = *d;
      best_match = match;
    }
  }
  auto machines_left_out = [&] {
    std::string list;
    for (const std::string& m : foreign_machines) list += (list.empty() ? "" : "; ") + m;
    return std::to_string(choice.foreign) + " record" + (choice.foreign > 1 ? "s" : "") + " measured on " + list;
  };
  if (!best) {
    choice.how = query.task.empty() ? "no valid record for op '" + query.op + "' on " + query.target
                                    : "no valid record of task '" + query.task + "' on " + query.target;
    if (query.here && choice.foreign)
      choice.how += " measured on this machine or one with its features, " + describe_machine(*query.here) +
                    " (left out: " + machines_left_out() + "; --records-any-machine uses them)";
    choice.how += query.task.empty() ? ": default knobs" : ": the op's knobs";
    if (stale)
      choice.how += " (" + std::to_string(stale) + " records name knobs the op no longer declares: its schedule changed since)";
    return choice;
  }
  choice.record = *best;
  choice.machine = best_match;
  choice.measurements = int(times.at(configuration_key(*best)).size());
  if (choice.measurements > 1) {  // the configuration's median, not one of its measurements
    choice.record->gflops *= choice.record->median_ms / best_ms;
    choice.record->median_ms = best_ms;
  }
  std::string of_op = !query.task.empty() ? " of task '" + query.task + "' (tuned as kernel '" + best->op + "')"
                     : best->op == query.op ? ""
                                            : " of op '" + best->op + "' (the same schedule template)";
  choice.how = !query.task.empty() ? "the best record" + of_op
                : best_distance == 0 ? "the best record" + of_op + " of the same shapes"
                                  : "the best record" + of_op + " of the nearest shapes, " + format_shapes(best->shapes);
  if (query.here) {
    switch (best_match) {
      case MachineMatch::Same: choice.how += ", measured on this machine (" + query.here->cpu + ")"; break;
      case MachineMatch::SameFeatures:
        choice.how += ", measured on another CPU with this one's features (" + best->machine.cpu + "; here " +
                      describe_machine(*query.here) + ")";
        break;
      case MachineMatch::Other:
      case MachineMatch::Unknown:
        choice.how += ", measured on another machine, " + measured_on(*best) + " (--records-any-machine; here " +
                      describe_machine(*query.here) + ")";
        break;
    }
  }
  return choice;
}

}  // namespace texc
