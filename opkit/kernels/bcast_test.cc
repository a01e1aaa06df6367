// Tests of BCast.
#include "opkit/kernels/bcast.h"

#include "gtest/gtest.h"

namespace opkit {
namespace {

TEST(BCastTest, SameShape) {
  BCast b(TensorShape({2, 3}), TensorShape({2, 3}));
  ASSERT_TRUE(b.valid());
  EXPECT_TRUE(b.same_shape());
  EXPECT_EQ(b.output_shape(), TensorShape({2, 3}));
}

TEST(BCastTest, NumpyRules) {
  BCast b(TensorShape({4, 1, 3}), TensorShape({2, 1}));
  ASSERT_TRUE(b.valid());
  EXPECT_EQ(b.output_shape(), TensorShape({4, 2, 3}));
  EXPECT_EQ(b.x_reshape(), (BCast::Vec{4, 1, 3}));
  EXPECT_EQ(b.y_reshape(), (BCast::Vec{1, 2, 1}));
  EXPECT_EQ(b.x_bcast(), (BCast::Vec{1, 2, 1}));
  EXPECT_EQ(b.y_bcast(), (BCast::Vec{4, 1, 3}));
}

TEST(BCastTest, ScalarAndEmpty) {
  EXPECT_EQ(BCast(TensorShape({}), TensorShape({5})).output_shape(), TensorShape({5}));
  BCast e(TensorShape({0, 3}), TensorShape({1, 3}));
  ASSERT_TRUE(e.valid());
  EXPECT_EQ(e.output_shape(), TensorShape({0, 3}));
}

TEST(BCastTest, Incompatible) {
  EXPECT_FALSE(BCast(TensorShape({2, 3}), TensorShape({4})).valid());
  EXPECT_FALSE(BCast(TensorShape({2}), TensorShape({3})).valid());
}

TEST(BCastTest, OutputTooLargeIsInvalid) {
  // Each input is representable; the broadcast, 2^80 elements, is not.
  const int64_t big = int64_t{1} << 40;
  EXPECT_FALSE(BCast(TensorShape({big, 1}), TensorShape({1, big})).valid());
  EXPECT_TRUE(BCast(TensorShape({big, 1}), TensorShape({1, 0})).valid());
}

TEST(BCastTest, MoreThanInt32MaxElements) {
  // TFSA-2022-153: a scalar broadcast against [2, 1024, 1024, 1024] (2^31
  // elements, one past int32) must keep every size exact.
  const TensorShape big({2, 1024, 1024, 1024});
  BCast b(TensorShape({}), big);
  ASSERT_TRUE(b.valid());
  EXPECT_EQ(b.output_shape(), big);
  EXPECT_EQ(b.output_shape().num_elements(), int64_t{1} << 31);
  EXPECT_EQ(b.x_reshape(), (BCast::Vec{1, 1, 1, 1}));
  EXPECT_EQ(b.x_bcast(), (BCast::Vec{2, 1024, 1024, 1024}));
  EXPECT_EQ(b.y_bcast(), (BCast::Vec{1, 1, 1, 1}));
}

}  // namespace
}  // namespace opkit
