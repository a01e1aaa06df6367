// _FusedConv2D against the ops it stands for run one after another (Conv2D,
// then BiasAdd or FusedBatchNormV3, then the activation) on random inputs,
// through EagerContext; and its refusals of bad fused_ops, num_args and
// args.
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/runtime/eager_context.h"
#include "opkit/testing/kernel_test_util.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using test::Attr;
using ::testing::HasSubstr;

template <typename T>
Tensor Random(const std::vector<int64_t>& dims, uint32_t seed, double lo = -1,
              double hi = 1) {
  TensorShape shape;
  for (int64_t d : dims) shape.AddDim(d);
  Tensor t(DataTypeToEnum<T>::value, shape);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.flat<T>()(i) = static_cast<T>(dist(gen));
  }
  return t;
}

struct Geometry {
  std::vector<int64_t> input;   // NHWC
  std::vector<int64_t> filter;  // HWIO
  std::vector<int32> strides = {1, 1, 1, 1};
  std::string padding = "SAME";
};

class FusedConv2DTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ctx = EagerContext::Create();
    ASSERT_THAT(ctx, IsOk());
    ctx_ = std::move(ctx).value();
  }

  EagerAttrs ConvAttrs(const Geometry& g) {
    return {{"strides", Attr(g.strides)}, {"padding", Attr(g.padding)}};
  }

  Status RunFused(const Geometry& g, const std::vector<std::string>& fused_ops,
                  const std::vector<Tensor>& inputs, Tensor* out,
                  float alpha = 0.2f) {
    EagerAttrs attrs = ConvAttrs(g);
    attrs.push_back({"fused_ops", Attr(fused_ops)});
    attrs.push_back(
        {"num_args", Attr(static_cast<int64>(inputs.size()) - 2)});
    attrs.push_back({"epsilon", Attr(0.001f)});
    attrs.push_back({"leakyrelu_alpha", Attr(alpha)});
    std::vector<Tensor> outs;
    OPKIT_RETURN_IF_ERROR(ctx_->Run("_FusedConv2D", inputs, attrs, &outs));
    *out = outs[0];
    return OkStatus();
  }

  // The same computation from the unfused ops.
  Status RunUnfused(const Geometry& g, const std::vector<std::string>& fused_ops,
                    const std::vector<Tensor>& inputs, Tensor* out,
                    float alpha = 0.2f) {
    std::vector<Tensor> outs;
    OPKIT_RETURN_IF_ERROR(
        ctx_->Run("Conv2D", {inputs[0], inputs[1]}, ConvAttrs(g), &outs));
    Tensor y = outs[0];
    if (fused_ops[0] == "BiasAdd") {
      OPKIT_RETURN_IF_ERROR(ctx_->Run("BiasAdd", {y, inputs[2]}, {}, &outs));
    } else {
      OPKIT_RETURN_IF_ERROR(ctx_->Run(
          "FusedBatchNormV3", {y, inputs[2], inputs[3], inputs[4], inputs[5]},
          {{"is_training", Attr(false)}, {"epsilon", Attr(0.001f)}}, &outs));
    }
    y = outs[0];
    if (fused_ops.size() > 1 && fused_ops[1] == "LeakyRelu") {
      // LeakyRelu's definition (the op may not be linked in): x for x > 0,
      // alpha * x otherwise.
      Tensor r(y.dtype(), y.shape());
      for (int64_t i = 0; i < y.NumElements(); ++i) {
        const float x = y.flat<float>()(i);
        r.flat<float>()(i) = x > 0 ? x : alpha * x;
      }
      y = r;
    } else if (fused_ops.size() > 1) {
      OPKIT_RETURN_IF_ERROR(ctx_->Run(fused_ops[1], {y}, {}, &outs));
      y = outs[0];
    }
    *out = y;
    return OkStatus();
  }

  // Random input and filter for `g`, and the args `fused_ops` needs.
  static std::vector<Tensor> Inputs(const Geometry& g,
                                    const std::vector<std::string>& fused_ops,
                                    uint32_t seed) {
    const int64_t channels = g.filter[3];
    std::vector<Tensor> in = {Random<float>(g.input, seed),
                              Random<float>(g.filter, seed + 1)};
    if (fused_ops[0] == "BiasAdd") {
      in.push_back(Random<float>({channels}, seed + 2));
    } else {
      in.push_back(Random<float>({channels}, seed + 2, 0.5, 1.5));   // scale
      in.push_back(Random<float>({channels}, seed + 3));             // offset
      in.push_back(Random<float>({channels}, seed + 4));             // mean
      in.push_back(Random<float>({channels}, seed + 5, 0.1, 2.0));   // variance
    }
    return in;
  }

  void ExpectSameAsUnfused(const Geometry& g,
                           const std::vector<std::string>& fused_ops,
                           uint32_t seed) {
    std::string trace = "fused_ops [";
    for (const auto& op : fused_ops) trace += op + " ";
    SCOPED_TRACE(trace + "] filter " + std::to_string(g.filter[0]) + "x" +
                 std::to_string(g.filter[1]));
    std::vector<Tensor> in = Inputs(g, fused_ops, seed);
    Tensor fused, unfused;
    ASSERT_THAT(RunFused(g, fused_ops, in, &fused), IsOk());
    ASSERT_THAT(RunUnfused(g, fused_ops, in, &unfused), IsOk());
    ASSERT_EQ(fused.shape(), unfused.shape());
    for (int64_t i = 0; i < fused.NumElements(); ++i) {
      const float want = unfused.flat<float>()(i);
      ASSERT_NEAR(fused.flat<float>()(i), want, 1e-4 * (1 + std::fabs(want)))
          << "element " << i;
    }
  }

  std::unique_ptr<EagerContext> ctx_;
};

const std::vector<std::vector<std::string>>& Combinations() {
  static const auto* all = new std::vector<std::vector<std::string>>{
      {"BiasAdd"},
      {"BiasAdd", "Relu"},
      {"BiasAdd", "Relu6"},
      {"BiasAdd", "Elu"},
      {"BiasAdd", "LeakyRelu"},
      {"FusedBatchNorm"},
      {"FusedBatchNorm", "Relu"},
      {"FusedBatchNorm", "Relu6"},
      {"FusedBatchNorm", "Elu"},
      {"FusedBatchNorm", "LeakyRelu"}};
  return *all;
}

TEST_F(FusedConv2DTest, EveryCombinationMatchesTheUnfusedOps) {
  // 3x3 SAME (patches built per block), 1x1 (the input is the patch
  // matrix), strided VALID, and a grouped convolution.
  const std::vector<Geometry> geometries = {
      {{2, 5, 6, 3}, {3, 3, 3, 4}},
      {{1, 4, 4, 5}, {1, 1, 5, 3}},
      {{1, 7, 6, 2}, {2, 3, 2, 6}, {1, 2, 2, 1}, "VALID"},
      {{1, 4, 4, 4}, {3, 3, 2, 6}}};
  uint32_t seed = 1;
  for (const Geometry& g : geometries) {
    for (const auto& fused_ops : Combinations()) {
      ExpectSameAsUnfused(g, fused_ops, seed);
      seed += 7;
    }
  }
}

TEST_F(FusedConv2DTest, EpilogueCoversEveryBlockOfALargeOutput) {
  // k = 3*3*512 = 4608 patch values per row: conv_ops.cc builds at most
  // 2^22 / 4608 = 910 rows at a time, so 34*34 = 1156 output rows come in two
  // blocks.
  const Geometry g = {{1, 34, 34, 512}, {3, 3, 512, 2}};
  ExpectSameAsUnfused(g, {"BiasAdd", "Relu"}, 3);
  ExpectSameAsUnfused(g, {"FusedBatchNorm", "Elu"}, 4);
}

TEST_F(FusedConv2DTest, EveryEpilogueOnEveryBlockAtSeveralThreadCounts) {
  // Outputs of several GEMM blocks (conv_ops.cc's Note [Conv2D on GEMM
  // blocks]) whose epilogues run on different threads: 1x1 read in place
  // (29*23 = 667 rows of 300 channels, blocks of 218 rows) and 3x3 with
  // patches (2*21*19 = 798 rows of k = 288, about 3 blocks).
  const std::vector<Geometry> geometries = {
      {{1, 29, 23, 16}, {1, 1, 16, 300}},
      {{2, 21, 19, 32}, {3, 3, 32, 7}, {1, 1, 1, 1}, "SAME"}};
  uint32_t seed = 100;
  for (int threads : {1, 3}) {
    SCOPED_TRACE("intra_op_threads " + std::to_string(threads));
    EagerContext::Options options;
    options.intra_op_threads = threads;
    auto ctx = EagerContext::Create(options);
    ASSERT_THAT(ctx, IsOk());
    ctx_ = std::move(ctx).value();
    for (const Geometry& g : geometries) {
      for (const auto& fused_ops : Combinations()) {
        ExpectSameAsUnfused(g, fused_ops, seed);
        seed += 7;
      }
    }
  }
}

TEST_F(FusedConv2DTest, DoubleAndLeakyReluAlpha) {
  const Geometry g = {{1, 3, 3, 2}, {2, 2, 2, 2}, {1, 1, 1, 1}, "VALID"};
  // Input all ones, filter all ones: each output is the sum of 2*2*2 ones,
  // 8; bias {-10, 1} gives {-2, 9}; LeakyRelu with alpha 0.5 gives {-1, 9}.
  Tensor in(DT_DOUBLE, TensorShape({1, 3, 3, 2}));
  Tensor filter(DT_DOUBLE, TensorShape({2, 2, 2, 2}));
  in.flat<double>().setConstant(1.0);
  filter.flat<double>().setConstant(1.0);
  Tensor bias = test::AsTensor<double>({-10.0, 1.0});
  Tensor out;
  ASSERT_THAT(RunFused(g, {"BiasAdd", "LeakyRelu"}, {in, filter, bias}, &out,
                       0.5f),
              IsOk());
  ASSERT_EQ(out.shape(), TensorShape({1, 2, 2, 2}));
  EXPECT_EQ(test::Values<double>(out),
            std::vector<double>({-1, 9, -1, 9, -1, 9, -1, 9}));
}

TEST_F(FusedConv2DTest, EmptyInputGivesEmptyOutput) {
  const Geometry g = {{0, 4, 4, 2}, {3, 3, 2, 3}};
  std::vector<Tensor> in = Inputs(g, {"BiasAdd"}, 5);
  Tensor out;
  ASSERT_THAT(RunFused(g, {"BiasAdd", "Relu"}, in, &out), IsOk());
  EXPECT_EQ(out.shape(), TensorShape({0, 4, 4, 3}));
}

TEST_F(FusedConv2DTest, UnsupportedFusedOpsAreRefused) {
  const Geometry g = {{1, 3, 3, 2}, {2, 2, 2, 2}};
  std::vector<Tensor> in = Inputs(g, {"BiasAdd"}, 6);
  Tensor out;
  for (const std::vector<std::string>& bad :
       std::vector<std::vector<std::string>>{{},
                                             {"Relu"},
                                             {"BiasAdd", "Sigmoid"},
                                             {"BiasAdd", "Relu", "Relu"},
                                             {"Relu", "BiasAdd"},
                                             {"Add"},
                                             {"FusedBatchNorm", "Add"},
                                             {"BiasAdd", "Add", "Sigmoid"},
                                             {"BiasAdd", "Add", "Relu", "Relu"}}) {
    EXPECT_THAT(RunFused(g, bad, in, &out),
                StatusIs(error::UNIMPLEMENTED,
                         HasSubstr("Fusion is not implemented")));
  }
}

// TensorFlow's oneDNN fusion of a residual: conv, bias, then a tensor of
// the output's shape added, then the activation.
TEST_F(FusedConv2DTest, BiasAddThenAddMatchesTheUnfusedOps) {
  const std::vector<Geometry> geometries = {
      {{2, 5, 5, 8}, {1, 1, 8, 16}},                     // 1x1, input in place
      {{1, 7, 7, 3}, {3, 3, 3, 4}, {1, 2, 2, 1}, "SAME"}};  // patches
  uint32_t seed = 40;
  for (const Geometry& g : geometries) {
    for (const std::string act : {"", "Relu", "Relu6", "Elu"}) {
      SCOPED_TRACE("filter " + std::to_string(g.filter[0]) + " activation " +
                   act);
      std::vector<Tensor> in = Inputs(g, {"BiasAdd"}, seed++);
      std::vector<Tensor> outs;
      ASSERT_THAT(ctx_->Run("Conv2D", {in[0], in[1]}, ConvAttrs(g), &outs),
                  IsOk());
      std::vector<int64_t> dims = outs[0].shape().dim_sizes();
      in.push_back(Random<float>(dims, seed++));
      ASSERT_THAT(ctx_->Run("BiasAdd", {outs[0], in[2]}, {}, &outs), IsOk());
      ASSERT_THAT(ctx_->Run("AddV2", {outs[0], in[3]}, {}, &outs), IsOk());
      Tensor want = outs[0];
      std::vector<std::string> fused_ops = {"BiasAdd", "Add"};
      if (!act.empty()) {
        ASSERT_THAT(ctx_->Run(act, {want}, {}, &outs), IsOk());
        want = outs[0];
        fused_ops.push_back(act);
      }
      Tensor got;
      ASSERT_THAT(RunFused(g, fused_ops, in, &got), IsOk());
      ASSERT_EQ(got.shape(), want.shape());
      for (int64_t i = 0; i < got.NumElements(); ++i) {
        const float w = want.flat<float>()(i);
        ASSERT_NEAR(got.flat<float>()(i), w, 1e-4 * (1 + std::fabs(w)))
            << "element " << i;
      }
    }
  }
}

TEST_F(FusedConv2DTest, AnAddendOfAnotherShapeIsRefused) {
  const Geometry g = {{1, 3, 3, 2}, {2, 2, 2, 2}};
  std::vector<Tensor> in = Inputs(g, {"BiasAdd"}, 12);
  Tensor out;
  // The output is [1,3,3,2]; a bias-shaped addend does not broadcast here.
  in.push_back(Random<float>({2}, 13));
  EXPECT_THAT(RunFused(g, {"BiasAdd", "Add", "Relu"}, in, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("must have the output's type and shape "
                                 "float [1,3,3,2], got float [2]")));
  in.pop_back();
  EXPECT_THAT(RunFused(g, {"BiasAdd", "Add"}, in, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("takes 2 extra arguments (the bias, then the "
                                 "tensor to add), but num_args is 1")));
}

TEST_F(FusedConv2DTest, NumArgsMustMatchTheFusedOps) {
  const Geometry g = {{1, 3, 3, 2}, {2, 2, 2, 2}};
  // A bias add with the four batch-norm args, a batch norm with one.
  std::vector<Tensor> bn = Inputs(g, {"FusedBatchNorm"}, 7);
  std::vector<Tensor> bias = Inputs(g, {"BiasAdd"}, 8);
  Tensor out;
  EXPECT_THAT(RunFused(g, {"BiasAdd"}, bn, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("takes 1 extra argument (the bias), but "
                                 "num_args is 4")));
  EXPECT_THAT(RunFused(g, {"FusedBatchNorm", "Relu"}, bias, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("num_args is 1")));
}

TEST_F(FusedConv2DTest, BadArgsAreRefused) {
  const Geometry g = {{1, 3, 3, 2}, {2, 2, 2, 2}};
  std::vector<Tensor> in = Inputs(g, {"BiasAdd"}, 9);
  Tensor out;
  in[2] = Random<float>({3}, 1);  // two output channels
  EXPECT_THAT(RunFused(g, {"BiasAdd"}, in, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("bias must have as many elements")));
  in[2] = Random<float>({1, 2}, 1);
  EXPECT_THAT(RunFused(g, {"BiasAdd"}, in, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("bias must be 1-dimensional")));
  std::vector<Tensor> bn = Inputs(g, {"FusedBatchNorm"}, 10);
  bn[5] = Random<float>({4}, 1);
  EXPECT_THAT(RunFused(g, {"FusedBatchNorm"}, bn, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("variance must have as many elements")));
  // Conv2D's own checks still apply.
  in = Inputs(g, {"BiasAdd"}, 11);
  in[1] = Random<float>({2, 2, 3, 2}, 1);
  EXPECT_THAT(RunFused(g, {"BiasAdd"}, in, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("evenly divisible")));
}

}  // namespace
}  // namespace opkit
