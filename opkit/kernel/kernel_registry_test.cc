#include "opkit/kernel/kernel_registry.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/core/logging.h"
#include "opkit/core/mutex.h"
#include "opkit/op/op_def_builder.h"
#include "opkit/op/op_registry.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

OpKernel* FactoryA(OpKernelConstruction*) { return nullptr; }

// Captures what the registry logs.
class CapturingSink : public LogSink {
 public:
  CapturingSink() { AddLogSink(this); }
  ~CapturingSink() override { RemoveLogSink(this); }
  void Send(const LogEntry& entry) override {
    mutex_lock lock(mu_);
    entries_.push_back(entry);
  }
  std::vector<std::string> Messages(LogSeverity severity) {
    mutex_lock lock(mu_);
    std::vector<std::string> out;
    for (const LogEntry& e : entries_) {
      if (e.severity == severity) out.push_back(e.message);
    }
    return out;
  }
  void Clear() {
    mutex_lock lock(mu_);
    entries_.clear();
  }

 private:
  mutex mu_;
  std::vector<LogEntry> entries_;
};

std::vector<std::string> Matching(const std::vector<std::string>& messages,
                                  const std::string& needle) {
  std::vector<std::string> out;
  for (const std::string& m : messages) {
    if (m.find(needle) != std::string::npos) out.push_back(m);
  }
  return out;
}

void AddOp(OpRegistry* ops, OpDefBuilder builder) {
  OpRegistrationData data;
  OPKIT_ASSERT_OK(builder.Finalize(&data));
  OPKIT_ASSERT_OK(ops->Register(std::move(data)));
}

KernelRegistration Reg(const KernelDefBuilder& builder, std::string class_name,
                       int line = 1, std::string library = "") {
  KernelRegistration reg;
  reg.def = builder.BuildDef();
  reg.kernel_class_name = std::move(class_name);
  reg.factory = &FactoryA;
  reg.origin = RegistrationOrigin{"kernels.cc", line, std::move(library)};
  return reg;
}

NodeDef Node(const std::string& op, DataType t = DT_INVALID,
             const std::string& label = "") {
  NodeDef node;
  node.set_name("n");
  node.set_op(op);
  if (t != DT_INVALID) (*node.mutable_attr())["T"].set_type(t);
  if (!label.empty()) (*node.mutable_attr())["_kernel"].set_s(label);
  return node;
}

class KernelRegistryTest : public ::testing::Test {
 protected:
  KernelRegistryTest() : kernels_(&ops_) {
    AddOp(&ops_, OpDefBuilder("MatMul")
                     .Attr("T: {half, float, double, int32}")
                     .Attr("transpose_a: bool = false")
                     .Input("a: T")
                     .Input("b: T")
                     .Output("product: T"));
    AddOp(&ops_, OpDefBuilder("WithDefault")
                     .Attr("T: {float, int32} = DT_INT32")
                     .Input("x: T")
                     .Output("y: T"));
    AddOp(&ops_, OpDefBuilder("ListOp")
                     .Attr("Tin: list(type)")
                     .Input("x: Tin")
                     .Output("y: float"));
    AddOp(&ops_, OpDefBuilder("Modes")
                     .Attr("mode: string")
                     .Attr("n: int")
                     .Attr("flag: bool")
                     .Output("y: float"));
  }

  std::string Select(const NodeDef& node, const char* device = DEVICE_CPU) {
    std::string class_name;
    Status s = kernels_.FindKernelDef(DeviceType(device), node, nullptr,
                                      &class_name);
    return s.ok() ? class_name : "error: " + s.ToString();
  }

  OpRegistry ops_;
  KernelRegistry kernels_;
};

// --- Registration ----------------------------------------------------------

TEST_F(KernelRegistryTest, RegisterAndFind) {
  OPKIT_ASSERT_OK(kernels_.Register(
      Reg(KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"),
          "MatMulOp<float>")));
  const KernelDef* def = nullptr;
  std::string class_name;
  OPKIT_ASSERT_OK(kernels_.FindKernelDef(DeviceType(DEVICE_CPU),
                                         Node("MatMul", DT_FLOAT), &def,
                                         &class_name));
  ASSERT_NE(def, nullptr);
  EXPECT_EQ(def->op(), "MatMul");
  EXPECT_EQ(class_name, "MatMulOp<float>");

  KernelSelection selection;
  OPKIT_ASSERT_OK(kernels_.FindKernel(DeviceType(DEVICE_CPU),
                                      Node("MatMul", DT_FLOAT), &selection));
  EXPECT_EQ(selection.def, def);
  EXPECT_EQ(selection.factory, &FactoryA);
  EXPECT_EQ(*selection.kernel_class_name, "MatMulOp<float>");
  EXPECT_EQ(selection.origin->ToString(), "kernels.cc:1");
  EXPECT_EQ(selection.generation, kernels_.generation());
  EXPECT_EQ(kernels_.size(), 1u);
  EXPECT_TRUE(kernels_.KernelDefAvailable(DeviceType(DEVICE_CPU),
                                          Node("MatMul", DT_FLOAT)));
  EXPECT_FALSE(kernels_.KernelDefAvailable(DeviceType(DEVICE_CPU),
                                           Node("MatMul", DT_DOUBLE)));
}

TEST_F(KernelRegistryTest, UnknownOpIsNotFoundNamingClassOriginAndOp) {
  Status s = kernels_.Register(
      Reg(KernelDefBuilder("NoSuchOp").Device(DEVICE_CPU), "NoSuchKernel", 42));
  EXPECT_THAT(s, StatusIs(error::NOT_FOUND,
                          AllOf(HasSubstr("'NoSuchKernel'"),
                                HasSubstr("kernels.cc:42"),
                                HasSubstr("op 'NoSuchOp'"))));
  EXPECT_EQ(kernels_.size(), 0u);
  EXPECT_EQ(kernels_.generation(), 0u);
}

TEST_F(KernelRegistryTest, ConstraintOnMissingAttrIsAnError) {
  EXPECT_THAT(kernels_.Register(Reg(KernelDefBuilder("MatMul")
                                        .Device(DEVICE_CPU)
                                        .TypeConstraint<float>("U"),
                                    "Bad", 7)),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("'Bad'"), HasSubstr("kernels.cc:7"),
                             HasSubstr("constraint on attr 'U'"),
                             HasSubstr("op 'MatMul' does not have"),
                             HasSubstr("[T, transpose_a]"))));
}

TEST_F(KernelRegistryTest, TypeConstraintOnNonTypeAttrIsAnError) {
  EXPECT_THAT(kernels_.Register(Reg(KernelDefBuilder("MatMul")
                                        .Device(DEVICE_CPU)
                                        .TypeConstraint<float>("transpose_a"),
                                    "Bad")),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("type constraint on attr 'transpose_a'"),
                             HasSubstr("has type 'bool'"))));
  EXPECT_THAT(kernels_.Register(Reg(KernelDefBuilder("Modes")
                                        .Device(DEVICE_CPU)
                                        .AttrConstraint("mode", int64_t{3}),
                                    "Bad")),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("constrains attr 'mode' to int values")));
}

TEST_F(KernelRegistryTest, OtherInvalidRegistrations) {
  EXPECT_THAT(kernels_.Register(Reg(KernelDefBuilder("MatMul"), "NoDevice")),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("has no device")));
  KernelRegistration no_factory =
      Reg(KernelDefBuilder("MatMul").Device(DEVICE_CPU), "NoFactory");
  no_factory.factory = nullptr;
  EXPECT_THAT(kernels_.Register(std::move(no_factory)),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("no factory")));
  EXPECT_THAT(kernels_.Register(Reg(
                  KernelDefBuilder("MatMul").Device(DEVICE_CPU).HostMemory("zz"),
                  "BadHostMemory")),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("HostMemory arg 'zz'")));
  KernelRegistration empty_allowed =
      Reg(KernelDefBuilder("MatMul").Device(DEVICE_CPU), "EmptyAllowed");
  auto* c = empty_allowed.def.add_constraint();
  c->set_name("T");
  c->mutable_allowed_values()->mutable_list();
  EXPECT_THAT(kernels_.Register(std::move(empty_allowed)),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("allows no values")));
  KernelRegistration bad_type =
      Reg(KernelDefBuilder("MatMul").Device(DEVICE_CPU), "BadType");
  auto* c2 = bad_type.def.add_constraint();
  c2->set_name("T");
  c2->mutable_allowed_values()->mutable_list()->add_type(
      static_cast<DataType>(9999));
  EXPECT_THAT(kernels_.Register(std::move(bad_type)),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("invalid DataType")));
  EXPECT_EQ(kernels_.size(), 0u);
}

TEST_F(KernelRegistryTest, BatchIsAllOrNothing) {
  std::vector<KernelRegistration> batch;
  batch.push_back(Reg(KernelDefBuilder("MatMul").Device(DEVICE_CPU), "Good"));
  batch.push_back(Reg(KernelDefBuilder("Nope").Device(DEVICE_CPU), "Bad"));
  EXPECT_THAT(kernels_.RegisterBatch(std::move(batch)),
              StatusIs(error::NOT_FOUND, HasSubstr("'Bad'")));
  EXPECT_EQ(kernels_.size(), 0u);
  EXPECT_EQ(kernels_.generation(), 0u);
}

TEST_F(KernelRegistryTest, BuilderErrorsFailTheCommit) {
  KernelDefBuilder builder("MatMul");
  builder.Device(DEVICE_CPU).Label("a").Label("b");
  PendingKernelRegistration pending;
  pending.build_status = builder.Finalize(&pending.registration.def);
  pending.registration.kernel_class_name = "Twice";
  pending.registration.factory = &FactoryA;
  pending.registration.origin = RegistrationOrigin{"twice.cc", 3, ""};
  std::vector<PendingKernelRegistration> list;
  list.push_back(std::move(pending));
  EXPECT_THAT(kernels_.CommitPending(std::move(list), "libtwice.so"),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("'Twice'"),
                             HasSubstr("twice.cc:3 in libtwice.so"),
                             HasSubstr("Label() called twice"))));
  EXPECT_EQ(kernels_.size(), 0u);
}

TEST_F(KernelRegistryTest, CommitPendingTakesTheProcessWideList) {
  const size_t before = NumPendingKernelRegistrations();
  internal::AddPendingKernelRegistration(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"),
      "PendingFloat", &FactoryA, RegistrationOrigin{"pending.cc", 9, ""});
  internal::AddPendingKernelRegistration(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<double>("T").BuildDef(),
      "PendingDouble", &FactoryA, RegistrationOrigin{"pending.cc", 10, ""});
  EXPECT_EQ(NumPendingKernelRegistrations(), before + 2);
  std::vector<PendingKernelRegistration> taken = TakePendingKernelRegistrations();
  EXPECT_EQ(NumPendingKernelRegistrations(), 0u);
  // Keep only ours (other code in the process may have registered some).
  std::vector<PendingKernelRegistration> ours;
  for (auto& p : taken) {
    if (p.registration.origin.file == "pending.cc") ours.push_back(std::move(p));
  }
  ASSERT_EQ(ours.size(), 2u);
  KernelBatchId id = 0;
  OPKIT_ASSERT_OK(kernels_.CommitPending(std::move(ours), "libpending.so", &id));
  EXPECT_NE(id, 0u);
  auto regs = kernels_.GetRegistrationsForOp("MatMul");
  ASSERT_EQ(regs.size(), 2u);
  EXPECT_EQ(regs[0].origin.ToString(), "pending.cc:9 in libpending.so");
  EXPECT_EQ(Select(Node("MatMul", DT_DOUBLE)), "PendingDouble");

  size_t removed = 0;
  OPKIT_ASSERT_OK(kernels_.RemoveLibrary("libpending.so", &removed));
  EXPECT_EQ(removed, 2u);
  EXPECT_EQ(kernels_.size(), 0u);
  EXPECT_THAT(kernels_.RemoveLibrary(""), StatusIs(error::INVALID_ARGUMENT, HasSubstr("library")));
}

TEST_F(KernelRegistryTest, ExactDuplicateWarnsNamingBothOrigins) {
  CapturingSink sink;
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint("T", {DT_FLOAT, DT_DOUBLE}),
      "First", 10)));
  // Same constraints in another order: still an exact duplicate.
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint("T", {DT_DOUBLE, DT_FLOAT}),
      "Second", 20, "libdup.so")));
  auto warnings = Matching(sink.Messages(LogSeverity::kWarning), "duplicates");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], AllOf(HasSubstr("'Second' (registered at kernels.cc:20 in libdup.so)"),
                                 HasSubstr("'First' (registered at kernels.cc:10)")));
  EXPECT_EQ(kernels_.size(), 2u);
}

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
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"), "KernelOne", 11)));
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint("T", {DT_FLOAT, DT_DOUBLE}),
      "KernelTwo", 22, "libtwo.so")));
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

TEST_F(KernelRegistryTest, NotFoundListsKernelsAndWhyEachWasRejected) {
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"), "CpuFloat", 1)));
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_GPU).TypeConstraint<int32>("T"), "GpuInt", 2)));
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<int32>("T").Label("eigen"),
      "CpuEigenInt", 3)));
  Status s = kernels_.FindKernelDef(DeviceType(DEVICE_CPU), Node("MatMul", DT_INT32),
                                    nullptr, nullptr);
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
  EXPECT_THAT(kernels_.FindKernelDef(DeviceType(DEVICE_CPU), Node("WithDefault"),
                                     nullptr, nullptr),
              StatusIs(error::NOT_FOUND, HasSubstr("Registered kernels:\n  <no registered kernels>\n")));
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
  EXPECT_THAT(none.status, StatusIs(error::NOT_FOUND, HasSubstr("No OpKernel")));
  EXPECT_THAT(none.ToString(), HasSubstr("No kernel selected: Not found"));
}

// --- Replacement -----------------------------------------------------------

TEST_F(KernelRegistryTest, UnregisterAndRestore) {
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"), "Float")));
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<double>("T"), "Double")));
  const KernelDef* float_def = nullptr;
  OPKIT_ASSERT_OK(kernels_.FindKernelDef(DeviceType(DEVICE_CPU), Node("MatMul", DT_FLOAT),
                                         &float_def, nullptr));
  auto handle = kernels_.Unregister(
      KernelFilter().Op("MatMul").Device(DEVICE_CPU).Type("T", DT_FLOAT));
  OPKIT_ASSERT_OK(handle);
  ASSERT_EQ(handle->size(), 1u);
  EXPECT_EQ(handle->kernels()[0], float_def);
  // The pointer handed out before stays valid.
  EXPECT_EQ(float_def->constraint(0).allowed_values().list().type(0), DT_FLOAT);
  EXPECT_THAT(Select(Node("MatMul", DT_FLOAT)), HasSubstr("No OpKernel"));
  EXPECT_EQ(Select(Node("MatMul", DT_DOUBLE)), "Double");
  OPKIT_ASSERT_OK(handle->Restore());
  EXPECT_FALSE(handle->pending_restore());
  EXPECT_EQ(Select(Node("MatMul", DT_FLOAT)), "Float");
  EXPECT_THAT(handle->Restore(), StatusIs(error::FAILED_PRECONDITION, HasSubstr("already restored")));
}

TEST_F(KernelRegistryTest, DestroyingAHandleDoesNotRestore) {
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"), "Float")));
  {
    auto handle = kernels_.Unregister(KernelFilter().KernelClass("Float"));
    OPKIT_ASSERT_OK(handle);
  }
  EXPECT_EQ(kernels_.size(), 0u);
}

TEST_F(KernelRegistryTest, UnregisterByLabelAndNothingMatched) {
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU), "Plain")));
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).Label("eigen"), "Eigen")));
  auto handle = kernels_.Unregister(KernelFilter().Op("MatMul").Label(""));
  OPKIT_ASSERT_OK(handle);
  EXPECT_EQ(handle->size(), 1u);
  EXPECT_EQ(Select(Node("MatMul", DT_FLOAT, "eigen")), "Eigen");
  EXPECT_THAT(kernels_.Unregister(KernelFilter().Op("MatMul").Device(DEVICE_GPU)),
              StatusIs(error::NOT_FOUND,
                       AllOf(HasSubstr("op='MatMul' device='GPU'"),
                             HasSubstr("device='CPU'; label='eigen'"))));
}

TEST_F(KernelRegistryTest, RestoreDoesNotBringBackRemovedLibraries) {
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU), "FromLib", 1, "liba.so")));
  auto handle = kernels_.Unregister(KernelFilter().Op("MatMul"));
  OPKIT_ASSERT_OK(handle);
  OPKIT_ASSERT_OK(kernels_.RemoveLibrary("liba.so"));
  OPKIT_ASSERT_OK(handle->Restore());
  EXPECT_EQ(kernels_.size(), 0u);
}

TEST_F(KernelRegistryTest, ScopedOverrideWinsAndRestores) {
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T").Priority(5),
      "Builtin")));
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<double>("T"), "Double")));
  const uint64_t before = kernels_.generation();
  {
    auto scoped = ScopedKernelOverride::Create(
        &kernels_, Reg(KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                       "Override"));
    OPKIT_ASSERT_OK(scoped);
    EXPECT_EQ((*scoped)->kernel_def().priority(), 6);
    EXPECT_EQ(Select(Node("MatMul", DT_FLOAT)), "Override");
    EXPECT_EQ(Select(Node("MatMul", DT_DOUBLE)), "Double");
    EXPECT_GT(kernels_.generation(), before);
  }
  EXPECT_EQ(Select(Node("MatMul", DT_FLOAT)), "Builtin");
  EXPECT_EQ(kernels_.size(), 2u);
  EXPECT_EQ(kernels_.generation(), before + 2);
}

TEST_F(KernelRegistryTest, ScopedOverrideCannotOutrankMaxPriority) {
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).Priority(INT32_MAX), "Top")));
  EXPECT_THAT(ScopedKernelOverride::Create(
                  &kernels_, Reg(KernelDefBuilder("MatMul").Device(DEVICE_CPU), "O")),
              StatusIs(error::FAILED_PRECONDITION, HasSubstr("highest possible priority")));
  EXPECT_THAT(ScopedKernelOverride::Create(
                  &kernels_, Reg(KernelDefBuilder("Nope").Device(DEVICE_CPU), "O")),
              StatusIs(error::NOT_FOUND, HasSubstr("'Nope'")));
  EXPECT_THAT(ScopedKernelOverride::Create(nullptr, KernelRegistration()),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("registry")));
}

TEST_F(KernelRegistryTest, GenerationBumpsOnEveryMutation) {
  uint64_t g = kernels_.generation();
  KernelBatchId id = 0;
  OPKIT_ASSERT_OK(kernels_.Register(
      Reg(KernelDefBuilder("MatMul").Device(DEVICE_CPU), "A", 1, "libg.so"), &id));
  EXPECT_EQ(kernels_.generation(), ++g);
  auto handle = kernels_.Unregister(KernelFilter().KernelClass("A"));
  OPKIT_ASSERT_OK(handle);
  EXPECT_EQ(kernels_.generation(), ++g);
  OPKIT_ASSERT_OK(handle->Restore());
  EXPECT_EQ(kernels_.generation(), ++g);
  OPKIT_ASSERT_OK(kernels_.RemoveBatch(id));
  EXPECT_EQ(kernels_.generation(), ++g);
  EXPECT_THAT(kernels_.RemoveBatch(id), StatusIs(error::NOT_FOUND, HasSubstr("batch")));
  EXPECT_EQ(kernels_.generation(), g);
  // A failed registration changes nothing.
  EXPECT_FALSE(kernels_.Register(Reg(KernelDefBuilder("Nope").Device(DEVICE_CPU), "X")).ok());
  EXPECT_EQ(kernels_.generation(), g);
}

TEST_F(KernelRegistryTest, LogNamesTheKernelActuallyDisplaced) {
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"), "Low", 1)));
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T").Priority(5),
      "Mid", 2)));
  // Unrelated kernels of the op must not be named.
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<double>("T").Priority(7),
      "OtherType", 3)));
  CapturingSink sink;
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T").Priority(9),
      "High", 4, "libhigh.so")));
  auto changes = Matching(sink.Messages(LogSeverity::kInfo), "now wins over");
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_THAT(changes[0],
              AllOf(HasSubstr("'High' (registered at kernels.cc:4 in libhigh.so) with "
                              "priority 9 now wins over 'Mid' (registered at "
                              "kernels.cc:2) with priority 5"),
                    Not(HasSubstr("'Low'")), Not(HasSubstr("OtherType"))));

  // Unregistering the winner: the next one wins again, named correctly.
  sink.Clear();
  auto handle = kernels_.Unregister(KernelFilter().KernelClass("High"));
  OPKIT_ASSERT_OK(handle);
  changes = Matching(sink.Messages(LogSeverity::kInfo), "now wins over");
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_THAT(changes[0], AllOf(HasSubstr("'Mid' (registered at kernels.cc:2) with priority 5 "
                                          "now wins over 'High'"),
                                HasSubstr("unregistered")));

  // Unregistering a kernel that was not winning logs no change.
  sink.Clear();
  auto low = kernels_.Unregister(KernelFilter().KernelClass("Low"));
  OPKIT_ASSERT_OK(low);
  EXPECT_TRUE(Matching(sink.Messages(LogSeverity::kInfo), "now wins over").empty());

  // Registering a kernel below the winner logs no change either.
  sink.Clear();
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T").Priority(1),
      "Below", 5)));
  EXPECT_TRUE(Matching(sink.Messages(LogSeverity::kInfo), "now wins over").empty());

  // Restoring High displaces Mid again.
  sink.Clear();
  OPKIT_ASSERT_OK(handle->Restore());
  changes = Matching(sink.Messages(LogSeverity::kInfo), "now wins over");
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_THAT(changes[0], HasSubstr("'High' (registered at kernels.cc:4 in libhigh.so) with "
                                    "priority 9 now wins over 'Mid'"));
}

TEST_F(KernelRegistryTest, RemovingTheOnlyKernelIsLogged) {
  OPKIT_ASSERT_OK(kernels_.Register(Reg(
      KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"), "Only", 1)));
  CapturingSink sink;
  auto handle = kernels_.Unregister(KernelFilter().Op("MatMul"));
  OPKIT_ASSERT_OK(handle);
  auto changes = Matching(sink.Messages(LogSeverity::kInfo), "'Only'");
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_THAT(changes[0], HasSubstr("no other kernel matches"));
}

TEST_F(KernelRegistryTest, FilterMatching) {
  KernelRegistration reg =
      Reg(KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T").Label("x"),
          "K", 1, "libk.so");
  EXPECT_TRUE(KernelFilter().Matches(reg));
  EXPECT_TRUE(KernelFilter().Op("MatMul").Device("CPU").Label("x").Matches(reg));
  EXPECT_FALSE(KernelFilter().Label("").Matches(reg));
  EXPECT_TRUE(KernelFilter().Type("T", DT_FLOAT).Matches(reg));
  EXPECT_FALSE(KernelFilter().Type("T", DT_DOUBLE).Matches(reg));
  EXPECT_TRUE(KernelFilter().Type("U", DT_DOUBLE).Matches(reg));  // Unconstrained.
  EXPECT_TRUE(KernelFilter().Library("libk.so").Matches(reg));
  EXPECT_FALSE(KernelFilter().Library("libz.so").Matches(reg));
  EXPECT_EQ(KernelFilter().DebugString(), "<all kernels>");
  EXPECT_EQ(KernelFilter().Op("A").Type("T", DT_FLOAT).DebugString(), "op='A' T=DT_FLOAT");
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
