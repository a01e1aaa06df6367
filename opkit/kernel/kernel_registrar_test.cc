// kernel_factory::OpKernelRegistrar with TensorFlow's constructors (a
// KernelDef and a factory function or an OpKernelFactory): what they put on
// the pending list, and what the registry makes of it once committed.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/testing/kernel_registry_fixture.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::StatusIs;
using ::testing::AllOf;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using kernel_testing::FactoryA;
using kernel_testing::KernelRegistryTest;
using kernel_testing::Node;

// Counts its Create() calls; makes no kernel.
class CountingFactory : public OpKernelFactory {
 public:
  explicit CountingFactory(int* calls) : calls_(calls) {}
  OpKernel* Create(OpKernelConstruction*) override {
    ++*calls_;
    return nullptr;
  }

 private:
  int* calls_;
};

class OpKernelRegistrarTest : public KernelRegistryTest {
 protected:
  void SetUp() override {
    // Commit what is linked into the program, so that only this test's
    // registrations are pending below.
    ASSERT_NE(KernelRegistry::Global(), nullptr);
    ASSERT_EQ(NumPendingKernelRegistrations(), 0u);
  }
};

TEST_F(OpKernelRegistrarTest, FactoryFunctionFormGoesThroughThePendingList) {
  const KernelDef* def =
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T").Build();
  const int line = __LINE__ + 1;
  kernel_factory::OpKernelRegistrar registrar(def, "ByHandFloat", &FactoryA);
  std::vector<PendingKernelRegistration> pending = TakePendingKernelRegistrations();
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].registration.kernel_class_name, "ByHandFloat");
  EXPECT_EQ(pending[0].registration.origin.line, line);
  EXPECT_THAT(pending[0].registration.origin.file, EndsWith("kernel_registrar_test.cc"));
  OPKIT_ASSERT_OK(kernels_.CommitPending(std::move(pending), "libbyhand.so"));
  KernelSelection selection;
  OPKIT_ASSERT_OK(kernels_.FindKernel(DeviceType(DEVICE_CPU), Node("MatMul", DT_FLOAT),
                                      &selection));
  EXPECT_EQ(selection.factory, &FactoryA);
  EXPECT_EQ(selection.factory_object, nullptr);
  EXPECT_EQ(selection.origin->library, "libbyhand.so");
}

TEST_F(OpKernelRegistrarTest, FactoryObjectFormKeepsTheObjectForCreation) {
  int calls = 0;
  kernel_factory::OpKernelRegistrar registrar(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).Label("stateful").Build(),
      "ByHandStateful", std::make_unique<CountingFactory>(&calls));
  OPKIT_ASSERT_OK(kernels_.CommitPending(TakePendingKernelRegistrations(), ""));
  KernelSelection selection;
  OPKIT_ASSERT_OK(kernels_.FindKernel(DeviceType(DEVICE_CPU),
                                      Node("MatMul", DT_FLOAT, "stateful"), &selection));
  ASSERT_NE(selection.factory_object, nullptr);
  EXPECT_EQ(selection.factory_object->Create(nullptr), nullptr);
  EXPECT_EQ(calls, 1);
}

TEST_F(OpKernelRegistrarTest, MistakesFailTheCommitNamingTheKernel) {
  kernel_factory::OpKernelRegistrar null_def(nullptr, "NoDef", &FactoryA);
  EXPECT_THAT(kernels_.CommitPending(TakePendingKernelRegistrations(), ""),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("'NoDef'"), HasSubstr("null KernelDef"))));
  kernel_factory::OpKernelRegistrar no_factory(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).Build(), "NoFactory",
      std::unique_ptr<OpKernelFactory>());
  EXPECT_THAT(kernels_.CommitPending(TakePendingKernelRegistrations(), ""),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("has no factory")));
  EXPECT_EQ(kernels_.size(), 0u);
}

TEST_F(OpKernelRegistrarTest, NoRegisterOpRecordsNothing) {
  // TensorFlow's name for the op of a kernel selective registration drops.
  kernel_factory::OpKernelRegistrar dropped(
      KernelDefBuilder("_no_register").Device(DEVICE_CPU).Build(), "Dropped", &FactoryA);
  EXPECT_THAT(TakePendingKernelRegistrations(), IsEmpty());
}

}  // namespace
}  // namespace opkit
