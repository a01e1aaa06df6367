// MaxPool and AvgPool kernels and their gradients, run through EagerContext
// and checked against a direct reference (the gradients against central
// differences of the forward ops).
#include <algorithm>
#include <cmath>
#include <limits>
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
using test::Attr;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct PoolCase {
  std::vector<int32> ksize;
  std::vector<int32> strides;
  std::string padding;
  std::vector<int64> explicit_paddings;  // MaxPool only
};

class PoolingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ctx = EagerContext::Create();
    ASSERT_THAT(ctx, IsOk());
    ctx_ = std::move(ctx).value();
  }

  Status Run(const char* op, const Tensor& in, const PoolCase& p, Tensor* out,
             const std::string& data_format = "NHWC") {
    EagerAttrs attrs = {{"ksize", Attr(p.ksize)},
                        {"strides", Attr(p.strides)},
                        {"padding", Attr(p.padding)},
                        {"data_format", Attr(data_format)}};
    if (!p.explicit_paddings.empty()) {
      attrs.push_back({"explicit_paddings", Attr(p.explicit_paddings)});
    }
    std::vector<Tensor> outs;
    OPKIT_RETURN_IF_ERROR(ctx_->Run(op, {in}, attrs, &outs));
    *out = outs[0];
    return OkStatus();
  }

  std::unique_ptr<EagerContext> ctx_;
};

// Spatial pooling of an NHWC float tensor, directly from the definition.
// Padding amounts: SAME as TensorFlow computes them, or the explicit ones.
std::vector<double> ReferencePool(const Tensor& in, const PoolCase& p, bool max,
                                  int64_t* out_rows, int64_t* out_cols) {
  const int64_t n = in.dim_size(0), h = in.dim_size(1), w = in.dim_size(2),
                c = in.dim_size(3);
  const int64_t kh = p.ksize[1], kw = p.ksize[2], sh = p.strides[1],
                sw = p.strides[2];
  int64_t pt = 0, pl = 0, oh, ow;
  if (p.padding == "VALID") {
    oh = (h - kh) / sh + 1;
    ow = (w - kw) / sw + 1;
  } else if (p.padding == "SAME") {
    oh = (h + sh - 1) / sh;
    ow = (w + sw - 1) / sw;
    pt = std::max<int64_t>(0, (oh - 1) * sh + kh - h) / 2;
    pl = std::max<int64_t>(0, (ow - 1) * sw + kw - w) / 2;
  } else {
    pt = p.explicit_paddings[2];
    pl = p.explicit_paddings[4];
    oh = (h + pt + p.explicit_paddings[3] - kh) / sh + 1;
    ow = (w + pl + p.explicit_paddings[5] - kw) / sw + 1;
  }
  *out_rows = oh;
  *out_cols = ow;
  std::vector<double> out;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t y = 0; y < oh; ++y) {
      for (int64_t x = 0; x < ow; ++x) {
        for (int64_t ch = 0; ch < c; ++ch) {
          double acc = max ? -INFINITY : 0;
          int count = 0;
          for (int64_t i = 0; i < kh; ++i) {
            for (int64_t j = 0; j < kw; ++j) {
              const int64_t r = y * sh - pt + i, s = x * sw - pl + j;
              if (r < 0 || r >= h || s < 0 || s >= w) continue;
              const double v = in.flat<float>()(((b * h + r) * w + s) * c + ch);
              acc = max ? std::max(acc, v) : acc + v;
              ++count;
            }
          }
          out.push_back(max ? acc : acc / count);
        }
      }
    }
  }
  return out;
}

Tensor Pattern(const TensorShape& shape) {
  Tensor t(DT_FLOAT, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.flat<float>()(i) = static_cast<float>((i * 37) % 23) - 11.f;
  }
  return t;
}

TEST_F(PoolingTest, MaxPoolHandComputed) {
  Tensor in = test::AsTensor<float>(
      {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
      TensorShape({1, 4, 4, 1}));
  Tensor out;
  ASSERT_THAT(Run("MaxPool", in, {{1, 2, 2, 1}, {1, 2, 2, 1}, "VALID", {}}, &out),
              IsOk());
  EXPECT_EQ(out.shape(), TensorShape({1, 2, 2, 1}));
  EXPECT_THAT(test::Values<float>(out), ElementsAre(6, 8, 14, 16));
  ASSERT_THAT(Run("AvgPool", in, {{1, 2, 2, 1}, {1, 2, 2, 1}, "VALID", {}}, &out),
              IsOk());
  EXPECT_THAT(test::Values<float>(out), ElementsAre(3.5, 5.5, 11.5, 13.5));
  // SAME 2x2 at stride 1: the last row/column average only what is inside.
  ASSERT_THAT(Run("AvgPool", in, {{1, 2, 2, 1}, {1, 1, 1, 1}, "SAME", {}}, &out),
              IsOk());
  EXPECT_EQ(out.shape(), TensorShape({1, 4, 4, 1}));
  EXPECT_EQ(out.flat<float>()(3), (4 + 8) / 2.f);
  EXPECT_EQ(out.flat<float>()(15), 16.f);
}

TEST_F(PoolingTest, MatchesReference) {
  const std::vector<PoolCase> cases = {
      {{1, 2, 2, 1}, {1, 2, 2, 1}, "VALID", {}},
      {{1, 3, 3, 1}, {1, 2, 2, 1}, "SAME", {}},
      {{1, 3, 2, 1}, {1, 1, 3, 1}, "SAME", {}},
      {{1, 1, 1, 1}, {1, 1, 1, 1}, "VALID", {}},
      {{1, 4, 4, 1}, {1, 3, 3, 1}, "VALID", {}},
      {{1, 5, 5, 1}, {1, 1, 1, 1}, "SAME", {}},
  };
  for (const char* op : {"MaxPool", "AvgPool"}) {
    for (const PoolCase& p : cases) {
      SCOPED_TRACE(::testing::Message() << op << " ksize " << p.ksize[1] << "x"
                                        << p.ksize[2] << " stride "
                                        << p.strides[1] << "x" << p.strides[2]
                                        << " " << p.padding);
      Tensor in = Pattern(TensorShape({2, 7, 6, 3}));
      Tensor out;
      ASSERT_THAT(Run(op, in, p, &out), IsOk());
      int64_t oh, ow;
      std::vector<double> want =
          ReferencePool(in, p, std::string(op) == "MaxPool", &oh, &ow);
      ASSERT_EQ(out.shape(), TensorShape({2, oh, ow, 3}));
      for (int64_t i = 0; i < out.NumElements(); ++i) {
        EXPECT_NEAR(out.flat<float>()(i), want[i], 1e-5) << i;
      }
    }
  }
}

TEST_F(PoolingTest, MaxPoolExplicitPadding) {
  PoolCase p{{1, 2, 3, 1}, {1, 2, 1, 1}, "EXPLICIT", {0, 0, 1, 1, 2, 1, 0, 0}};
  Tensor in = Pattern(TensorShape({1, 5, 4, 2}));
  Tensor out;
  ASSERT_THAT(Run("MaxPool", in, p, &out), IsOk());
  int64_t oh, ow;
  std::vector<double> want = ReferencePool(in, p, true, &oh, &ow);
  ASSERT_EQ(out.shape(), TensorShape({1, oh, ow, 2}));
  for (int64_t i = 0; i < out.NumElements(); ++i) {
    EXPECT_EQ(out.flat<float>()(i), want[i]) << i;
  }
}

TEST_F(PoolingTest, MaxPoolExplicitPaddingAsLargeAsTheWindowIsRejected) {
  // A window could lie wholly in such padding and pool nothing; TensorFlow
  // refuses it, on each side of each spatial dimension.
  const std::vector<std::vector<int64_t>> paddings = {
      {0, 0, 2, 0, 0, 0, 0, 0},
      {0, 0, 0, 2, 0, 0, 0, 0},
      {0, 0, 0, 0, 3, 0, 0, 0},
      {0, 0, 0, 0, 0, 5, 0, 0}};
  for (const auto& pads : paddings) {
    PoolCase p{{1, 2, 3, 1}, {1, 1, 1, 1}, "EXPLICIT", pads};
    Tensor out;
    EXPECT_THAT(Run("MaxPool", Pattern(TensorShape({1, 4, 4, 1})), p, &out),
                StatusIs(error::INVALID_ARGUMENT,
                         HasSubstr("must be smaller than the window size")))
        << pads[2] << pads[3] << pads[4] << pads[5];
  }
}

TEST_F(PoolingTest, MaxPoolAcrossDepth) {
  Tensor in = test::AsTensor<float>({1, 5, 2, 0, 3, 4, -1, -2},
                                    TensorShape({1, 1, 2, 4}));
  Tensor out;
  ASSERT_THAT(Run("MaxPool", in, {{1, 1, 1, 2}, {1, 1, 1, 2}, "VALID", {}}, &out),
              IsOk());
  EXPECT_EQ(out.shape(), TensorShape({1, 1, 2, 2}));
  EXPECT_THAT(test::Values<float>(out), ElementsAre(5, 2, 4, -1));
}

template <typename T>
class MaxPoolTypedTest : public PoolingTest {};
using MaxPoolTypes = ::testing::Types<float, double, half, bfloat16, int32,
                                      int64, uint8, int16, int8, uint16>;
TYPED_TEST_SUITE(MaxPoolTypedTest, MaxPoolTypes);

TYPED_TEST(MaxPoolTypedTest, EveryType) {
  using T = TypeParam;
  Tensor in(DataTypeToEnum<T>::value, TensorShape({1, 2, 2, 1}));
  const int values[] = {3, 9, 4, 1};
  for (int i = 0; i < 4; ++i) {
    in.flat<T>()(i) = static_cast<T>(static_cast<float>(values[i]));
  }
  Tensor out;
  ASSERT_THAT(this->Run("MaxPool", in, {{1, 2, 2, 1}, {1, 1, 1, 1}, "SAME", {}},
                        &out),
              IsOk());
  ASSERT_EQ(out.shape(), TensorShape({1, 2, 2, 1}));
  std::vector<float> got;
  for (int i = 0; i < 4; ++i) got.push_back(static_cast<float>(out.flat<T>()(i)));
  EXPECT_THAT(got, ElementsAre(9, 9, 4, 1));
}

template <typename T>
class AvgPoolTypedTest : public PoolingTest {};
using AvgPoolTypes = ::testing::Types<float, double, half, bfloat16>;
TYPED_TEST_SUITE(AvgPoolTypedTest, AvgPoolTypes);

TYPED_TEST(AvgPoolTypedTest, EveryType) {
  using T = TypeParam;
  Tensor in(DataTypeToEnum<T>::value, TensorShape({1, 2, 2, 1}));
  const int values[] = {3, 9, 4, 0};
  for (int i = 0; i < 4; ++i) {
    in.flat<T>()(i) = static_cast<T>(static_cast<float>(values[i]));
  }
  Tensor out;
  ASSERT_THAT(this->Run("AvgPool", in, {{1, 2, 2, 1}, {1, 2, 2, 1}, "VALID", {}},
                        &out),
              IsOk());
  ASSERT_EQ(out.shape(), TensorShape({1, 1, 1, 1}));
  EXPECT_EQ(static_cast<float>(out.flat<T>()(0)), 4.f);
}

TEST_F(PoolingTest, EmptyInputs) {
  Tensor out;
  for (const char* op : {"MaxPool", "AvgPool"}) {
    ASSERT_THAT(Run(op, Tensor(DT_FLOAT, TensorShape({0, 4, 4, 3})),
                    {{1, 2, 2, 1}, {1, 2, 2, 1}, "VALID", {}}, &out),
                IsOk());
    EXPECT_EQ(out.shape(), TensorShape({0, 2, 2, 3}));
    ASSERT_THAT(Run(op, Tensor(DT_FLOAT, TensorShape({1, 0, 4, 3})),
                    {{1, 2, 2, 1}, {1, 2, 2, 1}, "SAME", {}}, &out),
                IsOk());
    EXPECT_EQ(out.shape(), TensorShape({1, 0, 2, 3}));
  }
}

TEST_F(PoolingTest, LargeInputOnThePool) {
  PoolCase p{{1, 3, 3, 1}, {1, 1, 1, 1}, "SAME", {}};
  Tensor in = Pattern(TensorShape({2, 40, 40, 8}));
  for (const char* op : {"MaxPool", "AvgPool"}) {
    Tensor out;
    ASSERT_THAT(Run(op, in, p, &out), IsOk());
    int64_t oh, ow;
    std::vector<double> want =
        ReferencePool(in, p, std::string(op) == "MaxPool", &oh, &ow);
    for (int64_t i = 0; i < out.NumElements(); ++i) {
      ASSERT_NEAR(out.flat<float>()(i), want[i], 1e-5) << op << " " << i;
    }
  }
}

TEST_F(PoolingTest, AttrErrors) {
  Tensor in = Pattern(TensorShape({1, 4, 4, 2}));
  Tensor out;
  for (const char* op : {"MaxPool", "AvgPool"}) {
    SCOPED_TRACE(op);
    const std::string kernel =
        std::string(op) == "MaxPool" ? "MaxPoolingOp" : "AvgPoolingOp";
    EXPECT_THAT(Run(op, Pattern(TensorShape({1, 2, 4, 4})),
                    {{1, 1, 2, 2}, {1, 1, 2, 2}, "VALID", {}}, &out, "NCHW"),
                StatusIs(error::INVALID_ARGUMENT,
                         HasSubstr("Default " + kernel +
                                   " only supports NHWC on device type CPU")));
    EXPECT_THAT(Run(op, in, {{1, 2, 2, 1, 1}, {1, 2, 2, 1}, "VALID", {}}, &out),
                StatusIs(error::INVALID_ARGUMENT,
                         HasSubstr("Sliding window ksize field must specify 4 "
                                   "dimensions")));
    EXPECT_THAT(Run(op, in, {{1, 2, 2, 1}, {1, 2, 2, 1, 1}, "VALID", {}}, &out),
                StatusIs(error::INVALID_ARGUMENT,
                         HasSubstr("Sliding window stride field must specify 4 "
                                   "dimensions")));
    EXPECT_THAT(Run(op, in, {{1, 0, 2, 1}, {1, 2, 2, 1}, "VALID", {}}, &out),
                StatusIs(error::INVALID_ARGUMENT,
                         HasSubstr("Sliding window ksize for dimension 1")));
    EXPECT_THAT(Run(op, in, {{1, 2, 2, 1}, {1, -1, 2, 1}, "VALID", {}}, &out),
                StatusIs(error::INVALID_ARGUMENT,
                         HasSubstr("Sliding window stride for dimension 1 must "
                                   "be > 0, but got -1")));
    EXPECT_THAT(Run(op, in, {{2, 2, 2, 1}, {1, 2, 2, 1}, "VALID", {}}, &out),
                StatusIs(error::UNIMPLEMENTED,
                         HasSubstr("Pooling is not yet supported on the batch "
                                   "dimension.")));
  }
}

TEST_F(PoolingTest, InputErrors) {
  Tensor out;
  for (const char* op : {"MaxPool", "AvgPool"}) {
    SCOPED_TRACE(op);
    EXPECT_THAT(Run(op, Pattern(TensorShape({4, 4, 2})),
                    {{1, 2, 2, 1}, {1, 2, 2, 1}, "VALID", {}}, &out),
                StatusIs(error::INVALID_ARGUMENT,
                         HasSubstr("tensor_in must be 4-dimensional")));
    EXPECT_THAT(Run(op, Pattern(TensorShape({1, 1, 4, 2})),
                    {{1, 3, 2, 1}, {1, 1, 2, 1}, "VALID", {}}, &out),
                StatusIs(error::INVALID_ARGUMENT,
                         HasSubstr("Computed output size would be negative: -1 "
                                   "[input_size: 1, effective_filter_size: 3, "
                                   "stride: 1]")));
  }
  EXPECT_THAT(Run("AvgPool", Pattern(TensorShape({1, 4, 4, 2})),
                  {{1, 1, 1, 2}, {1, 1, 1, 2}, "VALID", {}}, &out),
              StatusIs(error::UNIMPLEMENTED,
                       HasSubstr("Non-spatial pooling is not yet supported")));
}

TEST_F(PoolingTest, MaxPoolDepthAndPaddingErrors) {
  Tensor in = Pattern(TensorShape({1, 4, 4, 6}));
  Tensor out;
  EXPECT_THAT(Run("MaxPool", in, {{1, 2, 2, 2}, {1, 1, 1, 2}, "VALID", {}}, &out),
              StatusIs(error::UNIMPLEMENTED,
                       HasSubstr("MaxPooling supports exactly one of pooling "
                                 "across depth or pooling across "
                                 "width/height.")));
  EXPECT_THAT(Run("MaxPool", in, {{1, 1, 1, 4}, {1, 1, 1, 4}, "VALID", {}}, &out),
              StatusIs(error::UNIMPLEMENTED,
                       HasSubstr("depth window to evenly divide the input "
                                 "depth")));
  EXPECT_THAT(Run("MaxPool", in, {{1, 1, 1, 3}, {1, 1, 1, 2}, "VALID", {}}, &out),
              StatusIs(error::UNIMPLEMENTED,
                       HasSubstr("depth window to equal the depth stride")));
  EXPECT_THAT(Run("MaxPool", in, {{1, 2, 2, 1}, {1, 1, 1, 2}, "VALID", {}}, &out),
              StatusIs(error::UNIMPLEMENTED, HasSubstr("depth stride of 2")));
  EXPECT_THAT(Run("MaxPool", in,
                  {{1, 1, 1, 3}, {1, 1, 1, 3}, "EXPLICIT",
                   {0, 0, 0, 0, 0, 0, 0, 0}},
                  &out),
              StatusIs(error::UNIMPLEMENTED,
                       HasSubstr("Depthwise max pooling does not support "
                                 "explicit padding.")));
  EXPECT_THAT(Run("MaxPool", in, {{1, 2, 2, 1}, {1, 1, 1, 1}, "EXPLICIT", {0, 0, 1}},
                  &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("explicit_paddings attribute must contain 8 "
                                 "values, but got: 3")));
  EXPECT_THAT(Run("MaxPool", in,
                  {{1, 2, 2, 1}, {1, 1, 1, 1}, "EXPLICIT",
                   {0, 0, -1, 0, 0, 0, 0, 0}},
                  &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("must be nonnegative, but element 2 is -1")));
  EXPECT_THAT(Run("MaxPool", in,
                  {{1, 2, 2, 1}, {1, 1, 1, 1}, "EXPLICIT",
                   {0, 0, 0, 0, 0, 0, 1, 0}},
                  &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Nonzero explicit padding in the batch or "
                                 "depth dimensions is not supported")));
  EXPECT_THAT(Run("MaxPool", in,
                  {{1, 2, 2, 1}, {1, 1, 1, 1}, "VALID",
                   {0, 0, 1, 1, 1, 1, 0, 0}},
                  &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("explicit_paddings attribute must be empty")));
  // Explicit paddings so large that the padded size would overflow are
  // refused before that: they are larger than the window.
  const int64 huge = std::numeric_limits<int64>::max() / 2 + 1;
  EXPECT_THAT(Run("MaxPool", in,
                  {{1, 2, 2, 1}, {1, 1, 1, 1}, "EXPLICIT",
                   {0, 0, huge, huge, 0, 0, 0, 0}},
                  &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("must be smaller than the window size 2")));
}

class PoolGradTest : public PoolingTest {
 protected:
  EagerAttrs Attrs(const PoolCase& p) {
    EagerAttrs attrs = {{"ksize", Attr(p.ksize)},
                        {"strides", Attr(p.strides)},
                        {"padding", Attr(p.padding)}};
    if (!p.explicit_paddings.empty()) {
      attrs.push_back({"explicit_paddings", Attr(p.explicit_paddings)});
    }
    return attrs;
  }

  // sum(forward(x) * dy) differentiated by central differences in each
  // element of x.
  std::vector<double> NumericGrad(const char* forward, const Tensor& x,
                                  const Tensor& dy, const PoolCase& p) {
    const double h = 1e-4;
    std::vector<double> result;
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      double sums[2];
      for (int side = 0; side < 2; ++side) {
        Tensor xs(DT_DOUBLE, x.shape());
        xs.flat<double>() = x.flat<double>();
        xs.flat<double>()(i) += side == 0 ? -h : h;
        Tensor y;
        EXPECT_THAT(Run(forward, xs, p, &y), IsOk());
        if (y.NumElements() != dy.NumElements()) return {};
        sums[side] = 0;
        for (int64_t j = 0; j < y.NumElements(); ++j) {
          sums[side] += y.flat<double>()(j) * dy.flat<double>()(j);
        }
      }
      result.push_back((sums[1] - sums[0]) / (2 * h));
    }
    return result;
  }

  // x: [2, 4, 5, 3] of distinct values (no ties in any window).
  static Tensor DistinctInput() {
    Tensor x(DT_DOUBLE, TensorShape({2, 4, 5, 3}));
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      x.flat<double>()(i) = static_cast<double>((i * 37) % 120) / 7.0 - 8.0;
    }
    return x;
  }

  // An incoming gradient of `shape`: 1, -2, 3, ... scaled.
  static Tensor GradOfShape(const TensorShape& shape) {
    Tensor dy(DT_DOUBLE, shape);
    for (int64_t i = 0; i < dy.NumElements(); ++i) {
      dy.flat<double>()(i) = (i % 2 ? -1.0 : 1.0) * (i + 1) * 0.25;
    }
    return dy;
  }
};

const PoolCase kGradCases[] = {
    {{1, 2, 3, 1}, {1, 2, 2, 1}, "VALID", {}},
    {{1, 2, 3, 1}, {1, 2, 2, 1}, "SAME", {}},
    {{1, 3, 2, 1}, {1, 1, 2, 1}, "SAME", {}},
    {{1, 2, 2, 1}, {1, 1, 1, 1}, "VALID", {}},  // overlapping windows
};

TEST_F(PoolGradTest, MaxPoolGradMatchesFiniteDifferences) {
  const Tensor x = DistinctInput();
  std::vector<PoolCase> cases(std::begin(kGradCases), std::end(kGradCases));
  cases.push_back({{1, 2, 2, 1}, {1, 2, 2, 1}, "EXPLICIT", {0, 0, 1, 0, 0, 1, 0, 0}});
  for (const PoolCase& p : cases) {
    Tensor y;
    ASSERT_THAT(Run("MaxPool", x, p, &y), IsOk());
    const Tensor dy = GradOfShape(y.shape());
    std::vector<Tensor> out;
    ASSERT_THAT(ctx_->Run("MaxPoolGrad", {x, y, dy}, Attrs(p), &out), IsOk()) << p.padding;
    ASSERT_EQ(out[0].shape(), x.shape());
    const std::vector<double> want = NumericGrad("MaxPool", x, dy, p);
    ASSERT_EQ(want.size(), static_cast<size_t>(x.NumElements()));
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_NEAR(out[0].flat<double>()(i), want[i], 1e-6) << p.padding << " at " << i;
    }
  }
}

TEST_F(PoolGradTest, AvgPoolGradMatchesFiniteDifferences) {
  const Tensor x = DistinctInput();
  for (const PoolCase& p : kGradCases) {
    Tensor y;
    ASSERT_THAT(Run("AvgPool", x, p, &y), IsOk());
    const Tensor dy = GradOfShape(y.shape());
    std::vector<Tensor> out;
    ASSERT_THAT(ctx_->Run("AvgPoolGrad", {test::I32({2, 4, 5, 3}), dy}, Attrs(p), &out),
                IsOk())
        << p.padding;
    ASSERT_EQ(out[0].shape(), x.shape());
    const std::vector<double> want = NumericGrad("AvgPool", x, dy, p);
    ASSERT_EQ(want.size(), static_cast<size_t>(x.NumElements()));
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_NEAR(out[0].flat<double>()(i), want[i], 1e-6) << p.padding << " at " << i;
    }
  }
}

// With ties the whole gradient of a window goes to its first maximum in
// row-major order; overlapping windows add up.
TEST_F(PoolGradTest, MaxPoolGradRoutesToTheFirstMaximum) {
  // One 2x3 image, one channel: every value 5.
  const Tensor x = test::AsTensor<float>({5, 5, 5, 5, 5, 5}, TensorShape({1, 2, 3, 1}));
  const PoolCase p = {{1, 2, 2, 1}, {1, 1, 1, 1}, "VALID", {}};
  const Tensor y = test::AsTensor<float>({5, 5}, TensorShape({1, 1, 2, 1}));
  const Tensor dy = test::AsTensor<float>({10, 100}, TensorShape({1, 1, 2, 1}));
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("MaxPoolGrad", {x, y, dy}, Attrs(p), &out), IsOk());
  EXPECT_THAT(test::Values<float>(out[0]), ElementsAre(10, 100, 0, 0, 0, 0));
  // A later strictly greater value wins over an earlier one.
  const Tensor x2 = test::AsTensor<float>({1, 2, 3, 9, 9, 3}, TensorShape({1, 2, 3, 1}));
  ASSERT_THAT(ctx_->Run("MaxPoolGrad", {x2, y, dy}, Attrs(p), &out), IsOk());
  EXPECT_THAT(test::Values<float>(out[0]), ElementsAre(0, 0, 0, 10, 100, 0));
}

TEST_F(PoolGradTest, AvgPoolGradSameCountsOnlyPositionsInside) {
  // A 1x3 row, window 1x2 stride 2 SAME: windows {0,1} and {2} (the second
  // half-outside the input, so its mean is of one value).
  const PoolCase p = {{1, 1, 2, 1}, {1, 1, 2, 1}, "SAME", {}};
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("AvgPoolGrad",
                        {test::I32({1, 1, 3, 1}),
                         test::AsTensor<float>({4, 6}, TensorShape({1, 1, 2, 1}))},
                        Attrs(p), &out),
              IsOk());
  EXPECT_THAT(test::Values<float>(out[0]), ElementsAre(2, 2, 6));
}

TEST_F(PoolGradTest, OtherTypesAndEmpty) {
  const PoolCase p = {{1, 2, 2, 1}, {1, 2, 2, 1}, "VALID", {}};
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("MaxPoolGrad",
                        {test::AsTensor<int32>({1, 4, 3, 2}, TensorShape({1, 2, 2, 1})),
                         test::AsTensor<int32>({4}, TensorShape({1, 1, 1, 1})),
                         test::AsTensor<int32>({-7}, TensorShape({1, 1, 1, 1}))},
                        Attrs(p), &out),
              IsOk());
  EXPECT_THAT(test::Values<int32>(out[0]), ElementsAre(0, -7, 0, 0));
  ASSERT_THAT(ctx_->Run("AvgPoolGrad",
                        {test::I32({1, 2, 2, 1}),
                         test::AsTensor<half>({half(8.0f)}, TensorShape({1, 1, 1, 1}))},
                        Attrs(p), &out),
              IsOk());
  for (int i = 0; i < 4; ++i) EXPECT_EQ(static_cast<float>(out[0].flat<half>()(i)), 2.0f);
  ASSERT_THAT(ctx_->Run("AvgPoolGrad",
                        {test::I32({0, 2, 2, 3}), Tensor(DT_FLOAT, TensorShape({0, 1, 1, 3}))},
                        Attrs(p), &out),
              IsOk());
  EXPECT_EQ(out[0].shape(), TensorShape({0, 2, 2, 3}));
}

TEST_F(PoolGradTest, BadInputsAreInvalidArgument) {
  const PoolCase p = {{1, 2, 2, 1}, {1, 2, 2, 1}, "VALID", {}};
  const Tensor x(DT_FLOAT, TensorShape({1, 4, 4, 2}));
  const Tensor y(DT_FLOAT, TensorShape({1, 2, 2, 2}));
  std::vector<Tensor> out;
  EXPECT_THAT(ctx_->Run("MaxPoolGrad", {Tensor(DT_FLOAT, TensorShape({4, 4, 2})), y, y},
                        Attrs(p), &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("orig_input (input 0) must be 4-dimensional, got shape [4,4,2]")));
  EXPECT_THAT(ctx_->Run("MaxPoolGrad", {x, Tensor(DT_FLOAT, TensorShape({1, 2, 3, 2})), y},
                        Attrs(p), &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("orig_output (input 1) must have the pooling output's "
                                 "shape [1,2,2,2], got [1,2,3,2]")));
  EXPECT_THAT(ctx_->Run("MaxPoolGrad", {x, y, Tensor(DT_FLOAT, TensorShape({1, 2, 2, 1}))},
                        Attrs(p), &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("grad (input 2) must have the pooling output's shape")));
  EXPECT_THAT(ctx_->Run("AvgPoolGrad", {test::I32({1, 4, 4}), y}, Attrs(p), &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("orig_input_shape (input 0) must be a 1-D tensor of 4 values")));
  EXPECT_THAT(ctx_->Run("AvgPoolGrad", {test::I32({1, -4, 4, 2}), y}, Attrs(p), &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("got -4 at index 1")));
  EXPECT_THAT(ctx_->Run("AvgPoolGrad", {test::I32({1, 4, 4, 2}),
                                        Tensor(DT_FLOAT, TensorShape({2, 2, 2}))},
                        Attrs(p), &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("grad (input 1) must be 4-dimensional")));
  EXPECT_THAT(ctx_->Run("AvgPoolGrad", {test::I32({1, 4, 4, 3}), y}, Attrs(p), &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("grad (input 1) must have the pooling output's "
                                 "shape [1,2,2,3], got [1,2,2,2]")));
  // The window larger than a VALID input.
  EXPECT_THAT(ctx_->Run("AvgPoolGrad", {test::I32({1, 1, 1, 2}), y}, Attrs(p), &out),
              StatusIs(error::INVALID_ARGUMENT));
  // NCHW is not implemented on CPU, as in TensorFlow.
  EagerAttrs nchw = Attrs(p);
  nchw.push_back({"data_format", Attr(std::string("NCHW"))});
  EXPECT_THAT(ctx_->Run("MaxPoolGrad", {x, y, y}, nchw, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("only supports NHWC")));
}

}  // namespace
}  // namespace opkit
