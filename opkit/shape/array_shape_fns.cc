// Shape functions of the array ops: Reduction (Sum, Mean, ...), Concat,
// ConcatV2, QuantizedConcatV2, Reshape and Transpose (declared in common_shape_fns.h).
// Behaviour and messages follow TensorFlow's common_shape_fns.cc and
// array_ops.cc; the arithmetic on known sizes is overflow-checked.
#include <cstdint>
#include <limits>
#include <set>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/shape/common_shape_fns.h"
#include "opkit/shape/internal/checked_math.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/types.h"

namespace opkit {
namespace shape_inference {

Status ReadIntTensor(const Tensor& t, const char* what,
                     std::vector<int64_t>* out) {
  out->clear();
  if (t.dtype() != DT_INT32 && t.dtype() != DT_INT64) {
    return errors::InvalidArgument(what, " must be int32 or int64, got ",
                                   DataTypeString(t.dtype()));
  }
  const int64_t n = t.NumElements();
  if (n == 0) return OkStatus();
  out->reserve(static_cast<size_t>(n));
  // Unaligned views: a constant input may be a slice of a larger buffer.
  if (t.dtype() == DT_INT32) {
    auto flat = t.unaligned_flat<int32>();
    out->assign(flat.data(), flat.data() + n);
  } else {
    auto flat = t.unaligned_flat<int64>();
    out->assign(flat.data(), flat.data() + n);
  }
  return OkStatus();
}

namespace {

using internal::AddOverflows;
using internal::MulOverflows;

Status ConcatShapeHelper(InferenceContext* c, int start_value_index,
                         int end_value_index, int dim_index) {
  if (start_value_index < 0 || end_value_index > c->num_inputs() ||
      start_value_index >= end_value_index || dim_index < 0 ||
      dim_index >= c->num_inputs()) {
    return errors::InvalidArgument(
        "Concat needs an axis and at least one value among its ",
        c->num_inputs(), " inputs");
  }
  ShapeHandle unused;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(dim_index), 0, &unused));
  const Tensor* concat_dim_t = c->input_tensor(dim_index);
  if (concat_dim_t == nullptr) {
    // Without the axis only the rank can be known: the first known one,
    // which every other input must share.
    int32_t rank = InferenceContext::kUnknownRank;
    for (int i = start_value_index; i < end_value_index; ++i) {
      rank = c->Rank(c->input(i));
      if (rank != InferenceContext::kUnknownRank) break;
    }
    if (rank == InferenceContext::kUnknownRank) {
      c->set_output(0, c->UnknownShape());
      return OkStatus();
    }
    if (rank == 0) {
      return errors::InvalidArgument(
          "Can't concatenate scalars (use tf.stack instead)");
    }
    for (int i = start_value_index; i < end_value_index; ++i) {
      OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(i), rank, &unused));
    }
    c->set_output(0, c->UnknownShapeOfRank(rank));
    return OkStatus();
  }

  std::vector<int64_t> axis_values;
  OPKIT_RETURN_IF_ERROR(ReadIntTensor(*concat_dim_t, "Concat axis",
                                      &axis_values));
  if (axis_values.size() != 1) {
    return errors::InvalidArgument("Concat axis must be a scalar, but has ",
                                   axis_values.size(), " elements");
  }
  const int64_t concat_dim = axis_values[0];
  // Far beyond any possible rank; keeps -concat_dim and the rank checks
  // below free of overflow.
  constexpr int64_t kMaxAxis = std::numeric_limits<int32_t>::max() / 2;
  if (concat_dim < -kMaxAxis || concat_dim > kMaxAxis) {
    return errors::InvalidArgument("Concat axis ", concat_dim,
                                   " is out of range for any input rank");
  }
  const int64_t min_rank = concat_dim < 0 ? -concat_dim : concat_dim + 1;

  auto split = [&](ShapeHandle input, ShapeHandle* before,
                   DimensionHandle* middle, ShapeHandle* after) -> Status {
    OPKIT_RETURN_IF_ERROR(c->WithRankAtLeast(input, min_rank, &input));
    OPKIT_RETURN_IF_ERROR(c->Subshape(input, 0, concat_dim, before));
    *middle = c->Dim(input, concat_dim);
    if (concat_dim == -1) {
      *after = c->Scalar();
    } else {
      OPKIT_RETURN_IF_ERROR(c->Subshape(input, concat_dim + 1, after));
    }
    return OkStatus();
  };

  ShapeHandle output_before, output_after;
  DimensionHandle output_middle;
  OPKIT_RETURN_IF_ERROR(split(c->input(end_value_index - 1), &output_before,
                              &output_middle, &output_after));
  for (int i = end_value_index - 2; i >= start_value_index; --i) {
    ShapeHandle before, after;
    DimensionHandle middle;
    OPKIT_RETURN_IF_ERROR(split(c->input(i), &before, &middle, &after));
    OPKIT_RETURN_IF_ERROR(c->Merge(before, output_before, &output_before));
    if (c->ValueKnown(output_middle) && c->ValueKnown(middle)) {
      int64_t sum;
      if (AddOverflows(c->Value(output_middle), c->Value(middle), &sum)) {
        return errors::InvalidArgument("Dimension size overflow from adding ",
                                       c->Value(output_middle), " and ",
                                       c->Value(middle));
      }
      output_middle = c->MakeDim(sum);
    } else {
      output_middle = c->UnknownDim();
    }
    OPKIT_RETURN_IF_ERROR(c->Merge(after, output_after, &output_after));
  }
  ShapeHandle s;
  OPKIT_RETURN_IF_ERROR(
      c->Concatenate(output_before, c->Vector(output_middle), &s));
  OPKIT_RETURN_IF_ERROR(c->Concatenate(s, output_after, &s));
  c->set_output(0, s);
  return OkStatus();
}

// The product of the known dimensions of `s`, and the index of its one
// unknown dimension (-1 if none; *too_many when more than one).
Status KnownElements(InferenceContext* c, ShapeHandle s, int64_t* known,
                     int32_t* unknown_idx, bool* too_many) {
  *known = 1;
  *unknown_idx = -1;
  for (int32_t i = 0; i < c->Rank(s); ++i) {
    DimensionHandle d = c->Dim(s, i);
    if (!c->ValueKnown(d)) {
      if (*unknown_idx >= 0) {
        *too_many = true;
        return OkStatus();
      }
      *unknown_idx = i;
      continue;
    }
    if (MulOverflows(*known, c->Value(d), known)) {
      return errors::InvalidArgument("The number of elements of shape ",
                                     c->DebugString(s), " overflows int64");
    }
  }
  return OkStatus();
}

}  // namespace

Status ReductionShape(InferenceContext* c) {
  ShapeHandle input = c->input(0);
  ShapeHandle indices;
  OPKIT_RETURN_IF_ERROR(c->WithRankAtMost(c->input(1), 1, &indices));
  bool keep_dims;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("keep_dims", &keep_dims));

  const Tensor* indices_t = c->input_tensor(1);
  if (indices_t == nullptr || !c->RankKnown(input)) {
    if (keep_dims && c->RankKnown(input)) {
      c->set_output(0, c->UnknownShapeOfRank(c->Rank(input)));
      return OkStatus();
    }
    return UnknownShape(c);
  }
  if (indices_t->dtype() != DT_INT32 && indices_t->dtype() != DT_INT64) {
    return errors::InvalidArgument(
        "reduction_indices can only be int32 or int64, got ",
        DataTypeString(indices_t->dtype()));
  }
  std::vector<int64_t> axes;
  OPKIT_RETURN_IF_ERROR(ReadIntTensor(*indices_t, "reduction_indices", &axes));
  const int32_t rank = c->Rank(input);
  std::set<int64_t> reduced;
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank) {
      return errors::InvalidArgument("Invalid reduction dimension ", axis,
                                     " for input with ", rank, " dimensions.");
    }
    reduced.insert(axis < 0 ? axis + rank : axis);
  }
  std::vector<DimensionHandle> dims;
  for (int32_t i = 0; i < rank; ++i) {
    if (reduced.count(i) == 0) {
      dims.push_back(c->Dim(input, i));
    } else if (keep_dims) {
      dims.push_back(c->MakeDim(1));
    }
  }
  c->set_output(0, c->MakeShape(dims));
  return OkStatus();
}

Status ConcatShape(InferenceContext* c, int num_inputs_to_concat) {
  if (num_inputs_to_concat < 1 ||
      num_inputs_to_concat > c->num_inputs() - 1) {
    return errors::InvalidArgument("Concat of ", num_inputs_to_concat,
                                   " values needs ", num_inputs_to_concat,
                                   " + 1 inputs, but the op has ",
                                   c->num_inputs());
  }
  return ConcatShapeHelper(c, 1, 1 + num_inputs_to_concat, 0);
}

Status QuantizedConcatV2Shape(InferenceContext* c, int num_inputs_to_concat) {
  return ConcatShapeHelper(c, 0, num_inputs_to_concat, num_inputs_to_concat);
}

Status ConcatV2Shape(InferenceContext* c) {
  return ConcatShapeHelper(c, 0, c->num_inputs() - 1, c->num_inputs() - 1);
}

Status ReshapeShape(InferenceContext* c) {
  ShapeHandle in = c->input(0);
  ShapeHandle out;
  OPKIT_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(1, &out));
  if (!c->RankKnown(out) || !c->RankKnown(in)) {
    c->set_output(0, out);
    return OkStatus();
  }
  bool too_many_unknown = false;
  int64_t known_out, known_in;
  int32_t out_unknown_idx, in_unknown_idx;
  OPKIT_RETURN_IF_ERROR(
      KnownElements(c, out, &known_out, &out_unknown_idx, &too_many_unknown));
  if (!too_many_unknown) {
    OPKIT_RETURN_IF_ERROR(
        KnownElements(c, in, &known_in, &in_unknown_idx, &too_many_unknown));
  }
  if (!too_many_unknown) {
    if (in_unknown_idx < 0 && out_unknown_idx < 0) {
      if (known_in != known_out) {
        return errors::InvalidArgument(
            "Cannot reshape a tensor with ", known_in, " elements to shape ",
            c->DebugString(out), " (", known_out, " elements)");
      }
    } else if (in_unknown_idx < 0 && out_unknown_idx >= 0 && known_out > 0) {
      // Input fully known: the one missing output dimension follows.
      if (known_in % known_out != 0) {
        return errors::InvalidArgument(
            "Dimension size must be evenly divisible by ", known_out,
            " but is ", known_in);
      }
      OPKIT_RETURN_IF_ERROR(c->ReplaceDim(out, out_unknown_idx,
                                          c->MakeDim(known_in / known_out),
                                          &out));
    } else if (in_unknown_idx >= 0 && out_unknown_idx < 0 && known_in != 0) {
      // Output fully known: the missing input dimension must divide evenly.
      if (known_out % known_in != 0) {
        return errors::InvalidArgument(
            "Dimension size must be evenly divisible by ", known_in,
            " but is ", known_out);
      }
    } else if (in_unknown_idx >= 0 && out_unknown_idx >= 0 &&
               known_in == known_out) {
      // One unknown on each side with equal known parts: they are equal.
      OPKIT_RETURN_IF_ERROR(c->ReplaceDim(out, out_unknown_idx,
                                          c->Dim(in, in_unknown_idx), &out));
    }
  }
  c->set_output(0, out);
  return OkStatus();
}

Status TransposeShape(InferenceContext* c) {
  ShapeHandle input = c->input(0);
  ShapeHandle perm_shape = c->input(1);
  const Tensor* perm = c->input_tensor(1);
  DimensionHandle perm_elems = c->NumElements(perm_shape);
  if (!c->RankKnown(input) && !c->ValueKnown(perm_elems) && perm == nullptr) {
    c->set_output(0, c->UnknownShape());
    return OkStatus();
  }
  int64_t rank;
  if (c->RankKnown(input)) {
    rank = c->Rank(input);
  } else if (c->ValueKnown(perm_elems)) {
    rank = c->Value(perm_elems);
  } else {
    rank = perm->NumElements();
  }
  if (rank > TensorShape::kMaxDimensions) {
    return errors::InvalidArgument("Transpose of rank ", rank,
                                   " is not supported; the maximum rank is ",
                                   TensorShape::kMaxDimensions);
  }
  if (!c->RankKnown(input) && rank < 2) {
    // One permutation entry fits a scalar as well as a vector; both come
    // out unchanged.
    c->set_output(0, input);
    return OkStatus();
  }
  OPKIT_RETURN_IF_ERROR(c->WithRank(input, rank, &input));
  OPKIT_RETURN_IF_ERROR(c->WithRank(perm_shape, 1, &perm_shape));
  OPKIT_RETURN_IF_ERROR(c->WithValue(perm_elems, rank, &perm_elems));

  std::vector<DimensionHandle> dims(static_cast<size_t>(rank));
  if (perm != nullptr) {
    std::vector<int64_t> data;
    OPKIT_RETURN_IF_ERROR(ReadIntTensor(*perm, "perm", &data));
    if (static_cast<int64_t>(data.size()) != rank) {
      return errors::InvalidArgument("perm must have ", rank,
                                     " elements, but has ", data.size());
    }
    for (int64_t i = 0; i < rank; ++i) {
      const int64_t in_idx = data[i];
      if (in_idx < 0 || in_idx >= rank) {
        return errors::InvalidArgument("perm dim ", in_idx,
                                       " is out of range of input rank ",
                                       rank);
      }
      dims[i] = c->Dim(input, in_idx);
    }
  } else {
    for (auto& d : dims) d = c->UnknownDim();
  }
  c->set_output(0, c->MakeShape(dims));
  return OkStatus();
}

}  // namespace shape_inference
}  // namespace opkit
