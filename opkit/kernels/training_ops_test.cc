// The optimizer updates (ResourceApplyGradientDescent, ResourceApplyMomentum,
// ResourceApplyKerasMomentum, ResourceApplyAdam) against their formulas
// computed here in double, and their checks of variables and inputs.
#include <cmath>
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
using ::testing::HasSubstr;
using ::testing::Pointwise;
using ::testing::FloatNear;

class TrainingOpsTest : public test::EagerOpTest {
 protected:
  // A float variable `name` holding `value`.
  Tensor Var(const char* name, const Tensor& value) {
    EXPECT_THAT(Run("VarHandleOp", {},
                    {{"dtype", test::Attr(value.dtype())},
                     {"shape", test::Attr(PartialTensorShape({-1}))},
                     {"shared_name", test::Attr(name)}}),
                IsOk());
    Tensor h = out_[0];
    EXPECT_THAT(Run("AssignVariableOp", {h, value},
                    {{"dtype", test::Attr(value.dtype())}}),
                IsOk());
    return h;
  }
  std::vector<float> Read(const Tensor& h) {
    EXPECT_THAT(Run("ReadVariableOp", {h}, {{"dtype", test::Attr(DT_FLOAT)}}),
                IsOk());
    return test::Values<float>(out_[0]);
  }
  static Tensor F(float v) { return test::AsTensor<float>({v}, TensorShape({})); }
};

TEST_F(TrainingOpsTest, GradientDescent) {
  Tensor v = Var("v", test::AsTensor<float>({1, 2, 3}));
  ASSERT_THAT(Run("ResourceApplyGradientDescent",
                  {v, F(0.5f), test::AsTensor<float>({2, -2, 0})}),
              IsOk());
  EXPECT_THAT(Read(v), ElementsAre(0, 3, 3));
}

TEST_F(TrainingOpsTest, AReadTakenBeforeTheUpdateKeepsItsValue) {
  Tensor v = Var("v", test::AsTensor<float>({1, 2}));
  ASSERT_THAT(Run("ReadVariableOp", {v}, {{"dtype", test::Attr(DT_FLOAT)}}),
              IsOk());
  const Tensor before = out_[0];
  ASSERT_THAT(Run("ResourceApplyGradientDescent",
                  {v, F(1.0f), test::AsTensor<float>({1, 1})}),
              IsOk());
  EXPECT_THAT(test::Values<float>(before), ElementsAre(1, 2));
  EXPECT_THAT(Read(v), ElementsAre(0, 1));
}

TEST_F(TrainingOpsTest, MomentumAndKerasMomentum) {
  for (bool nesterov : {false, true}) {
    Tensor v = Var("v", test::AsTensor<float>({1, -1}));
    Tensor a = Var("a", test::AsTensor<float>({0.5f, 0}));
    Tensor kv = Var("kv", test::AsTensor<float>({1, -1}));
    Tensor ka = Var("ka", test::AsTensor<float>({0.5f, 0}));
    const Tensor g = test::AsTensor<float>({2, 4});
    const double lr = 0.1, mom = 0.9;
    EagerAttrs attrs = {{"use_nesterov", test::Attr(nesterov)}};
    ASSERT_THAT(Run("ResourceApplyMomentum", {v, a, F(lr), g, F(mom)}, attrs), IsOk());
    ASSERT_THAT(Run("ResourceApplyKerasMomentum", {kv, ka, F(lr), g, F(mom)}, attrs),
                IsOk());
    std::vector<float> want_v, want_a, want_kv, want_ka;
    const double var0[] = {1, -1}, acc0[] = {0.5, 0}, grad[] = {2, 4};
    for (int i = 0; i < 2; ++i) {
      const double acc = acc0[i] * mom + grad[i];
      want_a.push_back(acc);
      want_v.push_back(var0[i] - (nesterov ? grad[i] * lr + acc * mom * lr : lr * acc));
      const double kacc = acc0[i] * mom - lr * grad[i];
      want_ka.push_back(kacc);
      want_kv.push_back(var0[i] + (nesterov ? kacc * mom - lr * grad[i] : kacc));
    }
    EXPECT_THAT(Read(v), Pointwise(FloatNear(1e-6), want_v)) << nesterov;
    EXPECT_THAT(Read(a), Pointwise(FloatNear(1e-6), want_a)) << nesterov;
    EXPECT_THAT(Read(kv), Pointwise(FloatNear(1e-6), want_kv)) << nesterov;
    EXPECT_THAT(Read(ka), Pointwise(FloatNear(1e-6), want_ka)) << nesterov;
  }
}

TEST_F(TrainingOpsTest, AdamTwoSteps) {
  for (bool nesterov : {false, true}) {
    Tensor v = Var("v", test::AsTensor<float>({1, -2, 0.5f}));
    Tensor m = Var("m", test::AsTensor<float>({0, 0, 0}));
    Tensor s = Var("s", test::AsTensor<float>({0, 0, 0}));
    double var[] = {1, -2, 0.5}, mv[] = {0, 0, 0}, sv[] = {0, 0, 0};
    const double lr = 0.01, b1 = 0.9, b2 = 0.999, eps = 1e-7;
    const double grads[2][3] = {{0.1, -0.3, 2.0}, {0.2, 0.1, -1.0}};
    for (int step = 1; step <= 2; ++step) {
      const double b1p = std::pow(b1, step), b2p = std::pow(b2, step);
      const double* g = grads[step - 1];
      ASSERT_THAT(Run("ResourceApplyAdam",
                      {v, m, s, F(b1p), F(b2p), F(lr), F(b1), F(b2), F(eps),
                       test::AsTensor<float>({static_cast<float>(g[0]),
                                              static_cast<float>(g[1]),
                                              static_cast<float>(g[2])})},
                      {{"use_nesterov", test::Attr(nesterov)}}),
                  IsOk());
      const double lr_t = lr * std::sqrt(1 - b2p) / (1 - b1p);
      for (int i = 0; i < 3; ++i) {
        mv[i] += (g[i] - mv[i]) * (1 - b1);
        sv[i] += (g[i] * g[i] - sv[i]) * (1 - b2);
        const double step_m = nesterov ? mv[i] * b1 + (1 - b1) * g[i] : mv[i];
        var[i] -= lr_t * step_m / (std::sqrt(sv[i]) + eps);
      }
    }
    EXPECT_THAT(Read(v), Pointwise(FloatNear(1e-5), std::vector<float>(var, var + 3)));
    EXPECT_THAT(Read(m), Pointwise(FloatNear(1e-6), std::vector<float>(mv, mv + 3)));
    EXPECT_THAT(Read(s), Pointwise(FloatNear(1e-6), std::vector<float>(sv, sv + 3)));
  }
}

TEST_F(TrainingOpsTest, BadInputsAreErrorsThatSayWhat) {
  Tensor v = Var("v", test::AsTensor<float>({1, 2}));
  EXPECT_THAT(Run("ResourceApplyGradientDescent",
                  {v, F(0.1f), test::AsTensor<float>({1, 2, 3})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("same shape")));
  EXPECT_THAT(Run("ResourceApplyGradientDescent",
                  {v, test::AsTensor<float>({0.1f, 0.2f}), test::AsTensor<float>({1, 2})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("alpha is not a scalar")));
  ASSERT_THAT(Run("VarHandleOp", {},
                  {{"dtype", test::Attr(DT_FLOAT)},
                   {"shape", test::Attr(PartialTensorShape({-1}))},
                   {"shared_name", test::Attr("fresh")}}),
              IsOk());
  const Tensor fresh = out_[0];
  EXPECT_THAT(Run("ResourceApplyGradientDescent",
                  {fresh, F(0.1f), test::AsTensor<float>({1, 2})}),
              StatusIs(error::FAILED_PRECONDITION, HasSubstr("initialize it")));
  Tensor d = Var("d", test::AsTensor<double>({1, 2}));
  EXPECT_THAT(Run("ResourceApplyGradientDescent",
                  {d, F(0.1f), test::AsTensor<float>({1, 2})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("is double")));
  EXPECT_THAT(Read(v), ElementsAre(1, 2));  // nothing changed
}

TEST_F(TrainingOpsTest, OneVariableAsItsOwnSlotDoesNotDeadlock) {
  Tensor v = Var("v", test::AsTensor<float>({1, 2}));
  ASSERT_THAT(Run("ResourceApplyKerasMomentum",
                  {v, v, F(0.1f), test::AsTensor<float>({1, 1}), F(0.0f)}),
              IsOk());
  // accum (= v) becomes -lr * g, then var (the same buffer) adds it again.
  EXPECT_THAT(Read(v), ElementsAre(FloatNear(-0.2f, 1e-6), FloatNear(-0.2f, 1e-6)));
}

}  // namespace
}  // namespace opkit
