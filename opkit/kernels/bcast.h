// Numpy broadcasting of two shapes, as binary element-wise kernels need it.
//
//   BCast b(x.shape(), y.shape());
//   if (!b.valid()) return errors::InvalidArgument("Incompatible shapes: ", ...);
//   b.output_shape();       // the broadcast result
//   b.x_reshape(), b.x_bcast()  // x padded to the result's rank, and how
//                               // many times each of its dims repeats
#ifndef OPKIT_KERNELS_BCAST_H_
#define OPKIT_KERNELS_BCAST_H_

#include <cstdint>
#include <vector>

#include "opkit/core/export.h"
#include "opkit/tensor/tensor_shape.h"

namespace opkit {

class OPKIT_EXPORT BCast {
 public:
  using Vec = std::vector<int64_t>;

  // Right-aligns the two shapes; each pair of dims must be equal or one of
  // them 1. valid() is false otherwise.
  BCast(const TensorShape& x, const TensorShape& y);

  bool valid() const { return valid_; }
  // Both inputs have the output's shape: no broadcasting at all.
  bool same_shape() const { return same_shape_; }
  const TensorShape& output_shape() const { return output_shape_; }
  int rank() const { return static_cast<int>(out_.size()); }
  // Each input's dims padded with leading 1s to rank().
  const Vec& x_reshape() const { return x_reshape_; }
  const Vec& y_reshape() const { return y_reshape_; }
  // How many times each padded dim repeats to reach the output.
  const Vec& x_bcast() const { return x_bcast_; }
  const Vec& y_bcast() const { return y_bcast_; }

 private:
  bool valid_ = true;
  bool same_shape_ = false;
  TensorShape output_shape_;
  Vec out_, x_reshape_, y_reshape_, x_bcast_, y_bcast_;
};

}  // namespace opkit

#endif  // OPKIT_KERNELS_BCAST_H_
