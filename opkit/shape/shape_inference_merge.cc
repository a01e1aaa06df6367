// InferenceContext: reading shapes (Dim, NumElements, DebugString) and the
// checks that narrow them: WithRank*, WithValue, Merge, MergePrefix, Relax.
#include <string>
#include <vector>

#include "opkit/core/str_util.h"
#include "opkit/shape/internal/max_rank.h"
#include "opkit/shape/shape_inference.h"

namespace opkit {
namespace shape_inference {

// ---------------------------------------------------------------------------
// Reading shapes.

DimensionHandle InferenceContext::Dim(ShapeHandle s, int64_t idx) {
  DimensionHandle d = DimKnownRank(s, idx);
  return d.IsSet() ? d : UnknownDim();
}

DimensionHandle InferenceContext::DimKnownRank(ShapeHandle s, int64_t idx) {
  if (!RankKnown(s)) return DimensionHandle();
  const int64_t rank = Rank(s);
  if (idx < 0) {
    if (idx < -rank) return DimensionHandle();
    idx += rank;
  }
  if (idx >= rank) return DimensionHandle();
  return s.ptr_->dims_[idx];
}

bool InferenceContext::FullyDefined(ShapeHandle s) {
  if (!RankKnown(s)) return false;
  for (const DimensionHandle& d : s.ptr_->dims_) {
    if (!ValueKnown(d)) return false;
  }
  return true;
}

DimensionHandle InferenceContext::NumElements(ShapeHandle s) {
  if (!RankKnown(s)) return UnknownDim();
  int64_t size = 1;
  for (const DimensionHandle& d : s.ptr_->dims_) {
    const int64_t v = Value(d);
    if (v < 0) return UnknownDim();
    if (__builtin_mul_overflow(size, v, &size)) return UnknownDim();
  }
  return MakeDim(size);
}

std::string InferenceContext::DebugString(ShapeHandle s) {
  if (!RankKnown(s)) return "?";
  std::vector<std::string> parts;
  for (const DimensionHandle& d : s.ptr_->dims_) parts.push_back(DebugString(d));
  return StrCat("[", StrJoin(parts, ","), "]");
}

std::string InferenceContext::DebugString(DimensionHandle d) {
  return ValueKnown(d) ? StrCat(Value(d)) : std::string("?");
}

std::string InferenceContext::DebugString(const ShapeAndType& shape_and_type) {
  return StrCat(DebugString(shape_and_type.shape), ":",
                DataTypeString(shape_and_type.dtype));
}

std::string InferenceContext::DebugString(const std::vector<ShapeAndType>& shape_and_types) {
  std::vector<std::string> parts;
  for (const ShapeAndType& s : shape_and_types) parts.push_back(DebugString(s));
  return StrCat("[", StrJoin(parts, ","), "]");
}

// ---------------------------------------------------------------------------
// Checks that narrow.

Status InferenceContext::WithRank(ShapeHandle shape, int64_t rank, ShapeHandle* out) {
  if (rank < 0 || rank > kMaxRank) {
    *out = ShapeHandle();
    return errors::InvalidArgument("Rank must be between 0 and ", kMaxRank, ", got ", rank);
  }
  const int32_t existing = Rank(shape);
  if (existing == rank) {
    *out = shape;
    return Status::OK();
  }
  if (existing == kUnknownRank) {
    *out = UnknownShapeOfRank(rank);
    return Status::OK();
  }
  *out = ShapeHandle();
  return errors::InvalidArgument("Shape must be rank ", rank, " but is rank ", existing);
}

Status InferenceContext::WithRankAtLeast(ShapeHandle shape, int64_t rank, ShapeHandle* out) {
  if (rank < 0 || rank > kMaxRank) {
    *out = ShapeHandle();
    return errors::InvalidArgument("Rank must be between 0 and ", kMaxRank, ", got ", rank);
  }
  const int32_t existing = Rank(shape);
  if (existing == kUnknownRank || existing >= rank) {
    *out = shape;
    return Status::OK();
  }
  *out = ShapeHandle();
  return errors::InvalidArgument("Shape must be at least rank ", rank, " but is rank ",
                                 existing);
}

Status InferenceContext::WithRankAtMost(ShapeHandle shape, int64_t rank, ShapeHandle* out) {
  if (rank < 0 || rank > kMaxRank) {
    *out = ShapeHandle();
    return errors::InvalidArgument("Rank must be between 0 and ", kMaxRank, ", got ", rank);
  }
  const int32_t existing = Rank(shape);
  if (existing == kUnknownRank || existing <= rank) {
    *out = shape;
    return Status::OK();
  }
  *out = ShapeHandle();
  return errors::InvalidArgument("Shape must be at most rank ", rank, " but is rank ",
                                 existing);
}

Status InferenceContext::WithValue(DimensionHandle dim, int64_t value, DimensionHandle* out) {
  if (value < 0) {
    *out = DimensionHandle();
    return errors::InvalidArgument("Dimension value must be non-negative, got ", value);
  }
  const int64_t existing = Value(dim);
  if (existing == value) {
    *out = dim;
    return Status::OK();
  }
  if (existing == kUnknownDim) {
    *out = MakeDim(value);
    return Status::OK();
  }
  *out = DimensionHandle();
  return errors::InvalidArgument("Dimension must be ", value, " but is ", existing);
}

Status InferenceContext::Merge(DimensionHandle d0, DimensionHandle d1, DimensionHandle* out) {
  if (d0.SameHandle(d1) || !ValueKnown(d1)) {
    *out = d0.IsSet() ? d0 : d1;
    if (!out->IsSet()) *out = UnknownDim();
    return Status::OK();
  }
  if (!ValueKnown(d0)) {
    *out = d1;
    return Status::OK();
  }
  if (Value(d0) == Value(d1)) {
    *out = d0;
    return Status::OK();
  }
  *out = DimensionHandle();
  return errors::InvalidArgument("Dimensions must be equal, but are ", Value(d0), " and ",
                                 Value(d1));
}

Status InferenceContext::Merge(ShapeHandle s0, ShapeHandle s1, ShapeHandle* out) {
  if (s0.SameHandle(s1) || !RankKnown(s1)) {
    *out = s0.IsSet() ? s0 : (s1.IsSet() ? s1 : UnknownShape());
    return Status::OK();
  }
  if (!RankKnown(s0)) {
    *out = s1;
    return Status::OK();
  }
  const int32_t rank = Rank(s0);
  if (rank != Rank(s1)) {
    *out = ShapeHandle();
    return errors::InvalidArgument("Shapes must be equal rank, but are ", rank, " and ",
                                   Rank(s1));
  }
  bool is_s0 = true;
  bool is_s1 = true;
  std::vector<DimensionHandle> dims(rank);
  for (int32_t i = 0; i < rank; ++i) {
    const DimensionHandle d0 = s0.ptr_->dims_[i];
    const DimensionHandle d1 = s1.ptr_->dims_[i];
    Status st = Merge(d0, d1, &dims[i]);
    if (!st.ok()) {
      *out = ShapeHandle();
      return errors::InvalidArgument("Dimension ", i, " in both shapes must be equal, but are ",
                                     Value(d0), " and ", Value(d1), ". Shapes are ",
                                     DebugString(s0), " and ", DebugString(s1), ".");
    }
    if (!dims[i].SameHandle(d0)) is_s0 = false;
    if (!dims[i].SameHandle(d1)) is_s1 = false;
  }
  if (is_s0) {
    *out = s0;
  } else if (is_s1) {
    *out = s1;
  } else {
    *out = MakeShape(dims);
  }
  return Status::OK();
}

Status InferenceContext::MergePrefix(ShapeHandle s, ShapeHandle prefix, ShapeHandle* s_out,
                                     ShapeHandle* prefix_out) {
  *s_out = ShapeHandle();
  *prefix_out = ShapeHandle();
  if (!RankKnown(prefix) || !RankKnown(s)) {
    *s_out = s.IsSet() ? s : UnknownShape();
    *prefix_out = prefix.IsSet() ? prefix : UnknownShape();
    return Status::OK();
  }
  const int32_t rank = Rank(prefix);
  ShapeHandle checked;
  OPKIT_RETURN_IF_ERROR(WithRankAtLeast(s, rank, &checked));
  std::vector<DimensionHandle> dims(rank);
  for (int32_t i = 0; i < rank; ++i) {
    OPKIT_RETURN_IF_ERROR(Merge(s.ptr_->dims_[i], prefix.ptr_->dims_[i], &dims[i]));
  }
  ShapeHandle merged_prefix = MakeShape(dims);
  ShapeHandle rest;
  OPKIT_RETURN_IF_ERROR(Subshape(s, rank, &rest));
  OPKIT_RETURN_IF_ERROR(Concatenate(merged_prefix, rest, s_out));
  *prefix_out = merged_prefix;
  return Status::OK();
}

void InferenceContext::Relax(DimensionHandle d_old, DimensionHandle d_new,
                             DimensionHandle* out) {
  if (d_old.SameHandle(d_new) || (!ValueKnown(d_old) && !ValueKnown(d_new)) ||
      Value(d_old) == Value(d_new)) {
    *out = d_old.IsSet() ? d_old : UnknownDim();
  } else {
    *out = UnknownDim();
  }
}

void InferenceContext::Relax(ShapeHandle s_old, ShapeHandle s_new, ShapeHandle* out) {
  if (s_old.SameHandle(s_new)) {
    *out = s_old.IsSet() ? s_old : UnknownShape();
    return;
  }
  if (!RankKnown(s_new) || !s_old.IsSet()) {
    *out = s_new.IsSet() ? s_new : UnknownShape();
    return;
  }
  const int32_t rank = Rank(s_old);
  if (rank != Rank(s_new)) {
    *out = UnknownShape();
    return;
  }
  bool is_s_old = true;
  std::vector<DimensionHandle> dims(rank);
  for (int32_t i = 0; i < rank; ++i) {
    Relax(s_old.ptr_->dims_[i], s_new.ptr_->dims_[i], &dims[i]);
    if (!dims[i].SameHandle(s_old.ptr_->dims_[i])) is_s_old = false;
  }
  *out = is_s_old ? s_old : MakeShape(dims);
}

// ---------------------------------------------------------------------------
}  // namespace shape_inference
}  // namespace opkit
