// ValidateControlFlow, through Graph::Create (which calls it) and directly:
// well-formed loops pass, each ill-formed frame structure is an
// InvalidArgument naming the node.
#include "opkit/graph/control_flow.h"

#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/graph/graph.h"
#include "opkit/op/op_registry.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr char kT[] = " attr { key: 'T' value { type: DT_INT32 } } ";

std::string Const(const std::string& name, const std::string& extra = "") {
  return "node { name: '" + name + "' op: 'Const' " + extra +
         " attr { key: 'dtype' value { type: DT_INT32 } }"
         " attr { key: 'value' value { tensor { dtype: DT_INT32 "
         "tensor_shape {} int_val: 1 } } } }\n";
}
std::string Op(const std::string& name, const std::string& op,
               const std::string& inputs, const std::string& attrs = kT) {
  return "node { name: '" + name + "' op: '" + op + "' " + inputs + attrs +
         "}\n";
}
std::string Enter(const std::string& name, const std::string& input,
                  const std::string& frame) {
  return Op(name, "Enter", "input: '" + input + "'",
            std::string(kT) + "attr { key: 'frame_name' value { s: '" + frame +
                "' } } ");
}
std::string Merge(const std::string& name, const std::string& a,
              const std::string& b) {
  return Op(name, "Merge", "input: '" + a + "' input: '" + b + "'",
            std::string(kT) + "attr { key: 'N' value { i: 2 } } ");
}

// tf.while_loop(lambda i: i < n, lambda i: i + 1, [start]) in frame `frame`.
std::string While(const std::string& p, const std::string& start,
                  const std::string& frame) {
  return Enter(p + "enter", start, frame) +
         Merge(p + "merge", p + "enter", p + "next") +
         Op(p + "less", "Less", "input: '" + p + "merge' input: '" + p +
                                    "merge'") +
         Op(p + "cond", "LoopCond", "input: '" + p + "less'", "") +
         Op(p + "switch", "Switch",
            "input: '" + p + "merge' input: '" + p + "cond'") +
         Op(p + "body", "Identity", "input: '" + p + "switch:1'") +
         Const(p + "one", "input: '^" + p + "body'") +
         Op(p + "add", "AddV2", "input: '" + p + "body' input: '" + p + "one'") +
         Op(p + "next", "NextIteration", "input: '" + p + "add'") +
         Op(p + "exit", "Exit", "input: '" + p + "switch'");
}

Status Validate(const std::string& text) {
  GraphDef def;
  OPKIT_RETURN_IF_ERROR(ParseGraphDefText(text, &def));
  return Graph::Create(def, OpRegistry::Global()).status();
}

TEST(ControlFlowTest, WellFormedLoopsPass) {
  OPKIT_EXPECT_OK(Validate(Const("start") + While("w/", "start", "w")));
  // Nested: the inner loop's start comes from the outer loop's body, and the
  // outer loop's next value from the inner loop's Exit.
  OPKIT_EXPECT_OK(Validate(
      Const("start") + Enter("o/enter", "start", "o") +
      Merge("o/merge", "o/enter", "o/next") +
      Op("o/less", "Less", "input: 'o/merge' input: 'o/merge'") +
      Op("o/cond", "LoopCond", "input: 'o/less'", "") +
      Op("o/switch", "Switch", "input: 'o/merge' input: 'o/cond'") +
      Op("o/body", "Identity", "input: 'o/switch:1'") +
      While("i/", "o/body", "i") +
      Op("o/next", "NextIteration", "input: 'i/exit'") +
      Op("o/exit", "Exit", "input: 'o/switch'")));
  // A graph without loops.
  OPKIT_EXPECT_OK(Validate(Const("a") + Op("b", "Identity", "input: 'a'")));
}

TEST(ControlFlowTest, LoopWithoutEnterIsRejected) {
  // A Merge fed back through NextIteration in the root frame: nothing would
  // ever end it.
  EXPECT_THAT(
      Validate(Const("zero") + Merge("m", "zero", "n") +
               Op("n", "NextIteration", "input: 'm'")),
      StatusIs(error::INVALID_ARGUMENT,
               AllOf(HasSubstr("NextIteration node 'n' is in the root frame"),
                     HasSubstr("Enter"), HasSubstr("{{node n}}"))));
  // The same with a whole loop body but no Enter.
  std::string text = Const("start") + While("w/", "start", "w");
  const std::string enter = Enter("w/enter", "start", "w");
  text.replace(text.find(enter), enter.size(),
               Op("w/enter", "Identity", "input: 'start'"));
  const std::string exit = Op("w/exit", "Exit", "input: 'w/switch'");
  text.erase(text.find(exit), exit.size());
  EXPECT_THAT(Validate(text),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("NextIteration node 'w/next' is in the root "
                                 "frame")));
}

TEST(ControlFlowTest, ExitOutsideALoopIsRejected) {
  EXPECT_THAT(Validate(Const("a") + Op("x", "Exit", "input: 'a'")),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("not inside any loop frame"),
                             HasSubstr("{{node x}}"))));
}

TEST(ControlFlowTest, InputsFromTwoFramesAreRejected) {
  EXPECT_THAT(
      Validate(Const("a") + Enter("e", "a", "f") +
               Op("x", "AddV2", "input: 'e' input: 'a'")),
      StatusIs(error::INVALID_ARGUMENT,
               AllOf(HasSubstr("two frames"), HasSubstr("loop frame 'f'"),
                     HasSubstr("root frame"), HasSubstr("{{node x}}"))));
  // A control input counts too.
  EXPECT_THAT(Validate(Const("a") + Enter("e", "a", "f") +
                       Const("x", "input: '^e'") +
                       Op("y", "AddV2", "input: 'x' input: 'a'")),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("{{node y}}")));
}

TEST(ControlFlowTest, FrameEnteredFromTwoFramesIsRejected) {
  EXPECT_THAT(Validate(Const("a") + Enter("e1", "a", "f") +
                       Enter("e2", "e1", "g") + Enter("e3", "a", "g")),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("'g' is entered from two different"),
                             HasSubstr("{{node e"))));
}

TEST(ControlFlowTest, BackEdgeLeavingItsFrameIsRejected) {
  // The NextIteration of loop 'w' feeds a Merge of loop 'v'.
  std::string text = Const("start") + While("w/", "start", "w") +
                     Enter("v/enter", "start", "v") +
                     Merge("v/merge", "v/enter", "w/next");
  EXPECT_THAT(Validate(text),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("back edge must stay inside its frame"),
                             HasSubstr("{{node v/merge}}"))));
}

}  // namespace
}  // namespace opkit
