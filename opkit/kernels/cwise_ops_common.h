// Binary element-wise kernels with numpy broadcasting, on Eigen.
//
//   template <typename T>
//   struct AddFunctor {
//     template <typename X, typename Y>
//     auto operator()(const X& x, const Y& y) const { return x + y; }
//   };
//   REGISTER_KERNEL_BUILDER(Name("AddV2").Device(DEVICE_CPU).TypeConstraint<float>("T"),
//                           BinaryOp<float, AddFunctor<float>>);
//
// The functor combines two Eigen expressions of equal shape. Small outputs
// are computed on the calling thread; large ones on the device's intra-op
// pool.
#ifndef OPKIT_KERNELS_CWISE_OPS_COMMON_H_
#define OPKIT_KERNELS_CWISE_OPS_COMMON_H_

#include <array>

#include "opkit/framework/op_kernel.h"
#include "opkit/framework/op_requires.h"
#include "opkit/kernels/bcast.h"

namespace opkit {

// Below this many elements, the calling thread computes the result: handing
// work to the pool costs more than it saves.
inline constexpr int64_t kInlineElementLimit = 16384;

template <typename T, typename Functor>
class BinaryOp : public OpKernel {
 public:
  explicit BinaryOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    Functor f;
    if (x.shape() == y.shape()) {
      Tensor* out = nullptr;
      OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0, 1}, 0, x.shape(), &out));
      Assign(ctx, out->flat<T>(), f(x.flat<T>(), y.flat<T>()), out->NumElements());
      return;
    }
    if (y.NumElements() == 1 && x.NumElements() >= 1 && y.dims() <= x.dims()) {
      Tensor* out = nullptr;
      OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &out));
      const T s = y.flat<T>()(0);
      Assign(ctx, out->flat<T>(), f(x.flat<T>(), x.flat<T>().constant(s)),
             out->NumElements());
      return;
    }
    if (x.NumElements() == 1 && y.NumElements() >= 1 && x.dims() <= y.dims()) {
      Tensor* out = nullptr;
      OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({1}, 0, y.shape(), &out));
      const T s = x.flat<T>()(0);
      Assign(ctx, out->flat<T>(), f(y.flat<T>().constant(s), y.flat<T>()),
             out->NumElements());
      return;
    }
    BCast b(x.shape(), y.shape());
    OP_REQUIRES(ctx, b.valid(),
                errors::InvalidArgument("Incompatible shapes: ",
                                        x.shape().DebugString(), " vs. ",
                                        y.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, b.output_shape(), &out));
    if (out->NumElements() == 0) return;
    switch (b.rank()) {
      case 1: Broadcast<1>(ctx, x, y, b, out); break;
      case 2: Broadcast<2>(ctx, x, y, b, out); break;
      case 3: Broadcast<3>(ctx, x, y, b, out); break;
      case 4: Broadcast<4>(ctx, x, y, b, out); break;
      case 5: Broadcast<5>(ctx, x, y, b, out); break;
      case 6: Broadcast<6>(ctx, x, y, b, out); break;
      default:
        ctx->CtxFailure(__FILE__, __LINE__,
                        errors::Unimplemented(
                            "Broadcast between ", x.shape().DebugString(),
                            " and ", y.shape().DebugString(),
                            " needs rank ", b.rank(),
                            "; at most 6 is supported. Reshape the inputs to "
                            "fewer dimensions."));
    }
  }

 private:
  template <typename Out, typename Expr>
  static void Assign(OpKernelContext* ctx, Out out, const Expr& expr, int64_t n) {
    if (n <= kInlineElementLimit) {
      out = expr;
    } else {
      out.device(ctx->eigen_device<Eigen::ThreadPoolDevice>()) = expr;
    }
  }

  template <int NDIMS>
  static void Broadcast(OpKernelContext* ctx, const Tensor& x, const Tensor& y,
                        const BCast& b, Tensor* out) {
    std::array<Eigen::DenseIndex, NDIMS> xr, yr, xb, yb, outr;
    for (int i = 0; i < NDIMS; ++i) {
      xr[i] = b.x_reshape()[i];
      yr[i] = b.y_reshape()[i];
      xb[i] = b.x_bcast()[i];
      yb[i] = b.y_bcast()[i];
      outr[i] = out->shape().dim_size(i);
    }
    using ConstMap = Eigen::TensorMap<Eigen::Tensor<const T, NDIMS, Eigen::RowMajor, Eigen::DenseIndex>>;
    using Map = Eigen::TensorMap<Eigen::Tensor<T, NDIMS, Eigen::RowMajor, Eigen::DenseIndex>>;
    ConstMap xm(x.flat<T>().data(), xr);
    ConstMap ym(y.flat<T>().data(), yr);
    Map om(out->flat<T>().data(), outr);
    Functor f;
    Assign(ctx, om, f(xm.broadcast(xb), ym.broadcast(yb)), out->NumElements());
  }
};

}  // namespace opkit

#endif  // OPKIT_KERNELS_CWISE_OPS_COMMON_H_
