// The highest rank a shape function accepts or builds: a tensor's own limit
// (TensorShape::MaxDimensions()). Not part of the API.
#ifndef OPKIT_SHAPE_INTERNAL_MAX_RANK_H_
#define OPKIT_SHAPE_INTERNAL_MAX_RANK_H_

#include <cstdint>

#include "opkit/tensor/tensor_shape.h"

namespace opkit {
namespace shape_inference {

inline constexpr int64_t kMaxRank = TensorShape::MaxDimensions();

}  // namespace shape_inference
}  // namespace opkit

#endif  // OPKIT_SHAPE_INTERNAL_MAX_RANK_H_
