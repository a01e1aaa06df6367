// Tests of OpRegistry (registering, looking up, batches, watchers,
// deregistering, concurrency) and OpListOpRegistry. REGISTER_OP and the
// pending list are tested in register_op_test.cc. Each test builds its own
// OpRegistry.
#include "opkit/op/op_registry.h"

#include <atomic>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/core/errors.h"
#include "opkit/core/logging.h"
#include "opkit/core/mutex.h"
#include "opkit/op/op_def_util.h"
#include "opkit/op/testing/op_registry_test_util.h"
#include "opkit/testing/status_matchers.h"
#include "opkit/testing/test_data.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::UnorderedElementsAre;
using op_test::MakeBuilder;
using op_test::MakeOp;
using op_test::Names;
using op_test::SimpleOp;
using op_test::Spec;
using op_test::UnknownShapeForTest;

class CollectingSink : public LogSink {
 public:
  void Send(const LogEntry& entry) override {
    mutex_lock lock(mu_);
    messages_.push_back(entry.message);
  }
  std::vector<std::string> messages() {
    mutex_lock lock(mu_);
    return messages_;
  }

 private:
  mutex mu_;
  std::vector<std::string> messages_;
};

// Register and look up --------------------------------------------------------

TEST(OpRegistryTest, RegisterThenLookUp) {
  OpRegistry registry;
  EXPECT_EQ(registry.size(), 0u);
  const uint64_t gen0 = registry.generation();
  OpRegistrationData data = SimpleOp("Foo", {"foo.cc", 12, ""});
  data.shape_inference_fn = UnknownShapeForTest;
  OPKIT_ASSERT_OK(registry.Register(std::move(data)));
  EXPECT_EQ(registry.size(), 1u);
  EXPECT_GT(registry.generation(), gen0);

  const OpRegistrationData* found = nullptr;
  OPKIT_ASSERT_OK(registry.LookUp("Foo", &found));
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->op_def.name(), "Foo");
  EXPECT_TRUE(static_cast<bool>(found->shape_inference_fn));
  EXPECT_EQ(found->origin.file, "foo.cc");
  EXPECT_EQ(found->origin.line, 12);
  EXPECT_EQ(registry.LookUp("Foo"), found);

  const OpDef* op_def = nullptr;
  OPKIT_ASSERT_OK(registry.LookUpOpDef("Foo", &op_def));
  EXPECT_EQ(op_def, &found->op_def);
}

TEST(OpRegistryTest, RegisterFromFactory) {
  OpRegistry registry;
  OPKIT_ASSERT_OK(registry.Register([](OpRegistrationData* data) {
    return OpDefBuilder("FromFactory").Output("y: int32").Finalize(data);
  }));
  EXPECT_NE(registry.LookUp("FromFactory"), nullptr);
}

TEST(OpRegistryTest, LookUpPointerStaysValidAsRegistryGrows) {
  OpRegistry registry;
  OPKIT_ASSERT_OK(registry.Register(SimpleOp("First")));
  const OpRegistrationData* first = registry.LookUp("First");
  ASSERT_NE(first, nullptr);
  for (int i = 0; i < 200; ++i) {
    OPKIT_ASSERT_OK(registry.Register(SimpleOp("Grow" + std::to_string(i))));
  }
  EXPECT_EQ(registry.LookUp("First"), first);
  EXPECT_EQ(first->op_def.name(), "First");
}

TEST(OpRegistryTest, NotFoundMessage) {
  OpRegistry registry;
  OPKIT_ASSERT_OK(registry.Register(SimpleOp("MatMul")));
  const OpRegistrationData* found = registry.LookUp("MatMul");
  ASSERT_NE(found, nullptr);
  EXPECT_THAT(registry.LookUp("Foo", &found),
              StatusIs(error::NOT_FOUND,
                       HasSubstr("Op type not registered 'Foo' in binary "
                                 "running on ")));
  EXPECT_EQ(found, nullptr);
  EXPECT_THAT(registry.LookUp("Foo", &found),
              StatusIs(error::NOT_FOUND,
                       HasSubstr("Make sure the Op and Kernel are registered "
                                 "in the binary running in this process.")));
  EXPECT_THAT(registry.LookUp("Foo", &found),
              StatusIs(error::NOT_FOUND, HasSubstr("LoadOpLibrary(path)")));
  EXPECT_THAT(registry.LookUp("Foo", &found),
              StatusIs(error::NOT_FOUND, Not(HasSubstr("Did you mean"))));
  EXPECT_EQ(registry.LookUp("Foo"), nullptr);

  const OpDef* op_def = reinterpret_cast<const OpDef*>(&registry);
  EXPECT_THAT(registry.LookUpOpDef("Foo", &op_def),
              StatusIs(error::NOT_FOUND, HasSubstr("'Foo'")));
  EXPECT_EQ(op_def, nullptr);
}

TEST(OpRegistryTest, NotFoundSuggestsCloseNames) {
  OpRegistry registry;
  OPKIT_ASSERT_OK(registry.Register(SimpleOp("MatMul")));
  OPKIT_ASSERT_OK(registry.Register(SimpleOp("BatchMatMul")));
  OPKIT_ASSERT_OK(registry.Register(SimpleOp("Relu")));
  const OpRegistrationData* found = nullptr;
  EXPECT_THAT(registry.LookUp("MatMull", &found),
              StatusIs(error::NOT_FOUND, HasSubstr("Did you mean 'MatMul'?")));
  EXPECT_THAT(registry.LookUp("matmul", &found),
              StatusIs(error::NOT_FOUND, HasSubstr("Did you mean 'MatMul'?")));
  EXPECT_THAT(registry.LookUp("Relu6", &found),
              StatusIs(error::NOT_FOUND, HasSubstr("'Relu'")));
  EXPECT_THAT(registry.LookUp("Conv2D", &found),
              StatusIs(error::NOT_FOUND, Not(HasSubstr("Did you mean"))));
}

TEST(OpRegistryTest, NotFoundMessageIsBoundedAndPrintable) {
  OpRegistry registry;
  const OpRegistrationData* found = nullptr;
  const std::string huge(100000, 'A');
  Status s = registry.LookUp(huge, &found);
  EXPECT_THAT(s, StatusIs(error::NOT_FOUND, HasSubstr("(100000 bytes)")));
  EXPECT_LT(s.message().size(), 2000u);
  EXPECT_THAT(registry.LookUp(std::string("Bad\nName\0X", 10), &found),
              StatusIs(error::NOT_FOUND, HasSubstr("'Bad\\x0aName\\x00X'")));
  EXPECT_THAT(registry.LookUp("", &found),
              StatusIs(error::NOT_FOUND, HasSubstr("not registered ''")));
}

// Listing and export ---------------------------------------------------------

TEST(OpRegistryTest, ListAndExportSortedByName) {
  OpRegistry registry;
  OPKIT_ASSERT_OK(registry.Register(SimpleOp("Zeta")));
  OPKIT_ASSERT_OK(registry.Register(SimpleOp("_Internal")));
  OPKIT_ASSERT_OK(registry.Register(SimpleOp("Alpha")));
  OPKIT_ASSERT_OK(registry.Register(SimpleOp("Mid")));

  OpList list;
  *list.add_op() = SimpleOp("Stale").op_def;  // Export replaces, not appends.
  registry.Export(false, &list);
  EXPECT_THAT(Names(list), ElementsAre("Alpha", "Mid", "Zeta"));
  registry.Export(true, &list);
  EXPECT_THAT(Names(list), ElementsAre("Alpha", "Mid", "Zeta", "_Internal"));
  registry.Export(true, nullptr);  // Ignored, not a crash.

  std::vector<OpDef> defs;
  registry.GetRegisteredOps(&defs);
  ASSERT_EQ(defs.size(), 4u);
  EXPECT_EQ(defs[0].name(), "Alpha");
  EXPECT_EQ(defs[3].name(), "_Internal");

  std::vector<OpRegistrationData> data;
  registry.GetOpRegistrationData(&data);
  ASSERT_EQ(data.size(), 4u);
  EXPECT_EQ(data[1].op_def.name(), "Mid");
}

TEST(OpRegistryTest, DebugStringHasOneSummaryPerOp) {
  OpRegistry registry;
  OPKIT_ASSERT_OK(registry.Register(SimpleOp("Beta")));
  OPKIT_ASSERT_OK(registry.Register(SimpleOp("_Hidden")));
  OPKIT_ASSERT_OK(registry.Register(SimpleOp("Alpha")));
  const std::string alpha = SummarizeOpDef(registry.LookUp("Alpha")->op_def);
  const std::string beta = SummarizeOpDef(registry.LookUp("Beta")->op_def);
  const std::string hidden =
      SummarizeOpDef(registry.LookUp("_Hidden")->op_def);
  EXPECT_EQ(registry.DebugString(false), alpha + "\n" + beta + "\n");
  EXPECT_EQ(registry.DebugString(true),
            alpha + "\n" + beta + "\n" + hidden + "\n");
  EXPECT_EQ(OpRegistry().DebugString(true), "");
}

// Duplicates and validation ---------------------------------------------------

TEST(OpRegistryTest, DuplicateWithDifferentOpDefNamesBothOrigins) {
  OpRegistry registry;
  OPKIT_ASSERT_OK(registry.Register(
      MakeOp({"Dup", {}, {}, {"y: float"}}, {"first.cc", 10, "libfirst.so"})));
  const uint64_t gen = registry.generation();
  Status s = registry.Register(
      MakeOp({"Dup", {}, {}, {"y: int32"}}, {"second.cc", 20, "libsecond.so"}));
  EXPECT_THAT(s, StatusIs(error::ALREADY_EXISTS,
                          HasSubstr("Op with name 'Dup' is already registered "
                                    "from first.cc:10 in libfirst.so")));
  EXPECT_THAT(s, StatusIs(error::ALREADY_EXISTS,
                          HasSubstr("second.cc:20 in libsecond.so")));
  EXPECT_EQ(registry.generation(), gen);
  EXPECT_EQ(registry.LookUp("Dup")->origin.file, "first.cc");
  EXPECT_EQ(registry.LookUp("Dup")->op_def.output_arg(0).type(), DT_FLOAT);
}

TEST(OpRegistryTest, IdenticalRedeclarationIsAcceptedAndKeepsTheFirst) {
  SetMinLogLevel(0);
  CollectingSink sink;
  AddLogSink(&sink);
  OpRegistry registry;
  OPKIT_ASSERT_OK(registry.Register(SimpleOp("Same", {"a.cc", 1, ""})));
  const uint64_t gen = registry.generation();
  OPKIT_EXPECT_OK(registry.Register(SimpleOp("Same", {"b.cc", 2, "libb.so"})));
  RemoveLogSink(&sink);
  EXPECT_EQ(registry.size(), 1u);
  EXPECT_EQ(registry.generation(), gen);
  EXPECT_EQ(registry.LookUp("Same")->origin.file, "a.cc");
  bool logged = false;
  for (const std::string& m : sink.messages()) {
    if (m.find("'Same' registered again from b.cc:2 in libb.so") !=
            std::string::npos &&
        m.find("keeping the registration from a.cc:1") != std::string::npos) {
      logged = true;
    }
  }
  EXPECT_TRUE(logged);
}

TEST(OpRegistryTest, InvalidOpDefIsRejectedWithItsOrigin) {
  OpRegistry registry;
  OpRegistrationData data;
  data.op_def.set_name("lowercase_name");
  data.origin = {"bad.cc", 7, "libbad.so"};
  Status s = registry.Register(std::move(data));
  EXPECT_THAT(s, StatusIs(error::INVALID_ARGUMENT,
                          HasSubstr("in the registration of op "
                                    "'lowercase_name' at bad.cc:7 in "
                                    "libbad.so")));
  EXPECT_EQ(registry.size(), 0u);

  OpRegistrationData empty;
  EXPECT_THAT(registry.Register(std::move(empty)),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("<unknown>")));
}

TEST(OpRegistryTest, FactoryErrorsAndExceptionsBecomeStatuses) {
  OpRegistry registry;
  EXPECT_THAT(registry.Register([](OpRegistrationData* data) {
    data->op_def.set_name("Broken");
    return errors::InvalidArgument("factory says no");
  }),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("factory says no\n\tin the registration of "
                                 "op 'Broken'")));
  EXPECT_THAT(registry.Register([](OpRegistrationData*) -> Status {
    throw std::runtime_error("boom");
  }),
              StatusIs(error::INTERNAL, HasSubstr("boom")));
  EXPECT_THAT(registry.Register(OpRegistrationDataFactory()),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("empty factory")));
  EXPECT_THAT(
      registry.Register([](OpRegistrationData* data) {
        return OpDefBuilder("BadAttr").Attr("T: notatype").Finalize(data);
      }),
      StatusIs(error::INVALID_ARGUMENT, HasSubstr("BadAttr")));
  EXPECT_EQ(registry.size(), 0u);
}

// Batches ---------------------------------------------------------------------

TEST(OpRegistryTest, BatchLandsWhole) {
  OpRegistry registry;
  const uint64_t gen = registry.generation();
  std::vector<OpRegistrationData> batch;
  batch.push_back(SimpleOp("B1"));
  batch.push_back(SimpleOp("B2"));
  batch.push_back(SimpleOp("B3"));
  OPKIT_ASSERT_OK(registry.RegisterBatch(std::move(batch)));
  EXPECT_EQ(registry.size(), 3u);
  EXPECT_EQ(registry.generation(), gen + 1);
  OPKIT_EXPECT_OK(registry.RegisterBatch(std::vector<OpRegistrationData>()));
  EXPECT_EQ(registry.generation(), gen + 1);
}

TEST(OpRegistryTest, BatchWithBadSpecInTheMiddleChangesNothing) {
  OpRegistry registry;
  OPKIT_ASSERT_OK(registry.Register(SimpleOp("Existing")));
  const uint64_t gen = registry.generation();
  std::vector<OpRegistrationDataFactory> factories = {
      [](OpRegistrationData* d) {
        return OpDefBuilder("Good1").Output("y: float").Finalize(d);
      },
      [](OpRegistrationData* d) {
        return OpDefBuilder("BadMiddle").Attr("T: notatype").Finalize(d);
      },
      [](OpRegistrationData* d) {
        return OpDefBuilder("Good2").Output("y: float").Finalize(d);
      },
  };
  EXPECT_THAT(registry.RegisterBatch(factories),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("BadMiddle")));
  EXPECT_EQ(registry.size(), 1u);
  EXPECT_EQ(registry.LookUp("Good1"), nullptr);
  EXPECT_EQ(registry.LookUp("Good2"), nullptr);
  EXPECT_EQ(registry.generation(), gen);
}

TEST(OpRegistryTest, BatchCollidingWithRegistryChangesNothing) {
  OpRegistry registry;
  OPKIT_ASSERT_OK(registry.Register(
      MakeOp({"Taken", {}, {}, {"y: float"}}, {"lib_a.cc", 1, "liba.so"})));
  std::vector<OpRegistrationData> batch;
  batch.push_back(SimpleOp("Fresh", {"lib_b.cc", 1, "libb.so"}));
  batch.push_back(
      MakeOp({"Taken", {}, {}, {"y: int64"}}, {"lib_b.cc", 2, "libb.so"}));
  EXPECT_THAT(registry.RegisterBatch(std::move(batch)),
              StatusIs(error::ALREADY_EXISTS,
                       HasSubstr("lib_a.cc:1 in liba.so with a different "
                                 "OpDef than the one registered from "
                                 "lib_b.cc:2 in libb.so")));
  EXPECT_EQ(registry.LookUp("Fresh"), nullptr);
  EXPECT_EQ(registry.size(), 1u);
}

TEST(OpRegistryTest, DuplicatesInsideOneBatch) {
  OpRegistry registry;
  std::vector<OpRegistrationData> conflicting;
  conflicting.push_back(
      MakeOp({"Twice", {}, {}, {"y: float"}}, {"x.cc", 1, "libx.so"}));
  conflicting.push_back(
      MakeOp({"Twice", {}, {}, {"y: int32"}}, {"x.cc", 9, "libx.so"}));
  Status s = registry.RegisterBatch(std::move(conflicting));
  EXPECT_THAT(s, StatusIs(error::ALREADY_EXISTS, HasSubstr("x.cc:1")));
  EXPECT_THAT(s, StatusIs(error::ALREADY_EXISTS, HasSubstr("x.cc:9")));
  EXPECT_EQ(registry.size(), 0u);

  SetMinLogLevel(0);
  CollectingSink sink;
  AddLogSink(&sink);
  std::vector<OpRegistrationData> identical;
  identical.push_back(SimpleOp("Twice", {"x.cc", 1, ""}));
  identical.push_back(SimpleOp("Twice", {"x.cc", 9, ""}));
  OPKIT_ASSERT_OK(registry.RegisterBatch(std::move(identical)));
  RemoveLogSink(&sink);
  EXPECT_EQ(registry.size(), 1u);
  EXPECT_EQ(registry.LookUp("Twice")->origin.line, 1);
  EXPECT_THAT(sink.messages(),
              ::testing::Contains(HasSubstr(
                  "from x.cc:9 with an identical OpDef; keeping the "
                  "registration from x.cc:1")));
}

// Watchers --------------------------------------------------------------------

TEST(OpRegistryTest, WatcherSeesEveryRegistrationAndCanVeto) {
  OpRegistry registry;
  std::vector<std::string> seen;
  OPKIT_ASSERT_OK(registry.SetWatcher(
      [&seen](const Status& s, const OpDef& def) -> Status {
        seen.push_back(def.name() + (s.ok() ? ":ok" : ":error"));
        if (def.name() == "Vetoed") {
          return errors::PermissionDenied("watcher refuses ", def.name());
        }
        return s;
      }));
  OPKIT_ASSERT_OK(registry.Register(SimpleOp("Watched")));
  std::vector<OpRegistrationData> batch;
  batch.push_back(SimpleOp("BeforeVeto"));
  batch.push_back(SimpleOp("Vetoed"));
  batch.push_back(SimpleOp("AfterVeto"));
  EXPECT_THAT(registry.RegisterBatch(std::move(batch)),
              StatusIs(error::PERMISSION_DENIED,
                       HasSubstr("watcher refuses Vetoed")));
  EXPECT_EQ(registry.LookUp("BeforeVeto"), nullptr);
  EXPECT_EQ(registry.LookUp("Vetoed"), nullptr);
  EXPECT_EQ(registry.size(), 1u);
  // The watcher also sees failures.
  EXPECT_THAT(registry.Register(MakeOp({"Watched", {}, {}, {"z: int8"}})),
              StatusIs(error::ALREADY_EXISTS, HasSubstr("Watched")));
  EXPECT_THAT(seen, ElementsAre("Watched:ok", "BeforeVeto:ok", "Vetoed:ok",
                                "Watched:error"));
}

TEST(OpRegistryTest, WatcherCanForgiveAFailureAsTensorFlowAllows) {
  OpRegistry registry;
  OPKIT_ASSERT_OK(registry.Register(MakeOp({"Kept", {}, {}, {"y: float"}})));
  OPKIT_ASSERT_OK(registry.SetWatcher([](const Status& s, const OpDef&) {
    return errors::IsAlreadyExists(s) ? OkStatus() : s;
  }));
  std::vector<OpRegistrationData> batch;
  batch.push_back(MakeOp({"Kept", {}, {}, {"y: int32"}}));
  batch.push_back(SimpleOp("Added"));
  OPKIT_ASSERT_OK(registry.RegisterBatch(std::move(batch)));
  EXPECT_EQ(registry.LookUp("Kept")->op_def.output_arg(0).type(), DT_FLOAT);
  EXPECT_NE(registry.LookUp("Added"), nullptr);
}

TEST(OpRegistryTest, OnlyOneWatcherAtATime) {
  OpRegistry registry;
  auto pass = [](const Status& s, const OpDef&) { return s; };
  OPKIT_ASSERT_OK(registry.SetWatcher(pass));
  EXPECT_THAT(registry.SetWatcher(pass),
              StatusIs(error::ALREADY_EXISTS,
                       HasSubstr("Cannot over-write a valid watcher")));
  OPKIT_ASSERT_OK(registry.SetWatcher(nullptr));
  OPKIT_ASSERT_OK(registry.SetWatcher(pass));
}

TEST(OpRegistryTest, WatcherExceptionVetoes) {
  OpRegistry registry;
  OPKIT_ASSERT_OK(
      registry.SetWatcher([](const Status&, const OpDef&) -> Status {
        throw std::runtime_error("watcher broke");
      }));
  EXPECT_THAT(registry.Register(SimpleOp("Any")),
              StatusIs(error::INTERNAL, HasSubstr("watcher broke")));
  EXPECT_EQ(registry.size(), 0u);
}

// Removal ---------------------------------------------------------------------

TEST(OpRegistryTest, DeregisterIsAllOrNothing) {
  OpRegistry registry;
  OPKIT_ASSERT_OK(registry.Register(SimpleOp("R1")));
  OPKIT_ASSERT_OK(registry.Register(SimpleOp("R2")));
  const uint64_t gen = registry.generation();
  EXPECT_THAT(registry.Deregister({"R1", "Nope", "Nada"}),
              StatusIs(error::NOT_FOUND,
                       HasSubstr("not registered: 'Nope', 'Nada'; nothing was "
                                 "removed")));
  EXPECT_EQ(registry.size(), 2u);
  EXPECT_EQ(registry.generation(), gen);
  OPKIT_ASSERT_OK(registry.Deregister({"R1"}));
  EXPECT_EQ(registry.LookUp("R1"), nullptr);
  EXPECT_GT(registry.generation(), gen);
  // A name can be registered again after removal.
  OPKIT_EXPECT_OK(registry.Register(MakeOp({"R1", {}, {}, {"y: bool"}})));
}

TEST(OpRegistryTest, DeregisterLibraryRemovesWhatItRegistered) {
  OpRegistry registry;
  OPKIT_ASSERT_OK(registry.Register(SimpleOp("Builtin", {"b.cc", 1, ""})));
  std::vector<OpRegistrationData> lib;
  lib.push_back(SimpleOp("LibB", {"l.cc", 1, "/x/libl.so"}));
  lib.push_back(SimpleOp("LibA", {"l.cc", 2, "/x/libl.so"}));
  OPKIT_ASSERT_OK(registry.RegisterBatch(std::move(lib)));
  OPKIT_ASSERT_OK(registry.Register(SimpleOp("Other", {"o.cc", 1, "/o.so"})));

  std::vector<std::string> removed;
  const uint64_t gen = registry.generation();
  OPKIT_ASSERT_OK(registry.DeregisterLibrary("/x/libl.so", &removed));
  EXPECT_THAT(removed, ElementsAre("LibA", "LibB"));
  EXPECT_GT(registry.generation(), gen);
  EXPECT_EQ(registry.size(), 2u);

  OPKIT_ASSERT_OK(registry.DeregisterLibrary("/never/loaded.so", &removed));
  EXPECT_THAT(removed, IsEmpty());
  EXPECT_THAT(registry.DeregisterLibrary(""),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Deregister()")));
  EXPECT_EQ(registry.size(), 2u);
}

// OpListOpRegistry and ops.pbtxt ---------------------------------------------

OpList TwoOps() {
  OpList list;
  *list.add_op() = SimpleOp("ListA").op_def;
  *list.add_op() = SimpleOp("ListB").op_def;
  return list;
}

TEST(OpListOpRegistryTest, LooksUpWhatTheListHolds) {
  OpList list = TwoOps();
  OpListOpRegistry registry(&list);
  list.Clear();  // The registry holds copies.
  EXPECT_EQ(registry.size(), 2u);
  const OpRegistrationData* data = nullptr;
  OPKIT_ASSERT_OK(registry.LookUp("ListB", &data));
  EXPECT_EQ(data->op_def.name(), "ListB");
  EXPECT_FALSE(static_cast<bool>(data->shape_inference_fn));
  const OpDef* def = nullptr;
  OPKIT_EXPECT_OK(registry.LookUpOpDef("ListA", &def));
  EXPECT_THAT(registry.LookUp("ListC", &data),
              StatusIs(error::NOT_FOUND,
                       HasSubstr("Op type not registered 'ListC'")));
  EXPECT_EQ(data, nullptr);
  EXPECT_THAT(registry.LookUp("ListC", &data),
              StatusIs(error::NOT_FOUND, HasSubstr("Did you mean 'ListA'")));

  OpListOpRegistry empty(nullptr);
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_EQ(empty.LookUp("ListA"), nullptr);
}

TEST(OpListOpRegistryTest, DuplicatesKeepTheFirstOrFailCreate) {
  OpList list = TwoOps();
  OpDef dup = MakeOp({"ListA", {}, {}, {"other: float"}}).op_def;
  *list.add_op() = dup;
  OpListOpRegistry registry(&list);
  EXPECT_EQ(registry.size(), 2u);
  EXPECT_EQ(registry.LookUp("ListA")->op_def.output_arg(0).name(), "y");

  auto created = OpListOpRegistry::Create(list);
  EXPECT_THAT(created.status(),
              StatusIs(error::ALREADY_EXISTS,
                       HasSubstr("'ListA' appears twice in the OpList "
                                 "(entries #0 and #2)")));
}

TEST(OpListOpRegistryTest, CreateValidates) {
  OpList list = TwoOps();
  OPKIT_ASSERT_OK(OpListOpRegistry::Create(list));
  list.add_op()->set_name("not valid");
  EXPECT_THAT(OpListOpRegistry::Create(list).status(),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("entry #2")));
}

TEST(OpListOpRegistryTest, LoadsTensorFlowsOpsPbtxt) {
  OpList list;
  OPKIT_ASSERT_OK(LoadOpListFromTextFile(
      opkit::testing::TestDataDir() + "/tensorflow/ops.pbtxt",
      &list));
  EXPECT_EQ(list.op_size(), 1430);
  auto registry = OpListOpRegistry::Create(list);
  OPKIT_ASSERT_OK(registry);
  const OpDef* def = nullptr;
  OPKIT_ASSERT_OK((*registry)->LookUpOpDef("MatMul", &def));
  EXPECT_EQ(def->input_arg_size(), 2);
}

TEST(OpListOpRegistryTest, LoadOpListFromTextFileErrors) {
  OpList list;
  EXPECT_THAT(LoadOpListFromTextFile("/no/such/dir/ops.pbtxt", &list),
              StatusIs(error::NOT_FOUND, HasSubstr("ops.pbtxt")));
  const std::string path = ::testing::TempDir() + "/registry_test_bad.pbtxt";
  {
    std::ofstream out(path);
    out << "op { name: \"Ok\" }\nop { name: \"Broken\" nonsense: 3 }\n";
  }
  EXPECT_THAT(LoadOpListFromTextFile(path, &list),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("2:")));
  EXPECT_THAT(LoadOpListFromTextFile(path, &list),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("nonsense")));
  EXPECT_EQ(list.op_size(), 0);  // Untouched on error.
  EXPECT_THAT(LoadOpListFromTextFile(path, nullptr),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("null")));
}

// Threads -----------------------------------------------------------------------

TEST(OpRegistryTest, ConcurrentLookUpsDuringRegistration) {
  OpRegistry registry;
  constexpr int kStable = 100;
  std::vector<OpRegistrationData> stable;
  for (int i = 0; i < kStable; ++i) {
    stable.push_back(SimpleOp("Stable" + std::to_string(i)));
  }
  OPKIT_ASSERT_OK(registry.RegisterBatch(std::move(stable)));
  // Built before the threads start so that only the registry is shared.
  std::vector<std::vector<OpRegistrationData>> batches(20);
  for (int b = 0; b < 20; ++b) {
    for (int i = 0; i < 10; ++i) {
      batches[b].push_back(SimpleOp("Churn" + std::to_string(i),
                                    {"c.cc", b, "/churn.so"}));
    }
  }
  const uint64_t gen0 = registry.generation();

  std::atomic<bool> done{false};
  std::atomic<int> failures{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t) {
    readers.emplace_back([&registry, &done, &failures, t] {
      int round = 0;
      while (!done.load() || round < 100) {
        const std::string name = "Stable" + std::to_string((round + t) % kStable);
        const OpRegistrationData* data = nullptr;
        if (!registry.LookUp(name, &data).ok() || data == nullptr ||
            data->op_def.name() != name) {
          failures.fetch_add(1);
        }
        // Churn ops come and go; either answer is fine, but not a crash.
        const OpRegistrationData* churn = registry.LookUp("Churn3");
        (void)churn;
        OpList list;
        if (round % 50 == 0) registry.Export(true, &list);
        ++round;
      }
    });
  }
  for (auto& batch : batches) {
    EXPECT_THAT(registry.RegisterBatch(std::move(batch)), IsOk());
    EXPECT_THAT(registry.DeregisterLibrary("/churn.so"), IsOk());
  }
  done.store(true);
  for (auto& t : readers) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(registry.size(), static_cast<size_t>(kStable));
  EXPECT_EQ(registry.generation(), gen0 + 40);
}

}  // namespace
}  // namespace opkit
