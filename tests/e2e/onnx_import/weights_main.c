/* The C API's path for an imported model (docs/onnx.md "From C"): `texc small_cnn.onnx --target x86
 * -o cnn` wrote cnn.o, cnn.h and cnn.weights; this program loads cnn.weights with texrt_weights,
 * checks each const input's dtype and shape against the header's macros, calls small_cnn_prepare
 * once and small_cnn on the input read from X.bin (raw f32), and writes the output to Y.bin.
 * usage: weights_main WEIGHTS X.bin Y.bin; exit 1 with texrt_weights_last_error() on a bad file. */
#include <stdio.h>
#include <stdlib.h>

#include "cnn.h"
#include "runtime/texrt_weights.h"

#define GET(w, NAME, MACRO)                                                                           \
  ((const float*)get_weight(w, NAME, MACRO##_RANK, (const int64_t[])MACRO##_SHAPE))

static const void* get_weight(const texrt_weights* w, const char* name, int rank, const int64_t* shape) {
  const void* p = texrt_weights_get(w, name, "f32", rank, shape);
  if (!p) {
    fprintf(stderr, "weights_main: %s\n", texrt_weights_last_error());
    exit(1);
  }
  return p;
}

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  texrt_weights* w = texrt_weights_load(argv[1]);
  if (!w) {
    fprintf(stderr, "weights_main: %s\n", texrt_weights_last_error());
    return 1;
  }
  static float x[SMALL_CNN_X_SIZE], y[SMALL_CNN_Y_SIZE];
  /* conv1's batch norm is folded into its weights and bias, and both convolutions compute in the
   * blocked layout (docs/onnx.md "Layouts"): the prepare function computes the bias and both blocked weights */
  static float bias[SMALL_CNN_PREPARE_C1_BN_BIAS_SIZE], wb[SMALL_CNN_PREPARE_CONV1_WEIGHT_BN_BLOCKED_SIZE],
      dwb[SMALL_CNN_PREPARE_DW_WEIGHT_BLOCKED_SIZE];
  FILE* f = fopen(argv[2], "rb");
  if (!f || fread(x, sizeof x, 1, f) != 1) return 2;
  fclose(f);
  small_cnn_prepare(GET(w, "conv1_weight", SMALL_CNN_PREPARE_CONV1_WEIGHT), GET(w, "conv1_bias", SMALL_CNN_PREPARE_CONV1_BIAS),
                    GET(w, "bn_scale", SMALL_CNN_PREPARE_BN_SCALE), GET(w, "bn_bias", SMALL_CNN_PREPARE_BN_BIAS),
                    GET(w, "bn_mean", SMALL_CNN_PREPARE_BN_MEAN), GET(w, "bn_var", SMALL_CNN_PREPARE_BN_VAR),
                    GET(w, "dw_weight", SMALL_CNN_PREPARE_DW_WEIGHT), bias, wb, dwb);
  small_cnn(x, GET(w, "dw_bias", SMALL_CNN_DW_BIAS), GET(w, "fc_weight", SMALL_CNN_FC_WEIGHT),
            GET(w, "fc_bias", SMALL_CNN_FC_BIAS), bias, wb, dwb, y);
  texrt_weights_free(w);
  f = fopen(argv[3], "wb");
  if (!f || fwrite(y, sizeof y, 1, f) != 1) return 2;
  fclose(f);
  puts("weights_main: ok");
  return 0;
}
