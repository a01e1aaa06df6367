// Gradients of the array ops (reshaping, transposing, joining, cutting,
// gathering, padding, tiling), registered with REGISTER_GRADIENT_OP. Each
// follows TensorFlow's gradient of the same op.
#include <string>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/gradients/grad_helpers.h"
#include "opkit/gradients/gradient_registry.h"
#include "opkit/gradients/graph_builder.h"

namespace opkit {
namespace {

Status IdentityGrad(GraphBuilder& b, const GradientOp&, const std::vector<Output>& dy,
                    std::vector<Output>* dx) {
  *dx = {dy[0]};
  return b.status();
}
REGISTER_GRADIENT_OP("Identity", IdentityGrad);
REGISTER_GRADIENT_OP("Snapshot", IdentityGrad);

Status IdentityNGrad(GraphBuilder& b, const GradientOp&, const std::vector<Output>& dy,
                     std::vector<Output>* dx) {
  *dx = dy;
  return b.status();
}
REGISTER_GRADIENT_OP("IdentityN", IdentityNGrad);

// PlaceholderWithDefault: the gradient goes to the default.
REGISTER_GRADIENT_OP("PlaceholderWithDefault", IdentityGrad);

// Ops whose result does not change smoothly with their inputs (or does
// not depend on their values at all).
REGISTER_NO_GRADIENT_OP("StopGradient");
REGISTER_NO_GRADIENT_OP("Shape");
REGISTER_NO_GRADIENT_OP("Size");
REGISTER_NO_GRADIENT_OP("Rank");
REGISTER_NO_GRADIENT_OP("ZerosLike");
REGISTER_NO_GRADIENT_OP("OnesLike");
REGISTER_NO_GRADIENT_OP("Range");
REGISTER_NO_GRADIENT_OP("OneHot");
REGISTER_NO_GRADIENT_OP("Where");
REGISTER_NO_GRADIENT_OP("Const");
REGISTER_NO_GRADIENT_OP("Placeholder");
REGISTER_NO_GRADIENT_OP("BroadcastGradientArgs");

// Reshape, ExpandDims, Squeeze: the gradient takes the input's shape back.
Status ReshapeGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                   std::vector<Output>* dx) {
  dx->assign(op.inputs.size(), Output());
  (*dx)[0] = b.Add("Reshape", {dy[0], b.Add("Shape", {op.inputs[0]})});
  return b.status();
}
REGISTER_GRADIENT_OP("Reshape", ReshapeGrad);
REGISTER_GRADIENT_OP("ExpandDims", ReshapeGrad);
REGISTER_GRADIENT_OP("Squeeze", ReshapeGrad);

// Transpose: by the inverse permutation, inv[perm[i]] = i, read off a
// one-hot matrix of perm (row i has its 1 in column perm[i]).
Status TransposeGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                     std::vector<Output>* dx) {
  Output perm = op.inputs[1];
  if (perm.dtype != DT_INT32) perm = b.Add("Cast", {perm}, {{"DstT", Attr(DT_INT32)}});
  const Output n = b.Add("Size", {perm});
  const Output one_hot = b.Add("OneHot", {perm, n, b.ScalarInt(1), b.ScalarInt(0)});
  const Output inverse = b.Add("ArgMax", {one_hot, b.ScalarInt(0)},
                               {{"output_type", Attr(DT_INT32)}});
  *dx = {b.Add("Transpose", {dy[0], inverse}), Output()};
  return b.status();
}
REGISTER_GRADIENT_OP("Transpose", TransposeGrad);

// An int32 copy of `t` (shape vectors and index lists of either type).
Output AsInt32(GraphBuilder& b, const Output& t) {
  return t.dtype == DT_INT32 ? t : b.Add("Cast", {t}, {{"DstT", Attr(DT_INT32)}});
}

// `axis` (a scalar, possibly negative) in [0, rank of x), as an int32 [1].
Output NormalizedAxis(GraphBuilder& b, const Output& axis, const Output& x) {
  const Output a = b.Add("FloorMod", {AsInt32(b, axis), b.Add("Rank", {x})});
  return b.Add("Reshape", {a, b.ConstInt({1})});
}

// ConcatV2: dy split back along the axis into pieces of the inputs' sizes.
Status ConcatV2Grad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                    std::vector<Output>* dx) {
  const int n = static_cast<int>(op.inputs.size()) - 1;
  const Output axis = NormalizedAxis(b, op.inputs[n], op.inputs[0]);
  std::vector<Output> sizes;
  for (int i = 0; i < n; ++i) {
    sizes.push_back(b.Add("Slice", {b.Add("Shape", {op.inputs[i]}), axis, b.ConstInt({1})}));
  }
  const Output size_splits = b.Add("ConcatV2", {Input(sizes), b.ScalarInt(0)});
  const Output scalar_axis = b.Add("Reshape", {axis, b.ConstInt({})});
  *dx = b.AddN("SplitV", {dy[0], size_splits, scalar_axis}, {{"num_split", Attr(int64_t{n})}});
  dx->push_back(Output());
  return b.status();
}
REGISTER_GRADIENT_OP("ConcatV2", ConcatV2Grad);

Status PackGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                std::vector<Output>* dx) {
  *dx = b.AddN("Unpack", {dy[0]},
               {{"num", Attr(static_cast<int64_t>(op.inputs.size()))},
                {"axis", op.node->attr().at("axis")}});
  return b.status();
}
REGISTER_GRADIENT_OP("Pack", PackGrad);

Status UnpackGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                  std::vector<Output>* dx) {
  *dx = {b.Add("Pack", {Input(dy)}, {{"axis", op.node->attr().at("axis")}})};
  return b.status();
}
REGISTER_GRADIENT_OP("Unpack", UnpackGrad);

// Split(axis, value) and SplitV(value, size_splits, axis): the pieces'
// gradients joined back.
Status SplitGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                 std::vector<Output>* dx) {
  *dx = {Output(), b.Add("ConcatV2", {Input(dy), op.inputs[0]})};
  return b.status();
}
REGISTER_GRADIENT_OP("Split", SplitGrad);

Status SplitVGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                  std::vector<Output>* dx) {
  *dx = {b.Add("ConcatV2", {Input(dy), op.inputs[2]}), Output(), Output()};
  return b.status();
}
REGISTER_GRADIENT_OP("SplitV", SplitVGrad);

// Slice: dy padded with zeros back to the input's shape.
Status SliceGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                 std::vector<Output>* dx) {
  const Output begin = AsInt32(b, op.inputs[1]);
  const Output after = b.Add("Sub", {b.Add("Sub", {b.Add("Shape", {op.inputs[0]}), begin}),
                                     b.Add("Shape", {dy[0]})});
  const Output paddings = b.Add("Pack", {Input({begin, after})}, {{"axis", Attr(int64_t{1})}});
  *dx = {b.Add("Pad", {dy[0], paddings}), Output(), Output()};
  return b.status();
}
REGISTER_GRADIENT_OP("Slice", SliceGrad);

Status StridedSliceGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                        std::vector<Output>* dx) {
  const Output shape = b.Add("Shape", {op.inputs[0]}, {{"out_type", Attr(op.inputs[1].dtype)}});
  *dx = {b.Add("StridedSliceGrad", {shape, op.inputs[1], op.inputs[2], op.inputs[3], dy[0]},
               op.Attrs({"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                         "shrink_axis_mask"})),
         Output(), Output(), Output()};
  return b.status();
}
REGISTER_GRADIENT_OP("StridedSlice", StridedSliceGrad);

// StridedSliceGrad(shape, begin, end, strides, dy) scatters dy into zeros
// of `shape`; its gradient in dy is the same strided slice of the incoming
// gradient (TensorFlow's _StridedSliceGradGrad).
Status StridedSliceGradGrad(GraphBuilder& b, const GradientOp& op,
                            const std::vector<Output>& dy, std::vector<Output>* dx) {
  *dx = {Output(), Output(), Output(), Output(),
         b.Add("StridedSlice", {dy[0], op.inputs[1], op.inputs[2], op.inputs[3]},
               op.Attrs({"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                         "shrink_axis_mask"}))};
  return b.status();
}
REGISTER_GRADIENT_OP("StridedSliceGrad", StridedSliceGradGrad);

// Pad: the middle of dy, where the input was.
Status PadGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
               std::vector<Output>* dx) {
  const Output paddings = AsInt32(b, op.inputs[1]);
  const Output before = b.Add("Reshape", {b.Add("Slice", {paddings, b.ConstInt({0, 0}),
                                                          b.ConstInt({-1, 1})}),
                                          b.ConstInt({-1})});
  dx->assign(op.inputs.size(), Output());
  (*dx)[0] = b.Add("Slice", {dy[0], before, b.Add("Shape", {op.inputs[0]})});
  return b.status();
}
REGISTER_GRADIENT_OP("Pad", PadGrad);
REGISTER_GRADIENT_OP("PadV2", PadGrad);

// Tile: dy seen as [m0, d0, m1, d1, ...] and summed over the m axes.
Status TileGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                std::vector<Output>* dx) {
  const Output shape = b.Add("Shape", {op.inputs[0]});
  const Output multiples = AsInt32(b, op.inputs[1]);
  const Output pairs = b.Add("Transpose", {b.Add("Pack", {Input({multiples, shape})}),
                                           b.ConstInt({1, 0})});
  const Output split_shape = b.Add("Reshape", {pairs, b.ConstInt({-1})});
  const Output axes = b.Add("Range", {b.ScalarInt(0), b.Add("Size", {split_shape}),
                                      b.ScalarInt(2)});
  const Output summed = b.Add("Sum", {b.Add("Reshape", {dy[0], split_shape}), axes});
  *dx = {b.Add("Reshape", {summed, shape}), Output()};
  return b.status();
}
REGISTER_GRADIENT_OP("Tile", TileGrad);

// BroadcastTo: summed over the broadcast axes.
Status BroadcastToGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                       std::vector<Output>* dx) {
  const Output sx = b.Add("Shape", {op.inputs[0]});
  const Output sy = AsInt32(b, op.inputs[1]);
  const std::vector<Output> r = b.AddN("BroadcastGradientArgs", {sx, sy});
  if (r.size() != 2) return b.status();
  *dx = {b.Add("Reshape", {b.Add("Sum", {dy[0], r[0]}), sx}), Output()};
  return b.status();
}
REGISTER_GRADIENT_OP("BroadcastTo", BroadcastToGrad);

// GatherV2 along axis 0 (batch_dims 0): the rows of dy summed into the rows
// of params they came from (UnsortedSegmentSum); TensorFlow gives the same
// values as IndexedSlices.
Status GatherV2Grad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                    std::vector<Output>* dx) {
  Tensor axis;
  int64_t batch_dims = 0;
  OPKIT_RETURN_IF_ERROR(op.GetAttr("batch_dims", &batch_dims));
  const bool axis_zero =
      op.ConstantInput(2, &axis) && axis.NumElements() == 1 &&
      (axis.dtype() == DT_INT32 ? axis.flat<int32_t>()(0) == 0
                                : axis.dtype() == DT_INT64 && axis.flat<int64_t>()(0) == 0);
  if (!axis_zero || batch_dims != 0) {
    return errors::Unimplemented(
        "the gradient of GatherV2 is defined for a constant axis 0 and batch_dims 0 only; "
        "transpose the gathered axis to the front first");
  }
  const Output params_shape = b.Add("Shape", {op.inputs[0]});
  const Output indices = b.Add("Reshape", {op.inputs[1], b.ConstInt({-1})});
  const Output rows = b.Add("Reshape", {b.Add("Size", {op.inputs[1]}), b.ConstInt({1})});
  const Output inner = b.Add("Slice", {params_shape, b.ConstInt({1}), b.ConstInt({-1})});
  const Output values = b.Add(
      "Reshape", {dy[0], b.Add("ConcatV2", {Input({rows, inner}), b.ScalarInt(0)})});
  const Output num_rows =
      b.Add("Reshape", {b.Add("Slice", {params_shape, b.ConstInt({0}), b.ConstInt({1})}),
                        b.ConstInt({})});
  *dx = {b.Add("UnsortedSegmentSum", {values, indices, num_rows}), Output(), Output()};
  return b.status();
}
REGISTER_GRADIENT_OP("GatherV2", GatherV2Grad);

// Fill(dims, value): value was copied to every element, so it gets the sum
// of the gradient; dims gets none.
Status FillGrad(GraphBuilder& b, const GradientOp&, const std::vector<Output>& dy,
                std::vector<Output>* dx) {
  const Output all_axes =
      b.Add("Range", {b.ScalarInt(0), b.Add("Rank", {dy[0]}), b.ScalarInt(1)});
  *dx = {Output(), b.Add("Sum", {dy[0], all_axes})};
  return b.status();
}
REGISTER_GRADIENT_OP("Fill", FillGrad);

// SparseToDense(sparse_indices, output_shape, sparse_values, default_value):
// each value gets the gradient at its position, the default value the sum
// of the rest (TensorFlow's _SparseToDenseGrad); a scalar sparse_values
// (one value for every index) gets the sum of its positions'.
Status SparseToDenseGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                         std::vector<Output>* dx) {
  const Output& values = op.inputs[2];
  // Indices as [N, R] rows, R the output's rank (a scalar or vector of
  // indices addresses a vector output).
  const Output rows = b.Add(
      "Reshape", {op.inputs[0], b.Add("Pack", {Input({b.ScalarInt(-1),
                                                      b.Add("Size", {op.inputs[1]})})})});
  const Output gathered = b.Add("GatherNd", {dy[0], rows});
  const Output values_grad = grad::ReduceForBroadcast(b, values, gathered, gathered, gathered)[0];
  auto sum_all = [&b](const Output& t) {
    return b.Add("Sum", {t, b.Add("Range", {b.ScalarInt(0), b.Add("Rank", {t}),
                                            b.ScalarInt(1)})});
  };
  *dx = {Output(), Output(), values_grad,
         b.Add("Sub", {sum_all(dy[0]), sum_all(gathered)})};
  return b.status();
}
REGISTER_GRADIENT_OP("SparseToDense", SparseToDenseGrad);

// SpaceToDepth and DepthToSpace only move elements: each one's gradient is
// the other op with the same block size and layout.
template <const char* kInverse>
Status DepthSpaceGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                      std::vector<Output>* dx) {
  std::string data_format;
  OPKIT_RETURN_IF_ERROR(op.GetAttr("data_format", &data_format));
  if (data_format == "NCHW_VECT_C") {
    return errors::InvalidArgument(
        "the gradient of ", op.type(), " is not defined for data_format NCHW_VECT_C (a layout "
        "of qint8 data); use NHWC or NCHW");
  }
  *dx = {b.Add(kInverse, {dy[0]}, op.Attrs({"block_size", "data_format"}))};
  return b.status();
}
constexpr char kDepthToSpace[] = "DepthToSpace";
constexpr char kSpaceToDepth[] = "SpaceToDepth";
REGISTER_GRADIENT_OP("SpaceToDepth", DepthSpaceGrad<kDepthToSpace>);
REGISTER_GRADIENT_OP("DepthToSpace", DepthSpaceGrad<kSpaceToDepth>);

// SpaceToBatchND(input, block_shape, paddings) and BatchToSpaceND(input,
// block_shape, crops) undo each other: each one's gradient is the other op
// with the same block shape, paddings as crops and crops as paddings.
template <const char* kInverse>
Status BatchSpaceGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                      std::vector<Output>* dx) {
  *dx = {b.Add(kInverse, {dy[0], op.inputs[1], op.inputs[2]}), Output(), Output()};
  return b.status();
}
constexpr char kBatchToSpaceND[] = "BatchToSpaceND";
constexpr char kSpaceToBatchND[] = "SpaceToBatchND";
REGISTER_GRADIENT_OP("SpaceToBatchND", BatchSpaceGrad<kBatchToSpaceND>);
REGISTER_GRADIENT_OP("BatchToSpaceND", BatchSpaceGrad<kSpaceToBatchND>);

}  // namespace
}  // namespace opkit
