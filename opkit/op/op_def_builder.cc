// OpDefBuilder: records an op's spec strings and flags, and Finalize() runs
// the spec parsers over them (internal/op_spec_parsers.h: attrs, inputs and
// outputs in op_spec_parse.cc, the doc in op_spec_doc.cc; the scanners they
// share in op_spec_scanner.cc).
#include "opkit/op/op_def_builder.h"

#include <string>
#include <utility>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/core/str_util.h"
#include "opkit/op/internal/op_spec_parsers.h"

namespace opkit {

OpRegistrationData::OpRegistrationData(const OpDef& def,
                                       const OpShapeInferenceFn& fn,
                                       bool is_function)
    : op_def(def), shape_inference_fn(fn), is_function_op(is_function) {}

using internal::FinalizeAttr;
using internal::FinalizeControlOutput;
using internal::FinalizeDoc;
using internal::FinalizeInputOrOutput;

// ---------------------------------------------------------------------------
// OpDefBuilder.

OpDefBuilder::OpDefBuilder(std::string op_name) {
  op_reg_data_.op_def.set_name(std::move(op_name));
}

OpDefBuilder& OpDefBuilder::Attr(std::string spec) {
  attrs_.push_back(std::move(spec));
  return *this;
}

OpDefBuilder& OpDefBuilder::Input(std::string spec) {
  inputs_.push_back(std::move(spec));
  return *this;
}

OpDefBuilder& OpDefBuilder::Output(std::string spec) {
  outputs_.push_back(std::move(spec));
  return *this;
}

OpDefBuilder& OpDefBuilder::ControlOutput(std::string name) {
  control_outputs_.push_back(std::move(name));
  return *this;
}

OpDefBuilder& OpDefBuilder::SetIsCommutative() {
  op_reg_data_.op_def.set_is_commutative(true);
  return *this;
}

OpDefBuilder& OpDefBuilder::SetIsAggregate() {
  op_reg_data_.op_def.set_is_aggregate(true);
  return *this;
}

OpDefBuilder& OpDefBuilder::SetIsStateful() {
  op_reg_data_.op_def.set_is_stateful(true);
  return *this;
}

OpDefBuilder& OpDefBuilder::SetDoNotOptimize() { return SetIsStateful(); }

OpDefBuilder& OpDefBuilder::SetAllowsUninitializedInput() {
  op_reg_data_.op_def.set_allows_uninitialized_input(true);
  return *this;
}

OpDefBuilder& OpDefBuilder::SetIsDistributedCommunication() {
  op_reg_data_.op_def.set_is_distributed_communication(true);
  return *this;
}

OpDefBuilder& OpDefBuilder::Deprecated(int version, std::string explanation) {
  OpDef& op_def = op_reg_data_.op_def;
  if (op_def.has_deprecation()) {
    errors_.push_back(StrCat("Deprecated called twice for Op ", op_def.name()));
  } else {
    op_def.mutable_deprecation()->set_version(version);
    op_def.mutable_deprecation()->set_explanation(std::move(explanation));
  }
  return *this;
}

OpDefBuilder& OpDefBuilder::Doc(std::string text) {
  if (!doc_.empty()) {
    errors_.push_back(
        StrCat("Extra call to Doc() for Op ", op_reg_data_.op_def.name()));
  } else {
    doc_ = std::move(text);
  }
  return *this;
}

OpDefBuilder& OpDefBuilder::SetShapeFn(OpShapeInferenceFn fn) {
  if (op_reg_data_.shape_inference_fn != nullptr) {
    errors_.push_back(
        StrCat("SetShapeFn called twice for Op ", op_reg_data_.op_def.name()));
  } else {
    op_reg_data_.shape_inference_fn = std::move(fn);
  }
  return *this;
}

OpDefBuilder& OpDefBuilder::SetTypeConstructor(OpTypeConstructor c) {
  op_reg_data_.type_ctor = std::move(c);
  return *this;
}

OpDefBuilder& OpDefBuilder::SetOrigin(RegistrationOrigin origin) {
  op_reg_data_.origin = std::move(origin);
  return *this;
}

Status OpDefBuilder::Finalize(OpRegistrationData* op_reg_data) const {
  if (op_reg_data == nullptr) {
    return errors::InvalidArgument("OpDefBuilder::Finalize for Op ", op_name(),
                                   " needs a non-null OpRegistrationData");
  }
  std::vector<std::string> errors = errors_;
  *op_reg_data = op_reg_data_;
  OpDef* op_def = &op_reg_data->op_def;

  for (const std::string& attr : attrs_) FinalizeAttr(attr, op_def, &errors);
  for (const std::string& input : inputs_) {
    FinalizeInputOrOutput(input, /*is_output=*/false, op_def, &errors);
  }
  for (const std::string& output : outputs_) {
    FinalizeInputOrOutput(output, /*is_output=*/true, op_def, &errors);
  }
  for (const std::string& name : control_outputs_) {
    FinalizeControlOutput(name, op_def, &errors);
  }
  FinalizeDoc(doc_, op_def, &errors);

  // The type constructor expects a well-formed OpDef (e.g. an output 0), so
  // it only runs when the specs parsed.
  if (errors.empty() && op_reg_data->type_ctor != nullptr) {
    Status s = op_reg_data->type_ctor(op_def);
    if (!s.ok()) {
      errors.push_back(StrCat("Type constructor failed for Op ", op_def->name(),
                              ": ", s.message()));
    }
  }

  if (errors.empty()) return OkStatus();
  return errors::InvalidArgument(StrJoin(errors, "\n"));
}

}  // namespace opkit
