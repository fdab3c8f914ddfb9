// Unit tests of backends/vdla/VdlaConfig.h and Json.h: the spec's defaults and the widths derived
// from them, JSON configuration files overriding them, and every kind of bad file reported as
// FILE:LINE:COL naming the key and why.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>

#include "backends/vdla/Json.h"
#include "backends/vdla/VdlaConfig.h"
#include "ir/Diagnostics.h"

using namespace texc;
using namespace texc::vdla;

namespace {

VdlaConfig parse(const std::string& text, const std::string& name = "cfg.json") {
  uint32_t file = SourceManager::get().add(name, text);
  return parse_vdla_config(SourceManager::get().text(file), file);
}

// The first line of the printed diagnostic ("cfg.json:2:3: error: ..."), or "" if none was thrown.
std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const UserError& e) {
    std::string s = format_diagnostic(e.diag);
    return s.substr(0, s.find('\n'));
  }
  return "";
}

}  // namespace

TEST_CASE("the spec's defaults and what derives from them") {
  VdlaDerived d = derive(VdlaConfig{});
  CHECK(d.inp_depth == 2048);
  CHECK(d.wgt_depth == 1024);
  CHECK(d.acc_depth == 2048);
  CHECK(d.uop_depth == 8192);
  CHECK(d.inp_elem_bytes == 16);
  CHECK(d.wgt_elem_bytes == 256);
  CHECK(d.acc_elem_bytes == 64);
  CHECK(d.out_elem_bytes == 16);
  auto at = [](const std::vector<BitField>& f, const char* n) {
    const BitField& b = VdlaDerived::field(f, n);
    return std::pair<unsigned, unsigned>(b.lo, b.lo + b.width - 1);
  };
  using P = std::pair<unsigned, unsigned>;
  // The spec's table, bit for bit.
  CHECK(at(d.gemm_fields, "reset") == P(7, 7));
  CHECK(at(d.gemm_fields, "uop_begin") == P(8, 20));
  CHECK(at(d.gemm_fields, "uop_end") == P(21, 34));
  CHECK(at(d.gemm_fields, "iter_out") == P(35, 48));
  CHECK(at(d.gemm_fields, "iter_in") == P(49, 62));
  CHECK(at(d.gemm_fields, "acc_factor_out") == P(64, 74));
  CHECK(at(d.gemm_fields, "acc_factor_in") == P(75, 85));
  CHECK(at(d.gemm_fields, "inp_factor_out") == P(86, 96));
  CHECK(at(d.gemm_fields, "inp_factor_in") == P(97, 107));
  CHECK(at(d.gemm_fields, "wgt_factor_out") == P(108, 117));
  CHECK(at(d.gemm_fields, "wgt_factor_in") == P(118, 127));
  CHECK(at(d.alu_fields, "src_factor_out") == P(86, 96));
  CHECK(at(d.alu_fields, "src_factor_in") == P(97, 107));
  CHECK(at(d.alu_fields, "op") == P(108, 110));
  CHECK(at(d.alu_fields, "use_imm") == P(111, 111));
  CHECK(at(d.alu_fields, "imm") == P(112, 127));
  CHECK(at(d.uop_fields, "acc") == P(0, 10));
  CHECK(at(d.uop_fields, "inp") == P(11, 21));
  CHECK(at(d.uop_fields, "wgt") == P(22, 31));
  CHECK(at(d.mem_fields, "sram_base") == P(10, 25));
  CHECK(at(d.mem_fields, "dram_base") == P(26, 57));
  CHECK(at(d.mem_fields, "x_pad_after") == P(124, 127));
}

TEST_CASE("a JSON file overrides any key and the widths follow") {
  VdlaConfig c = parse(R"({
    "inp_buffer_bytes": 16384,
    "wgt_buffer_bytes": 131072,
    "dram_latency_cycles": 0,
    "dram_bytes_per_cycle": 16,
    "command_queue_depth": 4,
    "token_queue_depth": 2
  })");
  CHECK(c.inp_buffer_bytes == 16384);
  CHECK(c.wgt_buffer_bytes == 131072);
  CHECK(c.acc_buffer_bytes == VdlaConfig{}.acc_buffer_bytes);
  CHECK(c.dram_latency_cycles == 0);
  CHECK(c.dram_bytes_per_cycle == 16);
  CHECK(c.command_queue_depth == 4);
  CHECK(c.token_queue_depth == 2);
  VdlaDerived d = derive(c);
  CHECK(d.inp_depth == 1024);
  CHECK(d.wgt_depth == 512);
  CHECK(VdlaDerived::field(d.gemm_fields, "inp_factor_out").width == 10);
  CHECK(VdlaDerived::field(d.gemm_fields, "wgt_factor_in").width == 9);
  CHECK(VdlaDerived::field(d.gemm_fields, "wgt_factor_in").lo == 64 + 11 + 11 + 10 + 10 + 9);
  CHECK(parse("{}") == VdlaConfig{});
  // A smaller GEMM unit: 8x8 tiles.
  VdlaConfig small = parse(R"({"block_in": 8, "block_out": 8, "acc_buffer_bytes": 32768, "inp_buffer_bytes": 8192})");
  VdlaDerived ds = derive(small);
  CHECK(ds.wgt_elem_bytes == 64);
  CHECK(ds.acc_depth == 1024);
  CHECK(ds.inp_depth == 1024);
  CHECK(ds.wgt_depth == 4096);
}

TEST_CASE("the configuration written as JSON reads back, also from a file") {
  VdlaConfig c;
  c.uop_buffer_bytes = 16384;
  c.dram_latency_cycles = 20;
  std::string path = "vdla_config_test_tmp.json";
  {
    std::ofstream out(path);
    out << vdla_config_json(c);
  }
  CHECK(load_vdla_config(path) == c);
  std::remove(path.c_str());
  try {
    load_vdla_config("no/such/vdla.json");
    FAIL("no error");
  } catch (const UserError& e) {
    CHECK(e.diag.message == "cannot open file 'no/such/vdla.json'");
  }
}

TEST_CASE("bad files are located errors naming the key and why") {
  CHECK(error_of("{\n  \"inp_bufer_bytes\": 16384\n}") ==
        "cfg.json:2:3: error: unknown VDLA configuration key 'inp_bufer_bytes'; did you mean 'inp_buffer_bytes'?");
  CHECK(error_of("{\"colour\": 1}").find("cfg.json:1:2: error: unknown VDLA configuration key 'colour' (the keys are: batch, block_in,") == 0);
  CHECK(error_of("{\n  \"batch\": \"one\"\n}") == "cfg.json:2:12: error: VDLA configuration key 'batch' must be an integer, not a string");
  CHECK(error_of("{\"batch\": 1.5}") == "cfg.json:1:11: error: VDLA configuration key 'batch' must be an integer, not the fractional number 1.5");
  CHECK(error_of("{\"batch\": [1]}") == "cfg.json:1:11: error: VDLA configuration key 'batch' must be an integer, not an array");
  CHECK(error_of("{\"batch\": 99999999999999999999}") == "cfg.json:1:11: error: VDLA configuration key 'batch' is 99999999999999999999: it is too large");
  CHECK(error_of("{\n\n    \"inp_buffer_bytes\": 30000}") ==
        "cfg.json:3:25: error: VDLA configuration key 'inp_buffer_bytes' is 30000: it must be a power of two (like 32768)");
  CHECK(error_of("{\"block_in\": 1024}") == "cfg.json:1:14: error: VDLA configuration key 'block_in' is 1024: it is too large (at most 256)");
  CHECK(error_of("{\"acc_buffer_bytes\": 4611686018427387904}").find("it is too large (at most 268435456)") != std::string::npos);
  CHECK(error_of("{\"token_queue_depth\": 0}") == "cfg.json:1:23: error: VDLA configuration key 'token_queue_depth' is 0: it must be positive");
  CHECK(error_of("{\"dram_latency_cycles\": -1}").find("'dram_latency_cycles' is -1: it must be zero or positive") != std::string::npos);
  CHECK(error_of("{\"wgt_buffer_bytes\": 128}") ==
        "cfg.json:1:22: error: VDLA configuration key 'wgt_buffer_bytes' is 128: it is smaller than one element of the buffer (256 bytes)");
  CHECK(error_of("[1, 2]") ==
        "cfg.json:1:1: error: a VDLA configuration must be a JSON object of settings, like {\"inp_buffer_bytes\": 32768}, not an array");
}

TEST_CASE("a derived field that no longer fits the 128-bit instruction is an error at its key") {
  // 16384 micro-ops: uop_begin 14 + uop_end 15 bits overflow the first 64-bit word.
  CHECK(error_of("{\n  \"dram_latency_cycles\": 10,\n  \"uop_buffer_bytes\": 65536\n}") ==
        "cfg.json:3:23: error: VDLA configuration key 'uop_buffer_bytes' is 65536: its 16384 micro-ops need a 14-bit uop_begin "
        "and a 15-bit uop_end, so the first 64-bit word of GEMM and ALU instructions would need 65 bits; use at most 32768 bytes");
  // 4096 accumulator rows: the GEMM factors need 66 bits of the second word.
  std::string acc = error_of("{\"acc_buffer_bytes\": 262144}");
  CHECK(acc.find("cfg.json:1:22: error: VDLA configuration key 'acc_buffer_bytes' is 262144: the GEMM factors need 2x12 (acc) + "
                 "2x11 (inp) + 2x10 (wgt) = 66 bits") == 0);
  // More input rows (a smaller block_in) overflow the same word; blamed on the buffer the file set.
  std::string inp = error_of("{\"inp_buffer_bytes\": 65536}");
  CHECK(inp.find("cfg.json:1:22: error: VDLA configuration key 'inp_buffer_bytes' is 65536: the GEMM factors need") == 0);
  // An ALU-only overflow: 4096 accumulator rows but fewer input rows and weight tiles.
  std::string alu = error_of("{\"acc_buffer_bytes\": 262144, \"inp_buffer_bytes\": 8192, \"wgt_buffer_bytes\": 65536}");
  CHECK(alu.find("'acc_buffer_bytes' is 262144: the ALU's four 12-bit acc factors, op, use_imm and imm need 68 bits") != std::string::npos);
  // A buffer too deep for LOAD/STORE's 16-bit sram_base.
  std::string sram = error_of("{\"block_in\": 1, \"batch\": 1, \"inp_buffer_bytes\": 131072}");
  CHECK(sram.find("'inp_buffer_bytes' is 131072: its 131072 rows of 1 bytes need a 17-bit sram_base, but LOAD/STORE have 16 bits") !=
        std::string::npos);
  // try_derive reports the same without a file.
  VdlaConfig c;
  c.uop_buffer_bytes = 65536;
  VdlaDerived d;
  VdlaConfigProblem p;
  CHECK_FALSE(try_derive(c, d, p));
  CHECK(p.keys.at(0) == "uop_buffer_bytes");
}

TEST_CASE("JSON syntax errors are located") {
  CHECK(error_of("{\n  \"batch\": 1\n  \"block_in\": 16\n}") == "cfg.json:3:3: error: expected ',' or '}' after an object member, found '\"'");
  CHECK(error_of("{\"batch\": 1,}") == "cfg.json:1:13: error: expected a member name in double quotes, found '}'");
  CHECK(error_of("{\"batch\" 1}") == "cfg.json:1:10: error: expected ':' after the member name, found '1'");
  CHECK(error_of("{\"batch\": 1") == "cfg.json:1:12: error: expected ',' or '}' after an object member, found end of file");
  CHECK(error_of("{\"batch\": 01}") == "cfg.json:1:12: error: expected ',' or '}' after an object member, found '1'");
  CHECK(error_of("{\"batch\": tru}") ==
        "cfg.json:1:11: error: expected a JSON value (a number, string, true, false, null, array or object), found 't'");
  CHECK(error_of("{\"bat\nch\": 1}") == "cfg.json:1:6: error: a control character or line break inside a string; write it escaped, like \\n");
  CHECK(error_of("{} {}") == "cfg.json:1:4: error: unexpected '{' after the JSON value");
  CHECK(error_of("") == "cfg.json:1:1: error: expected a JSON value, found end of file");
  CHECK(error_of("{\"batch\": 1, \"batch\": 2}") == "cfg.json:1:14: error: duplicate key 'batch' (first given at line 1, column 2)");
  CHECK(error_of(std::string(100, '[')).find("JSON nesting is deeper than 64 levels") != std::string::npos);
}

TEST_CASE("the JSON reader keeps every value's position and decodes strings") {
  uint32_t file = SourceManager::get().add("j.json", "{\"a\": [1, -2.5e1, true, null],\n \"b\\u00e9\\n\": \"x\\\"y\"}");
  JsonValue v = parse_json(SourceManager::get().text(file), file);
  REQUIRE(v.kind == JsonValue::Kind::Object);
  REQUIRE(v.members.size() == 2);
  const JsonValue& a = v.members[0].second;
  REQUIRE(a.elements.size() == 4);
  CHECK(a.loc.line == 1);
  CHECK(a.loc.col == 7);
  CHECK(a.elements[0].is_integer);
  CHECK(a.elements[0].integer == 1);
  CHECK(a.elements[1].number == -25.0);
  CHECK_FALSE(a.elements[1].is_integer);
  CHECK(a.elements[2].boolean);
  CHECK(a.elements[3].kind == JsonValue::Kind::Null);
  CHECK(v.members[1].first.name == "b\xC3\xA9\n");
  CHECK(v.members[1].first.loc.line == 2);
  CHECK(v.members[1].first.loc.col == 2);
  CHECK(v.members[1].second.text == "x\"y");
}
