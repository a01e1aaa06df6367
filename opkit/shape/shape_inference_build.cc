// InferenceContext: making shapes. Subshape, Concatenate, ReplaceDim,
// MakeShape and friends; shapes from constant shape tensors, protos and
// (Partial)TensorShapes and back; scalars and dimensions read from
// constant input tensors.
#include <algorithm>
#include <limits>
#include <vector>

#include "opkit/core/str_util.h"
#include "opkit/shape/internal/max_rank.h"
#include "opkit/shape/shape_inference.h"

namespace opkit {
namespace shape_inference {

// ---------------------------------------------------------------------------
// Building.

Status InferenceContext::Subshape(ShapeHandle s, int64_t start, ShapeHandle* out) {
  return Subshape(s, start, std::numeric_limits<int64_t>::max(), 1, out);
}

Status InferenceContext::Subshape(ShapeHandle s, int64_t start, int64_t end,
                                  ShapeHandle* out) {
  return Subshape(s, start, end, 1, out);
}

Status InferenceContext::Subshape(ShapeHandle s, int64_t start_in, int64_t end_in,
                                  int64_t stride, ShapeHandle* out) {
  if (stride == 0) {
    *out = ShapeHandle();
    return errors::InvalidArgument("Subshape stride must not be 0");
  }
  int64_t start = start_in;
  int64_t end = end_in;
  const int64_t rank = Rank(s);
  if (start == 0 && stride == 1 &&
      ((rank != kUnknownRank && end >= rank) || end == std::numeric_limits<int64_t>::max())) {
    *out = s.IsSet() ? s : UnknownShape();
    return Status::OK();
  }
  if (rank == kUnknownRank) {
    *out = UnknownShape();
    return Status::OK();
  }
  if (start > rank) start = rank;
  if (end > rank) end = rank;
  if (stride < 0 && start == rank) --start;
  if (start < 0) {
    start += rank;  // rank >= 0 and start < 0: cannot overflow
    if (start < 0) {
      *out = ShapeHandle();
      return errors::InvalidArgument("Subshape start out of bounds: ", start_in,
                                     ", for shape with rank ", rank);
    }
  }
  if (end < 0) {
    end += rank;
    if (end < 0 && !(stride < 0 && end == -1)) {
      *out = ShapeHandle();
      return errors::InvalidArgument("Subshape end out of bounds: ", end_in,
                                     ", for shape with rank ", rank);
    }
  }
  if (stride > 0 && start > end) {
    *out = ShapeHandle();
    return errors::InvalidArgument("Subshape must have computed start <= end, but is ", start,
                                   " and ", end, " (computed from start ", start_in,
                                   " and end ", end_in, " over shape with rank ", rank, ")");
  }
  if (stride < 0 && start < end) {
    *out = ShapeHandle();
    return errors::InvalidArgument(
        "Subshape must have computed start >= end since stride is negative, but is ", start,
        " and ", end, " (computed from start ", start_in, " and end ", end_in,
        " over shape with rank ", rank, " and stride", stride, ")");
  }
  std::vector<DimensionHandle> dims;
  for (int64_t i = start; stride > 0 ? i < end : i > end;) {
    if (i >= 0 && i < rank) dims.push_back(s.ptr_->dims_[i]);
    if (__builtin_add_overflow(i, stride, &i)) break;
  }
  *out = MakeShape(dims);
  return Status::OK();
}

Status InferenceContext::Concatenate(ShapeHandle s1, ShapeHandle s2, ShapeHandle* out) {
  if (!RankKnown(s1) || !RankKnown(s2)) {
    *out = UnknownShape();
    return Status::OK();
  }
  const int64_t rank = static_cast<int64_t>(Rank(s1)) + Rank(s2);
  if (rank > kMaxRank) {
    *out = ShapeHandle();
    return errors::InvalidArgument("Concatenating ", DebugString(s1), " and ", DebugString(s2),
                                   " gives rank ", rank, ", more than the maximum of ",
                                   kMaxRank);
  }
  std::vector<DimensionHandle> dims = s1.ptr_->dims_;
  dims.insert(dims.end(), s2.ptr_->dims_.begin(), s2.ptr_->dims_.end());
  *out = MakeShape(dims);
  return Status::OK();
}

Status InferenceContext::ReplaceDim(ShapeHandle s, int64_t dim_index_in,
                                    DimensionHandle new_dim, ShapeHandle* out) {
  if (!RankKnown(s)) {
    *out = UnknownShape();
    return Status::OK();
  }
  const int64_t rank = Rank(s);
  int64_t dim_index = dim_index_in;
  if (dim_index < 0) dim_index += rank;
  if (dim_index < 0 || dim_index >= rank) {
    *out = ShapeHandle();
    return errors::InvalidArgument("Out of range dim_index ", dim_index_in, " for shape with ",
                                   rank, " dimensions");
  }
  std::vector<DimensionHandle> dims = s.ptr_->dims_;
  dims[dim_index] = new_dim;
  *out = MakeShape(dims);
  return Status::OK();
}

DimensionHandle InferenceContext::MakeDim(DimensionOrConstant d) {
  if (d.dim.IsSet()) return d.dim;
  const int64_t v = d.val < 0 ? kUnknownDim : d.val;
  all_dims_.push_back(std::unique_ptr<Dimension>(new Dimension(v)));
  return DimensionHandle(all_dims_.back().get());
}

ShapeHandle InferenceContext::MakeShape(const std::vector<DimensionHandle>& dims) {
  if (static_cast<int64_t>(dims.size()) > kMaxRank) return UnknownShape();
  std::vector<DimensionHandle> owned(dims);
  for (DimensionHandle& d : owned) {
    if (!d.IsSet()) d = UnknownDim();
  }
  all_shapes_.push_back(std::unique_ptr<Shape>(new Shape(std::move(owned))));
  return ShapeHandle(all_shapes_.back().get());
}

ShapeHandle InferenceContext::MakeShape(std::initializer_list<DimensionOrConstant> dims) {
  std::vector<DimensionHandle> handles;
  handles.reserve(dims.size());
  for (const DimensionOrConstant& d : dims) handles.push_back(MakeDim(d));
  return MakeShape(handles);
}

ShapeHandle InferenceContext::UnknownShape() {
  all_shapes_.push_back(std::unique_ptr<Shape>(new Shape()));
  return ShapeHandle(all_shapes_.back().get());
}

ShapeHandle InferenceContext::UnknownShapeOfRank(int64_t rank) {
  if (rank < 0 || rank > kMaxRank) return UnknownShape();
  std::vector<DimensionHandle> dims(rank);
  for (DimensionHandle& d : dims) d = UnknownDim();
  return MakeShape(dims);
}

ShapeHandle InferenceContext::Scalar() { return MakeShape(std::vector<DimensionHandle>()); }

ShapeHandle InferenceContext::Vector(DimensionOrConstant dim) { return MakeShape({dim}); }

ShapeHandle InferenceContext::Matrix(DimensionOrConstant dim1, DimensionOrConstant dim2) {
  return MakeShape({dim1, dim2});
}

Status InferenceContext::MakeShapeFromShapeTensor(int input_idx, ShapeHandle* out) {
  return MakeShapeFromShapeTensorImpl(input_idx, /*treat_scalar_as_unknown=*/false,
                                      out);
}

Status InferenceContext::MakeShapeFromShapeTensorTreatScalarAsUnknownShape(int input_idx,
                                                                           ShapeHandle* out) {
  return MakeShapeFromShapeTensorImpl(input_idx, /*treat_scalar_as_unknown=*/true,
                                      out);
}

Status InferenceContext::MakeShapeFromShapeTensorImpl(int input_idx,
                                                      bool treat_scalar_as_unknown,
                                                      ShapeHandle* out) {
  *out = ShapeHandle();
  if (input_idx < 0 || input_idx >= num_inputs()) {
    return errors::InvalidArgument("Input index ", input_idx, " is out of range; op '",
                                   op_name_, "' has ", num_inputs(), " inputs");
  }
  // A shape tensor is a vector; with treat_scalar_as_unknown a scalar (-1)
  // may stand for an unknown shape too.
  ShapeHandle input_shape;
  if (treat_scalar_as_unknown) {
    OPKIT_RETURN_IF_ERROR(WithRankAtMost(input(input_idx), 1, &input_shape));
  } else {
    OPKIT_RETURN_IF_ERROR(WithRank(input(input_idx), 1, &input_shape));
  }
  requested_input_tensor_as_partial_shape_[input_idx] = true;
  const ShapeHandle as_shape = input_tensors_as_shapes_[input_idx];
  if (RankKnown(as_shape)) {
    *out = as_shape;
    return Status::OK();
  }
  return InternalMakeShapeFromTensor(treat_scalar_as_unknown, input_tensor(input_idx),
                                     input_shape, out);
}

Status InferenceContext::InternalMakeShapeFromTensor(bool treat_scalar_as_unknown,
                                                     const Tensor* t,
                                                     ShapeHandle tensor_shape,
                                                     ShapeHandle* out) {
  if (t == nullptr) {
    // The value is unknown, but the length of the shape vector may be.
    if (treat_scalar_as_unknown && Rank(tensor_shape) == 0) {
      *out = UnknownShape();
      return Status::OK();
    }
    ShapeHandle vec;
    OPKIT_RETURN_IF_ERROR(WithRank(tensor_shape, 1, &vec));
    const int64_t n = Value(Dim(vec, 0));
    if (n == kUnknownDim) {
      *out = UnknownShape();
      return Status::OK();
    }
    if (n > kMaxRank) {
      return errors::InvalidArgument("Shape tensor has ", n,
                                     " elements, more than the maximum rank of ", kMaxRank);
    }
    *out = UnknownShapeOfRank(n);
    return Status::OK();
  }
  const DataType dtype = t->dtype();
  if (dtype != DT_INT32 && dtype != DT_INT64) {
    return errors::InvalidArgument("Input tensor must be int32 or int64, but was ",
                                   DataTypeString(dtype));
  }
  if (!t->IsInitialized() && t->NumElements() > 0) {
    return errors::InvalidArgument("Shape tensor has no data");
  }
  if (t->dims() == 0) {
    const int64_t v = dtype == DT_INT32 ? static_cast<int64_t>(t->scalar<int32>()())
                                        : static_cast<int64_t>(t->scalar<int64>()());
    if (treat_scalar_as_unknown && v == -1) {
      *out = UnknownShape();
      return Status::OK();
    }
    if (treat_scalar_as_unknown) {
      return errors::InvalidArgument(
          "Input tensor must be rank 1, or if its rank 0 it must have value -1 (saw rank 0 "
          "with value ", v, ")");
    }
    return errors::InvalidArgument("Input tensor must be rank 1, but was rank 0.");
  }
  if (t->dims() != 1) {
    return errors::InvalidArgument("Input tensor must be rank 1, but was rank ", t->dims(),
                                   ".");
  }
  const int64_t n = t->NumElements();
  if (n > kMaxRank) {
    return errors::InvalidArgument("Shape tensor has ", n,
                                   " elements, more than the maximum rank of ", kMaxRank);
  }
  std::vector<DimensionHandle> dims;
  dims.reserve(n);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = dtype == DT_INT32 ? static_cast<int64_t>(t->flat<int32>()(i))
                                        : static_cast<int64_t>(t->flat<int64>()(i));
    if (v >= 0) {
      dims.push_back(MakeDim(v));
    } else if (v == -1) {
      dims.push_back(UnknownDim());
    } else {
      return errors::InvalidArgument("Invalid value in tensor used for shape: ", v);
    }
  }
  *out = MakeShape(dims);
  return Status::OK();
}

Status InferenceContext::MakeShapeFromShapeProto(const TensorShapeProto& proto,
                                                 ShapeHandle* out) {
  *out = ShapeHandle();
  OPKIT_RETURN_IF_ERROR(PartialTensorShape::IsValidShape(proto));
  if (proto.unknown_rank()) {
    *out = UnknownShape();
    return Status::OK();
  }
  std::vector<DimensionHandle> dims;
  for (const auto& d : proto.dim()) dims.push_back(MakeDim(d.size() < 0 ? -1 : d.size()));
  *out = MakeShape(dims);
  return Status::OK();
}

Status InferenceContext::MakeShapeFromPartialTensorShape(const PartialTensorShape& partial_shape,
                                                         ShapeHandle* out) {
  if (partial_shape.unknown_rank()) {
    *out = UnknownShape();
    return Status::OK();
  }
  if (partial_shape.dims() > kMaxRank) {
    *out = ShapeHandle();
    return errors::InvalidArgument("Shape ", partial_shape.DebugString(),
                                   " has more than ", kMaxRank, " dimensions");
  }
  std::vector<DimensionHandle> dims;
  for (int64_t size : partial_shape.dim_sizes()) dims.push_back(MakeDim(size));
  *out = MakeShape(dims);
  return Status::OK();
}

Status InferenceContext::MakeShapeFromTensorShape(const TensorShape& shape, ShapeHandle* out) {
  return MakeShapeFromPartialTensorShape(PartialTensorShape(shape), out);
}

void InferenceContext::ShapeHandleToProto(ShapeHandle handle, TensorShapeProto* proto) {
  proto->Clear();
  if (!RankKnown(handle)) {
    proto->set_unknown_rank(true);
    return;
  }
  for (const DimensionHandle& d : handle.ptr_->dims_) {
    proto->add_dim()->set_size(Value(d));
  }
}

PartialTensorShape InferenceContext::ShapeHandleToPartialTensorShape(ShapeHandle handle) {
  if (!RankKnown(handle)) return PartialTensorShape();
  std::vector<int64_t> sizes;
  for (const DimensionHandle& d : handle.ptr_->dims_) sizes.push_back(Value(d));
  PartialTensorShape result;
  // Sizes come from dims that are >= -1 and at most kMaxRank of them; only an
  // int64 overflow of the element count can fail, and then the shape keeps
  // its rank with unknown dims.
  if (!PartialTensorShape::BuildPartialTensorShape(sizes, &result).ok()) {
    std::vector<int64_t> unknown(sizes.size(), -1);
    (void)PartialTensorShape::BuildPartialTensorShape(unknown, &result);
  }
  return result;
}

// ---------------------------------------------------------------------------
// Scalars from tensors.

Status InferenceContext::GetScalarFromTensor(const Tensor* t, int64_t* val) {
  if (t == nullptr) return errors::InvalidArgument("Input tensor is not known");
  if (t->dims() != 0) {
    return errors::InvalidArgument("Input must be scalar but has rank ", t->dims());
  }
  if (!t->IsInitialized()) return errors::InvalidArgument("Input tensor has no data");
  if (t->dtype() == DT_INT32) {
    *val = t->scalar<int32>()();
    return Status::OK();
  }
  if (t->dtype() == DT_INT64) {
    *val = t->scalar<int64>()();
    return Status::OK();
  }
  return errors::InvalidArgument("Scalar input must be int32 or int64.");
}

Status InferenceContext::GetScalarFromTensor(const Tensor* t, int64_t idx, int64_t* val) {
  if (t == nullptr) return errors::InvalidArgument("Input tensor is not known");
  if (t->dims() != 1) {
    return errors::InvalidArgument("Input must be 1D but has rank ", t->dims());
  }
  if (idx < 0 || idx >= t->NumElements()) {
    return errors::InvalidArgument("Invalid index ", idx, " for Tensor of shape ",
                                   t->shape().DebugString());
  }
  if (!t->IsInitialized()) return errors::InvalidArgument("Input tensor has no data");
  if (t->dtype() == DT_INT32) {
    *val = t->flat<int32>()(idx);
    return Status::OK();
  }
  if (t->dtype() == DT_INT64) {
    *val = t->flat<int64>()(idx);
    return Status::OK();
  }
  return errors::InvalidArgument("Tensor input must be int32 or int64.");
}

Status InferenceContext::MakeDimForScalarInput(int idx, DimensionHandle* out) {
  const Tensor* t = input_tensor(idx);
  if (t == nullptr) {
    *out = UnknownDim();
    return Status::OK();
  }
  int64_t val = 0;
  OPKIT_RETURN_IF_ERROR(GetScalarFromTensor(t, &val));
  if (val < 0) {
    return errors::InvalidArgument("Dimension size, given by scalar input ", idx,
                                   ", must be non-negative but is ", val);
  }
  *out = MakeDim(val);
  return Status::OK();
}

Status InferenceContext::MakeDimForScalarInputWithNegativeIndexing(int idx, int input_rank,
                                                                   DimensionHandle* out) {
  const Tensor* t = input_tensor(idx);
  if (t == nullptr) {
    *out = UnknownDim();
    return Status::OK();
  }
  int64_t val = 0;
  OPKIT_RETURN_IF_ERROR(GetScalarFromTensor(t, &val));
  if (val < 0) {
    if (input_rank < 0) {
      *out = UnknownDim();
      return Status::OK();
    }
    if (val < -static_cast<int64_t>(input_rank)) {
      return errors::InvalidArgument("Dimension size, given by scalar input ", val,
                                     " must be in range [-", input_rank, ", ", input_rank, ")");
    }
    val += input_rank;
  } else if (input_rank >= 0 && val >= input_rank) {
    return errors::InvalidArgument("Dimension size, given by scalar input ", val,
                                   " must be in range [-", input_rank, ", ", input_rank, ")");
  }
  *out = MakeDim(val);
  return Status::OK();
}

}  // namespace shape_inference
}  // namespace opkit
