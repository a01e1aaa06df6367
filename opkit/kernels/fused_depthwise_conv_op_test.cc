// _FusedDepthwiseConv2dNative against the ops it stands for run one after
// another (DepthwiseConv2dNative, BiasAdd or FusedBatchNormV3, then the
// activation) on random inputs; and its refusals.
#include <cmath>
#include <cstdint>
#include <random>
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
using ::testing::HasSubstr;
using test::Attr;

Tensor Random(std::initializer_list<int64_t> dims, uint32_t seed, float lo = -1,
              float hi = 1) {
  Tensor t(DT_FLOAT, TensorShape(dims));
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.flat<float>()(i) = dist(gen);
  return t;
}

class FusedDepthwiseTest : public test::EagerOpTest {
 protected:
  EagerAttrs ConvAttrs(int stride) {
    return {{"strides", Attr(std::vector<int32>{1, stride, stride, 1})},
            {"padding", Attr(std::string("SAME"))}};
  }
  Tensor Fused(int stride, const std::vector<std::string>& fused_ops,
               const std::vector<Tensor>& inputs) {
    EagerAttrs attrs = ConvAttrs(stride);
    attrs.push_back({"fused_ops", Attr(fused_ops)});
    attrs.push_back({"num_args", Attr(static_cast<int64>(inputs.size()) - 2)});
    attrs.push_back({"epsilon", Attr(0.001f)});
    EXPECT_THAT(Run("_FusedDepthwiseConv2dNative", inputs, attrs), IsOk());
    return out_.empty() ? Tensor() : out_[0];
  }
  Tensor Unfused(int stride, const std::vector<std::string>& fused_ops,
                 const std::vector<Tensor>& inputs) {
    EXPECT_THAT(Run("DepthwiseConv2dNative", {inputs[0], inputs[1]},
                    ConvAttrs(stride)),
                IsOk());
    Tensor y = out_[0];
    if (fused_ops[0] == "BiasAdd") {
      EXPECT_THAT(Run("BiasAdd", {y, inputs[2]}), IsOk());
    } else {
      EXPECT_THAT(Run("FusedBatchNormV3",
                      {y, inputs[2], inputs[3], inputs[4], inputs[5]},
                      {{"is_training", Attr(false)}, {"epsilon", Attr(0.001f)}}),
                  IsOk());
    }
    y = out_[0];
    if (fused_ops.size() > 1) {
      EXPECT_THAT(Run(fused_ops[1].c_str(), {y}), IsOk());
      y = out_[0];
    }
    return y;
  }
};

TEST_F(FusedDepthwiseTest, EqualsTheUnfusedOps) {
  const std::vector<std::vector<std::string>> lists = {
      {"BiasAdd"}, {"BiasAdd", "Relu"}, {"BiasAdd", "Relu6"},
      {"BiasAdd", "Elu"}, {"BiasAdd", "LeakyRelu"}, {"FusedBatchNorm", "Relu6"}};
  uint32_t seed = 1;
  for (int stride : {1, 2}) {
    for (const auto& fused_ops : lists) {
      SCOPED_TRACE(fused_ops.back() + " stride " + std::to_string(stride));
      // 3x3 filter, multiplier 2: 6 output channels.
      std::vector<Tensor> in = {Random({1, 7, 9, 3}, seed),
                                Random({3, 3, 3, 2}, seed + 1)};
      if (fused_ops[0] == "BiasAdd") {
        in.push_back(Random({6}, seed + 2));
      } else {
        in.push_back(Random({6}, seed + 2));
        in.push_back(Random({6}, seed + 3));
        in.push_back(Random({6}, seed + 4));
        in.push_back(Random({6}, seed + 5, 0.5f, 2.0f));  // variance > 0
      }
      seed += 10;
      Tensor fused = Fused(stride, fused_ops, in);
      Tensor unfused = Unfused(stride, fused_ops, in);
      ASSERT_EQ(fused.shape(), unfused.shape());
      for (int64_t i = 0; i < fused.NumElements(); ++i) {
        EXPECT_NEAR(fused.flat<float>()(i), unfused.flat<float>()(i), 1e-5)
            << "element " << i;
      }
    }
  }
}

TEST_F(FusedDepthwiseTest, BadFusedOpsAndArgs) {
  std::vector<Tensor> in = {Random({1, 4, 4, 2}, 1), Random({3, 3, 2, 1}, 2),
                            Random({2}, 3)};
  EagerAttrs attrs = ConvAttrs(1);
  attrs.push_back({"fused_ops", Attr(std::vector<std::string>{"Relu"})});
  attrs.push_back({"num_args", Attr(int64{1})});
  EXPECT_THAT(Run("_FusedDepthwiseConv2dNative", in, attrs),
              StatusIs(error::UNIMPLEMENTED, HasSubstr("Fusion is not implemented")));
  attrs = ConvAttrs(1);
  attrs.push_back({"fused_ops", Attr(std::vector<std::string>{"BiasAdd"})});
  attrs.push_back({"num_args", Attr(int64{1})});
  in[2] = Random({3}, 3);
  EXPECT_THAT(Run("_FusedDepthwiseConv2dNative", in, attrs),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("as many elements as the output has channels")));
}

}  // namespace
}  // namespace opkit
