#include "backends/interp/Npy.h"

#include <cctype>
#include <cstring>
#include <fstream>
#include <sstream>

#include "ir/InputFile.h"

namespace texc {

std::string npy_descr(Type t) {
  if (t.is_bool()) return "|b1";
  if (t.is_bfloat()) return "<V2";  // numpy has no bfloat16: raw 2-byte values, as numpy saves ml_dtypes' bfloat16
  char kind = t.is_float() ? 'f' : t.is_int() ? 'i' : 'u';
  int bytes = t.bytes();
  return std::string(bytes == 1 ? "|" : "<") + kind + std::to_string(bytes);
}

std::optional<Type> type_of_npy_descr(const std::string& descr) {
  std::string d = descr;
  if (!d.empty() && (d[0] == '<' || d[0] == '|' || d[0] == '=')) d = d.substr(1);
  if (d == "b1" || d == "?") return Bool();
  if (d == "V2") return BFloat16();
  if (d.size() < 2) return std::nullopt;
  int bytes = std::atoi(d.c_str() + 1);
  if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8) return std::nullopt;
  if (d.size() != 2) return std::nullopt;
  switch (d[0]) {
    case 'f':
      if (bytes == 1) return std::nullopt;
      return Float(bytes * 8);
    case 'i': return Int(bytes * 8);
    case 'u': return UInt(bytes * 8);
    default: return std::nullopt;
  }
}

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw NpyError("cannot read '" + path + "' as a .npy file: " + why);
}

// The value that follows 'key': in the header's Python dict literal, as raw text.
std::string dict_value(const std::string& header, const std::string& key, const std::string& path) {
  size_t k = header.find("'" + key + "'");
  if (k == std::string::npos) k = header.find("\"" + key + "\"");
  if (k == std::string::npos) fail(path, "the header has no '" + key + "'");
  size_t colon = header.find(':', k + key.size() + 2);
  if (colon == std::string::npos) fail(path, "malformed header");
  size_t start = colon + 1;
  while (start < header.size() && std::isspace(uint8_t(header[start]))) ++start;
  if (start >= header.size()) fail(path, "malformed header");
  size_t end;
  if (header[start] == '(') {
    end = header.find(')', start);
    if (end == std::string::npos) fail(path, "malformed shape");
    return header.substr(start, end - start + 1);
  }
  if (header[start] == '\'' || header[start] == '"') {
    end = header.find(header[start], start + 1);
    if (end == std::string::npos) fail(path, "malformed header");
    return header.substr(start + 1, end - start - 1);
  }
  end = start;
  while (end < header.size() && (std::isalnum(uint8_t(header[end])) || header[end] == '_')) ++end;
  return header.substr(start, end - start);
}

std::vector<int64_t> parse_shape(const std::string& text, const std::string& path) {
  std::vector<int64_t> shape;
  size_t i = 1;  // after '('
  while (i < text.size()) {
    while (i < text.size() && (std::isspace(uint8_t(text[i])) || text[i] == ',')) ++i;
    if (i >= text.size() || text[i] == ')') break;
    if (!std::isdigit(uint8_t(text[i]))) fail(path, "malformed shape " + text);
    int64_t v = 0;
    while (i < text.size() && std::isdigit(uint8_t(text[i]))) {
      v = v * 10 + (text[i] - '0');
      if (v > (int64_t(1) << 40)) fail(path, "extent too large in shape " + text);
      ++i;
    }
    while (i < text.size() && (text[i] == 'L')) ++i;  // Python 2 longs
    shape.push_back(v);
  }
  return shape;
}

}  // namespace

Tensor read_npy(const std::string& path) {
  // A regular file (a FIFO would block, a device never end: ir/InputFile.h), remembered as an input.
  check_input_file(path, kNpyInput);
  note_input_file(path, kNpyInput.what);
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "the file cannot be opened");
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0) fail(path, "it does not start with \\x93NUMPY");
  int major = uint8_t(magic[6]);
  size_t header_len = 0;
  if (major == 1) {
    unsigned char b[2];
    if (!in.read(reinterpret_cast<char*>(b), 2)) fail(path, "truncated header");
    header_len = b[0] | (size_t(b[1]) << 8);
  } else if (major == 2 || major == 3) {
    unsigned char b[4];
    if (!in.read(reinterpret_cast<char*>(b), 4)) fail(path, "truncated header");
    header_len = b[0] | (size_t(b[1]) << 8) | (size_t(b[2]) << 16) | (size_t(b[3]) << 24);
    if (header_len > (1u << 24)) fail(path, "header too large");
  } else {
    fail(path, "unsupported format version " + std::to_string(major));
  }
  std::string header(header_len, '\0');
  if (!in.read(header.data(), std::streamsize(header_len))) fail(path, "truncated header");

  std::string descr = dict_value(header, "descr", path);
  if (!descr.empty() && descr[0] == '>' && descr.substr(1) != "i1" && descr.substr(1) != "u1" &&
      descr.substr(1) != "b1")
    fail(path, "big-endian data ('" + descr + "') is not supported");
  std::optional<Type> dtype = type_of_npy_descr(descr[0] == '>' ? "|" + descr.substr(1) : descr);
  if (!dtype) fail(path, "unsupported dtype '" + descr + "'");
  if (dict_value(header, "fortran_order", path) != "False") fail(path, "Fortran-ordered arrays are not supported");
  std::vector<int64_t> shape = parse_shape(dict_value(header, "shape", path), path);

  Tensor t(*dtype, shape);
  if (!in.read(static_cast<char*>(t.data()), std::streamsize(t.num_bytes())))
    fail(path, "the data is shorter than " + t.describe() + " needs (" + std::to_string(t.num_bytes()) + " bytes)");
  return t;
}

void write_npy(const std::string& path, const Tensor& t) {
  std::ostringstream dict;
  dict << "{'descr': '" << npy_descr(t.dtype()) << "', 'fortran_order': False, 'shape': (";
  for (int i = 0; i < t.ndim(); ++i) dict << t.shape()[i] << (t.ndim() == 1 ? "," : i + 1 < t.ndim() ? ", " : "");
  dict << "), }";
  std::string header = dict.str();
  // Pad with spaces so that the data starts at a multiple of 64 bytes; end with a newline.
  bool v2 = header.size() + 1 + 10 > 65535;
  size_t prefix = v2 ? 12 : 10;
  size_t total = (prefix + header.size() + 1 + 63) / 64 * 64;
  header.append(total - prefix - header.size() - 1, ' ');
  header += '\n';

  if (std::optional<FileIdentity> id = file_identity(path))  // never over a file the run reads
    if (const InputFileRecord* input = find_input_file(*id))
      throw NpyError("cannot write '" + path + "': it is the same file as " + input->what + " '" + input->path +
                     "', which this run reads");
  std::ofstream out(path, std::ios::binary);
  if (!out) throw NpyError("cannot write '" + path + "'");
  out.write("\x93NUMPY", 6);
  char version[2] = {char(v2 ? 2 : 1), 0};
  out.write(version, 2);
  size_t len = header.size();
  if (v2) {
    char b[4] = {char(len & 0xff), char((len >> 8) & 0xff), char((len >> 16) & 0xff), char((len >> 24) & 0xff)};
    out.write(b, 4);
  } else {
    char b[2] = {char(len & 0xff), char((len >> 8) & 0xff)};
    out.write(b, 2);
  }
  out.write(header.data(), std::streamsize(header.size()));
  out.write(static_cast<const char*>(t.data()), std::streamsize(t.num_bytes()));
  if (!out) throw NpyError("cannot write '" + path + "'");
}

}  // namespace texc
