// tuner/Records.h and tuner/Json.h: a record survives the JSON round trip; a line cut short by a
// kill is skipped (and the writer starts the next record on its own line); --records picks the
// best valid record of the same workload, else of the nearest shapes, else none.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "tuner/Json.h"
#include "tuner/Records.h"

using namespace texc;

namespace {

Record sample(const std::string& op, int64_t m, int64_t ti, double ms, const std::string& status = "ok") {
  Record r;
  r.op = op;
  r.target = "x86";
  r.device = "x86 / Test CPU \"quoted\"";
  r.shapes = {{"A", {m, 16}}, {"B", {16, 8}}, {"C", {m, 8}}};
  r.knobs = {{"TI", ti}, {"UK", 1}};
  r.knob_order = {"UK", "TI"};
  r.index = uint64_t(ti);
  r.status = status;
  r.median_ms = ms;
  r.min_ms = ms * 0.9;
  r.max_ms = ms * 1.2;
  r.spread = 0.3;
  r.repeats = 5;
  r.gflops = ms > 0 ? 1 / ms : 0;
  r.message = status == "ok" ? "" : "crash (SIGSEGV)\nline two";
  r.tuner = "xgb";
  r.trial = 3;
  r.texc_version = "0.1.0";
  r.time = "2026-11-23T15:40:07Z";
  r.features_version = 1;
  r.features = {0.5f, 1.25f, -2.0f};
  return r;
}

std::string temp_path() {
  char name[] = "/tmp/texc_records_XXXXXX";
  int fd = mkstemp(name);
  close(fd);
  return name;
}

}  // namespace

TEST_CASE("a record survives the JSON round trip, knobs in declaration order") {
  Record r = sample("mm", 32, 16, 0.25, "crash");
  std::string line = record_to_json(r);
  CHECK(line.find('\n') == std::string::npos);
  CHECK(line.find("\"knobs\": {\"UK\": 1, \"TI\": 16}") != std::string::npos);
  std::optional<Record> back = parse_record(line);
  REQUIRE(back);
  CHECK(back->op == "mm");
  CHECK(back->device == r.device);
  CHECK(back->shapes == r.shapes);
  CHECK(back->knobs == r.knobs);
  CHECK(back->knob_order == r.knob_order);
  CHECK(back->status == "crash");
  CHECK(back->message == r.message);
  CHECK(back->median_ms == doctest::Approx(0.25));
  CHECK(back->repeats == 5);
  CHECK(back->trial == 3);
  CHECK(back->time == r.time);
  CHECK(back->features == r.features);
  CHECK(back->same_workload(r));
}

TEST_CASE("malformed JSON is rejected, not thrown") {
  CHECK_FALSE(parse_json("{\"op\": \"mm\", \"tar"));
  CHECK_FALSE(parse_json("{} extra"));
  CHECK_FALSE(parse_record("[1, 2]"));
  CHECK_FALSE(parse_record("{\"op\": \"mm\"}"));  // no target, status, shapes, knobs
  std::optional<Json> j = parse_json("{\"s\": \"a\\\"b\\u00e9\", \"n\": -1.5e3, \"a\": [true, null]}");
  REQUIRE(j);
  CHECK(j->get("s")->string == "a\"b\xc3\xa9");
  CHECK(j->get("n")->number == -1500);
  CHECK(j->get("a")->array.size() == 2);
}

TEST_CASE("a file whose last line was cut by a kill: that line is skipped, the next record is whole") {
  std::string path = temp_path();
  {
    RecordWriter w(path);
    w.append(sample("mm", 32, 8, 0.5));
  }
  {
    std::ofstream cut(path, std::ios::app);
    std::string line = record_to_json(sample("mm", 32, 16, 0.4));
    cut << line.substr(0, line.size() / 2);  // no newline: killed mid-write
  }
  {
    RecordWriter w(path);
    w.append(sample("mm", 32, 32, 0.3));
  }
  RecordFile f = read_records(path);
  CHECK(f.malformed == 1);
  REQUIRE(f.records.size() == 2);
  CHECK(f.records[0].knobs.at("TI") == 8);
  CHECK(f.records[1].knobs.at("TI") == 32);
  std::remove(path.c_str());
  CHECK(read_records(path).records.empty());  // a missing file has no records
}

/// choose_record with the query's fields as arguments.
RecordChoice choose(const std::vector<Record>& records, const std::string& op, const std::string& target,
                    const Shapes& shapes, std::optional<std::set<std::string>> knob_names = std::nullopt,
                    std::optional<Machine> here = std::nullopt, bool any_machine = false) {
  RecordQuery q;
  q.op = op;
  q.target = target;
  q.shapes = shapes;
  q.knob_names = std::move(knob_names);
  q.here = std::move(here);
  q.any_machine = any_machine;
  return choose_record(records, q);
}

TEST_CASE("choosing a record: best valid of the same shapes, else nearest shapes, else none") {
  std::vector<Record> records = {sample("mm", 32, 8, 0.5), sample("mm", 32, 16, 0.2), sample("mm", 32, 4, 0.1, "wrong"),
                                 sample("mm", 64, 4, 0.05), sample("mm", 256, 2, 0.01), sample("other", 32, 1, 0.001)};
  Shapes s32 = records[0].shapes;
  RecordChoice exact = choose(records, "mm", "x86", s32);
  REQUIRE(exact.record);
  CHECK(exact.record->knobs.at("TI") == 16);  // 0.2 ms; the faster "wrong" one is not valid
  CHECK(exact.how == "the best record of the same shapes");

  Shapes s48 = {{"A", {48, 16}}, {"B", {16, 8}}, {"C", {48, 8}}};
  RecordChoice near = choose(records, "mm", "x86", s48);
  REQUIRE(near.record);
  CHECK(near.record->knobs.at("TI") == 4);  // 64 is nearer to 48 than 32 in log ratio; then 256
  CHECK(near.how.find("nearest shapes, A[64, 16]") != std::string::npos);

  CHECK_FALSE(choose(records, "mm", "arm", s32).record);
  CHECK_FALSE(choose(records, "nothing", "x86", s32).record);
  Shapes rank3 = {{"A", {2, 32, 16}}, {"B", {16, 8}}, {"C", {2, 32, 8}}};
  CHECK_FALSE(choose(records, "mm", "x86", rank3).record);
}

TEST_CASE("choosing a record: this machine's records, then those of its features, never another's silently") {
  const std::string x86 = "x86_64-pc-linux-gnu";
  Machine znver5{"AMD EPYC", x86, "znver5", {"avx", "avx2", "avx512f", "evex512", "fma"}};
  Machine zen3{"AMD EPYC 7B13", x86, "znver3", {"avx", "avx2", "fma"}};
  Machine v3{"AMD EPYC", x86, "x86-64-v3", {"avx", "avx2", "fma"}};
  Record here = sample("mm", 32, 8, 0.5), there = sample("mm", 32, 16, 0.2), near_here = sample("mm", 64, 4, 0.1);
  here.machine = near_here.machine = znver5;
  there.machine = zen3;
  std::vector<Record> records = {here, there, near_here};
  Shapes s32 = here.shapes;

  RecordChoice mine = choose(records, "mm", "x86", s32, std::nullopt, znver5);
  REQUIRE(mine.record);
  CHECK(mine.record->knobs.at("TI") == 8);  // slower than Zen 3's, but measured here
  CHECK(mine.machine == MachineMatch::Same);
  CHECK(mine.how == "the best record of the same shapes, measured on this machine (znver5)");
  CHECK(mine.foreign == 1);  // Zen 3's record, left out

  // Another CPU with the same features: taken, and said.
  RecordChoice same_features = choose(records, "mm", "x86", s32, std::nullopt, v3);
  REQUIRE(same_features.record);
  CHECK(same_features.record->knobs.at("TI") == 16);
  CHECK(same_features.machine == MachineMatch::SameFeatures);
  CHECK(same_features.how.find("measured on another CPU with this one's features (znver3; here x86-64-v3 (avx avx2 fma))") !=
        std::string::npos);

  // Only another machine's records: the defaults, saying why; --records-any-machine takes them.
  Machine xeon{"Intel Xeon", x86, "skylake-avx512", {"avx", "avx2", "avx512bw", "avx512f", "fma"}};
  RecordChoice none = choose({here, near_here}, "mm", "x86", s32, std::nullopt, xeon);
  CHECK_FALSE(none.record);
  CHECK(none.foreign == 2);
  CHECK(none.how.find("left out: 2 records measured on znver5 (avx avx2 avx512f evex512 fma); --records-any-machine") !=
        std::string::npos);
  RecordChoice any = choose({here, near_here}, "mm", "x86", s32, std::nullopt, xeon, true);
  REQUIRE(any.record);
  CHECK(any.record->knobs.at("TI") == 8);  // the same shapes first
  CHECK(any.machine == MachineMatch::Other);
  CHECK(any.how.find("measured on another machine, znver5") != std::string::npos);

  // Exact shapes from a machine with the same features beat nearer-but-not-equal shapes from this one.
  RecordChoice other = choose({there, near_here}, "mm", "x86", s32, std::nullopt, Machine{"AMD EPYC", x86, "znver5", zen3.features});
  CHECK(other.record->knobs.at("TI") == 16);
  // A record that does not name its machine is another machine's.
  Record old = there;
  old.machine = {};
  CHECK(match_machine(old.machine, zen3) == MachineMatch::Unknown);
  CHECK_FALSE(choose({old}, "mm", "x86", s32, std::nullopt, zen3).record);
  // No machine to match (arm under qemu, vdla): the fastest, as before.
  CHECK(choose(records, "mm", "x86", s32).record->knobs.at("TI") == 16);
  CHECK(same_device("x86 / AMD EPYC", "x86 / AMD EPYC (znver5)"));
  CHECK_FALSE(same_device("x86 / AMD EPYC (znver4)", "x86 / AMD EPYC (znver5)"));
}

TEST_CASE("a record's machine round-trips through its JSON line") {
  Record r = sample("mm", 32, 8, 0.5);
  r.machine = Machine{"AMD EPYC", "x86_64-pc-linux-gnu", "x86-64-v3", {"avx", "avx2", "fma"}};
  std::optional<Record> back = parse_record(record_to_json(r));
  REQUIRE(back);
  CHECK(back->machine == r.machine);
  r.machine = {};
  back = parse_record(record_to_json(r));
  REQUIRE(back);
  CHECK_FALSE(back->machine.known());
}

TEST_CASE("choosing a record: the same template under another op name, when asked (shipped records)") {
  std::vector<Record> records = {sample("G3", 32, 8, 0.5), sample("G3", 64, 16, 0.2)};
  RecordQuery q;
  q.op = "mine";
  q.target = "x86";
  q.shapes = records[0].shapes;
  q.knob_names = std::set<std::string>{"TI", "UK"};
  CHECK_FALSE(choose_record(records, q).record);  // another op's records: only when asked
  q.same_template = q.exact_shapes = true;
  RecordChoice c = choose_record(records, q);
  REQUIRE(c.record);
  CHECK(c.record->knobs.at("TI") == 8);  // the same shapes only, not the faster 64
  CHECK(c.how == "the best record of op 'G3' (the same schedule template) of the same shapes");
  q.knob_names = std::set<std::string>{"TI", "UK", "VX"};  // another template's knobs
  CHECK_FALSE(choose_record(records, q).record);
  q.knob_names = std::set<std::string>{"TI", "UK"};
  q.shapes = {{"A", {48, 16}}, {"B", {16, 8}}, {"C", {48, 8}}};
  CHECK_FALSE(choose_record(records, q).record);  // no record of these shapes
}

TEST_CASE("choosing a record: records of another version of the op's template are not considered") {
  std::vector<Record> records = {sample("mm", 32, 8, 0.5), sample("mm", 32, 16, 0.2)};
  records[1].knobs["OLD_KNOB"] = 1;  // measured with a template that declared OLD_KNOB
  Shapes s32 = records[0].shapes;
  RecordChoice now = choose(records, "mm", "x86", s32, std::set<std::string>{"TI", "UK"});
  REQUIRE(now.record);
  CHECK(now.record->knobs.at("TI") == 8);  // the faster record names a knob the op no longer has
  CHECK(choose(records, "mm", "x86", s32).record->knobs.at("TI") == 16);  // without knob names: any
  RecordChoice none = choose(records, "mm", "x86", s32, std::set<std::string>{"OTHER"});
  CHECK_FALSE(none.record);
  CHECK(none.how.find("2 records name knobs the op no longer declares") != std::string::npos);
}

TEST_CASE("choosing a record: a configuration measured more than once counts with its median") {
  // TI=8: 0.10 ms once, then 0.30 ms (texc tune --remeasure): median 0.20; TI=16: 0.15 ms once.
  Record lucky = sample("mm", 32, 8, 0.1), again = sample("mm", 32, 8, 0.3), steady = sample("mm", 32, 16, 0.15);
  again.tuner = "remeasure";
  Shapes s32 = lucky.shapes;
  RecordChoice c = choose({lucky, steady, again}, "mm", "x86", s32);
  REQUIRE(c.record);
  CHECK(c.record->knobs.at("TI") == 16);
  CHECK(c.measurements == 1);
  // Measured again at 0.12 ms: median 0.11, the best, and the chosen record carries that median.
  again.median_ms = 0.12;
  double gflops = lucky.gflops;
  c = choose({lucky, steady, again}, "mm", "x86", s32);
  REQUIRE(c.record);
  CHECK(c.record->knobs.at("TI") == 8);
  CHECK(c.measurements == 2);
  CHECK(c.record->median_ms == doctest::Approx(0.11));
  CHECK(c.record->gflops == doctest::Approx(gflops * 0.1 / 0.11));
  // A measurement that failed is not one of the configuration's times.
  Record failed = sample("mm", 32, 8, 0.5, "timeout");
  CHECK(choose({lucky, steady, again, failed}, "mm", "x86", s32).measurements == 2);
}

TEST_CASE("two writers on one file: read_new gives each the other's records, never its own") {
  std::string path = temp_path();
  RecordWriter a(path), b(path);
  a.lock();
  CHECK(a.read_new().records.empty());
  a.append(sample("mm", 32, 8, 0.5));
  a.unlock();
  b.lock();
  RecordFile theirs = b.read_new();
  REQUIRE(theirs.records.size() == 1);
  CHECK(theirs.records[0].knobs.at("TI") == 8);
  CHECK(theirs.records[0].line == 1);
  b.append(sample("mm", 32, 16, 0.4));
  CHECK(b.read_new().records.empty());  // its own record is not new to it
  b.unlock();
  a.lock();
  RecordFile from_b = a.read_new();
  REQUIRE(from_b.records.size() == 1);
  CHECK(from_b.records[0].knobs.at("TI") == 16);
  CHECK(from_b.records[0].line == 2);
  a.unlock();
  std::remove(path.c_str());
}

TEST_CASE("record_defect: records that cannot be measurements, for tune and --records alike") {
  Record good = sample("mm", 32, 8, 0.5);
  CHECK_FALSE(record_defect(good));
  CHECK_FALSE(record_defect(sample("mm", 32, 8, 0, "invalid")));  // no time, as failed records have
  Record negative = good;
  negative.median_ms = -1;
  CHECK(*record_defect(negative) == "median_ms is -1");
  Record zero = good;
  zero.median_ms = 0;
  CHECK(record_defect(zero)->find("a time must be above 0") != std::string::npos);
  Record fast = good;
  fast.gflops = 101 * plausible_peak_gflops("x86");
  CHECK(record_defect(fast)->find("more than 100 times") != std::string::npos);
  fast.gflops = 99 * plausible_peak_gflops("x86");
  CHECK_FALSE(record_defect(fast));
  Record status = good;
  status.status = "great";
  CHECK(record_defect(status));
  // --records passes over them, and says how many.
  Record lucky = good;
  lucky.median_ms = 1e-9;
  lucky.gflops = 1e15;
  lucky.knobs["TI"] = 32;
  RecordChoice c = choose({good, negative, lucky}, "mm", "x86", good.shapes);
  REQUIRE(c.record);
  CHECK(c.record->knobs.at("TI") == 8);
  CHECK(c.defective == 2);
}

TEST_CASE("a graph task's records: the task round-trips, records without one stay as they were") {
  Record plain = sample("mm", 32, 16, 0.25);
  CHECK(record_to_json(plain).find("\"task\"") == std::string::npos);  // an op tuned whole: no field
  CHECK(parse_record(record_to_json(plain))->task.empty());
  Record a = sample("net_a_k0", 32, 16, 0.25);
  a.task = "conv2d_blocked(f32[1, 3, 8, 8], f32[8, 3, 3, 3]) -> f32[1, 8, 8, 8] #0123abcd";
  std::optional<Record> back = parse_record(record_to_json(a));
  REQUIRE(back);
  CHECK(back->task == a.task);
  // The same task in another network's kernel, with other shapes (its epilogue reads more): one
  // workload. A record of the op with the same name and shapes but no task: another.
  Record b = sample("net_b_k2", 64, 8, 0.5);
  b.task = a.task;
  b.shapes.push_back({"R", {64, 8}});
  CHECK(a.same_workload(b));
  CHECK_FALSE(a.same_workload(sample("net_a_k0", 32, 16, 0.25)));
  Record other = b;
  other.task = "conv2d_blocked(f32[1, 3, 8, 8], f32[8, 3, 3, 3]) -> f32[1, 8, 8, 8] #ffffffff";
  CHECK_FALSE(a.same_workload(other));

  // --records for a kernel: the best record of its task, whatever its op's name and shapes.
  std::vector<Record> records = {a, b, other, sample("net_c_k0", 32, 1, 0.001)};
  records[2].median_ms = 0.01;  // the fastest, of another task
  RecordQuery q;
  q.op = "net_c_k0";
  q.target = "x86";
  q.task = a.task;
  q.shapes = {{"X", {1, 2}}};
  RecordChoice choice = choose_record(records, q);
  REQUIRE(choice.record);
  CHECK(choice.record->op == "net_a_k0");  // 0.25 ms beats b's 0.5 ms; net_c_k0's own record has no task
  CHECK(choice.how == "the best record of task '" + a.task + "' (tuned as kernel 'net_a_k0')");
  q.task = "dense(f32[1, 4], f32[2, 4]) -> f32[1, 2] #00000000";
  RecordChoice none = choose_record(records, q);
  CHECK_FALSE(none.record);
  CHECK(none.how.find("no valid record of task 'dense(") == 0);
}
