// Tests of the Transpose kernel.
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

using TransposeOpTest = OpTest;

TEST_F(TransposeOpTest, Matrix) {
  ASSERT_THAT(Run("Transpose", {Iota(TensorShape({2, 3})), I32({1, 0})}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({3, 2}));
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(0, 3, 1, 4, 2, 5));
}

TEST_F(TransposeOpTest, Rank3WithInt64Perm) {
  ASSERT_THAT(Run("Transpose", {Iota(TensorShape({2, 3, 4})), I64({2, 0, 1})}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({4, 2, 3}));
  auto v = Values<float>(out_[0]);
  // out[k, i, j] = in[i, j, k] = 12 i + 4 j + k
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) EXPECT_EQ(v[k * 6 + i * 3 + j], 12 * i + 4 * j + k);
}

TEST_F(TransposeOpTest, IdentityPermSharesBuffer) {
  Tensor in = Iota(TensorShape({2, 2}));
  ASSERT_THAT(Run("Transpose", {in, I32({0, 1})}), IsOk());
  EXPECT_TRUE(out_[0].SharesBufferWith(in));
}

TEST_F(TransposeOpTest, StringsBoolsAndComplex) {
  ASSERT_THAT(Run("Transpose", {Strings({"a", "b", "c", "d", "e", "f"}, TensorShape({3, 2})),
                                I32({1, 0})}),
              IsOk());
  EXPECT_THAT(Values<tstring>(out_[0]), ElementsAre("a", "c", "e", "b", "d", "f"));
  ASSERT_THAT(Run("Transpose", {AsTensor<bool>({true, false, false, true, true, true},
                                               TensorShape({2, 3})),
                                I32({1, 0})}),
              IsOk());
  EXPECT_THAT(Values<bool>(out_[0]), ElementsAre(true, true, false, true, false, true));
  ASSERT_THAT(Run("Transpose", {AsTensor<complex128>({{1, 2}, {3, 4}}, TensorShape({1, 2})),
                                I32({1, 0})}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({2, 1}));
  EXPECT_EQ(Values<complex128>(out_[0])[1], complex128(3, 4));
  ASSERT_THAT(Run("Transpose", {AsTensor<half>({half(1.f), half(2.f)}, TensorShape({2, 1})),
                                I32({1, 0})}),
              IsOk());
  EXPECT_EQ(static_cast<float>(Values<half>(out_[0])[1]), 2.f);
}

TEST_F(TransposeOpTest, EmptyAndScalar) {
  ASSERT_THAT(Run("Transpose", {Tensor(DT_FLOAT, TensorShape({0, 3})), I32({1, 0})}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({3, 0}));
  ASSERT_THAT(Run("Transpose", {AsTensor<float>({7}, TensorShape({})),
                                Tensor(DT_INT32, TensorShape({0}))}),
              IsOk());
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(7));
}

TEST_F(TransposeOpTest, BadPermutations) {
  Tensor x = Iota(TensorShape({2, 3}));
  EXPECT_THAT(Run("Transpose", {x, I32({0, 1, 2})}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("transpose expects a vector of size 2. But input(1) is a "
                                 "vector of size 3")));
  EXPECT_THAT(Run("Transpose", {x, I32({0, 2})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("2 is out of range [0 .. 2)")));
  EXPECT_THAT(Run("Transpose", {x, I32({-1, 0})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("-1 is out of range")));
  EXPECT_THAT(Run("Transpose", {x, I32({1, 1})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("1 is duplicated in perm [1,1]")));
  EXPECT_THAT(Run("Transpose", {x, AsTensor<int32>({1, 0}, TensorShape({1, 2}))}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("perm must be a vector")));
}

}  // namespace
}  // namespace opkit
