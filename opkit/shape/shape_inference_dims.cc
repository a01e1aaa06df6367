// InferenceContext: dimension arithmetic (Divide, Add, Subtract, Multiply,
// Min, Max) and the validators of known dimensions and sparse tensors.
#include <limits>

#include "opkit/core/str_util.h"
#include "opkit/shape/shape_inference.h"

namespace opkit {
namespace shape_inference {

// ---------------------------------------------------------------------------
// Dimension arithmetic.

Status InferenceContext::CheckOperand(DimensionOrConstant d, const char* fn) {
  if (!d.dim.IsSet() && d.val < kUnknownDim) {
    return errors::InvalidArgument(fn, ": dimension value must be non-negative or unknown (-1), got ",
                                   d.val);
  }
  return Status::OK();
}

Status InferenceContext::Divide(DimensionHandle dividend, DimensionOrConstant divisor,
                                bool evenly_divisible, DimensionHandle* out) {
  *out = DimensionHandle();
  const int64_t divisor_value = Value(divisor);
  if (divisor_value == 1) {
    *out = dividend.IsSet() ? dividend : UnknownDim();
    return Status::OK();
  }
  if (!ValueKnown(dividend) || (divisor.dim.IsSet() && !ValueKnown(divisor.dim))) {
    *out = UnknownDim();
    return Status::OK();
  }
  const int64_t dividend_value = Value(dividend);
  if (divisor_value <= 0) {
    return errors::InvalidArgument("Divisor must be positive but is ", divisor_value);
  }
  if (evenly_divisible && dividend_value % divisor_value != 0) {
    return errors::InvalidArgument("Dimension size must be evenly divisible by ",
                                   divisor_value, " but is ", dividend_value);
  }
  *out = MakeDim(dividend_value / divisor_value);
  return Status::OK();
}

Status InferenceContext::Add(DimensionHandle first, DimensionOrConstant second,
                             DimensionHandle* out) {
  *out = DimensionHandle();
  OPKIT_RETURN_IF_ERROR(CheckOperand(second, "Add"));
  const int64_t a = Value(first);
  const int64_t b = Value(second);
  if (b == 0) {
    *out = first.IsSet() ? first : UnknownDim();
  } else if (a == 0) {
    *out = MakeDim(second);
  } else if (a == kUnknownDim || b == kUnknownDim) {
    *out = UnknownDim();
  } else {
    int64_t sum = 0;
    if (__builtin_add_overflow(a, b, &sum)) {
      return errors::InvalidArgument("Dimension size overflow from adding ", a, " and ", b);
    }
    *out = MakeDim(sum);
  }
  return Status::OK();
}

Status InferenceContext::Subtract(DimensionHandle first, DimensionOrConstant second,
                                  DimensionHandle* out) {
  *out = DimensionHandle();
  OPKIT_RETURN_IF_ERROR(CheckOperand(second, "Subtract"));
  const int64_t a = Value(first);
  const int64_t b = Value(second);
  if (b == 0) {
    *out = first.IsSet() ? first : UnknownDim();
  } else if (a == kUnknownDim || b == kUnknownDim) {
    *out = UnknownDim();
  } else {
    if (a < b) {
      return errors::InvalidArgument("Negative dimension size caused by subtracting ", b,
                                     " from ", a);
    }
    *out = MakeDim(a - b);
  }
  return Status::OK();
}

Status InferenceContext::Multiply(DimensionHandle first, DimensionOrConstant second,
                                  DimensionHandle* out) {
  *out = DimensionHandle();
  OPKIT_RETURN_IF_ERROR(CheckOperand(second, "Multiply"));
  const int64_t a = Value(first);
  const int64_t b = Value(second);
  if (a == 0) {
    *out = first;
  } else if (b == 0) {
    *out = MakeDim(second);
  } else if (a == 1) {
    *out = MakeDim(second);
  } else if (b == 1) {
    *out = first.IsSet() ? first : UnknownDim();
  } else if (a == kUnknownDim || b == kUnknownDim) {
    *out = UnknownDim();
  } else {
    int64_t product = 0;
    if (__builtin_mul_overflow(a, b, &product)) {
      return errors::InvalidArgument(
          "Negative dimension size caused by overflow when multiplying ", a, " and ", b);
    }
    *out = MakeDim(product);
  }
  return Status::OK();
}

Status InferenceContext::Min(DimensionHandle first, DimensionOrConstant second,
                             DimensionHandle* out) {
  *out = DimensionHandle();
  OPKIT_RETURN_IF_ERROR(CheckOperand(second, "Min"));
  const int64_t a = Value(first);
  const int64_t b = Value(second);
  if (a == 0) {
    *out = first;
  } else if (b == 0) {
    *out = MakeDim(second);
  } else if (a == kUnknownDim || b == kUnknownDim) {
    *out = UnknownDim();
  } else {
    *out = a <= b ? first : MakeDim(second);
  }
  return Status::OK();
}

Status InferenceContext::Max(DimensionHandle first, DimensionOrConstant second,
                             DimensionHandle* out) {
  *out = DimensionHandle();
  OPKIT_RETURN_IF_ERROR(CheckOperand(second, "Max"));
  const int64_t a = Value(first);
  const int64_t b = Value(second);
  if (a == kUnknownDim || b == kUnknownDim) {
    *out = UnknownDim();
  } else {
    *out = a >= b ? first : MakeDim(second);
  }
  return Status::OK();
}

Status InferenceContext::ValidateKnownDim(DimensionHandle dim, const char* name) {
  if (!ValueKnown(dim)) {
    return errors::InvalidArgument("Cannot infer shape because dimension ",
                                   name ? name : "(unnamed)", " is not known.");
  }
  return Status::OK();
}

Status InferenceContext::ValidateSparseTensor(ShapeHandle indices_shape,
                                              ShapeHandle values_shape,
                                              ShapeHandle shape_shape) {
  ShapeHandle unused;
  OPKIT_RETURN_IF_ERROR(WithRank(indices_shape, 2, &unused));
  OPKIT_RETURN_IF_ERROR(WithRank(values_shape, 1, &unused));
  OPKIT_RETURN_IF_ERROR(WithRank(shape_shape, 1, &unused));
  const DimensionHandle num_index = Dim(indices_shape, 0);
  const DimensionHandle num_values = Dim(values_shape, 0);
  if (ValueKnown(num_index) && ValueKnown(num_values) && Value(num_index) != Value(num_values)) {
    return errors::InvalidArgument("Number of elements in index (", Value(num_index),
                                   ") and values (", Value(num_values), ") do not match.");
  }
  const DimensionHandle index_rank = Dim(indices_shape, 1);
  const DimensionHandle shape_rank = Dim(shape_shape, 0);
  if (ValueKnown(index_rank) && ValueKnown(shape_rank) && Value(index_rank) != Value(shape_rank)) {
    return errors::InvalidArgument("Index rank (", Value(index_rank), ") and shape rank (",
                                   Value(shape_rank), ") do not match.");
  }
  return Status::OK();
}
}  // namespace shape_inference
}  // namespace opkit
