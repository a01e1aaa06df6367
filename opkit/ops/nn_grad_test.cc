// The neural-network ops' gradients against finite differences, in float
// and double (convolution and pooling in NHWC, as the CPU kernels run them).
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/testing/gradient_test_util.h"

namespace opkit {
namespace {

using test::GradientError;
using test::Random;
using test::Tolerance;

template <typename T>
class NnGradTest : public ::testing::Test {
 protected:
  static double Tol() { return Tolerance(DataTypeToEnum<T>::value); }
  static double Unary(const char* op, const TensorShape& shape,
                      std::vector<std::pair<std::string, AttrValue>> attrs = {}) {
    return GradientError({Random<T>(shape)}, [op, attrs](GraphBuilder& b, const std::vector<Output>& x) {
      const Output y = b.Add(op, {x[0]}, attrs);
      // Weighted, so that every element's gradient differs.
      return b.Add("Mul", {y, b.Add("Square", {b.Add("Add", {y, x[0]})})});
    });
  }
};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(NnGradTest, FloatTypes);

TYPED_TEST(NnGradTest, Activations) {
  for (const char* op : {"Relu", "Relu6", "Elu", "Selu", "Softmax", "LogSoftmax"}) {
    SCOPED_TRACE(op);
    EXPECT_LT(this->Unary(op, TensorShape({2, 4})), this->Tol());
  }
  EXPECT_LT(this->Unary("LeakyRelu", TensorShape({2, 4}), {{"alpha", Attr(0.3f)}}), this->Tol());
}

TYPED_TEST(NnGradTest, BiasAdd) {
  const double nchw = GradientError(
      {Random<TypeParam>(TensorShape({2, 3, 2, 2})), Random<TypeParam>(TensorShape({3}), -1, 1, 0.1, 4)},
      [](GraphBuilder& b, const std::vector<Output>& x) {
        const Output y = b.Add("BiasAdd", {x[0], x[1]}, {{"data_format", Attr("NCHW")}});
        return b.Add("Mul", {y, y});
      });
  EXPECT_LT(nchw, this->Tol());
  const double nhwc = GradientError(
      {Random<TypeParam>(TensorShape({2, 2, 3})), Random<TypeParam>(TensorShape({3}), -1, 1, 0.1, 4)},
      [](GraphBuilder& b, const std::vector<Output>& x) {
        const Output y = b.Add("BiasAdd", {x[0], x[1]});
        return b.Add("Mul", {y, y});
      });
  EXPECT_LT(nhwc, this->Tol());
}

TYPED_TEST(NnGradTest, ActivationGradOpsBothInputs) {
  // The gradients input flows through the op's mask or slope; the features
  // (or outputs) get zeros, or for EluGrad/SeluGrad the incoming gradient
  // where they are negative.
  for (const char* op : {"ReluGrad", "Relu6Grad", "LeakyReluGrad", "EluGrad", "SeluGrad"}) {
    SCOPED_TRACE(op);
    std::vector<std::pair<std::string, AttrValue>> attrs;
    if (std::string(op) == "LeakyReluGrad") attrs = {{"alpha", Attr(0.3f)}};
    const double error = GradientError(
        {Random<TypeParam>(TensorShape({2, 4})), Random<TypeParam>(TensorShape({2, 4}), -1, 1, 0.1, 5)},
        [op, attrs](GraphBuilder& b, const std::vector<Output>& x) {
          const Output z = b.Add(op, {x[0], x[1]}, attrs);
          return b.Add("Mul", {z, b.Add("Square", {z})});
        });
    EXPECT_LT(error, this->Tol());
  }
}

TYPED_TEST(NnGradTest, BiasAddGradBothLayouts) {
  struct Case {
    const char* format;
    TensorShape shape;
  };
  for (const Case& k : {Case{"NHWC", {2, 3, 4}}, Case{"NCHW", {2, 3, 2, 2}}, Case{"NCHW", {3, 4}},
                        Case{"NHWC", {4, 3}}}) {
    SCOPED_TRACE(::testing::Message() << k.format << " " << k.shape.DebugString());
    const double error = GradientError(
        {Random<TypeParam>(k.shape)}, [&k](GraphBuilder& b, const std::vector<Output>& x) {
          const Output z = b.Add("BiasAddGrad", {x[0]}, {{"data_format", Attr(k.format)}});
          return b.Add("Mul", {z, b.Add("Square", {z})});
        });
    EXPECT_LT(error, this->Tol());
  }
}

TYPED_TEST(NnGradTest, SoftmaxCrossEntropies) {
  const double dense = GradientError(
      {Random<TypeParam>(TensorShape({3, 4}))},
      [](GraphBuilder& b, const std::vector<Output>& x) {
        Tensor labels(x[0].dtype, TensorShape({3, 4}));
        for (int i = 0; i < 12; ++i) {
          if (x[0].dtype == DT_FLOAT) labels.flat<float>()(i) = (i % 4 == i / 4) ? 0.7f : 0.1f;
          else labels.flat<double>()(i) = (i % 4 == i / 4) ? 0.7 : 0.1;
        }
        return b.AddN("SoftmaxCrossEntropyWithLogits", {x[0], b.Const(labels)})[0];
      });
  EXPECT_LT(dense, this->Tol());
  const double sparse = GradientError(
      {Random<TypeParam>(TensorShape({3, 4}))},
      [](GraphBuilder& b, const std::vector<Output>& x) {
        return b.AddN("SparseSoftmaxCrossEntropyWithLogits", {x[0], b.ConstInt({0, 3, 1})})[0];
      });
  EXPECT_LT(sparse, this->Tol());
}

TYPED_TEST(NnGradTest, Conv2D) {
  for (const char* padding : {"VALID", "SAME"}) {
    for (int stride : {1, 2}) {
      SCOPED_TRACE(::testing::Message() << padding << " stride " << stride);
      const double error = GradientError(
          {Random<TypeParam>(TensorShape({1, 5, 4, 2})),
           Random<TypeParam>(TensorShape({3, 2, 2, 3}), -1, 1, 0.1, 5)},
          [padding, stride](GraphBuilder& b, const std::vector<Output>& x) {
            std::string p = padding;
            return b.Add("Conv2D", {x[0], x[1]},
                         {{"strides", Attr({1, stride, stride, 1})}, {"padding", Attr(p)}});
          });
      EXPECT_LT(error, this->Tol());
    }
  }
}

TYPED_TEST(NnGradTest, Conv2DBackpropInputAndFilter) {
  // input [1, 5, 4, 2], filter [3, 2, 2, 3]; dy of the convolution's output shape.
  struct Case {
    const char* padding;
    int stride;
    TensorShape out;
  };
  for (const Case& c : {Case{"VALID", 1, {1, 3, 3, 3}}, Case{"SAME", 2, {1, 3, 2, 3}}}) {
    SCOPED_TRACE(::testing::Message() << c.padding << " stride " << c.stride);
    const auto attrs = std::vector<std::pair<std::string, AttrValue>>{
        {"strides", Attr({1, c.stride, c.stride, 1})}, {"padding", Attr(std::string(c.padding))}};
    const double input = GradientError(
        {Random<TypeParam>(TensorShape({3, 2, 2, 3})), Random<TypeParam>(c.out, -1, 1, 0.1, 5)},
        [&](GraphBuilder& b, const std::vector<Output>& x) {
          const Output y =
              b.Add("Conv2DBackpropInput", {b.ConstInt({1, 5, 4, 2}), x[0], x[1]}, attrs);
          return b.Add("Mul", {y, y});
        });
    EXPECT_LT(input, this->Tol());
    const double filter = GradientError(
        {Random<TypeParam>(TensorShape({1, 5, 4, 2})), Random<TypeParam>(c.out, -1, 1, 0.1, 5)},
        [&](GraphBuilder& b, const std::vector<Output>& x) {
          const Output y =
              b.Add("Conv2DBackpropFilter", {x[0], b.ConstInt({3, 2, 2, 3}), x[1]}, attrs);
          return b.Add("Mul", {y, y});
        });
    EXPECT_LT(filter, this->Tol());
  }
}

TYPED_TEST(NnGradTest, DepthwiseConv2dNativeBackpropInputAndFilter) {
  // input [2, 5, 6, 3], filter [3, 2, 3, 2] (multiplier 2), SAME, stride 2:
  // dy [2, 3, 3, 6].
  const auto attrs = std::vector<std::pair<std::string, AttrValue>>{
      {"strides", Attr({1, 2, 2, 1})}, {"padding", Attr(std::string("SAME"))}};
  const TensorShape out({2, 3, 3, 6});
  const double input = GradientError(
      {Random<TypeParam>(TensorShape({3, 2, 3, 2})), Random<TypeParam>(out, -1, 1, 0.1, 5)},
      [&](GraphBuilder& b, const std::vector<Output>& x) {
        const Output y = b.Add("DepthwiseConv2dNativeBackpropInput",
                               {b.ConstInt({2, 5, 6, 3}), x[0], x[1]}, attrs);
        return b.Add("Mul", {y, y});
      });
  EXPECT_LT(input, this->Tol());
  const double filter = GradientError(
      {Random<TypeParam>(TensorShape({2, 5, 6, 3})), Random<TypeParam>(out, -1, 1, 0.1, 5)},
      [&](GraphBuilder& b, const std::vector<Output>& x) {
        const Output y = b.Add("DepthwiseConv2dNativeBackpropFilter",
                               {x[0], b.ConstInt({3, 2, 3, 2}), x[1]}, attrs);
        return b.Add("Mul", {y, y});
      });
  EXPECT_LT(filter, this->Tol());
}

TYPED_TEST(NnGradTest, TopKV2ValuesGoBackToTheirPositions) {
  struct Case {
    TensorShape shape;
    int k;
  };
  for (const Case& c : {Case{{2, 5}, 2}, Case{{2, 2, 4}, 3}, Case{{6}, 6}, Case{{3, 4}, 0}}) {
    SCOPED_TRACE(::testing::Message() << c.shape.DebugString() << " k=" << c.k);
    if (c.k == 0) {
      // Nothing is taken: TopKV2's gradient is empty-in, zeros-out, next to
      // a path that uses the input directly.
      const double error = GradientError(
          {Random<TypeParam>(c.shape)}, [&c](GraphBuilder& b, const std::vector<Output>& x) {
            const Output v = b.AddN("TopKV2", {x[0], b.ScalarInt(c.k)})[0];
            const Output y = b.Add("ConcatV2", {Input({v, x[0]}), b.ScalarInt(1)});
            return b.Add("Mul", {y, b.Add("Square", {y})});
          });
      EXPECT_LT(error, this->Tol());
      continue;
    }
    const double error = GradientError(
        {Random<TypeParam>(c.shape)}, [&c](GraphBuilder& b, const std::vector<Output>& x) {
          const Output v = b.AddN("TopKV2", {x[0], b.ScalarInt(c.k)})[0];
          return b.Add("Mul", {v, b.Add("Square", {v})});
        });
    EXPECT_LT(error, this->Tol());
  }
}

TYPED_TEST(NnGradTest, AvgPoolGrad) {
  for (const char* padding : {"VALID", "SAME"}) {
    SCOPED_TRACE(padding);
    const TensorShape out = std::string(padding) == "VALID" ? TensorShape({1, 2, 2, 2})
                                                            : TensorShape({1, 2, 3, 2});
    const double error = GradientError(
        {Random<TypeParam>(out)}, [padding](GraphBuilder& b, const std::vector<Output>& x) {
          const Output y = b.Add("AvgPoolGrad", {b.ConstInt({1, 4, 5, 2}), x[0]},
                                 {{"ksize", Attr({1, 2, 2, 1})},
                                  {"strides", Attr({1, 2, 2, 1})},
                                  {"padding", Attr(std::string(padding))}});
          return b.Add("Mul", {y, b.Add("Square", {y})});
        });
    EXPECT_LT(error, this->Tol());
  }
}

TYPED_TEST(NnGradTest, DepthwiseConv2dNative) {
  struct Case {
    const char* padding;
    int stride, dilation, multiplier;
  };
  for (const Case& c : {Case{"VALID", 1, 1, 1}, Case{"SAME", 2, 1, 2},
                        Case{"SAME", 1, 2, 3}, Case{"VALID", 2, 1, 2}}) {
    SCOPED_TRACE(::testing::Message() << c.padding << " stride " << c.stride << " dilation "
                                      << c.dilation << " multiplier " << c.multiplier);
    const double error = GradientError(
        {Random<TypeParam>(TensorShape({2, 5, 6, 3})),
         Random<TypeParam>(TensorShape({3, 2, 3, c.multiplier}), -1, 1, 0.1, 5)},
        [c](GraphBuilder& b, const std::vector<Output>& x) {
          std::string p = c.padding;
          const Output y = b.Add(
              "DepthwiseConv2dNative", {x[0], x[1]},
              {{"strides", Attr({1, c.stride, c.stride, 1})}, {"padding", Attr(p)},
               {"dilations", Attr({1, c.dilation, c.dilation, 1})}});
          return b.Add("Mul", {y, y});
        });
    EXPECT_LT(error, this->Tol());
  }
}

TYPED_TEST(NnGradTest, Pooling) {
  for (const char* op : {"MaxPool", "AvgPool"}) {
    for (const char* padding : {"VALID", "SAME"}) {
      SCOPED_TRACE(::testing::Message() << op << " " << padding);
      const double error = GradientError(
          {Random<TypeParam>(TensorShape({1, 4, 5, 2}))},
          [op, padding](GraphBuilder& b, const std::vector<Output>& x) {
            std::string p = padding;
            return b.Add(op, {x[0]},
                         {{"ksize", Attr({1, 2, 2, 1})}, {"strides", Attr({1, 2, 2, 1})},
                          {"padding", Attr(p)}});
          });
      EXPECT_LT(error, this->Tol());
    }
  }
}

TEST(NnGradTest, FusedBatchNormTraining) {
  // float only: FusedBatchNormV3's T is half, bfloat16 or float.
  const double error = GradientError(
      {Random<float>(TensorShape({2, 2, 2, 3})), Random<float>(TensorShape({3}), 0.5, 1.5, 0.1, 6),
       Random<float>(TensorShape({3}), -1, 1, 0.1, 8)},
      [](GraphBuilder& b, const std::vector<Output>& x) {
        Tensor zeros(DT_FLOAT, TensorShape({3})), ones(DT_FLOAT, TensorShape({3}));
        zeros.flat<float>().setZero();
        ones.flat<float>().setConstant(1.f);
        const Output y = b.AddN("FusedBatchNormV3",
                                {x[0], x[1], x[2], b.Const(zeros), b.Const(ones)},
                                {{"is_training", Attr(true)}})[0];
        return b.Add("Mul", {y, b.Add("Square", {x[0]})});
      });
  EXPECT_LT(error, 5e-2);
}

}  // namespace
}  // namespace opkit
