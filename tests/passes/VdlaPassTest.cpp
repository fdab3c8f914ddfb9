// vdla_pass_test: runs the text tests of the VDLA pipeline's passes (backends/vdla/lowering).
//
//   vdla_pass_test FILE_OR_DIR...
//
// The case files look like tests/passes (PassTest.cpp): `// pass: NAME`, `// before`, `// expected`.
// expand_virtual_threads (loop AST -> loop AST) takes and gives funcs (ir/IRParser.h), compared
// structurally as in tests/passes; walk_loops (loop AST -> stream, with inject_intrinsics at each
// leaf) takes a func as `before`; the other passes work on the instruction stream (lowering/Stream.h), so their
// `before`, and every `expected`, are streams written one entry per line (the default
// configuration, backends/vdla/VdlaConfig.h):
//
//   t0 LOAD INP sram=0 dram=4 y=2 x=3 stride=8 pad=0,0,0,0 ; load XL    a finished instruction
//   t0 LOAD INP copy=0:4,1:5,2:pad ; load XL     a copy before inject_dma_copies (on-chip:DRAM)
//   t1 GEMM nest=2x2 inst=0/0/0,1/0/1,2/1/0,3/1/1 ; gemm C    a nest before fold_uop_loops
//   -- LOAD UOP sram=0 dram=8 y=1 x=4 stride=4 pad=0,0,0,0     thread -1
//   uop_table 0/0/0 1/0/1                                     the micro-op table (acc/inp/wgt)
//
// Instructions are written as the listing writes them (Listing.h's format_insn: `key=value` fields,
// `reset`, `sync`); fields left out keep their defaults. After `|` come the tokens (only in the
// output of insert_dependency_tokens), after `;` the comment. `error: MESSAGE` as the expected
// text expects the pass to fail with that user error. Expected and actual text are compared line
// by line with runs of blanks collapsed. Prints `N passed, M failed`; exit status 1 if any failed.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "backends/vdla/Listing.h"
#include "backends/vdla/VdlaConfig.h"
#include "backends/vdla/lowering/ExpandVirtualThreads.h"
#include "backends/vdla/lowering/FoldUopLoops.h"
#include "backends/vdla/lowering/InjectDmaCopies.h"
#include "backends/vdla/lowering/InsertDependencyTokens.h"
#include "backends/vdla/lowering/WalkLoops.h"
#include "ir/Diagnostics.h"
#include "ir/IRParser.h"
#include "ir/IRPrinter.h"
#include "ir/StructuralEqual.h"
#include "ir/Verifier.h"
#include "tests/passes/CaseFiles.h"

namespace {

using namespace texc;
using namespace texc::vdla;
using pass_tests::Case;
using pass_tests::trim;

// Lines trimmed, blanks collapsed, empty lines dropped.
std::vector<std::string> normalized_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string w, joined;
    while (words >> w) joined += (joined.empty() ? "" : " ") + w;
    if (!joined.empty()) out.push_back(joined);
  }
  return out;
}

struct ParseError {
  std::string message;
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep)) out.push_back(part);
  return out;
}

uint64_t number(const std::string& s) {
  size_t used = 0;
  std::string t = !s.empty() && s[0] == '+' ? s.substr(1) : s;
  uint64_t v = std::stoull(t, &used);
  if (used != t.size()) throw ParseError{"'" + s + "' is not a number"};
  return v;
}

std::pair<uint64_t, uint64_t> pair_of(const std::string& s, const std::string& sep) {
  size_t p = s.find(sep);
  if (p == std::string::npos) throw ParseError{"'" + s + "' is not two numbers separated by '" + sep + "'"};
  return {number(s.substr(0, p)), number(s.substr(p + sep.size()))};
}

Uop uop_of(const std::string& s) {
  std::vector<std::string> f = split(s, '/');
  if (f.size() != 3) throw ParseError{"'" + s + "' is not a micro-op acc/inp/wgt"};
  return Uop{number(f[0]), number(f[1]), number(f[2])};
}

MemBuffer buffer_of(const std::string& s) {
  for (MemBuffer b : {MemBuffer::Uop, MemBuffer::Wgt, MemBuffer::Inp, MemBuffer::Acc, MemBuffer::Out, MemBuffer::Acc8})
    if (s == buffer_name(b)) return b;
  throw ParseError{"unknown buffer '" + s + "'"};
}

AluOp alu_op_of(const std::string& s) {
  for (AluOp op : {AluOp::Min, AluOp::Max, AluOp::Add, AluOp::Shr, AluOp::Mul})
    if (s == alu_op_name(op)) return op;
  throw ParseError{"unknown ALU operation '" + s + "'"};
}

Tokens tokens_of(const std::string& s) {
  Tokens t;
  std::istringstream words(s);
  std::string w;
  while (words >> w) {
    if (w == "pop_prev") t.pop_prev = true;
    else if (w == "pop_next") t.pop_next = true;
    else if (w == "push_prev") t.push_prev = true;
    else if (w == "push_next") t.push_next = true;
    else if (w != "-") throw ParseError{"unknown token '" + w + "'"};
  }
  return t;
}

struct Stream {
  std::vector<StreamEntry> entries;
  std::vector<Uop> uops;
};

StreamEntry parse_entry(const std::string& line) {
  StreamEntry e;
  std::string body = line;
  if (size_t semi = body.find(';'); semi != std::string::npos) {
    e.comment = trim(body.substr(semi + 1));
    body = body.substr(0, semi);
  }
  if (size_t bar = body.find('|'); bar != std::string::npos) {
    e.insn.tokens = tokens_of(body.substr(bar + 1));
    body = body.substr(0, bar);
  }
  std::istringstream words(body);
  std::string thread, opcode, w;
  words >> thread >> opcode;
  e.thread = thread == "--" ? -1 : int(number(thread.substr(1)));
  if (opcode == "LOAD" || opcode == "STORE") {
    words >> w;
    e.insn = opcode == "LOAD" ? Insn::load(MemFields{}, e.insn.tokens) : Insn::store(MemFields{}, e.insn.tokens);
    e.insn.mem.buffer = buffer_of(w);
  } else if (opcode == "GEMM") {
    e.insn = Insn::gemm_op(GemmFields{}, e.insn.tokens);
  } else if (opcode == "ALU") {
    words >> w;
    e.insn = Insn::alu_op(AluFields{}, e.insn.tokens);
    e.insn.alu.op = alu_op_of(w);
  } else if (opcode == "FINISH") {
    e.insn = Insn::finish(e.insn.tokens);
  } else {
    throw ParseError{"unknown opcode '" + opcode + "'"};
  }
  MemFields& m = e.insn.mem;
  UopLoop& loop = e.insn.opcode == Opcode::Alu ? e.insn.alu.loop : e.insn.gemm.loop;
  while (words >> w) {
    if (w == "reset") {
      loop.reset = true;
      continue;
    }
    if (w == "sync") continue;  // x=0, the default
    size_t eq = w.find('=');
    if (eq == std::string::npos) throw ParseError{"'" + w + "' is not key=value"};
    std::string key = w.substr(0, eq), value = w.substr(eq + 1);
    if (key == "sram") m.sram_base = number(value);
    else if (key == "dram") m.dram_base = number(value);
    else if (key == "y") m.y_size = number(value);
    else if (key == "x") m.x_size = number(value);
    else if (key == "stride") m.x_stride = number(value);
    else if (key == "pad") {
      std::vector<std::string> p = split(value, ',');
      if (p.size() != 4) throw ParseError{"pad= takes four numbers"};
      m.y_pad_before = number(p[0]), m.y_pad_after = number(p[1]), m.x_pad_before = number(p[2]), m.x_pad_after = number(p[3]);
    } else if (key == "uops") std::tie(loop.uop_begin, loop.uop_end) = pair_of(value, "..");
    else if (key == "iter") std::tie(loop.iter_out, loop.iter_in) = pair_of(value, "x");
    else if (key == "acc") std::tie(loop.acc_factor_out, loop.acc_factor_in) = pair_of(value, ",");
    else if (key == "inp") std::tie(e.insn.gemm.inp_factor_out, e.insn.gemm.inp_factor_in) = pair_of(value, ",");
    else if (key == "wgt") std::tie(e.insn.gemm.wgt_factor_out, e.insn.gemm.wgt_factor_in) = pair_of(value, ",");
    else if (key == "src") std::tie(e.insn.alu.src_factor_out, e.insn.alu.src_factor_in) = pair_of(value, ",");
    else if (key == "imm") e.insn.alu.use_imm = true, e.insn.alu.imm = std::stoll(value);
    else if (key == "copy") {
      PendingCopy c;
      for (const std::string& el : split(value, ',')) {
        size_t colon = el.find(':');
        if (colon == std::string::npos) throw ParseError{"'" + el + "' is not ONCHIP:DRAM or ONCHIP:pad"};
        CopyElem ce;
        ce.lanes = 1;
        std::string dram = el.substr(colon + 1);
        if (dram == "pad") ce.pad = true;
        else ce.dram = int64_t(number(dram));
        c.elems[int64_t(number(el.substr(0, colon)))] = ce;
      }
      c.allow_pad = e.insn.opcode == Opcode::Load;  // as the walk does: loads pad, stores do not
      c.stage = e.comment;
      c.not_a_2d = "its copy is not a 2-D pattern";
      e.copy = c;
    } else if (key == "nest") {
      if (!e.nest) e.nest.emplace();
      for (const std::string& x : split(value, 'x')) e.nest->extents.push_back(int64_t(number(x)));
    } else if (key == "inst") {
      if (!e.nest) e.nest.emplace();
      for (const std::string& u : split(value, ',')) e.nest->instances.push_back(uop_of(u));
    } else {
      throw ParseError{"unknown field '" + key + "'"};
    }
  }
  return e;
}

Stream parse_stream(const std::string& text) {
  Stream s;
  for (const std::string& line : normalized_lines(text)) {
    if (line.rfind("uop_table", 0) == 0) {
      std::istringstream words(line.substr(9));
      std::string u;
      while (words >> u) s.uops.push_back(uop_of(u));
    } else {
      s.entries.push_back(parse_entry(line));
    }
  }
  return s;
}

std::string uop_text(const Uop& u) {
  return std::to_string(u.acc) + "/" + std::to_string(u.inp) + "/" + std::to_string(u.wgt);
}

std::string print_entry(const StreamEntry& e) {
  std::string out = (e.thread < 0 ? std::string("--") : "t" + std::to_string(e.thread)) + " ";
  if (e.copy) {
    out += std::string(opcode_name(e.insn.opcode)) + " " + buffer_name(e.insn.mem.buffer) + " copy=";
    bool first = true;
    for (auto& [sram, ce] : e.copy->elems) {
      out += (first ? "" : ",") + std::to_string(sram) + ":" + (ce.pad ? std::string("pad") : std::to_string(ce.dram));
      first = false;
    }
  } else if (e.nest) {  // what is decided so far: the opcode, reset, the ALU operation and immediate
    if (e.insn.opcode == Opcode::Gemm) out += e.insn.gemm.loop.reset ? "GEMM reset" : "GEMM";
    else out += std::string("ALU ") + alu_op_name(e.insn.alu.op) + (e.insn.alu.use_imm ? " imm=" + std::to_string(e.insn.alu.imm) : "");
  } else {
    out += format_insn(e.insn);
  }
  if (e.nest) {
    for (size_t i = 0; i < e.nest->extents.size(); ++i) out += (i ? "x" : " nest=") + std::to_string(e.nest->extents[i]);
    out += " inst=";
    for (size_t i = 0; i < e.nest->instances.size(); ++i) out += (i ? "," : "") + uop_text(e.nest->instances[i]);
  }
  if (e.insn.tokens != Tokens{}) out += " | " + format_tokens(e.insn.tokens);
  if (!e.comment.empty()) out += " ; " + e.comment;
  return out + "\n";
}

std::string print_stream(const std::vector<StreamEntry>& entries, const std::vector<Uop>* uops) {
  std::string out;
  for (const StreamEntry& e : entries) out += print_entry(e);
  if (uops) {
    out += "uop_table";
    for (const Uop& u : *uops) out += " " + uop_text(u);
    out += "\n";
  }
  return out;
}

LoweredFunc parse_valid_func(const std::string& text, const std::string& what);

// Runs the named pass on `before`; the stream it leaves as text.
std::string run_pass(const std::string& pass, const std::string& before) {
  const VdlaDerived derived = derive(VdlaConfig{});
  if (pass == "inject_dma_copies") {
    Stream s = parse_stream(before);
    inject_dma_copies(s.entries, derived, SourceLoc{});
    return print_stream(s.entries, nullptr);
  }
  if (pass == "fold_uop_loops") {
    Stream s = parse_stream(before);
    // The table's DRAM place: right after a 1 KiB argument area, as a real program might put it.
    std::vector<Uop> uops = fold_uop_loops(s.entries, 1024, derived);
    return print_stream(s.entries, &uops);
  }
  if (pass == "walk_loops") {
    WalkedOp walked = walk_loops(parse_valid_func(before, "before"), VdlaConfig{}, SourceLoc{}, true);
    return print_stream(walked.stream, nullptr);
  }
  if (pass == "insert_dependency_tokens") {
    Stream s = parse_stream(before);
    std::vector<ThreadedInsn> placed = insert_dependency_tokens(s.entries, s.uops);
    std::vector<StreamEntry> out;
    for (const ThreadedInsn& ti : placed) out.push_back({ti.insn, ti.thread, ti.comment, {}, {}});
    return print_stream(out, nullptr);
  }
  throw ParseError{"unknown pass '" + pass + "' (walk_loops, inject_dma_copies, fold_uop_loops, insert_dependency_tokens)"};
}

LoweredFunc parse_valid_func(const std::string& text, const std::string& what) {
  LoweredFunc func = parse_func(text, what);
  if (auto problem = verify(func)) throw ParseError{"the `" + what + "` func is invalid IR: " + *problem};
  return func;
}

// expand_virtual_threads, loop AST -> loop AST: compared structurally, as tests/passes does.
bool run_ast_case(const Case& c, const std::string& where) {
  try {
    LoweredFunc after = expand_virtual_threads(parse_valid_func(c.before.text, "before"), SourceLoc{});
    if (auto problem = verify(after)) {
      std::cout << "FAIL " << where << ": '" << c.pass << "' produced invalid IR: " << *problem << "\n" << to_string(after);
      return false;
    }
    LoweredFunc expected = parse_valid_func(c.expected.text, "expected");
    if (!structurally_equal(after, expected)) {
      std::cout << "FAIL " << where << ": '" << c.pass << "' gave\n" << to_string(after) << "but expected\n" << to_string(expected);
      return false;
    }
  } catch (const ParseError& e) {
    std::cout << "FAIL " << where << ": " << e.message << "\n";
    return false;
  } catch (const std::exception& e) {
    std::cout << "FAIL " << where << ": " << e.what() << "\n";
    return false;
  }
  std::cout << "PASS " << where << " (" << c.pass << ")\n";
  return true;
}

bool run_case(const Case& c, const std::string& path) {
  std::string where = path + ":" + std::to_string(c.line);
  if (c.pass == "expand_virtual_threads") return run_ast_case(c, where);
  std::string actual;
  try {
    actual = run_pass(c.pass, c.before.text);
  } catch (const ParseError& e) {
    std::cout << "FAIL " << where << ": " << e.message << "\n";
    return false;
  } catch (const UserError& e) {
    actual = "error: " + e.diag.message + "\n";
  } catch (const std::exception& e) {
    std::cout << "FAIL " << where << ": " << e.what() << "\n";
    return false;
  }
  if (normalized_lines(actual) != normalized_lines(c.expected.text)) {
    std::cout << "FAIL " << where << ": '" << c.pass << "' gave\n" << actual << "but expected\n" << c.expected.text;
    return false;
  }
  std::cout << "PASS " << where << " (" << c.pass << ")\n";
  return true;
}

}  // namespace

int main(int argc, char** argv) { return texc::pass_tests::run_case_files(argc, argv, "vdla_pass_test", run_case); }
