// Tests of the one-input Where kernel; expected coordinates from numpy's
// np.argwhere on the same inputs.
#include <complex>
#include <limits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/testing/kernel_test_util.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::testing::ElementsAre;
using test::AsTensor;
using test::Values;

using WhereTest = test::EagerOpTest;

TEST_F(WhereTest, CoordinatesOfTrueElements) {
  ASSERT_THAT(Run("Where", {AsTensor<bool>({true, false, false, true}, TensorShape({2, 2}))}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({2, 2}));
  EXPECT_THAT(Values<int64>(out_[0]), ElementsAre(0, 0, 1, 1));
  // np.argwhere([[[1, 0, 2], [0, 0, 3]], [[0, 4, 0], [0, 0, 0]]]).
  ASSERT_THAT(Run("Where", {AsTensor<int32>({1, 0, 2, 0, 0, 3, 0, 4, 0, 0, 0, 0},
                                            TensorShape({2, 2, 3}))}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({4, 3}));
  EXPECT_THAT(Values<int64>(out_[0]), ElementsAre(0, 0, 0, 0, 0, 2, 0, 1, 2, 1, 0, 1));
}

TEST_F(WhereTest, ZeroOfEachType) {
  // -0.0 is zero; NaN is not.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  ASSERT_THAT(Run("Where", {AsTensor<float>({0.0f, -0.0f, nan, 2.0f})}), IsOk());
  EXPECT_THAT(Values<int64>(out_[0]), ElementsAre(2, 3));
  ASSERT_THAT(Run("Where", {AsTensor<half>({half(0.0f), half(-0.0f), half(1.0f)})}), IsOk());
  EXPECT_THAT(Values<int64>(out_[0]), ElementsAre(2));
  ASSERT_THAT(Run("Where", {AsTensor<complex64>({complex64(0, 0), complex64(0, 1)})}), IsOk());
  EXPECT_THAT(Values<int64>(out_[0]), ElementsAre(1));
  ASSERT_THAT(Run("Where", {AsTensor<int64>({-1, 0, std::numeric_limits<int64>::min()})}),
              IsOk());
  EXPECT_THAT(Values<int64>(out_[0]), ElementsAre(0, 2));
  ASSERT_THAT(Run("Where", {AsTensor<uint8>({0, 7})}), IsOk());
  EXPECT_THAT(Values<int64>(out_[0]), ElementsAre(1));
}

TEST_F(WhereTest, ScalarsAndEmptyInputs) {
  ASSERT_THAT(Run("Where", {AsTensor<bool>({true}, TensorShape({}))}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({1, 0}));
  ASSERT_THAT(Run("Where", {AsTensor<bool>({false}, TensorShape({}))}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({0, 0}));
  ASSERT_THAT(Run("Where", {Tensor(DT_BOOL, TensorShape({3, 0, 2}))}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({0, 3}));
  ASSERT_THAT(Run("Where", {AsTensor<bool>({false, false}, TensorShape({1, 2}))}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({0, 2}));
}

TEST_F(WhereTest, LargeInput) {
  Tensor x(DT_BOOL, TensorShape({500, 400}));
  for (int64_t i = 0; i < x.NumElements(); ++i) x.flat<bool>()(i) = i % 3 == 0;
  ASSERT_THAT(Run("Where", {x}), IsOk());
  ASSERT_EQ(out_[0].dim_size(0), (500 * 400 + 2) / 3);
  const std::vector<int64> v = Values<int64>(out_[0]);
  for (int64_t r = 0; r < out_[0].dim_size(0); ++r) {
    ASSERT_EQ(v[2 * r] * 400 + v[2 * r + 1], 3 * r) << r;
  }
}

}  // namespace
}  // namespace opkit
