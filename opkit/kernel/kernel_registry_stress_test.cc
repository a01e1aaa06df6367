// Lookups on several threads while another thread registers, unregisters,
// restores and overrides kernels. Every lookup must see the registry before
// or after a change (never a torn state), and the whole program must be
// clean under ThreadSanitizer. No timing assertions: the writer runs a fixed
// number of iterations and the readers run until it is done.
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/core/logging.h"
#include "opkit/kernel/kernel_registry.h"
#include "opkit/op/op_def_builder.h"
#include "opkit/op/op_registry.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

OpKernel* NullFactory(OpKernelConstruction*) { return nullptr; }

KernelRegistration Reg(KernelDefBuilder builder, const char* class_name) {
  KernelRegistration reg;
  reg.def = builder.BuildDef();
  reg.kernel_class_name = class_name;
  reg.factory = &NullFactory;
  reg.origin = RegistrationOrigin{"stress.cc", 1, ""};
  return reg;
}

NodeDef Node(DataType t) {
  NodeDef node;
  node.set_name("m");
  node.set_op("MatMul");
  (*node.mutable_attr())["T"].set_type(t);
  return node;
}

TEST(KernelRegistryStressTest, LookupsSeeBeforeOrAfterEveryChange) {
  SetMinLogLevel(1);  // Every change logs at INFO; keep the output short.
  OpRegistry ops;
  OpRegistrationData data;
  OPKIT_ASSERT_OK(OpDefBuilder("MatMul")
                      .Attr("T: {float, double}")
                      .Input("a: T")
                      .Input("b: T")
                      .Output("p: T")
                      .Finalize(&data));
  OPKIT_ASSERT_OK(ops.Register(std::move(data)));
  KernelRegistry kernels(&ops);
  OPKIT_ASSERT_OK(kernels.Register(
      Reg(KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"), "Base")));
  OPKIT_ASSERT_OK(kernels.Register(
      Reg(KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<double>("T"), "Double")));

  constexpr int kIterations = 150;
  constexpr int kReaders = 3;
  std::atomic<bool> done{false};
  std::atomic<int> failures{0};
  std::atomic<long> lookups{0};

  auto reader = [&](int index) {
    const NodeDef float_node = Node(DT_FLOAT);
    const NodeDef double_node = Node(DT_DOUBLE);
    uint64_t last_generation = 0;
    long count = 0;
    // At least a few lookups even if the writer finishes first.
    while (!done.load() || count < 200) {
      const uint64_t generation = kernels.generation();
      if (generation < last_generation) failures.fetch_add(1);
      last_generation = generation;

      KernelSelection selection;
      Status s = kernels.FindKernel(DeviceType(DEVICE_CPU), float_node, &selection);
      if (s.ok()) {
        const std::string& name = *selection.kernel_class_name;
        const int32_t priority = selection.def->priority();
        const bool valid = (name == "Base" && priority == 0) ||
                           (name == "Plugin" && priority == 5) ||
                           (name == "Override" && priority >= 1);
        if (!valid) failures.fetch_add(1);
      } else if (s.code() != error::NOT_FOUND) {
        // Never ambiguous, never anything else.
        failures.fetch_add(1);
      }
      std::string double_name;
      if (!kernels.FindKernelDef(DeviceType(DEVICE_CPU), double_node, nullptr,
                                 &double_name).ok() ||
          double_name != "Double") {
        failures.fetch_add(1);
      }
      if (count % 50 == index) {
        // The slow paths too.
        KernelSelectionExplanation e =
            kernels.ExplainKernelSelection(DeviceType(DEVICE_CPU), float_node);
        if (e.candidates.empty()) failures.fetch_add(1);
        if (kernels.KernelsRegisteredForOp("MatMul").empty()) failures.fetch_add(1);
      }
      ++count;
    }
    lookups.fetch_add(count);
  };

  std::vector<std::thread> threads;
  for (int i = 0; i < kReaders; ++i) threads.emplace_back(reader, i);

  Status writer_status;
  for (int i = 0; i < kIterations && writer_status.ok(); ++i) {
    KernelBatchId id = 0;
    writer_status.Update(kernels.Register(
        Reg(KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T").Priority(5),
            "Plugin"),
        &id));
    writer_status.Update(kernels.RemoveBatch(id));
    auto handle = kernels.Unregister(KernelFilter().KernelClass("Base"));
    writer_status.Update(handle.status());
    if (handle.ok()) writer_status.Update(handle->Restore());
    auto scoped = ScopedKernelOverride::Create(
        &kernels,
        Reg(KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"),
            "Override"));
    writer_status.Update(scoped.status());
  }
  done.store(true);
  for (std::thread& t : threads) t.join();

  OPKIT_EXPECT_OK(writer_status);
  EXPECT_EQ(failures.load(), 0);
  EXPECT_GE(lookups.load(), kReaders * 200L);
  std::string name;
  OPKIT_EXPECT_OK(kernels.FindKernelDef(DeviceType(DEVICE_CPU), Node(DT_FLOAT), nullptr, &name));
  EXPECT_EQ(name, "Base");
  EXPECT_EQ(kernels.size(), 2u);
}

}  // namespace
}  // namespace opkit
