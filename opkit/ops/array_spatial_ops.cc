// Built-in array ops that move data between spatial positions, blocks,
// batch and depth, or pad it: DepthToSpace, SpaceToDepth, SpaceToBatchND,
// BatchToSpaceND, MirrorPad, PadV2 and ExtractImagePatches. OpDefs are
// TensorFlow's; shape functions follow TensorFlow's behaviour and report
// what a graph supplies wrongly as InvalidArgument.
#include <cstdint>
#include <string>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/op/op.h"
#include "opkit/shape/common_shape_fns.h"
#include "opkit/shape/shape_inference.h"

namespace opkit {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ReadIntTensor;
using shape_inference::ShapeHandle;

// The (rank, H, W, C) positions of a SpaceToDepth/DepthToSpace input.
struct BlockLayout {
  int rank, h, w, c;
};

Status GetBlockLayout(InferenceContext* c, BlockLayout* layout) {
  std::string format;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
  if (format == "NHWC") {
    *layout = {4, 1, 2, 3};
  } else if (format == "NCHW") {
    *layout = {4, 2, 3, 1};
  } else {
    // NCHW_VECT_C: [N, C/4, H, W, 4].
    *layout = {5, 2, 3, 1};
  }
  return OkStatus();
}

// SpaceToDepth (to_depth) and DepthToSpace.
Status BlockShape(InferenceContext* c, bool to_depth) {
  BlockLayout l;
  OPKIT_RETURN_IF_ERROR(GetBlockLayout(c, &l));
  ShapeHandle input;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(0), l.rank, &input));
  int64_t block = 0;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("block_size", &block));
  if (block < 2 || block > (int64_t{1} << 31)) {
    return errors::InvalidArgument("block_size must be in [2, 2^31], got ",
                                   block);
  }
  std::vector<DimensionHandle> dims;
  for (int i = 0; i < l.rank; ++i) dims.push_back(c->Dim(input, i));
  if (to_depth) {
    OPKIT_RETURN_IF_ERROR(c->Divide(dims[l.h], block, true, &dims[l.h]));
    OPKIT_RETURN_IF_ERROR(c->Divide(dims[l.w], block, true, &dims[l.w]));
    OPKIT_RETURN_IF_ERROR(c->Multiply(dims[l.c], block * block, &dims[l.c]));
  } else {
    OPKIT_RETURN_IF_ERROR(c->Multiply(dims[l.h], block, &dims[l.h]));
    OPKIT_RETURN_IF_ERROR(c->Multiply(dims[l.w], block, &dims[l.w]));
    OPKIT_RETURN_IF_ERROR(c->Divide(dims[l.c], block * block, true, &dims[l.c]));
  }
  c->set_output(0, c->MakeShape(dims));
  return OkStatus();
}

// SpaceToBatchND (to_batch, input 2 = paddings) and BatchToSpaceND (input 2 =
// crops): input [batch] + spatial (M dims) + remaining; block_shape [M];
// paddings/crops [M, 2].
Status BatchSpaceShape(InferenceContext* c, bool to_batch) {
  const char* amounts = to_batch ? "paddings" : "crops";
  ShapeHandle block_shape, pads;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &block_shape));
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(2), 2, &pads));
  DimensionHandle m = c->Dim(block_shape, 0);
  OPKIT_RETURN_IF_ERROR(c->Merge(m, c->Dim(pads, 0), &m));
  DimensionHandle unused;
  OPKIT_RETURN_IF_ERROR(c->WithValue(c->Dim(pads, 1), 2, &unused));
  ShapeHandle input = c->input(0);
  if (c->ValueKnown(m)) {
    OPKIT_RETURN_IF_ERROR(c->WithRankAtLeast(input, c->Value(m) + 1, &input));
  }
  const Tensor* block_t = c->input_tensor(1);
  const Tensor* pads_t = c->input_tensor(2);
  if (!c->RankKnown(input)) {
    c->set_output(0, c->UnknownShape());
    return OkStatus();
  }
  const int64_t rank = c->Rank(input);
  if (block_t == nullptr || pads_t == nullptr || !c->ValueKnown(m)) {
    c->set_output(0, c->UnknownShapeOfRank(rank));
    return OkStatus();
  }
  std::vector<int64_t> block, p;
  OPKIT_RETURN_IF_ERROR(ReadIntTensor(*block_t, "block_shape", &block));
  OPKIT_RETURN_IF_ERROR(ReadIntTensor(*pads_t, amounts, &p));
  const int64_t num_block = c->Value(m);
  if (static_cast<int64_t>(block.size()) != num_block ||
      static_cast<int64_t>(p.size()) != 2 * num_block) {
    return errors::InvalidArgument("block_shape and ", amounts,
                                   " do not have the sizes their shapes say");
  }
  int64_t block_product = 1;
  for (int64_t b : block) {
    if (b < 1) {
      return errors::InvalidArgument("block_shape must be positive, got ", b);
    }
    if (__builtin_mul_overflow(block_product, b, &block_product)) {
      return errors::InvalidArgument("The product of block_shape overflows");
    }
  }
  for (int64_t v : p) {
    if (v < 0) {
      return errors::InvalidArgument(amounts, " cannot be negative, got ", v);
    }
  }
  std::vector<DimensionHandle> dims;
  for (int64_t i = 0; i < rank; ++i) dims.push_back(c->Dim(input, i));
  if (to_batch) {
    OPKIT_RETURN_IF_ERROR(c->Multiply(dims[0], block_product, &dims[0]));
  } else {
    OPKIT_RETURN_IF_ERROR(c->Divide(dims[0], block_product, true, &dims[0]));
  }
  for (int64_t i = 0; i < num_block; ++i) {
    DimensionHandle& d = dims[i + 1];
    if (to_batch) {
      OPKIT_RETURN_IF_ERROR(c->Add(d, p[2 * i], &d));
      OPKIT_RETURN_IF_ERROR(c->Add(d, p[2 * i + 1], &d));
      OPKIT_RETURN_IF_ERROR(c->Divide(d, block[i], true, &d));
    } else {
      OPKIT_RETURN_IF_ERROR(c->Multiply(d, block[i], &d));
      OPKIT_RETURN_IF_ERROR(c->Subtract(d, p[2 * i], &d));
      OPKIT_RETURN_IF_ERROR(c->Subtract(d, p[2 * i + 1], &d));
    }
  }
  c->set_output(0, c->MakeShape(dims));
  return OkStatus();
}

// Pad-like: input 1 is a [rank, 2] paddings matrix. `mirror_mode` is
// "REFLECT" / "SYMMETRIC" for MirrorPad (limits on each padding), empty
// otherwise.
Status PaddedShape(InferenceContext* c, const std::string& mirror_mode) {
  ShapeHandle paddings;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, &paddings));
  DimensionHandle unused;
  OPKIT_RETURN_IF_ERROR(c->WithValue(c->Dim(paddings, 1), 2, &unused));
  ShapeHandle input = c->input(0);
  DimensionHandle n = c->Dim(paddings, 0);
  if (c->ValueKnown(n)) {
    OPKIT_RETURN_IF_ERROR(c->WithRank(input, c->Value(n), &input));
  } else if (c->RankKnown(input)) {
    OPKIT_RETURN_IF_ERROR(c->WithValue(n, c->Rank(input), &n));
  }
  if (!c->RankKnown(input)) {
    c->set_output(0, c->UnknownShape());
    return OkStatus();
  }
  const int64_t rank = c->Rank(input);
  const Tensor* paddings_t = c->input_tensor(1);
  if (paddings_t == nullptr) {
    c->set_output(0, c->UnknownShapeOfRank(rank));
    return OkStatus();
  }
  std::vector<int64_t> p;
  OPKIT_RETURN_IF_ERROR(ReadIntTensor(*paddings_t, "paddings", &p));
  if (static_cast<int64_t>(p.size()) != 2 * rank) {
    return errors::InvalidArgument("paddings must be a [", rank,
                                   ", 2] matrix, got ",
                                   paddings_t->shape().DebugString());
  }
  const int64_t offset = mirror_mode == "REFLECT" ? 0 : 1;
  std::vector<DimensionHandle> dims;
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t before = p[2 * i], after = p[2 * i + 1];
    if (before < 0 || after < 0) {
      return errors::InvalidArgument("Paddings must be non-negative: ", before,
                                     " ", after);
    }
    DimensionHandle in_dim = c->Dim(input, i);
    if (!mirror_mode.empty() && c->ValueKnown(in_dim) &&
        (before > c->Value(in_dim) - 1 + offset ||
         after > c->Value(in_dim) - 1 + offset)) {
      return errors::InvalidArgument(
          "paddings must be ", offset == 0 ? "less than" : "no greater than",
          " the dimension size in ", mirror_mode, " mode: ", before, ", ",
          after, " for dimension ", i, " of size ", c->Value(in_dim));
    }
    DimensionHandle d;
    OPKIT_RETURN_IF_ERROR(c->Add(in_dim, before, &d));
    OPKIT_RETURN_IF_ERROR(c->Add(d, after, &d));
    dims.push_back(d);
  }
  c->set_output(0, c->MakeShape(dims));
  return OkStatus();
}

Status ExtractImagePatchesShape(InferenceContext* c) {
  ShapeHandle input;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &input));
  std::vector<int32> ksizes, strides, rates;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("ksizes", &ksizes));
  OPKIT_RETURN_IF_ERROR(c->GetAttr("strides", &strides));
  OPKIT_RETURN_IF_ERROR(c->GetAttr("rates", &rates));
  for (const auto& [name, v] :
       {std::make_pair("ksizes", &ksizes), std::make_pair("strides", &strides),
        std::make_pair("rates", &rates)}) {
    if (v->size() != 4) {
      return errors::InvalidArgument(
          "ExtractImagePatches requires the ", name,
          " attribute to contain 4 values, but got: ", v->size());
    }
    if ((*v)[0] != 1 || (*v)[3] != 1) {
      return errors::Unimplemented(
          "ExtractImagePatches is only supported across rows and cols: ", name,
          " must be 1 in the batch and depth dimensions");
    }
    if ((*v)[1] < 1 || (*v)[2] < 1) {
      return errors::InvalidArgument("ExtractImagePatches ", name,
                                     " must be >= 1, got ", (*v)[1], " and ",
                                     (*v)[2]);
    }
  }
  std::string padding_str;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("padding", &padding_str));
  shape_inference::Padding padding;
  OPKIT_RETURN_IF_ERROR(
      shape_inference::GetPaddingFromString(padding_str, &padding));
  DimensionHandle rows, cols, depth;
  OPKIT_RETURN_IF_ERROR(shape_inference::GetWindowedOutputSizeFromDimsV2(
      c, c->Dim(input, 1), ksizes[1], rates[1], strides[1], padding, 0, 0,
      &rows));
  OPKIT_RETURN_IF_ERROR(shape_inference::GetWindowedOutputSizeFromDimsV2(
      c, c->Dim(input, 2), ksizes[2], rates[2], strides[2], padding, 0, 0,
      &cols));
  OPKIT_RETURN_IF_ERROR(c->Multiply(c->Dim(input, 3),
                                    int64_t{ksizes[1]} * ksizes[2], &depth));
  c->set_output(0, c->MakeShape({c->Dim(input, 0), rows, cols, depth}));
  return OkStatus();
}

}  // namespace

REGISTER_OP("SpaceToDepth")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("block_size: int >= 2")
    .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
    .SetShapeFn([](InferenceContext* c) { return BlockShape(c, true); });

REGISTER_OP("DepthToSpace")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("block_size: int >= 2")
    .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
    .SetShapeFn([](InferenceContext* c) { return BlockShape(c, false); });

REGISTER_OP("SpaceToBatchND")
    .Input("input: T")
    .Input("block_shape: Tblock_shape")
    .Input("paddings: Tpaddings")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tblock_shape: {int32, int64} = DT_INT32")
    .Attr("Tpaddings: {int32, int64} = DT_INT32")
    .SetShapeFn([](InferenceContext* c) { return BatchSpaceShape(c, true); });

REGISTER_OP("BatchToSpaceND")
    .Input("input: T")
    .Input("block_shape: Tblock_shape")
    .Input("crops: Tcrops")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tblock_shape: {int32, int64} = DT_INT32")
    .Attr("Tcrops: {int32, int64} = DT_INT32")
    .SetShapeFn([](InferenceContext* c) { return BatchSpaceShape(c, false); });

REGISTER_OP("MirrorPad")
    .Input("input: T")
    .Input("paddings: Tpaddings")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tpaddings: {int32, int64} = DT_INT32")
    .Attr("mode: {'REFLECT', 'SYMMETRIC'}")
    .SetShapeFn([](InferenceContext* c) {
      std::string mode;
      OPKIT_RETURN_IF_ERROR(c->GetAttr("mode", &mode));
      return PaddedShape(c, mode);
    });

REGISTER_OP("PadV2")
    .Input("input: T")
    .Input("paddings: Tpaddings")
    .Input("constant_values: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tpaddings: {int32, int64} = DT_INT32")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle unused;
      OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, &unused));
      return PaddedShape(c, "");
    });

REGISTER_OP("ExtractImagePatches")
    .Input("images: T")
    .Output("patches: T")
    .Attr("ksizes: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("rates: list(int) >= 4")
    .Attr(
        "T: {bfloat16, half, float, double, int8, int16, int32, int64, uint8, "
        "uint16, uint32, uint64, complex64, complex128, bool}")
    .Attr("padding: {'SAME', 'VALID'}")
    .SetShapeFn(ExtractImagePatchesShape);

}  // namespace opkit
