// _FusedMatMul against MatMul, BiasAdd and the activation run one after
// another on random inputs, through EagerContext; and its refusals.
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

Tensor Random(const std::vector<int64_t>& dims, uint32_t seed) {
  TensorShape shape;
  for (int64_t d : dims) shape.AddDim(d);
  Tensor t(DT_FLOAT, shape);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.flat<float>()(i) = dist(gen);
  return t;
}

class FusedMatMulTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ctx = EagerContext::Create();
    ASSERT_THAT(ctx, IsOk());
    ctx_ = std::move(ctx).value();
  }

  Status RunFused(const std::vector<std::string>& fused_ops,
                  const std::vector<Tensor>& inputs, bool ta, bool tb,
                  Tensor* out, float alpha = 0.2f) {
    EagerAttrs attrs = {
        {"transpose_a", Attr(ta)},
        {"transpose_b", Attr(tb)},
        {"fused_ops", Attr(fused_ops)},
        {"num_args", Attr(static_cast<int64>(inputs.size()) - 2)},
        {"leakyrelu_alpha", Attr(alpha)}};
    std::vector<Tensor> outs;
    OPKIT_RETURN_IF_ERROR(ctx_->Run("_FusedMatMul", inputs, attrs, &outs));
    *out = outs[0];
    return OkStatus();
  }

  Status RunUnfused(const std::vector<std::string>& fused_ops,
                    const std::vector<Tensor>& inputs, bool ta, bool tb,
                    Tensor* out) {
    std::vector<Tensor> outs;
    OPKIT_RETURN_IF_ERROR(ctx_->Run(
        "MatMul", {inputs[0], inputs[1]},
        {{"transpose_a", Attr(ta)}, {"transpose_b", Attr(tb)}}, &outs));
    OPKIT_RETURN_IF_ERROR(ctx_->Run("BiasAdd", {outs[0], inputs[2]}, {}, &outs));
    Tensor y = outs[0];
    if (fused_ops.size() > 1 && fused_ops[1] == "LeakyRelu") {
      // LeakyRelu's definition with the default alpha 0.2.
      for (int64_t i = 0; i < y.NumElements(); ++i) {
        float& x = y.flat<float>()(i);
        x = x > 0 ? x : 0.2f * x;
      }
    } else if (fused_ops.size() > 1) {
      OPKIT_RETURN_IF_ERROR(ctx_->Run(fused_ops[1], {y}, {}, &outs));
      y = outs[0];
    }
    *out = y;
    return OkStatus();
  }

  std::unique_ptr<EagerContext> ctx_;
};

TEST_F(FusedMatMulTest, EveryCombinationMatchesTheUnfusedOps) {
  const std::vector<std::vector<std::string>> combinations = {
      {"BiasAdd"},
      {"BiasAdd", "Relu"},
      {"BiasAdd", "Relu6"},
      {"BiasAdd", "Elu"},
      {"BiasAdd", "LeakyRelu"}};
  uint32_t seed = 1;
  for (int threads : {1, 3}) {
    SCOPED_TRACE("intra_op_threads " + std::to_string(threads));
    EagerContext::Options options;
    options.intra_op_threads = threads;
    auto ctx = EagerContext::Create(options);
    ASSERT_THAT(ctx, IsOk());
    ctx_ = std::move(ctx).value();
    for (const auto& fused_ops : combinations) {
      for (bool ta : {false, true}) {
        for (bool tb : {false, true}) {
          // [m, k] x [k, n] with m = 37, k = 19, n = 11 (stored transposed
          // where asked); larger cases spread the blocks over threads, the
          // last in uneven blocks (of 436 rows: 512 KB of output, 300
          // floats a row).
          for (const auto& mkn : std::vector<std::vector<int64_t>>{
                   {37, 19, 11}, {300, 64, 200}, {600, 33, 300}}) {
            const int64_t m = mkn[0], k = mkn[1], n = mkn[2];
            SCOPED_TRACE(fused_ops.back() + " ta=" + std::to_string(ta) +
                         " tb=" + std::to_string(tb) +
                         " m=" + std::to_string(m));
            std::vector<Tensor> in = {Random(ta ? std::vector<int64_t>{k, m}
                                                : std::vector<int64_t>{m, k},
                                             seed),
                                      Random(tb ? std::vector<int64_t>{n, k}
                                                : std::vector<int64_t>{k, n},
                                             seed + 1),
                                      Random({n}, seed + 2)};
            seed += 3;
            Tensor fused, unfused;
            ASSERT_THAT(RunFused(fused_ops, in, ta, tb, &fused), IsOk());
            ASSERT_THAT(RunUnfused(fused_ops, in, ta, tb, &unfused), IsOk());
            ASSERT_EQ(fused.shape(), TensorShape({m, n}));
            ASSERT_EQ(unfused.shape(), fused.shape());
            for (int64_t i = 0; i < fused.NumElements(); ++i) {
              const float want = unfused.flat<float>()(i);
              ASSERT_NEAR(fused.flat<float>()(i), want,
                          1e-4 * (1 + std::fabs(want)))
                  << "element " << i;
            }
          }
        }
      }
    }
  }
}

TEST_F(FusedMatMulTest, HandComputedValues) {
  // [[1, 2], [3, 4]] x [[1, 0], [0, 1]] = [[1, 2], [3, 4]]; bias {-2, -3}
  // gives [[-1, -1], [1, 1]]; Relu6 gives [[0, 0], [1, 1]].
  Tensor a = test::AsTensor<float>({1, 2, 3, 4}, TensorShape({2, 2}));
  Tensor b = test::AsTensor<float>({1, 0, 0, 1}, TensorShape({2, 2}));
  Tensor bias = test::AsTensor<float>({-2, -3});
  Tensor out;
  ASSERT_THAT(RunFused({"BiasAdd", "Relu6"}, {a, b, bias}, false, false, &out),
              IsOk());
  EXPECT_EQ(test::Values<float>(out), std::vector<float>({0, 0, 1, 1}));
  // An empty inner dimension: the product is zeros, so the result is the
  // bias.
  Tensor ea(DT_FLOAT, TensorShape({2, 0}));
  Tensor eb(DT_FLOAT, TensorShape({0, 2}));
  ASSERT_THAT(RunFused({"BiasAdd"}, {ea, eb, bias}, false, false, &out),
              IsOk());
  EXPECT_EQ(test::Values<float>(out), std::vector<float>({-2, -3, -2, -3}));
  // No rows at all.
  Tensor none(DT_FLOAT, TensorShape({0, 2}));
  ASSERT_THAT(RunFused({"BiasAdd"}, {none, b, bias}, false, false, &out),
              IsOk());
  EXPECT_EQ(out.shape(), TensorShape({0, 2}));
}

TEST_F(FusedMatMulTest, BiasAddThenAddHandComputed) {
  // [[1, 2], [3, 4]] times the identity, bias {-2, -3}: [[-1, -1], [1, 1]];
  // adding [[0.5, 2], [-4, 0]] gives [[-0.5, 1], [-3, 1]]; Relu then
  // [[0, 1], [0, 1]].
  Tensor a = test::AsTensor<float>({1, 2, 3, 4}, TensorShape({2, 2}));
  Tensor b = test::AsTensor<float>({1, 0, 0, 1}, TensorShape({2, 2}));
  Tensor bias = test::AsTensor<float>({-2, -3});
  Tensor addend = test::AsTensor<float>({0.5, 2, -4, 0}, TensorShape({2, 2}));
  Tensor out;
  ASSERT_THAT(RunFused({"BiasAdd", "Add"}, {a, b, bias, addend}, false, false,
                       &out),
              IsOk());
  EXPECT_EQ(test::Values<float>(out), std::vector<float>({-0.5, 1, -3, 1}));
  ASSERT_THAT(RunFused({"BiasAdd", "Add", "Relu"}, {a, b, bias, addend}, false,
                       false, &out),
              IsOk());
  EXPECT_EQ(test::Values<float>(out), std::vector<float>({0, 1, 0, 1}));
  // Rows split over blocks and threads: row r of the addend meets row r.
  Tensor big_a = Random({600, 8}, 21), big_b = Random({8, 3}, 22);
  Tensor big_bias = Random({3}, 23), big_add = Random({600, 3}, 24);
  std::vector<Tensor> outs;
  ASSERT_THAT(ctx_->Run("MatMul", {big_a, big_b}, {}, &outs), IsOk());
  ASSERT_THAT(ctx_->Run("BiasAdd", {outs[0], big_bias}, {}, &outs), IsOk());
  ASSERT_THAT(ctx_->Run("AddV2", {outs[0], big_add}, {}, &outs), IsOk());
  ASSERT_THAT(RunFused({"BiasAdd", "Add"}, {big_a, big_b, big_bias, big_add},
                       false, false, &out),
              IsOk());
  for (int64_t i = 0; i < out.NumElements(); ++i) {
    const float w = outs[0].flat<float>()(i);
    ASSERT_NEAR(out.flat<float>()(i), w, 1e-5 * (1 + std::fabs(w))) << i;
  }
  // The addend must have the output's shape.
  EXPECT_THAT(RunFused({"BiasAdd", "Add"}, {a, b, bias, bias}, false, false,
                       &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("must have the output's type and shape")));
}

TEST_F(FusedMatMulTest, BadFusedOpsNumArgsAndArgsAreRefused) {
  Tensor a = Random({3, 4}, 1), b = Random({4, 5}, 2), bias = Random({5}, 3);
  Tensor out;
  for (const std::vector<std::string>& bad :
       std::vector<std::vector<std::string>>{{},
                                             {"FusedBatchNorm"},
                                             {"BiasAdd", "Tanh"},
                                             {"Relu"}}) {
    EXPECT_THAT(RunFused(bad, {a, b, bias}, false, false, &out),
                StatusIs(error::UNIMPLEMENTED,
                         HasSubstr("Fusion is not implemented")));
  }
  EXPECT_THAT(RunFused({"BiasAdd"}, {a, b, bias, bias}, false, false, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("num_args is 2")));
  EXPECT_THAT(RunFused({"BiasAdd"}, {a, b, Random({4}, 4)}, false, false, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("bias must have as many elements")));
  EXPECT_THAT(RunFused({"BiasAdd"}, {a, a, bias}, false, false, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Matrix size-incompatible")));
  EXPECT_THAT(RunFused({"BiasAdd"}, {Random({3}, 5), b, bias}, false, false,
                       &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("not a matrix")));
}

}  // namespace
}  // namespace opkit
