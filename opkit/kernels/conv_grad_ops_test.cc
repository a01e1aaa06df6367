// Conv2DBackpropInput and Conv2DBackpropFilter kernels, run through
// EagerContext: numpy-derived values, the adjoint identities with Conv2D,
// NCHW, every registered type, empty tensors and bad inputs; and the same
// identities and checks for the DepthwiseConv2dNative gradient kernels.
#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/runtime/eager_context.h"
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

Tensor Sizes(const std::vector<int64_t>& dims) {
  Tensor t(DT_INT32, TensorShape({static_cast<int64_t>(dims.size())}));
  for (size_t i = 0; i < dims.size(); ++i) {
    t.flat<int32>()(i) = static_cast<int32>(dims[i]);
  }
  return t;
}

struct Geometry {
  std::vector<int32> strides = {1, 1, 1, 1};
  std::string padding = "VALID";
  std::vector<int32> dilations = {1, 1, 1, 1};
  std::vector<int64> explicit_paddings = {};
  std::string data_format = "NHWC";
};

class ConvGradTest : public test::EagerOpTest {
 protected:
  EagerAttrs Attrs(const Geometry& g) {
    EagerAttrs attrs = {{"strides", Attr(g.strides)},
                        {"padding", Attr(g.padding)},
                        {"dilations", Attr(g.dilations)},
                        {"data_format", Attr(g.data_format)}};
    if (!g.explicit_paddings.empty()) {
      attrs.push_back({"explicit_paddings", Attr(g.explicit_paddings)});
    }
    return attrs;
  }
  Status Input(const Geometry& g, const Tensor& sizes, const Tensor& w,
               const Tensor& dy, Tensor* dx) {
    OPKIT_RETURN_IF_ERROR(Run("Conv2DBackpropInput", {sizes, w, dy}, Attrs(g)));
    *dx = out_[0];
    return OkStatus();
  }
  Status Filter(const Geometry& g, const Tensor& x, const Tensor& sizes,
                const Tensor& dy, Tensor* dw) {
    OPKIT_RETURN_IF_ERROR(Run("Conv2DBackpropFilter", {x, sizes, dy}, Attrs(g)));
    *dw = out_[0];
    return OkStatus();
  }
};

// numpy, from the definition: for each tap (i, j), dx_padded[:, window rows,
// window cols, :] += einsum('nyxo,co->nyxc', dy, w[i,j]) (then the padding
// cut off) and dw[i,j] = einsum('nyxc,nyxo->co', x_padded[window], dy), with
// window = rows i*dilation :: stride and the same for columns;
// x = arange(32) % 5 - 2 as [1,4,4,2]; w = arange(54) % 7 - 3 as [3,3,2,3];
// dy = arange(12) % 4 - 1 as [1,2,2,3]; stride 2, SAME (rows and cols padded
// (0, 1)).
constexpr double kDx[] = {2,  2, -5, 2, -9, 1,  9,   -2, 2, 2, 2,
                          -5, 2, -9, -1, 9, -4, 2,   1,  0, -1, 3,
                          -11, 1, 2, -6, 0, -1, 6,  7,  5, -7};
constexpr double kDw[] = {5,  -6, -5, -3, 1,  -3, -1, 3,  -1, 1,  5,  1,  -4, -4,
                          4,  1,  -2, -1, 1,  5,  1,  -2, -3, 8,  5,  -6, -5, -3,
                          1,  -3, 1,  2,  -1, 1,  4,  -1, -3, 2,  -1, -2, 1,  0,
                          -1, 0,  1,  0,  -1, 2,  2,  0,  -2, 1,  0,  -1};

Geometry SameStride2() {
  Geometry g;
  g.strides = {1, 2, 2, 1};
  g.padding = "SAME";
  return g;
}

template <typename T>
class ConvGradTypedTest : public ConvGradTest {};
using GradTypes = ::testing::Types<float, double, half, bfloat16>;
TYPED_TEST_SUITE(ConvGradTypedTest, GradTypes);

TYPED_TEST(ConvGradTypedTest, NumpySameStride2) {
  const Geometry g = SameStride2();
  Tensor x = Cycle<TypeParam>({1, 4, 4, 2}, 5, 2);
  Tensor w = Cycle<TypeParam>({3, 3, 2, 3}, 7, 3);
  Tensor dy = Cycle<TypeParam>({1, 2, 2, 3}, 4, 1);
  Tensor dx, dw;
  ASSERT_THAT(this->Input(g, Sizes({1, 4, 4, 2}), w, dy, &dx), IsOk());
  EXPECT_EQ(dx.shape(), TensorShape({1, 4, 4, 2}));
  EXPECT_THAT(AsDoubles<TypeParam>(dx), ElementsAreArray(kDx));
  ASSERT_THAT(this->Filter(g, x, Sizes({3, 3, 2, 3}), dy, &dw), IsOk());
  EXPECT_EQ(dw.shape(), TensorShape({3, 3, 2, 3}));
  EXPECT_THAT(AsDoubles<TypeParam>(dw), ElementsAreArray(kDw));
}

TEST_F(ConvGradTest, Int32BackpropInput) {
  Tensor dx;
  ASSERT_THAT(Input(SameStride2(), Sizes({1, 4, 4, 2}),
                    Cycle<int32>({3, 3, 2, 3}, 7, 3),
                    Cycle<int32>({1, 2, 2, 3}, 4, 1), &dx),
              IsOk());
  EXPECT_THAT(AsDoubles<int32>(dx), ElementsAreArray(kDx));
}

TEST_F(ConvGradTest, NumpyExplicitPaddingDilation) {
  // numpy as above: x = arange(40) % 6 - 2 as [2,5,4,1]; w = arange(8) % 3
  // - 1 as [2,2,1,2]; dy = arange(72) % 5 - 2 as [2,6,3,2]; rows padded
  // (1, 2), cols (0, 1), dilation 2, stride 1.
  Geometry g;
  g.padding = "EXPLICIT";
  g.explicit_paddings = {0, 0, 1, 2, 0, 1, 0, 0};
  g.dilations = {1, 2, 2, 1};
  Tensor x = Cycle<float>({2, 5, 4, 1}, 6, 2);
  Tensor w = Cycle<float>({2, 2, 1, 2}, 3, 1);
  Tensor dy = Cycle<float>({2, 6, 3, 2}, 5, 2);
  Tensor dx, dw;
  ASSERT_THAT(Input(g, Sizes({2, 5, 4, 1}), w, dy, &dx), IsOk());
  const std::vector<double> want_dx = {
      1,  -1, 1,  -1, -1, -1, 0,  4,  -1, 4, -1, -2, -1, -1,
      3,  -3, 4,  -1, -3, 1,  0,  -2, 0,  4, -1, 4,  -1, -2,
      -1, -1, 3,  -3, 4,  -1, -3, 1,  -1, -1, 1, 0};
  EXPECT_EQ(AsDoubles<float>(dx), want_dx);
  ASSERT_THAT(Filter(g, x, Sizes({2, 2, 1, 2}), dy, &dw), IsOk());
  const std::vector<double> want_dw = {0, -14, -4, 6, -13, 3, 1, 5};
  EXPECT_EQ(AsDoubles<float>(dw), want_dw);
}

double Dot(const Tensor& a, const Tensor& b) {
  double s = 0;
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    s += a.flat<double>()(i) * b.flat<double>()(i);
  }
  return s;
}

// <Conv2D(x, w), dy> == <x, BackpropInput(dy, w)> == <w, BackpropFilter(x,
// dy)>, exactly: double holds every sum of these small integers.
TEST_F(ConvGradTest, AdjointOfConv2D) {
  struct Case {
    std::vector<int64_t> x, w;
    Geometry g;
  };
  std::vector<Case> cases;
  for (const char* padding : {"VALID", "SAME"}) {
    for (int stride : {1, 2, 3}) {
      for (int dilation : {1, 2}) {
        Case c{{2, 9, 8, 3}, {3, 3, 3, 4}, {}};
        c.g.strides = {1, stride, stride, 1};
        c.g.dilations = {1, dilation, dilation, 1};
        c.g.padding = padding;
        cases.push_back(c);
      }
    }
  }
  Case c{{1, 7, 6, 5}, {5, 2, 5, 3}, {}};
  c.g.padding = "EXPLICIT";
  c.g.explicit_paddings = {0, 0, 3, 1, 0, 2, 0, 0};
  c.g.strides = {1, 2, 1, 1};
  cases.push_back(c);
  cases.push_back(Case{{1, 6, 6, 40}, {1, 1, 40, 17}, {}});
  for (const Case& k : cases) {
    SCOPED_TRACE(::testing::Message()
                 << TensorShape(k.x).DebugString() << " " << TensorShape(k.w).DebugString()
                 << " " << k.g.padding << " stride " << k.g.strides[1]
                 << " dilation " << k.g.dilations[1]);
    Tensor x = Cycle<double>(k.x, 7, 3);
    Tensor w = Cycle<double>(k.w, 5, 2);
    ASSERT_THAT(Run("Conv2D", {x, w}, Attrs(k.g)), IsOk());
    Tensor y = out_[0];
    std::vector<int64_t> y_dims(y.shape().dim_sizes().begin(),
                                y.shape().dim_sizes().end());
    Tensor dy = Cycle<double>(y_dims, 9, 4);
    Tensor dx, dw;
    ASSERT_THAT(Input(k.g, Sizes(k.x), w, dy, &dx), IsOk());
    ASSERT_THAT(Filter(k.g, x, Sizes(k.w), dy, &dw), IsOk());
    const double forward = Dot(y, dy);
    EXPECT_EQ(Dot(x, dx), forward);
    EXPECT_EQ(Dot(w, dw), forward);
  }
}

// NHWC [n,h,w,c] data as NCHW.
Tensor ToNchw(const Tensor& t) {
  const int64_t n = t.dim_size(0), h = t.dim_size(1), w = t.dim_size(2),
                c = t.dim_size(3);
  Tensor out(DT_FLOAT, TensorShape({n, c, h, w}));
  for (int64_t a = 0; a < n; ++a)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x)
        for (int64_t k = 0; k < c; ++k)
          out.flat<float>()(((a * c + k) * h + y) * w + x) =
              t.flat<float>()(((a * h + y) * w + x) * c + k);
  return out;
}

TEST_F(ConvGradTest, NchwMatchesNhwc) {
  Geometry g = SameStride2();
  Tensor x = Cycle<float>({1, 4, 4, 2}, 5, 2);
  Tensor w = Cycle<float>({3, 3, 2, 3}, 7, 3);
  Tensor dy = Cycle<float>({1, 2, 2, 3}, 4, 1);
  g.data_format = "NCHW";
  g.strides = {1, 1, 2, 2};
  Tensor dx, dw;
  ASSERT_THAT(Input(g, Sizes({1, 2, 4, 4}), w, ToNchw(dy), &dx), IsOk());
  Tensor want_dx(DT_FLOAT, TensorShape({1, 4, 4, 2}));
  for (int i = 0; i < 32; ++i) want_dx.flat<float>()(i) = static_cast<float>(kDx[i]);
  EXPECT_EQ(test::Values<float>(dx), test::Values<float>(ToNchw(want_dx)));
  ASSERT_THAT(Filter(g, ToNchw(x), Sizes({3, 3, 2, 3}), ToNchw(dy), &dw), IsOk());
  EXPECT_THAT(AsDoubles<float>(dw), ElementsAreArray(kDw));
}

TEST_F(ConvGradTest, TwoInputSizesTakeBatchAndDepthFromTheOtherInputs) {
  Tensor dx;
  ASSERT_THAT(Input(SameStride2(), Sizes({4, 4}), Cycle<float>({3, 3, 2, 3}, 7, 3),
                    Cycle<float>({1, 2, 2, 3}, 4, 1), &dx),
              IsOk());
  EXPECT_EQ(dx.shape(), TensorShape({1, 4, 4, 2}));
  EXPECT_THAT(AsDoubles<float>(dx), ElementsAreArray(kDx));
}

TEST_F(ConvGradTest, EmptyTensors) {
  Geometry g = SameStride2();
  Tensor dx, dw;
  ASSERT_THAT(Input(g, Sizes({0, 4, 4, 2}), Cycle<float>({3, 3, 2, 3}, 7, 3),
                    Cycle<float>({0, 2, 2, 3}, 4, 1), &dx),
              IsOk());
  EXPECT_EQ(dx.shape(), TensorShape({0, 4, 4, 2}));
  // No examples: the filter gradient is zero.
  ASSERT_THAT(Filter(g, Cycle<float>({0, 4, 4, 2}, 5, 2), Sizes({3, 3, 2, 3}),
                     Cycle<float>({0, 2, 2, 3}, 4, 1), &dw),
              IsOk());
  EXPECT_EQ(dw.shape(), TensorShape({3, 3, 2, 3}));
  EXPECT_THAT(test::Values<float>(dw), ::testing::Each(0.0f));
}

TEST_F(ConvGradTest, BadInputs) {
  const Geometry g = SameStride2();
  Tensor w = Cycle<float>({3, 3, 2, 3}, 7, 3);
  Tensor x = Cycle<float>({1, 4, 4, 2}, 5, 2);
  Tensor dy = Cycle<float>({1, 2, 2, 3}, 4, 1);
  Tensor out;
  EXPECT_THAT(Input(g, Sizes({1, 4, 4}), w, dy, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("4 values")));
  EXPECT_THAT(Input(g, Sizes({1, -4, 4, 2}), w, dy, &out),
              StatusIs(error::INVALID_ARGUMENT));
  EXPECT_THAT(Input(g, Sizes({1, 5, 5, 2}), w, dy, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("does not match")));
  EXPECT_THAT(Input(g, Sizes({1, 4, 4, 3}), w, dy, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("filter depth")));
  EXPECT_THAT(Input(g, Sizes({2, 4, 4, 2}), w, dy, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("batch size")));
  EXPECT_THAT(Input(g, Sizes({1, 4, 4, 2}), Cycle<float>({3, 3, 2}, 7, 3), dy, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("4-dimensional")));
  EXPECT_THAT(Input(g, Sizes({1, 4, 4, 2}), w, Cycle<float>({1, 2, 2, 4}, 4, 1), &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("out_depth")));
  EXPECT_THAT(Filter(g, x, Sizes({3, 3, 2}), dy, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("4 values")));
  EXPECT_THAT(Filter(g, Cycle<float>({1, 6, 6, 2}, 5, 2), Sizes({3, 3, 2, 3}), dy, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("does not match")));
  EXPECT_THAT(Filter(g, Cycle<float>({4, 4, 2}, 5, 2), Sizes({3, 3, 2, 3}), dy, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("4-dimensional")));
  Geometry bad = g;
  bad.strides = {1, 2, 2};
  EXPECT_THAT(Filter(bad, x, Sizes({3, 3, 2, 3}), dy, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("4 dimensions")));
  bad = g;
  bad.padding = "EXPLICIT";
  bad.explicit_paddings = {0, 0, -1, 0, 0, 0, 0, 0};
  EXPECT_THAT(Input(bad, Sizes({1, 4, 4, 2}), w, dy, &out),
              StatusIs(error::INVALID_ARGUMENT));
}

// <DepthwiseConv2dNative(x, w), dy> == <x, BackpropInput(dy, w)> ==
// <w, BackpropFilter(x, dy)>, exactly (small integers in double), over
// multipliers, strides, dilations and paddings; and each gradient against a
// direct sum from the definition for one case with multiplier 2.
TEST_F(ConvGradTest, DepthwiseAdjointOfDepthwiseConv2dNative) {
  struct Case {
    std::vector<int64_t> x, w;
    Geometry g;
  };
  std::vector<Case> cases;
  for (const char* padding : {"VALID", "SAME"}) {
    for (int stride : {1, 2}) {
      for (int dilation : {1, 2}) {
        for (int64_t multiplier : {1, 3}) {
          Case c{{2, 7, 6, 3}, {3, 2, 3, multiplier}, {}};
          c.g.strides = {1, stride, stride, 1};
          c.g.dilations = {1, dilation, dilation, 1};
          c.g.padding = padding;
          cases.push_back(c);
        }
      }
    }
  }
  Case c{{1, 6, 5, 4}, {2, 3, 4, 2}, {}};
  c.g.padding = "EXPLICIT";
  c.g.explicit_paddings = {0, 0, 2, 1, 0, 1, 0, 0};
  cases.push_back(c);
  for (const Case& k : cases) {
    SCOPED_TRACE(::testing::Message()
                 << TensorShape(k.x).DebugString() << " " << TensorShape(k.w).DebugString()
                 << " " << k.g.padding << " stride " << k.g.strides[1]
                 << " dilation " << k.g.dilations[1]);
    Tensor x = Cycle<double>(k.x, 7, 3);
    Tensor w = Cycle<double>(k.w, 5, 2);
    ASSERT_THAT(Run("DepthwiseConv2dNative", {x, w}, Attrs(k.g)), IsOk());
    Tensor y = out_[0];
    std::vector<int64_t> y_dims(y.shape().dim_sizes().begin(),
                                y.shape().dim_sizes().end());
    ASSERT_EQ(y_dims[3], k.x[3] * k.w[3]);
    Tensor dy = Cycle<double>(y_dims, 9, 4);
    ASSERT_THAT(Run("DepthwiseConv2dNativeBackpropInput", {Sizes(k.x), w, dy},
                    Attrs(k.g)),
                IsOk());
    Tensor dx = out_[0];
    ASSERT_THAT(Run("DepthwiseConv2dNativeBackpropFilter", {x, Sizes(k.w), dy},
                    Attrs(k.g)),
                IsOk());
    Tensor dw = out_[0];
    EXPECT_EQ(dx.shape(), TensorShape(k.x));
    EXPECT_EQ(dw.shape(), TensorShape(k.w));
    const double forward = Dot(y, dy);
    EXPECT_EQ(Dot(x, dx), forward);
    EXPECT_EQ(Dot(w, dw), forward);
  }
}

TEST_F(ConvGradTest, DepthwiseFromTheDefinition) {
  // VALID, stride 1: y[n,oh,ow,c*M+m] = sum_{i,j} x[n,oh+i,ow+j,c] w[i,j,c,m].
  const int64_t N = 1, H = 4, W = 3, C = 2, M = 2, FH = 2, FW = 2;
  const int64_t OH = H - FH + 1, OW = W - FW + 1;
  Tensor x = Cycle<double>({N, H, W, C}, 5, 2);
  Tensor w = Cycle<double>({FH, FW, C, M}, 3, 1);
  Tensor dy = Cycle<double>({N, OH, OW, C * M}, 7, 3);
  std::vector<double> want_dx(N * H * W * C, 0), want_dw(FH * FW * C * M, 0);
  auto X = [&](int64_t h, int64_t ww, int64_t c) { return x.flat<double>()((h * W + ww) * C + c); };
  for (int64_t oh = 0; oh < OH; ++oh)
    for (int64_t ow = 0; ow < OW; ++ow)
      for (int64_t c = 0; c < C; ++c)
        for (int64_t m = 0; m < M; ++m) {
          const double g = dy.flat<double>()((oh * OW + ow) * C * M + c * M + m);
          for (int64_t i = 0; i < FH; ++i)
            for (int64_t j = 0; j < FW; ++j) {
              want_dx[((oh + i) * W + ow + j) * C + c] +=
                  g * w.flat<double>()(((i * FW + j) * C + c) * M + m);
              want_dw[((i * FW + j) * C + c) * M + m] += g * X(oh + i, ow + j, c);
            }
        }
  Geometry g;
  ASSERT_THAT(Run("DepthwiseConv2dNativeBackpropInput", {Sizes({N, H, W, C}), w, dy},
                  Attrs(g)),
              IsOk());
  EXPECT_EQ(AsDoubles<double>(out_[0]), want_dx);
  ASSERT_THAT(Run("DepthwiseConv2dNativeBackpropFilter", {x, Sizes({FH, FW, C, M}), dy},
                  Attrs(g)),
              IsOk());
  EXPECT_EQ(AsDoubles<double>(out_[0]), want_dw);
  // NCHW gives the same values, transposed.
  Geometry nchw;
  nchw.data_format = "NCHW";
  Tensor dy_f = Cycle<float>({N, OH, OW, C * M}, 7, 3);
  Tensor w_f = Cycle<float>({FH, FW, C, M}, 3, 1);
  ASSERT_THAT(Run("DepthwiseConv2dNativeBackpropInput",
                  {Sizes({N, C, H, W}), w_f, ToNchw(dy_f)}, Attrs(nchw)),
              IsOk());
  Tensor want_nhwc(DT_FLOAT, TensorShape({N, H, W, C}));
  for (size_t i = 0; i < want_dx.size(); ++i) {
    want_nhwc.flat<float>()(i) = static_cast<float>(want_dx[i]);
  }
  EXPECT_EQ(test::Values<float>(out_[0]), test::Values<float>(ToNchw(want_nhwc)));
}

// Sizes of the wrong length or sign, mismatched depths and shapes are
// errors (TFSA-2022-071: a 13-element filter_sizes).
TEST_F(ConvGradTest, DepthwiseBadInputs) {
  const Geometry g;
  Tensor x = Cycle<float>({1, 4, 4, 3}, 5, 2);
  Tensor w = Cycle<float>({1, 1, 3, 1}, 7, 3);
  Tensor dy = Cycle<float>({1, 4, 4, 3}, 4, 1);
  const std::vector<int64_t> thirteen(13, 1879048192);
  EXPECT_THAT(Run("DepthwiseConv2dNativeBackpropFilter", {x, Sizes(thirteen), dy}, Attrs(g)),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("4 values")));
  EXPECT_THAT(Run("DepthwiseConv2dNativeBackpropInput", {Sizes(thirteen), w, dy}, Attrs(g)),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("4 values")));
  EXPECT_THAT(Run("DepthwiseConv2dNativeBackpropInput", {Sizes({4, 4}), w, dy}, Attrs(g)),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("4 values")));
  EXPECT_THAT(Run("DepthwiseConv2dNativeBackpropInput", {Sizes({1, 4, -4, 3}), w, dy},
                  Attrs(g)),
              StatusIs(error::INVALID_ARGUMENT));
  EXPECT_THAT(Run("DepthwiseConv2dNativeBackpropFilter", {x, Sizes({1, 1, 2, 1}), dy},
                  Attrs(g)),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("filter depth")));
  // out_backprop's depth must be in_depth * multiplier.
  EXPECT_THAT(Run("DepthwiseConv2dNativeBackpropFilter", {x, Sizes({1, 1, 3, 2}), dy},
                  Attrs(g)),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("out_depth")));
  EXPECT_THAT(Run("DepthwiseConv2dNativeBackpropInput",
                  {Sizes({1, 4, 4, 3}), w, Cycle<float>({1, 3, 4, 3}, 4, 1)}, Attrs(g)),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("does not match")));
  // Empty: a zero batch gives an empty dx and a zero dw.
  ASSERT_THAT(Run("DepthwiseConv2dNativeBackpropFilter",
                  {Cycle<float>({0, 4, 4, 3}, 5, 2), Sizes({1, 1, 3, 1}),
                   Cycle<float>({0, 4, 4, 3}, 4, 1)},
                  Attrs(g)),
              IsOk());
  EXPECT_THAT(test::Values<float>(out_[0]), ::testing::Each(0.0f));
}

}  // namespace
}  // namespace opkit
