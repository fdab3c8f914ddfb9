// Unit tests of backends/interp/Npy.h: a round trip for every element type, a file written byte by
// byte as NumPy writes it, and the errors for files texc cannot use.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "backends/interp/Npy.h"

using namespace texc;

namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("texc_npy_test_" + std::to_string(::getpid()) + "_" + name)).string();
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

std::string npy_v1(const std::string& dict, const std::string& data) {
  std::string header = dict;
  while ((10 + header.size() + 1) % 64) header += ' ';
  header += '\n';
  std::string s = "\x93NUMPY";
  s += char(1);
  s += char(0);
  s += char(header.size() & 0xff);
  s += char(header.size() >> 8);
  return s + header + data;
}

std::string read_error(const std::string& path) {
  try {
    read_npy(path);
  } catch (const NpyError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("round trip of every element type, 0-d to 3-d") {
  const Type types[] = {Float(32), Float(64), Float(16), BFloat16(), Int(8), Int(16), Int(32), Int(64),
                        UInt(8),   UInt(16),  UInt(32),  UInt(64), Bool()};
  const std::vector<int64_t> shapes[] = {{}, {5}, {2, 3}, {2, 1, 4}, {0, 3}};
  int n = 0;
  for (Type t : types) {
    for (const auto& shape : shapes) {
      CAPTURE(t.str());
      Tensor x(t, shape);
      x.fill_random(uint64_t(++n));
      std::string path = temp_path("rt.npy");
      write_npy(path, x);
      std::string bytes = read_bytes(path);
      size_t header_len = uint8_t(bytes[8]) | (size_t(uint8_t(bytes[9])) << 8);
      CHECK((10 + header_len) % 64 == 0);  // the data is aligned as NumPy aligns it
      CHECK(bytes.size() == 10 + header_len + x.num_bytes());
      Tensor y = read_npy(path);
      CHECK(y.describe() == x.describe());
      CHECK(std::string(static_cast<const char*>(y.data()), y.num_bytes()) ==
            std::string(static_cast<const char*>(x.data()), x.num_bytes()));
      std::remove(path.c_str());
    }
  }
}

TEST_CASE("the header texc writes is NumPy's") {
  Tensor x(Int(32), {2, 3});
  std::string path = temp_path("hdr.npy");
  write_npy(path, x);
  std::string bytes = read_bytes(path);
  CHECK(bytes.substr(0, 8) == std::string("\x93NUMPY\x01\x00", 8));
  CHECK(bytes.substr(10, 60).find("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }") == 0);
  Tensor v(Bool(), {4});
  write_npy(path, v);
  CHECK(read_bytes(path).find("{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }") == 10);
  std::remove(path.c_str());
}

TEST_CASE("reading files written by other tools") {
  std::string path = temp_path("other.npy");
  // int16 2x2 [[1, -2], [300, -32768]], with the spacing and key order NumPy 2 uses.
  std::string data = std::string("\x01\x00\xfe\xff\x2c\x01\x00\x80", 8);
  write_bytes(path, npy_v1("{'descr': '<i2', 'fortran_order': False, 'shape': (2, 2), }", data));
  Tensor t = read_npy(path);
  CHECK(t.describe() == "i16[2, 2]");
  CHECK(t.get_int(0) == 1);
  CHECK(t.get_int(1) == -2);
  CHECK(t.get_int(2) == 300);
  CHECK(t.get_int(3) == -32768);
  // Version 2.0 header, f2 data: 1.0 and -2.5 in half precision.
  std::string header = "{'shape': (2,), 'fortran_order': False, 'descr': '<f2'}";
  while ((12 + header.size() + 1) % 64) header += ' ';
  header += '\n';
  std::string v2 = std::string("\x93NUMPY\x02\x00", 8);
  v2 += char(header.size() & 0xff);
  v2 += char(header.size() >> 8);
  v2 += std::string(2, '\0');
  v2 += header + std::string("\x00\x3c\x00\xc1", 4);
  write_bytes(path, v2);
  Tensor h = read_npy(path);
  CHECK(h.describe() == "f16[2]");
  CHECK(h.get_double(0) == 1.0);
  CHECK(h.get_double(1) == -2.5);
  std::remove(path.c_str());
}

TEST_CASE("files texc cannot use are errors with the reason") {
  std::string path = temp_path("bad.npy");
  CHECK(read_error(path) == "cannot read '" + path + "' as a .npy file: the file cannot be opened");
  write_bytes(path, "not a numpy file at all");
  CHECK(read_error(path).find("it does not start with") != std::string::npos);
  write_bytes(path, npy_v1("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", "abcd"));
  CHECK(read_error(path).find("big-endian") != std::string::npos);
  write_bytes(path, npy_v1("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }", "abcd"));
  CHECK(read_error(path).find("Fortran") != std::string::npos);
  write_bytes(path, npy_v1("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", "abcdabcd"));
  CHECK(read_error(path).find("unsupported dtype '<c8'") != std::string::npos);
  write_bytes(path, npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", "abcd"));
  CHECK(read_error(path).find("the data is shorter than f32[3] needs (12 bytes)") != std::string::npos);
  std::remove(path.c_str());
}
