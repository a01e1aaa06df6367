// Random ops written the way TensorFlow libraries write them -- seeded from
// the "seed"/"seed2" attrs with GuardedPhiloxRandom, drawing through
// random::UniformDistribution and random::SimplePhilox -- run eagerly: fixed
// seeds give TensorFlow's published values and the generator's sequence,
// call after call; seeds 0/0 give a fresh stream per kernel.
#include <cstdint>
#include <memory>
#include <vector>

#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/shape_inference.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/lib/random/philox_random.h"
#include "tensorflow/core/lib/random/random.h"
#include "tensorflow/core/lib/random/random_distributions.h"
#include "tensorflow/core/lib/random/simple_philox.h"
#include "tensorflow/core/util/guarded_philox_random.h"
#include "tsl/lib/random/simple_philox.h"
#include "xla/tsl/lib/random/random_distributions.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/runtime/eager_context.h"
#include "opkit/testing/status_matchers.h"

using namespace tensorflow;

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::HasSubstr;

// --- The op library ------------------------------------------------------------

REGISTER_OP("CompatRandomUniform")
    .Input("shape: int32")
    .Output("output: float")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .SetIsStateful()
    .SetShapeFn(shape_inference::UnknownShape);

// Like TensorFlow's RandomUniform: one stretch of the op's stream per call,
// four floats per Philox call.
class CompatRandomUniformOp : public OpKernel {
 public:
  explicit CompatRandomUniformOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, generator_.Init(context));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& shape_t = context->input(0);
    OP_REQUIRES(context, TensorShapeUtils::IsVector(shape_t.shape()),
                errors::InvalidArgument("shape must be a vector, got ",
                                        shape_t.shape().DebugString()));
    TensorShape shape;
    auto dims = shape_t.vec<int32>();
    for (int i = 0; i < dims.size(); ++i) {
      OP_REQUIRES(context, dims(i) >= 0, errors::InvalidArgument("negative dimension"));
      shape.AddDim(dims(i));
    }
    Tensor* output = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, shape, &output));
    auto flat = output->flat<float>();
    const int64 size = flat.size();

    typedef random::UniformDistribution<random::PhiloxRandom, float> Distribution;
    random::PhiloxRandom gen = generator_.ReserveRandomOutputs(size, 256);
    Distribution dist;
    for (int64 i = 0; i < size; i += Distribution::kResultElementCount) {
      auto samples = dist(&gen);
      for (int j = 0; j < Distribution::kResultElementCount && i + j < size; ++j) {
        flat(i + j) = samples[j];
      }
    }
  }

 private:
  GuardedPhiloxRandom generator_;
};

REGISTER_KERNEL_BUILDER(Name("CompatRandomUniform").Device(DEVICE_CPU), CompatRandomUniformOp);

REGISTER_OP("CompatDropoutMask")
    .Input("x: float")
    .Output("mask: float")
    .Attr("rate: float")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .SetIsStateful()
    .SetShapeFn(shape_inference::UnchangedShape);

// A dropout mask: 0 where a uniform draw falls below `rate`, 1 / (1 - rate)
// elsewhere; one 32-bit value per element.
class CompatDropoutMaskOp : public OpKernel {
 public:
  explicit CompatDropoutMaskOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("rate", &rate_));
    OP_REQUIRES(context, rate_ >= 0.0f && rate_ < 1.0f,
                errors::InvalidArgument("rate must be in [0, 1), got ", rate_));
    OP_REQUIRES_OK(context, generator_.Init(context));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& x = context->input(0);
    Tensor* mask = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, x.shape(), &mask));
    auto out = mask->flat<float>();
    random::PhiloxRandom local = generator_.ReserveSamples32(out.size());
    random::SimplePhilox rng(&local);
    const float scale = 1.0f / (1.0f - rate_);
    for (int64 i = 0; i < out.size(); ++i) {
      out(i) = rng.RandFloat() < rate_ ? 0.0f : scale;
    }
  }

 private:
  float rate_ = 0.0f;
  GuardedPhiloxRandom generator_;
};

REGISTER_KERNEL_BUILDER(Name("CompatDropoutMask").Device(DEVICE_CPU), CompatDropoutMaskOp);

REGISTER_OP("CompatRandomCrop")
    .Input("image: float")
    .Output("cropped: float")
    .Attr("size: list(int)")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .SetIsStateful()
    .SetShapeFn(shape_inference::UnknownShape);

// Crops a [height, width] window at a uniformly chosen offset.
class CompatRandomCropOp : public OpKernel {
 public:
  explicit CompatRandomCropOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("size", &size_));
    OP_REQUIRES(context, size_.size() == 2,
                errors::InvalidArgument("size must have 2 elements, got ", size_.size()));
    OP_REQUIRES_OK(context, generator_.Init(context));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& image = context->input(0);
    OP_REQUIRES(context, TensorShapeUtils::IsMatrix(image.shape()),
                errors::InvalidArgument("image must be 2-D"));
    const int64 height = image.dim_size(0), width = image.dim_size(1);
    const int64 crop_h = size_[0], crop_w = size_[1];
    OP_REQUIRES(context, crop_h <= height && crop_w <= width && crop_h >= 0 && crop_w >= 0,
                errors::InvalidArgument("crop ", crop_h, "x", crop_w, " does not fit ",
                                        height, "x", width));
    random::PhiloxRandom local = generator_.ReserveSamples128(2);
    random::SimplePhilox rng(&local);
    const int64 top = rng.Uniform64(height - crop_h + 1);
    const int64 left = rng.Uniform64(width - crop_w + 1);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(context,
                   context->allocate_output(0, TensorShape({crop_h, crop_w}), &out));
    auto in = image.matrix<float>();
    auto o = out->matrix<float>();
    for (int64 r = 0; r < crop_h; ++r) {
      for (int64 c = 0; c < crop_w; ++c) o(r, c) = in(top + r, left + c);
    }
  }

 private:
  std::vector<int32> size_;
  GuardedPhiloxRandom generator_;
};

REGISTER_KERNEL_BUILDER(Name("CompatRandomCrop").Device(DEVICE_CPU), CompatRandomCropOp);

// --- Tests -------------------------------------------------------------------------

namespace {

AttrValue Int(int64 v) {
  AttrValue a;
  a.set_i(v);
  return a;
}

class CompatRandomTest : public ::testing::Test {
 protected:
  void SetUp() override { ctx_ = NewContext(); }

  static std::unique_ptr<::opkit::EagerContext> NewContext() {
    auto ctx = ::opkit::EagerContext::Create();
    EXPECT_THAT(ctx.status(), IsOk());
    return std::move(ctx).value();
  }

  static Tensor Shape(std::vector<int32> dims) {
    Tensor t(DT_INT32, TensorShape({static_cast<int64>(dims.size())}));
    for (size_t i = 0; i < dims.size(); ++i) t.vec<int32>()(i) = dims[i];
    return t;
  }

  std::unique_ptr<::opkit::EagerContext> ctx_;
};

// tf.random.uniform([3, 3]) with global seed 150 and op seed 10 is
// RandomUniform with seed=150, seed2=10; its values as published for
// TensorFlow alignment in OpenVINO's RandomUniform-8 specification.
TEST_F(CompatRandomTest, UniformGivesTensorFlowsValuesForFixedSeeds) {
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("CompatRandomUniform", {Shape({3, 3})},
                        {{"seed", Int(150)}, {"seed2", Int(10)}}, &out),
              IsOk());
  auto m = out[0].matrix<float>();
  const float expected[3][3] = {{0.7011236f, 0.30539632f, 0.93931055f},
                                {0.9456035f, 0.11694777f, 0.50770056f},
                                {0.5197197f, 0.22727466f, 0.991374f}};
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) EXPECT_FLOAT_EQ(m(r, c), expected[r][c]) << r << "," << c;
  }
}

// The kernel keeps its generator: the next call continues past the 9 * 256
// calls the first one reserved, exactly as a fresh PhiloxRandom skipped
// that far; a new kernel with the same seeds starts over.
TEST_F(CompatRandomTest, UniformContinuesTheStreamAcrossCalls) {
  const ::opkit::EagerAttrs attrs = {{"seed", Int(150)}, {"seed2", Int(10)}};
  std::vector<Tensor> first, second, again;
  ASSERT_THAT(ctx_->Run("CompatRandomUniform", {Shape({9})}, attrs, &first), IsOk());
  ASSERT_THAT(ctx_->Run("CompatRandomUniform", {Shape({6})}, attrs, &second), IsOk());
  random::PhiloxRandom reference(150, 10);
  reference.Skip(9 * 256);
  random::UniformDistribution<random::PhiloxRandom, float> dist;
  auto a = dist(&reference), b = dist(&reference);
  const float expected[6] = {a[0], a[1], a[2], a[3], b[0], b[1]};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(second[0].flat<float>()(i), expected[i]) << i;

  auto other = NewContext();
  ASSERT_THAT(other->Run("CompatRandomUniform", {Shape({9})}, attrs, &again), IsOk());
  for (int i = 0; i < 9; ++i) {
    EXPECT_EQ(again[0].flat<float>()(i), first[0].flat<float>()(i)) << i;
  }
}

TEST_F(CompatRandomTest, ZeroSeedsGiveADifferentStreamPerKernel) {
  std::vector<Tensor> a, b;
  ASSERT_THAT(ctx_->Run("CompatRandomUniform", {Shape({8})}, &a), IsOk());
  auto other = NewContext();
  ASSERT_THAT(other->Run("CompatRandomUniform", {Shape({8})}, &b), IsOk());
  int same = 0;
  for (int i = 0; i < 8; ++i) same += a[0].flat<float>()(i) == b[0].flat<float>()(i);
  EXPECT_LT(same, 8);
}

TEST_F(CompatRandomTest, DropoutMaskFollowsSimplePhilox) {
  Tensor x(DT_FLOAT, TensorShape({2, 5}));
  x.flat<float>().setZero();
  std::vector<Tensor> out;
  AttrValue rate;
  rate.set_f(0.5f);
  ASSERT_THAT(ctx_->Run("CompatDropoutMask", {x},
                        {{"rate", rate}, {"seed", Int(7)}, {"seed2", Int(3)}}, &out),
              IsOk());
  random::PhiloxRandom philox(7, 3);
  random::SimplePhilox rng(&philox);
  auto mask = out[0].flat<float>();
  int kept = 0;
  for (int i = 0; i < 10; ++i) {
    const float expected = rng.RandFloat() < 0.5f ? 0.0f : 2.0f;
    EXPECT_EQ(mask(i), expected) << i;
    kept += mask(i) != 0.0f;
  }
  EXPECT_GT(kept, 0);
  EXPECT_LT(kept, 10);
}

TEST_F(CompatRandomTest, RandomCropIsDeterministicForFixedSeeds) {
  Tensor image(DT_FLOAT, TensorShape({6, 7}));
  auto img = image.matrix<float>();
  for (int r = 0; r < 6; ++r) {
    for (int c = 0; c < 7; ++c) img(r, c) = static_cast<float>(10 * r + c);
  }
  AttrValue size;
  size.mutable_list()->add_i(2);
  size.mutable_list()->add_i(3);
  const ::opkit::EagerAttrs attrs = {{"size", size}, {"seed", Int(42)}, {"seed2", Int(1)}};
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("CompatRandomCrop", {image}, attrs, &out), IsOk());

  // Written with TensorFlow 2.12+'s tsl spellings: the same entities.
  tsl::random::PhiloxRandom philox(42, 1);
  tsl::random::SimplePhilox rng(&philox);
  const int64 top = rng.Uniform64(6 - 2 + 1);
  const int64 left = rng.Uniform64(7 - 3 + 1);
  auto crop = out[0].matrix<float>();
  ASSERT_EQ(out[0].dim_size(0), 2);
  ASSERT_EQ(out[0].dim_size(1), 3);
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 3; ++c) EXPECT_EQ(crop(r, c), img(top + r, left + c));
  }

  std::vector<Tensor> again;
  auto other = NewContext();
  ASSERT_THAT(other->Run("CompatRandomCrop", {image}, attrs, &again), IsOk());
  EXPECT_EQ(again[0].matrix<float>()(0, 0), crop(0, 0));
}

TEST_F(CompatRandomTest, BadAttrsAndInputsAreStatuses) {
  Tensor image(DT_FLOAT, TensorShape({2, 2}));
  image.flat<float>().setZero();
  AttrValue size;
  size.mutable_list()->add_i(3);
  size.mutable_list()->add_i(1);
  std::vector<Tensor> out;
  EXPECT_THAT(ctx_->Run("CompatRandomCrop", {image}, {{"size", size}}, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("does not fit")));
  AttrValue rate;
  rate.set_f(1.5f);
  Tensor x(DT_FLOAT, TensorShape({1}));
  EXPECT_THAT(ctx_->Run("CompatDropoutMask", {x}, {{"rate", rate}}, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("rate must be in [0, 1)")));
}

TEST(CompatRandomNamesTest, TensorFlowAndTslNamesAreOpkits) {
  static_assert(std::is_same<random::PhiloxRandom, ::opkit::random::PhiloxRandom>::value);
  static_assert(std::is_same<tsl::random::PhiloxRandom, ::opkit::random::PhiloxRandom>::value);
  static_assert(
      std::is_same<tsl::random::NormalDistribution<tsl::random::PhiloxRandom, float>,
                   random::NormalDistribution<random::PhiloxRandom, float>>::value);
  EXPECT_EQ(tensorflow::random::PhiloxRandom::kResultElementCount, 4);
  EXPECT_NE(random::New64(), random::New64());
}

}  // namespace
