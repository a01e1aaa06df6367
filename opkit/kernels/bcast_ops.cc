// BroadcastGradientArgs on CPU: for the shapes s0 and s1 of the two inputs
// of a broadcasting binary op, the output dimensions over which each input's
// gradient must be summed (then reshaped to the input's shape).
//
//   s0 = [2, 3, 5], s1 = [3, 1]  ->  r0 = [], r1 = [0, 2]
//
// TensorFlow's exact rule, which gradient code depends on: identical shapes
// give two empty lists; otherwise both shapes are padded on the left with 1s
// to the longer rank, a dimension where both are 1 is listed for both, and
// one where only one side is 1 is listed for that side. Lists are ascending.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernels/array_kernel_util.h"

namespace opkit {
namespace {

std::string ShapeString(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) s += ",";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

// Fills r0 / r1 as described above; false when the shapes do not broadcast.
bool GradientReduceIndices(const std::vector<int64_t>& s0, const std::vector<int64_t>& s1,
                           std::vector<int64_t>* r0, std::vector<int64_t>* r1) {
  r0->clear();
  r1->clear();
  if (s0 == s1) return true;
  const size_t rank = std::max(s0.size(), s1.size());
  for (size_t k = 0; k < rank; ++k) {
    const size_t pad0 = rank - s0.size();
    const size_t pad1 = rank - s1.size();
    const int64_t a = k < pad0 ? 1 : s0[k - pad0];
    const int64_t b = k < pad1 ? 1 : s1[k - pad1];
    if (a == 1) r0->push_back(static_cast<int64_t>(k));
    if (b == 1) r1->push_back(static_cast<int64_t>(k));
    if (a != 1 && b != 1 && a != b) return false;
  }
  return true;
}

template <typename T>
class BroadcastGradientArgsOp : public OpKernel {
 public:
  explicit BroadcastGradientArgsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    std::vector<int64_t> shapes[2];
    for (int i = 0; i < 2; ++i) {
      const Tensor& in = ctx->input(i);
      OP_REQUIRES(ctx, in.dims() == 1,
                  errors::InvalidArgument(
                      "BroadcastGradientArgs: s", i,
                      " must be a vector (the shape of an input), but has shape ",
                      in.shape().DebugString()));
      OP_REQUIRES_OK(ctx, internal::ReadIndexValues(in, i == 0 ? "s0" : "s1", &shapes[i]));
      for (size_t j = 0; j < shapes[i].size(); ++j) {
        OP_REQUIRES(ctx, shapes[i][j] >= 0,
                    errors::InvalidArgument("BroadcastGradientArgs: s", i, "[", j, "] = ",
                                            shapes[i][j],
                                            " is not a dimension size; sizes must be >= 0"));
      }
    }
    std::vector<int64_t> reduce[2];
    OP_REQUIRES(ctx, GradientReduceIndices(shapes[0], shapes[1], &reduce[0], &reduce[1]),
                errors::InvalidArgument("Incompatible shapes: ", ShapeString(shapes[0]),
                                        " vs. ", ShapeString(shapes[1])));
    for (int i = 0; i < 2; ++i) {
      Tensor* out = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(
                              i, TensorShape({static_cast<int64_t>(reduce[i].size())}), &out));
      T* p = static_cast<T*>(out->data());
      for (size_t j = 0; j < reduce[i].size(); ++j) p[j] = static_cast<T>(reduce[i][j]);
    }
  }
};

REGISTER_KERNEL_BUILDER(Name("BroadcastGradientArgs")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<int32>("T")
                            .HostMemory("s0")
                            .HostMemory("s1")
                            .HostMemory("r0")
                            .HostMemory("r1"),
                        BroadcastGradientArgsOp<int32>);
REGISTER_KERNEL_BUILDER(Name("BroadcastGradientArgs")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<int64>("T")
                            .HostMemory("s0")
                            .HostMemory("s1")
                            .HostMemory("r0")
                            .HostMemory("r1"),
                        BroadcastGradientArgsOp<int64>);

}  // namespace
}  // namespace opkit
