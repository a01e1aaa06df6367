// Tests of OpGenOverrideMap.
#include "opkit/op/op_gen_overrides.h"

// See Note [Overrides proto] in the header: without the generated proto
// there is nothing to test.

#include <string>

#include <google/protobuf/text_format.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/core/env.h"
#include "opkit/core/str_util.h"
#include "opkit/op/op_def_util.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::StartsWith;

OpDef OpFromText(const std::string& text) {
  OpDef op_def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &op_def)) << text;
  return op_def;
}

// A file under the test's temporary directory holding `contents`.
std::string WriteTemp(const std::string& name, const std::string& contents) {
  const std::string path = ::testing::TempDir() + "/opkit_op_gen_overrides_" + name;
  EXPECT_THAT(WriteStringToFile(path, contents), IsOk());
  return path;
}

const char kMatMul[] = R"pb(
  name: "MatMul"
  input_arg { name: "a" type_attr: "T" description: "Left; see `b`." }
  input_arg { name: "b" type_attr: "T" }
  output_arg { name: "product" type_attr: "T" }
  attr { name: "transpose_a" type: "bool" default_value { b: false } }
  attr { name: "T" type: "type" description: "Type of `a`." }
  summary: "`MatMul` multiplies `a` by `b`."
)pb";

TEST(OpGenOverrideMapTest, NoOverrideLeavesOpAlone) {
  OpGenOverrideMap map;
  OPKIT_ASSERT_OK(map.LoadText("op { name: 'Other' hide: true }"));
  OpDef op = OpFromText(kMatMul);
  EXPECT_EQ(map.ApplyOverride(&op), nullptr);
  EXPECT_EQ(op.SerializeAsString(), OpFromText(kMatMul).SerializeAsString());
  EXPECT_EQ(map.Find("MatMul"), nullptr);
  EXPECT_NE(map.Find("Other"), nullptr);
  EXPECT_EQ(map.size(), 1u);
}

TEST(OpGenOverrideMapTest, EmptyTextIsNoOverrides) {
  OpGenOverrideMap map;
  OPKIT_EXPECT_OK(map.LoadText(""));
  OPKIT_EXPECT_OK(map.LoadText("# only a comment\n"));
  EXPECT_EQ(map.size(), 0u);
}

TEST(OpGenOverrideMapTest, RenameDefaultsAndArgs) {
  OpGenOverrideMap map;
  OPKIT_ASSERT_OK(map.LoadText(R"pb(
    op {
      name: "MatMul"
      rename_to: "MatrixMultiply"
      alias: "Mm"
      alias: "Dot"
      hide: true
      attr_default { name: "transpose_a" value { b: true } }
      attr_rename { from: "T" to: "dtype" }
      attr_rename { from: "transpose_a" to: "adjoint_a" }
      input_rename { from: "a" to: "x" }
      input_rename { from: "b" to: "y" }
      output_rename { from: "product" to: "z" }
    }
  )pb"));
  OpDef op = OpFromText(kMatMul);
  const OpGenOverride* o = map.ApplyOverride(&op);
  ASSERT_NE(o, nullptr);
  EXPECT_TRUE(o->hide());
  EXPECT_FALSE(o->skip());
  ASSERT_EQ(o->alias_size(), 2);
  EXPECT_EQ(o->alias(1), "Dot");

  EXPECT_EQ(op.name(), "MatrixMultiply");
  EXPECT_EQ(op.input_arg(0).name(), "x");
  EXPECT_EQ(op.input_arg(1).name(), "y");
  EXPECT_EQ(op.output_arg(0).name(), "z");
  EXPECT_EQ(op.attr(0).name(), "adjoint_a");
  EXPECT_TRUE(op.attr(0).default_value().b());  // Default set before the rename.
  EXPECT_EQ(op.attr(1).name(), "dtype");
  // Args follow the renamed attr, so the OpDef stays valid.
  EXPECT_EQ(op.input_arg(0).type_attr(), "dtype");
  EXPECT_EQ(op.output_arg(0).type_attr(), "dtype");
  OPKIT_EXPECT_OK(ValidateOpDef(op));
  // Docs follow every rename.
  EXPECT_EQ(op.summary(), "`MatrixMultiply` multiplies `x` by `y`.");
  EXPECT_EQ(op.input_arg(0).description(), "Left; see `y`.");
  EXPECT_EQ(op.attr(1).description(), "Type of `x`.");
}

TEST(OpGenOverrideMapTest, AttrRenameUpdatesNumberAndListAttrs) {
  OpGenOverrideMap map;
  OPKIT_ASSERT_OK(map.LoadText(R"pb(
    op {
      name: "Concat"
      attr_rename { from: "N" to: "count" }
      attr_rename { from: "Ts" to: "types" }
    }
  )pb"));
  OpDef op = OpFromText(R"pb(
    name: "Concat"
    input_arg { name: "values" type: DT_FLOAT number_attr: "N" }
    input_arg { name: "extra" type_list_attr: "Ts" }
    output_arg { name: "out" type_list_attr: "Ts" }
    attr { name: "N" type: "int" has_minimum: true minimum: 1 }
    attr { name: "Ts" type: "list(type)" }
  )pb");
  ASSERT_NE(map.ApplyOverride(&op), nullptr);
  EXPECT_EQ(op.input_arg(0).number_attr(), "count");
  EXPECT_EQ(op.input_arg(1).type_list_attr(), "types");
  EXPECT_EQ(op.output_arg(0).type_list_attr(), "types");
  OPKIT_EXPECT_OK(ValidateOpDef(op));
}

TEST(OpGenOverrideMapTest, SkipChangesNothing) {
  OpGenOverrideMap map;
  OPKIT_ASSERT_OK(map.LoadText(
      "op { name: 'MatMul' skip: true rename_to: 'Ignored' "
      "input_rename { from: 'a' to: 'x' } }"));
  OpDef op = OpFromText(kMatMul);
  const OpGenOverride* o = map.ApplyOverride(&op);
  ASSERT_NE(o, nullptr);
  EXPECT_TRUE(o->skip());
  EXPECT_EQ(op.name(), "MatMul");
  EXPECT_EQ(op.input_arg(0).name(), "a");
}

TEST(OpGenOverrideMapTest, MissingTargetsAreSkipped) {
  OpGenOverrideMap map;
  OPKIT_ASSERT_OK(map.LoadText(R"pb(
    op {
      name: "MatMul"
      attr_default { name: "nope" value { i: 1 } }
      attr_rename { from: "nope" to: "x" }
      input_rename { from: "nope" to: "x" }
      output_rename { from: "nope" to: "x" }
      input_rename { from: "a" to: "left" }
    }
  )pb"));
  OpDef op = OpFromText(kMatMul);
  ASSERT_NE(map.ApplyOverride(&op), nullptr);
  EXPECT_EQ(op.input_arg(0).name(), "left");
  EXPECT_EQ(op.attr_size(), 2);
  EXPECT_EQ(op.attr(0).name(), "transpose_a");
}

TEST(OpGenOverrideMapTest, LaterLoadReplacesEntry) {
  OpGenOverrideMap map;
  OPKIT_ASSERT_OK(map.LoadText("op { name: 'A' rename_to: 'B' } op { name: 'K' hide: true }"));
  OPKIT_ASSERT_OK(map.LoadText("op { name: 'A' rename_to: 'C' }"));
  EXPECT_EQ(map.size(), 2u);
  EXPECT_EQ(map.Find("A")->rename_to(), "C");
  EXPECT_TRUE(map.Find("K")->hide());
}

TEST(OpGenOverrideMapTest, SyntaxErrorNamesSourceLineAndColumn) {
  OpGenOverrideMap map;
  OPKIT_ASSERT_OK(map.LoadText("op { name: 'Kept' }"));
  EXPECT_THAT(map.LoadText("op { name: 'A' }\nop { name: 'B' bogus: 1 }\n", "my.pbtxt"),
              StatusIs(error::INVALID_ARGUMENT, StartsWith("my.pbtxt:2:21: ")));
  EXPECT_THAT(map.LoadText("op { name: 'A' ", "cut.pbtxt"),
              StatusIs(error::INVALID_ARGUMENT, StartsWith("cut.pbtxt:1:")));
  EXPECT_THAT(map.LoadText("op { skip: maybe }"),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("<text>:1:")));
  // Nothing from a failed load is kept.
  EXPECT_EQ(map.size(), 1u);
  EXPECT_EQ(map.Find("A"), nullptr);
}

TEST(OpGenOverrideMapTest, BadEntriesNameTheLine) {
  const struct {
    const char* text;
    const char* message;
  } cases[] = {
      {"op { hide: true }", "t.pbtxt:1:1: op entry without a name"},
      {"op { }", "t.pbtxt:1:1: op entry without a name"},
      {"op { name: 'A' }\n\nop { name: 'A' }",
       "t.pbtxt:3:1: op 'A' is listed twice (first at line 1)"},
      {"op { name: 'A'\n  attr_default { name: 'x' } }",
       "t.pbtxt:2:3: attr_default of op 'A' needs a name and a value"},
      {"op { name: 'A'\n  attr_default { value { i: 1 } } }",
       "t.pbtxt:2:3: attr_default of op 'A' needs a name and a value"},
      {"op { name: 'A'\n attr_rename { from: 'x' } }",
       "t.pbtxt:2:2: attr_rename of op 'A' needs both 'from' and 'to' names"},
      {"op { name: 'A'\n input_rename { to: 'x' } }",
       "t.pbtxt:2:2: input_rename of op 'A' needs both"},
      {"op { name: 'A'\n output_rename { } }",
       "t.pbtxt:2:2: output_rename of op 'A' needs both"},
  };
  for (const auto& c : cases) {
    OpGenOverrideMap map;
    EXPECT_THAT(map.LoadText(c.text, "t.pbtxt"),
                StatusIs(error::INVALID_ARGUMENT, StartsWith(c.message)))
        << c.text;
    EXPECT_EQ(map.size(), 0u);
  }
}

TEST(OpGenOverrideMapTest, LoadFile) {
  const std::string path = WriteTemp("one.pbtxt", "op { name: 'MatMul' rename_to: 'Mm' }\n");
  OpGenOverrideMap map;
  OPKIT_ASSERT_OK(map.LoadFile(path));
  OPKIT_ASSERT_OK(map.LoadFile(""));
  ASSERT_NE(map.Find("MatMul"), nullptr);
  EXPECT_EQ(map.Find("MatMul")->rename_to(), "Mm");

  const std::string bad = WriteTemp("bad.pbtxt", "op {\n  name: 'X'\n  wrong: 1\n}\n");
  EXPECT_THAT(map.LoadFile(bad),
              StatusIs(error::INVALID_ARGUMENT, StartsWith(bad + ":3:8: ")));
  EXPECT_THAT(map.LoadFile(::testing::TempDir() + "/opkit_no_such_overrides.pbtxt"),
              StatusIs(error::NOT_FOUND, HasSubstr("opkit_no_such_overrides.pbtxt")));
}

TEST(OpGenOverrideMapTest, LoadFileList) {
  const std::string first = WriteTemp("first.pbtxt", "op { name: 'A' rename_to: 'B' }");
  const std::string second =
      WriteTemp("second.pbtxt", "op { name: 'A' rename_to: 'C' } op { name: 'D' hide: true }");
  const std::string broken = WriteTemp("broken.pbtxt", "op { name: 'E' ");
  OpGenOverrideMap map;
  OPKIT_ASSERT_OK(map.LoadFileList(StrCat(first, ",,", second, ",")));
  EXPECT_EQ(map.size(), 2u);
  EXPECT_EQ(map.Find("A")->rename_to(), "C");  // The later file wins.

  OpGenOverrideMap all_or_nothing;
  EXPECT_THAT(all_or_nothing.LoadFileList(StrCat(first, ",", broken)),
              StatusIs(error::INVALID_ARGUMENT, StartsWith(broken + ":1:")));
  EXPECT_EQ(all_or_nothing.size(), 0u);
  EXPECT_THAT(all_or_nothing.LoadFileList(StrCat(first, ",/nonexistent/x.pbtxt")),
              StatusIs(error::NOT_FOUND, HasSubstr("/nonexistent/x.pbtxt")));
  EXPECT_EQ(all_or_nothing.size(), 0u);
  OPKIT_EXPECT_OK(all_or_nothing.LoadFileList(""));
}

}  // namespace
}  // namespace opkit

