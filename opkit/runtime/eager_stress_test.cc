// Eager calls racing kernel replacement: every call must run either the
// kernel before a change or the one after it, never fail or tear. Run under
// ThreadSanitizer in CI (label "stress").
#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "opkit/kernel/kernel_def_builder.h"
#include "opkit/op/op_def_builder.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/runtime/eager_context.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;

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

template <typename K>
OpKernel* Make(OpKernelConstruction* c) {
  return new K(c);
}

KernelRegistration BumpKernel(int priority, KernelFactory f, const char* name) {
  KernelRegistration r;
  r.def = KernelDefBuilder("Bump").Device(DEVICE_CPU).Priority(priority).BuildDef();
  r.factory = f;
  r.kernel_class_name = name;
  return r;
}

TEST(EagerStressTest, CallsSeeEitherKernelWhileItIsReplaced) {
  OpRegistry ops;
  OpRegistrationData data;
  ASSERT_THAT(OpDefBuilder("Bump").Input("x: float").Output("y: float").Finalize(&data),
              IsOk());
  ASSERT_THAT(ops.Register(std::move(data)), IsOk());
  KernelRegistry kernels(&ops);
  ASSERT_THAT(kernels.Register(BumpKernel(0, &Make<AddConstOp<1>>, "Plus1")), IsOk());
  EagerContext::Options options;
  options.op_registry = &ops;
  options.kernel_registry = &kernels;
  options.intra_op_threads = 1;
  auto ctx_or = EagerContext::Create(options);
  ASSERT_THAT(ctx_or, IsOk());
  EagerContext& ctx = **ctx_or;

  constexpr int kCallers = 3;
  constexpr int kMinCalls = 100;
  constexpr int kRounds = 200;
  std::atomic<int> bad{0};
  std::atomic<bool> mutator_done{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kCallers; ++t) {
    threads.emplace_back([&, t] {
      auto prepared = ctx.Prepare("Bump", {DT_FLOAT});
      if (!prepared.ok()) {
        ++bad;
        return;
      }
      Tensor x(DT_FLOAT, TensorShape({4}));
      x.flat<float>().setConstant(static_cast<float>(t));
      std::vector<Tensor> out;
      // Calls overlap the whole mutation loop: they go on until it ends.
      for (int i = 0; i < kMinCalls || !mutator_done.load(); ++i) {
        Status s = (i % 2 == 0) ? (*prepared)->Run({x}, &out) : ctx.Run("Bump", {x}, &out);
        if (!s.ok()) {
          ++bad;
          continue;
        }
        const float v = out[0].flat<float>()(3);
        if (v != t + 100.f && v != t + 1.f) {
          ++bad;
        }
      }
    });
  }
  std::thread mutator([&] {
    for (int round = 0; round < kRounds; ++round) {
      KernelBatchId id = 0;
      if (!kernels.Register(BumpKernel(5, &Make<AddConstOp<100>>, "Plus100"), &id).ok()) {
        ++bad;
        return;
      }
      auto hidden = kernels.Unregister(KernelFilter().Op("Bump").KernelClass("Plus100"));
      if (!hidden.ok() || !hidden->Restore().ok()) ++bad;
      if (!kernels.RemoveBatch(id).ok()) ++bad;
      std::this_thread::yield();
    }
    mutator_done = true;
  });
  mutator.join();
  for (auto& th : threads) th.join();
  EXPECT_EQ(bad.load(), 0);
  // After the mutator stops, the original kernel is back for everyone.
  std::vector<Tensor> out;
  Tensor x(DT_FLOAT, TensorShape({1}));
  x.flat<float>()(0) = 0;
  ASSERT_THAT(ctx.Run("Bump", {x}, &out), IsOk());
  EXPECT_EQ(out[0].flat<float>()(0), 1.f);
}

}  // namespace
}  // namespace opkit
