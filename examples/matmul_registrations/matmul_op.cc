// MatMul's op and kernel registrations as `shared/seeds/001_*.txt` shows
// them, on an op of its own: "ExampleMatMul" has MatMul's OpDef (inputs,
// attrs, shape function) under another name, because opkit's built-in op
// library already registers "MatMul" and its kernels with exactly these
// labels; see README.md. CPU kernels are registered twice per type, without
// a label and with Label("eigen") (REGISTER_CPU / REGISTER_CPU_EIGEN); the
// GPU ones (unlabelled and Label("cublas")) are in matmul_op_gpu.cu.cc.
//
// ExampleMatMul([[1, 2], [3, 4]], [[5], [6]]) -> [[17], [39]]
// A node with attr _kernel="eigen" selects the labelled kernel.
#include "matmul_op.h"

#include "tensorflow/core/framework/common_shape_fns.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/register_types.h"
#include "third_party/eigen3/unsupported/Eigen/CXX11/Tensor"

namespace tensorflow {

typedef Eigen::ThreadPoolDevice CPUDevice;

REGISTER_OP("ExampleMatMul")
    .Input("a: T")
    .Input("b: T")
    .Output("product: T")
    .Attr("transpose_a: bool = false")
    .Attr("transpose_b: bool = false")
    .Attr(
        "T: {bfloat16, half, float, double, int32, int64, complex64, "
        "complex128}")
    .SetShapeFn(shape_inference::MatMulShape);

// The CPU product: an Eigen tensor contraction on the device's thread pool.
template <typename T, bool USE_CUBLAS>
struct LaunchMatMul<CPUDevice, T, USE_CUBLAS> {
  static void Launch(OpKernelContext* ctx, const Tensor& a, const Tensor& b,
                     bool transpose_a, bool transpose_b, Tensor* out) {
    Eigen::array<Eigen::IndexPair<Eigen::DenseIndex>, 1> dim_pair;
    dim_pair[0].first = transpose_a ? 0 : 1;
    dim_pair[0].second = transpose_b ? 1 : 0;
    out->matrix<T>().device(ctx->eigen_device<CPUDevice>()) =
        a.matrix<T>().contract(b.matrix<T>(), dim_pair);
  }
  static void GetBlasGemmAlgorithm(OpKernelConstruction* ctx,
                                   std::vector<int64>* algorithms,
                                   bool* algorithms_set_already) {}
};

#define REGISTER_CPU_EIGEN(T)                                               \
  REGISTER_KERNEL_BUILDER(                                                  \
      Name("ExampleMatMul").Device(DEVICE_CPU).TypeConstraint<T>("T")      \
          .Label("eigen"),                                                  \
      ExampleMatMulOp<CPUDevice, T, false /* cublas, ignored for CPU */>);

#define REGISTER_CPU(T)                                                     \
  REGISTER_KERNEL_BUILDER(                                                  \
      Name("ExampleMatMul").Device(DEVICE_CPU).TypeConstraint<T>("T"),     \
      ExampleMatMulOp<CPUDevice, T, false /* cublas, ignored for CPU */>); \
  REGISTER_CPU_EIGEN(T);

TF_CALL_float(REGISTER_CPU);
TF_CALL_double(REGISTER_CPU);
TF_CALL_int32(REGISTER_CPU);

}  // namespace tensorflow
