// Built-in array ops that cut and join tensors: ConcatV2, Pack, Unpack,
// Split, SplitV, Slice, StridedSlice (and its gradient StridedSliceGrad) and
// GatherV2. OpDefs are TensorFlow's; shape functions follow TensorFlow's
// behaviour and messages without aborting on what a graph supplies.
#include <cstdint>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/op/op.h"
#include "opkit/shape/common_shape_fns.h"
#include "opkit/shape/shape_inference.h"
#include "opkit/shape/strided_slice.h"

namespace opkit {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ReadIntTensor;
using shape_inference::ShapeHandle;

// The known dimensions of `s` (-1 where unknown); `s` must have known rank.
std::vector<int64_t> KnownDims(InferenceContext* c, ShapeHandle s) {
  std::vector<int64_t> dims(c->Rank(s));
  for (int i = 0; i < c->Rank(s); ++i) dims[i] = c->Value(c->Dim(s, i));
  return dims;
}

// A shape from sizes where -1 means unknown.
ShapeHandle ShapeFromDims(InferenceContext* c, const std::vector<int64_t>& dims) {
  std::vector<DimensionHandle> handles;
  handles.reserve(dims.size());
  for (int64_t d : dims) handles.push_back(c->MakeDim(d));
  return c->MakeShape(handles);
}

// Maps `axis` into [0, rank) for Pack (rank after packing) and Unpack.
Status PackAxis(int64_t axis, int64_t rank, int64_t* out) {
  if (axis < -rank || axis >= rank) {
    return errors::InvalidArgument("Invalid axis: ", axis, "; must be in [", -rank,
                                   ",", rank, ")");
  }
  *out = axis < 0 ? axis + rank : axis;
  return Status::OK();
}

Status PackShape(InferenceContext* c) {
  ShapeHandle cur = c->input(c->num_inputs() - 1);
  for (int i = c->num_inputs() - 2; i >= 0; --i) {
    if (!c->Merge(c->input(i), cur, &cur).ok()) {
      return errors::InvalidArgument(
          "Shapes of all inputs must match: values[0].shape = ",
          c->DebugString(c->input(0)), " != values[", i,
          "].shape = ", c->DebugString(c->input(i)));
    }
  }
  if (!c->RankKnown(cur)) {
    c->set_output(0, c->UnknownShape());
    return Status::OK();
  }
  const int64_t rank = c->Rank(cur);
  int64_t axis;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("axis", &axis));
  OPKIT_RETURN_IF_ERROR(PackAxis(axis, rank + 1, &axis));
  ShapeHandle head, tail, out;
  OPKIT_RETURN_IF_ERROR(c->Subshape(cur, 0, axis, &head));
  OPKIT_RETURN_IF_ERROR(c->Subshape(cur, axis, &tail));
  OPKIT_RETURN_IF_ERROR(c->Concatenate(head, c->Vector(c->num_inputs()), &out));
  OPKIT_RETURN_IF_ERROR(c->Concatenate(out, tail, &out));
  c->set_output(0, out);
  return Status::OK();
}

Status UnpackShape(InferenceContext* c) {
  ShapeHandle s = c->input(0);
  ShapeHandle out;
  if (c->RankKnown(s)) {
    const int64_t rank = c->Rank(s);
    int64_t axis;
    OPKIT_RETURN_IF_ERROR(c->GetAttr("axis", &axis));
    OPKIT_RETURN_IF_ERROR(PackAxis(axis, rank, &axis));
    int64_t num;
    OPKIT_RETURN_IF_ERROR(c->GetAttr("num", &num));
    DimensionHandle unused;
    OPKIT_RETURN_IF_ERROR(c->WithValue(c->Dim(s, axis), num, &unused));
    ShapeHandle head, tail;
    OPKIT_RETURN_IF_ERROR(c->Subshape(s, 0, axis, &head));
    OPKIT_RETURN_IF_ERROR(c->Subshape(s, axis + 1, &tail));
    OPKIT_RETURN_IF_ERROR(c->Concatenate(head, tail, &out));
  } else {
    out = c->UnknownShape();
  }
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, out);
  return Status::OK();
}

Status SplitShape(InferenceContext* c) {
  ShapeHandle input = c->input(1);
  DimensionHandle split_dim;
  OPKIT_RETURN_IF_ERROR(
      c->MakeDimForScalarInputWithNegativeIndexing(0, c->Rank(input), &split_dim));
  int64_t num_split = c->num_outputs();
  ShapeHandle out;
  if (!c->ValueKnown(split_dim)) {
    out = c->RankKnown(input) ? c->UnknownShapeOfRank(c->Rank(input))
                              : c->UnknownShape();
  } else {
    const int64_t d = c->Value(split_dim);
    OPKIT_RETURN_IF_ERROR(c->WithRankAtLeast(input, d + 1, &input));
    DimensionHandle size;
    OPKIT_RETURN_IF_ERROR(c->Divide(c->Dim(input, d), num_split,
                                    /*evenly_divisible=*/true, &size));
    OPKIT_RETURN_IF_ERROR(c->ReplaceDim(input, d, size, &out));
  }
  for (int i = 0; i < num_split; ++i) c->set_output(i, out);
  return Status::OK();
}

Status SplitVShape(InferenceContext* c) {
  ShapeHandle input = c->input(0);
  ShapeHandle size_splits_shape;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &size_splits_shape));
  const int num_outputs = c->num_outputs();
  DimensionHandle split_dim;
  OPKIT_RETURN_IF_ERROR(
      c->MakeDimForScalarInputWithNegativeIndexing(2, c->Rank(input), &split_dim));
  if (!c->ValueKnown(split_dim)) {
    ShapeHandle out = c->RankKnown(input) ? c->UnknownShapeOfRank(c->Rank(input))
                                          : c->UnknownShape();
    for (int i = 0; i < num_outputs; ++i) c->set_output(i, out);
    return Status::OK();
  }
  const int64_t d = c->Value(split_dim);
  OPKIT_RETURN_IF_ERROR(c->WithRankAtLeast(input, d + 1, &input));
  const Tensor* sizes_t = c->input_tensor(1);
  if (sizes_t == nullptr) {
    ShapeHandle out;
    OPKIT_RETURN_IF_ERROR(c->ReplaceDim(input, d, c->UnknownDim(), &out));
    for (int i = 0; i < num_outputs; ++i) c->set_output(i, out);
    return Status::OK();
  }
  std::vector<int64_t> sizes;
  OPKIT_RETURN_IF_ERROR(ReadIntTensor(*sizes_t, "size_splits", &sizes));
  if (static_cast<int64_t>(sizes.size()) != num_outputs) {
    return errors::InvalidArgument("Length of size_splits should be equal to num_outputs: ",
                                   sizes.size(), " vs. ", num_outputs);
  }
  const int64_t dim = c->Value(c->Dim(input, d));
  int neg_one = -1;
  int64_t total = 0;
  for (int i = 0; i < num_outputs; ++i) {
    if (sizes[i] == -1) {
      if (neg_one != -1) {
        return errors::InvalidArgument("size_splits can only have one -1");
      }
      neg_one = i;
    } else if (sizes[i] < 0) {
      return errors::InvalidArgument("size_splits[", i, "] = ", sizes[i],
                                     " must be >= 0 (or -1 once)");
    } else {
      if (total > INT64_MAX - sizes[i]) {
        return errors::InvalidArgument("size_splits add up to more than int64 holds");
      }
      total += sizes[i];
    }
  }
  if (dim >= 0) {
    if ((neg_one == -1 && total != dim) || (neg_one != -1 && total > dim)) {
      return errors::InvalidArgument(
          "Determined shape must either match input shape along split_dim exactly "
          "if fully specified, or be less than the size of the input along "
          "split_dim if not fully specified.  Got: ",
          total);
    }
    if (neg_one != -1) sizes[neg_one] = dim - total;
  }
  for (int i = 0; i < num_outputs; ++i) {
    ShapeHandle out;
    OPKIT_RETURN_IF_ERROR(c->ReplaceDim(input, d, c->MakeDim(sizes[i]), &out));
    c->set_output(i, out);
  }
  return Status::OK();
}

Status SliceShape(InferenceContext* c) {
  ShapeHandle input = c->input(0);
  ShapeHandle begin_shape, size_shape;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &begin_shape));
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, &size_shape));
  DimensionHandle n;
  OPKIT_RETURN_IF_ERROR(c->Merge(c->Dim(begin_shape, 0), c->Dim(size_shape, 0), &n));
  if (c->ValueKnown(n)) {
    OPKIT_RETURN_IF_ERROR(c->WithRank(input, c->Value(n), &input));
  } else if (c->RankKnown(input)) {
    OPKIT_RETURN_IF_ERROR(c->WithValue(n, c->Rank(input), &n));
  }
  const Tensor* begin_t = c->input_tensor(1);
  const Tensor* size_t_ = c->input_tensor(2);
  if (begin_t == nullptr || size_t_ == nullptr) {
    c->set_output(0, c->RankKnown(input) ? c->UnknownShapeOfRank(c->Rank(input))
                                         : c->UnknownShape());
    return Status::OK();
  }
  std::vector<int64_t> begin, size;
  OPKIT_RETURN_IF_ERROR(ReadIntTensor(*begin_t, "begin", &begin));
  OPKIT_RETURN_IF_ERROR(ReadIntTensor(*size_t_, "size", &size));
  std::vector<DimensionHandle> dims;
  for (size_t i = 0; i < begin.size() && i < size.size(); ++i) {
    DimensionHandle dim = c->Dim(input, static_cast<int64_t>(i));
    const int64_t dim_value = c->Value(dim);
    if (begin[i] < 0 || (dim_value >= 0 && begin[i] > dim_value)) {
      return errors::InvalidArgument("Expected begin[", i, "] in [0, ",
                                     dim_value >= 0 ? dim_value : int64_t{-1},
                                     "], but got ", begin[i]);
    }
    if (size[i] == -1) {
      DimensionHandle rest;
      OPKIT_RETURN_IF_ERROR(c->Subtract(dim, begin[i], &rest));
      dims.push_back(rest);
    } else if (size[i] < 0 ||
               (dim_value >= 0 && size[i] > dim_value - begin[i])) {
      return errors::InvalidArgument("Expected size[", i, "] in [0, ",
                                     dim_value >= 0 ? dim_value - begin[i] : -1,
                                     "], but got ", size[i]);
    } else {
      dims.push_back(c->MakeDim(size[i]));
    }
  }
  c->set_output(0, c->MakeShape(dims));
  return Status::OK();
}

Status StridedSliceShape(InferenceContext* c) {
  ShapeHandle input = c->input(0);
  ShapeHandle begin_shape, end_shape, strides_shape;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &begin_shape));
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, &end_shape));
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(3), 1, &strides_shape));
  DimensionHandle n;
  OPKIT_RETURN_IF_ERROR(c->Merge(c->Dim(begin_shape, 0), c->Dim(end_shape, 0), &n));
  OPKIT_RETURN_IF_ERROR(c->Merge(n, c->Dim(strides_shape, 0), &n));
  const Tensor* strides_t = c->input_tensor(3);
  if (strides_t == nullptr || !c->RankKnown(input)) {
    c->set_output(0, c->UnknownShape());
    return Status::OK();
  }
  internal::StridedSliceSpec spec;
  OPKIT_RETURN_IF_ERROR(ReadIntTensor(*strides_t, "strides", &spec.strides));
  const Tensor* begin_t = c->input_tensor(1);
  const Tensor* end_t = c->input_tensor(2);
  spec.begin_known = begin_t != nullptr;
  spec.end_known = end_t != nullptr;
  if (begin_t) OPKIT_RETURN_IF_ERROR(ReadIntTensor(*begin_t, "begin", &spec.begin));
  if (end_t) OPKIT_RETURN_IF_ERROR(ReadIntTensor(*end_t, "end", &spec.end));
  OPKIT_RETURN_IF_ERROR(c->GetAttr("begin_mask", &spec.begin_mask));
  OPKIT_RETURN_IF_ERROR(c->GetAttr("end_mask", &spec.end_mask));
  OPKIT_RETURN_IF_ERROR(c->GetAttr("ellipsis_mask", &spec.ellipsis_mask));
  OPKIT_RETURN_IF_ERROR(c->GetAttr("new_axis_mask", &spec.new_axis_mask));
  OPKIT_RETURN_IF_ERROR(c->GetAttr("shrink_axis_mask", &spec.shrink_axis_mask));
  internal::StridedSliceResult result;
  OPKIT_RETURN_IF_ERROR(
      internal::ComputeStridedSlice(KnownDims(c, input), spec, &result));
  c->set_output(0, ShapeFromDims(c, result.final_shape));
  return Status::OK();
}

Status GatherV2Shape(InferenceContext* c) {
  ShapeHandle params, indices = c->input(1), unused;
  OPKIT_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &params));
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, &unused));
  int64_t batch_dims;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("batch_dims", &batch_dims));
  const Tensor* axis_t = c->input_tensor(2);
  if (axis_t == nullptr || !c->RankKnown(params) || !c->RankKnown(indices)) {
    if (c->RankKnown(params) && c->RankKnown(indices)) {
      const int64_t indices_rank = c->Rank(indices);
      const int64_t bd = batch_dims < 0 ? batch_dims + indices_rank : batch_dims;
      c->set_output(0, c->UnknownShapeOfRank(c->Rank(params) + indices_rank - 1 - bd));
    } else {
      c->set_output(0, c->UnknownShape());
    }
    return Status::OK();
  }
  std::vector<int64_t> v;
  OPKIT_RETURN_IF_ERROR(ReadIntTensor(*axis_t, "axis", &v));
  const int64_t params_rank = c->Rank(params);
  const int64_t indices_rank = c->Rank(indices);
  int64_t axis = v[0];
  if (axis < -params_rank || axis >= params_rank) {
    return errors::InvalidArgument("Expected axis in the range [", -params_rank, ", ",
                                   params_rank, "), but got ", axis);
  }
  if (axis < 0) axis += params_rank;
  if (batch_dims < -indices_rank || batch_dims > indices_rank) {
    return errors::InvalidArgument("Expected batch_dims in the range [", -indices_rank,
                                   ", ", indices_rank, "], but got ", batch_dims);
  }
  if (batch_dims < 0) batch_dims += indices_rank;
  if (batch_dims > axis) {
    return errors::InvalidArgument("batch_dims (", batch_dims,
                                   ") must be less than or equal to axis (", axis, ").");
  }
  // The batch dimensions are shared by params and indices.
  ShapeHandle params_batch, indices_batch;
  OPKIT_RETURN_IF_ERROR(c->Subshape(params, 0, batch_dims, &params_batch));
  OPKIT_RETURN_IF_ERROR(c->Subshape(indices, 0, batch_dims, &indices_batch));
  OPKIT_RETURN_IF_ERROR(c->Merge(params_batch, indices_batch, &unused));
  ShapeHandle head, mid, tail, out;
  OPKIT_RETURN_IF_ERROR(c->Subshape(params, 0, axis, &head));
  OPKIT_RETURN_IF_ERROR(c->Subshape(indices, batch_dims, &mid));
  OPKIT_RETURN_IF_ERROR(c->Subshape(params, axis + 1, &tail));
  OPKIT_RETURN_IF_ERROR(c->Concatenate(head, mid, &out));
  OPKIT_RETURN_IF_ERROR(c->Concatenate(out, tail, &out));
  c->set_output(0, out);
  return Status::OK();
}

}  // namespace

REGISTER_OP("ConcatV2")
    .Input("values: N * T")
    .Input("axis: Tidx")
    .Output("output: T")
    .Attr("N: int >= 2")
    .Attr("T: type")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(shape_inference::ConcatV2Shape);

REGISTER_OP("Pack")
    .Input("values: N * T")
    .Output("output: T")
    .Attr("N: int >= 1")
    .Attr("T: type")
    .Attr("axis: int = 0")
    .SetShapeFn(PackShape);

REGISTER_OP("Unpack")
    .Input("value: T")
    .Output("output: num * T")
    .Attr("num: int >= 0")
    .Attr("T: type")
    .Attr("axis: int = 0")
    .SetShapeFn(UnpackShape);

REGISTER_OP("Split")
    .Input("split_dim: int32")
    .Input("value: T")
    .Output("output: num_split * T")
    .Attr("num_split: int >= 1")
    .Attr("T: type")
    .SetShapeFn(SplitShape);

REGISTER_OP("SplitV")
    .Input("value: T")
    .Input("size_splits: Tlen")
    .Input("split_dim: int32")
    .Output("output: num_split * T")
    .Attr("num_split: int >= 1")
    .Attr("T: type")
    .Attr("Tlen: {int32, int64} = DT_INT64")
    .SetShapeFn(SplitVShape);

REGISTER_OP("Slice")
    .Input("input: T")
    .Input("begin: Index")
    .Input("size: Index")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Index: {int32,int64}")
    .SetShapeFn(SliceShape);

REGISTER_OP("StridedSlice")
    .Input("input: T")
    .Input("begin: Index")
    .Input("end: Index")
    .Input("strides: Index")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Index: {int32, int64}")
    .Attr("begin_mask: int = 0")
    .Attr("end_mask: int = 0")
    .Attr("ellipsis_mask: int = 0")
    .Attr("new_axis_mask: int = 0")
    .Attr("shrink_axis_mask: int = 0")
    .SetShapeFn(StridedSliceShape);

// The gradient of StridedSlice: dy (of the slice's shape) scattered into
// zeros of the sliced input's shape, which the first input gives.
REGISTER_OP("StridedSliceGrad")
    .Input("shape: Index")
    .Input("begin: Index")
    .Input("end: Index")
    .Input("strides: Index")
    .Input("dy: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Index: {int32, int64}")
    .Attr("begin_mask: int = 0")
    .Attr("end_mask: int = 0")
    .Attr("ellipsis_mask: int = 0")
    .Attr("new_axis_mask: int = 0")
    .Attr("shrink_axis_mask: int = 0")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle out;
      OPKIT_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &out));
      c->set_output(0, out);
      return Status::OK();
    });

REGISTER_OP("GatherV2")
    .Input("params: Tparams")
    .Input("indices: Tindices")
    .Input("axis: Taxis")
    .Attr("batch_dims: int = 0")
    .Output("output: Tparams")
    .Attr("Tparams: type")
    .Attr("Tindices: {int32,int64}")
    .Attr("Taxis: {int32,int64}")
    .SetShapeFn(GatherV2Shape);

}  // namespace opkit
