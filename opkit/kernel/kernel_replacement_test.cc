// Replacing kernels: Unregister/Restore, ScopedKernelOverride, the registry
// generation, and the log lines naming the kernel a change displaced.
#include "opkit/kernel/kernel_replacement.h"

#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/kernel/testing/kernel_registry_fixture.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using kernel_testing::CapturingSink;
using kernel_testing::KernelRegistryTest;
using kernel_testing::Matching;
using kernel_testing::Node;
using kernel_testing::Reg;

// --- Replacement -----------------------------------------------------------

TEST_F(KernelRegistryTest, UnregisterAndRestore) {
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"), "Float")));
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<double>("T"), "Double")));
  const KernelDef* float_def = nullptr;
  OPKIT_ASSERT_OK(kernels_.FindKernelDef(DeviceType(DEVICE_CPU), Node("MatMul", DT_FLOAT),
                                         &float_def, nullptr));
  auto handle = kernels_.Unregister(
      KernelFilter().Op("MatMul").Device(DEVICE_CPU).Type("T", DT_FLOAT));
  OPKIT_ASSERT_OK(handle);
  ASSERT_EQ(handle->size(), 1u);
  EXPECT_EQ(handle->kernels()[0], float_def);
  // The pointer handed out before stays valid.
  EXPECT_EQ(float_def->constraint(0).allowed_values().list().type(0), DT_FLOAT);
  EXPECT_THAT(Select(Node("MatMul", DT_FLOAT)), HasSubstr("No registered 'MatMul' OpKernel"));
  EXPECT_EQ(Select(Node("MatMul", DT_DOUBLE)), "Double");
  OPKIT_ASSERT_OK(handle->Restore());
  EXPECT_FALSE(handle->pending_restore());
  EXPECT_EQ(Select(Node("MatMul", DT_FLOAT)), "Float");
  EXPECT_THAT(handle->Restore(), StatusIs(error::FAILED_PRECONDITION, HasSubstr("already restored")));
}

TEST_F(KernelRegistryTest, DestroyingAHandleDoesNotRestore) {
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"), "Float")));
  {
    auto handle = kernels_.Unregister(KernelFilter().KernelClass("Float"));
    OPKIT_ASSERT_OK(handle);
  }
  EXPECT_EQ(kernels_.size(), 0u);
}

TEST_F(KernelRegistryTest, UnregisterByLabelAndNothingMatched) {
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU), "Plain")));
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).Label("eigen"), "Eigen")));
  auto handle = kernels_.Unregister(KernelFilter().Op("MatMul").Label(""));
  OPKIT_ASSERT_OK(handle);
  EXPECT_EQ(handle->size(), 1u);
  EXPECT_EQ(Select(Node("MatMul", DT_FLOAT, "eigen")), "Eigen");
  EXPECT_THAT(kernels_.Unregister(KernelFilter().Op("MatMul").Device(DEVICE_GPU)),
              StatusIs(error::NOT_FOUND,
                       AllOf(HasSubstr("op='MatMul' device='GPU'"),
                             HasSubstr("device='CPU'; label='eigen'"))));
}

// Restoring puts back what was accepted before, even when a kernel
// registered meanwhile ties with it (Note [Kernel ambiguity]): it warns, and
// selection reports the ambiguity for the nodes both match.
TEST_F(KernelRegistryTest, RestoringATiedKernelWarnsInsteadOfFailing) {
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"), "A", 1)));
  auto hidden = kernels_.Unregister(KernelFilter().KernelClass("A"));
  OPKIT_ASSERT_OK(hidden);
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"), "B", 2,
      "libb.so")));
  CapturingSink sink;
  OPKIT_ASSERT_OK(hidden->Restore());
  auto warnings = Matching(sink.Messages(LogSeverity::kWarning), "both have priority 0");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], AllOf(HasSubstr("'A' (registered at kernels.cc:1)"),
                                 HasSubstr("'B' (registered at kernels.cc:2 in libb.so)"),
                                 HasSubstr("will be ambiguous")));
  EXPECT_EQ(kernels_.size(), 2u);
  EXPECT_THAT(Select(Node("MatMul", DT_FLOAT)), HasSubstr("Multiple OpKernel"));
}

TEST_F(KernelRegistryTest, RestoreDoesNotBringBackRemovedLibraries) {
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU), "FromLib", 1, "liba.so")));
  auto handle = kernels_.Unregister(KernelFilter().Op("MatMul"));
  OPKIT_ASSERT_OK(handle);
  OPKIT_ASSERT_OK(kernels_.RemoveLibrary("liba.so"));
  OPKIT_ASSERT_OK(handle->Restore());
  EXPECT_EQ(kernels_.size(), 0u);
}

TEST_F(KernelRegistryTest, ScopedOverrideWinsAndRestores) {
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T").Priority(5),
      "Builtin")));
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<double>("T"), "Double")));
  const uint64_t before = kernels_.generation();
  {
    auto scoped = ScopedKernelOverride::Create(
        &kernels_, Reg(KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                       "Override"));
    OPKIT_ASSERT_OK(scoped);
    EXPECT_EQ((*scoped)->kernel_def().priority(), 6);
    EXPECT_EQ(Select(Node("MatMul", DT_FLOAT)), "Override");
    EXPECT_EQ(Select(Node("MatMul", DT_DOUBLE)), "Double");
    EXPECT_GT(kernels_.generation(), before);
  }
  EXPECT_EQ(Select(Node("MatMul", DT_FLOAT)), "Builtin");
  EXPECT_EQ(kernels_.size(), 2u);
  EXPECT_EQ(kernels_.generation(), before + 2);
}

TEST_F(KernelRegistryTest, ScopedOverrideCannotOutrankMaxPriority) {
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).Priority(INT32_MAX), "Top")));
  EXPECT_THAT(ScopedKernelOverride::Create(
                  &kernels_, Reg(KernelDefBuilder("MatMul").Device(DEVICE_CPU), "O")),
              StatusIs(error::FAILED_PRECONDITION, HasSubstr("highest possible priority")));
  EXPECT_THAT(ScopedKernelOverride::Create(
                  &kernels_, Reg(KernelDefBuilder("Nope").Device(DEVICE_CPU), "O")),
              StatusIs(error::NOT_FOUND, HasSubstr("'Nope'")));
  EXPECT_THAT(ScopedKernelOverride::Create(nullptr, KernelRegistration()),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("registry")));
}

TEST_F(KernelRegistryTest, GenerationBumpsOnEveryMutation) {
  uint64_t g = kernels_.generation();
  KernelBatchId id = 0;
  OPKIT_ASSERT_OK(kernels_.Register(
      Reg(KernelDefBuilder("MatMul").Device(DEVICE_CPU), "A", 1, "libg.so"), &id));
  EXPECT_EQ(kernels_.generation(), ++g);
  auto handle = kernels_.Unregister(KernelFilter().KernelClass("A"));
  OPKIT_ASSERT_OK(handle);
  EXPECT_EQ(kernels_.generation(), ++g);
  OPKIT_ASSERT_OK(handle->Restore());
  EXPECT_EQ(kernels_.generation(), ++g);
  OPKIT_ASSERT_OK(kernels_.RemoveBatch(id));
  EXPECT_EQ(kernels_.generation(), ++g);
  EXPECT_THAT(kernels_.RemoveBatch(id), StatusIs(error::NOT_FOUND, HasSubstr("batch")));
  EXPECT_EQ(kernels_.generation(), g);
  // A failed registration changes nothing.
  EXPECT_FALSE(kernels_.Register(Reg(KernelDefBuilder("Nope").Device(DEVICE_CPU), "X")).ok());
  EXPECT_EQ(kernels_.generation(), g);
}

TEST_F(KernelRegistryTest, LogNamesTheKernelActuallyDisplaced) {
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"), "Low", 1)));
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T").Priority(5),
      "Mid", 2)));
  // Unrelated kernels of the op must not be named.
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<double>("T").Priority(7),
      "OtherType", 3)));
  CapturingSink sink;
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T").Priority(9),
      "High", 4, "libhigh.so")));
  auto changes = Matching(sink.Messages(LogSeverity::kInfo), "now wins over");
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_THAT(changes[0],
              AllOf(HasSubstr("'High' (registered at kernels.cc:4 in libhigh.so) with "
                              "priority 9 now wins over 'Mid' (registered at "
                              "kernels.cc:2) with priority 5"),
                    Not(HasSubstr("'Low'")), Not(HasSubstr("OtherType"))));

  // Unregistering the winner: the next one wins again, named correctly.
  sink.Clear();
  auto handle = kernels_.Unregister(KernelFilter().KernelClass("High"));
  OPKIT_ASSERT_OK(handle);
  changes = Matching(sink.Messages(LogSeverity::kInfo), "now wins over");
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_THAT(changes[0], AllOf(HasSubstr("'Mid' (registered at kernels.cc:2) with priority 5 "
                                          "now wins over 'High'"),
                                HasSubstr("unregistered")));

  // Unregistering a kernel that was not winning logs no change.
  sink.Clear();
  auto low = kernels_.Unregister(KernelFilter().KernelClass("Low"));
  OPKIT_ASSERT_OK(low);
  EXPECT_TRUE(Matching(sink.Messages(LogSeverity::kInfo), "now wins over").empty());

  // Registering a kernel below the winner logs no change either.
  sink.Clear();
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T").Priority(1),
      "Below", 5)));
  EXPECT_TRUE(Matching(sink.Messages(LogSeverity::kInfo), "now wins over").empty());

  // Restoring High displaces Mid again.
  sink.Clear();
  OPKIT_ASSERT_OK(handle->Restore());
  changes = Matching(sink.Messages(LogSeverity::kInfo), "now wins over");
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_THAT(changes[0], HasSubstr("'High' (registered at kernels.cc:4 in libhigh.so) with "
                                    "priority 9 now wins over 'Mid'"));
}

TEST_F(KernelRegistryTest, RemovingTheOnlyKernelIsLogged) {
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"), "Only", 1)));
  CapturingSink sink;
  auto handle = kernels_.Unregister(KernelFilter().Op("MatMul"));
  OPKIT_ASSERT_OK(handle);
  auto changes = Matching(sink.Messages(LogSeverity::kInfo), "'Only'");
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_THAT(changes[0], HasSubstr("no other kernel matches"));
}

TEST_F(KernelRegistryTest, FilterMatching) {
  KernelRegistration reg =
      Reg(KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T").Label("x"),
          "K", 1, "libk.so");
  EXPECT_TRUE(KernelFilter().Matches(reg));
  EXPECT_TRUE(KernelFilter().Op("MatMul").Device("CPU").Label("x").Matches(reg));
  EXPECT_FALSE(KernelFilter().Label("").Matches(reg));
  EXPECT_TRUE(KernelFilter().Type("T", DT_FLOAT).Matches(reg));
  EXPECT_FALSE(KernelFilter().Type("T", DT_DOUBLE).Matches(reg));
  EXPECT_TRUE(KernelFilter().Type("U", DT_DOUBLE).Matches(reg));  // Unconstrained.
  EXPECT_TRUE(KernelFilter().Library("libk.so").Matches(reg));
  EXPECT_FALSE(KernelFilter().Library("libz.so").Matches(reg));
  EXPECT_EQ(KernelFilter().DebugString(), "<all kernels>");
  EXPECT_EQ(KernelFilter().Op("A").Type("T", DT_FLOAT).DebugString(), "op='A' T=DT_FLOAT");
}

}  // namespace
}  // namespace opkit
