// texrt_vdla: running a compiled VDLA program from C or C++. `texc f.tex --target vdla -o f` writes
// f.vdla (one op; with several ops f.OP.vdla); a program loads it once and runs it on host buffers
// as often as it likes. VDLA exists as texc's cycle-counting simulator (docs/vdla.md): a run
// copies the inputs into the accelerator's DRAM image, simulates the instruction stream, and copies
// the outputs back, bit for bit what the accelerator computes, with the cycles it takes.
//
// A graph of VDLA and host kernels compiled with -o (net.o, net.h) runs its VDLA kernels through
// texrt_vdla_run_embedded: link net.o with libtexrt.a and the libraries below.
//
// The functions are defined in libtexc_backends_vdla.a (backends/vdla/TexrtVdla.cpp, with the
// simulator); link with it, libtexc_ir.a, -lfmt -lstdc++ -lm (examples/c_api/build_and_run_vdla.sh).
// One program may be run from several threads at once (a run does not change it).
#pragma once
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct texrt_vdla_program texrt_vdla_program;

/// Loads and checks a .vdla file. NULL if it cannot be read or is not a valid program of this
/// version; texrt_vdla_last_error() says why.
texrt_vdla_program* texrt_vdla_load(const char* path);
void texrt_vdla_free(texrt_vdla_program* program);

/// The program's tensor arguments, in the order texrt_vdla_run takes them: the op's inputs in
/// parameter order, then its outputs (as the listing f.vdla.txt and `texc --emit header` of the
/// same op on a CPU target list them).
int texrt_vdla_num_args(const texrt_vdla_program* program);
const char* texrt_vdla_arg_name(const texrt_vdla_program* program, int i);
/// Bytes of argument i (elements times element size, row-major); 0 for an i out of range.
uint64_t texrt_vdla_arg_bytes(const texrt_vdla_program* program, int i);
/// 1 for an output, 0 for an input.
int texrt_vdla_arg_is_output(const texrt_vdla_program* program, int i);

/// Runs the program with args[i] pointing to argument i's host memory (texrt_vdla_arg_bytes(i)
/// bytes). Outputs are written only when the run succeeds. Returns 0, or -1 when the simulator
/// stops with an error (a deadlock, an access out of range...; texrt_vdla_last_error() says which).
/// With `cycles` not NULL, *cycles receives the simulated cycle count.
int texrt_vdla_run(const texrt_vdla_program* program, void* const* args, uint64_t* cycles);

/// Loads and checks a program from `size` bytes of memory (the contents of a .vdla file); `name`
/// names it in error messages. NULL if they are not a valid program; texrt_vdla_last_error() says why.
texrt_vdla_program* texrt_vdla_load_memory(const void* bytes, uint64_t size, const char* name);

/// What the host object of an op compiled as a graph of VDLA and host kernels calls for each VDLA
/// kernel (`texc net.tex --target vdla -o net` writes net.o with the kernels' programs embedded,
/// docs/graph.md): the program in `bytes` is loaded at the first call into *cache (once, also
/// when several threads make that call at once) and run with `args` as texrt_vdla_run runs it.
/// Returns 0, or -1 with texrt_vdla_last_error() saying why (the program named `name`).
int texrt_vdla_run_embedded(texrt_vdla_program** cache, const void* bytes, uint64_t size, const char* name,
                            void* const* args);

/// The simulated cycles of every program run on the calling thread (texrt_vdla_run and
/// texrt_vdla_run_embedded), summed since the thread started: the difference around a call of a
/// graph's entry is the cycles its VDLA kernels took.
uint64_t texrt_vdla_thread_cycles(void);

/// The calling thread's last error message ("" if none).
const char* texrt_vdla_last_error(void);

#ifdef __cplusplus
}
#endif
