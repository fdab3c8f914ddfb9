// texrt_weights: reading a texc weights container (`model.weights`, written by `texc import`;
// format in docs/onnx.md "The weights container"). C ABI, part of libtexrt.a.
//
//   texrt_weights_load   reads the whole file into one 64-byte aligned block and checks it (magic,
//                        version, every entry's dtype, shape and data within the file): NULL on any
//                        problem, texrt_weights_last_error() says which ("... is truncated: ...").
//   texrt_weights_get    the data of the tensor NAME, checked against the dtype ("f32", "i64", ...:
//                        texc's type names) and shape the caller expects (the shape macros of the
//                        op's header: OP_ARG_RANK, OP_ARG_SHAPE). NULL when it is missing or has
//                        another dtype or shape, the error saying so. The data is row-major, aligned
//                        to 64 bytes, valid until texrt_weights_free.
//   texrt_weights_count / texrt_weights_entry  list the entries (name, dtype, rank, shape, data).
//
// A C program passes the tensors to `<op>_prepare` (or to `<op>` for const inputs it reads directly):
//
//   texrt_weights* w = texrt_weights_load("model.weights");
//   static const int64_t shape[] = MODEL_CONV1_WEIGHT_SHAPE;
//   const float* conv1_weight = texrt_weights_get(w, "conv1_weight", "f32", MODEL_CONV1_WEIGHT_RANK, shape);
#pragma once
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The first 8 bytes of every weights container, then a little-endian uint32 version.
#define TEXRT_WEIGHTS_MAGIC "TEXCWGTS"
#define TEXRT_WEIGHTS_VERSION 1
/// Every tensor's data starts at a multiple of this many bytes from the start of the file.
#define TEXRT_WEIGHTS_ALIGNMENT 64

typedef struct texrt_weights texrt_weights;

/// Reads and checks the container at `path`; NULL on failure (texrt_weights_last_error()).
texrt_weights* texrt_weights_load(const char* path);
/// The same from `size` bytes in memory (copied); `what` names it in messages.
texrt_weights* texrt_weights_parse(const void* bytes, uint64_t size, const char* what);
void texrt_weights_free(texrt_weights* w);

/// The data of tensor `name` if it has element type `dtype` and shape shape[0..rank); else NULL
/// and texrt_weights_last_error() says what differs (or that there is no such tensor).
const void* texrt_weights_get(const texrt_weights* w, const char* name, const char* dtype, int rank,
                              const int64_t* shape);

int texrt_weights_count(const texrt_weights* w);
/// Entry i (0 <= i < count): its name, dtype name, rank, dims and data. Returns 0, or -1 when i is
/// out of range. Any out-pointer may be NULL.
int texrt_weights_entry(const texrt_weights* w, int i, const char** name, const char** dtype, int* rank,
                        const int64_t** shape, const void** data);

/// Why the last failed call of this thread failed ("" when none has).
const char* texrt_weights_last_error(void);

#ifdef __cplusplus
}  // extern "C"
#endif
