// The GPU half of ExampleMatMul (see matmul_op.cc): the GPUDevice product and
// the GPU registrations of `shared/seeds/001_*.txt` — unlabelled and
// Label("cublas"), both with USE_CUBLAS true. Compiled only in a CUDA build
// (GPU_SOURCES of opkit_add_op_library with -DOPKIT_CUDA=ON).
//
// opkit has no GPU device yet: such a build compiles, and the kernels are
// selected only on a device of type "GPU".
#ifdef GOOGLE_CUDA
#define EIGEN_USE_GPU
#include "matmul_op.h"

#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/register_types.h"
#include "third_party/eigen3/unsupported/Eigen/CXX11/Tensor"

namespace tensorflow {

typedef Eigen::GpuDevice GPUDevice;

// The GPU product, through Eigen's contraction on the device's stream (a
// cuBLAS call is what TensorFlow's USE_CUBLAS path would make here).
template <typename T, bool USE_CUBLAS>
struct LaunchMatMul<GPUDevice, T, USE_CUBLAS> {
  static void Launch(OpKernelContext* ctx, const Tensor& a, const Tensor& b,
                     bool transpose_a, bool transpose_b, Tensor* out) {
    Eigen::array<Eigen::IndexPair<Eigen::DenseIndex>, 1> dim_pair;
    dim_pair[0].first = transpose_a ? 0 : 1;
    dim_pair[0].second = transpose_b ? 1 : 0;
    out->matrix<T>().device(ctx->eigen_device<GPUDevice>()) =
        a.matrix<T>().contract(b.matrix<T>(), dim_pair);
  }
  static void GetBlasGemmAlgorithm(OpKernelConstruction* ctx,
                                   std::vector<int64>* algorithms,
                                   bool* algorithms_set_already) {}
};

#define REGISTER_GPU(T)                                                    \
  REGISTER_KERNEL_BUILDER(                                                 \
      Name("ExampleMatMul").Device(DEVICE_GPU).TypeConstraint<T>("T"),    \
      ExampleMatMulOp<GPUDevice, T, true /* cublas, true by default */>); \
  REGISTER_KERNEL_BUILDER(Name("ExampleMatMul")                           \
                              .Device(DEVICE_GPU)                          \
                              .TypeConstraint<T>("T")                      \
                              .Label("cublas"),                            \
                          ExampleMatMulOp<GPUDevice, T, true /* cublas */>)

TF_CALL_float(REGISTER_GPU);
TF_CALL_double(REGISTER_GPU);

}  // namespace tensorflow

#endif  // GOOGLE_CUDA
