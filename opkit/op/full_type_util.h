// Type constructors for OpDefBuilder::SetTypeConstructor: each returns an
// OpTypeConstructor that sets the experimental_full_type of output 0, as
// TensorFlow's full_type_util does.
//
//   REGISTER_OP("TensorListReserve")
//       ...
//       .SetTypeConstructor(full_type::Unary(TFT_ARRAY, "element_dtype"));
//   // output_arg[0].experimental_full_type ==
//   //     {type_id: TFT_ARRAY, args {type_id: TFT_VAR, s: "element_dtype"}}
//
// A constructor applied to an op without outputs returns InvalidArgument
// instead of touching a missing output. Header-only.
#ifndef OPKIT_OP_FULL_TYPE_UTIL_H_
#define OPKIT_OP_FULL_TYPE_UTIL_H_

#include <string>
#include <utility>

#include "opkit/core/errors.h"
#include "opkit/op/op_def_builder.h"
#include "opkit/full_type.pb.h"
#include "opkit/op_def.pb.h"

namespace opkit {
namespace full_type {
namespace internal {

// Output 0's full type, or an error naming the op when it has no output.
inline Status OutputZeroType(OpDef* op_def, FullTypeDef** out) {
  if (op_def == nullptr || op_def->output_arg_size() == 0) {
    return errors::InvalidArgument(
        "a full-type constructor sets the type of output 0, but Op ",
        op_def == nullptr ? std::string("<null>") : op_def->name(),
        " has no outputs; declare an Output() first or drop "
        "SetTypeConstructor()");
  }
  *out = op_def->mutable_output_arg(0)->mutable_experimental_full_type();
  out[0]->Clear();
  return OkStatus();
}

inline FullTypeDef* AddVar(FullTypeDef* parent, const std::string& var) {
  FullTypeDef* arg = parent->add_args();
  arg->set_type_id(TFT_VAR);
  arg->set_s(var);
  return arg;
}

}  // namespace internal

// Output 0 has type `t`, without parameters: {t}.
inline OpTypeConstructor Nullary(FullTypeId t) {
  return [t](OpDef* op_def) -> Status {
    FullTypeDef* tdef = nullptr;
    OPKIT_RETURN_IF_ERROR(internal::OutputZeroType(op_def, &tdef));
    tdef->set_type_id(t);
    return OkStatus();
  };
}

// Output 0 is `t` of the type held by attr `var`: {t, args {TFT_VAR, s: var}}.
inline OpTypeConstructor Unary(FullTypeId t, std::string var) {
  return [t, var = std::move(var)](OpDef* op_def) -> Status {
    FullTypeDef* tdef = nullptr;
    OPKIT_RETURN_IF_ERROR(internal::OutputZeroType(op_def, &tdef));
    tdef->set_type_id(t);
    internal::AddVar(tdef, var);
    return OkStatus();
  };
}

// Output 0 is `t` of any type: {t, args {TFT_ANY}}.
inline OpTypeConstructor UnaryGeneric(FullTypeId t) {
  return [t](OpDef* op_def) -> Status {
    FullTypeDef* tdef = nullptr;
    OPKIT_RETURN_IF_ERROR(internal::OutputZeroType(op_def, &tdef));
    tdef->set_type_id(t);
    tdef->add_args()->set_type_id(TFT_ANY);
    return OkStatus();
  };
}

// Output 0 is `t` of tensors of `dtype`: {t, args {TFT_TENSOR, args {dtype}}}.
inline OpTypeConstructor UnaryTensorContainer(FullTypeId t, FullTypeId dtype) {
  return [t, dtype](OpDef* op_def) -> Status {
    FullTypeDef* tdef = nullptr;
    OPKIT_RETURN_IF_ERROR(internal::OutputZeroType(op_def, &tdef));
    tdef->set_type_id(t);
    FullTypeDef* tensor = tdef->add_args();
    tensor->set_type_id(TFT_TENSOR);
    tensor->add_args()->set_type_id(dtype);
    return OkStatus();
  };
}

// Output 0 is `t` of tensors whose dtype attr is `var`:
// {t, args {TFT_TENSOR, args {TFT_VAR, s: var}}}.
inline OpTypeConstructor UnaryTensorContainer(FullTypeId t, std::string var) {
  return [t, var = std::move(var)](OpDef* op_def) -> Status {
    FullTypeDef* tdef = nullptr;
    OPKIT_RETURN_IF_ERROR(internal::OutputZeroType(op_def, &tdef));
    tdef->set_type_id(t);
    FullTypeDef* tensor = tdef->add_args();
    tensor->set_type_id(TFT_TENSOR);
    internal::AddVar(tensor, var);
    return OkStatus();
  };
}

// Output 0 is `t` of a product of tensors, one per type of the list(type)
// attr `var`: {t, args {TFT_FOR_EACH, args {TFT_PRODUCT},
//                      args {TFT_TENSOR, args {TFT_VAR, s: var}},
//                      args {TFT_VAR, s: var}}}.
inline OpTypeConstructor VariadicTensorContainer(FullTypeId t,
                                                 std::string var) {
  return [t, var = std::move(var)](OpDef* op_def) -> Status {
    FullTypeDef* tdef = nullptr;
    OPKIT_RETURN_IF_ERROR(internal::OutputZeroType(op_def, &tdef));
    tdef->set_type_id(t);
    FullTypeDef* for_each = tdef->add_args();
    for_each->set_type_id(TFT_FOR_EACH);
    for_each->add_args()->set_type_id(TFT_PRODUCT);
    FullTypeDef* tensor = for_each->add_args();
    tensor->set_type_id(TFT_TENSOR);
    internal::AddVar(tensor, var);
    internal::AddVar(for_each, var);
    return OkStatus();
  };
}

}  // namespace full_type
}  // namespace opkit

#endif  // OPKIT_OP_FULL_TYPE_UTIL_H_
