// Relu, Relu6, Elu, LeakyRelu and Selu kernels and their gradients, run
// through EagerContext.
#include <cmath>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/testing/kernel_test_util.h"
#include "opkit/runtime/eager_context.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::HasSubstr;

class ActivationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ctx = EagerContext::Create();
    ASSERT_THAT(ctx, IsOk());
    ctx_ = std::move(ctx).value();
  }

  // Runs `op` on `in` and returns its one output as doubles.
  template <typename T>
  std::vector<double> Run(const char* op, const Tensor& in) {
    std::vector<Tensor> out;
    Status s = ctx_->Run(op, {in}, &out);
    EXPECT_THAT(s, IsOk());
    std::vector<double> values;
    if (!s.ok()) return values;
    EXPECT_EQ(out[0].shape(), in.shape());
    EXPECT_EQ(out[0].dtype(), in.dtype());
    for (T v : test::Values<T>(out[0])) {
      if constexpr (std::is_same_v<T, double>) {
        values.push_back(v);
      } else {
        values.push_back(static_cast<double>(static_cast<float>(v)));
      }
    }
    return values;
  }

  std::unique_ptr<EagerContext> ctx_;
};

TEST_F(ActivationTest, ReluFloat) {
  Tensor in = test::AsTensor<float>({-2.f, -0.5f, 0.f, 0.5f, 3.f, 7.f},
                                    TensorShape({2, 3}));
  EXPECT_THAT(Run<float>("Relu", in),
              ::testing::ElementsAre(0, 0, 0, 0.5, 3, 7));
  EXPECT_THAT(Run<float>("Relu6", in),
              ::testing::ElementsAre(0, 0, 0, 0.5, 3, 6));
}

TEST_F(ActivationTest, EluFloat) {
  Tensor in = test::AsTensor<float>({-1.f, 0.f, 2.f, -30.f}, TensorShape({4}));
  std::vector<double> got = Run<float>("Elu", in);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_NEAR(got[0], std::expm1(-1.0), 1e-6);
  EXPECT_EQ(got[1], 0);
  EXPECT_EQ(got[2], 2);
  EXPECT_NEAR(got[3], -1.0, 1e-6);
}

TEST_F(ActivationTest, NanStaysNan) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor in = test::AsTensor<float>({nan, 1.f}, TensorShape({2}));
  for (const char* op : {"Relu", "Relu6", "Elu"}) {
    std::vector<double> got = Run<float>(op, in);
    ASSERT_EQ(got.size(), 2u) << op;
    EXPECT_TRUE(std::isnan(got[0])) << op;
    EXPECT_EQ(got[1], 1) << op;
  }
}

// Long enough for the vectorized paths (and the sharded one): every NaN,
// wherever it sits in a packet, stays NaN; everything else is max(x, 0).
TEST_F(ActivationTest, ReluAndRelu6KeepNanInEveryLane) {
  auto check = [this](auto tag) {
    using T = decltype(tag);
    const int64_t n = 70001;
    Tensor in(DataTypeToEnum<T>::value, TensorShape({n}));
    auto x = in.flat<T>();
    for (int64_t i = 0; i < n; ++i) {
      x(i) = i % 11 == 0 ? static_cast<T>(std::numeric_limits<float>::quiet_NaN())
                         : static_cast<T>(static_cast<float>(i % 7) - 3.f);
    }
    for (const char* op : {"Relu", "Relu6"}) {
      std::vector<double> got = this->template Run<T>(op, in);
      ASSERT_EQ(got.size(), static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        if (i % 11 == 0) {
          ASSERT_TRUE(std::isnan(got[i]))
              << op << " " << i << " " << DataTypeString(in.dtype());
        } else {
          ASSERT_EQ(got[i], std::max(static_cast<double>(i % 7) - 3.0, 0.0))
              << op << " " << i;
        }
      }
    }
  };
  check(float());
  check(double());
  check(half());
  check(bfloat16());
}

template <typename T>
class ReluTypedTest : public ActivationTest {};

using ReluTypes = ::testing::Types<float, double, half, bfloat16, int8, uint8,
                                   int16, uint16, int32, int64, uint32, uint64>;
TYPED_TEST_SUITE(ReluTypedTest, ReluTypes);

TYPED_TEST(ReluTypedTest, ClampsEveryType) {
  using T = TypeParam;
  Tensor in(DataTypeToEnum<T>::value, TensorShape({5}));
  const int values[] = {-3, 0, 2, 6, 9};
  for (int i = 0; i < 5; ++i) {
    // Negative values only for signed types.
    const int v = std::numeric_limits<T>::is_signed || values[i] >= 0
                      ? values[i]
                      : 1;
    in.flat<T>()(i) = static_cast<T>(static_cast<float>(v));
  }
  std::vector<double> relu = this->template Run<T>("Relu", in);
  std::vector<double> relu6 = this->template Run<T>("Relu6", in);
  const bool is_signed = std::numeric_limits<T>::is_signed;
  EXPECT_THAT(relu, ::testing::ElementsAre(is_signed ? 0 : 1, 0, 2, 6, 9));
  EXPECT_THAT(relu6, ::testing::ElementsAre(is_signed ? 0 : 1, 0, 2, 6, 6));
}

template <typename T>
class EluTypedTest : public ActivationTest {};
using EluTypes = ::testing::Types<float, double, half, bfloat16>;
TYPED_TEST_SUITE(EluTypedTest, EluTypes);

TYPED_TEST(EluTypedTest, MatchesExpm1) {
  using T = TypeParam;
  Tensor in(DataTypeToEnum<T>::value, TensorShape({3}));
  in.flat<T>()(0) = static_cast<T>(-2.0f);
  in.flat<T>()(1) = static_cast<T>(0.0f);
  in.flat<T>()(2) = static_cast<T>(1.5f);
  std::vector<double> got = this->template Run<T>("Elu", in);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_NEAR(got[0], std::expm1(-2.0), 1e-2);
  EXPECT_EQ(got[1], 0);
  EXPECT_EQ(got[2], 1.5);
}

TEST_F(ActivationTest, EmptyAndScalar) {
  for (const char* op : {"Relu", "Relu6", "Elu"}) {
    EXPECT_TRUE(Run<float>(op, Tensor(DT_FLOAT, TensorShape({0, 3}))).empty());
    Tensor scalar(DT_FLOAT, TensorShape({}));
    scalar.scalar<float>()() = -4.f;
    std::vector<double> got = Run<float>(op, scalar);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_LE(got[0], 0);
  }
}

TEST_F(ActivationTest, LargeInputUsesEveryElement) {
  // Bigger than the inline limit: computed on the device's pool.
  const int64_t n = 100003;
  Tensor in(DT_FLOAT, TensorShape({n}));
  for (int64_t i = 0; i < n; ++i) {
    in.flat<float>()(i) = static_cast<float>(i % 13) - 6.f;
  }
  std::vector<double> got = Run<float>("Relu6", in);
  ASSERT_EQ(got.size(), static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const double x = static_cast<double>(i % 13) - 6;
    ASSERT_EQ(got[i], std::min(6.0, std::max(0.0, x))) << i;
  }
}

TEST_F(ActivationTest, TypeOutsideTheOpIsRejected) {
  std::vector<Tensor> out;
  EXPECT_THAT(ctx_->Run("Relu", {Tensor(DT_BOOL, TensorShape({2}))}, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("bool")));
  EXPECT_THAT(ctx_->Run("Elu", {Tensor(DT_INT32, TensorShape({2}))}, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("int32")));
}

// LeakyRelu: x for x > 0, alpha * x otherwise (alpha defaults to 0.2).
TEST_F(ActivationTest, LeakyRelu) {
  Tensor in = test::AsTensor<float>({-2.f, -0.5f, 0.f, 0.5f, 3.f, 7.f}, TensorShape({2, 3}));
  EXPECT_THAT(Run<float>("LeakyRelu", in),
              ::testing::ElementsAre(-0.4f, -0.1f, 0, 0.5, 3, 7));
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("LeakyRelu", {in}, {{"alpha", test::Attr(1.5f)}}, &out), IsOk());
  EXPECT_THAT(test::Values<float>(out[0]), ::testing::ElementsAre(-3, -0.75, 0, 0.5, 3, 7));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  ASSERT_THAT(ctx_->Run("LeakyRelu", {test::AsTensor<float>({nan})}, &out), IsOk());
  EXPECT_TRUE(std::isnan(test::Values<float>(out[0])[0]));
  EXPECT_THAT(Run<double>("LeakyRelu", test::AsTensor<double>({-1.0, 1.0})),
              ::testing::ElementsAre(::testing::DoubleNear(-0.2, 1e-7), 1));
  EXPECT_THAT(Run<half>("LeakyRelu", test::AsTensor<half>({half(-4.0f)})),
              ::testing::ElementsAre(::testing::DoubleNear(-0.8, 1e-3)));
  EXPECT_TRUE(Run<float>("LeakyRelu", Tensor(DT_FLOAT, TensorShape({0, 2}))).empty());
  // A large input runs on the pool.
  Tensor big(DT_FLOAT, TensorShape({100000}));
  for (int64_t i = 0; i < big.NumElements(); ++i) big.flat<float>()(i) = (i % 2) ? 1.f : -1.f;
  const std::vector<double> y = Run<float>("LeakyRelu", big);
  ASSERT_EQ(y.size(), 100000u);
  EXPECT_NEAR(y[99998], -0.2, 1e-6);
  EXPECT_EQ(y[99999], 1.0);
  EXPECT_THAT(ctx_->Run("LeakyRelu", {test::AsTensor<int32>({1})}, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("int32")));
}

// Selu: scale * x above 0, scale * alpha * (e^x - 1) at or below.
TEST_F(ActivationTest, Selu) {
  const double scale = 1.0507009873554804934193349852946;
  const double alpha = 1.6732632423543772848170429916717;
  Tensor in = test::AsTensor<double>({-2.0, 0.0, 0.5, 3.0}, TensorShape({2, 2}));
  EXPECT_THAT(Run<double>("Selu", in),
              ::testing::ElementsAre(
                  ::testing::DoubleNear(scale * alpha * std::expm1(-2.0), 1e-12),
                  0, ::testing::DoubleNear(scale * 0.5, 1e-12),
                  ::testing::DoubleNear(scale * 3.0, 1e-12)));
  EXPECT_THAT(Run<float>("Selu", test::AsTensor<float>({-1.f})),
              ::testing::ElementsAre(
                  ::testing::DoubleNear(scale * alpha * std::expm1(-1.0), 1e-6)));
}

class ActivationGradTest : public ActivationTest {
 protected:
  // Runs the gradient op `op` on (gradients, second) and returns its output
  // as doubles.
  std::vector<double> RunGrad(const char* op, const Tensor& gradients,
                              const Tensor& second, const EagerAttrs& attrs = {}) {
    std::vector<Tensor> out;
    Status s = ctx_->Run(op, {gradients, second}, attrs, &out);
    EXPECT_THAT(s, IsOk()) << op;
    std::vector<double> values;
    if (!s.ok()) return values;
    EXPECT_EQ(out[0].shape(), gradients.shape()) << op;
    for (double v : test::Values<double>(out[0])) values.push_back(v);
    return values;
  }

  // d(forward)/dx at each x by central differences, times g.
  std::vector<double> FiniteDifference(const char* forward,
                                       const std::vector<double>& x,
                                       const std::vector<double>& g,
                                       const EagerAttrs& attrs = {}) {
    const double h = 1e-6;
    std::vector<double> result;
    for (size_t i = 0; i < x.size(); ++i) {
      std::vector<Tensor> lo, hi;
      EXPECT_THAT(ctx_->Run(forward, {test::AsTensor<double>({x[i] - h})}, attrs, &lo), IsOk());
      EXPECT_THAT(ctx_->Run(forward, {test::AsTensor<double>({x[i] + h})}, attrs, &hi), IsOk());
      if (lo.empty() || hi.empty()) return {};
      result.push_back(g[i] * (hi[0].flat<double>()(0) - lo[0].flat<double>()(0)) / (2 * h));
    }
    return result;
  }

  static Tensor Matrix(const std::vector<double>& v) {
    Tensor t(DT_DOUBLE, TensorShape({2, static_cast<int64_t>(v.size()) / 2}));
    for (size_t i = 0; i < v.size(); ++i) t.flat<double>()(i) = v[i];
    return t;
  }
};

// Away from the kinks each gradient op matches the forward op's derivative
// (central differences) times the incoming gradient.
TEST_F(ActivationGradTest, MatchFiniteDifferences) {
  const std::vector<double> x = {-2.5, -0.7, 0.3, 1.25, 4.0, 7.5};
  const std::vector<double> g = {0.5, -1.5, 2.0, 3.0, -0.25, 1.0};
  struct Case {
    const char* forward;
    const char* grad;
    bool takes_outputs;  // EluGrad and SeluGrad take the forward outputs.
    EagerAttrs attrs;
  };
  const std::vector<Case> cases = {
      {"Relu", "ReluGrad", false, {}},
      {"Relu6", "Relu6Grad", false, {}},
      {"LeakyRelu", "LeakyReluGrad", false, {}},
      {"LeakyRelu", "LeakyReluGrad", false, {{"alpha", test::Attr(0.35f)}}},
      {"Elu", "EluGrad", true, {}},
      {"Selu", "SeluGrad", true, {}},
  };
  for (const Case& c : cases) {
    Tensor second = Matrix(x);
    if (c.takes_outputs) {
      std::vector<Tensor> y;
      ASSERT_THAT(ctx_->Run(c.forward, {Matrix(x)}, &y), IsOk());
      second = y[0];
    }
    const std::vector<double> got = RunGrad(c.grad, Matrix(g), second, c.attrs);
    const std::vector<double> want = FiniteDifference(c.forward, x, g, c.attrs);
    ASSERT_EQ(got.size(), want.size()) << c.grad;
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_NEAR(got[i], want[i], 1e-6) << c.grad << " at " << x[i];
    }
  }
}

// A float ReluGrad large enough to be split across threads: g where the
// features are positive, else 0 -- NaN where g is NaN, whatever the mask.
TEST_F(ActivationGradTest, LargeFloatReluGradMasksEveryElement) {
  const int64_t n = 100003;
  Tensor g(DT_FLOAT, TensorShape({n}));
  Tensor a(DT_FLOAT, TensorShape({n}));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int64_t i = 0; i < n; ++i) {
    g.flat<float>()(i) = i % 97 == 0 ? nan : static_cast<float>(i % 13) - 6.f;
    a.flat<float>()(i) = i % 89 == 0 ? nan : static_cast<float>(i % 7) - 3.f;
  }
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("ReluGrad", {g, a}, &out), IsOk());
  ASSERT_EQ(out[0].shape(), TensorShape({n}));
  for (int64_t i = 0; i < n; ++i) {
    const float gi = g.flat<float>()(i), ai = a.flat<float>()(i);
    const float got = out[0].flat<float>()(i);
    if (std::isnan(gi)) {
      ASSERT_TRUE(std::isnan(got)) << i;
    } else {
      ASSERT_EQ(got, ai > 0.f ? gi : 0.f) << i;
    }
  }
}

// At the kinks TensorFlow's choices: Relu and Relu6 pass nothing at 0 (and
// Relu6 nothing at 6), LeakyRelu alpha * g at 0, Elu and Selu the positive
// branch at an output of 0.
TEST_F(ActivationGradTest, AtTheKinks) {
  const Tensor g = test::AsTensor<double>({2.0, 2.0});
  EXPECT_THAT(RunGrad("ReluGrad", g, test::AsTensor<double>({0.0, 1e-9})),
              ::testing::ElementsAre(0, 2));
  EXPECT_THAT(RunGrad("Relu6Grad", g, test::AsTensor<double>({0.0, 6.0})),
              ::testing::ElementsAre(0, 0));
  // A NaN gradient stays NaN where the mask is 0 (a product, as TensorFlow).
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const char* op : {"ReluGrad", "Relu6Grad"}) {
    const std::vector<double> got =
        RunGrad(op, test::AsTensor<double>({nan}), test::AsTensor<double>({-1.0}));
    ASSERT_EQ(got.size(), 1u) << op;
    EXPECT_TRUE(std::isnan(got[0])) << op;
  }
  EXPECT_THAT(RunGrad("LeakyReluGrad", g, test::AsTensor<double>({0.0, 1.0})),
              ::testing::ElementsAre(::testing::DoubleNear(0.4, 1e-7), 2));
  EXPECT_THAT(RunGrad("EluGrad", g, test::AsTensor<double>({0.0, -0.5})),
              ::testing::ElementsAre(2, 1));
  EXPECT_THAT(RunGrad("SeluGrad", g, test::AsTensor<double>({0.0, 0.0})),
              ::testing::ElementsAre(::testing::DoubleNear(2 * 1.0507009873554805, 1e-12),
                                     ::testing::DoubleNear(2 * 1.0507009873554805, 1e-12)));
}

TEST_F(ActivationGradTest, OtherTypes) {
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("ReluGrad", {test::AsTensor<int32>({5, 6, 7}),
                                     test::AsTensor<int32>({-1, 0, 3})}, &out),
              IsOk());
  EXPECT_THAT(test::Values<int32>(out[0]), ::testing::ElementsAre(0, 0, 7));
  ASSERT_THAT(ctx_->Run("Relu6Grad", {test::AsTensor<uint8>({5, 6, 7}),
                                      test::AsTensor<uint8>({1, 6, 3})}, &out),
              IsOk());
  EXPECT_THAT(test::Values<uint8>(out[0]), ::testing::ElementsAre(5, 0, 7));
  ASSERT_THAT(ctx_->Run("EluGrad", {test::AsTensor<float>({3.f, 3.f}),
                                    test::AsTensor<float>({-0.5f, 2.f})}, &out),
              IsOk());
  EXPECT_THAT(test::Values<float>(out[0]), ::testing::ElementsAre(1.5f, 3.f));
  ASSERT_THAT(ctx_->Run("SeluGrad", {test::AsTensor<half>({half(1.0f)}),
                                     test::AsTensor<half>({half(2.0f)})}, &out),
              IsOk());
  EXPECT_NEAR(static_cast<float>(test::Values<half>(out[0])[0]), 1.0507, 1e-3);
  // Empty inputs give an empty output.
  ASSERT_THAT(ctx_->Run("LeakyReluGrad", {Tensor(DT_FLOAT, TensorShape({0, 3})),
                                          Tensor(DT_FLOAT, TensorShape({0, 3}))}, &out),
              IsOk());
  EXPECT_EQ(out[0].shape(), TensorShape({0, 3}));
}

TEST_F(ActivationGradTest, LargeInputUsesEveryElement) {
  const int64_t n = 100003;
  Tensor g(DT_FLOAT, TensorShape({n}));
  Tensor x(DT_FLOAT, TensorShape({n}));
  for (int64_t i = 0; i < n; ++i) {
    g.flat<float>()(i) = 2.f;
    x.flat<float>()(i) = static_cast<float>(i % 13) - 6.f;
  }
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("Relu6Grad", {g, x}, &out), IsOk());
  for (int64_t i = 0; i < n; ++i) {
    const float xi = static_cast<float>(i % 13) - 6.f;
    ASSERT_EQ(out[0].flat<float>()(i), (xi > 0 && xi < 6) ? 2.f : 0.f) << i;
  }
}

TEST_F(ActivationGradTest, ShapesMustAgree) {
  std::vector<Tensor> out;
  for (const char* op : {"ReluGrad", "Relu6Grad", "LeakyReluGrad"}) {
    EXPECT_THAT(ctx_->Run(op, {Tensor(DT_FLOAT, TensorShape({2, 3})),
                               Tensor(DT_FLOAT, TensorShape({3, 2}))}, &out),
                StatusIs(error::INVALID_ARGUMENT,
                         HasSubstr("gradients (input 0) and features (input 1) "
                                   "must have the same shape, got [2,3] and [3,2]")))
        << op;
  }
  for (const char* op : {"EluGrad", "SeluGrad"}) {
    EXPECT_THAT(ctx_->Run(op, {Tensor(DT_DOUBLE, TensorShape({4})),
                               Tensor(DT_DOUBLE, TensorShape({2, 2}))}, &out),
                StatusIs(error::INVALID_ARGUMENT,
                         HasSubstr("gradients (input 0) and outputs (input 1)")))
        << op;
  }
}

}  // namespace
}  // namespace opkit
