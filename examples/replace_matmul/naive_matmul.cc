// The first attempt of `shared/seeds/000_*.txt`: register a CPU MatMul
// kernel for the built-in MatMul op, the plain way. The built-in float CPU
// kernel matches the same nodes at the same priority, so loading this
// library is refused with "Multiple OpKernel registrations match", naming
// both registrations, and changes nothing. It loads once the built-in
// kernels are unregistered:
//   KernelRegistry::Global()->Unregister(KernelFilter().Op("MatMul").Device("CPU"))
// (The seed shows no type constraint; its error message shows a float
// one, which this kernel, float only, needs.)
#include "my_matmul_op.h"

#include "tensorflow/core/framework/op_kernel.h"

using namespace tensorflow;

REGISTER_KERNEL_BUILDER(
    Name("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    MyMatMulOp);
