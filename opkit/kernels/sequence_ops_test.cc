// Tests of the Range kernel.
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

using RangeOpTest = OpTest;

template <typename T>
Tensor S(T v) {
  return AsTensor<T>({v}, TensorShape({}));
}

TEST_F(RangeOpTest, Integers) {
  ASSERT_THAT(Run("Range", {S<int32>(0), S<int32>(5), S<int32>(2)}), IsOk());
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(0, 2, 4));
  ASSERT_THAT(Run("Range", {S<int64>(5), S<int64>(-1), S<int64>(-3)}), IsOk());
  EXPECT_THAT(Values<int64>(out_[0]), ElementsAre(5, 2));
  ASSERT_THAT(Run("Range", {S<int8>(3), S<int8>(3), S<int8>(1)}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({0}));
  ASSERT_THAT(Run("Range", {S<uint32>(1), S<uint32>(4), S<uint32>(1)}), IsOk());
  EXPECT_THAT(Values<uint32>(out_[0]), ElementsAre(1u, 2u, 3u));
  // The extremes of the type do not overflow.
  ASSERT_THAT(Run("Range", {S<int32>(INT32_MAX - 2), S<int32>(INT32_MAX), S<int32>(1)}),
              IsOk());
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(INT32_MAX - 2, INT32_MAX - 1));
  ASSERT_THAT(Run("Range", {S<int16>(-3), S<int16>(0), S<int16>(INT16_MAX)}), IsOk());
  EXPECT_THAT(Values<int16>(out_[0]), ElementsAre(-3));
}

TEST_F(RangeOpTest, Floats) {
  ASSERT_THAT(Run("Range", {S<float>(0.f), S<float>(1.f), S<float>(0.25f)}), IsOk());
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(0.f, 0.25f, 0.5f, 0.75f));
  ASSERT_THAT(Run("Range", {S<double>(1.0), S<double>(0.0), S<double>(-0.4)}), IsOk());
  EXPECT_EQ(out_[0].NumElements(), 3);
  ASSERT_THAT(Run("Range", {S<half>(half(0.f)), S<half>(half(2.f)), S<half>(half(1.f))}),
              IsOk());
  EXPECT_EQ(out_[0].NumElements(), 2);
  EXPECT_EQ(static_cast<float>(Values<half>(out_[0])[1]), 1.f);
  ASSERT_THAT(Run("Range", {S<bfloat16>(bfloat16(0.f)), S<bfloat16>(bfloat16(3.f)),
                            S<bfloat16>(bfloat16(2.f))}),
              IsOk());
  EXPECT_EQ(out_[0].NumElements(), 2);
}

TEST_F(RangeOpTest, Errors) {
  EXPECT_THAT(Run("Range", {S<int32>(0), S<int32>(5), S<int32>(0)}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Requires delta != 0")));
  EXPECT_THAT(Run("Range", {S<int32>(5), S<int32>(1), S<int32>(1)}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Requires start <= limit when delta > 0: 5/1")));
  EXPECT_THAT(Run("Range", {S<int32>(1), S<int32>(5), S<int32>(-1)}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Requires start >= limit when delta < 0: 1/5")));
  EXPECT_THAT(Run("Range", {I32({0, 1}), S<int32>(5), S<int32>(1)}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("start must be a scalar")));
  EXPECT_THAT(Run("Range", {S<int64>(INT64_MIN), S<int64>(INT64_MAX), S<int64>(1)}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Requires ((limit - start) / delta)")));
  EXPECT_THAT(Run("Range", {S<float>(0.f), S<float>(INFINITY), S<float>(1.f)}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Requires ((limit - start) / delta)")));
  EXPECT_THAT(Run("Range", {S<float>(0.f), S<float>(NAN), S<float>(1.f)}),
              StatusIs(error::INVALID_ARGUMENT));
}

}  // namespace
}  // namespace opkit
