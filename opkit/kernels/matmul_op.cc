// MatMul on CPU. float and double multiply on BlasGemm (OpenBLAS, see
// Note [MatMul on BLAS]) when the build has it; the other types, and every
// type under Label("eigen"), on an Eigen tensor contraction on the device's
// intra-op pool. Registered for every type of the op, unlabelled and with
// Label("eigen"), as TensorFlow registers it. The computation itself
// (MatMulOutputShape, LaunchMatMul) is shared with _FusedMatMul through
// matmul_op.h.
#include "opkit/kernels/matmul_op.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernels/blas_gemm.h"
#include "opkit/kernels/kernel_shard.h"

namespace opkit {

Status MatMulOutputShape(const Tensor& a, const Tensor& b, bool transpose_a,
                         bool transpose_b, TensorShape* shape) {
  if (!TensorShapeUtils::IsMatrix(a.shape())) {
    return errors::InvalidArgument(
        "In[0] is not a matrix. Instead it has shape ",
        a.shape().DebugString());
  }
  if (!TensorShapeUtils::IsMatrix(b.shape())) {
    return errors::InvalidArgument(
        "In[1] is not a matrix. Instead it has shape ",
        b.shape().DebugString());
  }
  const int a_inner = transpose_a ? 0 : 1;
  const int b_inner = transpose_b ? 1 : 0;
  if (a.dim_size(a_inner) != b.dim_size(b_inner)) {
    return errors::InvalidArgument(
        "Matrix size-incompatible: In[0]: ", a.shape().DebugString(),
        ", In[1]: ", b.shape().DebugString(),
        (transpose_a || transpose_b)
            ? StrCat(" (transpose_a=", transpose_a,
                     ", transpose_b=", transpose_b, ")")
            : std::string());
  }
  *shape = TensorShape({a.dim_size(1 - a_inner), b.dim_size(1 - b_inner)});
  return OkStatus();
}

template <typename T>
void LaunchEigenMatMul(OpKernelContext* ctx, const Tensor& a, const Tensor& b,
                       bool transpose_a, bool transpose_b, Tensor* out) {
  if (out->NumElements() == 0) return;
  const int a_inner = transpose_a ? 0 : 1;
  const int b_inner = transpose_b ? 1 : 0;
  auto z = out->matrix<T>();
  if (a.dim_size(a_inner) == 0) {
    z.setZero();
    return;
  }
  Eigen::array<Eigen::IndexPair<Eigen::DenseIndex>, 1> dims;
  dims[0] = Eigen::IndexPair<Eigen::DenseIndex>(a_inner, b_inner);
  z.device(ctx->eigen_device<Eigen::ThreadPoolDevice>()) =
      a.matrix<T>().contract(b.matrix<T>(), dims);
}

namespace {

// Note [MatMul on BLAS]
// The portable build compiles Eigen for the SSE2 baseline, while OpenBLAS
// picks a kernel for the CPU at run time (and BlasGemm an AVX-512 build of
// Eigen's product where that is faster, Note [MatMul on AVX-512] in
// blas_gemm.cc), so float and double products go to BlasGemm unless it
// runs on baseline Eigen (BlasGemmBackend()). BlasGemm stays on its
// calling thread (Note [OpenBLAS threads] in blas_gemm.cc); the intra-op
// pool supplies the parallelism: the output is cut into at most one block
// per intra-op thread along its longer side (rows of op(a), or columns of
// op(b)), each block no smaller than kMinBlockFlops multiply-adds, and each
// block is one BlasGemm call reading its rows or columns in place. Cutting
// the longer side keeps the operand that every block must pack whole (op(b)
// for row blocks, op(a) for column blocks) the smaller one.
constexpr double kMinBlockFlops = 1 << 18;
// Column blocks start on a multiple of this many columns, so that every
// block but the last is whole vectors wide.
constexpr int64_t kColumnAlign = 16;

template <typename T>
void LaunchBlasMatMul(OpKernelContext* ctx, const Tensor& a, const Tensor& b,
                      bool transpose_a, bool transpose_b, Tensor* out) {
  const int64_t m = out->dim_size(0);
  const int64_t n = out->dim_size(1);
  const int64_t k = transpose_a ? a.dim_size(0) : a.dim_size(1);
  const T* ap = a.flat<T>().data();
  const T* bp = b.flat<T>().data();
  T* cp = out->flat<T>().data();
  const int64_t lda = a.dim_size(1);
  const int64_t ldb = b.dim_size(1);
  if (m == 0 || n == 0) return;
  const DeviceBase::CpuWorkerThreads* threads =
      ctx->device() == nullptr ? nullptr
                               : ctx->device()->tensorflow_cpu_worker_threads();
  const double flops =
      static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  int64_t blocks = threads == nullptr ? 1 : std::max(threads->num_threads, 1);
  blocks = std::min<int64_t>(
      blocks, std::max<int64_t>(1, static_cast<int64_t>(flops / kMinBlockFlops)));
  const bool by_rows = m >= n;
  const int64_t side = by_rows ? m : n;
  int64_t step = (side + blocks - 1) / blocks;
  if (!by_rows) step = (step + kColumnAlign - 1) / kColumnAlign * kColumnAlign;
  blocks = (side + step - 1) / step;
  auto run_block = [&](int64_t first, int64_t last) {
    for (int64_t blk = first; blk < last; ++blk) {
      const int64_t begin = blk * step;
      const int64_t size = std::min(side, begin + step) - begin;
      if (by_rows) {
        // Rows [begin, begin + size) of op(a): row i of op(a) starts at
        // a[i * lda] when a is not transposed, at a[i] when it is.
        const T* a_block = ap + (transpose_a ? begin : begin * lda);
        BlasGemm(transpose_a, transpose_b, size, n, k, a_block, lda, bp, ldb,
                 cp + begin * n, n);
      } else {
        // Columns [begin, begin + size) of op(b), likewise.
        const T* b_block = bp + (transpose_b ? begin * ldb : begin);
        BlasGemm(transpose_a, transpose_b, m, size, k, ap, lda, b_block, ldb,
                 cp + begin, n);
      }
    }
  };
  if (blocks == 1) {
    run_block(0, 1);
    return;
  }
  // One unit per block; the cost makes Shard give each block its own shard.
  Shard(ctx, blocks, flops / static_cast<double>(blocks), run_block);
}

}  // namespace

template <typename T>
void LaunchMatMul(OpKernelContext* ctx, const Tensor& a, const Tensor& b,
                  bool transpose_a, bool transpose_b, Tensor* out) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    if (BlasGemmBackend() != GemmBackend::kEigen) {
      LaunchBlasMatMul<T>(ctx, a, b, transpose_a, transpose_b, out);
      return;
    }
  }
  LaunchEigenMatMul<T>(ctx, a, b, transpose_a, transpose_b, out);
}

#define OPKIT_INSTANTIATE_LAUNCH_MATMUL(T)                                \
  template void LaunchMatMul<T>(OpKernelContext*, const Tensor&,          \
                                const Tensor&, bool, bool, Tensor*);      \
  template void LaunchEigenMatMul<T>(OpKernelContext*, const Tensor&,     \
                                     const Tensor&, bool, bool, Tensor*);
OPKIT_INSTANTIATE_LAUNCH_MATMUL(half)
OPKIT_INSTANTIATE_LAUNCH_MATMUL(bfloat16)
OPKIT_INSTANTIATE_LAUNCH_MATMUL(float)
OPKIT_INSTANTIATE_LAUNCH_MATMUL(double)
OPKIT_INSTANTIATE_LAUNCH_MATMUL(int32)
OPKIT_INSTANTIATE_LAUNCH_MATMUL(int64)
OPKIT_INSTANTIATE_LAUNCH_MATMUL(complex64)
OPKIT_INSTANTIATE_LAUNCH_MATMUL(complex128)
#undef OPKIT_INSTANTIATE_LAUNCH_MATMUL

namespace {

// kEigen: the Label("eigen") kernel, which always multiplies on Eigen.
template <typename T, bool kEigen>
class MatMulKernel : public OpKernel {
 public:
  explicit MatMulKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_a", &transpose_a_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_b", &transpose_b_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    TensorShape shape;
    // OP_REQUIRES, not OP_REQUIRES_OK: bad shapes are the caller's error and
    // are not logged as warnings.
    const Status s = MatMulOutputShape(a, b, transpose_a_, transpose_b_, &shape);
    OP_REQUIRES(ctx, s.ok(), s);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if constexpr (kEigen) {
      LaunchEigenMatMul<T>(ctx, a, b, transpose_a_, transpose_b_, out);
    } else {
      LaunchMatMul<T>(ctx, a, b, transpose_a_, transpose_b_, out);
    }
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

template <typename T>
using MatMulOp = MatMulKernel<T, false>;

// The Label("eigen") kernels are registered under the same class name as
// before MatMul had a BLAS path, "MatMulOp<T>" (kernel listings and
// programs that look for the built-in kernel by name keep working; the
// label tells the two apart). REGISTER_KERNEL_BUILDER records the class as
// written, so it is written as MatMulOp<T> in a scope where that names the
// Eigen kernel.
namespace eigen_label {
template <typename T>
using MatMulOp = MatMulKernel<T, true>;
}  // namespace eigen_label

#define OPKIT_REGISTER_MATMUL(T)                                             \
  REGISTER_KERNEL_BUILDER(                                                   \
      Name("MatMul").Device(DEVICE_CPU).TypeConstraint<T>("T"),              \
      MatMulOp<T>);                                                          \
  namespace eigen_label {                                                    \
  REGISTER_KERNEL_BUILDER(                                                   \
      Name("MatMul").Device(DEVICE_CPU).TypeConstraint<T>("T").Label("eigen"), \
      MatMulOp<T>);                                                          \
  }

OPKIT_REGISTER_MATMUL(float)
OPKIT_REGISTER_MATMUL(double)
OPKIT_REGISTER_MATMUL(half)
OPKIT_REGISTER_MATMUL(bfloat16)
OPKIT_REGISTER_MATMUL(int32)
OPKIT_REGISTER_MATMUL(int64)
OPKIT_REGISTER_MATMUL(complex64)
OPKIT_REGISTER_MATMUL(complex128)

#undef OPKIT_REGISTER_MATMUL

}  // namespace
}  // namespace opkit
