// BCast: numpy broadcasting of two shapes into the reshaped operands and the
// output shape.
#include "opkit/kernels/bcast.h"

#include <algorithm>

namespace opkit {

BCast::BCast(const TensorShape& x, const TensorShape& y) {
  same_shape_ = x == y;
  const int rank = std::max(x.dims(), y.dims());
  out_.assign(rank, 1);
  x_reshape_.assign(rank, 1);
  y_reshape_.assign(rank, 1);
  for (int i = 0; i < x.dims(); ++i) x_reshape_[rank - x.dims() + i] = x.dim_size(i);
  for (int i = 0; i < y.dims(); ++i) y_reshape_[rank - y.dims() + i] = y.dim_size(i);
  x_bcast_.assign(rank, 1);
  y_bcast_.assign(rank, 1);
  for (int i = 0; i < rank; ++i) {
    const int64_t a = x_reshape_[i];
    const int64_t b = y_reshape_[i];
    if (a == b) {
      out_[i] = a;
    } else if (a == 1) {
      out_[i] = b;
      x_bcast_[i] = b;
    } else if (b == 1) {
      out_[i] = a;
      y_bcast_[i] = a;
    } else {
      valid_ = false;
      return;
    }
  }
  // [n,1] and [1,m] broadcast to n*m elements, which may not fit in int64:
  // such shapes are reported as not broadcastable rather than overflowing.
  valid_ = TensorShape::BuildTensorShape(out_, &output_shape_).ok();
}

}  // namespace opkit
