// TensorFlow's registration as real op libraries use it (issue items 14-16),
// checked on plugins built by this folder's CMakeLists.txt and loaded with
// LoadOpLibrary: selective registration dropping an op and its kernel
// (plugins/selective_ops.cc), registration macros in namespaces, templates,
// function-like macros and functions, TypeConstraint / HostMemory / Label /
// Priority, kernel_factory::OpKernelRegistrar and OpKernelFactory,
// register_op::OpDefBuilderWrapper (plugins/registration_ops.cc); the
// kernel-registry lookups with TensorFlow's names (GlobalKernelRegistry,
// FindKernelDef with TensorFlow's text, KernelsRegisteredForOp, ...).
#include <string>
#include <vector>

#include "tensorflow/core/framework/kernel_def_builder.h"
#include "tensorflow/core/framework/node_def_util.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/framework/types.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/attr_value.pb.h"
#include "opkit/kernel/kernel_registry.h"
#include "opkit/runtime/eager_context.h"
#include "opkit/runtime/library.h"
#include "opkit/testing/status_matchers.h"

using namespace tensorflow;

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace {

std::vector<std::string> OpNames(const OpList& list) {
  std::vector<std::string> names;
  for (const OpDef& op : list.op()) names.push_back(op.name());
  return names;
}

NodeDef Node(const std::string& op) {
  NodeDef node;
  node.set_name("n");
  node.set_op(op);
  return node;
}

class CompatRegistrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ctx = ::opkit::EagerContext::Create();
    ASSERT_THAT(ctx.status(), IsOk());
    ctx_ = std::move(ctx).value();
  }

  // Runs nullary int32 op `op` (with `attrs`) and returns its scalar, or -1.
  int32 RunScalar(const std::string& op, const ::opkit::EagerAttrs& attrs = {}) {
    std::vector<Tensor> out;
    Status s = ctx_->Run(op, {}, attrs, &out);
    EXPECT_THAT(s, IsOk()) << op;
    if (!s.ok() || out.size() != 1) return -1;
    return out[0].scalar<int32>()();
  }

  std::unique_ptr<::opkit::EagerContext> ctx_;
};

// --- Selective registration ----------------------------------------------------

TEST_F(CompatRegistrationTest, SelectiveRegistrationDropsTheOpAndItsKernel) {
  auto lib = ::opkit::LoadOpLibrary(COMPAT_SELECTIVE_OPS);
  ASSERT_THAT(lib.status(), IsOk());
  EXPECT_THAT(OpNames(lib->op_list()),
              ::testing::ElementsAre("CompatSelectiveKept"));
  ASSERT_EQ(lib->kernel_list().kernel_size(), 1);
  EXPECT_EQ(lib->kernel_list().kernel(0).op(), "CompatSelectiveKept");

  Tensor x(DT_INT32, TensorShape({3}));
  x.flat<int32>().setValues({1, 2, -5});
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("CompatSelectiveKept", {x}, &out), IsOk());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].flat<int32>()(0), 2);
  EXPECT_EQ(out[0].flat<int32>()(1), 3);
  EXPECT_EQ(out[0].flat<int32>()(2), -4);

  EXPECT_THAT(ctx_->Run("CompatSelectiveDropped", {x}, &out),
              StatusIs(error::NOT_FOUND,
                       AllOf(HasSubstr("Op type not registered"),
                             HasSubstr("CompatSelectiveDropped"))));
  const OpRegistrationData* data = nullptr;
  EXPECT_TRUE(errors::IsNotFound(
      OpRegistry::Global()->LookUp("CompatSelectiveDropped", &data)));
  EXPECT_EQ(KernelsRegisteredForOp("CompatSelectiveDropped"),
            "  <no registered kernels>\n");
  EXPECT_THAT(lib->Unload(), IsOk());
}

// --- Registration macros and internals ------------------------------------------

class CompatRegistrationOpsTest : public CompatRegistrationTest {
 protected:
  static void SetUpTestSuite() {
    auto lib = ::opkit::LoadOpLibrary(COMPAT_REGISTRATION_OPS);
    ASSERT_THAT(lib.status(), IsOk());
    lib_ = new ::opkit::OpLibrary(std::move(lib).value());
  }
  static void TearDownTestSuite() {
    EXPECT_THAT(lib_->Unload(), IsOk());
    delete lib_;
    lib_ = nullptr;
  }
  static ::opkit::OpLibrary* lib_;
};
::opkit::OpLibrary* CompatRegistrationOpsTest::lib_ = nullptr;

TEST_F(CompatRegistrationOpsTest, KernelsFromMacrosOverTemplatesRunForEachType) {
  std::vector<Tensor> out;
  Tensor f(DT_FLOAT, TensorShape({2}));
  f.flat<float>().setValues({1.5f, -1.0f});
  ASSERT_THAT(ctx_->Run("CompatRegAddOne", {f}, &out), IsOk());
  EXPECT_EQ(out[0].flat<float>()(0), 2.5f);
  EXPECT_EQ(out[0].flat<float>()(1), 0.0f);
  Tensor d(2.25);
  ASSERT_THAT(ctx_->Run("CompatRegAddOne", {d}, &out), IsOk());
  EXPECT_EQ(out[0].scalar<double>()(), 3.25);
  // The two registered on one line through one macro.
  Tensor i(int32{41});
  ASSERT_THAT(ctx_->Run("CompatRegAddOne", {i}, &out), IsOk());
  EXPECT_EQ(out[0].scalar<int32>()(), 42);
  Tensor l(int64{1} << 40);
  ASSERT_THAT(ctx_->Run("CompatRegAddOne", {l}, &out), IsOk());
  EXPECT_EQ(out[0].scalar<int64>()(), (int64{1} << 40) + 1);
  EXPECT_EQ(GetRegisteredKernelsForOp("CompatRegAddOne").kernel_size(), 4);
}

TEST_F(CompatRegistrationOpsTest, TwoOpsOnOneLineAndAKernelRegisteredInAFunction) {
  EXPECT_EQ(RunScalar("CompatRegSeven"), 7);
  const OpRegistrationData* data = nullptr;
  EXPECT_THAT(OpRegistry::Global()->LookUp("CompatRegEight", &data), IsOk());
  // CompatRegEight has no kernel: TensorFlow's FindKernelDef text.
  EXPECT_THAT(FindKernelDef(DeviceType(DEVICE_CPU), Node("CompatRegEight"),
                            nullptr, nullptr),
              StatusIs(error::NOT_FOUND,
                       StartsWith("No registered 'CompatRegEight' OpKernel for "
                                  "CPU devices compatible with node {{node n}}\n\t"
                                  ".  Registered:  <no registered kernels>\n")));
}

TEST_F(CompatRegistrationOpsTest, LabelPriorityAndHostMemory) {
  EXPECT_EQ(RunScalar("CompatRegLabeled"), 1);
  AttrValue fast;
  fast.set_s("fast");
  NodeDef labeled = Node("CompatRegLabeled");
  (*labeled.mutable_attr())["_kernel"] = fast;
  std::string class_name;
  ASSERT_THAT(FindKernelDef(DeviceType(DEVICE_CPU), labeled, nullptr, &class_name),
              IsOk());
  EXPECT_EQ(class_name, "ConstantOp<2>");
  EXPECT_EQ(RunScalar("CompatRegLabeled", {{"_kernel", fast}}), 2);

  EXPECT_EQ(RunScalar("CompatRegPriority"), 50);

  const KernelDef* def = nullptr;
  ASSERT_THAT(FindKernelDef(DeviceType(DEVICE_CPU), Node("CompatRegHostShape"),
                            &def, &class_name),
              IsOk());
  EXPECT_EQ(class_name, "HostShapeOp");
  ASSERT_EQ(def->host_memory_arg_size(), 2);
  EXPECT_EQ(def->host_memory_arg(0), "shape");
  EXPECT_EQ(def->host_memory_arg(1), "n");
  Tensor shape(DT_INT32, TensorShape({3}));
  shape.flat<int32>().setValues({2, 3, 4});
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("CompatRegHostShape", {shape}, &out), IsOk());
  EXPECT_EQ(out[0].scalar<int32>()(), 24);
}

TEST_F(CompatRegistrationOpsTest, OpKernelRegistrarAndOpDefBuilderWrapper) {
  Tensor x(DT_INT32, TensorShape({2}));
  x.flat<int32>().setValues({2, -3});
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("CompatRegByHand", {x}, &out), IsOk());
  EXPECT_EQ(out[0].flat<int32>()(0), 6);
  EXPECT_EQ(out[0].flat<int32>()(1), -9);
  EXPECT_EQ(RunScalar("CompatRegFactory"), 42);
  // Both came with the library, so they are listed with it (and go with it).
  std::vector<std::string> kernel_ops;
  for (const KernelDef& k : lib_->kernel_list().kernel()) kernel_ops.push_back(k.op());
  EXPECT_THAT(kernel_ops, ::testing::IsSupersetOf({"CompatRegByHand", "CompatRegFactory"}));
  EXPECT_THAT(OpNames(lib_->op_list()),
              ::testing::IsSupersetOf({"CompatRegByHand", "CompatRegFactory",
                                       "CompatRegSeven", "CompatRegEight"}));
}

TEST_F(CompatRegistrationOpsTest, GlobalKernelRegistryLookupsWithTensorFlowNames) {
  auto* registry = static_cast<::opkit::KernelRegistry*>(GlobalKernelRegistry());
  ASSERT_EQ(registry, ::opkit::KernelRegistry::Global());
  NodeDef node = Node("CompatRegAddOne");
  AddNodeAttr("T", DT_FLOAT, &node);
  EXPECT_TRUE(KernelDefAvailable(DeviceType(DEVICE_CPU), node));
  EXPECT_FALSE(KernelDefAvailable(DeviceType(DEVICE_GPU), node));
  std::string class_name;
  ASSERT_THAT(registry->FindKernelDef(DeviceType(DEVICE_CPU), node, nullptr, &class_name),
              IsOk());
  EXPECT_EQ(class_name, "AddOneOp<CPUDevice, float>");
  EXPECT_EQ(KernelsRegisteredForOp("CompatRegPriority"),
            "  device='CPU'\n  device='CPU'\n");

  // Removing a kernel, as code that replaces one does: hide it, and the
  // lower-priority one runs; restore it, and it wins again.
  auto hidden = registry->Unregister(
      ::opkit::KernelFilter().Op("CompatRegPriority").KernelClass("ConstantOp<50>"));
  ASSERT_THAT(hidden.status(), IsOk());
  EXPECT_EQ(RunScalar("CompatRegPriority"), 10);
  ASSERT_THAT(hidden->Restore(), IsOk());
  EXPECT_EQ(RunScalar("CompatRegPriority"), 50);
}

// --- FindKernelDef's message ------------------------------------------------------

TEST_F(CompatRegistrationOpsTest, FindKernelDefNotFoundIsTensorFlowsText) {
  NodeDef node = Node("CompatRegAddOne");
  AddNodeAttr("T", DT_HALF, &node);
  node.set_device("/device:CPU:0");
  Status s = FindKernelDef(DeviceType(DEVICE_CPU), node, nullptr, nullptr);
  EXPECT_THAT(
      s, StatusIs(error::NOT_FOUND,
                  StartsWith("No registered 'CompatRegAddOne' OpKernel for CPU devices "
                             "compatible with node {{node n}}\n\t (OpKernel was found, "
                             "but attributes didn't match) Requested Attributes: "
                             "T=DT_HALF, _device=\"/device:CPU:0\"\n\t.  Registered:"
                             "  device='CPU'; T in [DT_FLOAT]\n"
                             "  device='CPU'; T in [DT_DOUBLE]\n"
                             "  device='CPU'; T in [DT_INT32]\n"
                             "  device='CPU'; T in [DT_INT64]\n")));
  // opkit's explanation follows TensorFlow's text.
  EXPECT_THAT(s.message(), HasSubstr("attr 'T' is DT_HALF, not in [DT_FLOAT]"));

  // No kernel on the device at all: no attribute line.
  EXPECT_THAT(FindKernelDef(DeviceType(DEVICE_GPU), node, nullptr, nullptr),
              StatusIs(error::NOT_FOUND,
                       StartsWith("No registered 'CompatRegAddOne' OpKernel for GPU "
                                  "devices compatible with node {{node n}}\n\t.  "
                                  "Registered:  device='CPU'; T in [DT_FLOAT]\n")));

  // Kernel creation keeps its own text.
  std::vector<Tensor> out;
  Tensor half_input(DT_HALF, TensorShape({}));
  EXPECT_THAT(ctx_->Run("CompatRegAddOne", {half_input}, &out),
              StatusIs(error::NOT_FOUND,
                       HasSubstr("No OpKernel was registered to support Op "
                                 "'CompatRegAddOne' used by")));
}

}  // namespace
