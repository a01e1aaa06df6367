// Op libraries that must fail to load, one fault each (chosen by FAULT), and
// must leave the registries as they were. Each also registers a good op,
// LibTestInnocent, which must not land either.
#include "opkit/op/op.h"
#include "opkit/kernel/op_kernel.h"

namespace {

class NothingOp : public opkit::OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(opkit::OpKernelContext*) override {}
};

}  // namespace

REGISTER_OP("LibTestInnocent");
REGISTER_KERNEL_BUILDER(Name("LibTestInnocent").Device(opkit::DEVICE_CPU),
                        NothingOp);

#if FAULT == 1
// An op name the built-in library uses, with another signature.
REGISTER_OP("Identity").Input("x: float").Output("y: int32");
#elif FAULT == 2
// A spec that does not parse.
REGISTER_OP("LibTestBadSpec").Attr("T: notatype");
#elif FAULT == 3
// A kernel for an op nobody declared.
REGISTER_KERNEL_BUILDER(Name("LibTestNoSuchOp").Device(opkit::DEVICE_CPU),
                        NothingOp);
#elif FAULT == 4
// A second CPU float MatMul at the built-in kernels' priority.
REGISTER_KERNEL_BUILDER(
    Name("MatMul").Device(opkit::DEVICE_CPU).TypeConstraint<float>("T"),
    NothingOp);
#elif FAULT == 5
// Built against another ABI: plugins/other_abi.cc is linked in.
#elif FAULT == 6
// A symbol nothing defines (linked with undefined symbols allowed).
extern "C" int opkit_test_symbol_nobody_defines();
extern "C" [[gnu::visibility("default")]] int LibTestCallMissing() {
  return opkit_test_symbol_nobody_defines();
}
#endif
