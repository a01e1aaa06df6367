// Built-in array ops. OpDefs are TensorFlow's for the same names
// (ops_conformance_test checks them against TensorFlow's ops.pbtxt); the
// shape functions follow TensorFlow's behaviour and error texts but never
// abort on what a graph supplies.
#include <cmath>
#include <cstdint>
#include <set>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/shape/common_shape_fns.h"
#include "opkit/op/op.h"
#include "opkit/shape/shape_inference.h"
#include "opkit/shape/strided_slice.h"
#include "opkit/tensor.pb.h"

namespace opkit {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

// The values of a constant int32/int64 input as int64.
Status ReadIndexTensor(const Tensor& t, const char* what, std::vector<int64_t>* out) {
  out->clear();
  if (t.dtype() == DT_INT32) {
    auto flat = t.unaligned_flat<int32>();
    out->assign(flat.data(), flat.data() + flat.size());
  } else if (t.dtype() == DT_INT64) {
    auto flat = t.unaligned_flat<int64>();
    out->assign(flat.data(), flat.data() + flat.size());
  } else {
    return errors::InvalidArgument(what, " must be int32 or int64, got ",
                                   DataTypeString(t.dtype()));
  }
  return Status::OK();
}

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

Status ConstShape(InferenceContext* c) {
  const AttrValue* value = nullptr;
  OPKIT_RETURN_IF_ERROR(c->attrs().Find("value", &value));
  if (value->value_case() != AttrValue::kTensor) {
    return errors::InvalidArgument("Attr 'value' of Const must be a tensor");
  }
  const TensorProto& proto = value->tensor();
  DataType dtype;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("dtype", &dtype));
  if (proto.dtype() != dtype) {
    return errors::InvalidArgument("Type mismatch between value (",
                                   DataTypeString(proto.dtype()), ") and dtype (",
                                   DataTypeString(dtype), ")");
  }
  OPKIT_RETURN_IF_ERROR(TensorShape::IsValidShape(proto.tensor_shape()));
  ShapeHandle out;
  OPKIT_RETURN_IF_ERROR(c->MakeShapeFromShapeProto(proto.tensor_shape(), &out));
  c->set_output(0, out);
  return Status::OK();
}

Status PlaceholderShape(InferenceContext* c) {
  PartialTensorShape shape;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
  ShapeHandle out;
  OPKIT_RETURN_IF_ERROR(c->MakeShapeFromPartialTensorShape(shape, &out));
  c->set_output(0, out);
  return Status::OK();
}

Status PlaceholderWithDefaultShape(InferenceContext* c) {
  PartialTensorShape shape;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
  ShapeHandle out;
  OPKIT_RETURN_IF_ERROR(c->MakeShapeFromPartialTensorShape(shape, &out));
  // The declared shape may be less precise than the default's: check they
  // agree, but promise only the declared one (a feed may differ).
  ShapeHandle unused;
  OPKIT_RETURN_IF_ERROR(c->Merge(c->input(0), out, &unused));
  c->set_output(0, out);
  return Status::OK();
}

Status IdentityNShape(InferenceContext* c) {
  std::vector<ShapeHandle> inputs;
  OPKIT_RETURN_IF_ERROR(c->input("input", &inputs));
  return c->set_output("output", inputs);
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
  OPKIT_RETURN_IF_ERROR(ReadIndexTensor(*sizes_t, "size_splits", &sizes));
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
  OPKIT_RETURN_IF_ERROR(ReadIndexTensor(*begin_t, "begin", &begin));
  OPKIT_RETURN_IF_ERROR(ReadIndexTensor(*size_t_, "size", &size));
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
  OPKIT_RETURN_IF_ERROR(ReadIndexTensor(*strides_t, "strides", &spec.strides));
  const Tensor* begin_t = c->input_tensor(1);
  const Tensor* end_t = c->input_tensor(2);
  spec.begin_known = begin_t != nullptr;
  spec.end_known = end_t != nullptr;
  if (begin_t) OPKIT_RETURN_IF_ERROR(ReadIndexTensor(*begin_t, "begin", &spec.begin));
  if (end_t) OPKIT_RETURN_IF_ERROR(ReadIndexTensor(*end_t, "end", &spec.end));
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

Status ShapeShape(InferenceContext* c) {
  c->set_output(0, c->Vector(c->RankKnown(c->input(0)) ? c->Rank(c->input(0))
                                                        : InferenceContext::kUnknownDim));
  return Status::OK();
}

Status FillShape(InferenceContext* c) {
  ShapeHandle unused;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &unused));
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  if (const Tensor* t = c->input_tensor(0)) {
    std::vector<int64_t> dims;
    OPKIT_RETURN_IF_ERROR(ReadIndexTensor(*t, "dims", &dims));
    for (int64_t d : dims) {
      if (d < 0) return errors::InvalidArgument("Fill dimensions must be >= 0");
    }
  }
  ShapeHandle out;
  OPKIT_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &out));
  c->set_output(0, out);
  return Status::OK();
}

Status ExpandDimsShape(InferenceContext* c) {
  ShapeHandle input = c->input(0);
  const Tensor* dim_t = c->input_tensor(1);
  if (dim_t != nullptr && dim_t->NumElements() != 1) {
    return errors::InvalidArgument("'dim' input must be a tensor with a single value");
  }
  if (dim_t == nullptr || !c->RankKnown(input)) {
    c->set_output(0, c->UnknownShape());
    return Status::OK();
  }
  std::vector<int64_t> v;
  OPKIT_RETURN_IF_ERROR(ReadIndexTensor(*dim_t, "dim", &v));
  int64_t dim = v[0];
  const int64_t rank = c->Rank(input);
  if (dim < -1 - rank || dim > rank) {
    return errors::InvalidArgument("dim ", dim, " not in the interval [", -1 - rank,
                                   ", ", rank, "].");
  }
  if (dim < 0) dim += rank + 1;
  ShapeHandle head, tail, out;
  OPKIT_RETURN_IF_ERROR(c->Subshape(input, 0, dim, &head));
  OPKIT_RETURN_IF_ERROR(c->Subshape(input, dim, &tail));
  OPKIT_RETURN_IF_ERROR(c->Concatenate(head, c->Vector(1), &out));
  OPKIT_RETURN_IF_ERROR(c->Concatenate(out, tail, &out));
  c->set_output(0, out);
  return Status::OK();
}

Status SqueezeShape(InferenceContext* c) {
  ShapeHandle input = c->input(0);
  if (!c->RankKnown(input)) {
    c->set_output(0, c->UnknownShape());
    return Status::OK();
  }
  const int64_t rank = c->Rank(input);
  std::vector<int64_t> squeeze_dims;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("squeeze_dims", &squeeze_dims));
  std::set<int64_t> wanted;
  for (int64_t d : squeeze_dims) {
    if (d < -rank || d >= rank) {
      return errors::InvalidArgument("Tried to squeeze dim index ", d,
                                     " for tensor with ", rank, " dimensions.");
    }
    wanted.insert(d < 0 ? d + rank : d);
  }
  std::vector<DimensionHandle> result;
  for (int64_t i = 0; i < rank; ++i) {
    DimensionHandle dim = c->Dim(input, i);
    const bool explicit_match = wanted.count(i) > 0;
    if (!c->ValueKnown(dim)) {
      // Assume a dimension named explicitly is 1 at run time; with no
      // explicit list an unknown dimension might be 1, so nothing is known.
      if (explicit_match) continue;
      if (wanted.empty()) {
        c->set_output(0, c->UnknownShape());
        return Status::OK();
      }
    } else if (c->Value(dim) == 1) {
      if (wanted.empty() || explicit_match) continue;
    } else if (explicit_match) {
      return errors::InvalidArgument("Can not squeeze dim[", i,
                                     "], expected a dimension of 1, got ",
                                     c->Value(dim));
    }
    result.push_back(dim);
  }
  c->set_output(0, c->MakeShape(result));
  return Status::OK();
}

Status TileShape(InferenceContext* c) {
  ShapeHandle input = c->input(0);
  ShapeHandle multiples;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &multiples));
  if (c->RankKnown(input)) {
    DimensionHandle unused;
    OPKIT_RETURN_IF_ERROR(c->WithValue(c->Dim(multiples, 0), c->Rank(input), &unused));
  }
  const Tensor* multiples_t = c->input_tensor(1);
  int64_t rank = c->Rank(input);
  if (rank == InferenceContext::kUnknownRank) rank = c->Value(c->Dim(multiples, 0));
  if (rank == InferenceContext::kUnknownDim) {
    c->set_output(0, c->UnknownShape());
    return Status::OK();
  }
  OPKIT_RETURN_IF_ERROR(c->WithRank(input, rank, &input));
  if (multiples_t == nullptr) {
    c->set_output(0, c->UnknownShapeOfRank(rank));
    return Status::OK();
  }
  std::vector<int64_t> m;
  OPKIT_RETURN_IF_ERROR(ReadIndexTensor(*multiples_t, "multiples", &m));
  std::vector<DimensionHandle> dims;
  for (int64_t i = 0; i < rank && i < static_cast<int64_t>(m.size()); ++i) {
    if (m[i] < 0) {
      return errors::InvalidArgument("Expected multiples[", i, "] >= 0, but got ", m[i]);
    }
    DimensionHandle d;
    OPKIT_RETURN_IF_ERROR(c->Multiply(c->Dim(input, i), m[i], &d));
    dims.push_back(d);
  }
  c->set_output(0, c->MakeShape(dims));
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
  OPKIT_RETURN_IF_ERROR(ReadIndexTensor(*axis_t, "axis", &v));
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

// The number of elements Range produces, for one element type.
template <typename T>
Status RangeSize(const Tensor& start_t, const Tensor& limit_t, const Tensor& delta_t,
                 int64_t* size) {
  const double start = static_cast<double>(start_t.unaligned_flat<T>()(0));
  const double limit = static_cast<double>(limit_t.unaligned_flat<T>()(0));
  const double delta = static_cast<double>(delta_t.unaligned_flat<T>()(0));
  if (delta == 0) return errors::InvalidArgument("Requires delta != 0");
  if (delta > 0 && start > limit) {
    return errors::InvalidArgument("Requires start <= limit when delta > 0: ", start,
                                   "/", limit);
  }
  if (delta < 0 && start < limit) {
    return errors::InvalidArgument("Requires start >= limit when delta < 0: ", start,
                                   "/", limit);
  }
  const double n = std::ceil(std::abs((limit - start) / delta));
  if (!(n <= 9.2e18)) {
    return errors::InvalidArgument("Requires ((limit - start) / delta) <= ",
                                   INT64_MAX);
  }
  *size = static_cast<int64_t>(n);
  return Status::OK();
}

Status RangeShape(InferenceContext* c) {
  ShapeHandle unused;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(0), 0, &unused));
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, &unused));
  const Tensor* start = c->input_tensor(0);
  const Tensor* limit = c->input_tensor(1);
  const Tensor* delta = c->input_tensor(2);
  if (start == nullptr || limit == nullptr || delta == nullptr ||
      start->dims() != 0 || limit->dims() != 0 || delta->dims() != 0 ||
      start->dtype() != limit->dtype() || start->dtype() != delta->dtype()) {
    c->set_output(0, c->Vector(InferenceContext::kUnknownDim));
    return Status::OK();
  }
  // Integer ranges are counted exactly; floating ones as the kernel does.
  int64_t size = 0;
  switch (start->dtype()) {
    case DT_INT32: case DT_INT64: case DT_INT16: case DT_INT8: case DT_UINT32: {
      std::vector<int64_t> s, l, d;
      if (start->dtype() == DT_INT32 || start->dtype() == DT_INT64) {
        OPKIT_RETURN_IF_ERROR(ReadIndexTensor(*start, "start", &s));
        OPKIT_RETURN_IF_ERROR(ReadIndexTensor(*limit, "limit", &l));
        OPKIT_RETURN_IF_ERROR(ReadIndexTensor(*delta, "delta", &d));
      } else {
        c->set_output(0, c->Vector(InferenceContext::kUnknownDim));
        return Status::OK();
      }
      const int64_t a = s[0], b = l[0], step = d[0];
      if (step == 0) return errors::InvalidArgument("Requires delta != 0");
      if (step > 0 && a > b) {
        return errors::InvalidArgument("Requires start <= limit when delta > 0: ", a,
                                       "/", b);
      }
      if (step < 0 && a < b) {
        return errors::InvalidArgument("Requires start >= limit when delta < 0: ", a,
                                       "/", b);
      }
      const uint64_t span = step > 0 ? static_cast<uint64_t>(b) - static_cast<uint64_t>(a)
                                     : static_cast<uint64_t>(a) - static_cast<uint64_t>(b);
      const uint64_t mag = step > 0 ? static_cast<uint64_t>(step)
                                    : uint64_t{0} - static_cast<uint64_t>(step);
      size = static_cast<int64_t>(span / mag + (span % mag != 0 ? 1 : 0));
      break;
    }
    case DT_FLOAT:
      OPKIT_RETURN_IF_ERROR(RangeSize<float>(*start, *limit, *delta, &size));
      break;
    case DT_DOUBLE:
      OPKIT_RETURN_IF_ERROR(RangeSize<double>(*start, *limit, *delta, &size));
      break;
    default:
      c->set_output(0, c->Vector(InferenceContext::kUnknownDim));
      return Status::OK();
  }
  c->set_output(0, c->Vector(size));
  return Status::OK();
}

Status OneHotShape(InferenceContext* c) {
  int64_t axis;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("axis", &axis));
  if (axis < -1) return errors::InvalidArgument("axis must be >= -1");
  DimensionHandle depth;
  ShapeHandle unused;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, &unused));
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(3), 0, &unused));
  OPKIT_RETURN_IF_ERROR(c->MakeDimForScalarInput(1, &depth));
  ShapeHandle indices = c->input(0);
  if (!c->RankKnown(indices)) {
    c->set_output(0, c->UnknownShape());
    return Status::OK();
  }
  const int64_t rank = c->Rank(indices);
  if (axis > rank) {
    return errors::InvalidArgument("Expected axis to be -1 or between [0, ", rank,
                                   "].  But received: ", axis);
  }
  const int64_t at = axis == -1 ? rank : axis;
  ShapeHandle head, tail, out;
  OPKIT_RETURN_IF_ERROR(c->Subshape(indices, 0, at, &head));
  OPKIT_RETURN_IF_ERROR(c->Subshape(indices, at, &tail));
  OPKIT_RETURN_IF_ERROR(c->Concatenate(head, c->Vector(depth), &out));
  OPKIT_RETURN_IF_ERROR(c->Concatenate(out, tail, &out));
  c->set_output(0, out);
  return Status::OK();
}

Status PadShape(InferenceContext* c) {
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
  const Tensor* paddings_t = c->input_tensor(1);
  if (!c->RankKnown(input)) {
    c->set_output(0, c->UnknownShape());
    return Status::OK();
  }
  const int64_t rank = c->Rank(input);
  if (paddings_t == nullptr) {
    c->set_output(0, c->UnknownShapeOfRank(rank));
    return Status::OK();
  }
  std::vector<int64_t> p;
  OPKIT_RETURN_IF_ERROR(ReadIndexTensor(*paddings_t, "paddings", &p));
  if (static_cast<int64_t>(p.size()) != 2 * rank) {
    return errors::InvalidArgument("paddings must be a [", rank, ", 2] matrix, got ",
                                   paddings_t->shape().DebugString());
  }
  std::vector<DimensionHandle> dims;
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t before = p[2 * i], after = p[2 * i + 1];
    if (before < 0 || after < 0) {
      return errors::InvalidArgument("Paddings must be non-negative: ", before, " ",
                                     after);
    }
    DimensionHandle d;
    OPKIT_RETURN_IF_ERROR(c->Add(c->Dim(input, i), before, &d));
    OPKIT_RETURN_IF_ERROR(c->Add(d, after, &d));
    dims.push_back(d);
  }
  c->set_output(0, c->MakeShape(dims));
  return Status::OK();
}

}  // namespace

REGISTER_OP("Const")
    .Output("output: dtype")
    .Attr("value: tensor")
    .Attr("dtype: type")
    .SetShapeFn(ConstShape);

REGISTER_OP("Placeholder")
    .Output("output: dtype")
    .Attr("dtype: type")
    .Attr("shape: shape = { unknown_rank: true }")
    .SetShapeFn(PlaceholderShape);

REGISTER_OP("PlaceholderWithDefault")
    .Input("input: dtype")
    .Output("output: dtype")
    .Attr("dtype: type")
    .Attr("shape: shape")
    .SetShapeFn(PlaceholderWithDefaultShape);

REGISTER_OP("Identity")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("IdentityN")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: list(type) >= 1")
    .SetShapeFn(IdentityNShape);

REGISTER_OP("StopGradient")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("Reshape")
    .Input("tensor: T")
    .Input("shape: Tshape")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn(shape_inference::ReshapeShape);

REGISTER_OP("Transpose")
    .Input("x: T")
    .Input("perm: Tperm")
    .Output("y: T")
    .Attr("T: type")
    .Attr("Tperm: {int32, int64} = DT_INT32")
    .SetShapeFn(shape_inference::TransposeShape);

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

REGISTER_OP("Shape")
    .Input("input: T")
    .Output("output: out_type")
    .Attr("T: type")
    .Attr("out_type: {int32, int64} = DT_INT32")
    .SetShapeFn(ShapeShape);

REGISTER_OP("Size")
    .Input("input: T")
    .Output("output: out_type")
    .Attr("T: type")
    .Attr("out_type: {int32, int64} = DT_INT32")
    .SetShapeFn(shape_inference::ScalarShape);

REGISTER_OP("Rank")
    .Input("input: T")
    .Output("output: int32")
    .Attr("T: type")
    .SetShapeFn(shape_inference::ScalarShape);

REGISTER_OP("Fill")
    .Input("dims: index_type")
    .Input("value: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("index_type: {int32, int64} = DT_INT32")
    .SetShapeFn(FillShape);

REGISTER_OP("ZerosLike")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: type")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("OnesLike")
    .Input("x: T")
    .Output("y: T")
    .Attr(
        "T: {bfloat16, half, float, double, int8, uint8, int16, uint16, int32, "
        "int64, complex64, complex128, bool}")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("ExpandDims")
    .Input("input: T")
    .Input("dim: Tdim")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tdim: {int32, int64} = DT_INT32")
    .SetShapeFn(ExpandDimsShape);

REGISTER_OP("Squeeze")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("squeeze_dims: list(int) >= 0 = []")
    .SetShapeFn(SqueezeShape);

REGISTER_OP("Tile")
    .Input("input: T")
    .Input("multiples: Tmultiples")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tmultiples: {int32, int64} = DT_INT32")
    .SetShapeFn(TileShape);

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

REGISTER_OP("Range")
    .Input("start: Tidx")
    .Input("limit: Tidx")
    .Input("delta: Tidx")
    .Output("output: Tidx")
    .Attr(
        "Tidx: {bfloat16, half, float, double, int8, int16, int32, int64, uint32} = "
        "DT_INT32")
    .SetShapeFn(RangeShape);

REGISTER_OP("OneHot")
    .Input("indices: TI")
    .Input("depth: int32")
    .Input("on_value: T")
    .Input("off_value: T")
    .Attr("axis: int = -1")
    .Output("output: T")
    .Attr("T: type")
    .Attr("TI: {uint8, int32, int64} = DT_INT64")
    .SetShapeFn(OneHotShape);

REGISTER_OP("Pad")
    .Input("input: T")
    .Input("paddings: Tpaddings")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tpaddings: {int32, int64} = DT_INT32")
    .SetShapeFn(PadShape);

}  // namespace opkit
