// The C API of runtime/texrt_vdla.h over the .vdla reader (ProgramFile.h) and the simulator
// (RunProgram.h). No exception leaves it: every failure is a return value and a message.
#include "runtime/texrt_vdla.h"

#include <atomic>
#include <exception>
#include <string>
#include <vector>

#include "backends/vdla/ProgramFile.h"
#include "backends/vdla/RunProgram.h"

struct texrt_vdla_program {
  texc::vdla::VdlaProgram program;
};

namespace {

thread_local std::string last_error;
thread_local uint64_t thread_cycles = 0;

const texc::vdla::TensorArg* arg_at(const texrt_vdla_program* p, int i) {
  if (!p || i < 0 || size_t(i) >= p->program.args.size()) return nullptr;
  return &p->program.args[size_t(i)];
}

}  // namespace

extern "C" {

texrt_vdla_program* texrt_vdla_load(const char* path) {
  last_error.clear();
  if (!path) {
    last_error = "texrt_vdla_load: the path is NULL";
    return nullptr;
  }
  try {
    return new texrt_vdla_program{texc::vdla::read_vdla_file(path)};
  } catch (const std::exception& e) {
    last_error = e.what();
    return nullptr;
  }
}

texrt_vdla_program* texrt_vdla_load_memory(const void* bytes, uint64_t size, const char* name) {
  last_error.clear();
  if (!bytes && size > 0) {
    last_error = "texrt_vdla_load_memory: the bytes are NULL";
    return nullptr;
  }
  try {
    const auto* begin = static_cast<const uint8_t*>(bytes);
    return new texrt_vdla_program{texc::vdla::parse_vdla(std::vector<uint8_t>(begin, begin + size), name ? name : "program")};
  } catch (const std::exception& e) {
    last_error = e.what();
    return nullptr;
  }
}

void texrt_vdla_free(texrt_vdla_program* program) { delete program; }

int texrt_vdla_num_args(const texrt_vdla_program* program) { return program ? int(program->program.args.size()) : 0; }

const char* texrt_vdla_arg_name(const texrt_vdla_program* program, int i) {
  const texc::vdla::TensorArg* a = arg_at(program, i);
  return a ? a->name.c_str() : nullptr;
}

uint64_t texrt_vdla_arg_bytes(const texrt_vdla_program* program, int i) {
  const texc::vdla::TensorArg* a = arg_at(program, i);
  return a ? a->bytes() : 0;
}

int texrt_vdla_arg_is_output(const texrt_vdla_program* program, int i) {
  const texc::vdla::TensorArg* a = arg_at(program, i);
  return a && a->is_output ? 1 : 0;
}

int texrt_vdla_run(const texrt_vdla_program* program, void* const* args, uint64_t* cycles) {
  last_error.clear();
  if (!program || !args) {
    last_error = "texrt_vdla_run: the program or the argument array is NULL";
    return -1;
  }
  std::vector<texc::vdla::HostTensor> tensors;
  for (size_t i = 0; i < program->program.args.size(); ++i) {
    if (!args[i]) {
      last_error = "texrt_vdla_run: argument " + std::to_string(i) + " ('" + program->program.args[i].name + "') is NULL";
      return -1;
    }
    tensors.push_back({args[i], size_t(program->program.args[i].bytes())});
  }
  try {
    texc::vdla::SimResult result = texc::vdla::run_with_arguments(program->program, tensors);
    if (cycles) *cycles = result.total_cycles;
    thread_cycles += result.total_cycles;
    if (!result.ok()) {
      last_error = result.error.message;
      return -1;
    }
    return 0;
  } catch (const std::exception& e) {
    last_error = e.what();
    return -1;
  }
}

int texrt_vdla_run_embedded(texrt_vdla_program** cache, const void* bytes, uint64_t size, const char* name,
                            void* const* args) {
  if (!cache) {
    last_error = "texrt_vdla_run_embedded: the cache is NULL";
    return -1;
  }
  // The first caller to load the program publishes it; one that loses the race frees its copy.
  std::atomic_ref<texrt_vdla_program*> slot(*cache);
  texrt_vdla_program* program = slot.load(std::memory_order_acquire);
  if (!program) {
    texrt_vdla_program* loaded = texrt_vdla_load_memory(bytes, size, name);
    if (!loaded) return -1;
    if (slot.compare_exchange_strong(program, loaded, std::memory_order_acq_rel)) program = loaded;
    else texrt_vdla_free(loaded);
  }
  return texrt_vdla_run(program, args, nullptr);
}

uint64_t texrt_vdla_thread_cycles(void) { return thread_cycles; }

const char* texrt_vdla_last_error(void) { return last_error.c_str(); }

}  // extern "C"
