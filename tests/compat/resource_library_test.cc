// The simple_hash_table plugin (a resource op library written against
// compat/) loaded and run eagerly and in a Session graph, and the built-in
// resource variables (VarHandleOp, AssignVariableOp, ReadVariableOp) in a
// graph.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/graph/graph.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/runtime/eager_context.h"
#include "opkit/runtime/library.h"
#include "opkit/runtime/session.h"
#include "opkit/tensor/resource_handle.h"
#include "opkit/testing/kernel_test_util.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

class HashTableLibraryTest : public test::EagerOpTest {
 protected:
  static void SetUpTestSuite() {
    StatusOr<OpLibrary> lib = LoadOpLibrary(SIMPLE_HASH_TABLE_LIBRARY);
    ASSERT_THAT(lib.status(), IsOk());
  }

  EagerAttrs Types(DataType key, DataType value) {
    return {{"key_dtype", test::Attr(key)}, {"value_dtype", test::Attr(value)}};
  }
  Tensor Create(const char* shared_name = "",
                DataType key = DT_INT64, DataType value = DT_FLOAT) {
    EagerAttrs attrs = Types(key, value);
    attrs.push_back({"shared_name", test::Attr(shared_name)});
    EXPECT_THAT(Run("SimpleHashTableCreate", {}, attrs), IsOk());
    return out_.empty() ? Tensor() : out_[0];
  }
  Status Insert(const Tensor& table, const Tensor& keys, const Tensor& values) {
    return Run("SimpleHashTableInsert", {table, keys, values},
               Types(keys.dtype(), values.dtype()));
  }
  Status Find(const Tensor& table, const Tensor& keys, const Tensor& dflt) {
    return Run("SimpleHashTableFind", {table, keys, dflt},
               Types(keys.dtype(), dflt.dtype()));
  }
  int64 Size(const Tensor& table) {
    EXPECT_THAT(Run("SimpleHashTableSize", {table}), IsOk());
    return out_.empty() ? -1 : out_[0].scalar<int64>()();
  }
};

TEST_F(HashTableLibraryTest, InsertFindRemoveExportImport) {
  Tensor table = Create();
  ASSERT_EQ(table.dtype(), DT_RESOURCE);
  EXPECT_THAT(table.scalar<ResourceHandle>()().name(),
              StartsWith("_AnonymousVar"));
  EXPECT_EQ(Size(table), 0);
  ASSERT_THAT(Insert(table, test::I64({3, 1, 2}),
                     test::AsTensor<float>({30, 10, 20})),
              IsOk());
  EXPECT_EQ(Size(table), 3);
  ASSERT_THAT(Find(table, test::I64({1, 4, 3}), Tensor(-1.0f)), IsOk());
  EXPECT_THAT(test::Values<float>(out_[0]), ElementsAre(10, -1, 30));

  const EagerAttrs types = Types(DT_INT64, DT_FLOAT);
  ASSERT_THAT(Run("SimpleHashTableRemove", {table, test::I64({2})}, types),
              IsOk());
  ASSERT_THAT(Run("SimpleHashTableExport", {table}, types), IsOk());
  const std::vector<Tensor> exported = out_;
  EXPECT_THAT(test::Values<int64>(exported[0]), ElementsAre(1, 3));
  EXPECT_THAT(test::Values<float>(exported[1]), ElementsAre(10, 30));

  Tensor copy = Create();
  ASSERT_THAT(
      Run("SimpleHashTableImport", {copy, exported[0], exported[1]}, types),
      IsOk());
  EXPECT_EQ(Size(copy), 2);
  EXPECT_EQ(Size(table), 2);
}

TEST_F(HashTableLibraryTest, SharedNameReachesOneTableAndDestroyRemovesIt) {
  Tensor a = Create("shared");
  Tensor b = Create("shared");
  ASSERT_THAT(Insert(a, test::I64({7}), test::AsTensor<float>({1})), IsOk());
  EXPECT_EQ(Size(b), 1);
  ASSERT_THAT(Run("DestroyResourceOp", {a}), IsOk());
  EXPECT_THAT(Run("SimpleHashTableSize", {b}),
              StatusIs(error::NOT_FOUND, HasSubstr("does not exist")));
}

TEST_F(HashTableLibraryTest, ArgumentsAreCheckedWithTensorFlowsMessages) {
  Tensor table = Create();
  EXPECT_THAT(Insert(table, test::I64({1, 2}), test::AsTensor<float>({1})),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Expected shape [2] for value, got [1]")));
  EXPECT_THAT(Find(table, test::I64({1}), test::AsTensor<float>({1, 2})),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Expected shape [] for default value, got "
                                 "[2]")));
  // An int64 -> float table used as int64 -> int64.
  EXPECT_THAT(
      Find(table, test::I64({1}), Tensor(int64{0})),
      StatusIs(error::INVALID_ARGUMENT,
               HasSubstr("Trying to access a handle's resource using the "
                         "wrong type")));
}

TEST_F(HashTableLibraryTest, ResourceOpKernelMakesTheTableOnce) {
  const EagerAttrs types = Types(DT_INT64, DT_INT64);
  EagerAttrs named = types;
  named.push_back({"shared_name", test::Attr("mutable")});
  ASSERT_THAT(Run("SimpleMutableHashTable", {}, named), IsOk());
  Tensor table = out_[0];
  EXPECT_EQ(table.scalar<ResourceHandle>()().name(), "mutable");
  ASSERT_THAT(Insert(table, test::I64({1}), test::I64({11})), IsOk());
  ASSERT_THAT(Run("SimpleMutableHashTable", {}, named), IsOk());
  EXPECT_EQ(Size(out_[0]), 1);
  // Without a shared_name the table is private to the kernel.
  ASSERT_THAT(Run("SimpleMutableHashTable", {}, types), IsOk());
  EXPECT_THAT(out_[0].scalar<ResourceHandle>()().name(), StartsWith("_"));
  EXPECT_EQ(Size(out_[0]), 0);
}

TEST_F(HashTableLibraryTest, StringKeys) {
  Tensor table = Create("words", DT_STRING, DT_INT64);
  ASSERT_THAT(Insert(table, test::Strings({"a", "b"}, TensorShape({2})),
                     test::I64({1, 2})),
              IsOk());
  ASSERT_THAT(Find(table, test::Strings({"b", "z"}, TensorShape({2})),
                   Tensor(int64{0})),
              IsOk());
  EXPECT_THAT(test::Values<int64>(out_[0]), ElementsAre(2, 0));
}

TEST_F(HashTableLibraryTest, ResourceHandleOpCounter) {
  ASSERT_THAT(Run("SimpleCounterHandleOp", {},
                  {{"shared_name", test::Attr("c")}}),
              IsOk());
  Tensor counter = out_[0];
  EXPECT_EQ(counter.scalar<ResourceHandle>()().name(), "c");
  ASSERT_THAT(Run("SimpleCounterIncrement", {counter}), IsOk());
  EXPECT_EQ(out_[0].scalar<int64>()(), 1);
  ASSERT_THAT(Run("SimpleCounterIncrement", {counter}), IsOk());
  EXPECT_EQ(out_[0].scalar<int64>()(), 2);
}

// A session running the graph in `text`; null (and a test failure) when it
// cannot be made.
std::unique_ptr<Session> SessionFor(const std::string& text) {
  GraphDef def;
  EXPECT_THAT(ParseGraphDefText(text, &def), IsOk());
  StatusOr<std::unique_ptr<Session>> session = Session::New();
  EXPECT_THAT(session.status(), IsOk());
  if (!session.ok()) return nullptr;
  EXPECT_THAT((*session)->Create(def), IsOk());
  return std::move(session).value();
}

constexpr char kTableGraph[] = R"pb(
  node {
    name: "table"
    op: "SimpleHashTableCreate"
    attr { key: "key_dtype" value { type: DT_INT64 } }
    attr { key: "value_dtype" value { type: DT_FLOAT } }
    attr { key: "shared_name" value { s: "graph_table" } }
  }
  node {
    name: "keys"
    op: "Const"
    attr { key: "dtype" value { type: DT_INT64 } }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_INT64
          tensor_shape { dim { size: 2 } }
          int64_val: 5
          int64_val: 6
        }
      }
    }
  }
  node {
    name: "values"
    op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape { dim { size: 2 } }
          float_val: 0.5
          float_val: 1.5
        }
      }
    }
  }
  node {
    name: "default"
    op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr {
      key: "value"
      value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: -1 } }
    }
  }
  node {
    name: "insert"
    op: "SimpleHashTableInsert"
    input: "table"
    input: "keys"
    input: "values"
    attr { key: "key_dtype" value { type: DT_INT64 } }
    attr { key: "value_dtype" value { type: DT_FLOAT } }
  }
  node {
    name: "lookup_keys"
    op: "Placeholder"
    attr { key: "dtype" value { type: DT_INT64 } }
  }
  node {
    name: "find"
    op: "SimpleHashTableFind"
    input: "table"
    input: "lookup_keys"
    input: "default"
    attr { key: "key_dtype" value { type: DT_INT64 } }
    attr { key: "value_dtype" value { type: DT_FLOAT } }
  }
  node { name: "size" op: "SimpleHashTableSize" input: "table" }
)pb";

TEST_F(HashTableLibraryTest, RunsInASessionGraph) {
  std::unique_ptr<Session> session = SessionFor(kTableGraph);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  ASSERT_THAT(session->Run({}, {"size"}, {}, &out), IsOk());
  EXPECT_EQ(out[0].scalar<int64>()(), 0);
  ASSERT_THAT(session->Run({}, {}, {"insert"}, &out), IsOk());
  ASSERT_THAT(session->Run({{"lookup_keys", test::I64({6, 7, 5})}},
                              {"find", "size"}, {}, &out),
              IsOk());
  EXPECT_THAT(test::Values<float>(out[0]), ElementsAre(1.5, -1, 0.5));
  EXPECT_EQ(out[1].scalar<int64>()(), 2);
}

constexpr char kVariableGraph[] = R"pb(
  node {
    name: "v"
    op: "VarHandleOp"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: 2 } } } }
    attr { key: "shared_name" value { s: "v" } }
  }
  node {
    name: "init_value"
    op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape { dim { size: 2 } }
          float_val: 1
          float_val: 2
        }
      }
    }
  }
  node {
    name: "init"
    op: "AssignVariableOp"
    input: "v"
    input: "init_value"
    attr { key: "dtype" value { type: DT_FLOAT } }
  }
  node {
    name: "inc"
    op: "AssignAddVariableOp"
    input: "v"
    input: "init_value"
    attr { key: "dtype" value { type: DT_FLOAT } }
  }
  node {
    name: "read"
    op: "ReadVariableOp"
    input: "v"
    attr { key: "dtype" value { type: DT_FLOAT } }
  }
  node { name: "is_init" op: "VarIsInitializedOp" input: "v" }
)pb";

TEST(ResourceVariableGraphTest, VariablePersistsAcrossRuns) {
  std::unique_ptr<Session> session = SessionFor(kVariableGraph);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  ASSERT_THAT(session->Run({}, {"is_init"}, {}, &out), IsOk());
  EXPECT_FALSE(out[0].scalar<bool>()());
  EXPECT_THAT(session->Run({}, {"read"}, {}, &out),
              StatusIs(error::FAILED_PRECONDITION,
                       HasSubstr("Error while reading resource variable v "
                                 "from Container: localhost.")));
  ASSERT_THAT(session->Run({}, {}, {"init"}, &out), IsOk());
  ASSERT_THAT(session->Run({}, {}, {"inc"}, &out), IsOk());
  ASSERT_THAT(session->Run({}, {"read", "is_init"}, {}, &out), IsOk());
  EXPECT_THAT(test::Values<float>(out[0]), ElementsAre(2, 4));
  EXPECT_TRUE(out[1].scalar<bool>()());
}

}  // namespace
}  // namespace opkit
