// The replacement done the opkit way (Note [Kernel priority]): the same
// kernel as naive_matmul.cc, registered with Priority(1), so that it wins
// over the built-in float CPU MatMul (priority 0) as soon as the library is
// loaded, with nothing unregistered; unloading it lets the built-in win
// again. A loop running MatMul picks it up at its next call.
#include "my_matmul_op.h"

#include "tensorflow/core/framework/op_kernel.h"

using namespace tensorflow;

REGISTER_KERNEL_BUILDER(
    Name("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T").Priority(1),
    MyMatMulOp);
