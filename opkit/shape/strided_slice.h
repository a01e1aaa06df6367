// StridedSlice's index arithmetic, shared by the kernel and the shape
// function: turns the sparse slice spec (begin/end/strides vectors and the
// five masks, as Python's `x[1:-1, ..., tf.newaxis, 3]` produces them) into
// one (begin, stride, size) per input dimension and the output shape, with
// TensorFlow's semantics and error texts.
//
//   internal::StridedSliceSpec spec;
//   spec.begin = {1, 0}; spec.end = {-1, 0}; spec.strides = {1, 1};
//   spec.shrink_axis_mask = 2;
//   internal::StridedSliceResult r;
//   OPKIT_RETURN_IF_ERROR(internal::ComputeStridedSlice({4, 3}, spec, &r));
//   // r.final_shape == {2}: rows 1..2 of column 0.
//
// Input dimensions may be unknown (-1, in shape inference); the slice of an
// unknown dimension is unknown unless it is shrunk.
#ifndef OPKIT_KERNELS_STRIDED_SLICE_OP_H_
#define OPKIT_KERNELS_STRIDED_SLICE_OP_H_

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/core/status.h"

namespace opkit {
namespace internal {

// The sparse spec: one entry per element of begin/end/strides.
struct StridedSliceSpec {
  std::vector<int64_t> begin;
  std::vector<int64_t> end;
  std::vector<int64_t> strides;
  // False when begin/end are not known (shape inference without constant
  // inputs): the sizes then come out unknown where the masks do not fix them.
  bool begin_known = true;
  bool end_known = true;
  int64_t begin_mask = 0;
  int64_t end_mask = 0;
  int64_t ellipsis_mask = 0;
  int64_t new_axis_mask = 0;
  int64_t shrink_axis_mask = 0;
};

// The dense result: per input dimension the first index read, the step and
// how many elements are read (processing_shape, -1 when unknown); and the
// output shape (processing_shape without shrunk dimensions, with a 1 for
// every new axis).
struct StridedSliceResult {
  std::vector<int64_t> begin;
  std::vector<int64_t> strides;
  std::vector<int64_t> processing_shape;
  std::vector<int64_t> final_shape;
  // Whether the slice reads the whole input in order (output = input).
  bool is_identity = false;
};

// Number of elements of [begin, end) stepping by `stride` (stride != 0),
// where begin and end are already clamped into [-1, dim].
inline int64_t StridedIntervalSize(int64_t begin, int64_t end, int64_t stride) {
  if (stride > 0) {
    if (end <= begin) return 0;
    const uint64_t len = static_cast<uint64_t>(end - begin);
    return static_cast<int64_t>((len + static_cast<uint64_t>(stride) - 1) /
                                static_cast<uint64_t>(stride));
  }
  if (begin <= end) return 0;
  const uint64_t len = static_cast<uint64_t>(begin - end);
  const uint64_t step = uint64_t{0} - static_cast<uint64_t>(stride);
  return static_cast<int64_t>((len + step - 1) / step);
}

// Computes the dense slice of an input of shape `input_shape` (entries -1
// for unknown). InvalidArgument, with TensorFlow's texts, for begin/end/
// strides of different lengths or 32 entries or more, several ellipses, a
// zero stride, a shrunk index out of range or with a negative stride, or
// more indices than the input has dimensions.
inline Status ComputeStridedSlice(const std::vector<int64_t>& input_shape,
                                  const StridedSliceSpec& spec,
                                  StridedSliceResult* result) {
  const int64_t n = static_cast<int64_t>(spec.strides.size());
  if ((spec.begin_known && static_cast<int64_t>(spec.begin.size()) != n) ||
      (spec.end_known && static_cast<int64_t>(spec.end.size()) != n) || n >= 32) {
    return errors::InvalidArgument(
        "Expected begin, end, and strides to be 1D equal size tensors with "
        "fewer than 32 elements, but got sizes ",
        spec.begin_known ? static_cast<int64_t>(spec.begin.size()) : -1, ", ",
        spec.end_known ? static_cast<int64_t>(spec.end.size()) : -1, ", and ", n,
        " instead.");
  }
  // Only bits of real entries count (plus the implicit trailing ellipsis).
  const int64_t entry_bits = (int64_t{1} << n) - 1;
  int64_t ellipsis_mask = spec.ellipsis_mask & entry_bits;
  if (ellipsis_mask != 0 && (ellipsis_mask & (ellipsis_mask - 1)) != 0) {
    return errors::InvalidArgument("Multiple ellipses in slice spec not allowed");
  }
  auto bit = [](int64_t mask, int64_t i) { return ((mask >> i) & 1) != 0; };

  // New axes after the ellipsis do not consume input dimensions, so the
  // ellipsis must leave room for them.
  int64_t sparse_dims = n;
  int64_t new_axes_after_ellipsis = 0;
  bool ellipsis_seen = false;
  for (int64_t i = 0; i < n; ++i) {
    if (ellipsis_seen && bit(spec.new_axis_mask, i) && !bit(ellipsis_mask, i)) {
      ++new_axes_after_ellipsis;
    }
    if (bit(ellipsis_mask, i)) ellipsis_seen = true;
  }
  if (!ellipsis_seen) {
    ellipsis_mask |= int64_t{1} << n;
    ++sparse_dims;
  }

  const int64_t rank = static_cast<int64_t>(input_shape.size());
  constexpr int64_t kNewAxis = -2;
  constexpr int64_t kShrunk = -1;
  std::vector<int64_t> begin(rank, 0), end(rank, 0), strides(rank, 1);
  std::vector<bool> begin_masked(rank, false), end_masked(rank, false),
      shrink(rank, false);
  std::vector<int64_t> gather;  // per output dim: input dim, or kNewAxis
  int64_t full = 0;
  for (int64_t i = 0; i < sparse_dims; ++i) {
    if (bit(ellipsis_mask, i)) {
      const int64_t stop =
          std::min(rank - (sparse_dims - i) + 1 + new_axes_after_ellipsis, rank);
      for (; full < stop; ++full) {
        begin_masked[full] = end_masked[full] = true;
        gather.push_back(full);
      }
    } else if (bit(spec.new_axis_mask, i)) {
      gather.push_back(kNewAxis);
    } else {
      if (full == rank) {
        return errors::InvalidArgument("Index out of range using input dim ", full,
                                       "; input has only ", rank, " dims");
      }
      if (spec.begin_known) begin[full] = spec.begin[i];
      if (spec.end_known) end[full] = spec.end[i];
      strides[full] = spec.strides[i];
      begin_masked[full] = bit(spec.begin_mask, i);
      end_masked[full] = bit(spec.end_mask, i);
      if (bit(spec.shrink_axis_mask, i)) {
        shrink[full] = true;
        gather.push_back(kShrunk);
      } else {
        gather.push_back(full);
      }
      ++full;
    }
  }

  result->begin.assign(rank, 0);
  result->strides.assign(rank, 1);
  result->processing_shape.assign(rank, -1);
  result->is_identity = spec.begin_known && spec.end_known;
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t stride = strides[i];
    const int64_t dim = input_shape[i];
    if (stride == 0) {
      return errors::InvalidArgument("strides[", i, "] must be non-zero");
    }
    if (shrink[i] && stride <= 0) {
      return errors::InvalidArgument("only stride 1 allowed on non-range indexing.");
    }
    result->strides[i] = stride;
    if (dim < 0) {
      result->processing_shape[i] = shrink[i] ? 1 : -1;
      result->is_identity = false;
      continue;
    }
    if (shrink[i]) {
      if (!spec.begin_known) {
        result->processing_shape[i] = 1;
        result->is_identity = false;
        continue;
      }
      const int64_t b = begin[i];
      const int64_t fwd = b < 0 ? dim + b : b;
      if (fwd < 0 || fwd >= dim) {
        return errors::InvalidArgument("slice index ", b, " of dimension ", i,
                                       " out of bounds.");
      }
      result->begin[i] = fwd;
      result->strides[i] = 1;
      result->processing_shape[i] = 1;
      result->is_identity = result->is_identity && dim == 1;
      continue;
    }
    // Valid positions are [0, dim] going forward and [-1, dim - 1] going
    // backward; -1 then means "stop before element 0".
    const int64_t lo = stride > 0 ? 0 : -1;
    const int64_t hi = stride > 0 ? dim : dim - 1;
    auto canonical = [&](int64_t x, bool masked, bool is_begin) {
      if (masked) return (stride > 0) == is_begin ? lo : hi;
      const int64_t fwd = x < 0 ? dim + x : x;
      return fwd < lo ? lo : (fwd > hi ? hi : fwd);
    };
    const bool b_known = spec.begin_known || begin_masked[i];
    const bool e_known = spec.end_known || end_masked[i];
    if (!b_known || !e_known) {
      result->is_identity = false;
      continue;
    }
    const int64_t b = canonical(begin[i], begin_masked[i], true);
    const int64_t e = canonical(end[i], end_masked[i], false);
    const int64_t size = StridedIntervalSize(b, e, stride);
    result->begin[i] = size == 0 ? 0 : b;
    result->processing_shape[i] = size;
    result->is_identity =
        result->is_identity && stride == 1 && b == 0 && size == dim;
  }
  if (!(spec.begin_known && spec.end_known)) {
    bool all_masked = true;
    for (int64_t i = 0; i < rank; ++i) {
      all_masked = all_masked && begin_masked[i] && end_masked[i] &&
                   strides[i] == 1 && !shrink[i];
    }
    result->is_identity = all_masked;
  }

  result->final_shape.clear();
  for (int64_t g : gather) {
    if (g == kNewAxis) {
      result->final_shape.push_back(1);
    } else if (g >= 0) {
      result->final_shape.push_back(result->processing_shape[g]);
    }
  }
  return Status::OK();
}

}  // namespace internal
}  // namespace opkit

#endif  // OPKIT_KERNELS_STRIDED_SLICE_OP_H_
