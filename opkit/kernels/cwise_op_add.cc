// Add and AddV2 on CPU (x + y with numpy broadcasting; Add also concatenates
// strings) and AddN (the sum of N tensors of one shape).
#include <cstdint>
#include <vector>

#include "opkit/kernel/register_types.h"
#include "opkit/kernels/cwise_ops.h"
#include "opkit/kernels/cwise_ops_common.h"

namespace opkit {
namespace {

// sum = inputs[0] + ... + inputs[N-1]; all inputs must have one shape.
template <typename T>
class AddNOp : public OpKernel {
 public:
  explicit AddNOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    OpInputList inputs;
    OP_REQUIRES_OK(ctx, ctx->input_list("inputs", &inputs));
    const int n = inputs.size();
    OP_REQUIRES(ctx, n >= 1,
                errors::InvalidArgument("AddN needs at least one input, got 0"));
    const TensorShape& shape = inputs[0].shape();
    for (int i = 1; i < n; ++i) {
      OP_REQUIRES(ctx, inputs[i].shape() == shape,
                  errors::InvalidArgument(
                      "Inputs to operation ", name(), " of type ", type_string(),
                      " must have the same size and shape.  Input 0: ",
                      shape.DebugString(), " != input ", i, ": ",
                      inputs[i].shape().DebugString()));
    }
    std::vector<const T*> in(n);
    for (int i = 0; i < n; ++i) in[i] = static_cast<const T*>(inputs[i].data());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    T* zp = static_cast<T*>(out->data());
    Shard(
        ctx, out->NumElements(), 2 * n, [&](int64_t b, int64_t e) {
          functor::Add add;
          internal::Row<T> z(zp + b, e - b);
          if (n == 1) {
            z = internal::ConstRow<T>(in[0] + b, e - b);
            return;
          }
          z = add(internal::ConstRow<T>(in[0] + b, e - b),
                  internal::ConstRow<T>(in[1] + b, e - b));
          for (int i = 2; i < n; ++i) {
            internal::ConstRow<T> acc(zp + b, e - b);
            z = add(acc, internal::ConstRow<T>(in[i] + b, e - b));
          }
        });
  }
};

#define OPKIT_REGISTER_ADD(T)                                                        \
  REGISTER_KERNEL_BUILDER(Name("AddV2").Device(DEVICE_CPU).TypeConstraint<T>("T"),   \
                          BinaryOp<T, functor::Add>);                                \
  REGISTER_KERNEL_BUILDER(Name("Add").Device(DEVICE_CPU).TypeConstraint<T>("T"),     \
                          BinaryOp<T, functor::Add>);                                \
  REGISTER_KERNEL_BUILDER(Name("AddN").Device(DEVICE_CPU).TypeConstraint<T>("T"),    \
                          AddNOp<T>);

TF_CALL_float(OPKIT_REGISTER_ADD)
TF_CALL_double(OPKIT_REGISTER_ADD)
TF_CALL_half(OPKIT_REGISTER_ADD)
TF_CALL_bfloat16(OPKIT_REGISTER_ADD)
TF_CALL_int32(OPKIT_REGISTER_ADD)
TF_CALL_int64(OPKIT_REGISTER_ADD)
TF_CALL_complex64(OPKIT_REGISTER_ADD)
TF_CALL_complex128(OPKIT_REGISTER_ADD)

#undef OPKIT_REGISTER_ADD

REGISTER_KERNEL_BUILDER(Name("Add").Device(DEVICE_CPU).TypeConstraint<tstring>("T"),
                        BinaryOp<tstring, functor::Add>);

}  // namespace
}  // namespace opkit
