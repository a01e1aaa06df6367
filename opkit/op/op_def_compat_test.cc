// Tests of op_def_util's comparisons: OpDefCompatible and the
// defaults-unchanged checks, RemoveDescriptionsFromOpDef, OpDefEqual,
// AttrDefEqual and OpDefHash.
#include "opkit/op/op_def_util.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/core/str_util.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/op/testing/op_test_util.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using op_test::ToAttrDef;
using op_test::ToOpDef;

// ---------------------------------------------------------------------------
// OpDefCompatible

class OpDefCompatibleTest : public ::testing::Test {
 protected:
  Status Compatible(const std::string& old_text, const std::string& new_text) {
    const OpDef old_op = ToOpDef(old_text);
    const OpDef new_op = ToOpDef(new_text);
    // Every pair a test uses is itself well-formed.
    EXPECT_THAT(ValidateOpDef(old_op), IsOk());
    EXPECT_THAT(ValidateOpDef(new_op), IsOk());
    return OpDefCompatible(old_op, new_op);
  }

  void ExpectIncompatible(const std::string& old_text, const std::string& new_text,
                          const std::string& why) {
    const Status s = Compatible(old_text, new_text);
    EXPECT_THAT(s, StatusIs(error::INVALID_ARGUMENT,
                            StartsWith(StrCat("Incompatible Op change: ", why, "; old: Op<"))))
        << old_text << "\n->\n" << new_text;
    EXPECT_THAT(s.message(), HasSubstr("; new: Op<"));
  }
};

TEST_F(OpDefCompatibleTest, SameOpAndDocChanges) {
  const std::string op =
      "name: 'Same' input_arg { name: 'a' type_attr: 'T' } "
      "output_arg { name: 'b' type_attr: 'T' } attr { name: 'T' type: 'type' }";
  OPKIT_EXPECT_OK(Compatible(op, op));
  OPKIT_EXPECT_OK(Compatible(op, op + " summary: 'docs' description: 'more'"));
}

TEST_F(OpDefCompatibleTest, NameMismatch) {
  ExpectIncompatible("name: 'A'", "name: 'B'", "Name mismatch");
}

TEST_F(OpDefCompatibleTest, AddedAttrs) {
  OPKIT_EXPECT_OK(Compatible("name: 'A'",
                             "name: 'A' attr { name: 'a' type: 'int' default_value { i: 1 } }"));
  ExpectIncompatible("name: 'A'", "name: 'A' attr { name: 'a' type: 'int' }",
                     "Attr 'a' added without default");
}

TEST_F(OpDefCompatibleTest, RemovedOrRetypedAttrs) {
  ExpectIncompatible("name: 'A' attr { name: 'a' type: 'int' }", "name: 'A'",
                     "Attr 'a' removed");
  // A rename is a removal.
  ExpectIncompatible("name: 'A' attr { name: 'a' type: 'int' }",
                     "name: 'A' attr { name: 'b' type: 'int' default_value { i: 0 } }",
                     "Attr 'a' removed");
  ExpectIncompatible("name: 'A' attr { name: 'a' type: 'int' }",
                     "name: 'A' attr { name: 'a' type: 'float' }",
                     "Attr 'a' changed type 'int' -> 'float'");
}

TEST_F(OpDefCompatibleTest, AllowedValuesMayOnlyWiden) {
  const std::string two =
      "name: 'A' attr { name: 'T' type: 'type' "
      "allowed_values { list { type: [DT_FLOAT, DT_INT32] } } }";
  const std::string three =
      "name: 'A' attr { name: 'T' type: 'type' "
      "allowed_values { list { type: [DT_INT32, DT_FLOAT, DT_INT64] } } }";
  const std::string any = "name: 'A' attr { name: 'T' type: 'type' }";
  OPKIT_EXPECT_OK(Compatible(two, three));
  OPKIT_EXPECT_OK(Compatible(two, any));
  ExpectIncompatible(three, two,
                     "Attr 'T' has a stricter set of allowed values; from "
                     "[DT_INT32, DT_FLOAT, DT_INT64] to [DT_FLOAT, DT_INT32]");
  ExpectIncompatible(any, two,
                     "Attr 'T' has a stricter set of allowed values; from no "
                     "restriction to [DT_FLOAT, DT_INT32]");
  ExpectIncompatible(
      "name: 'A' attr { name: 's' type: 'string' allowed_values { list { s: ['a', 'b'] } } }",
      "name: 'A' attr { name: 's' type: 'string' allowed_values { list { s: ['a'] } } }",
      "Attr 's' has a stricter set of allowed values; from [\"a\", \"b\"] to [\"a\"]");
}

TEST_F(OpDefCompatibleTest, MinimumsMayOnlyDecrease) {
  const std::string min1 = "name: 'A' attr { name: 'n' type: 'int' has_minimum: true minimum: 1 }";
  const std::string min2 = "name: 'A' attr { name: 'n' type: 'int' has_minimum: true minimum: 2 }";
  const std::string none = "name: 'A' attr { name: 'n' type: 'int' }";
  OPKIT_EXPECT_OK(Compatible(min2, min1));
  OPKIT_EXPECT_OK(Compatible(min1, none));
  ExpectIncompatible(min1, min2, "Attr 'n' has a higher minimum; from 1 to 2");
  ExpectIncompatible(none, min1, "Attr 'n' has a higher minimum; from no minimum to 1");
}

TEST_F(OpDefCompatibleTest, InputSignature) {
  // A fixed-type input may become an attr-typed one whose default keeps it.
  OPKIT_EXPECT_OK(Compatible(
      "name: 'A' input_arg { name: 'a' type: DT_INT32 }",
      "name: 'A' input_arg { name: 'a' type_attr: 'T' } "
      "attr { name: 'T' type: 'type' default_value { type: DT_INT32 } }"));
  ExpectIncompatible(
      "name: 'A' input_arg { name: 'a' type: DT_INT32 }",
      "name: 'A' input_arg { name: 'a' type_attr: 'T' } "
      "attr { name: 'T' type: 'type' default_value { type: DT_FLOAT } }",
      "Input signature mismatch 'int32' vs. 'float'");
  // A single input may become a list whose default length is one.
  OPKIT_EXPECT_OK(Compatible(
      "name: 'A' input_arg { name: 'a' type: DT_INT32 }",
      "name: 'A' input_arg { name: 'a' type: DT_INT32 number_attr: 'N' } "
      "attr { name: 'N' type: 'int' has_minimum: true minimum: 1 default_value { i: 1 } }"));
  ExpectIncompatible(
      "name: 'A' input_arg { name: 'a' type: DT_INT32 }",
      "name: 'A' input_arg { name: 'a' type: DT_INT32 number_attr: 'N' } "
      "attr { name: 'N' type: 'int' has_minimum: true minimum: 1 default_value { i: 2 } }",
      "Input signature mismatch 'int32' vs. 'int32, int32'");
  // Or a list(type) input whose default lists the old types.
  OPKIT_EXPECT_OK(Compatible(
      "name: 'A' input_arg { name: 'a' type: DT_INT32 } input_arg { name: 'b' type: DT_FLOAT }",
      "name: 'A' input_arg { name: 'ab' type_list_attr: 'Ts' } "
      "attr { name: 'Ts' type: 'list(type)' "
      "default_value { list { type: [DT_INT32, DT_FLOAT] } } }"));
  // Input names do not matter; count and types do.
  OPKIT_EXPECT_OK(Compatible("name: 'A' input_arg { name: 'a' type: DT_INT32 }",
                             "name: 'A' input_arg { name: 'renamed' type: DT_INT32 }"));
  ExpectIncompatible("name: 'A' input_arg { name: 'a' type: DT_INT32 }",
                     "name: 'A' input_arg { name: 'a' type: DT_INT32 } "
                     "input_arg { name: 'b' type: DT_INT32 }",
                     "Input signature mismatch 'int32' vs. 'int32, int32'");
  ExpectIncompatible("name: 'A' input_arg { name: 'a' type: DT_INT32 }", "name: 'A'",
                     "Input signature mismatch 'int32' vs. ''");
  // Existing attrs appear by name.
  OPKIT_EXPECT_OK(Compatible(
      "name: 'A' input_arg { name: 'a' type_attr: 'T' number_attr: 'N' } "
      "attr { name: 'T' type: 'type' } attr { name: 'N' type: 'int' has_minimum: true }",
      "name: 'A' input_arg { name: 'a' type_attr: 'T' number_attr: 'N' } "
      "attr { name: 'T' type: 'type' } attr { name: 'N' type: 'int' has_minimum: true }"));
  ExpectIncompatible(
      "name: 'A' input_arg { name: 'a' type_attr: 'T' } input_arg { name: 'b' type_attr: 'U' } "
      "attr { name: 'T' type: 'type' } attr { name: 'U' type: 'type' }",
      "name: 'A' input_arg { name: 'a' type_attr: 'T' } input_arg { name: 'b' type_attr: 'T' } "
      "attr { name: 'T' type: 'type' } attr { name: 'U' type: 'type' }",
      "Input signature mismatch 'T, U' vs. 'T, T'");
}

TEST_F(OpDefCompatibleTest, OutputSignatureIncludesNames) {
  ExpectIncompatible("name: 'A' output_arg { name: 'a' type: DT_INT32 }",
                     "name: 'A' output_arg { name: 'renamed' type: DT_INT32 }",
                     "Output signature mismatch 'a:int32' vs. 'renamed:int32'");
  OPKIT_EXPECT_OK(Compatible(
      "name: 'A' output_arg { name: 'a' type: DT_INT32 }",
      "name: 'A' output_arg { name: 'a' type_attr: 'T' } "
      "attr { name: 'T' type: 'type' default_value { type: DT_INT32 } }"));
}

TEST_F(OpDefCompatibleTest, RefChanges) {
  const std::string in = "name: 'A' input_arg { name: 'a' type: DT_INT32 }";
  const std::string in_ref = "name: 'A' input_arg { name: 'a' type: DT_INT32 is_ref: true }";
  OPKIT_EXPECT_OK(Compatible(in_ref, in));
  ExpectIncompatible(in, in_ref, "Input 0 changed from non-ref to ref");

  const std::string out = "name: 'A' output_arg { name: 'a' type: DT_INT32 }";
  const std::string out_ref = "name: 'A' output_arg { name: 'a' type: DT_INT32 is_ref: true }";
  OPKIT_EXPECT_OK(Compatible(out, out_ref));
  ExpectIncompatible(out_ref, out, "Output 0 changed from ref to non-ref");
}

TEST_F(OpDefCompatibleTest, HugeDefaultLengthDoesNotHang) {
  const OpDef old_op = ToOpDef("name: 'A' input_arg { name: 'a' type: DT_INT32 }");
  const OpDef new_op = ToOpDef(
      "name: 'A' input_arg { name: 'a' type: DT_INT32 number_attr: 'N' } "
      "attr { name: 'N' type: 'int' has_minimum: true minimum: 1 "
      "default_value { i: 9000000000000 } }");
  EXPECT_THAT(OpDefCompatible(old_op, new_op),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Input signature mismatch")));
}

TEST_F(OpDefCompatibleTest, InvalidOpDefsDoNotCrash) {
  // Args referring to attrs that do not exist (not validated first).
  const OpDef old_op = ToOpDef("name: 'A' input_arg { name: 'a' type_attr: 'T' }");
  const OpDef new_op = ToOpDef(
      "name: 'A' input_arg { name: 'a' type_attr: 'U' number_attr: 'M' } "
      "output_arg { name: 'o' type_list_attr: 'L' }");
  EXPECT_THAT(OpDefCompatible(old_op, new_op),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Input signature mismatch")));
  EXPECT_THAT(OpDefCompatible(new_op, new_op), IsOk());
}

// ---------------------------------------------------------------------------
// Defaults across versions

TEST(OpDefAddedDefaultsUnchangedTest, Rules) {
  const OpDef old_op = ToOpDef("name: 'A'");
  const OpDef penultimate = ToOpDef(
      "name: 'A' attr { name: 'x' type: 'int' default_value { i: 3 } }");
  OPKIT_EXPECT_OK(OpDefAddedDefaultsUnchanged(old_op, penultimate, penultimate));
  EXPECT_THAT(
      OpDefAddedDefaultsUnchanged(
          old_op, penultimate,
          ToOpDef("name: 'A' attr { name: 'x' type: 'int' default_value { i: 4 } }")),
      StatusIs(error::INVALID_ARGUMENT,
               StartsWith("Can't change default value for attr 'x' from 3 in op: Op<name=A")));
  EXPECT_THAT(OpDefAddedDefaultsUnchanged(old_op, penultimate, ToOpDef("name: 'A'")),
              StatusIs(error::INVALID_ARGUMENT, StartsWith("Missing attr 'x' in op: Op<")));
  EXPECT_THAT(OpDefAddedDefaultsUnchanged(
                  old_op, penultimate, ToOpDef("name: 'A' attr { name: 'x' type: 'int' }")),
              StatusIs(error::INVALID_ARGUMENT,
                       StartsWith("Missing default for attr 'x' in op: ")));
  // An attr the old op already had is not checked here.
  OPKIT_EXPECT_OK(OpDefAddedDefaultsUnchanged(
      penultimate, penultimate,
      ToOpDef("name: 'A' attr { name: 'x' type: 'int' default_value { i: 4 } }")));
}

TEST(OpDefAttrDefaultsUnchangedTest, Rules) {
  const OpDef with3 =
      ToOpDef("name: 'A' attr { name: 'x' type: 'int' default_value { i: 3 } }");
  const OpDef with4 =
      ToOpDef("name: 'A' attr { name: 'x' type: 'int' default_value { i: 4 } }");
  const OpDef without = ToOpDef("name: 'A' attr { name: 'x' type: 'int' }");
  OPKIT_EXPECT_OK(OpDefAttrDefaultsUnchanged(with3, with3));
  OPKIT_EXPECT_OK(OpDefAttrDefaultsUnchanged(without, with3));  // Adding is fine.
  OPKIT_EXPECT_OK(OpDefAttrDefaultsUnchanged(with3, ToOpDef("name: 'A'")));
  EXPECT_THAT(OpDefAttrDefaultsUnchanged(with3, with4),
              StatusIs(error::INVALID_ARGUMENT,
                       "Attr 'x' has changed it's default value; from 3 to 4"));
  EXPECT_THAT(OpDefAttrDefaultsUnchanged(with3, without),
              StatusIs(error::INVALID_ARGUMENT,
                       "Attr 'x' has removed it's default; from 3 to no default"));
}

// ---------------------------------------------------------------------------
// Descriptions, equality, hashing

const char kDocumented[] = R"pb(
  name: "Doc"
  input_arg { name: "a" type: DT_FLOAT description: "in" }
  output_arg { name: "b" type: DT_FLOAT description: "out" }
  attr { name: "x" type: "int" description: "an attr" }
  summary: "sum"
  description: "desc"
  deprecation { version: 3 explanation: "why" }
)pb";

TEST(RemoveDescriptionsTest, NonDeprecationKeepsExplanation) {
  OpDef op = ToOpDef(kDocumented);
  RemoveNonDeprecationDescriptionsFromOpDef(&op);
  EXPECT_EQ(op.ShortDebugString(),
            "name: \"Doc\" input_arg { name: \"a\" type: DT_FLOAT } "
            "output_arg { name: \"b\" type: DT_FLOAT } attr { name: \"x\" type: \"int\" } "
            "deprecation { version: 3 explanation: \"why\" }");
}

TEST(RemoveDescriptionsTest, AllDescriptions) {
  OpList list;
  *list.add_op() = ToOpDef(kDocumented);
  *list.add_op() = ToOpDef(kDocumented);
  RemoveDescriptionsFromOpList(&list);
  for (const OpDef& op : list.op()) {
    EXPECT_EQ(op.ShortDebugString(),
              "name: \"Doc\" input_arg { name: \"a\" type: DT_FLOAT } "
              "output_arg { name: \"b\" type: DT_FLOAT } attr { name: \"x\" type: \"int\" } "
              "deprecation { version: 3 }");
  }
}

TEST(OpDefEqualTest, AttrAndControlOutputOrderDoNotMatter) {
  const OpDef a = ToOpDef(
      "name: 'A' attr { name: 'x' type: 'int' } attr { name: 'y' type: 'float' } "
      "control_output: ['c1', 'c2']");
  const OpDef b = ToOpDef(
      "name: 'A' attr { name: 'y' type: 'float' } attr { name: 'x' type: 'int' } "
      "control_output: ['c2', 'c1']");
  EXPECT_TRUE(OpDefEqual(a, b));
  EXPECT_EQ(OpDefHash(a), OpDefHash(b));
}

TEST(OpDefEqualTest, Differences) {
  const OpDef base = ToOpDef(
      "name: 'A' input_arg { name: 'a' type: DT_FLOAT } attr { name: 'x' type: 'int' }");
  const char* others[] = {
      "name: 'B' input_arg { name: 'a' type: DT_FLOAT } attr { name: 'x' type: 'int' }",
      "name: 'A' input_arg { name: 'a' type: DT_INT32 } attr { name: 'x' type: 'int' }",
      "name: 'A' input_arg { name: 'a' type: DT_FLOAT } attr { name: 'x' type: 'float' }",
      "name: 'A' input_arg { name: 'a' type: DT_FLOAT } attr { name: 'z' type: 'int' }",
      "name: 'A' input_arg { name: 'a' type: DT_FLOAT }",
      "name: 'A' input_arg { name: 'a' type: DT_FLOAT } attr { name: 'x' type: 'int' } "
      "attr { name: 'y' type: 'int' }",
      "name: 'A' input_arg { name: 'a' type: DT_FLOAT } attr { name: 'x' type: 'int' } "
      "summary: 'docs count'",
      "name: 'A' input_arg { name: 'a' type: DT_FLOAT } attr { name: 'x' type: 'int' } "
      "control_output: 'c'",
      "name: 'A' input_arg { name: 'a' type: DT_FLOAT } attr { name: 'x' type: 'int' "
      "has_minimum: true }",
  };
  for (const char* text : others) {
    const OpDef other = ToOpDef(text);
    EXPECT_FALSE(OpDefEqual(base, other)) << text;
    EXPECT_FALSE(OpDefEqual(other, base)) << text;
    EXPECT_NE(OpDefHash(base), OpDefHash(other)) << text;
  }
}

TEST(OpDefEqualTest, DuplicateAttrNamesCompareInOrder) {
  const OpDef a = ToOpDef(
      "name: 'A' attr { name: 'x' type: 'int' } attr { name: 'x' type: 'float' }");
  const OpDef b = ToOpDef(
      "name: 'A' attr { name: 'x' type: 'int' } attr { name: 'x' type: 'int' }");
  EXPECT_TRUE(OpDefEqual(a, a));
  EXPECT_FALSE(OpDefEqual(a, b));
  EXPECT_FALSE(OpDefEqual(b, a));
}

TEST(AttrDefEqualTest, Fields) {
  const OpDef::AttrDef base = ToAttrDef(
      "name: 'x' type: 'int' default_value { i: 1 } has_minimum: true minimum: 0");
  EXPECT_TRUE(AttrDefEqual(base, base));
  EXPECT_EQ(AttrDefHash(base), AttrDefHash(base));
  const char* others[] = {
      "name: 'y' type: 'int' default_value { i: 1 } has_minimum: true minimum: 0",
      "name: 'x' type: 'float' default_value { i: 1 } has_minimum: true minimum: 0",
      "name: 'x' type: 'int' default_value { i: 2 } has_minimum: true minimum: 0",
      "name: 'x' type: 'int' default_value { i: 1 } has_minimum: true minimum: 1",
      "name: 'x' type: 'int' default_value { i: 1 }",
      "name: 'x' type: 'int' default_value { i: 1 } has_minimum: true minimum: 0 "
      "description: 'd'",
      "name: 'x' type: 'int' default_value { i: 1 } has_minimum: true minimum: 0 "
      "allowed_values { list { i: 1 } }",
  };
  for (const char* text : others) {
    const OpDef::AttrDef other = ToAttrDef(text);
    EXPECT_FALSE(AttrDefEqual(base, other)) << text;
    EXPECT_NE(AttrDefHash(base), AttrDefHash(other)) << text;
  }
}

TEST(AttrDefEqualTest, FuncDefaultsCompareByMapContent) {
  OpDef::AttrDef a = ToAttrDef("name: 'f' type: 'func'");
  OpDef::AttrDef b = a;
  NameAttrList* fa = a.mutable_default_value()->mutable_func();
  NameAttrList* fb = b.mutable_default_value()->mutable_func();
  fa->set_name("g");
  fb->set_name("g");
  (*fa->mutable_attr())["p"].set_i(1);
  (*fa->mutable_attr())["q"].set_s("s");
  (*fb->mutable_attr())["q"].set_s("s");
  (*fb->mutable_attr())["p"].set_i(1);
  EXPECT_TRUE(AttrDefEqual(a, b));
  EXPECT_EQ(AttrDefHash(a), AttrDefHash(b));
}

}  // namespace
}  // namespace opkit
