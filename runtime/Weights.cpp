// The reader of texc weights containers (texrt_weights.h; the format is docs/onnx.md "The weights
// container"): the file is read whole into one 64-byte aligned block, its directory parsed and
// checked (each entry's dtype, dims, byte count and data inside the file), and each tensor's data
// handed out in place.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/texrt_weights.h"

namespace {

thread_local std::string last_error;

struct Entry {
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
  uint64_t offset = 0;
  uint64_t bytes = 0;
};

/// Bytes per element of a texc type name ("f32" 4, "bool" 1), or 0 for a name that is not one.
uint64_t element_bytes(const std::string& dtype) {
  if (dtype == "bool") return 1;
  static const char* const names[] = {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "f32", "f64"};
  for (const char* n : names)
    if (dtype == n) return uint64_t(std::atoi(n + 1) / 8);
  return 0;
}

std::string shape_text(const int64_t* dims, size_t rank) {
  std::string s = "[";
  for (size_t d = 0; d < rank; ++d) s += (d ? ", " : "") + std::to_string(dims[d]);
  return s + "]";
}

/// Reads little-endian integers from the directory, noting where the file ended too early.
struct Cursor {
  const unsigned char* data;
  uint64_t size;
  uint64_t at = 0;
  bool truncated = false;
  uint64_t u(int bytes) {
    if (truncated || size - at < uint64_t(bytes)) {
      truncated = true;
      return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= uint64_t(data[at + i]) << (8 * i);
    at += uint64_t(bytes);
    return v;
  }
  std::string text(uint64_t bytes) {
    if (truncated || size - at < bytes) {
      truncated = true;
      return "";
    }
    std::string s(reinterpret_cast<const char*>(data + at), size_t(bytes));
    at += bytes;
    return s;
  }
};

}  // namespace

struct texrt_weights {
  std::string file;       // its name in messages
  void* block = nullptr;  // the whole file, 64-byte aligned
  std::vector<Entry> entries;
  ~texrt_weights() { std::free(block); }
};

namespace {

texrt_weights* fail(texrt_weights* w, const std::string& message) {
  delete w;
  last_error = message;
  return nullptr;
}

}  // namespace

extern "C" texrt_weights* texrt_weights_parse(const void* bytes, uint64_t size, const char* what) {
  std::string file = what ? what : "weights";
  auto* w = new texrt_weights;
  w->file = file;
  if (size > (uint64_t(1) << 48)) return fail(w, file + ": is too large (" + std::to_string(size) + " bytes)");
  uint64_t rounded = (size + TEXRT_WEIGHTS_ALIGNMENT - 1) / TEXRT_WEIGHTS_ALIGNMENT * TEXRT_WEIGHTS_ALIGNMENT;
  w->block = std::aligned_alloc(TEXRT_WEIGHTS_ALIGNMENT, size_t(rounded ? rounded : TEXRT_WEIGHTS_ALIGNMENT));
  if (!w->block) return fail(w, file + ": cannot allocate " + std::to_string(size) + " bytes");
  if (size) std::memcpy(w->block, bytes, size_t(size));
  Cursor c{static_cast<const unsigned char*>(w->block), size};
  if (size < 8 || std::memcmp(w->block, TEXRT_WEIGHTS_MAGIC, 8) != 0)
    return fail(w, file + ": not a texc weights container (it does not start with '" TEXRT_WEIGHTS_MAGIC "')");
  c.at = 8;
  uint64_t version = c.u(4);
  uint64_t count = c.u(4);
  if (c.truncated) return fail(w, file + ": is truncated: the header ends at byte " + std::to_string(size));
  if (version != TEXRT_WEIGHTS_VERSION)
    return fail(w, file + ": weights container version " + std::to_string(version) + ", this reader knows version " +
                       std::to_string(TEXRT_WEIGHTS_VERSION));
  for (uint64_t i = 0; i < count; ++i) {
    Entry e;
    uint64_t name_bytes = c.u(4);
    e.name = c.text(name_bytes);
    std::string dtype = c.text(8);
    e.dtype = dtype.substr(0, dtype.find('\0'));
    uint64_t rank = c.u(4);
    if (!c.truncated && rank > 64)
      return fail(w, file + ": tensor '" + e.name + "' has rank " + std::to_string(rank) + " (at most 64)");
    for (uint64_t d = 0; d < rank && !c.truncated; ++d) e.shape.push_back(int64_t(c.u(8)));
    e.offset = c.u(8);
    e.bytes = c.u(8);
    if (c.truncated)
      return fail(w, file + ": is truncated: its directory lists " + std::to_string(count) + " tensors but the file ends (" +
                         std::to_string(size) + " bytes) in entry " + std::to_string(i));
    uint64_t element = element_bytes(e.dtype);
    if (e.name.empty()) return fail(w, file + ": entry " + std::to_string(i) + " has no name");
    if (!element) return fail(w, file + ": tensor '" + e.name + "' has unknown element type '" + e.dtype + "'");
    uint64_t elements = 1;
    for (int64_t d : e.shape) {
      if (d < 0 || (d && elements > (UINT64_MAX / uint64_t(d)) / element))
        return fail(w, file + ": tensor '" + e.name + "' has a bad shape " + shape_text(e.shape.data(), e.shape.size()));
      elements *= uint64_t(d);
    }
    if (e.bytes != elements * element)
      return fail(w, file + ": tensor '" + e.name + "' (" + e.dtype + shape_text(e.shape.data(), e.shape.size()) +
                         ") says it has " + std::to_string(e.bytes) + " bytes, not " + std::to_string(elements * element));
    if (e.offset % TEXRT_WEIGHTS_ALIGNMENT)
      return fail(w, file + ": tensor '" + e.name + "' starts at byte " + std::to_string(e.offset) +
                         ", not a multiple of " + std::to_string(TEXRT_WEIGHTS_ALIGNMENT));
    for (const Entry& other : w->entries)
      if (other.name == e.name) return fail(w, file + ": tensor '" + e.name + "' is listed twice");
    w->entries.push_back(std::move(e));
  }
  for (const Entry& e : w->entries) {
    if (e.offset < c.at)
      return fail(w, file + ": tensor '" + e.name + "' starts at byte " + std::to_string(e.offset) +
                         ", inside the directory (which ends at byte " + std::to_string(c.at) + ")");
    if (e.offset > size || size - e.offset < e.bytes)
      return fail(w, file + ": is truncated: tensor '" + e.name + "' needs bytes " + std::to_string(e.offset) + " to " +
                         std::to_string(e.offset + e.bytes) + " but the file has " + std::to_string(size));
  }
  return w;
}

extern "C" texrt_weights* texrt_weights_load(const char* path) {
  std::string file = path ? path : "";
  std::FILE* f = std::fopen(file.c_str(), "rb");
  if (!f) {
    last_error = file + ": cannot open: " + std::strerror(errno);
    return nullptr;
  }
  std::string bytes;
  char buffer[1 << 16];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) bytes.append(buffer, n);
  bool failed = std::ferror(f);
  std::fclose(f);
  if (failed) {
    last_error = file + ": cannot read";
    return nullptr;
  }
  return texrt_weights_parse(bytes.data(), bytes.size(), file.c_str());
}

extern "C" void texrt_weights_free(texrt_weights* w) { delete w; }

extern "C" const void* texrt_weights_get(const texrt_weights* w, const char* name, const char* dtype, int rank,
                                         const int64_t* shape) {
  if (!w || !name) {
    last_error = "texrt_weights_get: no container or no name";
    return nullptr;
  }
  for (const Entry& e : w->entries) {
    if (e.name != name) continue;
    bool same = e.dtype == (dtype ? dtype : "") && rank >= 0 && e.shape.size() == size_t(rank);
    for (int d = 0; same && d < rank; ++d) same = e.shape[size_t(d)] == shape[d];
    if (!same) {
      last_error = w->file + ": tensor '" + e.name + "' is " + e.dtype + shape_text(e.shape.data(), e.shape.size()) +
                   ", not the expected " + (dtype ? dtype : "?") + shape_text(shape, rank > 0 ? size_t(rank) : 0);
      return nullptr;
    }
    return static_cast<const char*>(w->block) + e.offset;
  }
  last_error = w->file + ": has no tensor '" + name + "'";
  return nullptr;
}

extern "C" int texrt_weights_count(const texrt_weights* w) { return w ? int(w->entries.size()) : 0; }

extern "C" int texrt_weights_entry(const texrt_weights* w, int i, const char** name, const char** dtype, int* rank,
                                   const int64_t** shape, const void** data) {
  if (!w || i < 0 || size_t(i) >= w->entries.size()) return -1;
  const Entry& e = w->entries[size_t(i)];
  if (name) *name = e.name.c_str();
  if (dtype) *dtype = e.dtype.c_str();
  if (rank) *rank = int(e.shape.size());
  if (shape) *shape = e.shape.data();
  if (data) *data = static_cast<const char*>(w->block) + e.offset;
  return 0;
}

extern "C" const char* texrt_weights_last_error(void) { return last_error.c_str(); }
