// Tests of the Tile kernel.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/testing/kernel_test_util.h"
#include "opkit/runtime/eager_context.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using test::AsTensor;
using test::Values;

using test::Attr;
using test::I32;
using test::I64;
using test::Iota;
using test::Strings;
using OpTest = test::EagerOpTest;

using TileOpTest = OpTest;

TEST_F(TileOpTest, Matrix) {
  ASSERT_THAT(Run("Tile", {Iota(TensorShape({2, 2})), I32({2, 3})}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({4, 6}));
  EXPECT_THAT(Values<float>(out_[0]),
              ElementsAre(0, 1, 0, 1, 0, 1, 2, 3, 2, 3, 2, 3, 0, 1, 0, 1, 0, 1, 2, 3, 2, 3,
                          2, 3));
}

TEST_F(TileOpTest, VectorStringsAndInt64Multiples) {
  ASSERT_THAT(Run("Tile", {Strings({"x", "y"}, TensorShape({2})), I64({2})}), IsOk());
  EXPECT_THAT(Values<tstring>(out_[0]), ElementsAre("x", "y", "x", "y"));
  ASSERT_THAT(Run("Tile", {AsTensor<int64>({5}, TensorShape({})),
                           Tensor(DT_INT32, TensorShape({0}))}),
              IsOk());
  EXPECT_THAT(Values<int64>(out_[0]), ElementsAre(5));
}

TEST_F(TileOpTest, ZeroMultipleAndEmptyInput) {
  ASSERT_THAT(Run("Tile", {Iota(TensorShape({2, 2})), I32({0, 3})}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({0, 6}));
  ASSERT_THAT(Run("Tile", {Tensor(DT_FLOAT, TensorShape({0, 2})), I32({3, 1})}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({0, 2}));
}

TEST_F(TileOpTest, BadMultiples) {
  Tensor x = Iota(TensorShape({2, 2}));
  EXPECT_THAT(Run("Tile", {x, I32({2})}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Expected multiples argument to be a vector of length 2 but "
                                 "got length 1")));
  EXPECT_THAT(Run("Tile", {x, I32({1, -1})}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Expected multiples[1] >= 0, but got -1")));
  EXPECT_THAT(Run("Tile", {x, AsTensor<int32>({1, 1}, TensorShape({1, 2}))}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("to be a vector")));
  EXPECT_THAT(Run("Tile", {x, I64({int64{1} << 62, int64{1} << 62})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("overflows")));
}

}  // namespace
}  // namespace opkit
