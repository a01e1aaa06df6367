// The functor shared by the CPU and GPU kernels of the `Example` op, from
// TensorFlow's "Adding a new op" guide (GPU kernels section): the OpKernel
// is written once over a Device, the computation is ExampleFunctor<Device, T>,
// specialised per device.
//
//   ExampleFunctor<CPUDevice, float>()(device, n, in, out);  // out = 2 * in
//
// The guide's header writes the GPU specialisation as
// `template <typename Eigen::GpuDevice, typename T> struct ExampleFunctor`,
// which is not valid C++; this is the partial specialisation it means (the
// form TensorFlow's own examples/adding_an_op code uses).
#ifndef KERNEL_EXAMPLE_H_
#define KERNEL_EXAMPLE_H_

#include "third_party/eigen3/unsupported/Eigen/CXX11/Tensor"

template <typename Device, typename T>
struct ExampleFunctor {
  void operator()(const Device& d, int size, const T* in, T* out);
};

#if GOOGLE_CUDA
// Partially specialize functor for GpuDevice.
template <typename T>
struct ExampleFunctor<Eigen::GpuDevice, T> {
  void operator()(const Eigen::GpuDevice& d, int size, const T* in, T* out);
};
#endif

#endif  // KERNEL_EXAMPLE_H_
