// Shape functions of the ops that index into a tensor: Slice, GatherNd, the
// ScatterNd checks, segment reductions with num_segments and the sparse
// reductions (declared in common_shape_fns.h). Behaviour and messages follow
// TensorFlow's common_shape_fns.cc; constant inputs of the wrong dtype or
// out of range are InvalidArgument, never a crash.
#include <cstdint>
#include <set>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/shape/common_shape_fns.h"
#include "opkit/tensor/tensor.h"

namespace opkit {
namespace shape_inference {

Status SliceShape(InferenceContext* c) {
  ShapeHandle input = c->input(0);
  ShapeHandle begin_shape, sizes_shape;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &begin_shape));
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, &sizes_shape));
  OPKIT_RETURN_IF_ERROR(c->Merge(begin_shape, sizes_shape, &begin_shape));
  DimensionHandle ndims = c->Dim(begin_shape, 0);
  if (c->ValueKnown(ndims)) {
    OPKIT_RETURN_IF_ERROR(c->WithRank(input, c->Value(ndims), &input));
  }
  // What is known of begin, element by element.
  ShapeHandle begin_value;
  OPKIT_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(1, &begin_value));

  const Tensor* sizes_tensor = c->input_tensor(2);
  if (sizes_tensor != nullptr) {
    // A size of -1 (the rest of the dimension) is not a shape value, so
    // the sizes are read from the tensor itself.
    std::vector<int64_t> sizes;
    OPKIT_RETURN_IF_ERROR(ReadIntTensor(*sizes_tensor, "Slice size", &sizes));
    OPKIT_RETURN_IF_ERROR(c->WithRank(
        begin_value, static_cast<int64_t>(sizes.size()), &begin_value));
    std::vector<DimensionHandle> dims;
    for (size_t i = 0; i < sizes.size(); ++i) {
      const int64_t d = static_cast<int64_t>(i);
      DimensionHandle in_dim = c->Dim(input, d);
      if (sizes[i] == -1) {
        DimensionHandle rest;
        OPKIT_RETURN_IF_ERROR(
            c->Subtract(in_dim, c->Dim(begin_value, d), &rest));
        dims.push_back(rest);
      } else if (sizes[i] < 0) {
        return errors::InvalidArgument(
            "Out of bounds slicing on dimension ", i, " of length ",
            c->Value(in_dim), ": sizes vector cannot be < -1, but was ",
            sizes[i]);
      } else {
        dims.push_back(c->MakeDim(sizes[i]));
      }
    }
    c->set_output(0, c->MakeShape(dims));
    return OkStatus();
  }
  // Sizes not constant: what is known of them (-1 reads as unknown).
  ShapeHandle sizes_value;
  OPKIT_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(2, &sizes_value));
  if (c->RankKnown(sizes_value)) {
    OPKIT_RETURN_IF_ERROR(
        c->WithRank(begin_value, c->Rank(sizes_value), &begin_value));
    c->set_output(0, sizes_value);
    return OkStatus();
  }
  c->set_output(0, c->RankKnown(input) ? c->UnknownShapeOfRank(c->Rank(input))
                                       : c->UnknownShape());
  return OkStatus();
}

Status GatherNdShape(InferenceContext* c) {
  ShapeHandle params;
  if (c->input_handle_shapes_and_types(0) != nullptr) {
    std::vector<ShapeAndType> handle;
    OPKIT_RETURN_IF_ERROR(ValidateVariableResourceHandle(c, &handle));
    params = handle[0].shape;
  } else {
    params = c->input(0);
  }
  ShapeHandle indices;
  OPKIT_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 1, &indices));
  DimensionHandle r = c->Dim(indices, -1);
  if (!c->RankKnown(params) || !c->ValueKnown(r)) {
    c->set_output(0, c->UnknownShape());
    return OkStatus();
  }
  if (c->Value(r) > c->Rank(params)) {
    return errors::InvalidArgument(
        "indices.shape[-1] must be <= params.rank, but saw indices shape: ",
        c->DebugString(indices), " and params shape: ", c->DebugString(params));
  }
  ShapeHandle indices_prefix, params_suffix, out;
  OPKIT_RETURN_IF_ERROR(c->Subshape(indices, 0, -1, &indices_prefix));
  OPKIT_RETURN_IF_ERROR(c->Subshape(params, c->Value(r), &params_suffix));
  OPKIT_RETURN_IF_ERROR(c->Concatenate(indices_prefix, params_suffix, &out));
  c->set_output(0, out);
  return OkStatus();
}

Status ScatterNdShapeHelper(InferenceContext* c, ShapeHandle indices_shape,
                            ShapeHandle updates_shape,
                            ShapeHandle input_shape) {
  if (c->Value(c->NumElements(input_shape)) == 0 &&
      (c->Value(c->NumElements(indices_shape)) > 0 ||
       c->Value(c->NumElements(updates_shape)) > 0)) {
    return errors::InvalidArgument(
        "Indices and updates specified for empty input");
  }
  if (c->RankKnown(indices_shape) && c->RankKnown(updates_shape) &&
      c->Rank(updates_shape) != 0) {
    const int64_t outer_dims = c->Rank(indices_shape) - 1;
    DimensionHandle ixdim = c->Dim(indices_shape, -1);
    if (c->ValueKnown(ixdim)) {
      const int64_t ix = c->Value(ixdim);
      ShapeHandle unused, prefix_indices, prefix_updates;
      OPKIT_RETURN_IF_ERROR(
          c->Subshape(indices_shape, 0, outer_dims, &prefix_indices));
      OPKIT_RETURN_IF_ERROR(
          c->Subshape(updates_shape, 0, outer_dims, &prefix_updates));
      Status s = c->Merge(prefix_indices, prefix_updates, &unused);
      if (!s.ok()) {
        return errors::InvalidArgument(
            "Dimensions [0,", outer_dims, ") of indices[shape=",
            c->DebugString(indices_shape), "] = ",
            c->DebugString(prefix_indices), " must match dimensions [0,",
            outer_dims, ") of updates[shape=", c->DebugString(updates_shape),
            "] = ", c->DebugString(prefix_updates), ": ", s.error_message());
      }
      ShapeHandle suffix_output, suffix_updates;
      OPKIT_RETURN_IF_ERROR(c->Subshape(input_shape, ix, &suffix_output));
      OPKIT_RETURN_IF_ERROR(
          c->Subshape(updates_shape, outer_dims, &suffix_updates));
      s = c->Merge(suffix_output, suffix_updates, &unused);
      if (!s.ok()) {
        return errors::InvalidArgument(
            "Dimensions [", ix, ",", c->Rank(input_shape), ") of input[shape=",
            c->DebugString(input_shape), "] = ", c->DebugString(suffix_output),
            " must match dimensions [", outer_dims, ",",
            c->Rank(updates_shape), ") of updates[shape=",
            c->DebugString(updates_shape), "] = ",
            c->DebugString(suffix_updates), ": ", s.error_message());
      }
    }
  }
  if (c->input_handle_shapes_and_types(0) == nullptr && c->num_outputs() > 0) {
    c->set_output(0, input_shape);
  }
  return OkStatus();
}

Status SegmentReductionWithNumSegmentsShapeFn(InferenceContext* c) {
  ShapeHandle data = c->input(0);
  ShapeHandle segment_ids = c->input(1);
  ShapeHandle num_segments;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, &num_segments));
  if (!c->RankKnown(segment_ids)) {
    c->set_output(0, c->UnknownShape());
    return OkStatus();
  }
  OPKIT_RETURN_IF_ERROR(c->MergePrefix(data, segment_ids, &data, &segment_ids));
  DimensionHandle num_segments_dim;
  OPKIT_RETURN_IF_ERROR(c->MakeDimForScalarInput(2, &num_segments_dim));
  ShapeHandle data_suffix, out;
  OPKIT_RETURN_IF_ERROR(c->Subshape(data, c->Rank(segment_ids), &data_suffix));
  OPKIT_RETURN_IF_ERROR(
      c->Concatenate(c->Vector(num_segments_dim), data_suffix, &out));
  c->set_output(0, out);
  return OkStatus();
}

Status SparseReduceShapeFn(InferenceContext* c) {
  bool keep_dims = false;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("keep_dims", &keep_dims));
  const Tensor* shape_tensor = c->input_tensor(2);
  const Tensor* axes_tensor = c->input_tensor(3);
  if (shape_tensor == nullptr || axes_tensor == nullptr) {
    return UnknownShape(c);
  }
  std::vector<int64_t> shape, axes_values;
  OPKIT_RETURN_IF_ERROR(ReadIntTensor(*shape_tensor, "input_shape", &shape));
  OPKIT_RETURN_IF_ERROR(
      ReadIntTensor(*axes_tensor, "reduction_axes", &axes_values));
  const int64_t ndims = static_cast<int64_t>(shape.size());
  if (ndims == 0) {
    return errors::InvalidArgument(
        "Number of dims in shape tensor must not be 0");
  }
  // TensorFlow's (axis + ndims) % ndims, computed without overflow: an axis
  // outside [-ndims, ndims) wraps (or, below -ndims, names no dimension)
  // here as there; the kernel rejects it when the op runs.
  std::set<int64_t> axes;
  for (int64_t axis : axes_values) {
    axes.insert(axis >= 0 ? axis % ndims : (axis + ndims) % ndims);
  }
  std::vector<DimensionHandle> dims;
  for (int64_t d = 0; d < ndims; ++d) {
    if (axes.count(d) == 0) {
      dims.push_back(c->MakeDim(shape[static_cast<size_t>(d)]));
    } else if (keep_dims) {
      dims.push_back(c->MakeDim(1));
    }
  }
  c->set_output(0, c->MakeShape(dims));
  return OkStatus();
}

}  // namespace shape_inference
}  // namespace opkit
