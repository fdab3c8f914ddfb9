// Unit tests of backends/vdla/ProgramFile.h and Listing.h: .vdla write/read round trips, every
// truncation and corruption rejected with a message (never a crash), and the listing's lines.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>

#include "backends/vdla/Listing.h"
#include "backends/vdla/ProgramFile.h"
#include "ir/Diagnostics.h"
#include "vdla_test_programs.h"

using namespace texc;
using namespace texc::vdla;
using namespace texc::vdla::test;

namespace {

std::string parse_error(const std::vector<uint8_t>& bytes) {
  try {
    parse_vdla(bytes, "f.vdla");
  } catch (const UserError& e) {
    return e.diag.message;
  }
  return "";
}

VdlaProgram richer_program() {
  VdlaProgram p = one_tile_gemm_program();
  p.config.dram_latency_cycles = 7;
  p.config.acc_buffer_bytes = 64 * 1024;
  AluFields a;
  a.loop = {false, 0, 1, 3, 2, 5, 1};
  a.op = AluOp::Shr;
  a.use_imm = true;
  a.imm = -3;
  p.insns.insert(p.insns.begin() + 5, Insn::alu_op(a));
  p.comments.insert(p.comments.begin() + 5, "Y = Y >> -3");
  MemFields padded = mem(MemBuffer::Inp, 3, 9, 2, 3, 40);
  padded.y_pad_before = 1;
  padded.x_pad_after = 15;
  p.insns.insert(p.insns.begin() + 1, Insn::load(padded));
  p.comments.insert(p.comments.begin() + 1, "padded");
  p.uops.push_back(Uop{1023, 2047, 1023});
  p.uop_dram_offset = 0;
  p.args.push_back({"scale", Int(32), {2, 3, 4}, 4, false});
  return p;
}

}  // namespace

TEST_CASE(".vdla round trip: serialize, parse, equal; through a file too") {
  for (const VdlaProgram& p : {one_tile_gemm_program(), richer_program()}) {
    std::vector<uint8_t> bytes = serialize_vdla(p);
    CHECK(parse_vdla(bytes, "f.vdla") == p);
    std::string path = "vdla_program_file_test_tmp.vdla";
    REQUIRE(write_vdla_file(path, p));
    CHECK(read_vdla_file(path) == p);
    std::remove(path.c_str());
  }
  VdlaProgram no_comments = one_tile_gemm_program();
  no_comments.comments.clear();
  CHECK(parse_vdla(serialize_vdla(no_comments), "f.vdla") == no_comments);
  CHECK_FALSE(write_vdla_file("no/such/dir/f.vdla", no_comments));
}

TEST_CASE("the file starts with the magic and version and holds the instructions little-endian") {
  VdlaProgram p = one_tile_gemm_program();
  std::vector<uint8_t> b = serialize_vdla(p);
  CHECK(b[0] == 0x89);
  CHECK(std::string(b.begin() + 1, b.begin() + 5) == "VDLA");
  CHECK(b[8] == kVdlaFileVersion);
  CHECK(b[9] == 0);
}

TEST_CASE("every truncation is rejected with a message") {
  std::vector<uint8_t> bytes = serialize_vdla(richer_program());
  for (size_t n = 0; n < bytes.size(); ++n) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + long(n));
    std::string e = parse_error(cut);
    INFO("length ", n);
    CHECK(e.rfind("f.vdla: ", 0) == 0);
    if (n >= 8) CHECK(e.find("truncated") != std::string::npos);
  }
  std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + 100);
  CHECK(parse_error(cut).find("f.vdla: the file is truncated") == 0);
}

TEST_CASE("corrupt files are rejected with a message") {
  std::vector<uint8_t> good = serialize_vdla(richer_program());
  CHECK(parse_error({'h', 'e', 'l', 'l', 'o', '!', '!', '!', 0, 0}).find("not a .vdla file") != std::string::npos);
  std::vector<uint8_t> b = good;
  b[8] = 9;
  CHECK(parse_error(b) == "f.vdla: version 9 is not supported (this texc reads version 1); regenerate it with this texc");
  b = good;
  b.push_back(0);
  CHECK(parse_error(b).find("1 unexpected bytes follow the end of the program") != std::string::npos);
  // Flip each byte after the header in turn: each is caught (checksum, decode, counts, ...).
  for (size_t i = 16; i < good.size(); ++i) {
    b = good;
    b[i] ^= 0x5A;
    INFO("byte ", i);
    CHECK(parse_error(b).rfind("f.vdla: ", 0) == 0);
  }
}

TEST_CASE("the listing: one instruction per line with index, engine, opcode, fields, tokens and comment") {
  VdlaProgram p = richer_program();
  std::string listing = vdla_listing(p);
  auto line_of = [&](const std::string& needle) {
    size_t at = listing.find(needle);
    REQUIRE(at != std::string::npos);
    size_t begin = listing.rfind('\n', at) + 1;
    return listing.substr(begin, listing.find('\n', at) - begin);
  };
  CHECK(listing.find("# configuration: batch=1 block_in=16") != std::string::npos);
  CHECK(listing.find("# input  X: i8[16] at DRAM byte 64 (16 bytes)") != std::string::npos);
  CHECK(listing.find("# output Y: i8[16] at DRAM byte 512 (16 bytes)") != std::string::npos);
  CHECK(listing.find("#   uop     1: acc=1023 inp=2047 wgt=1023") != std::string::npos);
  std::string l = line_of("; padded");
  CHECK(l.rfind("     1  LOAD     LOAD  INP   sram=3 dram=9 y=2 x=3 stride=40 pad=1,0,0,15", 0) == 0);
  CHECK(l.find("  -  ; padded") != std::string::npos);
  l = line_of("; for k");
  CHECK(l.rfind("     5  COMPUTE  GEMM        uops=0..1 iter=1x1 acc=+0,+0 inp=+0,+0 wgt=+0,+0", 0) == 0);
  CHECK(l.find("pop_prev push_next  ; for k") != std::string::npos);
  l = line_of("Y = Y >> -3");
  CHECK(l.find("ALU SHR     uops=0..1 iter=3x2 acc=+5,+1 imm=-3") != std::string::npos);
  l = line_of("STORE OUT");
  CHECK(l.find("STORE  ") != std::string::npos);
  CHECK(l.find("pop_prev push_prev") != std::string::npos);
  CHECK(line_of("sync").find("COMPUTE  LOAD  UOP   sync") != std::string::npos);
  CHECK(line_of("FINISH").rfind("     9  COMPUTE  FINISH", 0) == 0);
}
