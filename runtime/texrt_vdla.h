// texrt_vdla: running a compiled VDLA program from C or C++. `texc f.tex --target vdla -o f` writes
// f.vdla (one op; with several ops f.OP.vdla); a program loads it once and runs it on host buffers
// as often as it likes. VDLA exists as texc's cycle-counting simulator (docs/vdla.md): a run
// copies the inputs into the accelerator's DRAM image, simulates the instruction stream, and copies
// the outputs back, bit for bit what the accelerator computes, with the cycles it takes.
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

/// The calling thread's last error message ("" if none).
const char* texrt_vdla_last_error(void);

#ifdef __cplusplus
}
#endif
