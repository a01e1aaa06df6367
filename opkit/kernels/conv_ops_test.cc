// Conv2D kernel, run through EagerContext and checked against a direct
// (seven nested loops) reference over many geometries and every type.
#include <cstdint>
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

struct ConvCase {
  std::vector<int64_t> input;   // NHWC
  std::vector<int64_t> filter;  // HWIO
  std::vector<int32> strides = {1, 1, 1, 1};
  std::string padding = "VALID";
  std::vector<int32> dilations = {1, 1, 1, 1};
  std::vector<int64> explicit_paddings = {};
  std::string data_format = "NHWC";
};

std::string Describe(const ConvCase& c) {
  std::string s = "input [";
  for (int64_t d : c.input) s += std::to_string(d) + ",";
  s += "] filter [";
  for (int64_t d : c.filter) s += std::to_string(d) + ",";
  s += "] strides " + std::to_string(c.strides[1]) + "x" +
       std::to_string(c.strides[2]) + " dilations " +
       std::to_string(c.dilations[1]) + "x" + std::to_string(c.dilations[2]) +
       " " + c.padding;
  return s;
}

// Small integers: exact in every type for the sums these tests make.
template <typename T>
Tensor Pattern(const std::vector<int64_t>& dims, int seed) {
  TensorShape shape;
  for (int64_t d : dims) shape.AddDim(d);
  Tensor t(DataTypeToEnum<T>::value, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.flat<T>()(i) =
        static_cast<T>(static_cast<float>(((i * 5 + seed) * 13) % 7 - 3));
  }
  return t;
}

template <typename T>
double AsDouble(T v) {
  return static_cast<double>(static_cast<float>(v));
}
template <>
double AsDouble<double>(double v) {
  return v;
}
template <>
double AsDouble<int32>(int32 v) {
  return v;
}

// The convolution from its definition; returns the NHWC output values and
// sets *shape.
template <typename T>
std::vector<double> Reference(const ConvCase& c, const Tensor& in,
                              const Tensor& filter,
                              std::vector<int64_t>* shape) {
  const int64_t n = c.input[0], h = c.input[1], w = c.input[2],
                depth = c.input[3];
  const int64_t fh = c.filter[0], fw = c.filter[1], fd = c.filter[2],
                od = c.filter[3];
  const int64_t sh = c.strides[1], sw = c.strides[2];
  const int64_t dh = c.dilations[1], dw = c.dilations[2];
  const int64_t eh = (fh - 1) * dh + 1, ew = (fw - 1) * dw + 1;
  int64_t oh, ow, pt = 0, pl = 0;
  if (c.padding == "VALID") {
    oh = (h - eh) / sh + 1;
    ow = (w - ew) / sw + 1;
  } else if (c.padding == "SAME") {
    oh = (h + sh - 1) / sh;
    ow = (w + sw - 1) / sw;
    pt = std::max<int64_t>(0, (oh - 1) * sh + eh - h) / 2;
    pl = std::max<int64_t>(0, (ow - 1) * sw + ew - w) / 2;
  } else {
    pt = c.explicit_paddings[2];
    pl = c.explicit_paddings[4];
    oh = (h + pt + c.explicit_paddings[3] - eh) / sh + 1;
    ow = (w + pl + c.explicit_paddings[5] - ew) / sw + 1;
  }
  *shape = {n, oh, ow, od};
  const int64_t groups = depth / fd;
  const int64_t group_out = od / groups;
  const T* in_data = in.flat<T>().data();
  const T* filter_data = filter.flat<T>().data();
  std::vector<double> out;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t y = 0; y < oh; ++y) {
      for (int64_t x = 0; x < ow; ++x) {
        for (int64_t o = 0; o < od; ++o) {
          const int64_t g = o / group_out;
          double acc = 0;
          for (int64_t i = 0; i < fh; ++i) {
            for (int64_t j = 0; j < fw; ++j) {
              const int64_t r = y * sh - pt + i * dh, s = x * sw - pl + j * dw;
              if (r < 0 || r >= h || s < 0 || s >= w) continue;
              for (int64_t k = 0; k < fd; ++k) {
                acc += AsDouble(in_data[((b * h + r) * w + s) * depth +
                                        g * fd + k]) *
                       AsDouble(filter_data[((i * fw + j) * fd + k) * od + o]);
              }
            }
          }
          out.push_back(acc);
        }
      }
    }
  }
  return out;
}

class Conv2DTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ctx = EagerContext::Create();
    ASSERT_THAT(ctx, IsOk());
    ctx_ = std::move(ctx).value();
  }

  Status Run(const ConvCase& c, const Tensor& in, const Tensor& filter,
             Tensor* out) {
    EagerAttrs attrs = {{"strides", Attr(c.strides)},
                        {"padding", Attr(c.padding)},
                        {"dilations", Attr(c.dilations)},
                        {"data_format", Attr(c.data_format)}};
    if (!c.explicit_paddings.empty()) {
      attrs.push_back({"explicit_paddings", Attr(c.explicit_paddings)});
    }
    std::vector<Tensor> outs;
    OPKIT_RETURN_IF_ERROR(ctx_->Run("Conv2D", {in, filter}, attrs, &outs));
    *out = outs[0];
    return OkStatus();
  }

  template <typename T>
  void ExpectMatchesReference(const ConvCase& c) {
    SCOPED_TRACE(Describe(c));
    Tensor in = Pattern<T>(c.input, 1);
    Tensor filter = Pattern<T>(c.filter, 2);
    std::vector<int64_t> shape;
    std::vector<double> want = Reference<T>(c, in, filter, &shape);
    ExpectOutput<T>(c, in, filter, shape, want);
  }

  // Runs `c` on `in` and `filter` and expects exactly `want`.
  template <typename T>
  void ExpectOutput(const ConvCase& c, const Tensor& in, const Tensor& filter,
                    const std::vector<int64_t>& shape,
                    const std::vector<double>& want) {
    Tensor out;
    ASSERT_THAT(Run(c, in, filter, &out), IsOk());
    ASSERT_EQ(out.shape(), TensorShape(shape));
    ASSERT_EQ(out.dtype(), DataTypeToEnum<T>::value);
    const T* got = out.flat<T>().data();
    for (int64_t i = 0; i < out.NumElements(); ++i) {
      ASSERT_EQ(AsDouble(got[i]), want[i]) << "element " << i;
    }
  }

  std::unique_ptr<EagerContext> ctx_;
};

std::vector<ConvCase> Geometries() {
  std::vector<ConvCase> cases;
  for (const char* padding : {"VALID", "SAME"}) {
    for (int stride : {1, 2, 3}) {
      for (int dilation : {1, 2}) {
        ConvCase c;
        c.input = {2, 7, 6, 3};
        c.filter = {3, 2, 3, 4};
        c.strides = {1, stride, stride, 1};
        c.dilations = {1, dilation, dilation, 1};
        c.padding = padding;
        cases.push_back(c);
      }
    }
  }
  // Uneven strides and dilations.
  ConvCase c;
  c.input = {1, 9, 8, 2};
  c.filter = {2, 3, 2, 5};
  c.strides = {1, 2, 1, 1};
  c.dilations = {1, 1, 3, 1};
  c.padding = "SAME";
  cases.push_back(c);
  // The two shortcuts: 1x1 at stride 1, and a window covering the image.
  c = ConvCase();
  c.input = {3, 4, 5, 6};
  c.filter = {1, 1, 6, 7};
  cases.push_back(c);
  c.padding = "SAME";
  cases.push_back(c);
  c = ConvCase();
  c.input = {2, 3, 4, 2};
  c.filter = {3, 4, 2, 3};
  cases.push_back(c);
  // 1x1 with stride 2 is not a shortcut.
  c = ConvCase();
  c.input = {1, 5, 5, 2};
  c.filter = {1, 1, 2, 3};
  c.strides = {1, 2, 2, 1};
  cases.push_back(c);
  // Explicit padding, asymmetric.
  c = ConvCase();
  c.input = {1, 5, 4, 2};
  c.filter = {3, 3, 2, 2};
  c.padding = "EXPLICIT";
  c.explicit_paddings = {0, 0, 2, 1, 0, 3, 0, 0};
  c.strides = {1, 2, 1, 1};
  cases.push_back(c);
  // Grouped: 6 channels in 3 groups of 2, 6 outputs.
  c = ConvCase();
  c.input = {2, 5, 5, 6};
  c.filter = {2, 2, 2, 6};
  c.padding = "SAME";
  cases.push_back(c);
  // Depthwise-like: 4 groups of 1 channel.
  c = ConvCase();
  c.input = {1, 4, 4, 4};
  c.filter = {3, 3, 1, 8};
  c.strides = {1, 2, 2, 1};
  cases.push_back(c);
  return cases;
}

template <typename T>
class Conv2DTypedTest : public Conv2DTest {};
using ConvTypes = ::testing::Types<float, double, half, bfloat16, int32>;
TYPED_TEST_SUITE(Conv2DTypedTest, ConvTypes);

TYPED_TEST(Conv2DTypedTest, MatchesReference) {
  for (const ConvCase& c : Geometries()) {
    this->template ExpectMatchesReference<TypeParam>(c);
  }
}

TEST_F(Conv2DTest, HandComputed) {
  // 3x3 image, 2x2 filter of ones: sums of each 2x2 block.
  Tensor in = test::AsTensor<float>({1, 2, 3, 4, 5, 6, 7, 8, 9},
                                    TensorShape({1, 3, 3, 1}));
  Tensor filter = test::AsTensor<float>({1, 1, 1, 1}, TensorShape({2, 2, 1, 1}));
  ConvCase c;
  Tensor out;
  ASSERT_THAT(Run(c, in, filter, &out), IsOk());
  EXPECT_EQ(out.shape(), TensorShape({1, 2, 2, 1}));
  EXPECT_THAT(test::Values<float>(out), ElementsAre(12, 16, 24, 28));
  c.padding = "SAME";
  ASSERT_THAT(Run(c, in, filter, &out), IsOk());
  EXPECT_EQ(out.shape(), TensorShape({1, 3, 3, 1}));
  // The extra padding goes after: the last row and column see zeros.
  EXPECT_THAT(test::Values<float>(out),
              ElementsAre(12, 16, 9, 24, 28, 15, 15, 17, 9));
}

TEST_F(Conv2DTest, LargeImageIsBuiltInChunks) {
  // 2 * 96 * 96 positions of 3*3*32 values: more than one patch chunk.
  ConvCase c;
  c.input = {2, 96, 96, 32};
  c.filter = {3, 3, 32, 4};
  c.padding = "SAME";
  ExpectMatchesReference<float>(c);
}

// Geometries whose outputs split into several GEMM blocks of uneven sizes
// (Note [Conv2D on GEMM blocks]: blocks of at least 64 rows, about 512 KB
// of patch and output rows each), for every intra-op thread count.
std::vector<ConvCase> BlockedGeometries() {
  std::vector<ConvCase> cases;
  // 3x3 SAME: 2*41*39 = 3198 positions of k = 576; about 14 blocks.
  ConvCase c;
  c.input = {2, 41, 39, 64};
  c.filter = {3, 3, 64, 9};
  c.padding = "SAME";
  cases.push_back(c);
  // 3x3 VALID with stride 2 and odd sizes.
  c.padding = "VALID";
  c.strides = {1, 2, 2, 1};
  cases.push_back(c);
  // 3x3 dilated, EXPLICIT asymmetric padding.
  c = ConvCase();
  c.input = {1, 33, 31, 40};
  c.filter = {3, 3, 40, 5};
  c.dilations = {1, 2, 3, 1};
  c.padding = "EXPLICIT";
  c.explicit_paddings = {0, 0, 1, 2, 3, 0, 0, 0};
  cases.push_back(c);
  // 1x1 stride 1: the input is read in place, blocks of 436 rows.
  c = ConvCase();
  c.input = {3, 29, 23, 16};
  c.filter = {1, 1, 16, 300};
  cases.push_back(c);
  // 1x1 stride 2: patches are built.
  c.strides = {1, 2, 2, 1};
  cases.push_back(c);
  // Grouped 1x1 (read in place per group) and 3x3 (4 groups of 2
  // channels).
  c = ConvCase();
  c.input = {2, 19, 21, 8};
  c.filter = {1, 1, 2, 12};
  cases.push_back(c);
  c.filter = {3, 3, 2, 12};
  c.padding = "SAME";
  cases.push_back(c);
  // A window covering the whole image, read in place, batch 5.
  c = ConvCase();
  c.input = {5, 3, 4, 7};
  c.filter = {3, 4, 7, 3};
  cases.push_back(c);
  return cases;
}

TEST_F(Conv2DTest, BlocksMatchReferenceAtEveryThreadCount) {
  const std::vector<int> thread_counts = {1, 2, 3, 8};
  std::vector<std::unique_ptr<EagerContext>> contexts;
  for (int threads : thread_counts) {
    EagerContext::Options options;
    options.intra_op_threads = threads;
    auto ctx = EagerContext::Create(options);
    ASSERT_THAT(ctx, IsOk());
    contexts.push_back(std::move(ctx).value());
  }
  std::vector<ConvCase> cases = BlockedGeometries();
  // An empty batch. (A filter with no output channels is refused:
  // EmptyShapes.)
  ConvCase c;
  c.input = {0, 9, 9, 3};
  c.filter = {3, 3, 3, 4};
  cases.push_back(c);
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(Describe(c));
    const Tensor in = Pattern<float>(c.input, 1);
    const Tensor filter = Pattern<float>(c.filter, 2);
    const Tensor in_d = Pattern<double>(c.input, 1);
    const Tensor filter_d = Pattern<double>(c.filter, 2);
    std::vector<int64_t> shape;
    // Small integers: the same sums in float and double.
    const std::vector<double> want = Reference<float>(c, in, filter, &shape);
    for (size_t i = 0; i < contexts.size(); ++i) {
      SCOPED_TRACE("intra_op_threads " + std::to_string(thread_counts[i]));
      ctx_ = std::move(contexts[i]);
      ExpectOutput<float>(c, in, filter, shape, want);
      ExpectOutput<double>(c, in_d, filter_d, shape, want);
      contexts[i] = std::move(ctx_);
    }
  }
}

TEST_F(Conv2DTest, Int32OverflowWraps) {
  const int32 big = std::numeric_limits<int32>::max();
  Tensor in = test::AsTensor<int32>({big, big}, TensorShape({1, 1, 1, 2}));
  Tensor filter = test::AsTensor<int32>({2, 1}, TensorShape({1, 1, 2, 1}));
  ConvCase c;
  Tensor out;
  ASSERT_THAT(Run(c, in, filter, &out), IsOk());
  // 3 * (2^31 - 1) mod 2^32 = 2^31 - 3, as a signed 32-bit value.
  EXPECT_EQ(out.flat<int32>()(0), static_cast<int32>(2147483645u));
}

TEST_F(Conv2DTest, EmptyShapes) {
  ConvCase c;
  Tensor out;
  ASSERT_THAT(Run(c, Tensor(DT_FLOAT, TensorShape({0, 3, 3, 2})),
                  Pattern<float>({2, 2, 2, 4}, 0), &out),
              IsOk());
  EXPECT_EQ(out.shape(), TensorShape({0, 2, 2, 4}));
  // A filter with a zero dimension is refused, as TensorFlow's fix for
  // TFSA-2021-187 refuses it (no output channels, or a window with no rows).
  EXPECT_THAT(Run(c, Pattern<float>({1, 3, 3, 2}, 0),
                  Tensor(DT_FLOAT, TensorShape({2, 2, 2, 0})), &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("filter must not have zero elements")));
  EXPECT_THAT(Run(c, Pattern<float>({1, 3, 3, 2}, 0),
                  Tensor(DT_FLOAT, TensorShape({0, 1, 2, 3})), &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("filter must not have zero elements")));
  // An input without channels: empty sums as well.
  ASSERT_THAT(Run(c, Tensor(DT_FLOAT, TensorShape({1, 3, 3, 0})),
                  Pattern<float>({2, 2, 2, 4}, 0), &out),
              IsOk());
  EXPECT_EQ(out.shape(), TensorShape({1, 2, 2, 4}));
  for (float v : test::Values<float>(out)) EXPECT_EQ(v, 0.f);
  // TensorFlow's VALID arithmetic gives 0 rows for a window one larger than
  // the image.
  ASSERT_THAT(Run(c, Pattern<float>({1, 2, 2, 1}, 0),
                  Pattern<float>({3, 3, 1, 1}, 0), &out),
              IsOk());
  EXPECT_EQ(out.shape(), TensorShape({1, 0, 0, 1}));
}

TEST_F(Conv2DTest, NchwIsUnimplementedOnCpu) {
  ConvCase c;
  c.data_format = "NCHW";
  Tensor out;
  EXPECT_THAT(Run(c, Pattern<float>({1, 2, 3, 3}, 0),
                  Pattern<float>({2, 2, 2, 1}, 0), &out),
              StatusIs(error::UNIMPLEMENTED,
                       HasSubstr("The Conv2D op currently only supports the "
                                 "NHWC tensor format on the CPU. The op was "
                                 "given the format: NCHW")));
  // Nothing to compute: no complaint, as TensorFlow.
  ASSERT_THAT(Run(c, Tensor(DT_FLOAT, TensorShape({0, 2, 3, 3})),
                  Pattern<float>({2, 2, 2, 1}, 0), &out),
              IsOk());
  EXPECT_EQ(out.shape(), TensorShape({0, 1, 2, 2}));
}

TEST_F(Conv2DTest, AttrErrors) {
  Tensor in = Pattern<float>({1, 4, 4, 2}, 0);
  Tensor filter = Pattern<float>({2, 2, 2, 1}, 0);
  Tensor out;
  ConvCase c;
  c.strides = {1, 1, 1};
  EXPECT_THAT(Run(c, in, filter, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Sliding window strides field must specify 4 "
                                 "dimensions")));
  c = ConvCase();
  c.dilations = {1, 1};
  EXPECT_THAT(Run(c, in, filter, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Sliding window dilations field must specify "
                                 "4 dimensions")));
  c = ConvCase();
  c.strides = {2, 1, 1, 1};
  EXPECT_THAT(Run(c, in, filter, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("does not yet support strides in the batch "
                                 "and depth dimensions")));
  c = ConvCase();
  c.strides = {1, 0, 1, 1};
  EXPECT_THAT(Run(c, in, filter, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Row and column strides should be larger "
                                 "than 0.")));
  c = ConvCase();
  c.dilations = {1, 1, 1, 2};
  EXPECT_THAT(Run(c, in, filter, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("does not yet support dilations in the batch "
                                 "and depth dimensions")));
  c = ConvCase();
  c.dilations = {1, -1, 1, 1};
  EXPECT_THAT(Run(c, in, filter, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Dilated rates should be larger than 0.")));
  c = ConvCase();
  c.padding = "EXPLICIT";
  c.explicit_paddings = {0, 0, 1, 1};
  EXPECT_THAT(Run(c, in, filter, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("explicit_paddings attribute must contain 8 "
                                 "values, but got: 4")));
  c.explicit_paddings = {0, 0, 1, 1, 1, 1, 1, 0};
  EXPECT_THAT(Run(c, in, filter, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Nonzero explicit padding in the batch or "
                                 "depth dimensions")));
  c.explicit_paddings = {0, 0, 1, -1, 1, 1, 0, 0};
  EXPECT_THAT(Run(c, in, filter, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("must be nonnegative, but element 3 is -1")));
  c.explicit_paddings = {0, 0, int64{1} << 40, 0, 0, 0, 0, 0};
  EXPECT_THAT(Run(c, in, filter, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("explicit padding 1099511627776 is too large")));
  c = ConvCase();
  c.explicit_paddings = {0, 0, 1, 1, 1, 1, 0, 0};
  EXPECT_THAT(Run(c, in, filter, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("explicit_paddings attribute must be empty")));
}

TEST_F(Conv2DTest, InputErrors) {
  ConvCase c;
  Tensor out;
  EXPECT_THAT(Run(c, Pattern<float>({4, 4, 2}, 0),
                  Pattern<float>({2, 2, 2, 1}, 0), &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("input must be 4-dimensional: [4,4,2]")));
  EXPECT_THAT(Run(c, Pattern<float>({1, 4, 4, 2}, 0),
                  Pattern<float>({2, 2, 2}, 0), &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("filter must be 4-dimensional: [2,2,2]")));
  EXPECT_THAT(Run(c, Pattern<float>({1, 4, 4, 3}, 0),
                  Pattern<float>({2, 2, 2, 1}, 0), &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("input depth must be evenly divisible by "
                                 "filter depth: 3 vs 2")));
  EXPECT_THAT(Run(c, Pattern<float>({1, 4, 4, 4}, 0),
                  Pattern<float>({2, 2, 2, 3}, 0), &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("output depth must be evenly divisible by "
                                 "number of groups: 3 vs 2")));
  EXPECT_THAT(Run(c, Pattern<float>({1, 4, 4, 2}, 0),
                  Tensor(DT_FLOAT, TensorShape({2, 2, 0, 1})), &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("filter depth must be strictly positive, got "
                                 "0")));
  EXPECT_THAT(Run(c, Pattern<float>({1, 1, 4, 1}, 0),
                  Pattern<float>({3, 1, 1, 1}, 0), &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Computed output size would be negative")));
  std::vector<Tensor> outs;
  EXPECT_THAT(ctx_->Run("Conv2D",
                        {Pattern<float>({1, 4, 4, 2}, 0),
                         Pattern<double>({2, 2, 2, 1}, 0)},
                        {{"strides", Attr(std::vector<int32>{1, 1, 1, 1})},
                         {"padding", Attr(std::string("VALID"))}},
                        &outs),
              StatusIs(error::INVALID_ARGUMENT));
}

}  // namespace
}  // namespace opkit
