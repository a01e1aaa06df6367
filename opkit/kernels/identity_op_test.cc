#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/kernels/kernel_test_util.h"
#include "opkit/runtime/eager_context.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::testing::ElementsAre;

TEST(IdentityTest, PassesAnyTypeThroughSharingTheBuffer) {
  auto ctx = EagerContext::Create();
  ASSERT_THAT(ctx, IsOk());
  std::vector<Tensor> out;
  Tensor in = test::AsTensor<int64>({4, 5, 6}, TensorShape({3}));
  ASSERT_THAT((*ctx)->Run("Identity", {in}, &out), IsOk());
  EXPECT_EQ(out[0].dtype(), DT_INT64);
  EXPECT_THAT(test::Values<int64>(out[0]), ElementsAre(4, 5, 6));
  EXPECT_TRUE(out[0].SharesBufferWith(in));

  Tensor s(DT_STRING, TensorShape({2}));
  s.flat<tstring>()(0) = "a";
  s.flat<tstring>()(1) = "bc";
  ASSERT_THAT((*ctx)->Run("Identity", {s}, &out), IsOk());
  EXPECT_EQ(out[0].flat<tstring>()(1), "bc");
}

}  // namespace
}  // namespace opkit
