// Transpose on CPU: output dimension i is input dimension perm[i]. A
// type-generic strided copy (see array_kernel_util.h).
#include <vector>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernels/array_kernel_util.h"

namespace opkit {
namespace {

class TransposeOp : public OpKernel {
 public:
  explicit TransposeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& perm_t = ctx->input(1);
    OP_REQUIRES(ctx, perm_t.dims() == 1,
                errors::InvalidArgument("perm must be a vector, not ",
                                        perm_t.shape().DebugString()));
    const int rank = input.dims();
    OP_REQUIRES(ctx, perm_t.NumElements() == rank,
                errors::InvalidArgument("transpose expects a vector of size ", rank,
                                        ". But input(1) is a vector of size ",
                                        perm_t.NumElements()));
    std::vector<int64_t> perm;
    OP_REQUIRES_OK(ctx, internal::ReadIndexValues(perm_t, "perm", &perm));
    std::vector<bool> seen(rank, false);
    for (int i = 0; i < rank; ++i) {
      OP_REQUIRES(ctx, perm[i] >= 0 && perm[i] < rank,
                  errors::InvalidArgument(perm[i], " is out of range [0 .. ", rank,
                                          ") in perm [", StrJoin(perm, ","), "]"));
      OP_REQUIRES(ctx, !seen[perm[i]],
                  errors::InvalidArgument(perm[i], " is duplicated in perm [",
                                          StrJoin(perm, ","), "]"));
      seen[perm[i]] = true;
    }
    std::vector<int64_t> out_dims(rank);
    for (int i = 0; i < rank; ++i) out_dims[i] = input.dim_size(static_cast<int>(perm[i]));
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(out_dims, &out_shape));
    bool identity = true;
    for (int i = 0; i < rank; ++i) identity = identity && perm[i] == i;
    if (identity || input.NumElements() <= 1) {
      Tensor out;
      OP_REQUIRES(ctx, out.CopyFrom(input, out_shape),
                  errors::Internal("transpose changed the element count"));
      ctx->set_output(0, std::move(out));
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    const std::vector<int64_t> in_strides = internal::RowMajorStrides(input.shape());
    const std::vector<int64_t> out_strides = internal::RowMajorStrides(out_shape);
    std::vector<int64_t> src_strides(rank);
    for (int i = 0; i < rank; ++i) src_strides[i] = in_strides[perm[i]];
    internal::StridedCopy(input.dtype(), input.data(), src_strides.data(), out->data(),
                          out_strides.data(), out_dims.data(), rank,
                          ctx);
  }
};

REGISTER_KERNEL_BUILDER(Name("Transpose")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", internal::ArrayKernelTypes())
                            .HostMemory("perm"),
                        TransposeOp);

}  // namespace
}  // namespace opkit
