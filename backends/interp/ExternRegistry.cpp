#include "backends/interp/ExternRegistry.h"

#include <map>
#include <mutex>

namespace texc {

namespace {
// c[j] = sum(i32(a[k]) * i32(b[j, k]) for k in 0..16), j in 0..16: the `dot16` intrinsic of
// language.md, as its C implementation would be written.
int64_t my_dot16(const std::vector<ExternArg>& args) {
  const int8_t* a = static_cast<const int8_t*>(args.at(0).pointer);
  const int8_t* b = static_cast<const int8_t*>(args.at(1).pointer);
  int32_t* c = static_cast<int32_t*>(args.at(2).pointer);
  for (int j = 0; j < 16; ++j) {
    int32_t acc = 0;
    for (int k = 0; k < 16; ++k) acc += int32_t(a[k]) * int32_t(b[j * 16 + k]);
    c[j] = acc;
  }
  return 0;
}

struct Registry {
  std::mutex mutex;
  std::map<std::string, ExternFunction> functions{{"my_dot16", my_dot16}};
};

Registry& registry() {
  static Registry r;
  return r;
}
}  // namespace

void register_extern(const std::string& name, ExternFunction function) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.functions[name] = std::move(function);
}

const ExternFunction* find_extern(const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.functions.find(name);
  return it == r.functions.end() ? nullptr : &it->second;
}

}  // namespace texc
