// Kernel selection: matching, priorities, labels, defaults, the ambiguity
// and no-kernel messages, ExplainKernelSelection, and the free functions
// over the global registry.
#include "opkit/kernel/kernel_selection.h"

#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/kernel/testing/kernel_registry_fixture.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using kernel_testing::KernelRegistryTest;
using kernel_testing::Node;
using kernel_testing::Reg;

// --- Selection -------------------------------------------------------------

TEST_F(KernelRegistryTest, SelectsByTypeConstraintAndDevice) {
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"), "CpuFloat")));
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<double>("T"), "CpuDouble")));
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_GPU).TypeConstraint<float>("T"), "GpuFloat")));
  EXPECT_EQ(Select(Node("MatMul", DT_FLOAT)), "CpuFloat");
  EXPECT_EQ(Select(Node("MatMul", DT_DOUBLE)), "CpuDouble");
  EXPECT_EQ(Select(Node("MatMul", DT_FLOAT), DEVICE_GPU), "GpuFloat");
}

TEST_F(KernelRegistryTest, ListTypeConstraintNeedsEveryElement) {
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("ListOp").Device(DEVICE_CPU).TypeConstraint("Tin", {DT_FLOAT, DT_INT32}),
      "ListKernel")));
  NodeDef ok = Node("ListOp");
  auto* list = (*ok.mutable_attr())["Tin"].mutable_list();
  list->add_type(DT_FLOAT);
  list->add_type(DT_INT32);
  EXPECT_EQ(Select(ok), "ListKernel");
  NodeDef bad = ok;
  (*bad.mutable_attr())["Tin"].mutable_list()->add_type(DT_STRING);
  Status s = kernels_.FindKernelDef(DeviceType(DEVICE_CPU), bad, nullptr, nullptr);
  EXPECT_THAT(s, StatusIs(error::NOT_FOUND,
                          HasSubstr("element DT_STRING is not in [DT_FLOAT, DT_INT32]")));
}

TEST_F(KernelRegistryTest, NonTypeAttrConstraints) {
  OPKIT_ASSERT_OK(kernels_.Register(Reg(KernelDefBuilder("Modes")
                                            .Device(DEVICE_CPU)
                                            .AttrConstraint("mode", {"fast", "exact"})
                                            .AttrConstraint("n", 2)
                                            .AttrConstraint("flag", true),
                                        "ModesKernel")));
  NodeDef node = Node("Modes");
  (*node.mutable_attr())["mode"].set_s("fast");
  (*node.mutable_attr())["n"].set_i(2);
  (*node.mutable_attr())["flag"].set_b(true);
  EXPECT_EQ(Select(node), "ModesKernel");
  (*node.mutable_attr())["n"].set_i(3);
  EXPECT_THAT(Select(node), HasSubstr("attr 'n' is 3, not in [2]"));
}

TEST_F(KernelRegistryTest, LabelComesFromKernelAttr) {
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"), "Plain")));
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T").Label("eigen"),
      "Eigen")));
  EXPECT_EQ(Select(Node("MatMul", DT_FLOAT)), "Plain");
  EXPECT_EQ(Select(Node("MatMul", DT_FLOAT, "eigen")), "Eigen");
  EXPECT_THAT(Select(Node("MatMul", DT_FLOAT, "other")),
              HasSubstr("label 'eigen' does not match the node's _kernel 'other'"));
}

TEST_F(KernelRegistryTest, HighestPriorityWins) {
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"), "Builtin")));
  EXPECT_EQ(Select(Node("MatMul", DT_FLOAT)), "Builtin");
  // A plugin with a higher priority wins with no further step.
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T").Priority(1),
      "Plugin", 5, "libplugin.so")));
  EXPECT_EQ(Select(Node("MatMul", DT_FLOAT)), "Plugin");
  OPKIT_ASSERT_OK(kernels_.RemoveLibrary("libplugin.so"));
  EXPECT_EQ(Select(Node("MatMul", DT_FLOAT)), "Builtin");
}

TEST_F(KernelRegistryTest, DefaultsAreAppliedBeforeMatching) {
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("WithDefault").Device(DEVICE_CPU).TypeConstraint<int32>("T"), "IntK")));
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("WithDefault").Device(DEVICE_CPU).TypeConstraint<float>("T"), "FloatK")));
  EXPECT_EQ(Select(Node("WithDefault")), "IntK");
  EXPECT_EQ(Select(Node("WithDefault", DT_FLOAT)), "FloatK");
}

TEST_F(KernelRegistryTest, MissingAttrWithoutDefaultIsARejection) {
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"), "K")));
  EXPECT_THAT(Select(Node("MatMul")),
              HasSubstr("attr 'T' is not set in the node and the op gives no default"));
}

TEST_F(KernelRegistryTest, UnknownOpIsNotFound) {
  EXPECT_THAT(kernels_.FindKernelDef(DeviceType(DEVICE_CPU), Node("Missing"),
                                     nullptr, nullptr),
              StatusIs(error::NOT_FOUND, HasSubstr("Missing")));
}

TEST_F(KernelRegistryTest, AmbiguityNamesBothAndHowToResolve) {
  // A commit refuses a tie (Note [Kernel ambiguity]); restoring a kernel
  // hidden while its rival was registered is how two can still tie.
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"), "KernelOne", 11)));
  auto hidden = kernels_.Unregister(KernelFilter().KernelClass("KernelOne"));
  OPKIT_ASSERT_OK(hidden);
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint("T", {DT_FLOAT, DT_DOUBLE}),
      "KernelTwo", 22, "libtwo.so")));
  OPKIT_ASSERT_OK(hidden->Restore());
  Status s = kernels_.FindKernelDef(DeviceType(DEVICE_CPU), Node("MatMul", DT_FLOAT),
                                    nullptr, nullptr);
  EXPECT_THAT(s, StatusIs(error::INVALID_ARGUMENT,
                          AllOf(HasSubstr("Multiple OpKernel registrations match NodeDef "
                                          "'{{node n}} = MatMul[T=DT_FLOAT]()'"),
                                HasSubstr("op: \"MatMul\" device_type: \"CPU\""),
                                HasSubstr("'KernelOne' (registered at kernels.cc:11)"),
                                HasSubstr("'KernelTwo' (registered at kernels.cc:22 in libtwo.so)"),
                                HasSubstr("Priority()"), HasSubstr("Unregister()"))));
  KernelSelectionExplanation e =
      kernels_.ExplainKernelSelection(DeviceType(DEVICE_CPU), Node("MatMul", DT_FLOAT));
  EXPECT_EQ(e.winner, -1);
  ASSERT_EQ(e.candidates.size(), 2u);
  EXPECT_THAT(e.candidates[0].reason, HasSubstr("same priority 0 as 'KernelTwo'"));
  EXPECT_THAT(e.candidates[1].reason, HasSubstr("same priority 0 as 'KernelOne'"));
  // Only float is ambiguous.
  EXPECT_EQ(Select(Node("MatMul", DT_DOUBLE)), "KernelTwo");
  std::vector<std::pair<DeviceType, int32_t>> devices;
  EXPECT_THAT(kernels_.SupportedDeviceTypesForNode({DeviceType(DEVICE_CPU)},
                                                   Node("MatMul", DT_FLOAT), &devices),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Multiple OpKernel")));
}

// Three MatMul kernels none of which a CPU int32 node without a label
// selects, each for another reason.
void RegisterRejectedKernels(KernelRegistry* kernels) {
  OPKIT_ASSERT_OK(kernels->Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"), "CpuFloat", 1)));
  OPKIT_ASSERT_OK(kernels->Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_GPU).TypeConstraint<int32>("T"), "GpuInt", 2)));
  OPKIT_ASSERT_OK(kernels->Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<int32>("T").Label("eigen"),
      "CpuEigenInt", 3)));
}

TEST_F(KernelRegistryTest, NotFoundListsKernelsAndWhyEachWasRejected) {
  RegisterRejectedKernels(&kernels_);
  // Kernel creation's text (FindKernel, as CreateOpKernel reports it).
  KernelSelection selection;
  Status s = kernels_.FindKernel(DeviceType(DEVICE_CPU), Node("MatMul", DT_INT32),
                                 &selection);
  EXPECT_THAT(
      s, StatusIs(error::NOT_FOUND,
                  AllOf(HasSubstr("No OpKernel was registered to support Op 'MatMul' used by "
                                  "{{node n}} with these attrs: [T=DT_INT32, transpose_a=false]"),
                        HasSubstr("Registered devices: [CPU]"),
                        HasSubstr("Registered kernels:\n"
                                  "  device='CPU'; T in [DT_FLOAT]\n"
                                  "  device='GPU'; T in [DT_INT32]\n"
                                  "  device='CPU'; label='eigen'; T in [DT_INT32]\n"),
                        HasSubstr("'CpuFloat' (registered at kernels.cc:1): attr 'T' is "
                                  "DT_INT32, not in [DT_FLOAT]"),
                        HasSubstr("'GpuInt' (registered at kernels.cc:2): device 'GPU' is "
                                  "not the requested 'CPU'"),
                        HasSubstr("'CpuEigenInt' (registered at kernels.cc:3): label "
                                  "'eigen' does not match the node's _kernel ''"))));
  EXPECT_THAT(kernels_.FindKernel(DeviceType(DEVICE_CPU), Node("WithDefault"), &selection),
              StatusIs(error::NOT_FOUND, HasSubstr("Registered kernels:\n  <no registered kernels>\n")));
}

TEST_F(KernelRegistryTest, FindKernelDefNotFoundIsTensorFlowsTextThenWhyEachWasRejected) {
  RegisterRejectedKernels(&kernels_);
  Status s = kernels_.FindKernelDef(DeviceType(DEVICE_CPU), Node("MatMul", DT_INT32),
                                    nullptr, nullptr);
  // TensorFlow's FindKernelDef text first (a kernel of the op, device and
  // label exists, so the attrs are shown; defaults included), ...
  EXPECT_THAT(s, StatusIs(error::NOT_FOUND,
                          ::testing::StartsWith(
                              "No registered 'MatMul' OpKernel for CPU devices compatible "
                              "with node {{node n}}\n\t (OpKernel was found, but attributes "
                              "didn't match) Requested Attributes: T=DT_INT32, "
                              "transpose_a=false\n\t.  Registered:"
                              "  device='CPU'; T in [DT_FLOAT]\n"
                              "  device='GPU'; T in [DT_INT32]\n"
                              "  device='CPU'; label='eigen'; T in [DT_INT32]\n")));
  // ... then why each kernel was rejected.
  EXPECT_THAT(s.message(),
              AllOf(HasSubstr("'CpuFloat' (registered at kernels.cc:1): attr 'T' is "
                              "DT_INT32, not in [DT_FLOAT]"),
                    HasSubstr("'GpuInt' (registered at kernels.cc:2): device 'GPU' is "
                              "not the requested 'CPU'"),
                    HasSubstr("'CpuEigenInt' (registered at kernels.cc:3): label "
                              "'eigen' does not match the node's _kernel ''"),
                    Not(HasSubstr("No OpKernel was registered"))));
  // Only a kernel of another label (or device): no attribute line.
  EXPECT_THAT(kernels_.FindKernelDef(DeviceType(DEVICE_CPU), Node("MatMul", DT_INT32, "other"),
                                     nullptr, nullptr),
              StatusIs(error::NOT_FOUND,
                       ::testing::StartsWith(
                           "No registered 'MatMul' OpKernel for CPU devices compatible "
                           "with node {{node n}}\n\t.  Registered:  device='CPU'")));
  // No kernel at all, and an unknown op (then the op registry's message too).
  EXPECT_THAT(kernels_.FindKernelDef(DeviceType(DEVICE_CPU), Node("WithDefault"), nullptr,
                                     nullptr),
              StatusIs(error::NOT_FOUND,
                       ::testing::StartsWith(
                           "No registered 'WithDefault' OpKernel for CPU devices compatible "
                           "with node {{node n}}\n\t.  Registered:  <no registered kernels>\n")));
  EXPECT_THAT(kernels_.FindKernelDef(DeviceType(DEVICE_CPU), Node("Missing"), nullptr, nullptr),
              StatusIs(error::NOT_FOUND,
                       AllOf(::testing::StartsWith("No registered 'Missing' OpKernel"),
                             HasSubstr("Op type not registered 'Missing'"))));
}

TEST_F(KernelRegistryTest, KernelsRegisteredForOpFormat) {
  EXPECT_EQ(kernels_.KernelsRegisteredForOp("MatMul"), "  <no registered kernels>\n");
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint("T", {DT_FLOAT, DT_DOUBLE}),
      "A")));
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_GPU).Label("eigen"), "B")));
  EXPECT_EQ(kernels_.KernelsRegisteredForOp("MatMul"),
            "  device='CPU'; T in [DT_FLOAT, DT_DOUBLE]\n"
            "  device='GPU'; label='eigen'\n");
  EXPECT_EQ(kernels_.GetRegisteredKernelsForOp("MatMul").kernel_size(), 2);
  EXPECT_EQ(kernels_.GetAllRegisteredKernels().kernel_size(), 2);
  EXPECT_EQ(kernels_.GetRegisteredKernelsForOp("ListOp").kernel_size(), 0);
}

TEST_F(KernelRegistryTest, SupportedDeviceTypesSortedByPriority) {
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"), "C")));
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_GPU).TypeConstraint<float>("T").Priority(4),
      "G")));
  PrioritizedDeviceTypeVector out;
  OPKIT_ASSERT_OK(kernels_.SupportedDeviceTypesForNode(
      {DeviceType(DEVICE_CPU), DeviceType(DEVICE_GPU), DeviceType("TPU")},
      Node("MatMul", DT_FLOAT), &out));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], std::make_pair(DeviceType(DEVICE_GPU), 4));
  EXPECT_EQ(out[1], std::make_pair(DeviceType(DEVICE_CPU), 0));
  // An op the op registry does not know runs anywhere (TensorFlow's rule).
  out.clear();
  OPKIT_ASSERT_OK(kernels_.SupportedDeviceTypesForNode(
      {DeviceType(DEVICE_CPU)}, Node("SomeFunction"), &out));
  ASSERT_EQ(out.size(), 1u);
}

TEST_F(KernelRegistryTest, ExplainKernelSelection) {
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"), "Builtin", 1)));
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T").Priority(2),
      "Fast", 2, "libfast.so")));
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<double>("T"), "Dbl", 3)));
  KernelSelectionExplanation e =
      kernels_.ExplainKernelSelection(DeviceType(DEVICE_CPU), Node("MatMul", DT_FLOAT));
  OPKIT_EXPECT_OK(e.status);
  ASSERT_EQ(e.candidates.size(), 3u);
  EXPECT_EQ(e.winner, 1);
  EXPECT_TRUE(e.candidates[0].matched);
  EXPECT_THAT(e.candidates[0].reason, HasSubstr("priority 0 is below the winner's 2"));
  EXPECT_TRUE(e.candidates[1].reason.empty());
  EXPECT_FALSE(e.candidates[2].matched);
  EXPECT_THAT(e.candidates[2].reason, HasSubstr("attr 'T' is DT_FLOAT, not in [DT_DOUBLE]"));
  const std::string text = e.ToString();
  EXPECT_THAT(text, HasSubstr("Kernel selection for {{node n}} (op 'MatMul') on device 'CPU'"));
  EXPECT_THAT(text, HasSubstr("[selected] 'Fast' (kernels.cc:2 in libfast.so)"));
  EXPECT_THAT(text, HasSubstr("[matched]  'Builtin'"));
  EXPECT_THAT(text, HasSubstr("[rejected] 'Dbl'"));
  EXPECT_THAT(text, HasSubstr("Selected: 'Fast'"));

  KernelSelectionExplanation none =
      kernels_.ExplainKernelSelection(DeviceType(DEVICE_GPU), Node("MatMul", DT_FLOAT));
  EXPECT_EQ(none.winner, -1);
  EXPECT_THAT(none.status,
              StatusIs(error::NOT_FOUND,
                       HasSubstr("No registered 'MatMul' OpKernel for GPU devices")));
  EXPECT_THAT(none.ToString(), HasSubstr("No kernel selected: Not found"));
}

TEST(GlobalKernelRegistryTest, FreeFunctionsUseTheGlobalRegistry) {
  // Only reads: tests must not add to the process-wide registry.
  NodeDef node = Node("NoSuchOpAnywhere", DT_FLOAT);
  EXPECT_THAT(FindKernelDef(DeviceType(DEVICE_CPU), node, nullptr, nullptr),
              StatusIs(error::NOT_FOUND, HasSubstr("NoSuchOpAnywhere")));
  EXPECT_FALSE(KernelDefAvailable(DeviceType(DEVICE_CPU), node));
  EXPECT_EQ(KernelsRegisteredForOp("NoSuchOpAnywhere"), "  <no registered kernels>\n");
  EXPECT_EQ(GetRegisteredKernelsForOp("NoSuchOpAnywhere").kernel_size(), 0);
  EXPECT_EQ(KernelRegistry::Global()->op_registry(), OpRegistry::Global());
  EXPECT_EQ(ExplainKernelSelection(DeviceType(DEVICE_CPU), node).winner, -1);
  PrioritizedDeviceTypeVector devices;
  OPKIT_EXPECT_OK(SupportedDeviceTypesForNode({DeviceType(DEVICE_CPU)}, node, &devices));
  EXPECT_EQ(devices.size(), 1u);  // Unknown op: assumed to run anywhere.
}

}  // namespace
}  // namespace opkit
