// OpDefBuilder: turns the spec strings of an op declaration into an OpDef,
// with TensorFlow's grammar, inference rules and error texts.
//
//   OpRegistrationData data;
//   Status s = OpDefBuilder("ZeroOut")
//                  .Attr("T: {float, int32} = DT_INT32")
//                  .Input("to_zero: T")
//                  .Output("zeroed: T")
//                  .SetShapeFn(shape_inference::UnchangedShape)
//                  .Doc("Zeroes all but the first element.")
//                  .Finalize(&data);
//   // data.op_def now holds the OpDef; s says what was wrong otherwise.
//
// The builder only records what it is given; all parsing happens in
// Finalize(), which processes every Attr() first, then the Input()s, then the
// Output()s, then the ControlOutput()s, then the Doc(), whatever the order of
// the calls. Every malformed spec is reported (not only the first), each
// message naming the op and quoting the spec as TensorFlow does, e.g.
//   Trouble parsing '<name>:' from Attr("9:string") for Op Test
// Nothing a caller passes can make it abort.
//
// Grammar (see also opkit/op/op_spec_parse.cc):
//   Attr:   <name>: <type> [>= <int>] [= <default in text-proto syntax>]
//           <type> is string|int|float|bool|type|shape|tensor|func,
//           list(<type>), a set of types {float, int32, numbertype}, a set of
//           strings {'a', "b"}, or numbertype|numerictype|realnumbertype|
//           realnumerictype|quantizedtype. ">=" only for int and list types.
//   Input/Output: <name>: [Ref(] <type-expr> [)]
//           <type-expr> is a DataType name (float, int32, resource...), an
//           attr of type `type` or `list(type)`, or `N * <type or attr>`
//           with N an int attr.
//   Doc:    summary line, blank line, description, then `<name>: <text>`
//           paragraphs describing inputs, outputs and attrs.
//
// Thread-compatible: a builder is used by one thread while it is built;
// Finalize() is const.
#ifndef OPKIT_OP_OP_DEF_BUILDER_H_
#define OPKIT_OP_OP_DEF_BUILDER_H_

#include <functional>
#include <string>
#include <vector>

#include "opkit/core/export.h"
#include "opkit/core/status.h"
#include "opkit/core/registration_origin.h"
#include "opkit/op_def.pb.h"

namespace opkit {

namespace shape_inference {
class InferenceContext;
}  // namespace shape_inference

// Computes the output shapes of a node from its input shapes and attrs.
using OpShapeInferenceFn =
    std::function<Status(shape_inference::InferenceContext* c)>;

// Adjusts a finalized OpDef, e.g. to set an output's experimental_full_type
// (see opkit/op/full_type_util.h). Runs at the end of Finalize().
using OpTypeConstructor = std::function<Status(OpDef* op_def)>;

// Everything a registry keeps about one op.
struct OPKIT_EXPORT OpRegistrationData {
  OpRegistrationData() = default;
  explicit OpRegistrationData(const OpDef& def) : op_def(def) {}
  OpRegistrationData(const OpDef& def, const OpShapeInferenceFn& fn,
                     bool is_function = false);

  OpDef op_def;
  // Empty when the op has no shape function.
  OpShapeInferenceFn shape_inference_fn;
  // Already applied to op_def by Finalize(); kept for whoever re-derives it.
  OpTypeConstructor type_ctor;
  // True for ops that are functions of a FunctionLibrary, not registered ops.
  bool is_function_op = false;
  // Where REGISTER_OP was written (file:line) and which library ran it.
  RegistrationOrigin origin;
};

class OPKIT_EXPORT OpDefBuilder {
 public:
  // `op_name` is used as given (the registry validates op names).
  explicit OpDefBuilder(std::string op_name);

  // Adds an attr, e.g. "T: {float, int32} = DT_INT32", "N: int >= 1",
  // "padding: {'SAME', 'VALID'}", "shape: shape = { dim { size: 1 } }".
  // Attrs keep the order of these calls.
  OpDefBuilder& Attr(std::string spec);
  // Adds an input, e.g. "x: T", "values: N * T", "ref: Ref(float)",
  // "handle: resource" (which also makes the op stateful).
  OpDefBuilder& Input(std::string spec);
  // Adds an output; same grammar as Input().
  OpDefBuilder& Output(std::string spec);
  // Adds a named control output; `name` is a letter then letters, digits or
  // underscores.
  OpDefBuilder& ControlOutput(std::string name);

  // OpDef flags. SetDoNotOptimize() is TensorFlow's spelling of
  // SetIsStateful() for ops that must not be folded or pruned.
  OpDefBuilder& SetIsCommutative();
  OpDefBuilder& SetIsAggregate();
  OpDefBuilder& SetIsStateful();
  OpDefBuilder& SetDoNotOptimize();
  OpDefBuilder& SetAllowsUninitializedInput();
  OpDefBuilder& SetIsDistributedCommunication();

  // Marks the op deprecated from GraphDef version `version` on. A second
  // call is an error reported by Finalize().
  OpDefBuilder& Deprecated(int version, std::string explanation);

  // Sets the documentation (format in the file comment). A second call with
  // non-empty text already set is an error reported by Finalize().
  OpDefBuilder& Doc(std::string text);

  // Sets the shape function. A second call after a non-empty function was
  // set is an error reported by Finalize().
  OpDefBuilder& SetShapeFn(OpShapeInferenceFn fn);

  // Sets a function run on the OpDef at the end of Finalize(), e.g.
  // full_type::Unary(TFT_ARRAY, "element_dtype").
  OpDefBuilder& SetTypeConstructor(OpTypeConstructor c);

  // Records where the op was registered (REGISTER_OP fills file and line;
  // the library loader fills library).
  OpDefBuilder& SetOrigin(RegistrationOrigin origin);

  // Parses every spec into op_reg_data->op_def and copies the shape
  // function, type constructor and origin. On any error returns
  // InvalidArgument listing every problem, one per line; *op_reg_data is
  // then partly filled and must not be registered.
  [[nodiscard]] Status Finalize(OpRegistrationData* op_reg_data) const;

  const std::string& op_name() const { return op_reg_data_.op_def.name(); }

 private:
  OpRegistrationData op_reg_data_;
  std::vector<std::string> attrs_;
  std::vector<std::string> inputs_;
  std::vector<std::string> outputs_;
  std::vector<std::string> control_outputs_;
  std::string doc_;
  // Problems found while building (duplicate calls), reported by Finalize().
  std::vector<std::string> errors_;
};

}  // namespace opkit

#endif  // OPKIT_OP_OP_DEF_BUILDER_H_
