// DepthwiseConv2dNative kernel, run through EagerContext: values derived
// with numpy, a sweep of geometries against a direct reference, NCHW,
// every registered type, empty tensors, bad inputs; and the exposed
// DepthwiseConv2DNHWC with an epilogue.
#include "opkit/kernels/depthwise_conv_op.h"

#include <cstdint>
#include <memory>
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
using ::testing::HasSubstr;
using test::AsDoubles;
using test::Attr;
using test::Cycle;

struct DwCase {
  std::vector<int64_t> input;   // NHWC
  std::vector<int64_t> filter;  // [rows, cols, in_depth, multiplier]
  std::vector<int32> strides = {1, 1, 1, 1};
  std::string padding = "VALID";
  std::vector<int32> dilations = {1, 1, 1, 1};
  std::vector<int64> explicit_paddings = {};
  std::string data_format = "NHWC";
};

// The definition, with explicit top/left padding; NHWC.
std::vector<double> Reference(const DwCase& c, const std::vector<double>& in,
                              const std::vector<double>& f, int64_t pad_top,
                              int64_t pad_left, int64_t oh, int64_t ow) {
  const int64_t n = c.input[0], h = c.input[1], w = c.input[2],
                depth = c.input[3];
  const int64_t fh = c.filter[0], fw = c.filter[1], m = c.filter[3];
  std::vector<double> out;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t x = 0; x < ow; ++x)
        for (int64_t ch = 0; ch < depth; ++ch)
          for (int64_t k = 0; k < m; ++k) {
            double acc = 0;
            for (int64_t i = 0; i < fh; ++i)
              for (int64_t j = 0; j < fw; ++j) {
                const int64_t r = y * c.strides[1] - pad_top + i * c.dilations[1];
                const int64_t s = x * c.strides[2] - pad_left + j * c.dilations[2];
                if (r < 0 || r >= h || s < 0 || s >= w) continue;
                acc += in[((b * h + r) * w + s) * depth + ch] *
                       f[((i * fw + j) * depth + ch) * m + k];
              }
            out.push_back(acc);
          }
  return out;
}

class DepthwiseConvTest : public test::EagerOpTest {
 protected:
  Status RunCase(const DwCase& c, const Tensor& in, const Tensor& filter) {
    EagerAttrs attrs = {{"strides", Attr(c.strides)},
                        {"padding", Attr(c.padding)},
                        {"dilations", Attr(c.dilations)},
                        {"data_format", Attr(c.data_format)}};
    if (!c.explicit_paddings.empty()) {
      attrs.push_back({"explicit_paddings", Attr(c.explicit_paddings)});
    }
    return Run("DepthwiseConv2dNative", {in, filter}, attrs);
  }
};

// numpy: x = (arange(60) % 7 - 3).reshape(1,4,5,3);
// f = (arange(54) % 5 - 2).reshape(3,3,3,2); pad x by rows (0,1), cols
// (1,1) (SAME at stride 2), then out[n,y,x,c*2+m] = sum_ij xp[n,2y+i,2x+j,c]
// * f[i,j,c,m].
constexpr double kSameStride2[] = {
    -1, 6,  -5, -7,  5,  -8, -9, 7,  -8, 0,  16, 1,  5,  -8, 2,  13, 1,  -4,
    -5, -1, 5,  -9, -1, 7,  -5, 5,  9,  3,  -14, 12, -1, 7,  -7, -5, 8,  -8};

DwCase SameStride2Case() {
  DwCase c;
  c.input = {1, 4, 5, 3};
  c.filter = {3, 3, 3, 2};
  c.strides = {1, 2, 2, 1};
  c.padding = "SAME";
  return c;
}

template <typename T>
class DepthwiseConvTypedTest : public DepthwiseConvTest {};
using DwTypes = ::testing::Types<float, double, half, bfloat16>;
TYPED_TEST_SUITE(DepthwiseConvTypedTest, DwTypes);

TYPED_TEST(DepthwiseConvTypedTest, NumpySameStride2Multiplier2) {
  const DwCase c = SameStride2Case();
  ASSERT_THAT(this->RunCase(c, Cycle<TypeParam>(c.input, 7, 3),
                            Cycle<TypeParam>(c.filter, 5, 2)),
              IsOk());
  EXPECT_EQ(this->out_[0].shape(), TensorShape({1, 2, 3, 6}));
  EXPECT_THAT(AsDoubles<TypeParam>(this->out_[0]),
              ::testing::ElementsAreArray(kSameStride2));
}

TEST_F(DepthwiseConvTest, NumpyExplicitPaddingDilation2) {
  // numpy: x = (arange(100) % 9 - 4).reshape(2,5,5,2);
  // f = (arange(8) % 3 - 1).reshape(2,2,2,1); rows padded (1,0), cols
  // (2,1), dilation 2, stride 1.
  DwCase c;
  c.input = {2, 5, 5, 2};
  c.filter = {2, 2, 2, 1};
  c.padding = "EXPLICIT";
  c.explicit_paddings = {0, 0, 1, 0, 2, 1, 0, 0};
  c.dilations = {1, 2, 2, 1};
  ASSERT_THAT(RunCase(c, Cycle<float>(c.input, 9, 4), Cycle<float>(c.filter, 3, 1)),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({2, 4, 6, 2}));
  const std::vector<float> want = {
      3,  0,  1,  0,  -1, -2, -3, 0,  4,  2,  0,  4,  -2, 3,  -2, 1,
      2,  -2, 0,  -2, 7,  7,  -2, -4, -2, 2,  -2, 0,  1,  -2, 8,  -2,
      -3, 7,  -3, -3, -2, 1,  -2, -1, 0,  -2, 7,  7,  -4, -2, -4, -2,
      -2, 0,  -4, 0,  3,  3,  1,  -4, -1, -2, 0,  0,  -2, -2, 7,  -4,
      -3, 7,  -5, -2, 2,  -2, 2,  1,  -2, -3, 7,  4,  -4, -2, -6, -2,
      1,  -2, 1,  2,  7,  -4, -2, 3,  -5, -2, 2,  -2, 0,  -2, 0,  3};
  EXPECT_EQ(test::Values<float>(out_[0]), want);
}

TEST_F(DepthwiseConvTest, NchwIsNhwcTransposed) {
  DwCase c = SameStride2Case();
  c.data_format = "NCHW";
  c.strides = {1, 1, 2, 2};
  // The NHWC input [1,4,5,3] of the numpy case, as NCHW [1,3,4,5].
  Tensor nhwc = Cycle<float>({1, 4, 5, 3}, 7, 3);
  Tensor nchw(DT_FLOAT, TensorShape({1, 3, 4, 5}));
  for (int h = 0; h < 4; ++h)
    for (int w = 0; w < 5; ++w)
      for (int ch = 0; ch < 3; ++ch)
        nchw.flat<float>()((ch * 4 + h) * 5 + w) =
            nhwc.flat<float>()((h * 5 + w) * 3 + ch);
  ASSERT_THAT(RunCase(c, nchw, Cycle<float>(c.filter, 5, 2)), IsOk());
  ASSERT_EQ(out_[0].shape(), TensorShape({1, 6, 2, 3}));
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 3; ++x)
      for (int ch = 0; ch < 6; ++ch)
        EXPECT_EQ(out_[0].flat<float>()((ch * 2 + y) * 3 + x),
                  kSameStride2[(y * 3 + x) * 6 + ch]);
}

TEST_F(DepthwiseConvTest, MatchesReferenceOverGeometries) {
  // Channel counts below, at and above the 32-float vector chunk, filters
  // 1x1 to 7x7, strides 1-3, every padding, multipliers 1-3.
  struct G {
    int64_t n, h, w, c, fh, fw, m;
    int stride_h, stride_w, dil;
    const char* padding;
  };
  const G geometries[] = {
      {1, 8, 8, 32, 3, 3, 1, 1, 1, 1, "SAME"},
      {1, 9, 7, 35, 3, 3, 1, 2, 2, 1, "SAME"},
      {2, 7, 7, 70, 5, 5, 1, 1, 1, 1, "SAME"},
      {1, 11, 10, 5, 7, 7, 1, 2, 2, 1, "SAME"},
      {1, 6, 6, 3, 3, 3, 1, 1, 1, 1, "VALID"},
      {1, 10, 9, 33, 3, 3, 1, 3, 2, 2, "VALID"},
      {2, 6, 5, 4, 3, 2, 3, 1, 2, 1, "SAME"},
      {1, 5, 5, 1, 1, 1, 2, 1, 1, 1, "VALID"},
      {1, 4, 4, 7, 5, 5, 2, 1, 1, 2, "SAME"},
      {3, 2, 3, 64, 3, 3, 1, 1, 1, 1, "SAME"},
  };
  for (const G& g : geometries) {
    DwCase c;
    c.input = {g.n, g.h, g.w, g.c};
    c.filter = {g.fh, g.fw, g.c, g.m};
    c.strides = {1, g.stride_h, g.stride_w, 1};
    c.dilations = {1, g.dil, g.dil, 1};
    c.padding = g.padding;
    SCOPED_TRACE(::testing::Message()
                 << "input " << TensorShape(c.input).DebugString() << " filter "
                 << TensorShape(c.filter).DebugString() << " " << g.padding);
    Tensor in = Cycle<float>(c.input, 13, 6);
    Tensor f = Cycle<float>(c.filter, 11, 5);
    ASSERT_THAT(RunCase(c, in, f), IsOk());
    const int64_t eh = (g.fh - 1) * g.dil + 1, ew = (g.fw - 1) * g.dil + 1;
    int64_t oh, ow, pt = 0, pl = 0;
    if (std::string(g.padding) == "SAME") {
      oh = (g.h + g.stride_h - 1) / g.stride_h;
      ow = (g.w + g.stride_w - 1) / g.stride_w;
      pt = std::max<int64_t>(0, (oh - 1) * g.stride_h + eh - g.h) / 2;
      pl = std::max<int64_t>(0, (ow - 1) * g.stride_w + ew - g.w) / 2;
    } else {
      oh = (g.h - eh) / g.stride_h + 1;
      ow = (g.w - ew) / g.stride_w + 1;
    }
    ASSERT_EQ(out_[0].shape(), TensorShape({g.n, oh, ow, g.c * g.m}));
    const std::vector<double> want =
        Reference(c, AsDoubles<float>(in), AsDoubles<float>(f), pt, pl, oh, ow);
    EXPECT_EQ(AsDoubles<float>(out_[0]), want);
  }
}

TEST_F(DepthwiseConvTest, EmptyTensors) {
  DwCase c;
  c.input = {0, 4, 4, 3};
  c.filter = {3, 3, 3, 2};
  c.padding = "SAME";
  ASSERT_THAT(RunCase(c, Cycle<float>(c.input, 3, 1), Cycle<float>(c.filter, 3, 1)),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({0, 4, 4, 6}));
  c.input = {1, 4, 4, 0};
  c.filter = {3, 3, 0, 2};
  ASSERT_THAT(RunCase(c, Cycle<float>(c.input, 3, 1), Cycle<float>(c.filter, 3, 1)),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({1, 4, 4, 0}));
  // An empty window: every output is an empty sum.
  c.input = {1, 2, 2, 2};
  c.filter = {0, 1, 2, 1};
  c.padding = "VALID";
  ASSERT_THAT(RunCase(c, Cycle<float>(c.input, 3, 1), Cycle<float>(c.filter, 3, 1)),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({1, 3, 2, 2}));
  EXPECT_THAT(test::Values<float>(out_[0]), ::testing::Each(0.0f));
}

TEST_F(DepthwiseConvTest, BadInputs) {
  DwCase c;
  c.input = {1, 4, 4, 3};
  c.filter = {3, 3, 3, 1};
  auto run = [&](const DwCase& dc, std::vector<int64_t> in_dims,
                 std::vector<int64_t> f_dims) {
    return RunCase(dc, Cycle<float>(in_dims, 3, 1), Cycle<float>(f_dims, 3, 1));
  };
  EXPECT_THAT(run(c, {4, 4, 3}, c.filter),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("4-dimensional")));
  EXPECT_THAT(run(c, c.input, {3, 3, 3}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("4-dimensional")));
  EXPECT_THAT(run(c, c.input, {3, 3, 2, 1}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("same depth: 3 vs 2")));
  EXPECT_THAT(run(c, c.input, {6, 3, 3, 1}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("negative")));
  DwCase bad = c;
  bad.strides = {1, 1, 1};
  EXPECT_THAT(run(bad, c.input, c.filter),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("4 dimensions")));
  bad.strides = {2, 1, 1, 1};
  EXPECT_THAT(run(bad, c.input, c.filter),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("batch and depth")));
  bad.strides = {1, 0, 1, 1};
  EXPECT_THAT(run(bad, c.input, c.filter),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("larger than 0")));
  bad = c;
  bad.dilations = {1, 0, 1, 1};
  EXPECT_THAT(run(bad, c.input, c.filter),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("larger than 0")));
  bad = c;
  bad.padding = "EXPLICIT";
  bad.explicit_paddings = {0, 0, 1, 1};
  EXPECT_THAT(run(bad, c.input, c.filter), StatusIs(error::INVALID_ARGUMENT));
  bad.explicit_paddings = {0, 0, -1, 1, 0, 0, 0, 0};
  EXPECT_THAT(run(bad, c.input, c.filter), StatusIs(error::INVALID_ARGUMENT));
  bad.explicit_paddings = {0, 0, int64{1} << 40, 1, 0, 0, 0, 0};
  EXPECT_THAT(run(bad, c.input, c.filter),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("too large")));
}

TEST(DepthwiseConv2DNHWCTest, EpilogueSeesEachFinishedRowOnce) {
  DepthwiseArgs a;
  a.batch = 2;
  a.in_rows = 5;
  a.in_cols = 6;
  a.in_depth = 40;
  a.filter_rows = a.filter_cols = 3;
  a.depth_multiplier = 1;
  a.stride_rows = a.stride_cols = 2;
  a.pad_top = 1;  // SAME at stride 2 for 5 rows: 3 rows, padding (1, 1)
  a.pad_left = 0;  // 6 cols: 3 cols, padding (0, 1)
  a.out_rows = 3;
  a.out_cols = 3;
  a.out_depth = 40;
  Tensor in = Cycle<float>({2, 5, 6, 40}, 13, 6);
  Tensor f = Cycle<float>({3, 3, 40, 1}, 11, 5);
  const int64_t out_size = 2 * 3 * 3 * 40;
  std::vector<float> plain(out_size), fused(out_size);
  DepthwiseConv2DNHWC(nullptr, a, in.flat<float>().data(),
                      f.flat<float>().data(), plain.data());
  std::vector<int> seen(2 * 3, 0);
  DepthwiseConv2DNHWC(nullptr, a, in.flat<float>().data(),
                      f.flat<float>().data(), fused.data(),
                      [&](float* block, int64_t pixels) {
                        EXPECT_EQ(pixels, 3);
                        const int64_t row = (block - fused.data()) / (3 * 40);
                        ++seen[row];
                        for (int64_t p = 0; p < pixels; ++p)
                          for (int64_t ch = 0; ch < 40; ++ch)
                            block[p * 40 + ch] += static_cast<float>(ch);
                      });
  EXPECT_THAT(seen, ::testing::Each(1));
  for (int64_t i = 0; i < out_size; ++i) {
    ASSERT_EQ(fused[i], plain[i] + static_cast<float>(i % 40)) << i;
  }
  // The same geometry through the op (SAME, stride 2).
  DwCase c;
  c.input = {2, 5, 6, 40};
  c.filter = {3, 3, 40, 1};
  c.strides = {1, 2, 2, 1};
  c.padding = "SAME";
  std::vector<double> want =
      Reference(c, AsDoubles<float>(in), AsDoubles<float>(f), 1, 0, 3, 3);
  EXPECT_EQ(std::vector<double>(plain.begin(), plain.end()), want);
}

}  // namespace
}  // namespace opkit
