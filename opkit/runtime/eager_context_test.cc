// Tests of EagerContext: running an op eagerly, its kernel cache, attr
// inference and defaults, and the Status an input or kernel error gives.

#include "opkit/runtime/eager_context.h"

#include <atomic>
#include <limits>
#include <string>
#include <memory>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/core/machine_resources.h"
#include "opkit/device/device.h"
#include "opkit/kernel/kernel_def_builder.h"
#include "opkit/op/op_def_builder.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/testing/kernel_test_util.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using test::AsTensor;
using test::Attr;
using test::Values;

// Adds a constant to every element; which constant depends on the kernel
// class, so a test can tell which kernel ran.
template <int kDelta>
class AddConstOp : public OpKernel {
 public:
  explicit AddConstOp(OpKernelConstruction* c) : OpKernel(c) {}
  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, ctx->input(0).shape(), &out));
    out->flat<float>() = ctx->input(0).flat<float>() + static_cast<float>(kDelta);
  }
};

// Sums N inputs of one type (checks N * T inference).
class SumNOp : public OpKernel {
 public:
  explicit SumNOp(OpKernelConstruction* c) : OpKernel(c) {}
  void Compute(OpKernelContext* ctx) override {
    OpInputList in;
    OP_REQUIRES_OK(ctx, ctx->input_list("values", &in));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in[0].shape(), &out));
    out->flat<float>().setZero();
    for (const Tensor& t : in) out->flat<float>() += t.flat<float>();
  }
};

// Counts its list(type) inputs into an int32 scalar.
class CountOp : public OpKernel {
 public:
  explicit CountOp(OpKernelConstruction* c) : OpKernel(c) {}
  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    out->scalar<int32>()() = ctx->num_inputs();
  }
};

class FailingOp : public OpKernel {
 public:
  explicit FailingOp(OpKernelConstruction* c) : OpKernel(c) {}
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES(ctx, false, errors::InvalidArgument("bad input, fix it"));
  }
};

// y = x * scale + shift + sum(taps); counts its constructions so that a
// test can tell a cache hit from a new kernel.
class AffineOp : public OpKernel {
 public:
  static std::atomic<int> constructions;
  explicit AffineOp(OpKernelConstruction* c) : OpKernel(c) {
    ++constructions;
    OP_REQUIRES_OK(c, c->GetAttr("scale", &scale_));
    OP_REQUIRES_OK(c, c->GetAttr("shift", &shift_));
    std::vector<int64_t> taps;
    OP_REQUIRES_OK(c, c->GetAttr("taps", &taps));
    for (int64_t t : taps) shift_ += static_cast<float>(t);
  }
  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, ctx->input(0).shape(), &out));
    out->flat<float>() = ctx->input(0).flat<float>() * static_cast<float>(scale_) + shift_;
  }

 private:
  int64_t scale_ = 0;
  float shift_ = 0;
};
std::atomic<int> AffineOp::constructions{0};

template <typename K>
OpKernel* Make(OpKernelConstruction* c) {
  return new K(c);
}

KernelRegistration Kernel(KernelDefBuilder builder, KernelFactory factory,
                          const char* class_name) {
  KernelRegistration r;
  r.def = builder.BuildDef();
  r.factory = factory;
  r.kernel_class_name = class_name;
  return r;
}

class EagerContextTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto reg = [&](OpDefBuilder b) {
      OpRegistrationData data;
      ASSERT_THAT(b.Finalize(&data), IsOk());
      ASSERT_THAT(ops_.Register(std::move(data)), IsOk());
    };
    reg(OpDefBuilder("Bump").Input("x: T").Output("y: T").Attr("T: {float, int32}"));
    reg(OpDefBuilder("SumN").Input("values: N * T").Output("sum: T")
            .Attr("N: int >= 1").Attr("T: type"));
    reg(OpDefBuilder("Count").Input("in: Tin").Output("n: int32")
            .Attr("Tin: list(type)"));
    reg(OpDefBuilder("Fail").Input("x: float").Output("y: float"));
    reg(OpDefBuilder("Affine").Input("x: float").Output("y: float")
            .Attr("scale: int").Attr("shift: float = 0").Attr("tag: string = ''")
            .Attr("taps: list(int) = []"));
    reg(OpDefBuilder("WithDefault").Input("x: T").Output("y: T")
            .Attr("T: type = DT_FLOAT").Attr("k: int = 3"));
    ASSERT_THAT(kernels_.Register(Kernel(
                    KernelDefBuilder("Bump").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                    &Make<AddConstOp<1>>, "AddConstOp<1>")),
                IsOk());
    ASSERT_THAT(kernels_.Register(Kernel(KernelDefBuilder("SumN").Device(DEVICE_CPU),
                                         &Make<SumNOp>, "SumNOp")),
                IsOk());
    ASSERT_THAT(kernels_.Register(Kernel(KernelDefBuilder("Count").Device(DEVICE_CPU),
                                         &Make<CountOp>, "CountOp")),
                IsOk());
    ASSERT_THAT(kernels_.Register(Kernel(KernelDefBuilder("Fail").Device(DEVICE_CPU),
                                         &Make<FailingOp>, "FailingOp")),
                IsOk());
    ASSERT_THAT(kernels_.Register(Kernel(KernelDefBuilder("WithDefault").Device(DEVICE_CPU),
                                         &Make<AddConstOp<0>>, "AddConstOp<0>")),
                IsOk());
    ASSERT_THAT(kernels_.Register(Kernel(KernelDefBuilder("Affine").Device(DEVICE_CPU),
                                         &Make<AffineOp>, "AffineOp")),
                IsOk());
    AffineOp::constructions = 0;
    EagerContext::Options options;
    options.op_registry = &ops_;
    options.kernel_registry = &kernels_;
    options.intra_op_threads = 2;
    auto ctx = EagerContext::Create(options);
    ASSERT_THAT(ctx, IsOk());
    ctx_ = std::move(ctx).value();
  }

  OpRegistry ops_;
  KernelRegistry kernels_{&ops_};
  std::unique_ptr<EagerContext> ctx_;
};

TEST_F(EagerContextTest, RunsAndCachesTheKernel) {
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("Bump", {AsTensor<float>({1, 2}, TensorShape({2}))}, &out), IsOk());
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(2, 3));
  EXPECT_EQ(ctx_->kernel_cache_size(), 1u);
  ASSERT_THAT(ctx_->Run("Bump", {AsTensor<float>({5}, TensorShape({1}))}, &out), IsOk());
  EXPECT_EQ(ctx_->kernel_cache_size(), 1u);
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(6));
}

TEST_F(EagerContextTest, InfersNumberAndListAttrs) {
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("SumN", {AsTensor<float>({1}, TensorShape({1})),
                                 AsTensor<float>({2}, TensorShape({1})),
                                 AsTensor<float>({4}, TensorShape({1}))}, &out),
              IsOk());
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(7));
  ASSERT_THAT(ctx_->Run("Count", {AsTensor<float>({1}, TensorShape({1})),
                                  AsTensor<int32>({2}, TensorShape({1}))}, &out),
              IsOk());
  EXPECT_EQ(out[0].scalar<int32>()(), 2);
  auto prepared = ctx_->Prepare("SumN", {DT_FLOAT, DT_FLOAT});
  ASSERT_THAT(prepared, IsOk());
  EXPECT_EQ((*prepared)->node_def().attr().at("N").i(), 2);
  EXPECT_EQ((*prepared)->node_def().attr().at("T").type(), DT_FLOAT);
}

TEST_F(EagerContextTest, ANumberAttrBeyondTheInputsIsRefusedWithoutOverflow) {
  // Found by the op fuzzer under UBSan: N = INT32_MAX was added to the
  // other inputs' count in an int.
  std::vector<Tensor> out;
  AttrValue huge;
  huge.set_i(std::numeric_limits<int32>::max());
  EXPECT_THAT(ctx_->Run("SumN", {AsTensor<float>({1}, TensorShape({1}))}, {{"N", huge}}, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("attr N = 2147483647")));
  AttrValue negative;
  negative.set_i(-3);
  EXPECT_THAT(ctx_->Run("SumN", {AsTensor<float>({1}, TensorShape({1}))}, {{"N", negative}}, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("attr N = -3")));
}

TEST_F(EagerContextTest, DefaultsAreAdded) {
  auto prepared = ctx_->Prepare("WithDefault", {DT_FLOAT});
  ASSERT_THAT(prepared, IsOk());
  EXPECT_EQ((*prepared)->node_def().attr().at("k").i(), 3);
}

TEST_F(EagerContextTest, InputErrorsAreStatuses) {
  std::vector<Tensor> out;
  EXPECT_THAT(ctx_->Run("NoSuchOp", {}, &out), StatusIs(error::NOT_FOUND, HasSubstr("NoSuchOp")));
  EXPECT_THAT(ctx_->Run("Bump", {}, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("expects 1 inputs, got 0")));
  EXPECT_THAT(ctx_->Run("SumN", {AsTensor<float>({1}, TensorShape({1})),
                                 AsTensor<int32>({1}, TensorShape({1}))}, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("input #1(zero-based) was expected to be a float tensor")));
  EXPECT_THAT(ctx_->Run("Bump", {Tensor()}, &out),
              StatusIs(error::INVALID_ARGUMENT));
  // int32 is allowed by the op but has no kernel.
  EXPECT_THAT(ctx_->Run("Bump", {AsTensor<int32>({1}, TensorShape({1}))}, &out),
              StatusIs(error::NOT_FOUND, HasSubstr("No OpKernel was registered")));
  AttrValue bad;
  bad.set_type(DT_BOOL);
  EXPECT_THAT(ctx_->Run("Bump", {AsTensor<float>({1}, TensorShape({1}))}, {{"T", bad}}, &out),
              StatusIs(error::INVALID_ARGUMENT));
  EXPECT_THAT(ctx_->Run("Bump", {AsTensor<float>({1}, TensorShape({1}))}, nullptr),
              StatusIs(error::INVALID_ARGUMENT));
}

TEST_F(EagerContextTest, KernelErrorNamesTheNode) {
  std::vector<Tensor> out;
  EXPECT_THAT(ctx_->Run("Fail", {AsTensor<float>({1}, TensorShape({1}))}, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("bad input, fix it"), HasSubstr("Fail"))));
}

TEST_F(EagerContextTest, PreparedOpReselectsWhenTheRegistryChanges) {
  auto prepared_or = ctx_->Prepare("Bump", {DT_FLOAT});
  ASSERT_THAT(prepared_or, IsOk());
  PreparedOp& bump = **prepared_or;
  Tensor x = AsTensor<float>({10}, TensorShape({1}));
  std::vector<Tensor> out;
  ASSERT_THAT(bump.Run({x}, &out), IsOk());
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(11));
  EXPECT_EQ(bump.kernel_class_name(), "AddConstOp<1>");
  EXPECT_EQ(bump.selections(), 1);

  // A higher-priority kernel wins at the next call, with no restart.
  ASSERT_THAT(kernels_.Register(Kernel(KernelDefBuilder("Bump")
                                           .Device(DEVICE_CPU)
                                           .TypeConstraint<float>("T")
                                           .Priority(5),
                                       &Make<AddConstOp<100>>, "AddConstOp<100>")),
              IsOk());
  ASSERT_THAT(bump.Run({x}, &out), IsOk());
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(110));
  EXPECT_EQ(bump.kernel_class_name(), "AddConstOp<100>");
  EXPECT_EQ(bump.selections(), 2);

  // Unregistering it brings the first one back; restoring it, the new one.
  auto handle = kernels_.Unregister(KernelFilter().Op("Bump").KernelClass("AddConstOp<100>"));
  ASSERT_THAT(handle, IsOk());
  ASSERT_THAT(bump.Run({x}, &out), IsOk());
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(11));
  // The non-prepared path sees the change too.
  ASSERT_THAT(ctx_->Run("Bump", {x}, &out), IsOk());
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(11));
  ASSERT_THAT(handle->Restore(), IsOk());
  ASSERT_THAT(bump.Run({x}, &out), IsOk());
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(110));
  ASSERT_THAT(ctx_->Run("Bump", {x}, &out), IsOk());
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(110));
  // The input the caller holds is untouched.
  EXPECT_THAT(Values<float>(x), ElementsAre(10));
}

TEST_F(EagerContextTest, PreparedOpChecksInputs) {
  auto prepared = ctx_->Prepare("Bump", {DT_FLOAT});
  ASSERT_THAT(prepared, IsOk());
  std::vector<Tensor> out;
  EXPECT_THAT((*prepared)->Run({}, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("prepared for 1 inputs")));
  EXPECT_THAT((*prepared)->Run({AsTensor<int32>({1}, TensorShape({1}))}, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("prepare it again")));
}

TEST_F(EagerContextTest, ExplainNamesTheWinner) {
  auto e = ctx_->Explain("Bump", {DT_FLOAT});
  ASSERT_THAT(e, IsOk());
  ASSERT_GE(e->winner, 0);
  EXPECT_EQ(e->candidates[e->winner].kernel_class_name, "AddConstOp<1>");
}

TEST_F(EagerContextTest, ConcurrentRuns) {
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::vector<Tensor> out;
      for (int i = 0; i < 200; ++i) {
        Tensor x = AsTensor<float>({static_cast<float>(t)}, TensorShape({1}));
        if (!ctx_->Run("Bump", {x}, &out).ok() || out[0].flat<float>()(0) != t + 1) {
          ++failures;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

// Runs Affine on [1] with `attrs`; returns the result (NaN on error).
float RunAffine(EagerContext* ctx, const EagerAttrs& attrs) {
  std::vector<Tensor> out;
  Status s = ctx->Run("Affine", {AsTensor<float>({1}, TensorShape({1}))}, attrs, &out);
  EXPECT_THAT(s, IsOk());
  return s.ok() ? out[0].flat<float>()(0) : std::numeric_limits<float>::quiet_NaN();
}

TEST_F(EagerContextTest, CallsWithDifferentAttrsGetDifferentKernels) {
  const AttrValue one = Attr(int64_t{1});
  const AttrValue two = Attr(int64_t{2});
  EXPECT_EQ(RunAffine(ctx_.get(), {{"scale", two}}), 2);
  EXPECT_EQ(RunAffine(ctx_.get(), {{"scale", Attr(int64_t{3})}}), 3);
  EXPECT_EQ(RunAffine(ctx_.get(), {{"scale", two}, {"shift", Attr(0.5f)}}), 2.5);
  EXPECT_EQ(RunAffine(ctx_.get(), {{"scale", two}, {"shift", Attr(-0.5f)}}), 1.5);
  EXPECT_EQ(RunAffine(ctx_.get(), {{"scale", one}, {"taps", Attr(std::vector<int64_t>{1, 2})}}),
            4);
  EXPECT_EQ(RunAffine(ctx_.get(), {{"scale", one}, {"taps", Attr(std::vector<int64_t>{1, 3})}}),
            5);
  EXPECT_EQ(RunAffine(ctx_.get(), {{"scale", one}, {"taps", Attr(std::vector<int64_t>{1})}}), 2);
  // A string attr the kernel ignores still tells the calls apart.
  EXPECT_EQ(RunAffine(ctx_.get(), {{"scale", one}, {"tag", Attr(std::string("a"))}}), 1);
  EXPECT_EQ(RunAffine(ctx_.get(), {{"scale", one}, {"tag", Attr(std::string("b"))}}), 1);
  EXPECT_EQ(AffineOp::constructions.load(), 9);
  EXPECT_EQ(ctx_->kernel_cache_size(), 9u);
}

TEST_F(EagerContextTest, SameOpTypesAndAttrsHitTheCache) {
  const EagerAttrs attrs = {{"scale", Attr(int64_t{2})},
                            {"shift", Attr(1.0f)},
                            {"taps", Attr(std::vector<int64_t>{4, 5})}};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(RunAffine(ctx_.get(), attrs), 12);
  EXPECT_EQ(AffineOp::constructions.load(), 1);
  EXPECT_EQ(ctx_->kernel_cache_size(), 1u);
  // Equal values built separately are the same key.
  EXPECT_EQ(RunAffine(ctx_.get(), {{"scale", Attr(int64_t{2})},
                                   {"shift", Attr(1.0f)},
                                   {"taps", Attr(std::vector<int64_t>{4, 5})}}),
            12);
  EXPECT_EQ(AffineOp::constructions.load(), 1);
}

TEST_F(EagerContextTest, AttrOrderDoesNotMatter) {
  EXPECT_EQ(RunAffine(ctx_.get(), {{"scale", Attr(int64_t{2})}, {"shift", Attr(1.0f)},
                                   {"tag", Attr(std::string("t"))}}),
            3);
  EXPECT_EQ(RunAffine(ctx_.get(), {{"tag", Attr(std::string("t"))}, {"shift", Attr(1.0f)},
                                   {"scale", Attr(int64_t{2})}}),
            3);
  EXPECT_EQ(RunAffine(ctx_.get(), {{"shift", Attr(1.0f)}, {"tag", Attr(std::string("t"))},
                                   {"scale", Attr(int64_t{2})}}),
            3);
  EXPECT_EQ(AffineOp::constructions.load(), 1);
  EXPECT_EQ(ctx_->kernel_cache_size(), 1u);
}

TEST_F(EagerContextTest, DuplicateAttrIsAnErrorEvenWhenASimilarCallIsCached) {
  EXPECT_EQ(RunAffine(ctx_.get(), {{"scale", Attr(int64_t{2})}, {"shift", Attr(1.0f)}}), 3);
  // As many attrs as the cached call, all of them in it, but one twice.
  std::vector<Tensor> out;
  EXPECT_THAT(ctx_->Run("Affine", {AsTensor<float>({1}, TensorShape({1}))},
                        {{"scale", Attr(int64_t{2})}, {"scale", Attr(int64_t{2})}}, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("given twice")));
}

TEST_F(EagerContextTest, CachedCallSelectsOnceAfterARegistryChange) {
  const EagerAttrs attrs = {{"scale", Attr(int64_t{2})}};
  EXPECT_EQ(RunAffine(ctx_.get(), attrs), 2);
  EXPECT_EQ(AffineOp::constructions.load(), 1);
  // A change elsewhere in the registry moves its generation: the next call
  // selects (and builds) again, once.
  ASSERT_THAT(kernels_.Register(Kernel(KernelDefBuilder("Bump").Device(DEVICE_CPU)
                                           .TypeConstraint<int32>("T"),
                                       &Make<AddConstOp<1>>, "AddConstOp<1>/int")),
              IsOk());
  EXPECT_EQ(RunAffine(ctx_.get(), attrs), 2);
  EXPECT_EQ(RunAffine(ctx_.get(), attrs), 2);
  EXPECT_EQ(AffineOp::constructions.load(), 2);
  EXPECT_EQ(ctx_->kernel_cache_size(), 1u);
}

TEST_F(EagerContextTest, InputTypesArePartOfTheKey) {
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("SumN", {AsTensor<float>({1}, TensorShape({1})),
                                 AsTensor<float>({2}, TensorShape({1}))}, &out),
              IsOk());
  ASSERT_THAT(ctx_->Run("SumN", {AsTensor<float>({1}, TensorShape({1})),
                                 AsTensor<float>({2}, TensorShape({1})),
                                 AsTensor<float>({3}, TensorShape({1}))}, &out),
              IsOk());
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(6));
  ASSERT_THAT(ctx_->Run("Count", {AsTensor<float>({1}, TensorShape({1}))}, &out), IsOk());
  EXPECT_EQ(out[0].scalar<int32>()(), 1);
  ASSERT_THAT(ctx_->Run("Count", {AsTensor<int32>({1}, TensorShape({1}))}, &out), IsOk());
  EXPECT_EQ(out[0].scalar<int32>()(), 1);
  EXPECT_EQ(ctx_->kernel_cache_size(), 4u);
}

TEST(EagerContextCreateTest, IntraOpThreadsDefaultToTheCpus) {
  EXPECT_EQ(EagerContext::Options().intra_op_threads, 0);
  auto ctx = EagerContext::Create();
  ASSERT_THAT(ctx, IsOk());
  EXPECT_EQ((*ctx)->device()->tensorflow_cpu_worker_threads()->num_threads,
            NumSchedulableCpus());
  EagerContext::Options options;
  options.intra_op_threads = 3;
  ctx = EagerContext::Create(options);
  ASSERT_THAT(ctx, IsOk());
  EXPECT_EQ((*ctx)->device()->tensorflow_cpu_worker_threads()->num_threads, 3);
}

TEST(EagerContextCreateTest, RejectsNegativeThreads) {
  EagerContext::Options options;
  options.intra_op_threads = -1;
  EXPECT_THAT(EagerContext::Create(options),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("intra_op_threads")));
}

// Built-in ops that cannot give eager results: an error saying so, not an
// internal one or a tensor without storage.
TEST(EagerBuiltinOpsTest, SwitchIsAnInvalidArgument) {
  auto ctx = EagerContext::Create(EagerContext::Options());
  ASSERT_THAT(ctx, IsOk());
  std::vector<Tensor> out;
  EXPECT_THAT((*ctx)->Run("Switch", {AsTensor<float>({1}, TensorShape({1})),
                                     Tensor(true)},
                          &out),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("Switch"),
                             HasSubstr("cannot run eagerly"))));
  EXPECT_THAT((*ctx)->Prepare("Switch", {DT_FLOAT, DT_BOOL}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("cannot run eagerly")));
}

TEST(EagerBuiltinOpsTest, VariableV2IsAnUninitializedValue) {
  auto ctx = EagerContext::Create(EagerContext::Options());
  ASSERT_THAT(ctx, IsOk());
  std::vector<Tensor> out;
  EXPECT_THAT(
      (*ctx)->Run("VariableV2", {},
                  {{"dtype", Attr(DT_FLOAT)}, {"shape", Attr(TensorShape({2}))}},
                  &out),
      StatusIs(error::FAILED_PRECONDITION,
               HasSubstr("Attempting to use uninitialized value VariableV2")));
}

}  // namespace
}  // namespace opkit
