// AddV2 on CPU: x + y with numpy broadcasting.
#include "opkit/kernels/cwise_ops_common.h"

namespace opkit {
namespace {

struct AddFunctor {
  template <typename X, typename Y>
  auto operator()(const X& x, const Y& y) const {
    return x + y;
  }
};

#define OPKIT_REGISTER_ADD(T)                                              \
  REGISTER_KERNEL_BUILDER(                                                 \
      Name("AddV2").Device(DEVICE_CPU).TypeConstraint<T>("T"),             \
      BinaryOp<T, AddFunctor>)

OPKIT_REGISTER_ADD(float);
OPKIT_REGISTER_ADD(double);
OPKIT_REGISTER_ADD(int32);
OPKIT_REGISTER_ADD(int64);
OPKIT_REGISTER_ADD(half);
OPKIT_REGISTER_ADD(bfloat16);

#undef OPKIT_REGISTER_ADD

}  // namespace
}  // namespace opkit
