// Tests of REGISTER_OP and the process-wide pending list: static
// registrations, selective registration, committing a batch all or nothing,
// the handle of what a batch inserted, and Global().
//
// The REGISTER_OPs of this file are taken out of the process-wide pending
// list during static initialization (see kCapturedThisFile), so they never
// reach the global registry.

// Selective registration without a generated header: this file's own filter
// (see selective_registration.h). Must come before op.h.
#define SHOULD_REGISTER_OP(op) RegistryTestShouldRegisterOp(op)

#include "opkit/op/op.h"

#include <string>
#include <type_traits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/core/errors.h"
#include "opkit/op/op_registry.h"
#include "opkit/op/selective_registration.h"
#include "opkit/op/testing/op_registry_test_util.h"
#include "opkit/testing/status_matchers.h"

// The generated-header shape: a constexpr predicate over op names.
constexpr inline bool RegistryTestShouldRegisterOp(const char op[]) {
  return !::opkit::SelectiveNameEquals(op, "RegistryTestFilteredOut");
}

static_assert(::opkit::SelectiveNameEquals("abc", "abc"));
static_assert(!::opkit::SelectiveNameEquals("abc", "abd"));
static_assert(!::opkit::SelectiveNameEquals("abc", "ab"));
static_assert(!SHOULD_REGISTER_OP("RegistryTestFilteredOut"));
static_assert(SHOULD_REGISTER_OP("RegistryTestRegisterOp"));

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;
using op_test::MakeBuilder;
using op_test::MakeOp;
using op_test::Names;
using op_test::SimpleOp;
using op_test::Spec;
using op_test::UnknownShapeForTest;

// Static registrations of this file ---------------------------------------

REGISTER_OP("RegistryTestRegisterOp")
    .Attr("T: {float, int32} = DT_INT32")
    .Input("x: T")
    .Output("y: T")
    .SetShapeFn(UnknownShapeForTest);

REGISTER_OP("RegistryTestRegisterOpTwo").Output("out: float").SetIsStateful();

// A bad spec: must not abort at static-initialization time; the error comes
// out of the commit.
REGISTER_OP("RegistryTestBadSpec").Attr("T: notatype").Output("y: T");

// Filtered out by RegistryTestShouldRegisterOp: records nothing.
REGISTER_OP("RegistryTestFilteredOut").Output("y: float");

// Ignores the filter.
REGISTER_SYSTEM_OP("RegistryTestSystemOp").Output("y: float");

PendingOpRegistrations& CapturedThisFile() {
  static PendingOpRegistrations* const captured = new PendingOpRegistrations;
  return *captured;
}

// Runs after the REGISTER_OPs above (same translation unit, later
// definition), so it sees them whether or not Global() was used earlier.
const bool kCapturedThisFile = [] {
  CapturedThisFile() =
      TakePendingOpRegistrations([](const PendingOpRegistration& r) {
        return r.origin.file == __FILE__;
      });
  return true;
}();

// REGISTER_OP and the pending list -------------------------------------------

TEST(RegisterOpTest, StaticRegistrationsOfThisFileArePending) {
  EXPECT_TRUE(kCapturedThisFile);
  const PendingOpRegistrations& captured = CapturedThisFile();
  EXPECT_THAT(Names(captured),
              UnorderedElementsAre("RegistryTestRegisterOp",
                                   "RegistryTestRegisterOpTwo",
                                   "RegistryTestBadSpec",
                                   "RegistryTestSystemOp"));
  for (const auto& r : captured) {
    EXPECT_EQ(r.origin.file, __FILE__);
    EXPECT_GT(r.origin.line, 0);
    EXPECT_TRUE(r.origin.library.empty());
    EXPECT_TRUE(static_cast<bool>(r.factory));
  }
}

TEST(RegisterOpTest, CommitIsAllOrNothingAndNamesTheBadSpec) {
  OpRegistry registry;
  Status s = CommitOpRegistrations(CapturedThisFile(), &registry, "libt.so");
  EXPECT_THAT(s, StatusIs(error::INVALID_ARGUMENT,
                          HasSubstr("RegistryTestBadSpec")));
  EXPECT_THAT(s, StatusIs(error::INVALID_ARGUMENT, HasSubstr(__FILE__)));
  EXPECT_THAT(s, StatusIs(error::INVALID_ARGUMENT, HasSubstr("in libt.so")));
  EXPECT_EQ(registry.size(), 0u);
}

TEST(RegisterOpTest, CommitIntoATestRegistry) {
  PendingOpRegistrations good;
  for (const auto& r : CapturedThisFile()) {
    if (r.op_name != "RegistryTestBadSpec") good.push_back(r);
  }
  OpRegistry registry;
  OPKIT_ASSERT_OK(CommitOpRegistrations(good, &registry, "/tmp/libt.so"));
  EXPECT_EQ(registry.size(), 3u);
  const OpRegistrationData* data = registry.LookUp("RegistryTestRegisterOp");
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(data->origin.file, __FILE__);
  EXPECT_GT(data->origin.line, 0);
  EXPECT_EQ(data->origin.library, "/tmp/libt.so");
  EXPECT_TRUE(static_cast<bool>(data->shape_inference_fn));
  EXPECT_EQ(data->op_def.attr(0).default_value().type(), DT_INT32);
  EXPECT_TRUE(registry.LookUp("RegistryTestRegisterOpTwo")->op_def.is_stateful());
  EXPECT_EQ(registry.LookUp("RegistryTestFilteredOut"), nullptr);

  // What the loader does when the library goes away.
  std::vector<std::string> removed;
  OPKIT_ASSERT_OK(registry.DeregisterLibrary("/tmp/libt.so", &removed));
  EXPECT_EQ(removed.size(), 3u);
}

// Note [Registration batches]: a committed batch's handle removes exactly
// the ops that batch inserted.
TEST(RegisterOpTest, BatchHandleRemovesExactlyTheOpsItInserted) {
  OpRegistry registry;
  OPKIT_ASSERT_OK(registry.Register(SimpleOp("Before", {"before.cc", 1, ""})));
  auto pending = [](const std::string& name, int line) {
    return PendingOpRegistration{
        name, RegistrationOrigin{"batch.cc", line, ""},
        [name](OpRegistrationData* data) {
          *data = SimpleOp(name);
          return OkStatus();
        }};
  };
  PendingOpRegistrations batch;
  batch.push_back(pending("Mine", 1));
  batch.push_back(pending("Before", 2));  // Identical: kept from before.cc.
  batch.push_back(pending("MineToo", 3));
  StatusOr<CommittedOpBatch> committed =
      CommitOpBatch(std::move(batch), &registry, "libmine.so");
  OPKIT_ASSERT_OK(committed);
  std::vector<std::string> registered;
  for (const OpDef& def : committed->registered) registered.push_back(def.name());
  EXPECT_THAT(registered, ElementsAre("Mine", "MineToo"));
  ASSERT_EQ(committed->redeclared.size(), 1u);
  EXPECT_EQ(committed->redeclared[0].op_def.name(), "Before");
  EXPECT_EQ(committed->redeclared[0].origin.ToString(), "batch.cc:2 in libmine.so");
  OPKIT_ASSERT_OK(registry.Register(SimpleOp("After", {"after.cc", 1, "libmine.so"})));
  EXPECT_EQ(registry.size(), 4u);

  OPKIT_ASSERT_OK(committed->handle.Remove());
  EXPECT_EQ(registry.LookUp("Mine"), nullptr);
  EXPECT_EQ(registry.LookUp("MineToo"), nullptr);
  ASSERT_NE(registry.LookUp("Before"), nullptr);
  EXPECT_EQ(registry.LookUp("Before")->origin.file, "before.cc");
  EXPECT_NE(registry.LookUp("After"), nullptr);
  EXPECT_EQ(registry.size(), 2u);

  // Destroying a handle removes its batch; a failed commit yields none and
  // changes nothing.
  {
    PendingOpRegistrations scoped;
    scoped.push_back(pending("Scoped", 4));
    StatusOr<CommittedOpBatch> handle = CommitOpBatch(std::move(scoped), &registry, "");
    OPKIT_ASSERT_OK(handle);
    EXPECT_NE(registry.LookUp("Scoped"), nullptr);
  }
  EXPECT_EQ(registry.LookUp("Scoped"), nullptr);
  PendingOpRegistrations failing;
  failing.push_back(pending("Fresh", 5));
  failing.push_back(PendingOpRegistration{"After", {"batch.cc", 6, ""},
                                          [](OpRegistrationData* data) {
                                            *data = MakeOp({"After", {}, {}, {"y: int32"}});
                                            return OkStatus();
                                          }});
  const uint64_t generation = registry.generation();
  EXPECT_THAT(CommitOpBatch(std::move(failing), &registry, "").status(),
              StatusIs(error::ALREADY_EXISTS,
                       AllOf(HasSubstr("after.cc:1 in libmine.so"),
                             HasSubstr("in the registration of op 'After' at batch.cc:6"))));
  EXPECT_EQ(registry.LookUp("Fresh"), nullptr);
  EXPECT_EQ(registry.generation(), generation);
  EXPECT_THAT(CommitOpBatch({}, nullptr, "").status(),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("got null")));
}

TEST(RegisterOpTest, ReceiverAndPendingListCanBeDrivenDirectly) {
  // Commit whatever is linked into the program first so that only this
  // test's registrations are pending below.
  ASSERT_NE(OpRegistry::Global(), nullptr);
  TakePendingOpRegistrations([](const PendingOpRegistration& r) {
    return r.op_name.rfind("RegistryTestDirect", 0) == 0;
  });
  const size_t before = NumPendingOpRegistrations();

  register_op::OpDefBuilderReceiver receiver(
      register_op::OpDefBuilderWrapper<true>("RegistryTestDirectA", "direct.cc",
                                             5)
          .Output("y: float"));
  register_op::OpDefBuilderReceiver ignored(
      register_op::OpDefBuilderWrapper<false>("RegistryTestDirectIgnored",
                                              "direct.cc", 6)
          .Output("y: float")
          .SetShapeFn(UnknownShapeForTest));
  AddPendingOpRegistration(OpDefBuilder("RegistryTestDirectB").Output("y: int32"),
                           {"direct.cc", 7, ""});
  EXPECT_EQ(NumPendingOpRegistrations(), before + 2);

  PendingOpRegistrations mine =
      TakePendingOpRegistrations([](const PendingOpRegistration& r) {
        return r.op_name.rfind("RegistryTestDirect", 0) == 0;
      });
  EXPECT_THAT(Names(mine),
              ElementsAre("RegistryTestDirectA", "RegistryTestDirectB"));
  EXPECT_EQ(NumPendingOpRegistrations(), before);
  EXPECT_EQ(mine[0].origin.line, 5);

  OpRegistry registry;
  OPKIT_ASSERT_OK(CommitOpRegistrations(std::move(mine), &registry, ""));
  EXPECT_EQ(registry.LookUp("RegistryTestDirectB")->origin.ToString(),
            "direct.cc:7");
  EXPECT_THAT(TakePendingOpRegistrations(nullptr), IsEmpty());
}

TEST(RegisterOpTest, WrapperWithoutTemplateArgumentRegistersLikeTensorFlow2) {
  // TensorFlow 2.x spells the wrapper without <true>; the origin defaults to
  // the line that constructs it.
  static_assert(std::is_same_v<decltype(register_op::OpDefBuilderWrapper("X")),
                               register_op::OpDefBuilderWrapper<true>>);
  ASSERT_NE(OpRegistry::Global(), nullptr);
  const auto is_mine = [](const PendingOpRegistration& r) {
    return r.op_name == "RegistryTestWrapperV2";
  };
  TakePendingOpRegistrations(is_mine);
  const int line = __LINE__ + 2;
  [[maybe_unused]] register_op::OpDefBuilderReceiver receiver =
      register_op::OpDefBuilderWrapper("RegistryTestWrapperV2").Output("y: float");
  register_op::OpDefBuilderWrapper<true> wrapper("RegistryTestWrapperV2Unused");
  wrapper.builder().Output("y: int32");  // TensorFlow's mutable builder()
  EXPECT_EQ(wrapper.builder().op_name(), "RegistryTestWrapperV2Unused");

  PendingOpRegistrations mine = TakePendingOpRegistrations(is_mine);
  ASSERT_EQ(mine.size(), 1u);
  EXPECT_EQ(mine[0].origin.line, line);
  EXPECT_THAT(mine[0].origin.file, ::testing::EndsWith("register_op_test.cc"));
  OpRegistry registry;
  OPKIT_ASSERT_OK(CommitOpRegistrations(std::move(mine), &registry, ""));
  EXPECT_EQ(registry.LookUp("RegistryTestWrapperV2")->op_def.output_arg_size(), 1);
}

TEST(RegisterOpTest, CommitPendingTakesEverythingPending) {
  ASSERT_NE(OpRegistry::Global(), nullptr);  // Linked-in ops are committed.
  PendingOpRegistrations before = TakePendingOpRegistrations();
  AddPendingOpRegistration(OpDefBuilder("RegistryTestPendingA").Output("y: float"),
                           {"p.cc", 1, ""});
  AddPendingOpRegistration(OpDefBuilder("RegistryTestPendingB").Output("y: float"),
                           {"p.cc", 2, ""});
  OpRegistry registry;
  OPKIT_ASSERT_OK(CommitPendingOpRegistrations(&registry, "/lib/p.so"));
  EXPECT_EQ(NumPendingOpRegistrations(), 0u);
  EXPECT_EQ(registry.size(), 2u);
  EXPECT_EQ(registry.LookUp("RegistryTestPendingA")->origin.library,
            "/lib/p.so");

  // A failed commit consumes what it took; a null registry is an error.
  AddPendingOpRegistration(OpDefBuilder("RegistryTestPendingC").Attr("x: bogus"),
                           {"p.cc", 3, ""});
  EXPECT_THAT(CommitPendingOpRegistrations(&registry, "/lib/p.so"),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("RegistryTestPendingC")));
  EXPECT_EQ(NumPendingOpRegistrations(), 0u);
  EXPECT_THAT(CommitPendingOpRegistrations(nullptr, ""),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("got null")));
  for (auto& r : before) AddPendingOpRegistration(std::move(r));
}

TEST(RegisterOpTest, PendingRegistrationWithoutFactoryIsAnError) {
  PendingOpRegistration r;
  r.op_name = "RegistryTestNoFactory";
  r.origin = {"nf.cc", 4, ""};
  PendingOpRegistrations regs;
  regs.push_back(r);
  OpRegistry registry;
  EXPECT_THAT(CommitOpRegistrations(std::move(regs), &registry, ""),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("'RegistryTestNoFactory' at nf.cc:4")));
}

// The global registry ---------------------------------------------------------

TEST(GlobalOpRegistryTest, IsOneInstanceAndMentionsPendingRegistrations) {
  OpRegistry* global = OpRegistry::Global();
  ASSERT_NE(global, nullptr);
  EXPECT_EQ(OpRegistry::Global(), global);

  AddPendingOpRegistration(
      OpDefBuilder("RegistryTestGlobalOp").Output("y: float"), {"g.cc", 1, ""});
  const OpRegistrationData* data = nullptr;
  EXPECT_THAT(global->LookUp("RegistryTestGlobalOp", &data),
              StatusIs(error::NOT_FOUND,
                       HasSubstr("pending and not committed")));

  PendingOpRegistrations mine =
      TakePendingOpRegistrations([](const PendingOpRegistration& r) {
        return r.op_name == "RegistryTestGlobalOp";
      });
  ASSERT_EQ(mine.size(), 1u);
  OPKIT_ASSERT_OK(CommitOpRegistrations(std::move(mine), global, ""));
  OPKIT_EXPECT_OK(global->LookUp("RegistryTestGlobalOp", &data));
  // Leave the process-wide registry as it was.
  OPKIT_EXPECT_OK(global->Deregister({"RegistryTestGlobalOp"}));
}

}  // namespace
}  // namespace opkit
