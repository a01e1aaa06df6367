// BatchMatMulV2 on CPU: a matrix product per batch element, with the batch
// dimensions broadcast numpy-style and adj_x / adj_y taking the adjoint
// (conjugate transpose) of the matrices.
//
// Batches are spread over the intra-op pool, each product running on one
// thread: Eigen's GEMM for float, double and the complex types; half and
// bfloat16 are multiplied in float and rounded once at the end; the integer
// types use a plain loop whose arithmetic wraps around on overflow. When
// there are fewer float or double products than threads and each is large,
// each product instead runs on the whole pool (Eigen's tensor contraction).
#include <cstdint>
#include <complex>
#include <type_traits>
#include <vector>

#include "opkit/core/eigen.h"
#include "opkit/kernel/register_types.h"
#include "opkit/kernels/bcast.h"
#include "opkit/kernels/cwise_ops_common.h"

namespace opkit {
namespace {

// The type products are computed in.
template <typename T>
using ComputeType =
    std::conditional_t<std::is_same_v<T, half> || std::is_same_v<T, bfloat16>, float, T>;

template <typename C>
C Conj(C v) {
  if constexpr (Eigen::NumTraits<C>::IsComplex) {
    return std::conj(v);
  } else {
    return v;
  }
}

// op(src) as a row-major rows x cols matrix of C, where src is stored as
// rows x cols, or (adjoint) as cols x rows to be conjugate-transposed.
template <typename T, typename C>
void Pack(const T* src, int64_t rows, int64_t cols, bool adjoint, C* dst) {
  if (!adjoint) {
    for (int64_t i = 0; i < rows * cols; ++i) dst[i] = static_cast<C>(src[i]);
    return;
  }
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      dst[i * cols + j] = Conj(static_cast<C>(src[j * rows + i]));
    }
  }
}

// Multiply-adds per product above which a float or double product is worth
// splitting across the intra-op pool (when there are fewer products than
// threads); below it the pool's hand-off costs more than it saves.
constexpr double kWithinMatrixFlops = 1 << 18;

// out (M x N, row-major) = op(a) (M x K) * op(b) (K x N).
template <typename T>
void MultiplyOne(const T* a, const T* b, T* out, int64_t M, int64_t K, int64_t N,
                 bool adj_a, bool adj_b) {
  using C = ComputeType<T>;
  std::vector<C> a_buf, b_buf;
  // Operands already in the compute type and layout are used in place.
  auto operand = [](const T* src, int64_t rows, int64_t cols, bool adjoint,
                    std::vector<C>* buf) -> const C* {
    if constexpr (std::is_same_v<C, T>) {
      if (!adjoint) return src;
    }
    buf->resize(rows * cols);
    Pack(src, rows, cols, adjoint, buf->data());
    return buf->data();
  };
  const C* ap = operand(a, M, K, adj_a, &a_buf);
  const C* bp = operand(b, K, N, adj_b, &b_buf);
  if constexpr (internal::kIsInteger<C>) {
    internal::WrappingAdd<C> add;
    internal::WrappingMul<C> mul;
    for (int64_t i = 0; i < M * N; ++i) out[i] = C(0);
    for (int64_t i = 0; i < M; ++i) {
      for (int64_t k = 0; k < K; ++k) {
        const C av = ap[i * K + k];
        const C* brow = bp + k * N;
        T* orow = out + i * N;
        for (int64_t j = 0; j < N; ++j) orow[j] = add(orow[j], mul(av, brow[j]));
      }
    }
  } else {
    using Mat = Eigen::Matrix<C, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    Eigen::Map<const Mat> am(ap, M, K);
    Eigen::Map<const Mat> bm(bp, K, N);
    if constexpr (std::is_same_v<C, T>) {
      Eigen::Map<Mat> om(out, M, N);
      om.noalias() = am * bm;
    } else {
      Mat product = am * bm;
      const C* pp = product.data();
      for (int64_t i = 0; i < M * N; ++i) out[i] = static_cast<T>(pp[i]);
    }
  }
}

// Each input's stride (in matrices) per output batch dimension; 0 where the
// input repeats.
std::vector<int64_t> BatchStrides(const TensorShape& in, const TensorShape& out) {
  std::vector<int64_t> strides(out.dims(), 0);
  int64_t s = 1;
  for (int i = in.dims() - 1, o = out.dims() - 1; i >= 0; --i, --o) {
    if (in.dim_size(i) != 1) strides[o] = s;
    s *= in.dim_size(i);
  }
  return strides;
}

TensorShape BatchShape(const TensorShape& s) {
  TensorShape batch = s;
  batch.RemoveLastDims(2);
  return batch;
}

template <typename T>
class BatchMatMulV2Op : public OpKernel {
 public:
  explicit BatchMatMulV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_x", &adj_x_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_y", &adj_y_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    OP_REQUIRES_OK(ctx, ctx->status());
    OP_REQUIRES(ctx, x.dims() >= 2,
                errors::InvalidArgument("In[0] ndims must be >= 2: ", x.dims()));
    OP_REQUIRES(ctx, y.dims() >= 2,
                errors::InvalidArgument("In[1] ndims must be >= 2: ", y.dims()));
    const TensorShape x_batch = BatchShape(x.shape());
    const TensorShape y_batch = BatchShape(y.shape());
    BCast bcast(x_batch, y_batch);
    OP_REQUIRES(ctx, bcast.valid(),
                errors::InvalidArgument(
                    "In[0] and In[1] must have compatible batch dimensions: ",
                    x.shape().DebugString(), " vs. ", y.shape().DebugString()));
    const int64_t x_rows = x.dim_size(x.dims() - 2), x_cols = x.dim_size(x.dims() - 1);
    const int64_t y_rows = y.dim_size(y.dims() - 2), y_cols = y.dim_size(y.dims() - 1);
    const int64_t M = adj_x_ ? x_cols : x_rows;
    const int64_t K = adj_x_ ? x_rows : x_cols;
    const int64_t K_y = adj_y_ ? y_cols : y_rows;
    const int64_t N = adj_y_ ? y_rows : y_cols;
    OP_REQUIRES(ctx, K == K_y,
                errors::InvalidArgument(
                    "Matrix size-incompatible: In[0]: ", x.shape().DebugString(),
                    ", In[1]: ", y.shape().DebugString()));
    TensorShape out_shape = bcast.output_shape();
    OP_REQUIRES_OK(ctx, out_shape.AddDimWithStatus(M));
    OP_REQUIRES_OK(ctx, out_shape.AddDimWithStatus(N));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    T* z = static_cast<T*>(out->data());
    if (K == 0) {
      std::fill(z, z + out->NumElements(), T(0));
      return;
    }
    const TensorShape& batch = bcast.output_shape();
    const std::vector<int64_t> xs = BatchStrides(x_batch, batch);
    const std::vector<int64_t> ys = BatchStrides(y_batch, batch);
    const int64_t batches = batch.num_elements();
    const T* xp = static_cast<const T*>(x.data());
    const T* yp = static_cast<const T*>(y.data());
    const int64_t x_size = x_rows * x_cols, y_size = y_rows * y_cols, z_size = M * N;
    const bool adj_x = adj_x_, adj_y = adj_y_;
    // Cost per batch in multiply-adds, saturated so that the product of
    // three sizes cannot overflow.
    const double flops = static_cast<double>(M) * static_cast<double>(K) *
                         static_cast<double>(N);
    const int64_t cost = flops > 1e15 ? int64_t{1} << 50 : static_cast<int64_t>(flops) + 1;
    // Where output batch `bi` reads x and y (in matrices).
    auto operands = [&](int64_t bi, int64_t* xo, int64_t* yo) {
      int64_t rest = bi;
      *xo = *yo = 0;
      for (int d = batch.dims() - 1; d >= 0; --d) {
        const int64_t i = rest % batch.dim_size(d);
        rest /= batch.dim_size(d);
        *xo += i * xs[d];
        *yo += i * ys[d];
      }
    };
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      // Fewer large products than threads: one product per thread would
      // leave threads idle, so each product runs on the whole pool instead
      // (Eigen's contraction, as MatMul does).
      const DeviceBase::CpuWorkerThreads* threads =
          ctx->device() == nullptr ? nullptr : ctx->device()->tensorflow_cpu_worker_threads();
      if (threads != nullptr && threads->num_threads > 1 && batches < threads->num_threads &&
          flops >= kWithinMatrixFlops) {
        using ConstMap =
            Eigen::TensorMap<Eigen::Tensor<const T, 2, Eigen::RowMajor, Eigen::DenseIndex>>;
        using Map = Eigen::TensorMap<Eigen::Tensor<T, 2, Eigen::RowMajor, Eigen::DenseIndex>>;
        Eigen::array<Eigen::IndexPair<Eigen::DenseIndex>, 1> dims;
        dims[0] = Eigen::IndexPair<Eigen::DenseIndex>(adj_x ? 0 : 1, adj_y ? 1 : 0);
        const auto& device = ctx->eigen_device<Eigen::ThreadPoolDevice>();
        for (int64_t bi = 0; bi < batches; ++bi) {
          int64_t xo, yo;
          operands(bi, &xo, &yo);
          ConstMap a(xp + xo * x_size, x_rows, x_cols);
          ConstMap b(yp + yo * y_size, y_rows, y_cols);
          Map out(z + bi * z_size, M, N);
          out.device(device) = a.contract(b, dims);
        }
        return;
      }
    }
    Shard(ctx, batches, cost, [&](int64_t begin, int64_t end) {
      for (int64_t bi = begin; bi < end; ++bi) {
        int64_t xo, yo;
        operands(bi, &xo, &yo);
        MultiplyOne<T>(xp + xo * x_size, yp + yo * y_size, z + bi * z_size, M, K, N,
                       adj_x, adj_y);
      }
    });
  }

 private:
  bool adj_x_ = false;
  bool adj_y_ = false;
};

#define OPKIT_REGISTER_BATCH_MATMUL(T)                                            \
  REGISTER_KERNEL_BUILDER(                                                        \
      Name("BatchMatMulV2").Device(DEVICE_CPU).TypeConstraint<T>("T"),            \
      BatchMatMulV2Op<T>);

TF_CALL_FLOAT_TYPES(OPKIT_REGISTER_BATCH_MATMUL)
TF_CALL_int16(OPKIT_REGISTER_BATCH_MATMUL)
TF_CALL_int32(OPKIT_REGISTER_BATCH_MATMUL)
TF_CALL_int64(OPKIT_REGISTER_BATCH_MATMUL)
TF_CALL_COMPLEX_TYPES(OPKIT_REGISTER_BATCH_MATMUL)

#undef OPKIT_REGISTER_BATCH_MATMUL

}  // namespace
}  // namespace opkit
