// KernelRegistry: registering kernels (validation, batches, the pending
// list) into a registry a test builds.
#include "opkit/kernel/kernel_registry.h"

#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/core/registration_batch.h"
#include "opkit/kernel/testing/kernel_registry_fixture.h"
#include "opkit/op/op.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using kernel_testing::FactoryA;
using kernel_testing::KernelRegistryTest;
using kernel_testing::Node;
using kernel_testing::Reg;

// --- Registration ----------------------------------------------------------

TEST_F(KernelRegistryTest, RegisterAndFind) {
  OPKIT_ASSERT_OK(kernels_.Register(
      Reg(KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"),
          "MatMulOp<float>")));
  const KernelDef* def = nullptr;
  std::string class_name;
  OPKIT_ASSERT_OK(kernels_.FindKernelDef(DeviceType(DEVICE_CPU),
                                         Node("MatMul", DT_FLOAT), &def,
                                         &class_name));
  ASSERT_NE(def, nullptr);
  EXPECT_EQ(def->op(), "MatMul");
  EXPECT_EQ(class_name, "MatMulOp<float>");

  KernelSelection selection;
  OPKIT_ASSERT_OK(kernels_.FindKernel(DeviceType(DEVICE_CPU),
                                      Node("MatMul", DT_FLOAT), &selection));
  EXPECT_EQ(selection.def, def);
  EXPECT_EQ(selection.factory, &FactoryA);
  EXPECT_EQ(*selection.kernel_class_name, "MatMulOp<float>");
  EXPECT_EQ(selection.origin->ToString(), "kernels.cc:1");
  EXPECT_EQ(selection.generation, kernels_.generation());
  EXPECT_EQ(kernels_.size(), 1u);
  EXPECT_TRUE(kernels_.KernelDefAvailable(DeviceType(DEVICE_CPU),
                                          Node("MatMul", DT_FLOAT)));
  EXPECT_FALSE(kernels_.KernelDefAvailable(DeviceType(DEVICE_CPU),
                                           Node("MatMul", DT_DOUBLE)));
}

TEST_F(KernelRegistryTest, UnknownOpIsNotFoundNamingClassOriginAndOp) {
  Status s = kernels_.Register(
      Reg(KernelDefBuilder("NoSuchOp").Device(DEVICE_CPU), "NoSuchKernel", 42));
  EXPECT_THAT(s, StatusIs(error::NOT_FOUND,
                          AllOf(HasSubstr("'NoSuchKernel'"),
                                HasSubstr("kernels.cc:42"),
                                HasSubstr("op 'NoSuchOp'"))));
  EXPECT_EQ(kernels_.size(), 0u);
  EXPECT_EQ(kernels_.generation(), 0u);
}

TEST_F(KernelRegistryTest, ConstraintOnMissingAttrIsAnError) {
  EXPECT_THAT(kernels_.Register(Reg(KernelDefBuilder("MatMul")
                                        .Device(DEVICE_CPU)
                                        .TypeConstraint<float>("U"),
                                    "Bad", 7)),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("'Bad'"), HasSubstr("kernels.cc:7"),
                             HasSubstr("constraint on attr 'U'"),
                             HasSubstr("op 'MatMul' does not have"),
                             HasSubstr("[T, transpose_a]"))));
}

TEST_F(KernelRegistryTest, TypeConstraintOnNonTypeAttrIsAnError) {
  EXPECT_THAT(kernels_.Register(Reg(KernelDefBuilder("MatMul")
                                        .Device(DEVICE_CPU)
                                        .TypeConstraint<float>("transpose_a"),
                                    "Bad")),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("type constraint on attr 'transpose_a'"),
                             HasSubstr("has type 'bool'"))));
  EXPECT_THAT(kernels_.Register(Reg(KernelDefBuilder("Modes")
                                        .Device(DEVICE_CPU)
                                        .AttrConstraint("mode", int64_t{3}),
                                    "Bad")),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("constrains attr 'mode' to int values")));
}

TEST_F(KernelRegistryTest, OtherInvalidRegistrations) {
  EXPECT_THAT(kernels_.Register(Reg(KernelDefBuilder("MatMul"), "NoDevice")),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("has no device")));
  KernelRegistration no_factory =
      Reg(KernelDefBuilder("MatMul").Device(DEVICE_CPU), "NoFactory");
  no_factory.factory = nullptr;
  EXPECT_THAT(kernels_.Register(std::move(no_factory)),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("no factory")));
  EXPECT_THAT(kernels_.Register(Reg(
                  KernelDefBuilder("MatMul").Device(DEVICE_CPU).HostMemory("zz"),
                  "BadHostMemory")),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("HostMemory arg 'zz'")));
  KernelRegistration empty_allowed =
      Reg(KernelDefBuilder("MatMul").Device(DEVICE_CPU), "EmptyAllowed");
  auto* c = empty_allowed.def.add_constraint();
  c->set_name("T");
  c->mutable_allowed_values()->mutable_list();
  EXPECT_THAT(kernels_.Register(std::move(empty_allowed)),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("allows no values")));
  KernelRegistration bad_type =
      Reg(KernelDefBuilder("MatMul").Device(DEVICE_CPU), "BadType");
  auto* c2 = bad_type.def.add_constraint();
  c2->set_name("T");
  c2->mutable_allowed_values()->mutable_list()->add_type(
      static_cast<DataType>(9999));
  EXPECT_THAT(kernels_.Register(std::move(bad_type)),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("invalid DataType")));
  EXPECT_EQ(kernels_.size(), 0u);
}

TEST_F(KernelRegistryTest, BatchIsAllOrNothing) {
  std::vector<KernelRegistration> batch;
  batch.push_back(Reg(KernelDefBuilder("MatMul").Device(DEVICE_CPU), "Good"));
  batch.push_back(Reg(KernelDefBuilder("Nope").Device(DEVICE_CPU), "Bad"));
  EXPECT_THAT(kernels_.RegisterBatch(std::move(batch)),
              StatusIs(error::NOT_FOUND, HasSubstr("'Bad'")));
  EXPECT_EQ(kernels_.size(), 0u);
  EXPECT_EQ(kernels_.generation(), 0u);
}

TEST_F(KernelRegistryTest, BuilderErrorsFailTheCommit) {
  KernelDefBuilder builder("MatMul");
  builder.Device(DEVICE_CPU).Label("a").Label("b");
  PendingKernelRegistration pending;
  pending.build_status = builder.Finalize(&pending.registration.def);
  pending.registration.kernel_class_name = "Twice";
  pending.registration.factory = &FactoryA;
  pending.registration.origin = RegistrationOrigin{"twice.cc", 3, ""};
  std::vector<PendingKernelRegistration> list;
  list.push_back(std::move(pending));
  EXPECT_THAT(kernels_.CommitPending(std::move(list), "libtwice.so"),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("'Twice'"),
                             HasSubstr("twice.cc:3 in libtwice.so"),
                             HasSubstr("Label() called twice"))));
  EXPECT_EQ(kernels_.size(), 0u);
}

TEST_F(KernelRegistryTest, CommitPendingTakesTheProcessWideList) {
  const size_t before = NumPendingKernelRegistrations();
  internal::AddPendingKernelRegistration(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"),
      "PendingFloat", &FactoryA, RegistrationOrigin{"pending.cc", 9, ""});
  internal::AddPendingKernelRegistration(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<double>("T").BuildDef(),
      "PendingDouble", &FactoryA, RegistrationOrigin{"pending.cc", 10, ""});
  EXPECT_EQ(NumPendingKernelRegistrations(), before + 2);
  std::vector<PendingKernelRegistration> taken = TakePendingKernelRegistrations();
  EXPECT_EQ(NumPendingKernelRegistrations(), 0u);
  // Keep only ours (other code in the process may have registered some).
  std::vector<PendingKernelRegistration> ours;
  for (auto& p : taken) {
    if (p.registration.origin.file == "pending.cc") ours.push_back(std::move(p));
  }
  ASSERT_EQ(ours.size(), 2u);
  KernelBatchId id = 0;
  OPKIT_ASSERT_OK(kernels_.CommitPending(std::move(ours), "libpending.so", &id));
  EXPECT_NE(id, 0u);
  auto regs = kernels_.GetRegistrationsForOp("MatMul");
  ASSERT_EQ(regs.size(), 2u);
  EXPECT_EQ(regs[0].origin.ToString(), "pending.cc:9 in libpending.so");
  EXPECT_EQ(Select(Node("MatMul", DT_DOUBLE)), "PendingDouble");

  size_t removed = 0;
  OPKIT_ASSERT_OK(kernels_.RemoveLibrary("libpending.so", &removed));
  EXPECT_EQ(removed, 2u);
  EXPECT_EQ(kernels_.size(), 0u);
  EXPECT_THAT(kernels_.RemoveLibrary(""), StatusIs(error::INVALID_ARGUMENT, HasSubstr("library")));
}

// A program (or library) with two kernels that would tie gets an error from
// the commit, not a warning and later failures (Note [Kernel ambiguity]).
TEST_F(KernelRegistryTest, ExactDuplicateIsRejectedNamingBothOrigins) {
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint("T", {DT_FLOAT, DT_DOUBLE}),
      "First", 10)));
  const uint64_t generation = kernels_.generation();
  // Same constraints in another order: still an exact duplicate.
  Status s = kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint("T", {DT_DOUBLE, DT_FLOAT}),
      "Second", 20, "libdup.so"));
  EXPECT_THAT(s, StatusIs(error::INVALID_ARGUMENT,
                          AllOf(HasSubstr("Multiple OpKernel registrations match"),
                                HasSubstr("'Second' (registered at kernels.cc:20 in libdup.so)"),
                                HasSubstr("'First' (registered at kernels.cc:10)"))));
  EXPECT_EQ(kernels_.size(), 1u);
  EXPECT_EQ(kernels_.generation(), generation);
}

// --- Registration batches (Note [Registration batches]) --------------------

PendingKernelRegistration Pending(const KernelDefBuilder& builder,
                                  std::string class_name, int line) {
  PendingKernelRegistration p;
  p.build_status = builder.Finalize(&p.registration.def);
  p.registration.kernel_class_name = std::move(class_name);
  p.registration.factory = &FactoryA;
  p.registration.origin = RegistrationOrigin{"batch.cc", line, ""};
  return p;
}

// What a program linking two tied kernels gets from committing them.
TEST_F(KernelRegistryTest, TieInsideABatchFailsTheWholeBatchNamingBoth) {
  std::vector<PendingKernelRegistration> batch;
  batch.push_back(Pending(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<double>("T"), "Fine", 1));
  batch.push_back(Pending(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"), "A", 2));
  batch.push_back(Pending(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint("T", {DT_HALF, DT_FLOAT}),
      "B", 3));
  EXPECT_THAT(kernels_.CommitPending(std::move(batch), ""),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("Kernel 'B' (registered at batch.cc:3) would make "
                                       "kernel selection ambiguous"),
                             HasSubstr("Multiple OpKernel registrations match"),
                             HasSubstr("with T in {float}"),
                             HasSubstr("'A' (registered at batch.cc:2)"),
                             HasSubstr(".Priority(1)"), HasSubstr("Unregister"),
                             HasSubstr("Label()"))));
  EXPECT_EQ(kernels_.size(), 0u);
  EXPECT_EQ(kernels_.generation(), 0u);
}

TEST_F(KernelRegistryTest, OnlySameLabelSamePriorityAndOverlappingTypesTie) {
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"), "Plain")));
  OPKIT_EXPECT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T").Label("eigen"),
      "Labelled")));
  OPKIT_EXPECT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T").Priority(1),
      "Higher")));
  OPKIT_EXPECT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<double>("T"), "Double")));
  OPKIT_EXPECT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_GPU).TypeConstraint<float>("T"), "Gpu")));
  EXPECT_EQ(kernels_.size(), 5u);
  // No constraint on T overlaps every constraint on it.
  EXPECT_THAT(kernels_.Register(Reg(KernelDefBuilder("MatMul").Device(DEVICE_GPU), "AnyT")),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("'Gpu'")));
}

TEST_F(KernelRegistryTest, BatchHandleRemovesExactlyItsKernels) {
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"), "Before")));
  std::vector<PendingKernelRegistration> batch;
  batch.push_back(Pending(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<double>("T"), "Mine", 1));
  batch.push_back(Pending(
      KernelDefBuilder("MatMul").Device(DEVICE_GPU).TypeConstraint<float>("T"), "MineGpu", 2));
  StatusOr<RegistrationHandle> mine = kernels_.CommitBatch(std::move(batch), "libmine.so");
  OPKIT_ASSERT_OK(mine);
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<int32>("T"), "After", 1,
      "libmine.so")));
  EXPECT_EQ(Select(Node("MatMul", DT_DOUBLE)), "Mine");
  EXPECT_EQ(kernels_.size(), 4u);

  OPKIT_ASSERT_OK(mine->Remove());
  EXPECT_EQ(kernels_.size(), 2u);
  EXPECT_EQ(Select(Node("MatMul", DT_FLOAT)), "Before");
  EXPECT_EQ(Select(Node("MatMul", DT_INT32)), "After");
  EXPECT_THAT(Select(Node("MatMul", DT_DOUBLE)), HasSubstr("No registered 'MatMul' OpKernel"));
  EXPECT_THAT(Select(Node("MatMul", DT_FLOAT), DEVICE_GPU), HasSubstr("No registered 'MatMul' OpKernel"));
  OPKIT_EXPECT_OK(mine->Remove());  // Nothing left to remove.

  // Destroying the handle removes the batch too; detaching keeps it.
  {
    std::vector<PendingKernelRegistration> scoped;
    scoped.push_back(Pending(
        KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<double>("T"), "Scoped", 3));
    StatusOr<RegistrationHandle> handle = kernels_.CommitBatch(std::move(scoped), "");
    OPKIT_ASSERT_OK(handle);
    EXPECT_EQ(Select(Node("MatMul", DT_DOUBLE)), "Scoped");
  }
  EXPECT_THAT(Select(Node("MatMul", DT_DOUBLE)), HasSubstr("No registered 'MatMul' OpKernel"));
  std::vector<PendingKernelRegistration> kept;
  kept.push_back(Pending(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<double>("T"), "Kept", 4));
  StatusOr<RegistrationHandle> handle = kernels_.CommitBatch(std::move(kept), "");
  OPKIT_ASSERT_OK(handle);
  handle->Detach();
  OPKIT_EXPECT_OK(handle->Remove());
  EXPECT_EQ(Select(Node("MatMul", DT_DOUBLE)), "Kept");
}

// A library's ops and kernels land together or not at all: when the kernels
// fail, the handle of the ops already committed rolls them back.
TEST_F(KernelRegistryTest, FailedKernelBatchRollsBackTheOpBatch) {
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"), "Builtin", 7)));
  const size_t ops_before = ops_.size();
  const uint64_t ops_generation = ops_.generation();
  auto load = [&]() -> Status {
    PendingOpRegistrations pending_ops;
    pending_ops.push_back(PendingOpRegistration{
        "RollBackOp", RegistrationOrigin{"lib.cc", 1, ""},
        [](OpRegistrationData* data) {
          return OpDefBuilder("RollBackOp").Output("y: float").Finalize(data);
        }});
    OPKIT_ASSIGN_OR_RETURN(CommittedOpBatch ops,
                           CommitOpBatch(std::move(pending_ops), &ops_, "libroll.so"));
    EXPECT_NE(ops_.LookUp("RollBackOp"), nullptr);
    std::vector<PendingKernelRegistration> pending_kernels;
    pending_kernels.push_back(
        Pending(KernelDefBuilder("RollBackOp").Device(DEVICE_CPU), "RollBackKernel", 2));
    pending_kernels.push_back(Pending(
        KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"), "Tied", 3));
    OPKIT_ASSIGN_OR_RETURN(RegistrationHandle kernels,
                           kernels_.CommitBatch(std::move(pending_kernels), "libroll.so"));
    ops.handle.Detach();
    kernels.Detach();
    return OkStatus();
  };
  EXPECT_THAT(load(), StatusIs(error::INVALID_ARGUMENT,
                               AllOf(HasSubstr("'Tied' (registered at batch.cc:3 in libroll.so)"),
                                     HasSubstr("'Builtin' (registered at kernels.cc:7)"))));
  EXPECT_EQ(ops_.LookUp("RollBackOp"), nullptr);
  EXPECT_EQ(ops_.size(), ops_before);
  EXPECT_EQ(ops_.generation(), ops_generation + 2);  // Added, then removed.
  EXPECT_EQ(kernels_.size(), 1u);
  EXPECT_TRUE(kernels_.GetRegisteredKernelsForOp("RollBackOp").kernel().empty());
}

}  // namespace
}  // namespace opkit
