// Shape functions shared by many ops, with TensorFlow's names, behaviour and
// error texts (tensorflow/core/framework/common_shape_fns.h). An op picks one
// when it is declared:
//
//   REGISTER_OP("MatMul")
//       .Input("a: T").Input("b: T").Output("product: T")
//       .Attr("transpose_a: bool = false").Attr("transpose_b: bool = false")
//       .Attr("T: {float, double}")
//       .SetShapeFn(shape_inference::MatMulShape);
//
//   .SetShapeFn([](shape_inference::InferenceContext* c) {
//     return shape_inference::UnchangedShapeWithRankAtLeast(c, 1);
//   });
//
// Every function reasons with partial knowledge: an unknown rank or dimension
// stays unknown unless the inputs pin it down. Nothing an attr, an input shape
// or a constant input tensor holds can make one of them abort: bad strides,
// paddings, formats, axes, huge dimensions and overflowing arithmetic are all
// reported as InvalidArgument.
#ifndef OPKIT_SHAPE_COMMON_SHAPE_FNS_H_
#define OPKIT_SHAPE_COMMON_SHAPE_FNS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "opkit/core/export.h"
#include "opkit/core/status.h"
#include "opkit/shape/shape_inference.h"
#include "opkit/tensor/tensor_format.h"

namespace opkit {
namespace shape_inference {

// How a windowed op (convolution, pooling) pads its input. EXPLICIT takes the
// amounts from an `explicit_paddings` attr.
enum class Padding { VALID = 1, SAME = 2, EXPLICIT = 3 };

// Parses "VALID", "SAME" or "EXPLICIT"; InvalidArgument otherwise.
OPKIT_EXPORT Status GetPaddingFromString(const std::string& str,
                                         Padding* padding);

// TensorFlow's CheckValidPadding for a 4-D op in `format`: explicit_paddings
// must hold 8 nonnegative values with zeros for N and C when `padding` is
// EXPLICIT, and be empty otherwise. Shape functions and kernels both check
// with it.
OPKIT_EXPORT Status CheckValidPadding(Padding padding,
                                      const std::vector<int64_t>& explicit_paddings,
                                      TensorFormat format);

// The output size of one windowed dimension: for VALID/EXPLICIT
// ceil((input + pad_before + pad_after - ((filter - 1) * dilation + 1) + 1) /
// stride), for SAME ceil(input / stride). `padding_before`/`after` are read
// only for EXPLICIT. Unknown when an input it needs is unknown.
// InvalidArgument for stride < 1 ("Stride must be > 0, but got 0"), dilation
// < 1, a window larger than the padded input ("Negative dimension size caused
// by subtracting 5 from 3"), a negative window or padding, or an
// overflowing size.
OPKIT_EXPORT Status GetWindowedOutputSizeFromDimsV2(
    InferenceContext* c, DimensionHandle input_size,
    DimensionOrConstant filter_size, int64_t dilation_rate, int64_t stride,
    Padding padding_type, int64_t padding_before, int64_t padding_after,
    DimensionHandle* output_size);

// GetWindowedOutputSizeFromDimsV2 with dilation 1 and SAME or VALID padding
// (Internal error for EXPLICIT, as in TensorFlow).
OPKIT_EXPORT Status GetWindowedOutputSizeFromDims(
    InferenceContext* c, DimensionHandle input_size,
    DimensionOrConstant filter_size, int64_t stride, Padding padding_type,
    DimensionHandle* output_size);

// Output 0 is input 0 (the same handle).
OPKIT_EXPORT Status UnchangedShape(InferenceContext* c);

// Every output has an unknown shape.
OPKIT_EXPORT Status UnknownShape(InferenceContext* c);

// Output 0 is a scalar.
OPKIT_EXPORT Status ScalarShape(InferenceContext* c);

// The op has no outputs; nothing to check.
OPKIT_EXPORT Status NoOutputs(InferenceContext* c);

// Output 0 is input 0 after checking it has exactly / at least / at most
// `rank` dimensions ("Shape must be rank 2 but is rank 3").
OPKIT_EXPORT Status UnchangedShapeWithRank(InferenceContext* c, int32_t rank);
OPKIT_EXPORT Status UnchangedShapeWithRankAtLeast(InferenceContext* c,
                                                  int32_t rank);
OPKIT_EXPORT Status UnchangedShapeWithRankAtMost(InferenceContext* c,
                                                 int32_t rank);

// Output 0 is the merge of inputs 0 and 1 ("Dimension 0 in both shapes must
// be equal, but are 2 and 3. Shapes are [2] and [3].").
OPKIT_EXPORT Status MergeBothInputsShapeFn(InferenceContext* c);

// A dataset iterator's GetNext: input 0 is a scalar handle; output i has the
// shape in list(shape) attr output_shapes[i] ("`output_shapes` must be the
// same length as `output_types` (1 vs. 2" when the counts differ).
OPKIT_EXPORT Status DatasetIteratorShape(InferenceContext* c);

// *out = a shape of `format` with batch N, the spatial dimensions in order
// and channels C (N, spatial..., C for NHWC; N, C, spatial... for NCHW), of
// any number of spatial dimensions. TensorFlow's argument order.
OPKIT_EXPORT Status MakeShapeFromFormat(
    TensorFormat format, DimensionOrConstant N,
    const std::vector<DimensionOrConstant>& spatial, DimensionOrConstant C,
    ShapeHandle* out, InferenceContext* context);

// [m,k] x [k,n] -> [m,n], honouring bool attrs transpose_a / transpose_b.
// Inputs must be matrices and the inner dimensions must merge.
OPKIT_EXPORT Status MatMulShape(InferenceContext* c);

// [..., m, k] x [..., k, n] -> [broadcast(...), m, n], honouring bool attrs
// adj_x / adj_y; the batch dimensions broadcast like BroadcastBinaryOpShapeFn.
OPKIT_EXPORT Status BatchMatMulV2Shape(InferenceContext* c);

// BatchMatMul (without broadcasting): [..., m, k] x [..., k, n] -> [..., m, n]
// where both inputs have rank >= 2 and the same batch dimensions (they
// merge), honouring bool attrs adj_x / adj_y.
OPKIT_EXPORT Status BatchMatMulShape(InferenceContext* c);

// value + bias: output is input 0 with its channel dimension (the last one, or
// dimension 1 when the optional data_format attr is "NCHW") merged with the
// length of the rank-1 bias.
OPKIT_EXPORT Status BiasAddShape(InferenceContext* c);

// The gradient of BiasAdd: a vector as long as the channel dimension.
OPKIT_EXPORT Status BiasAddGradShape(InferenceContext* c);

// Numpy broadcasting of `shape_x` and `shape_y` into *out. Unknown rank on
// either side gives an unknown shape; an unknown dimension against 1 gives the
// other dimension, against a known d > 1 gives d (the program is assumed
// correct), against another unknown gives unknown (or the same handle when
// both are the same handle). Known dimensions that differ and are not 1:
// InvalidArgument when `incompatible_shape_error`, otherwise *out is a scalar
// (unknown shape when an unknown dimension was involved).
OPKIT_EXPORT Status BroadcastBinaryOpOutputShapeFnHelper(
    InferenceContext* c, ShapeHandle shape_x, ShapeHandle shape_y,
    bool incompatible_shape_error, ShapeHandle* out);

// Output `output_index` is the broadcast of inputs 0 and 1.
OPKIT_EXPORT Status BroadcastBinaryOpOutputShapeFn(InferenceContext* c,
                                                   int output_index);
// BroadcastBinaryOpOutputShapeFn(c, 0).
OPKIT_EXPORT Status BroadcastBinaryOpShapeFn(InferenceContext* c);

// The elements of a constant int32 or int64 tensor (an index, size or axis
// input that InferenceContext::input_tensor returned) as int64; any other
// dtype is an InvalidArgument naming `what`.
OPKIT_EXPORT Status ReadIntTensor(const Tensor& t, const char* what,
                                  std::vector<int64_t>* out);

// Sum/Mean/...: input 0 reduced along the axes in input 1 (a scalar or vector
// of int32/int64 whose value must be known as a constant to say more than
// the rank), keeping size-1 dimensions when the bool attr keep_dims is set.
// Negative axes count from the end; an axis outside [-rank, rank) is
// InvalidArgument ("Invalid reduction dimension 3 for input with 2
// dimensions.").
OPKIT_EXPORT Status ReductionShape(InferenceContext* c);

// UnsortedSegmentSum and friends (data, segment_ids, num_segments):
// segment_ids' shape must be a prefix of data's; the output is
// [num_segments] + data's remaining dimensions (num_segments from the
// constant scalar input 2, >= 0).
OPKIT_EXPORT Status SegmentReductionWithNumSegmentsShapeFn(InferenceContext* c);

// Concat: input 0 is the scalar axis, then `num_inputs_to_concat` values.
OPKIT_EXPORT Status ConcatShape(InferenceContext* c, int num_inputs_to_concat);
// ConcatV2: the values, then the scalar axis as the last input. The values
// must agree in every dimension but the axis, whose sizes add up.
OPKIT_EXPORT Status ConcatV2Shape(InferenceContext* c);

// 2-D convolution: input [N,H,W,C] (or [N,C,H,W] with data_format "NCHW"),
// filter [H,W,I,O] (filter_format "HWIO", the default; "OIHW" also read),
// list(int) attrs strides and dilations of 4 values in data_format order,
// string attr padding. Conv2DShape rejects EXPLICIT padding;
// Conv2DShapeWithExplicitPadding takes it with a list(int) attr
// explicit_paddings of 8 values (pairs per dimension, zero for N and C).
OPKIT_EXPORT Status Conv2DShape(InferenceContext* c);
OPKIT_EXPORT Status Conv2DShapeWithExplicitPadding(InferenceContext* c);

// 3-D convolution: input [N,D,H,W,C] (or [N,C,D,H,W] with data_format
// "NCDHW"), filter [D,H,W,I,O], list(int) attrs strides and dilations of 5
// values in data_format order, padding SAME or VALID. The input depth must
// be a multiple of the filter's ("Depth of input (10) is not a multiple of
// input depth of filter (3)").
OPKIT_EXPORT Status Conv3DShape(InferenceContext* c);

// Depthwise 2-D convolution: input [N,H,W,C] (or NCHW), filter [H,W,C,M];
// the output has C*M channels. strides (4 values), optional dilations
// (default 1s), padding; the ...WithExplicitPadding form also takes padding
// EXPLICIT with explicit_paddings as Conv2DShapeWithExplicitPadding.
OPKIT_EXPORT Status DepthwiseConv2DNativeShape(InferenceContext* c);
OPKIT_EXPORT Status DepthwiseConv2DNativeShapeWithExplicitPadding(
    InferenceContext* c);

// Conv2DBackpropInput(input_sizes, filter, out_backprop): the output shape is
// the constant input_sizes, 4 values (N,H,W,C in data_format order) or 2
// (H,W, with N from out_backprop and C from the filter). out_backprop's
// channels must merge with the filter's output channels.
OPKIT_EXPORT Status Conv2DBackpropInputShape(InferenceContext* c);

// 2-D pooling with list(int) attrs ksize and strides (4 values each in
// data_format order), padding SAME or VALID, optional data_format NHWC/NCHW.
// MaxPool may also pool across channels (ksize/strides in the C position).
// Unlike TensorFlow's shape functions these also reject a ksize value < 1
// (TensorFlow leaves that to the kernel).
OPKIT_EXPORT Status MaxPoolShape(InferenceContext* c);
OPKIT_EXPORT Status AvgPoolShape(InferenceContext* c);

// MaxPoolShape that also takes padding EXPLICIT, with a list(int) attr
// explicit_paddings of 8 values (pairs per dimension in data_format order,
// zero for N and C): "explicit_paddings attribute must contain 8 values, but
// got: 2". Empty explicit_paddings are required for SAME/VALID. data_format
// NCHW_VECT_C is rejected ("Invalid data format string").
OPKIT_EXPORT Status MaxPoolShapeWithExplicitPadding(InferenceContext* c);

// MaxPoolV2: MaxPoolShape with ksize and strides read from the last two
// inputs (constant int32 vectors of 4 values) when the op has
// `num_inputs` inputs, from attrs when it has two fewer. An unknown ksize or
// strides value gives an unknown shape.
OPKIT_EXPORT Status MaxPoolV2Shape(InferenceContext* c, int num_inputs);

// 3-D pooling: input of rank 5 (data_format NDHWC or NCDHW), list(int)
// attrs ksize and strides of 5 values, padding SAME or VALID.
OPKIT_EXPORT Status Pool3DShape(InferenceContext* c);

// Gradients of pooling: MaxPoolGrad's output is input 0 (rank 4),
// MaxPool3DGrad's input 0 (rank 5); AvgPoolGrad's and AvgPool3DGrad's come
// from the constant shape in input 0 (4 or 5 values).
OPKIT_EXPORT Status MaxPoolGradShape(InferenceContext* c);
OPKIT_EXPORT Status MaxPool3DGradShape(InferenceContext* c);
OPKIT_EXPORT Status AvgPoolGradShape(InferenceContext* c);
OPKIT_EXPORT Status AvgPool3DGradShape(InferenceContext* c);

// FusedBatchNorm (and V2): x of rank 4 (5 for data_format "NDHWC"/"NCDHW"),
// then the rank-1 scale and offset, and the rank-1 mean and variance too
// unless training with plain batch statistics (bool attr is_training true
// and float attr exponential_avg_factor, when present, 1); each vector's length merges with x's channel
// dimension. Output 0 is x with that channel dimension; outputs 1-4 are
// vectors of it. "Invalid data format string: NCHW_VECT_C" for another
// format.
OPKIT_EXPORT Status FusedBatchNormShape(InferenceContext* c);
// FusedBatchNormV3: FusedBatchNormShape, and output 5 (reserve_space_3) of
// unknown shape.
OPKIT_EXPORT Status FusedBatchNormV3Shape(InferenceContext* c);
// FusedBatchNormGrad (and V2/V3): inputs y_backprop and x of rank 4 (5 for
// 3-D formats) whose channel dimensions merge with each other and with the
// lengths of the rank-1 scale, reserve_space_1 and reserve_space_2. Output 0 is
// y_backprop's shape with the merged channel dimension, outputs 1 and 2
// vectors of the channels, outputs 3 and 4 empty vectors ([0]).
OPKIT_EXPORT Status FusedBatchNormGradShape(InferenceContext* c);

// QuantizedConcatV2: `num_inputs_to_concat` values, then the scalar axis,
// then the min/max inputs (not read).
OPKIT_EXPORT Status QuantizedConcatV2Shape(InferenceContext* c,
                                           int num_inputs_to_concat);

// Random ops: the output shape is the constant shape vector in input 0
// (MakeShapeFromShapeTensor).
OPKIT_EXPORT Status RandomShape(InferenceContext* c);

// Slice(input, begin, size): begin and size are vectors of the input's
// rank; a constant size gives each output dimension (-1: the rest of the
// input dimension after begin; below -1: "Out of bounds slicing on
// dimension 0 of length 4: sizes vector cannot be < -1, but was -2").
OPKIT_EXPORT Status SliceShape(InferenceContext* c);

// The free-function spelling of InferenceContext::ValidateSparseTensor.
OPKIT_EXPORT Status ValidateSparseTensor(InferenceContext* c,
                                         ShapeHandle indices_shape,
                                         ShapeHandle values_shape,
                                         ShapeHandle shape_shape);

// What is known of the variable behind input 0 (a resource handle):
// *shape_and_type is its handle data, or one unknown shape of DT_INVALID
// when there is none. InvalidArgument "Trying to read variable with wrong
// dtype. Expected float got int32" when the handle's dtype is not the
// node's `dtype` attr.
OPKIT_EXPORT Status ValidateVariableResourceHandle(
    InferenceContext* c, std::vector<ShapeAndType>* shape_and_type);

// GatherNd(params, indices): indices [..., r] with r <= rank(params)
// ("indices.shape[-1] must be <= params.rank, but saw indices shape: [2,3]
// and params shape: [4,5]"); output indices[:-1] + params[r:]. params is
// the variable's value when input 0 is a resource handle.
OPKIT_EXPORT Status GatherNdShape(InferenceContext* c);

// The checks of ScatterNd / TensorScatter* / ScatterNd*Update: indices
// [..., r], updates = indices[:-1] + input[r:]; no indices or updates into
// an empty input. Sets output 0 to `input_shape` when input 0 is not a
// resource handle and the op has outputs.
OPKIT_EXPORT Status ScatterNdShapeHelper(InferenceContext* c,
                                         ShapeHandle indices_shape,
                                         ShapeHandle updates_shape,
                                         ShapeHandle input_shape);

// Output 0 has the shape in the node's `shape` attr.
OPKIT_EXPORT Status ExplicitShape(InferenceContext* c);
// Output i has the i-th shape of the list(shape) attr `shapes` (Internal
// "shapes attribute is empty" for none).
OPKIT_EXPORT Status ExplicitShapes(InferenceContext* c);

// SparseReduceSum/Max(indices, values, shape, reduction_axes): the dense
// shape and axes must be constants to say more than an unknown shape;
// reduced dimensions are dropped, or kept as 1 with bool attr keep_dims.
OPKIT_EXPORT Status SparseReduceShapeFn(InferenceContext* c);

// Reshape(tensor, shape): the output shape is read from input 1 (constant
// value, or what is known of it), with at most one -1 inferred from the
// element count of input 0. InvalidArgument when known element counts differ
// ("Cannot reshape a tensor with 6 elements to shape [4] (4 elements)") or
// do not divide evenly.
OPKIT_EXPORT Status ReshapeShape(InferenceContext* c);

// Transpose(x, perm): output dimension i is input dimension perm[i] when perm
// is a known constant int32/int64 vector; otherwise only the rank is known.
OPKIT_EXPORT Status TransposeShape(InferenceContext* c);

}  // namespace shape_inference
}  // namespace opkit

#endif  // OPKIT_SHAPE_COMMON_SHAPE_FNS_H_
