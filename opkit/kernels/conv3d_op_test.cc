// Conv3D kernel: a numpy-derived case, a sweep of geometries against a
// direct reference, half/bfloat16/double, empty tensors and bad inputs.
#include <cstdint>
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
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using test::AsDoubles;
using test::Attr;
using test::Cycle;

class Conv3DTest : public test::EagerOpTest {
 protected:
  Status Conv(const Tensor& x, const Tensor& w, std::vector<int32> strides,
              const char* padding, std::vector<int32> dilations = {1, 1, 1, 1, 1},
              const char* format = "NDHWC") {
    return Run("Conv3D", {x, w},
               {{"strides", Attr(strides)},
                {"padding", Attr(std::string(padding))},
                {"dilations", Attr(dilations)},
                {"data_format", Attr(std::string(format))}});
  }
};

// numpy, from the definition: x = arange(96) % 7 - 3 as [1,3,4,4,2]; w =
// arange(48) % 5 - 2 as [2,2,2,2,3]; strides (1, 2, 2), SAME (planes padded
// (0, 1)); out = sum over taps (a, b, c) of einsum('ndhwc,co->ndhwo',
// strided window of the padded x, w[a,b,c]).
constexpr double kSame[] = {7,  -18, 2,  -22, 6,  9,  10, -6, -12, 2,  -3, 2,
                            -22, 6,  9,  5,   2,  9,  2,  -3, 2,   1,  7,  -12,
                            4,  -1,  -1, 3,   10, 2,  7,  1,  -10, 6,  -2, 0};

template <typename T>
class Conv3DTypedTest : public Conv3DTest {};
using Conv3DTypes = ::testing::Types<float, double, half, bfloat16>;
TYPED_TEST_SUITE(Conv3DTypedTest, Conv3DTypes);

TYPED_TEST(Conv3DTypedTest, NumpySameStrided) {
  ASSERT_THAT(this->Conv(Cycle<TypeParam>({1, 3, 4, 4, 2}, 7, 3),
                         Cycle<TypeParam>({2, 2, 2, 2, 3}, 5, 2), {1, 1, 2, 2, 1},
                         "SAME"),
              IsOk());
  EXPECT_EQ(this->out_[0].shape(), TensorShape({1, 3, 2, 2, 3}));
  EXPECT_THAT(AsDoubles<TypeParam>(this->out_[0]), ElementsAreArray(kSame));
}

TEST_F(Conv3DTest, MatchesReferenceOverGeometries) {
  struct G {
    std::vector<int64_t> x, w;
    std::vector<int32> strides, dilations;
    const char* padding;
  };
  const G cases[] = {
      {{2, 4, 5, 6, 3}, {3, 3, 3, 3, 4}, {1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, "SAME"},
      {{1, 5, 6, 7, 2}, {2, 3, 2, 2, 5}, {1, 2, 1, 3, 1}, {1, 1, 1, 1, 1}, "VALID"},
      {{1, 6, 6, 6, 1}, {2, 2, 2, 1, 2}, {1, 1, 2, 1, 1}, {1, 2, 1, 2, 1}, "SAME"},
      {{1, 3, 3, 3, 8}, {1, 1, 1, 8, 16}, {1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, "VALID"},
  };
  for (const G& g : cases) {
    SCOPED_TRACE(::testing::Message() << TensorShape(g.x).DebugString() << " "
                                      << TensorShape(g.w).DebugString() << " " << g.padding);
    Tensor x = Cycle<float>(g.x, 11, 5), w = Cycle<float>(g.w, 7, 3);
    ASSERT_THAT(Conv(x, w, g.strides, g.padding, g.dilations), IsOk());
    // The reference: output sizes and padding by TensorFlow's rules.
    int64_t out[3], pad[3];
    for (int i = 0; i < 3; ++i) {
      const int64_t in = g.x[i + 1], s = g.strides[i + 1];
      const int64_t eff = (g.w[i] - 1) * g.dilations[i + 1] + 1;
      if (std::string(g.padding) == "SAME") {
        out[i] = (in + s - 1) / s;
        pad[i] = std::max<int64_t>(0, (out[i] - 1) * s + eff - in) / 2;
      } else {
        out[i] = (in - eff) / s + 1;
        pad[i] = 0;
      }
    }
    const int64_t C = g.x[4], O = g.w[4];
    ASSERT_EQ(out_[0].shape(), TensorShape({g.x[0], out[0], out[1], out[2], O}));
    std::vector<double> want;
    for (int64_t n = 0; n < g.x[0]; ++n)
      for (int64_t a = 0; a < out[0]; ++a)
        for (int64_t b = 0; b < out[1]; ++b)
          for (int64_t c = 0; c < out[2]; ++c)
            for (int64_t o = 0; o < O; ++o) {
              double acc = 0;
              for (int64_t i = 0; i < g.w[0]; ++i)
                for (int64_t j = 0; j < g.w[1]; ++j)
                  for (int64_t k = 0; k < g.w[2]; ++k) {
                    const int64_t p = a * g.strides[1] - pad[0] + i * g.dilations[1];
                    const int64_t h = b * g.strides[2] - pad[1] + j * g.dilations[2];
                    const int64_t q = c * g.strides[3] - pad[2] + k * g.dilations[3];
                    if (p < 0 || p >= g.x[1] || h < 0 || h >= g.x[2] || q < 0 ||
                        q >= g.x[3])
                      continue;
                    for (int64_t ch = 0; ch < C; ++ch) {
                      acc += x.flat<float>()((((n * g.x[1] + p) * g.x[2] + h) * g.x[3] + q) * C + ch) *
                             w.flat<float>()((((i * g.w[1] + j) * g.w[2] + k) * C + ch) * O + o);
                    }
                  }
              want.push_back(acc);
            }
    EXPECT_EQ(AsDoubles<float>(out_[0]), want);
  }
}

TEST_F(Conv3DTest, EmptyAndBadInputs) {
  ASSERT_THAT(Conv(Tensor(DT_FLOAT, TensorShape({0, 3, 3, 3, 2})),
                   Cycle<float>({2, 2, 2, 2, 3}, 5, 2), {1, 1, 1, 1, 1}, "SAME"),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({0, 3, 3, 3, 3}));
  Tensor x = Cycle<float>({1, 3, 3, 3, 2}, 7, 3);
  Tensor w = Cycle<float>({2, 2, 2, 2, 3}, 5, 2);
  EXPECT_THAT(Conv(Cycle<float>({3, 3, 3, 2}, 7, 3), w, {1, 1, 1, 1, 1}, "SAME"),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("5-dimensional")));
  EXPECT_THAT(Conv(x, Cycle<float>({2, 2, 2, 3, 3}, 5, 2), {1, 1, 1, 1, 1}, "SAME"),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("divisible")));
  EXPECT_THAT(Conv(x, Cycle<float>({2, 2, 2, 1, 3}, 5, 2), {1, 1, 1, 1, 1}, "SAME"),
              StatusIs(error::UNIMPLEMENTED, HasSubstr("grouped")));
  // TFSA-2021-006: an empty filter whose depth divides the input's is the
  // caller's error, not an unimplemented grouped convolution.
  EXPECT_THAT(Conv(Tensor(DT_FLOAT, TensorShape({2, 2, 2, 2, 0})),
                   Tensor(DT_FLOAT, TensorShape({0, 0, 2, 6, 2})),
                   {1, 56, 39, 34, 1}, "VALID"),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("must not be empty")));
  EXPECT_THAT(Conv(x, Cycle<float>({5, 2, 2, 2, 3}, 5, 2), {1, 1, 1, 1, 1}, "VALID"),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("negative")));
  EXPECT_THAT(Conv(x, w, {1, 1, 1, 1}, "SAME"), StatusIs(error::INVALID_ARGUMENT));
  EXPECT_THAT(Conv(x, w, {2, 1, 1, 1, 1}, "SAME"),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("batch and depth")));
  EXPECT_THAT(Conv(x, w, {1, 0, 1, 1, 1}, "SAME"),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("> 0")));
  EXPECT_THAT(Conv(x, w, {1, 1, 1, 1, 1}, "SAME", {1, 1, 1, 1}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("5 dimensions")));
  EXPECT_THAT(Conv(Cycle<float>({1, 2, 3, 3, 3}, 7, 3), w, {1, 1, 1, 1, 1}, "SAME",
                   {1, 1, 1, 1, 1}, "NCDHW"),
              StatusIs(error::UNIMPLEMENTED, HasSubstr("NDHWC")));
}

}  // namespace
}  // namespace opkit
