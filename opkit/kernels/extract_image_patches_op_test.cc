// ExtractImagePatches kernel: TensorFlow's documented examples, a SAME case
// with rates against numpy, other dtypes, empty tensors and bad attrs.
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
using test::Attr;
using test::Values;

class ExtractImagePatchesTest : public test::EagerOpTest {
 protected:
  Status Patches(const Tensor& images, std::vector<int32> ksizes,
                 std::vector<int32> strides, std::vector<int32> rates,
                 const char* padding) {
    return Run("ExtractImagePatches", {images},
               {{"ksizes", Attr(ksizes)},
                {"strides", Attr(strides)},
                {"rates", Attr(rates)},
                {"padding", Attr(std::string(padding))}});
  }
};

// 1, 2, 3, ... in a tensor of `shape`.
template <typename T>
Tensor Count(const TensorShape& shape) {
  Tensor t(DataTypeToEnum<T>::value, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.flat<T>()(i) = static_cast<T>(i + 1);
  return t;
}

// TensorFlow's documentation: a 10x10 image holding 1..100, 3x3 patches
// 5 apart, VALID; then the same with rates 2.
TEST_F(ExtractImagePatchesTest, DocumentedExamples) {
  Tensor image = Count<float>(TensorShape({1, 10, 10, 1}));
  ASSERT_THAT(Patches(image, {1, 3, 3, 1}, {1, 5, 5, 1}, {1, 1, 1, 1}, "VALID"), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({1, 2, 2, 9}));
  EXPECT_THAT(Values<float>(out_[0]),
              ElementsAre(1, 2, 3, 11, 12, 13, 21, 22, 23, 6, 7, 8, 16, 17, 18, 26, 27,
                          28, 51, 52, 53, 61, 62, 63, 71, 72, 73, 56, 57, 58, 66, 67,
                          68, 76, 77, 78));
  ASSERT_THAT(Patches(image, {1, 3, 3, 1}, {1, 5, 5, 1}, {1, 2, 2, 1}, "VALID"), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({1, 2, 2, 9}));
  EXPECT_THAT(Values<float>(out_[0]),
              ElementsAre(1, 3, 5, 21, 23, 25, 41, 43, 45, 6, 8, 10, 26, 28, 30, 46, 48,
                          50, 51, 53, 55, 71, 73, 75, 91, 93, 95, 56, 58, 60, 76, 78,
                          80, 96, 98, 100));
}

// numpy: x = arange(1, 41).reshape(1,5,4,2); ksizes 2x3, strides 2, rates
// (2, 1), SAME (rows padded (1, 1), columns (0, 1)); each patch is the
// padded window xp[:, y*2 : y*2+3 : 2, z*2 : z*2+3, :] flattened.
constexpr int32 kSameRates[] = {
    0,  0,  0,  0,  0,  0,  9,  10, 11, 12, 13, 14, 0,  0,  0,  0,  0,  0,
    13, 14, 15, 16, 0,  0,  9,  10, 11, 12, 13, 14, 25, 26, 27, 28, 29, 30,
    13, 14, 15, 16, 0,  0,  29, 30, 31, 32, 0,  0,  25, 26, 27, 28, 29, 30,
    0,  0,  0,  0,  0,  0,  29, 30, 31, 32, 0,  0,  0,  0,  0,  0,  0,  0};

TEST_F(ExtractImagePatchesTest, SameWithRatesAgainstNumpy) {
  ASSERT_THAT(Patches(Count<int32>(TensorShape({1, 5, 4, 2})), {1, 2, 3, 1},
                      {1, 2, 2, 1}, {1, 2, 1, 1}, "SAME"),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({1, 3, 2, 12}));
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAreArray(kSameRates));
}

TEST_F(ExtractImagePatchesTest, OtherTypesAndEmpty) {
  Tensor b(DT_BOOL, TensorShape({1, 2, 2, 1}));
  b.flat<bool>().setValues({true, false, false, true});
  ASSERT_THAT(Patches(b, {1, 2, 2, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, "SAME"), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({1, 2, 2, 4}));
  EXPECT_THAT(Values<bool>(out_[0]),
              ElementsAre(true, false, false, true, false, false, true, false, false,
                          true, false, false, true, false, false, false));
  ASSERT_THAT(Patches(Tensor(DT_DOUBLE, TensorShape({0, 3, 3, 2})), {1, 2, 2, 1},
                      {1, 1, 1, 1}, {1, 1, 1, 1}, "VALID"),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({0, 2, 2, 8}));
  ASSERT_THAT(Patches(Tensor(DT_FLOAT, TensorShape({1, 3, 3, 0})), {1, 2, 2, 1},
                      {1, 1, 1, 1}, {1, 1, 1, 1}, "VALID"),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({1, 2, 2, 0}));
}

TEST_F(ExtractImagePatchesTest, BadInputs) {
  Tensor image = Count<float>(TensorShape({1, 4, 4, 1}));
  EXPECT_THAT(Patches(image, {1, 6, 6, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, "VALID"),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("negative")));
  EXPECT_THAT(Patches(image, {2, 2, 2, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, "VALID"),
              StatusIs(error::UNIMPLEMENTED, HasSubstr("rows and cols")));
  EXPECT_THAT(Patches(image, {1, 2, 2, 1}, {1, 0, 1, 1}, {1, 1, 1, 1}, "VALID"),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr(">= 1")));
  EXPECT_THAT(Patches(image, {1, 2, 2, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, "VALID"),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("4 values")));
  EXPECT_THAT(Patches(Count<float>(TensorShape({4, 4, 1})), {1, 2, 2, 1}, {1, 1, 1, 1},
                      {1, 1, 1, 1}, "VALID"),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("4-dimensional")));
}

}  // namespace
}  // namespace opkit
