// numeric_op.h through compat/: activation kernels written the way
// activation libraries write them (a functor in namespace
// tensorflow::addons::functor, a kernel on UnaryElementWiseOp / BinaryElementWiseOp
// with Operate / Operate<NDIMS>, TF_CALL_* registration) run eagerly and give
// the values TensorFlow documents for relu6, gelu and their gradients.
#include <cmath>
#include <memory>
#include <vector>

#include "tensorflow/core/framework/numeric_op.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/register_types.h"
#include "tensorflow/core/framework/shape_inference.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/framework/tensor_types.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/runtime/eager_context.h"
#include "opkit/testing/status_matchers.h"

// --- The op library, as it would be written for TensorFlow -----------------

// As TensorFlow Addons does: the library's own namespace inside tensorflow.
namespace tensorflow {
namespace addons {
namespace functor {

template <typename Device, typename T>
struct Relu6Functor {
  void operator()(const Device& d, typename TTypes<T>::ConstTensor features,
                  typename TTypes<T>::Tensor activations) {
    activations.device(d) =
        features.cwiseMax(static_cast<T>(0)).cwiseMin(static_cast<T>(6));
  }
};

template <typename Device, typename T>
struct Relu6GradFunctor {
  void operator()(const Device& d, typename TTypes<T>::ConstTensor gradients,
                  typename TTypes<T>::ConstTensor features,
                  typename TTypes<T>::Tensor backprops) {
    backprops.device(d) =
        gradients * ((features > static_cast<T>(0)) &&
                     (features < static_cast<T>(6)))
                        .template cast<T>();
  }
};

// Exact gelu: 0.5 * x * (1 + erf(x / sqrt(2))).
template <typename Device, typename T>
struct GeluFunctor {
  void operator()(const Device& d, typename TTypes<T>::ConstTensor features,
                  typename TTypes<T>::Tensor activations) {
    activations.device(d) =
        static_cast<T>(0.5) * features *
        (static_cast<T>(1) + (features * static_cast<T>(M_SQRT1_2)).erf());
  }
};

template <typename Device, typename T>
struct GeluGradFunctor {
  void operator()(const Device& d, typename TTypes<T>::ConstTensor gradients,
                  typename TTypes<T>::ConstTensor features,
                  typename TTypes<T>::Tensor backprops) {
    const T kAlpha = static_cast<T>(M_2_SQRTPI * M_SQRT1_2 * 0.5);
    auto cdf = static_cast<T>(0.5) *
               (static_cast<T>(1) + (features * static_cast<T>(M_SQRT1_2)).erf());
    auto pdf = kAlpha * (features.square() * static_cast<T>(-0.5)).exp();
    backprops.device(d) = gradients * (cdf + features * pdf);
  }
};

}  // namespace functor

typedef Eigen::ThreadPoolDevice CPUDevice;

template <typename Device, typename T>
class Relu6Op : public UnaryElementWiseOp<T, Relu6Op<Device, T>> {
 public:
  using UnaryElementWiseOp<T, Relu6Op<Device, T>>::UnaryElementWiseOp;

  void Operate(OpKernelContext* context, const Tensor& input, Tensor* output) {
    functor::Relu6Functor<Device, T> functor;
    functor(context->eigen_device<Device>(), input.flat<T>(),
            output->flat<T>());
  }
};

template <typename Device, typename T>
class Relu6GradOp : public BinaryElementWiseOp<T, Relu6GradOp<Device, T>> {
 public:
  using BinaryElementWiseOp<T, Relu6GradOp<Device, T>>::BinaryElementWiseOp;

  void OperateNoTemplate(OpKernelContext* context, const Tensor& g,
                         const Tensor& a, Tensor* output) {
    functor::Relu6GradFunctor<Device, T> functor;
    functor(context->eigen_device<Device>(), g.flat<T>(), a.flat<T>(),
            output->flat<T>());
  }

  template <int NDIMS>
  void Operate(OpKernelContext* context, const Tensor& g, const Tensor& a,
               Tensor* output) {
    OperateNoTemplate(context, g, a, output);
  }
};

template <typename Device, typename T>
class GeluOp : public UnaryElementWiseOp<T, GeluOp<Device, T>> {
 public:
  explicit GeluOp(OpKernelConstruction* context)
      : UnaryElementWiseOp<T, GeluOp<Device, T>>(context) {
    OP_REQUIRES_OK(context, context->GetAttr("approximate", &approximate_));
    OP_REQUIRES(context, !approximate_,
                errors::Unimplemented("only the exact gelu is built here"));
  }

  void Operate(OpKernelContext* context, const Tensor& input, Tensor* output) {
    functor::GeluFunctor<Device, T> functor;
    functor(context->eigen_device<Device>(), input.flat<T>(),
            output->flat<T>());
  }

 private:
  bool approximate_;
};

template <typename Device, typename T>
class GeluGradOp : public BinaryElementWiseOp<T, GeluGradOp<Device, T>> {
 public:
  using BinaryElementWiseOp<T, GeluGradOp<Device, T>>::BinaryElementWiseOp;

  template <int NDIMS>
  void Operate(OpKernelContext* context, const Tensor& g, const Tensor& a,
               Tensor* output) {
    functor::GeluGradFunctor<Device, T> functor;
    functor(context->eigen_device<Device>(), g.flat<T>(), a.flat<T>(),
            output->flat<T>());
  }
};

REGISTER_OP("CompatRelu6")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: realnumbertype")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("CompatRelu6Grad")
    .Input("gradients: T")
    .Input("features: T")
    .Output("backprops: T")
    .Attr("T: realnumbertype")
    .SetShapeFn(shape_inference::MergeBothInputsShapeFn);

REGISTER_OP("Addons>CompatGelu")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: {half, float, double}")
    .Attr("approximate: bool = false")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("Addons>CompatGeluGrad")
    .Input("gradients: T")
    .Input("features: T")
    .Output("backprops: T")
    .Attr("T: {half, float, double}")
    .SetShapeFn(shape_inference::MergeBothInputsShapeFn);

// An op whose types do not fit a UnaryOp<float>: float in, int32 out.
REGISTER_OP("CompatBadSignature")
    .Input("x: float")
    .Output("y: int32");

#define REGISTER_RELU6_KERNELS(type)                                   \
  REGISTER_KERNEL_BUILDER(                                             \
      Name("CompatRelu6").Device(DEVICE_CPU).TypeConstraint<type>("T"), \
      Relu6Op<CPUDevice, type>);                                       \
  REGISTER_KERNEL_BUILDER(Name("CompatRelu6Grad")                      \
                              .Device(DEVICE_CPU)                      \
                              .TypeConstraint<type>("T"),              \
                          Relu6GradOp<CPUDevice, type>);
TF_CALL_float(REGISTER_RELU6_KERNELS);
TF_CALL_int32(REGISTER_RELU6_KERNELS);
#undef REGISTER_RELU6_KERNELS

#define REGISTER_GELU_KERNELS(type)                                          \
  REGISTER_KERNEL_BUILDER(                                                   \
      Name("Addons>CompatGelu").Device(DEVICE_CPU).TypeConstraint<type>("T"), \
      GeluOp<CPUDevice, type>);                                              \
  REGISTER_KERNEL_BUILDER(Name("Addons>CompatGeluGrad")                      \
                              .Device(DEVICE_CPU)                            \
                              .TypeConstraint<type>("T"),                    \
                          GeluGradOp<CPUDevice, type>);
TF_CALL_float(REGISTER_GELU_KERNELS);
TF_CALL_double(REGISTER_GELU_KERNELS);
#undef REGISTER_GELU_KERNELS

REGISTER_KERNEL_BUILDER(Name("CompatBadSignature").Device(DEVICE_CPU),
                        Relu6Op<CPUDevice, float>);

}  // namespace addons
}  // namespace tensorflow

// --- The tests ---------------------------------------------------------------

namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::HasSubstr;
using ::tensorflow::DT_FLOAT;
using ::tensorflow::Tensor;
using ::tensorflow::TensorShape;

class CompatNumericOpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ctx = ::opkit::EagerContext::Create();
    ASSERT_THAT(ctx.status(), IsOk());
    ctx_ = std::move(ctx).value();
  }

  static Tensor Floats(const TensorShape& shape, std::vector<float> v) {
    Tensor t(DT_FLOAT, shape);
    for (size_t i = 0; i < v.size(); ++i) t.flat<float>()(i) = v[i];
    return t;
  }
  static std::vector<float> Values(const Tensor& t) {
    return std::vector<float>(t.flat<float>().data(),
                              t.flat<float>().data() + t.NumElements());
  }

  std::unique_ptr<::opkit::EagerContext> ctx_;
};

TEST_F(CompatNumericOpTest, Relu6ClipsToZeroAndSix) {
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("CompatRelu6",
                        {Floats(TensorShape({2, 3}), {-3, 0, 2.5, 6, 7, 100})},
                        &out),
              IsOk());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), TensorShape({2, 3}));
  EXPECT_THAT(Values(out[0]), ElementsAre(0, 0, 2.5, 6, 6, 6));

  Tensor ints(::tensorflow::DT_INT32, TensorShape({3}));
  ints.flat<::tensorflow::int32>().setValues({-1, 4, 9});
  ASSERT_THAT(ctx_->Run("CompatRelu6", {ints}, &out), IsOk());
  EXPECT_EQ(out[0].flat<::tensorflow::int32>()(0), 0);
  EXPECT_EQ(out[0].flat<::tensorflow::int32>()(1), 4);
  EXPECT_EQ(out[0].flat<::tensorflow::int32>()(2), 6);
}

TEST_F(CompatNumericOpTest, Relu6GradPassesGradientsInsideTheRange) {
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("CompatRelu6Grad",
                        {Floats(TensorShape({4}), {1, 2, 3, 4}),
                         Floats(TensorShape({4}), {-1, 3, 6, 5.5})},
                        &out),
              IsOk());
  EXPECT_THAT(Values(out[0]), ElementsAre(0, 2, 0, 4));
  EXPECT_THAT(ctx_->Run("CompatRelu6Grad",
                        {Floats(TensorShape({2}), {1, 2}),
                         Floats(TensorShape({3}), {1, 2, 3})},
                        &out),
              StatusIs(::tensorflow::error::INVALID_ARGUMENT,
                       HasSubstr("must have the same size and shape.  Input "
                                 "0: [2] != input 1: [3]")));
}

TEST_F(CompatNumericOpTest, GeluAndItsGradientMatchTheirDefinition) {
  std::vector<Tensor> out;
  const Tensor x = Floats(TensorShape({4}), {-1, 0, 1, 2});
  ASSERT_THAT(ctx_->Run("Addons>CompatGelu", {x}, &out), IsOk());
  // gelu(x) = x * Phi(x).
  EXPECT_THAT(Values(out[0]),
              ElementsAre(FloatNear(-0.15865525f, 1e-5f), 0.0f,
                          FloatNear(0.84134475f, 1e-5f),
                          FloatNear(1.95449974f, 1e-5f)));
  ASSERT_THAT(ctx_->Run("Addons>CompatGeluGrad",
                        {Floats(TensorShape({4}), {1, 1, 2, 1}), x}, &out),
              IsOk());
  // d/dx gelu(x) = Phi(x) + x * phi(x).
  EXPECT_THAT(Values(out[0]),
              ElementsAre(FloatNear(-0.08331547f, 1e-5f), 0.5f,
                          FloatNear(2 * 1.08331547f, 1e-5f),
                          FloatNear(1.08523180f, 1e-5f)));
}

TEST_F(CompatNumericOpTest, ConstructionChecksTheSignature) {
  std::vector<Tensor> out;
  EXPECT_THAT(ctx_->Run("CompatBadSignature",
                        {Floats(TensorShape({1}), {1})}, &out),
              StatusIs(::tensorflow::error::INVALID_ARGUMENT,
                       HasSubstr("Signature mismatch, have: float->int32 "
                                 "expected: float->float")));
}

}  // namespace
