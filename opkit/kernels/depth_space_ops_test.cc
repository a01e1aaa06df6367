// SpaceToDepth and DepthToSpace kernels: TensorFlow's documented examples,
// NCHW against numpy, other dtypes, empty tensors and bad inputs.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/testing/kernel_test_util.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using test::AsTensor;
using test::Attr;
using test::Iota;
using test::Values;

class DepthSpaceTest : public test::EagerOpTest {
 protected:
  Status Block(const char* op, const Tensor& x, int64 block,
               const char* format = "NHWC") {
    return Run(op, {x}, {{"block_size", Attr(block)},
                         {"data_format", Attr(std::string(format))}});
  }
};

// TensorFlow's SpaceToDepth documentation, block_size 2.
TEST_F(DepthSpaceTest, SpaceToDepthDocumentedExamples) {
  ASSERT_THAT(Block("SpaceToDepth", AsTensor<float>({1, 2, 3, 4}, TensorShape({1, 2, 2, 1})), 2),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({1, 1, 1, 4}));
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(1, 2, 3, 4));
  ASSERT_THAT(Block("SpaceToDepth",
                    AsTensor<float>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
                                    TensorShape({1, 2, 2, 3})),
                    2),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({1, 1, 1, 12}));
  EXPECT_THAT(Values<float>(out_[0]),
              ElementsAre(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12));
  ASSERT_THAT(Block("SpaceToDepth",
                    AsTensor<float>({1, 2, 5, 6, 3, 4, 7, 8, 9, 10, 13, 14, 11,
                                     12, 15, 16},
                                    TensorShape({1, 4, 4, 1})),
                    2),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({1, 2, 2, 4}));
  EXPECT_THAT(Values<float>(out_[0]),
              ElementsAre(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16));
}

// TensorFlow's DepthToSpace documentation: the inverses of the above.
TEST_F(DepthSpaceTest, DepthToSpaceDocumentedExamples) {
  ASSERT_THAT(Block("DepthToSpace",
                    AsTensor<int32>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
                                    TensorShape({1, 1, 1, 12})),
                    2),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({1, 2, 2, 3}));
  EXPECT_THAT(Values<int32>(out_[0]),
              ElementsAre(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12));
  ASSERT_THAT(Block("DepthToSpace",
                    AsTensor<int32>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
                                     14, 15, 16},
                                    TensorShape({1, 2, 2, 4})),
                    2),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({1, 4, 4, 1}));
  EXPECT_THAT(Values<int32>(out_[0]),
              ElementsAre(1, 2, 5, 6, 3, 4, 7, 8, 9, 10, 13, 14, 11, 12, 15, 16));
}

// numpy: x = arange(48).reshape(1,2,4,6) (NCHW); SpaceToDepth of
// x.transpose(0,2,3,1) by reshape(1,2,2,3,2,2).transpose(0,1,3,2,4,5),
// transposed back to NCHW.
constexpr float kNchwSpaceToDepth[] = {
    0,  2,  4,  12, 14, 16, 24, 26, 28, 36, 38, 40, 1,  3,  5,  13,
    15, 17, 25, 27, 29, 37, 39, 41, 6,  8,  10, 18, 20, 22, 30, 32,
    34, 42, 44, 46, 7,  9,  11, 19, 21, 23, 31, 33, 35, 43, 45, 47};

TEST_F(DepthSpaceTest, NchwAgainstNumpyAndRoundTrip) {
  ASSERT_THAT(Block("SpaceToDepth", Iota(TensorShape({1, 2, 4, 6})), 2, "NCHW"),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({1, 8, 2, 3}));
  EXPECT_THAT(Values<float>(out_[0]), ElementsAreArray(kNchwSpaceToDepth));
  Tensor depth = out_[0];
  ASSERT_THAT(Block("DepthToSpace", depth, 2, "NCHW"), IsOk());
  EXPECT_EQ(Values<float>(out_[0]), Values<float>(Iota(TensorShape({1, 2, 4, 6}))));
  // NHWC, block 3, batch 2: a round trip restores the input.
  Tensor x = Iota(TensorShape({2, 6, 3, 5}));
  ASSERT_THAT(Block("SpaceToDepth", x, 3), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({2, 2, 1, 45}));
  depth = out_[0];
  ASSERT_THAT(Block("DepthToSpace", depth, 3), IsOk());
  EXPECT_EQ(Values<float>(out_[0]), Values<float>(x));
}

TEST_F(DepthSpaceTest, StringsAndEmpty) {
  ASSERT_THAT(Block("SpaceToDepth",
                    test::Strings({"a", "b", "c", "d"}, TensorShape({1, 2, 2, 1})), 2),
              IsOk());
  EXPECT_THAT(Values<tstring>(out_[0]), ElementsAre("a", "b", "c", "d"));
  ASSERT_THAT(Block("SpaceToDepth", Tensor(DT_FLOAT, TensorShape({0, 4, 4, 3})), 2),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({0, 2, 2, 12}));
  ASSERT_THAT(Block("DepthToSpace", Tensor(DT_INT64, TensorShape({1, 2, 2, 0})), 2),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({1, 4, 4, 0}));
}

TEST_F(DepthSpaceTest, BadInputs) {
  EXPECT_THAT(Block("SpaceToDepth", Iota(TensorShape({1, 5, 4, 1})), 2),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("divisible by block_size")));
  EXPECT_THAT(Block("SpaceToDepth", Iota(TensorShape({4, 4, 1})), 2),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("rank should be: 4")));
  EXPECT_THAT(Block("DepthToSpace", Iota(TensorShape({1, 2, 2, 6})), 2),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("divisible by: 4")));
  EXPECT_THAT(Block("DepthToSpace", Iota(TensorShape({1, 2, 2, 4})), 1),
              StatusIs(error::INVALID_ARGUMENT));
  EXPECT_THAT(Block("DepthToSpace", Iota(TensorShape({1, 2, 2, 4})), int64{1} << 40),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("too large")));
  EXPECT_THAT(Block("DepthToSpace", Iota(TensorShape({1, 2, 2, 4})), 2, "NCHW_VECT_C"),
              StatusIs(error::UNIMPLEMENTED));
}

}  // namespace
}  // namespace opkit
