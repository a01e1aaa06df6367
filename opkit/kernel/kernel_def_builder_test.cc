// Tests of KernelDefBuilder: every KernelDef field it sets, the type and attr
// constraint forms, and the errors it reports instead of aborting.

#include "opkit/kernel/kernel_def_builder.h"

#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(KernelDefBuilderTest, BuildsEveryField) {
  KernelDef def;
  OPKIT_ASSERT_OK(KernelDefBuilder("MatMul")
                      .Device("CPU")
                      .TypeConstraint<float>("T")
                      .HostMemory("a")
                      .Label("eigen")
                      .Priority(3)
                      .Finalize(&def));
  EXPECT_EQ(def.op(), "MatMul");
  EXPECT_EQ(def.device_type(), "CPU");
  ASSERT_EQ(def.constraint_size(), 1);
  EXPECT_EQ(def.constraint(0).name(), "T");
  EXPECT_THAT(def.constraint(0).allowed_values().list().type(),
              ElementsAre(DT_FLOAT));
  EXPECT_THAT(def.host_memory_arg(), ElementsAre("a"));
  EXPECT_EQ(def.label(), "eigen");
  EXPECT_EQ(def.priority(), 3);
}

TEST(KernelDefBuilderTest, TypeConstraintForms) {
  KernelDef def = KernelDefBuilder("Op")
                      .Device("CPU")
                      .TypeConstraint("T", {DT_FLOAT, DT_DOUBLE})
                      .TypeConstraint("U", DT_INT32)
                      .TypeConstraint<int64>("V")
                      .TypeConstraint("W", std::vector<DataType>{DT_HALF})
                      .BuildDef();
  ASSERT_EQ(def.constraint_size(), 4);
  EXPECT_THAT(def.constraint(0).allowed_values().list().type(),
              ElementsAre(DT_FLOAT, DT_DOUBLE));
  EXPECT_THAT(def.constraint(1).allowed_values().list().type(),
              ElementsAre(DT_INT32));
  EXPECT_THAT(def.constraint(2).allowed_values().list().type(),
              ElementsAre(DT_INT64));
  EXPECT_THAT(def.constraint(3).allowed_values().list().type(),
              ElementsAre(DT_HALF));
}

TEST(KernelDefBuilderTest, AttrConstraintForms) {
  KernelDef def = KernelDefBuilder("Op")
                      .Device("CPU")
                      .AttrConstraint("mode", {"a", "b"})
                      .AttrConstraint("n", int64_t{4})
                      .AttrConstraint("flag", true)
                      .AttrConstraint("s", "x")
                      .AttrConstraint("k", 7)
                      .AttrConstraint("m", std::vector<int64_t>{1, 2})
                      .BuildDef();
  ASSERT_EQ(def.constraint_size(), 6);
  EXPECT_THAT(def.constraint(0).allowed_values().list().s(), ElementsAre("a", "b"));
  EXPECT_THAT(def.constraint(1).allowed_values().list().i(), ElementsAre(4));
  EXPECT_THAT(def.constraint(2).allowed_values().list().b(), ElementsAre(true));
  EXPECT_THAT(def.constraint(3).allowed_values().list().s(), ElementsAre("x"));
  EXPECT_THAT(def.constraint(4).allowed_values().list().i(), ElementsAre(7));
  EXPECT_THAT(def.constraint(5).allowed_values().list().i(), ElementsAre(1, 2));
}

TEST(KernelDefBuilderTest, LabelTwiceIsReportedNotFatal) {
  KernelDefBuilder b("MatMul");
  b.Device("CPU").Label("one").Label("two");
  KernelDef def;
  EXPECT_THAT(b.Finalize(&def),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Label() called twice for a kernel of op "
                                 "'MatMul': 'one' then 'two'")));
  EXPECT_EQ(def.label(), "one");
}

TEST(KernelDefBuilderTest, DeviceTwiceIsReported) {
  KernelDef def;
  EXPECT_THAT(KernelDefBuilder("MatMul").Device("CPU").Device("GPU").Finalize(&def),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Device() called twice")));
  EXPECT_EQ(def.device_type(), "CPU");
}

TEST(KernelDefBuilderTest, EveryMistakeIsListed) {
  KernelDefBuilder b("MatMul");
  b.Label("a").Label("b").TypeConstraint("T", std::vector<DataType>{})
      .AttrConstraint("s", std::vector<std::string>{});
  Status s = b.Finalize(nullptr);
  EXPECT_THAT(s, StatusIs(error::INVALID_ARGUMENT, HasSubstr("Label() called twice")));
  EXPECT_THAT(s.message(), HasSubstr("TypeConstraint(\"T\") for a kernel of op "
                                     "'MatMul' allows no types"));
  EXPECT_THAT(s.message(), HasSubstr("AttrConstraint(\"s\")"));
  EXPECT_THAT(s.message(), HasSubstr("has no device"));
  EXPECT_EQ(b.errors().size(), 3u);
}

TEST(KernelDefBuilderTest, MissingDeviceAndEmptyOp) {
  EXPECT_THAT(KernelDefBuilder("X").Finalize(nullptr),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Kernel for op 'X' has no device")));
  EXPECT_THAT(KernelDefBuilder(nullptr).Device("CPU").Finalize(nullptr),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("empty op name")));
}

TEST(KernelDefBuilderTest, NullArgumentsDoNotCrash) {
  KernelDef def = KernelDefBuilder("X")
                      .Device(nullptr)
                      .Label(nullptr)
                      .HostMemory(nullptr)
                      .TypeConstraint(nullptr, DT_FLOAT)
                      .AttrConstraint("a", static_cast<const char*>(nullptr))
                      .BuildDef();
  EXPECT_EQ(def.device_type(), "");
  EXPECT_EQ(def.constraint(0).name(), "");
}

TEST(KernelDefBuilderTest, BuildReturnsAnOwnedCopy) {
  KernelDefBuilder b("MatMul");
  b.Device("CPU").Priority(-2);
  std::unique_ptr<const KernelDef> def(b.Build());
  ASSERT_NE(def, nullptr);
  EXPECT_EQ(def->op(), "MatMul");
  EXPECT_EQ(def->priority(), -2);
}

TEST(KernelDefBuilderTest, RegisterKernelNameIsABuilder) {
  KernelDef def;
  OPKIT_ASSERT_OK(register_kernel::Name("Identity")
                      .Device("CPU")
                      .TypeConstraint<double>("T")
                      .Finalize(&def));
  EXPECT_EQ(def.op(), "Identity");
  EXPECT_THAT(def.constraint(0).allowed_values().list().type(),
              ElementsAre(DT_DOUBLE));
}

}  // namespace
}  // namespace opkit
