#include "backends/vdla/ProgramFile.h"

#include <fmt/format.h>

#include <fstream>
#include <iterator>

#include "backends/vdla/ProgramLimits.h"
#include "ir/Diagnostics.h"
#include "ir/InputFile.h"

namespace texc::vdla {

namespace {

constexpr uint8_t kMagic[8] = {0x89, 'V', 'D', 'L', 'A', 0x0D, 0x0A, 0x1A};

uint64_t fnv1a(const uint8_t* p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

class Writer {
 public:
  std::vector<uint8_t> out;
  void u8(uint8_t v) { out.push_back(v); }
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));
  }
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(uint8_t(v >> (8 * i)));
  }
  void str(const std::string& s) {
    u32(uint32_t(s.size()));
    out.insert(out.end(), s.begin(), s.end());
  }
};

class Reader {
 public:
  Reader(const std::vector<uint8_t>& b, const std::string& path) : b_(b), path_(path) {}

  [[noreturn]] void fail(const std::string& why) const { throw_error(DiagId::VdlaFileError, SourceLoc{}, path_, why); }

  void need(uint64_t n, const std::string& what) const {
    if (n > b_.size() - pos_)
      fail(fmt::format("the file is truncated: {} needs {} bytes at byte {}, but the file ends at byte {}", what, n, pos_, b_.size()));
  }
  uint8_t u8(const std::string& what) {
    need(1, what);
    return b_[pos_++];
  }
  uint32_t u32(const std::string& what) {
    need(4, what);
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t(b_[pos_++]) << (8 * i);
    return v;
  }
  uint64_t u64(const std::string& what) {
    need(8, what);
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t(b_[pos_++]) << (8 * i);
    return v;
  }
  std::string str(const std::string& what) {
    uint32_t n = u32(what + " (its length)");
    need(n, what);
    std::string s(b_.begin() + pos_, b_.begin() + pos_ + n);
    pos_ += n;
    return s;
  }
  /// A count of items of `item_bytes` bytes each (at least) that must fit in the rest of the file.
  uint32_t count(const std::string& what, uint64_t item_bytes) {
    uint32_t n = u32("the number of " + what);
    if (uint64_t(n) * item_bytes > b_.size() - pos_)
      fail(fmt::format("the file is truncated or corrupt: it says it has {} {} ({} bytes at least) at byte {}, but only {} bytes follow",
                       n, what, uint64_t(n) * item_bytes, pos_, b_.size() - pos_));
    return n;
  }
  size_t pos() const { return pos_; }

 private:
  const std::vector<uint8_t>& b_;
  const std::string& path_;
  size_t pos_ = 0;
};

}  // namespace

std::vector<uint8_t> serialize_vdla(const VdlaProgram& p) {
  VdlaDerived d = derive(p.config);
  Writer w;
  w.out.insert(w.out.end(), std::begin(kMagic), std::end(kMagic));
  w.u32(kVdlaFileVersion);
  w.u32(0);  // flags, reserved
  const auto& keys = vdla_config_keys();
  w.u32(uint32_t(keys.size()));
  for (const VdlaConfigKey& k : keys) {
    w.str(k.name);
    w.u64(uint64_t(p.config.*k.member));
  }
  w.u32(uint32_t(p.insns.size()));
  for (const Insn& insn : p.insns) {
    InsnBits bits = encode_insn(insn, d);
    w.u64(bits.words[0]);
    w.u64(bits.words[1]);
  }
  w.u64(p.uop_dram_offset);
  w.u32(uint32_t(p.uops.size()));
  for (const Uop& u : p.uops) w.u32(encode_uop(u, d));
  w.u32(uint32_t(p.args.size()));
  for (const TensorArg& a : p.args) {
    w.str(a.name);
    w.str(a.type.str());
    w.u8(a.is_output ? 1 : 0);
    w.u32(uint32_t(a.shape.size()));
    for (int64_t e : a.shape) w.u64(uint64_t(e));
    w.u64(a.dram_offset);
  }
  w.u64(p.dram_bytes);
  TEXC_CHECK(p.comments.empty() || p.comments.size() == p.insns.size()) << "one comment per instruction, or none";
  w.u32(uint32_t(p.comments.size()));
  for (const std::string& c : p.comments) w.str(c);
  w.u64(fnv1a(w.out.data(), w.out.size()));
  return w.out;
}

VdlaProgram parse_vdla(const std::vector<uint8_t>& bytes, const std::string& path) {
  Reader r(bytes, path);
  if (bytes.size() < 8 || !std::equal(std::begin(kMagic), std::end(kMagic), bytes.begin()))
    r.fail("not a .vdla file (it does not start with the VDLA magic bytes 89 56 44 4C 41 0D 0A 1A)");
  r.need(8, "the magic");
  for (int i = 0; i < 8; ++i) r.u8("the magic");
  uint32_t version = r.u32("the version");
  if (version != kVdlaFileVersion)
    r.fail(fmt::format("version {} is not supported (this texc reads version {}); regenerate it with this texc", version, kVdlaFileVersion));
  r.u32("the flags");

  VdlaProgram p;
  uint32_t nkeys = r.count("configuration entries", 12);
  for (uint32_t i = 0; i < nkeys; ++i) {
    std::string name = r.str("configuration entry " + std::to_string(i));
    uint64_t value = r.u64("the value of configuration entry '" + name + "'");
    const VdlaConfigKey* key = nullptr;
    for (const VdlaConfigKey& k : vdla_config_keys())
      if (name == k.name) key = &k;
    if (!key) r.fail(fmt::format("unknown configuration entry '{}' (the file was written by another version, or is corrupt)", name));
    p.config.*key->member = int64_t(value);
  }
  VdlaDerived d;
  VdlaConfigProblem problem;
  if (!try_derive(p.config, d, problem))
    r.fail(fmt::format("its configuration is invalid: '{}': {}", problem.keys.empty() ? "?" : problem.keys[0], problem.why));

  uint32_t ninsns = r.count("instructions", 16);
  p.insns.resize(ninsns);
  for (uint32_t i = 0; i < ninsns; ++i) {
    InsnBits bits;
    bits.words[0] = r.u64("instruction " + std::to_string(i));
    bits.words[1] = r.u64("instruction " + std::to_string(i));
    std::string why;
    if (!decode_insn(bits, d, p.insns[i], why)) r.fail(fmt::format("instruction {} is invalid: {}", i, why));
  }
  p.uop_dram_offset = r.u64("the micro-op table's DRAM offset");
  uint32_t nuops = r.count("micro-ops", 4);
  p.uops.resize(nuops);
  for (uint32_t i = 0; i < nuops; ++i) p.uops[i] = decode_uop(r.u32("micro-op " + std::to_string(i)), d);

  uint32_t nargs = r.count("tensor arguments", 4 + 4 + 1 + 4 + 8);
  for (uint32_t i = 0; i < nargs; ++i) {
    TensorArg a;
    std::string what = "tensor argument " + std::to_string(i);
    a.name = r.str(what + "'s name");
    std::string type = r.str(what + "'s element type");
    auto t = Type::parse(type);
    if (!t) r.fail(fmt::format("tensor argument '{}' has the unknown element type '{}'", a.name, type));
    a.type = *t;
    uint8_t role = r.u8(what + "'s role");
    if (role > 1) r.fail(fmt::format("tensor argument '{}' has role {} (0 input, 1 output)", a.name, role));
    a.is_output = role == 1;
    uint32_t rank = r.count("dimensions of tensor argument '" + a.name + "'", 8);
    for (uint32_t k = 0; k < rank; ++k) {
      uint64_t e = r.u64(what + "'s shape");
      if (e > (uint64_t(1) << 40)) r.fail(fmt::format("tensor argument '{}' has the impossible extent {}", a.name, e));
      a.shape.push_back(int64_t(e));
    }
    a.dram_offset = r.u64(what + "'s DRAM offset");
    p.args.push_back(std::move(a));
  }
  p.dram_bytes = r.u64("the DRAM image size");
  uint32_t ncomments = r.count("comments", 4);
  if (ncomments != 0 && ncomments != ninsns)
    r.fail(fmt::format("it has {} comments for {} instructions (there must be one per instruction, or none)", ncomments, ninsns));
  for (uint32_t i = 0; i < ncomments; ++i) p.comments.push_back(r.str("the comment of instruction " + std::to_string(i)));
  size_t body_end = r.pos();
  uint64_t checksum = r.u64("the checksum");
  if (r.pos() != bytes.size())
    r.fail(fmt::format("{} unexpected bytes follow the end of the program at byte {}", bytes.size() - r.pos(), r.pos()));
  if (checksum != fnv1a(bytes.data(), body_end))
    r.fail("the file is corrupt: its checksum does not match its contents (it was changed or damaged after it was written)");

  if (auto why = check_program_limits(p, d)) r.fail(*why);
  for (const TensorArg& a : p.args)
    if (a.dram_offset > p.dram_bytes || a.bytes() > p.dram_bytes - a.dram_offset)
      r.fail(fmt::format("tensor argument '{}' ({} bytes at DRAM offset {}) lies outside the {}-byte DRAM image", a.name, a.bytes(),
                         a.dram_offset, p.dram_bytes));
  if (p.uop_dram_offset % 4 != 0 || p.uop_dram_offset > p.dram_bytes || 4 * uint64_t(nuops) > p.dram_bytes - p.uop_dram_offset)
    r.fail(fmt::format("the micro-op table ({} micro-ops at DRAM offset {}) lies outside the {}-byte DRAM image or is not 4-byte aligned",
                       nuops, p.uop_dram_offset, p.dram_bytes));
  return p;
}

bool write_vdla_file(const std::string& path, const VdlaProgram& program) {
  std::vector<uint8_t> bytes = serialize_vdla(program);
  std::ofstream out(path, std::ios::binary);
  if (!out) return false;
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  return bool(out.flush());
}

VdlaProgram read_vdla_file(const std::string& path) {
  std::string text = read_input_file(path, kVdlaProgramInput);
  return parse_vdla(std::vector<uint8_t>(text.begin(), text.end()), path);
}

}  // namespace texc::vdla
