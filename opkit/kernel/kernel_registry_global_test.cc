// What a program that links two kernels which would tie gets (Note [Kernel
// ambiguity] in kernel_registry.h): the first use of KernelRegistry::Global()
// commits the program's kernels one by one, skips the later of the two with
// a LOG(ERROR) naming both and the ways out, and the program runs with the
// first. A test program of its own: it registers into the process-wide
// registries.
#include "opkit/kernel/kernel_registry.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/testing/kernel_registry_fixture.h"
#include "opkit/op/op.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using kernel_testing::CapturingSink;
using kernel_testing::Matching;
using kernel_testing::Node;
using ::testing::AllOf;
using ::testing::HasSubstr;

class FirstTiedKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext*) override {}
};
class SecondTiedKernel : public FirstTiedKernel {
 public:
  using FirstTiedKernel::FirstTiedKernel;
};

REGISTER_OP("GlobalTieTestOp").Attr("T: {float, double}").Input("x: T").Output("y: T");
REGISTER_KERNEL_BUILDER(Name("GlobalTieTestOp").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                        FirstTiedKernel);
REGISTER_KERNEL_BUILDER(Name("GlobalTieTestOp").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                        SecondTiedKernel);

TEST(GlobalKernelRegistryTieTest, LaterOfTwoTiedLinkedInKernelsIsSkippedAndLogged) {
  CapturingSink sink;
  KernelRegistry* global = KernelRegistry::Global();  // First use: commits.
  const auto errors = Matching(sink.Messages(LogSeverity::kError), "GlobalTieTestOp");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], AllOf(HasSubstr("Skipping kernel registration"),
                               HasSubstr("Multiple OpKernel registrations match"),
                               HasSubstr("'SecondTiedKernel' (registered at"),
                               HasSubstr("'FirstTiedKernel' (registered at"),
                               HasSubstr(".Priority(1)")));
  std::string class_name;
  OPKIT_ASSERT_OK(global->FindKernelDef(DeviceType(DEVICE_CPU),
                                        Node("GlobalTieTestOp", DT_FLOAT), nullptr,
                                        &class_name));
  EXPECT_EQ(class_name, "FirstTiedKernel");
  EXPECT_EQ(global->GetRegisteredKernelsForOp("GlobalTieTestOp").kernel_size(), 1);
}

}  // namespace
}  // namespace opkit
