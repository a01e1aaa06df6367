// BiasAdd and BiasAddGrad kernels, run through EagerContext.
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
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class BiasAddTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ctx = EagerContext::Create();
    ASSERT_THAT(ctx, IsOk());
    ctx_ = std::move(ctx).value();
  }

  Status Run(const Tensor& value, const Tensor& bias,
             const std::string& data_format, Tensor* out) {
    AttrValue format;
    SetAttrValue(data_format, &format);
    std::vector<Tensor> outs;
    OPKIT_RETURN_IF_ERROR(
        ctx_->Run("BiasAdd", {value, bias}, {{"data_format", format}}, &outs));
    *out = outs[0];
    return OkStatus();
  }

  std::unique_ptr<EagerContext> ctx_;
};

TEST_F(BiasAddTest, MatrixNhwc) {
  Tensor out;
  ASSERT_THAT(Run(test::AsTensor<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3})),
                  test::AsTensor<float>({10, 20, 30}, TensorShape({3})), "NHWC",
                  &out),
              IsOk());
  EXPECT_EQ(out.shape(), TensorShape({2, 3}));
  EXPECT_THAT(test::Values<float>(out), ElementsAre(11, 22, 33, 14, 25, 36));
}

TEST_F(BiasAddTest, FourDimensionalNhwcAndNchw) {
  Tensor x(DT_DOUBLE, TensorShape({2, 2, 2, 3}));
  for (int i = 0; i < 24; ++i) x.flat<double>()(i) = i;
  Tensor out;
  ASSERT_THAT(Run(x, test::AsTensor<double>({100, 200, 300}, TensorShape({3})),
                  "NHWC", &out),
              IsOk());
  for (int i = 0; i < 24; ++i) {
    EXPECT_EQ(out.flat<double>()(i), i + 100.0 * (i % 3 + 1)) << i;
  }
  // NCHW: channel is dimension 1 of [2,3,2,2].
  Tensor y(DT_DOUBLE, TensorShape({2, 3, 2, 2}));
  for (int i = 0; i < 24; ++i) y.flat<double>()(i) = i;
  ASSERT_THAT(Run(y, test::AsTensor<double>({100, 200, 300}, TensorShape({3})),
                  "NCHW", &out),
              IsOk());
  for (int i = 0; i < 24; ++i) {
    const int channel = (i / 4) % 3;
    EXPECT_EQ(out.flat<double>()(i), i + 100.0 * (channel + 1)) << i;
  }
}

TEST_F(BiasAddTest, NchwOfRankThreeAndTwo) {
  Tensor x(DT_FLOAT, TensorShape({1, 2, 3}));
  for (int i = 0; i < 6; ++i) x.flat<float>()(i) = i;
  Tensor out;
  ASSERT_THAT(Run(x, test::AsTensor<float>({10, 20}, TensorShape({2})), "NCHW",
                  &out),
              IsOk());
  EXPECT_THAT(test::Values<float>(out), ElementsAre(10, 11, 12, 23, 24, 25));
  ASSERT_THAT(Run(test::AsTensor<float>({1, 2, 3, 4}, TensorShape({2, 2})),
                  test::AsTensor<float>({10, 20}, TensorShape({2})), "NCHW",
                  &out),
              IsOk());
  EXPECT_THAT(test::Values<float>(out), ElementsAre(11, 22, 13, 24));
}

TEST_F(BiasAddTest, IntegersWrapInsteadOfOverflowing) {
  const int32 max = std::numeric_limits<int32>::max();
  Tensor out;
  ASSERT_THAT(Run(test::AsTensor<int32>({max, -5}, TensorShape({1, 2})),
                  test::AsTensor<int32>({1, 7}, TensorShape({2})), "NHWC", &out),
              IsOk());
  EXPECT_THAT(test::Values<int32>(out),
              ElementsAre(std::numeric_limits<int32>::min(), 2));
  ASSERT_THAT(Run(test::AsTensor<int8>({127, 1}, TensorShape({1, 2})),
                  test::AsTensor<int8>({1, 1}, TensorShape({2})), "NHWC", &out),
              IsOk());
  EXPECT_THAT(test::Values<int8>(out), ElementsAre(-128, 2));
}

TEST_F(BiasAddTest, HalfBfloat16AndComplex) {
  Tensor out;
  ASSERT_THAT(Run(test::AsTensor<half>({half(1.f), half(2.f)}, TensorShape({1, 2})),
                  test::AsTensor<half>({half(0.5f), half(-2.f)}, TensorShape({2})),
                  "NHWC", &out),
              IsOk());
  EXPECT_EQ(static_cast<float>(out.flat<half>()(0)), 1.5f);
  EXPECT_EQ(static_cast<float>(out.flat<half>()(1)), 0.f);
  ASSERT_THAT(
      Run(test::AsTensor<bfloat16>({bfloat16(4.f)}, TensorShape({1, 1})),
          test::AsTensor<bfloat16>({bfloat16(4.f)}, TensorShape({1})), "NHWC",
          &out),
      IsOk());
  EXPECT_EQ(static_cast<float>(out.flat<bfloat16>()(0)), 8.f);
  ASSERT_THAT(
      Run(test::AsTensor<complex64>({complex64(1, 2)}, TensorShape({1, 1})),
          test::AsTensor<complex64>({complex64(3, -1)}, TensorShape({1})),
          "NHWC", &out),
      IsOk());
  EXPECT_EQ(out.flat<complex64>()(0), complex64(4, 1));
}

TEST_F(BiasAddTest, EmptyInputAndLargeInput) {
  Tensor out;
  ASSERT_THAT(Run(Tensor(DT_FLOAT, TensorShape({0, 3})),
                  test::AsTensor<float>({1, 2, 3}, TensorShape({3})), "NHWC",
                  &out),
              IsOk());
  EXPECT_EQ(out.shape(), TensorShape({0, 3}));
  const int64_t rows = 40000;
  Tensor big(DT_FLOAT, TensorShape({rows, 2}));
  for (int64_t i = 0; i < rows * 2; ++i) big.flat<float>()(i) = i % 5;
  ASSERT_THAT(Run(big, test::AsTensor<float>({1, -1}, TensorShape({2})), "NHWC",
                  &out),
              IsOk());
  for (int64_t i = 0; i < rows * 2; ++i) {
    ASSERT_EQ(out.flat<float>()(i), (i % 5) + (i % 2 == 0 ? 1 : -1)) << i;
  }
}

TEST_F(BiasAddTest, BadShapes) {
  Tensor out;
  EXPECT_THAT(Run(test::AsTensor<float>({1, 2}, TensorShape({2})),
                  test::AsTensor<float>({1, 2}, TensorShape({2})), "NHWC", &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Input tensor must be at least 2D: [2]")));
  EXPECT_THAT(Run(Tensor(DT_FLOAT, TensorShape({2, 2})),
                  Tensor(DT_FLOAT, TensorShape({1, 2})), "NHWC", &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Biases must be 1D: [1,2]")));
  EXPECT_THAT(Run(Tensor(DT_FLOAT, TensorShape({2, 3})),
                  Tensor(DT_FLOAT, TensorShape({2})), "NHWC", &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Must provide as many biases as the last "
                                 "dimension of the input tensor: [2] vs. [2,3]")));
  EXPECT_THAT(Run(Tensor(DT_FLOAT, TensorShape({2, 3, 4, 4})),
                  Tensor(DT_FLOAT, TensorShape({4})), "NCHW", &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("[4] vs. [2,3,4,4]")));
  std::vector<Tensor> outs;
  EXPECT_THAT(ctx_->Run("BiasAdd",
                        {Tensor(DT_FLOAT, TensorShape({2, 2})),
                         Tensor(DT_INT32, TensorShape({2}))},
                        &outs),
              StatusIs(error::INVALID_ARGUMENT));
}

class BiasAddGradTest : public test::EagerOpTest {
 protected:
  Status RunGrad(const Tensor& grad, const char* data_format) {
    return Run("BiasAddGrad", {grad}, {{"data_format", test::Attr(std::string(data_format))}});
  }
};

TEST_F(BiasAddGradTest, NhwcSumsEveryRowPerChannel) {
  ASSERT_THAT(RunGrad(test::AsTensor<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3})), "NHWC"),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({3}));
  EXPECT_THAT(test::Values<float>(out_[0]), ElementsAre(5, 7, 9));
  // Rank 4: channels last, 2*2*2 positions each.
  Tensor g(DT_DOUBLE, TensorShape({2, 2, 2, 3}));
  for (int i = 0; i < 24; ++i) g.flat<double>()(i) = i;
  ASSERT_THAT(RunGrad(g, "NHWC"), IsOk());
  // Channel c holds c, c+3, ..., c+21: 8 values summing to 8c + 84.
  EXPECT_THAT(test::Values<double>(out_[0]), ElementsAre(84, 92, 100));
}

TEST_F(BiasAddGradTest, NchwSumsOverBatchAndSpace) {
  // [2,3,2,2]: channel c of batch n holds 4 consecutive values from
  // 12n + 4c.
  Tensor g(DT_DOUBLE, TensorShape({2, 3, 2, 2}));
  for (int i = 0; i < 24; ++i) g.flat<double>()(i) = i;
  ASSERT_THAT(RunGrad(g, "NCHW"), IsOk());
  double want[3] = {0, 0, 0};
  for (int i = 0; i < 24; ++i) want[(i / 4) % 3] += i;
  EXPECT_THAT(test::Values<double>(out_[0]), ElementsAre(want[0], want[1], want[2]));
  // Rank 3 and rank 2 NCHW: channels are dimension 1.
  ASSERT_THAT(RunGrad(test::AsTensor<float>({1, 2, 3, 4, 5, 6}, TensorShape({1, 2, 3})), "NCHW"),
              IsOk());
  EXPECT_THAT(test::Values<float>(out_[0]), ElementsAre(6, 15));
  ASSERT_THAT(RunGrad(test::AsTensor<float>({1, 2, 3, 4}, TensorShape({2, 2})), "NCHW"), IsOk());
  EXPECT_THAT(test::Values<float>(out_[0]), ElementsAre(4, 6));
}

TEST_F(BiasAddGradTest, OtherTypesAndEmpty) {
  const int32 max = std::numeric_limits<int32>::max();
  ASSERT_THAT(RunGrad(test::AsTensor<int32>({max, 3, 1, 4}, TensorShape({2, 2})), "NHWC"), IsOk());
  EXPECT_THAT(test::Values<int32>(out_[0]),
              ElementsAre(std::numeric_limits<int32>::min(), 7));
  // 3000 halves of 1 sum to 3000 in float; summed in half they would stop
  // at 2048.
  Tensor h(DT_HALF, TensorShape({3000, 1}));
  for (int i = 0; i < 3000; ++i) h.flat<half>()(i) = half(1.0f);
  ASSERT_THAT(RunGrad(h, "NHWC"), IsOk());
  EXPECT_EQ(static_cast<float>(out_[0].flat<half>()(0)), 3000.f);
  ASSERT_THAT(RunGrad(test::AsTensor<complex64>({complex64(1, 2), complex64(3, -1)},
                                                TensorShape({2, 1})), "NHWC"),
              IsOk());
  EXPECT_EQ(out_[0].flat<complex64>()(0), complex64(4, 1));
  // No rows: zeros per channel. No channels: an empty vector.
  ASSERT_THAT(RunGrad(Tensor(DT_FLOAT, TensorShape({0, 3})), "NHWC"), IsOk());
  EXPECT_THAT(test::Values<float>(out_[0]), ElementsAre(0, 0, 0));
  ASSERT_THAT(RunGrad(Tensor(DT_FLOAT, TensorShape({4, 0})), "NHWC"), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({0}));
  // NCHW with an empty dimension after the channels (found by the op
  // fuzzer: a division by zero): zeros per channel.
  ASSERT_THAT(RunGrad(Tensor(DT_FLOAT, TensorShape({2, 3, 0, 2})), "NCHW"), IsOk());
  EXPECT_THAT(test::Values<float>(out_[0]), ElementsAre(0, 0, 0));
  // ... and with 2^40 empty rows before them, which a loop over the rows
  // would not finish (seed 3 of the op fuzzer).
  ASSERT_THAT(RunGrad(Tensor(DT_FLOAT, TensorShape({int64_t{1} << 40, 2, 3, 0})), "NCHW"),
              IsOk());
  EXPECT_THAT(test::Values<float>(out_[0]), ElementsAre(0, 0));
}

TEST(BiasAddGradThreadsTest, LargeNhwcMatchesPerChannelSumsOnAnyThreadCount) {
  // Large enough to be split across the intra-op pool; every channel is
  // summed row by row in order, so the sums are exact whatever the split.
  const int64_t rows = 301, channels = 517;
  Tensor g(DT_FLOAT, TensorShape({rows, channels}));
  auto gf = g.flat<float>();
  for (int64_t i = 0; i < gf.size(); ++i) {
    gf(i) = static_cast<float>((i * 7) % 13 - 6) * 0.37f;
  }
  std::vector<float> want(channels, 0.f);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < channels; ++c) want[c] += gf(r * channels + c);
  }
  for (int threads : {1, 2, 3}) {
    SCOPED_TRACE(::testing::Message() << "threads=" << threads);
    EagerContext::Options options;
    options.intra_op_threads = threads;
    auto ctx = EagerContext::Create(options);
    ASSERT_THAT(ctx, IsOk());
    std::vector<Tensor> out;
    ASSERT_THAT((*ctx)->Run("BiasAddGrad", {g},
                            {{"data_format", test::Attr(std::string("NHWC"))}}, &out),
                IsOk());
    ASSERT_EQ(out[0].shape(), TensorShape({channels}));
    EXPECT_EQ(test::Values<float>(out[0]), want);
  }
}

TEST_F(BiasAddGradTest, BelowRankTwoIsRejected) {
  EXPECT_THAT(RunGrad(test::AsTensor<float>({1, 2, 3}), "NHWC"),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("out_backprop (input 0) must be at least 2-D, got shape [3]")));
  Tensor scalar(DT_FLOAT, TensorShape({}));
  scalar.scalar<float>()() = 1;
  EXPECT_THAT(RunGrad(scalar, "NCHW"),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("at least 2-D")));
}

}  // namespace
}  // namespace opkit
