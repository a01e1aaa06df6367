// GradientRegistry: registering, refusing duplicates, no-gradient marks and
// the message for a missing gradient.
#include "opkit/gradients/gradient_registry.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::Contains;
using ::testing::HasSubstr;

Status PassThrough(GraphBuilder& b, const GradientOp&, const std::vector<Output>& dy,
                   std::vector<Output>* dx) {
  *dx = dy;
  return b.status();
}

TEST(GradientRegistryTest, RegisterLookupAndUnregister) {
  GradientRegistry r;
  GradFunc fn = nullptr;
  EXPECT_THAT(r.Lookup("Foo", &fn),
              StatusIs(error::NOT_FOUND, HasSubstr("No gradient defined for op: Foo")));
  ASSERT_THAT(r.Register("Foo", PassThrough), IsOk());
  ASSERT_THAT(r.Lookup("Foo", &fn), IsOk());
  EXPECT_NE(fn.target<decltype(&PassThrough)>(), nullptr);
  EXPECT_THAT(r.Register("Foo", PassThrough),
              StatusIs(error::ALREADY_EXISTS, HasSubstr("Foo")));
  EXPECT_THAT(r.RegisterNoGradient("Foo"), StatusIs(error::ALREADY_EXISTS));
  EXPECT_TRUE(r.Unregister("Foo"));
  EXPECT_FALSE(r.Unregister("Foo"));
  EXPECT_FALSE(r.Has("Foo"));
}

TEST(GradientRegistryTest, NoGradientIsFoundWithANullFunction) {
  GradientRegistry r;
  ASSERT_THAT(r.RegisterNoGradient("Bar"), IsOk());
  GradFunc fn = PassThrough;
  ASSERT_THAT(r.Lookup("Bar", &fn), IsOk());
  EXPECT_FALSE(fn);
  EXPECT_THAT(r.ListOps(), Contains("Bar"));
}

TEST(GradientRegistryTest, BadRegistrationsAreRefused) {
  GradientRegistry r;
  EXPECT_THAT(r.Register("", PassThrough), StatusIs(error::INVALID_ARGUMENT));
  EXPECT_THAT(r.Register("Baz", nullptr),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("RegisterNoGradient")));
  EXPECT_THAT(r.RegisterNoGradient(""), StatusIs(error::INVALID_ARGUMENT));
  EXPECT_TRUE(r.ListOps().empty());
}

TEST(GradientRegistryTest, BuiltInGradientsAreRegistered) {
  GradFunc fn = nullptr;
  ASSERT_THAT(GradientRegistry::Global()->Lookup("MatMul", &fn), IsOk());
  EXPECT_TRUE(fn);
  ASSERT_THAT(GradientRegistry::Global()->Lookup("StopGradient", &fn), IsOk());
  EXPECT_FALSE(fn);
}

}  // namespace
}  // namespace opkit
