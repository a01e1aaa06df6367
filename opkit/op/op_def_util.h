// Checks and utilities over OpDef, the declaration of an op: validate an
// OpDef or one attr value against its AttrDef, look up attrs and args,
// print a one-line signature, compare and hash OpDefs, and decide whether a
// changed OpDef stays backward compatible with the old one.
//
//   OPKIT_RETURN_IF_ERROR(ValidateOpDef(op_def));
//   if (const OpDef::AttrDef* attr = FindAttr("T", op_def)) {
//     OPKIT_RETURN_IF_ERROR(ValidateAttrValue(value, *attr));
//   }
//   Status s = OpDefCompatible(released_op_def, new_op_def);
//   // "Incompatible Op change: Attr 'T' removed; old: Op<...>; new: Op<...>"
//
// The rules and messages are TensorFlow's (op_def_util.h), so an op library
// written for TensorFlow is judged the same way. Every function is
// thread-compatible (no shared state).
#ifndef OPKIT_OP_OP_DEF_UTIL_H_
#define OPKIT_OP_OP_DEF_UTIL_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "opkit/attr_value.pb.h"
#include "opkit/core/export.h"
#include "opkit/core/status.h"
#include "opkit/op_def.pb.h"

namespace opkit {

// OK if `attr_value` is a value `attr` accepts: of its type (see
// AttrValueHasType), at least its minimum (an int's value, a list's length)
// and within its allowed values (for "type", "list(type)", "string" and
// "list(string)" attrs). Otherwise InvalidArgument, e.g.
//   "Value for attr 'T' of int64 is not in the list of allowed values: float, int32"
//   "Value for attr 'N' of 0 must be at least minimum 1"
//   "Length for attr 'shape' of 1 must be at least minimum 2"
// and Unimplemented for allowed values on any other attr type. Assumes
// `attr` itself is well-formed (ValidateOpDef checks that).
OPKIT_EXPORT Status ValidateAttrValue(const AttrValue& attr_value,
                                      const OpDef::AttrDef& attr);

// The attr, input or output of `op_def` named `name`, or nullptr. The pointer
// lives as long as `op_def` is not modified.
OPKIT_EXPORT const OpDef::AttrDef* FindAttr(std::string_view name,
                                            const OpDef& op_def);
OPKIT_EXPORT OpDef::AttrDef* FindAttrMutable(std::string_view name,
                                             OpDef* op_def);
OPKIT_EXPORT const OpDef::ArgDef* FindInputArg(std::string_view name,
                                               const OpDef& op_def);
OPKIT_EXPORT const OpDef::ArgDef* FindOutputArg(std::string_view name,
                                                const OpDef& op_def);

// Whether `name` is a valid op name: CamelCase segments ([A-Z][A-Za-z0-9_]*)
// joined by '>' ("Foo", "Foo>Bar"). ValidateOpDef also accepts any name
// that starts with '_' (internal ops).
OPKIT_EXPORT bool IsValidOpName(std::string_view name);

// OK if `op_def` is well-formed: a valid name; attr and arg names unique
// across attrs, inputs and outputs; no attr named like a data type; attr
// types known; minimums only on int and list attrs (non-negative for lists);
// allowed values of the attr's type; defaults that ValidateAttrValue accepts;
// each arg typed by exactly one of type / type_attr / type_list_attr (with
// number_attr only beside type or type_attr), every referenced attr present
// and of the right type ("int" with a non-negative minimum for number_attr,
// "type" for type_attr, "list(type)" for type_list_attr), and no ref
// DataType in `type` (is_ref says that). Otherwise InvalidArgument with
// TensorFlow's message, which ends "; in OpDef: <the OpDef as text>".
OPKIT_EXPORT Status ValidateOpDef(const OpDef& op_def);

// OK unless `op_def` is deprecated at `graph_def_version` or later, which is
// Unimplemented ("Op X is not available in GraphDef version N. It has been
// removed in version M. <explanation>."). Before that version it logs one
// warning per op name per process and returns OK.
OPKIT_EXPORT Status CheckOpDeprecation(const OpDef& op_def,
                                       int graph_def_version);

// TensorFlow's one-line summary:
//   "Op<name=MatMul; signature=a:T, b:T -> product:T; attr=transpose_a:bool,
//    default=false; attr=T:type,allowed=[DT_HALF, DT_FLOAT]>"
// (one line; flags such as "; is_commutative=true" follow the attrs). An arg
// prints as name:type, name:N*T, name:Ref(T) or, for a list(type) arg,
// name:<its type_list_attr>.
OPKIT_EXPORT std::string SummarizeOpDef(const OpDef& op_def);

// OK if `new_op` can replace `old_op` without breaking graphs or callers
// written against `old_op`: same name; every old attr still there with the
// same type, allowed values no narrower and minimum no higher; every added
// attr has a default; the inputs and outputs, with added attrs replaced by
// their defaults, give the same signature (so "a: int32" may become
// "a: N * int32" with N defaulting to 1, or "a: T" with T defaulting to
// int32); an input may stop being a ref but not become one; an output may
// become a ref but not stop being one. Otherwise InvalidArgument
// "Incompatible Op change: <why>; old: <SummarizeOpDef(old)>; new: <...>".
OPKIT_EXPORT Status OpDefCompatible(const OpDef& old_op, const OpDef& new_op);

// For attrs added after `old_op` (present in `penultimate_op` but not in
// `old_op`): OK if their default is the same in `new_op` as in
// `penultimate_op`, so that graphs written between the two keep their
// meaning. InvalidArgument otherwise ("Can't change default value for attr
// 'x' from 3 in op: ...").
OPKIT_EXPORT Status OpDefAddedDefaultsUnchanged(const OpDef& old_op,
                                                const OpDef& penultimate_op,
                                                const OpDef& new_op);

// OK if no attr of `old_op` lost or changed its default in `new_op` (gaining
// one is fine). InvalidArgument otherwise ("Attr 'x' has changed it's
// default value; from 1 to 2", spelled as TensorFlow spells it).
OPKIT_EXPORT Status OpDefAttrDefaultsUnchanged(const OpDef& old_op,
                                               const OpDef& new_op);

// Clears the summary, description and arg and attr descriptions, keeping the
// deprecation explanation.
OPKIT_EXPORT void RemoveNonDeprecationDescriptionsFromOpDef(OpDef* op_def);
// Clears every description, the deprecation explanation included.
OPKIT_EXPORT void RemoveDescriptionsFromOpDef(OpDef* op_def);
OPKIT_EXPORT void RemoveDescriptionsFromOpList(OpList* op_list);

// Equality of AttrDefs: name, type, description, minimum (when present),
// default and allowed values (compared with AreAttrValuesEqual).
OPKIT_EXPORT bool AttrDefEqual(const OpDef::AttrDef& a1,
                               const OpDef::AttrDef& a2);
// A hash consistent with AttrDefEqual.
OPKIT_EXPORT uint64_t AttrDefHash(const OpDef::AttrDef& a);

// Equality of OpDefs where the order of attrs and of control outputs does
// not matter; everything else (docs included, as in TensorFlow) must match.
OPKIT_EXPORT bool OpDefEqual(const OpDef& o1, const OpDef& o2);
// A hash consistent with OpDefEqual. Stable within a process.
OPKIT_EXPORT uint64_t OpDefHash(const OpDef& o);

}  // namespace opkit

#endif  // OPKIT_OP_OP_DEF_UTIL_H_
