#include "backends/vdla/VdlaConfig.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "backends/vdla/Json.h"
#include "ir/Diagnostics.h"
#include "ir/InputFile.h"

namespace texc::vdla {

const std::vector<VdlaConfigKey>& vdla_config_keys() {
  static const std::vector<VdlaConfigKey> keys = {
      {"batch", &VdlaConfig::batch, true, 64},
      {"block_in", &VdlaConfig::block_in, true, 256},
      {"block_out", &VdlaConfig::block_out, true, 256},
      {"inp_buffer_bytes", &VdlaConfig::inp_buffer_bytes, true, int64_t(1) << 28},
      {"wgt_buffer_bytes", &VdlaConfig::wgt_buffer_bytes, true, int64_t(1) << 28},
      {"acc_buffer_bytes", &VdlaConfig::acc_buffer_bytes, true, int64_t(1) << 28},
      {"uop_buffer_bytes", &VdlaConfig::uop_buffer_bytes, true, int64_t(1) << 28},
      {"dram_bytes_per_cycle", &VdlaConfig::dram_bytes_per_cycle, false, int64_t(1) << 20},
      {"dram_latency_cycles", &VdlaConfig::dram_latency_cycles, false, int64_t(1) << 20},
      {"command_queue_depth", &VdlaConfig::command_queue_depth, false, int64_t(1) << 24},
      {"token_queue_depth", &VdlaConfig::token_queue_depth, false, int64_t(1) << 24},
  };
  return keys;
}

const BitField& VdlaDerived::field(const std::vector<BitField>& format, const char* name) {
  for (const BitField& f : format)
    if (std::string_view(f.name) == name) return f;
  TEXC_UNREACHABLE() << "no VDLA instruction field '" << name << "'";
}

namespace {

bool is_power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }
// The smallest l with 2^l >= v, for 0 < v <= 2^62.
unsigned log2_ceil(int64_t v) {
  unsigned l = 0;
  while (l < 62 && (int64_t(1) << l) < v) ++l;
  return l;
}

// Lays fields out in order inside one 64-bit word starting at bit `start`; false if they overflow.
bool lay_out_word(std::vector<BitField>& out, unsigned start, unsigned word_end,
                  const std::vector<std::pair<const char*, unsigned>>& fields, unsigned& used) {
  unsigned pos = start;
  for (const auto& [name, width] : fields) {
    out.push_back({name, pos, width});
    pos += width;
  }
  used = pos - (word_end - 64);
  return pos <= word_end;
}

constexpr unsigned kIterBits = 14;       // iter_out / iter_in
constexpr unsigned kSramBaseBits = 16;   // LOAD/STORE sram_base (spec: bits 25:10)

}  // namespace

bool try_derive(const VdlaConfig& cfg, VdlaDerived& d, VdlaConfigProblem& problem) {
  auto fail = [&](std::vector<std::string> keys, std::string why) {
    problem = {std::move(keys), std::move(why)};
    return false;
  };
  for (const VdlaConfigKey& k : vdla_config_keys()) {
    int64_t v = cfg.*k.member;
    bool latency = std::string_view(k.name) == "dram_latency_cycles";
    if (latency ? v < 0 : v < 1)
      return fail({k.name}, latency ? "it must be zero or positive" : "it must be positive");
    if (v > k.max) return fail({k.name}, fmt::format("it is too large (at most {})", k.max));
    if (k.power_of_two && !is_power_of_two(v))
      return fail({k.name}, fmt::format("it must be a power of two (like {})", int64_t(1) << log2_ceil(v)));
  }
  d.inp_elem_bytes = cfg.batch * cfg.block_in;
  d.wgt_elem_bytes = cfg.block_out * cfg.block_in;
  d.acc_elem_bytes = cfg.batch * cfg.block_out * 4;
  d.out_elem_bytes = cfg.batch * cfg.block_out;
  d.uop_elem_bytes = 4;
  struct Buf {
    const char* key;
    int64_t bytes, elem;
    const char* what;
    int64_t* depth;
    unsigned* log;
  };
  for (Buf b : {Buf{"inp_buffer_bytes", cfg.inp_buffer_bytes, d.inp_elem_bytes, "rows", &d.inp_depth, &d.log_inp_depth},
                Buf{"wgt_buffer_bytes", cfg.wgt_buffer_bytes, d.wgt_elem_bytes, "tiles", &d.wgt_depth, &d.log_wgt_depth},
                Buf{"acc_buffer_bytes", cfg.acc_buffer_bytes, d.acc_elem_bytes, "rows", &d.acc_depth, &d.log_acc_depth},
                Buf{"uop_buffer_bytes", cfg.uop_buffer_bytes, d.uop_elem_bytes, "micro-ops", &d.uop_depth, &d.log_uop_depth}}) {
    if (b.bytes < b.elem)
      return fail({b.key}, fmt::format("it is smaller than one element of the buffer ({} bytes)", b.elem));
    *b.depth = b.bytes / b.elem;
    *b.log = log2_ceil(*b.depth);
    if (*b.log > kSramBaseBits)
      return fail({b.key}, fmt::format("its {} {} of {} bytes need a {}-bit sram_base, but LOAD/STORE have {} bits; use at most {} bytes",
                                       *b.depth, b.what, b.elem, *b.log, kSramBaseBits, b.elem << kSramBaseBits));
  }
  const unsigned U = d.log_uop_depth, A = d.log_acc_depth, I = d.log_inp_depth, W = d.log_wgt_depth;

  d.mem_fields = {{"buffer", 7, 3},        {"sram_base", 10, 16},   {"dram_base", 26, 32},
                  {"y_size", 64, 16},      {"x_size", 80, 16},      {"x_stride", 96, 16},
                  {"y_pad_before", 112, 4}, {"y_pad_after", 116, 4}, {"x_pad_before", 120, 4},
                  {"x_pad_after", 124, 4}};

  std::vector<std::pair<const char*, unsigned>> word0 = {
      {"reset", 1}, {"uop_begin", U}, {"uop_end", U + 1}, {"iter_out", kIterBits}, {"iter_in", kIterBits}};
  unsigned used = 0;
  d.gemm_fields.clear();
  d.alu_fields.clear();
  if (!lay_out_word(d.gemm_fields, 7, 64, word0, used))
    return fail({"uop_buffer_bytes"},
                fmt::format("its {} micro-ops need a {}-bit uop_begin and a {}-bit uop_end, so the first 64-bit word of "
                            "GEMM and ALU instructions would need {} bits; use at most {} bytes",
                            d.uop_depth, U, U + 1, used, int64_t(4) << (U - (used - 64 + 1) / 2)));
  lay_out_word(d.alu_fields, 7, 64, word0, used);

  auto blame_depths = [&]() {
    // The buffers whose depth grew past the defaults' are the likely culprits, largest first.
    std::vector<std::pair<unsigned, std::string>> c = {
        {A, "acc_buffer_bytes"}, {I, "inp_buffer_bytes"}, {W, "wgt_buffer_bytes"}, {0, "batch"}, {0, "block_out"}, {0, "block_in"}};
    std::stable_sort(c.begin(), c.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<std::string> keys;
    for (auto& [_, k] : c) keys.push_back(k);
    return keys;
  };
  if (!lay_out_word(d.gemm_fields, 64, 128,
                    {{"acc_factor_out", A}, {"acc_factor_in", A}, {"inp_factor_out", I}, {"inp_factor_in", I},
                     {"wgt_factor_out", W}, {"wgt_factor_in", W}},
                    used))
    return fail(blame_depths(),
                fmt::format("the GEMM factors need 2x{} (acc) + 2x{} (inp) + 2x{} (wgt) = {} bits, more than the 64 of "
                            "the instruction's second word (depths: acc {} rows, inp {} rows, wgt {} tiles)",
                            A, I, W, used, d.acc_depth, d.inp_depth, d.wgt_depth));
  if (!lay_out_word(d.alu_fields, 64, 128,
                    {{"acc_factor_out", A}, {"acc_factor_in", A}, {"src_factor_out", A}, {"src_factor_in", A},
                     {"op", 3}, {"use_imm", 1}, {"imm", 16}},
                    used))
    return fail({"acc_buffer_bytes", "batch", "block_out"},
                fmt::format("the ALU's four {}-bit acc factors, op, use_imm and imm need {} bits, more than the 64 of "
                            "the instruction's second word; the accumulator may have at most 2048 rows ({} bytes)",
                            A, used, 2048 * d.acc_elem_bytes));
  const unsigned S = std::max(A, I);
  d.uop_fields = {{"acc", 0, A}, {"inp", A, S}, {"wgt", A + S, W}};
  if (A + S + W > 32) {
    std::vector<std::string> keys = blame_depths();
    return fail(keys, fmt::format("a micro-op's acc ({} bits), inp ({} bits) and wgt ({} bits) indices need {} bits, more "
                                  "than its 32",
                                  A, S, W, A + S + W));
  }
  return true;
}

VdlaDerived derive(const VdlaConfig& cfg) {
  VdlaDerived d;
  VdlaConfigProblem p;
  bool ok = try_derive(cfg, d, p);
  TEXC_CHECK(ok) << "invalid VDLA configuration: " << (p.keys.empty() ? "" : p.keys[0]) << ": " << p.why;
  return d;
}

namespace {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

VdlaConfig parse_vdla_config(const std::string& text, uint32_t file) {
  JsonValue root = parse_json(text, file);
  if (root.kind != JsonValue::Kind::Object) throw_error(DiagId::VdlaConfigNotObject, root.loc, root.kind_name());
  VdlaConfig cfg;
  for (const auto& [key, value] : root.members) {
    const VdlaConfigKey* found = nullptr;
    for (const VdlaConfigKey& k : vdla_config_keys())
      if (key.name == k.name) found = &k;
    if (!found) {
      const VdlaConfigKey* best = nullptr;
      size_t best_d = 4;
      std::string all;
      for (const VdlaConfigKey& k : vdla_config_keys()) {
        size_t dist = edit_distance(key.name, k.name);
        if (dist < best_d) best_d = dist, best = &k;
        all += (all.empty() ? "" : ", ") + std::string(k.name);
      }
      if (best) throw_error(DiagId::VdlaConfigUnknownKeySuggest, key.loc, key.name, best->name);
      throw_error(DiagId::VdlaConfigUnknownKey, key.loc, key.name, all);
    }
    if (value.kind != JsonValue::Kind::Number)
      throw_error(DiagId::VdlaConfigType, value.loc, key.name, "an integer", value.kind_name());
    if (!value.is_integer) {
      bool written_integral = value.text.find_first_of(".eE") == std::string::npos;
      if (written_integral) throw_error(DiagId::VdlaConfigValue, value.loc, key.name, value.text, "it is too large");
      throw_error(DiagId::VdlaConfigType, value.loc, key.name, "an integer", "the fractional number " + value.text);
    }
    cfg.*found->member = value.integer;
  }
  VdlaDerived d;
  VdlaConfigProblem problem;
  if (!try_derive(cfg, d, problem)) {
    // Blame the first culprit the file sets; if it sets none of them, the whole object.
    for (const std::string& k : problem.keys)
      for (const auto& [key, value] : root.members)
        if (key.name == k) {
          const VdlaConfigKey* ck = nullptr;
          for (const VdlaConfigKey& c : vdla_config_keys())
            if (k == c.name) ck = &c;
          throw_error(DiagId::VdlaConfigValue, value.loc, k, cfg.*ck->member, problem.why);
        }
    const std::string& k = problem.keys.empty() ? std::string("?") : problem.keys[0];
    int64_t v = 0;
    for (const VdlaConfigKey& c : vdla_config_keys())
      if (k == c.name) v = cfg.*c.member;
    throw_error(DiagId::VdlaConfigValue, root.loc, k, v, problem.why);
  }
  return cfg;
}

VdlaConfig load_vdla_config(const std::string& path) {
  uint32_t file = SourceManager::get().add(path, read_input_file(path, kVdlaConfigInput));
  return parse_vdla_config(SourceManager::get().text(file), file);
}

std::string vdla_config_json(const VdlaConfig& cfg) {
  std::string out = "{\n";
  const auto& keys = vdla_config_keys();
  for (size_t i = 0; i < keys.size(); ++i)
    out += fmt::format("  \"{}\": {}{}\n", keys[i].name, cfg.*keys[i].member, i + 1 < keys.size() ? "," : "");
  return out + "}\n";
}

}  // namespace texc::vdla
