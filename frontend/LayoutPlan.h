// Layout planning of an op of standard-library calls (TVM's AlterOpLayout, for ops written by hand).
//
// On CPUs nn.conv2d computes in the channel-blocked layout (conv2d_blocked: its NCHW input packed
// into 16-channel blocks, its result written back to NCHW, on every call). In a chain of
// convolutions every layer so unpacks what the next one packs again. plan_layouts rewrites the op
// as a user would write it by hand to keep the blocks from convolution to convolution
// (docs/graph.md "Layout planning"), the same rules the ONNX importer applies (docs/onnx.md
// "Layouts"):
//  - a conv2d call that conv2d_blocked computes (the op as elaborated for the target says so), with
//    output channels a multiple of 16 or more than 16 (padded, below) and input channels a multiple
//    of 16 (or fewer than 16: one block; any number when its input is blocked), whose result reaches another such convolution or a depthwise one (below) through the
//    op's own elementwise stages and max/global-average pools, or whose input is blocked already,
//    becomes
//      Y_wb = oihw_to_oihwio(W, in_block = B, out_block = 16)    (const W: once, in <op>_prepare)
//      Y_nchw16c = conv2d_nchwc(X_nchwBc, Y_wb, <the call's other arguments>)
//    So does such a call that conv2d_blocked does not compute (1x1, no padding: conv2d_1x1 on
//    NCHW) when its result reaches a convolution and the plan reads its input in blocks of 16
//    anyway (MobileNetV2's expansion, whose input the residual add reads in blocks);
//  - a depthwise_conv2d call with channel multiplier 1, dilation 1 (none given, or the literal 1)
//    and channels a multiple of 16 or more than 16 (padded), whose input is blocked, or whose result reaches a convolution
//    (through the stages, pools and depthwise convolutions) on a target that computes conv2d in
//    blocks (LayoutPlanContext::convolutions_in_blocks), becomes
//      Y_wb = depthwise_weights_nchwc(W, block = 16)           (const W: once, in <op>_prepare)
//      Y_nchw16c = depthwise_conv2d_nchwc(X_nchw16c, Y_wb, <the call's stride and pad>)
//  - max_pool2d and global_avg_pool2d of a blocked tensor become their _nchwc ops;
//  - a call of an elementwise standard-library op (nn.activation's relu, leaky_relu, ...: one
//    definition reading its one tensor at its own point) is an elementwise stage as below, its
//    definition written out with the call's attributes;
//  - an own stage that is elementwise on [N, C, H, W] (no reduction, f32, C a multiple of 16 or more
//    than 16) and reads a blocked tensor at its own point is computed on the blocks: its channel
//    index c becomes c_blk*16 + c_lane, and its reads of [N, C, H, W] tensors at its own point read
//    their blocked forms;
//  - a blocked tensor that anything else reads (or that is an output) gets its NCHW form once,
//    `T = nchwc_to_nchw(T_nchw16c)`, under its own name; a tensor read in blocks that is not blocked
//    (the op's input) gets them once, `T_nchwBc = nchw_to_nchwc(T, block = B)`, before its first reader.
// Channel counts that are no multiple of 16 but more than 16 (MobileNetV2's 24) are padded with
// zeros to the next multiple, as the ONNX importer pads them (docs/onnx.md "Layouts"): the blocked
// tensor's last block ends in padding lanes, which hold exactly 0.0. nchw_to_nchwc writes 0.0 there;
// oihw_to_oihwio and depthwise_weights_nchwc (the stdlib ops, unchanged) pad the weights with zero
// output and input channels, so a convolution's padding lanes are sums of products with zero weights
// (0.0 while its input is finite) and a real channel's sum takes zero weights times the input's
// padding lanes; an elementwise stage on padded blocks is `select(c_blk*16 + c_lane < C, <its
// value>, 0.0)` (its reads of [C]-shaped biases, scales and shifts guarded, its padding lanes 0.0
// whatever it computes: the importer instead selects the bias to 0.0 and relies on ReLU/Clip/add
// keeping zeros); pools of zeros are zeros. The NCHW form takes the real channels only,
// `nchwc_to_nchw(T_nchw16c, channels = C)`. Fewer than 16 channels are not padded (the next
// convolution would reduce over 16 lanes where NCHW packs a block of C): such tensors stay NCHW.
// Guarantees: the rewritten op computes the same outputs (same names, shapes and types) from the
// same inputs (where a padded convolution's input holds an infinity or NaN, its padding lanes may be
// NaN and reach the next convolution's channels: as in the importer's plan); it is null (nothing to plan) unless some convolution (depthwise or not) is planned,
// and always null for an op with schedule blocks or compute variants of its own (their names
// would no longer match), for an op where a name the plan needs is taken, or where the blocked
// ops are not the standard library's. The new statements carry the source locations of the statements they replace.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "frontend/Ast.h"
#include "ir/Op.h"

namespace texc {

struct LayoutPlanContext {
  /// The op `name` that the op's file sees when it is the standard library's op of that name, else null.
  std::function<const ast::OpDecl*(const std::string&)> stdlib_op;
  /// Whether the target computes convolutions in blocks (it takes `compute cpu` implementations:
  /// nn.conv2d is conv2d_blocked there): only then does a depthwise convolution start a chain.
  bool convolutions_in_blocks = false;
};

/// `decl` with its layouts planned, or null; `elaborated` is `decl` elaborated for the target.
std::unique_ptr<ast::OpDecl> plan_layouts(const ast::OpDecl& decl, const OpDef& elaborated,
                                          const LayoutPlanContext& context);

}  // namespace texc
