// MirrorPad kernel: TensorFlow's documented examples, numpy's np.pad in
// 'reflect' and 'symmetric' modes on a 3-D input, the padding limits of
// each mode, other dtypes, empty tensors and bad inputs.
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

class MirrorPadTest : public test::EagerOpTest {
 protected:
  Status Pad(const Tensor& x, const Tensor& paddings, const char* mode) {
    return Run("MirrorPad", {x, paddings}, {{"mode", Attr(std::string(mode))}});
  }
};

Tensor Paddings(std::initializer_list<int32> v) {
  return AsTensor<int32>(v, TensorShape({static_cast<int64_t>(v.size()) / 2, 2}));
}

// TensorFlow's MirrorPad documentation: t = [[1, 2, 3], [4, 5, 6]],
// paddings = [[1, 1], [2, 2]].
TEST_F(MirrorPadTest, DocumentedExamples) {
  Tensor t = AsTensor<int32>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  ASSERT_THAT(Pad(t, Paddings({1, 1, 2, 2}), "REFLECT"), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({4, 7}));
  EXPECT_THAT(Values<int32>(out_[0]),
              ElementsAre(6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1, 6, 5, 4, 5,
                          6, 5, 4, 3, 2, 1, 2, 3, 2, 1));
  ASSERT_THAT(Pad(t, Paddings({1, 1, 2, 2}), "SYMMETRIC"), IsOk());
  EXPECT_THAT(Values<int32>(out_[0]),
              ElementsAre(2, 1, 1, 2, 3, 3, 2, 2, 1, 1, 2, 3, 3, 2, 5, 4, 4, 5,
                          6, 6, 5, 5, 4, 4, 5, 6, 6, 5));
}

// numpy: m = arange(24).reshape(2,3,4);
// np.pad(m, ((1,1),(2,0),(0,3)), mode='symmetric') and
// np.pad(m, ((1,0),(2,2),(3,1)), mode='reflect'): the largest paddings each
// mode allows in some dimensions.
constexpr float kSymmetric[] = {
    4,  5,  6,  7,  7,  6,  5,  0,  1,  2,  3,  3,  2,  1,  0,  1,  2,  3,  3,  2,
    1,  4,  5,  6,  7,  7,  6,  5,  8,  9,  10, 11, 11, 10, 9,  4,  5,  6,  7,  7,
    6,  5,  0,  1,  2,  3,  3,  2,  1,  0,  1,  2,  3,  3,  2,  1,  4,  5,  6,  7,
    7,  6,  5,  8,  9,  10, 11, 11, 10, 9,  16, 17, 18, 19, 19, 18, 17, 12, 13, 14,
    15, 15, 14, 13, 12, 13, 14, 15, 15, 14, 13, 16, 17, 18, 19, 19, 18, 17, 20, 21,
    22, 23, 23, 22, 21, 16, 17, 18, 19, 19, 18, 17, 12, 13, 14, 15, 15, 14, 13, 12,
    13, 14, 15, 15, 14, 13, 16, 17, 18, 19, 19, 18, 17, 20, 21, 22, 23, 23, 22, 21};
constexpr float kReflect[] = {
    23, 22, 21, 20, 21, 22, 23, 22, 19, 18, 17, 16, 17, 18, 19, 18, 15, 14, 13, 12,
    13, 14, 15, 14, 19, 18, 17, 16, 17, 18, 19, 18, 23, 22, 21, 20, 21, 22, 23, 22,
    19, 18, 17, 16, 17, 18, 19, 18, 15, 14, 13, 12, 13, 14, 15, 14, 11, 10, 9,  8,
    9,  10, 11, 10, 7,  6,  5,  4,  5,  6,  7,  6,  3,  2,  1,  0,  1,  2,  3,  2,
    7,  6,  5,  4,  5,  6,  7,  6,  11, 10, 9,  8,  9,  10, 11, 10, 7,  6,  5,  4,
    5,  6,  7,  6,  3,  2,  1,  0,  1,  2,  3,  2,  23, 22, 21, 20, 21, 22, 23, 22,
    19, 18, 17, 16, 17, 18, 19, 18, 15, 14, 13, 12, 13, 14, 15, 14, 19, 18, 17, 16,
    17, 18, 19, 18, 23, 22, 21, 20, 21, 22, 23, 22, 19, 18, 17, 16, 17, 18, 19, 18,
    15, 14, 13, 12, 13, 14, 15, 14};

TEST_F(MirrorPadTest, ThreeDimensionsAgainstNumpy) {
  Tensor m = Iota(TensorShape({2, 3, 4}));
  ASSERT_THAT(Pad(m, Paddings({1, 1, 2, 0, 0, 3}), "SYMMETRIC"), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({4, 5, 7}));
  EXPECT_THAT(Values<float>(out_[0]), ElementsAreArray(kSymmetric));
  ASSERT_THAT(Pad(m, AsTensor<int64>({1, 0, 2, 2, 3, 1}, TensorShape({3, 2})),
                  "REFLECT"),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({3, 7, 8}));
  EXPECT_THAT(Values<float>(out_[0]), ElementsAreArray(kReflect));
}

TEST_F(MirrorPadTest, StringsScalarsAndEmpty) {
  ASSERT_THAT(Pad(test::Strings({"a", "b"}, TensorShape({2})), Paddings({1, 2}),
                  "SYMMETRIC"),
              IsOk());
  EXPECT_THAT(Values<tstring>(out_[0]), ElementsAre("a", "a", "b", "b", "a"));
  ASSERT_THAT(Pad(AsTensor<float>({7}, TensorShape({})),
                  Tensor(DT_INT32, TensorShape({0, 2})), "REFLECT"),
              IsOk());
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(7));
  ASSERT_THAT(Pad(Tensor(DT_FLOAT, TensorShape({0, 3})), Paddings({0, 0, 1, 1}),
                  "SYMMETRIC"),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({0, 5}));
  // REFLECT cannot pad an empty dimension, even by zero (0 is not less than
  // its size), as in TensorFlow.
  EXPECT_THAT(Pad(Tensor(DT_FLOAT, TensorShape({0, 3})), Paddings({0, 0, 1, 1}),
                  "REFLECT"),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("less than")));
}

TEST_F(MirrorPadTest, PaddingLimits) {
  Tensor t = Iota(TensorShape({2, 3}));
  EXPECT_THAT(Pad(t, Paddings({0, 0, 3, 0}), "REFLECT"),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("less than")));
  EXPECT_THAT(Pad(t, Paddings({0, 0, 0, 4}), "SYMMETRIC"),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("no greater than")));
  EXPECT_THAT(Pad(t, Paddings({0, 0, 3, 3}), "SYMMETRIC"), IsOk());
  EXPECT_THAT(Pad(t, Paddings({-1, 0, 0, 0}), "SYMMETRIC"),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("non-negative")));
  EXPECT_THAT(Pad(t, Paddings({0, 0}), "SYMMETRIC"),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("rank of inputs")));
  EXPECT_THAT(Pad(t, AsTensor<int32>({0, 0, 0, 0}, TensorShape({4})), "SYMMETRIC"),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("2 columns")));
}

}  // namespace
}  // namespace opkit
