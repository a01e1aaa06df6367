// oneDNN kernels for MatMul and _FusedMatMul on float32: oneDNN's matmul
// primitive reading both operands where they are (a transposed operand is
// described by its strides, not copied), with the bias as the primitive's
// bias and the activation as an eltwise post-op. The primitive is cached
// per kernel instance for each (m, k, n).
//
// The weights stay in their plain layout: a matrix product reads each
// weight once per row of the left operand, so for the small batches of
// inference a reorder would cost as much as the product it speeds up, and
// there is no reordered copy to keep correct.
#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "onednn_util.h"
#include "opkit/core/str_util.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/tensor_shape.h"

namespace opkit {
namespace onednn_kernels {
namespace {

// (m, k, n) and the thread count the primitive was made for.
struct MatMulKey {
  std::array<int64_t, 3> mkn;
  int threads;
  bool operator==(const MatMulKey& o) const {
    return mkn == o.mkn && threads == o.threads;
  }
};

// Immutable once made; shared by the calls of one kernel instance.
struct MatMulPrimitive {
  explicit MatMulPrimitive(dnnl::matmul::primitive_desc pd_in)
      : pd(std::move(pd_in)), prim(pd) {}
  const dnnl::matmul::primitive_desc pd;
  const dnnl::matmul prim;
};

// MatMul or _FusedMatMul. Thread-safe as OneDnnConvOp: per-call state on
// the stack, the primitive cache guarded, a scratchpad per call.
class OneDnnMatMulOp : public OpKernel {
 public:
  explicit OneDnnMatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_a", &transpose_a_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_b", &transpose_b_));
    OP_REQUIRES_OK(ctx, ParseFusedOps(ctx, &fused_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES(ctx, TensorShapeUtils::IsMatrix(a.shape()),
                errors::InvalidArgument(
                    "In[0] is not a matrix. Instead it has shape ",
                    a.shape().DebugString()));
    OP_REQUIRES(ctx, TensorShapeUtils::IsMatrix(b.shape()),
                errors::InvalidArgument(
                    "In[1] is not a matrix. Instead it has shape ",
                    b.shape().DebugString()));
    const int a_inner = transpose_a_ ? 0 : 1;
    const int b_inner = transpose_b_ ? 1 : 0;
    OP_REQUIRES(ctx, a.dim_size(a_inner) == b.dim_size(b_inner),
                errors::InvalidArgument(
                    "Matrix size-incompatible: In[0]: ", a.shape().DebugString(),
                    ", In[1]: ", b.shape().DebugString(),
                    (transpose_a_ || transpose_b_)
                        ? StrCat(" (transpose_a=", transpose_a_,
                                 ", transpose_b=", transpose_b_, ")")
                        : std::string()));
    const int64_t m = a.dim_size(1 - a_inner);
    const int64_t k = a.dim_size(a_inner);
    const int64_t n = b.dim_size(1 - b_inner);
    const float* bias = nullptr;
    if (fused_.bias) {
      const Tensor& bias_tensor = ctx->input(2);
      OP_REQUIRES_OK(ctx, CheckBias(bias_tensor, n));
      bias = static_cast<const float*>(bias_tensor.data());
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({m, n}), &out));
    if (out->NumElements() == 0) return;
    float* z = static_cast<float*>(out->data());
    if (k == 0) {
      FillEmptyReduction(fused_, bias, m, n, 1, z);
      return;
    }
    OP_REQUIRES_OK(ctx, RunGuarded(type_string(), [&]() -> Status {
                     return Multiply(ctx, m, k, n, a, b, bias, z);
                   }));
  }

 private:
  // Throws dnnl::error (see RunGuarded).
  Status Multiply(OpKernelContext* ctx, int64_t m, int64_t k, int64_t n,
                  const Tensor& a, const Tensor& b, const float* bias,
                  float* z) {
    const int threads = SetOpenMpThreads(ctx);
    const MatMulKey key{{m, k, n}, threads};
    std::shared_ptr<MatMulPrimitive> mm = cache_.Find(key);
    if (mm == nullptr) mm = cache_.Insert(key, MakePrimitive(m, k, n));
    std::unordered_map<int, dnnl::memory> args{
        {DNNL_ARG_SRC, WrapTensor(mm->pd.src_desc(), a)},
        {DNNL_ARG_WEIGHTS, WrapTensor(mm->pd.weights_desc(), b)},
        {DNNL_ARG_DST, dnnl::memory(mm->pd.dst_desc(), CpuEngine(), z)}};
    if (bias != nullptr) {
      args.emplace(DNNL_ARG_BIAS, dnnl::memory(mm->pd.bias_desc(), CpuEngine(),
                                               const_cast<float*>(bias)));
    }
    return Execute(ctx, mm->pd, mm->prim, std::move(args));
  }

  std::shared_ptr<MatMulPrimitive> MakePrimitive(int64_t m, int64_t k,
                                                 int64_t n) const {
    using dims = dnnl::memory::dims;
    constexpr auto f32 = dnnl::memory::data_type::f32;
    // Row-major A is [m, k] (strides k, 1) or, transposed, [k, m] read as
    // [m, k] with strides (1, m); likewise B.
    const dnnl::memory::desc src(dims{m, k}, f32,
                                 transpose_a_ ? dims{1, m} : dims{k, 1});
    const dnnl::memory::desc weights(dims{k, n}, f32,
                                     transpose_b_ ? dims{1, k} : dims{n, 1});
    const dnnl::memory::desc dst(dims{m, n}, f32, dims{n, 1});
    const dnnl::memory::desc bias =
        fused_.bias ? dnnl::memory::desc(dims{1, n}, f32, dims{n, 1})
                    : dnnl::memory::desc();
    const dnnl::matmul::desc desc(src, weights, bias, dst);
    return std::make_shared<MatMulPrimitive>(
        dnnl::matmul::primitive_desc(desc, MakeAttr(fused_), CpuEngine()));
  }

  bool transpose_a_ = false;
  bool transpose_b_ = false;
  FusedOps fused_;
  SmallCache<MatMulKey, MatMulPrimitive> cache_;
};

// Priority 2: above the built-in kernels (0) and examples/blas_matmul (1).
// A node that asks for the "eigen" label still gets the built-in kernel.
REGISTER_KERNEL_BUILDER(
    Name("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T").Priority(2),
    OneDnnMatMulOp);
REGISTER_KERNEL_BUILDER(Name("_FusedMatMul")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<float>("T")
                            .Priority(2),
                        OneDnnMatMulOp);

}  // namespace
}  // namespace onednn_kernels
}  // namespace opkit
