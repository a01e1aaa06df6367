// Utilities over NodeDef, one use of an op in a graph or an eager call: read
// its attrs with their C++ types, fill in the op's defaults, check it against
// its OpDef, work out the types and index ranges of its inputs and outputs,
// and print it for error messages.
//
//   NodeDef node;  // name: "m" op: "MatMul" input: "a" input: "b"
//   AddNodeAttr("T", DT_FLOAT, &node);
//   AddDefaultsToNodeDef(op_def, &node);             // transpose_a, transpose_b
//   OPKIT_RETURN_IF_ERROR(ValidateNodeDef(node, op_def));
//
//   DataType t;
//   OPKIT_RETURN_IF_ERROR(GetNodeAttr(node, "T", &t));   // DT_FLOAT
//   DataTypeVector in, out;
//   OPKIT_RETURN_IF_ERROR(InOutTypesForNode(node, op_def, &in, &out));
//   SummarizeNodeDef(node);
//   // "{{node m}} = MatMul[T=DT_FLOAT, transpose_a=false, transpose_b=false](a, b)"
//
// Behaviour, formats and message texts are TensorFlow's (node_def_util.h);
// where opkit differs it says so next to the declaration. Every failure is a
// Status that names the node (FormatNodeDefForError: "{{node m}}") when a
// NodeDef is at hand; nothing in a NodeDef (huge or negative N, a type attr
// holding an invalid enum value, an attr of the wrong kind, a missing list
// attr) can make these functions abort.
//
// AttrSlice, the view of attrs these functions read, is in attr_slice.h
// (included here).
//
// Every function here is thread-compatible: it reads only its arguments.
#ifndef OPKIT_OP_NODE_DEF_UTIL_H_
#define OPKIT_OP_NODE_DEF_UTIL_H_

#include <cstddef>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "google/protobuf/map.h"
#include "opkit/attr_value.pb.h"
#include "opkit/core/export.h"
#include "opkit/core/status.h"
#include "opkit/op/attr_slice.h"
#include "opkit/tensor/numeric_types.h"
#include "opkit/tensor/types.h"
#include "opkit/node_def.pb.h"
#include "opkit/op_def.pb.h"
#include "opkit/tensor.pb.h"
#include "opkit/tensor_shape.pb.h"

namespace opkit {

// Declared in opkit/tensor/tensor_shape.h and tensor.h; a caller that
// passes one includes that header.
class TensorShape;
class PartialTensorShape;
class Tensor;

// The attr that lists a node's colocation groups, and the prefix of each
// group name in it ("loc:@other_node").
inline constexpr char kColocationAttrName[] = "_class";
inline constexpr char kColocationGroupPrefix[] = "loc:@";

// At most this many inputs, or outputs, are computed for one node: an
// `N * T` or `list(type)` argument that would give more is an error rather
// than an attempt to allocate billions of entries. (TensorFlow's limit is
// int32; opkit's is lower so that hostile NodeDefs cannot exhaust memory.)
inline constexpr int kMaxArgsPerNode = 1 << 20;

// ---------------------------------------------------------------------------
// Reading attrs.
//
// GetNodeAttr sets *value from the attr `attr_name` and returns OK, or
// returns (leaving *value unchanged):
//   NotFound         "No attr named 'x' in NodeDef:\n\t [[{{node n}}]]"
//   InvalidArgument  for a value of another kind, with TensorFlow's text
//                    "AttrValue had value with type 'int' when 'string'
//                    expected", then "\n\t for attr 'x'" and the node;
//                    for an int out of int32 range "Attr x has value
//                    5000000000 out of range for an int32"; for a shape
//                    that is not a valid (Partial)TensorShape, a tensor
//                    that cannot be built, a type attr holding DT_INVALID,
//                    a ref type or a number outside the DataType enum.
// A list overload replaces the whole vector (TensorFlow appends to it). A
// list attr with no value set at all reads as an empty list, as in
// TensorFlow (proto3 cannot tell the two apart).

OPKIT_EXPORT Status GetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                std::string* value);  // "string"
OPKIT_EXPORT Status GetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                int64* value);  // "int"
OPKIT_EXPORT Status GetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                int32* value);  // "int", range-checked
OPKIT_EXPORT Status GetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                float* value);  // "float"
OPKIT_EXPORT Status GetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                bool* value);  // "bool"
OPKIT_EXPORT Status GetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                DataType* value);  // "type"
OPKIT_EXPORT Status GetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                TensorShapeProto* value);  // "shape", as stored
// "shape", fully defined: an unknown rank or dimension is InvalidArgument.
OPKIT_EXPORT Status GetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                TensorShape* value);
OPKIT_EXPORT Status GetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                PartialTensorShape* value);  // "shape"
OPKIT_EXPORT Status GetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                Tensor* value);  // "tensor", decoded
// "tensor", not copied: *value points into the attr and lives as long as it.
OPKIT_EXPORT Status GetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                const TensorProto** value);
OPKIT_EXPORT Status GetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                NameAttrList* value);  // "func"
// "func", not copied: *value points into the attr and lives as long as it.
OPKIT_EXPORT Status GetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                const NameAttrList** value);

OPKIT_EXPORT Status GetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                std::vector<std::string>* value);  // "list(string)"
OPKIT_EXPORT Status GetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                std::vector<int64>* value);  // "list(int)"
OPKIT_EXPORT Status GetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                std::vector<int32>* value);  // "list(int)", range-checked
OPKIT_EXPORT Status GetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                std::vector<float>* value);  // "list(float)"
OPKIT_EXPORT Status GetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                std::vector<bool>* value);  // "list(bool)"
// "list(type)"; DataTypeVector is this type.
OPKIT_EXPORT Status GetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                std::vector<DataType>* value);
OPKIT_EXPORT Status GetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                std::vector<TensorShapeProto>* value);  // "list(shape)"
OPKIT_EXPORT Status GetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                std::vector<TensorShape>* value);  // "list(shape)"
OPKIT_EXPORT Status GetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                std::vector<PartialTensorShape>* value);  // "list(shape)"
OPKIT_EXPORT Status GetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                std::vector<Tensor>* value);  // "list(tensor)"
OPKIT_EXPORT Status GetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                std::vector<NameAttrList>* value);  // "list(func)"

// TryGetNodeAttr: the same lookups without a Status. Returns true and sets
// *value on success; returns false (leaving *value unchanged) when the attr
// is missing or cannot be read as the requested kind.
OPKIT_EXPORT bool TryGetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                 std::string* value);
OPKIT_EXPORT bool TryGetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                 int64* value);
OPKIT_EXPORT bool TryGetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                 int32* value);
OPKIT_EXPORT bool TryGetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                 float* value);
OPKIT_EXPORT bool TryGetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                 bool* value);
OPKIT_EXPORT bool TryGetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                 DataType* value);
OPKIT_EXPORT bool TryGetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                 TensorShape* value);
OPKIT_EXPORT bool TryGetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                 PartialTensorShape* value);
OPKIT_EXPORT bool TryGetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                 const TensorProto** value);
OPKIT_EXPORT bool TryGetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                 const NameAttrList** value);
OPKIT_EXPORT bool TryGetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                 std::vector<std::string>* value);
// Pointers into the attr: no copies of the strings / shapes.
OPKIT_EXPORT bool TryGetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                 std::vector<const std::string*>* value);
OPKIT_EXPORT bool TryGetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                 std::vector<const TensorShapeProto*>* value);
OPKIT_EXPORT bool TryGetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                 std::vector<int64>* value);
OPKIT_EXPORT bool TryGetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                 std::vector<int32>* value);
OPKIT_EXPORT bool TryGetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                 std::vector<float>* value);
OPKIT_EXPORT bool TryGetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                 std::vector<bool>* value);
OPKIT_EXPORT bool TryGetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                 std::vector<DataType>* value);
OPKIT_EXPORT bool TryGetNodeAttr(const AttrSlice& attrs, std::string_view attr_name,
                                 std::vector<TensorShape>* value);

// Whether `attrs` has an attr named `attr_name` (of any kind).
OPKIT_EXPORT bool HasNodeAttr(const AttrSlice& attrs, std::string_view attr_name);

// The "string" attr `attr_name`, or a reference to an empty string when it
// is missing or not a string. The reference lives as long as the attr.
OPKIT_EXPORT const std::string& GetNodeAttrString(const AttrSlice& attrs,
                                                  std::string_view attr_name);

// ---------------------------------------------------------------------------
// Writing attrs. Each overload sets attr `name` of *node_def to `value`
// (through SetAttrValue, attr_value_util.h), replacing any value it had.
// (TensorFlow's const-reference AttrValue overload keeps an existing value
// instead; opkit replaces in every overload, so the last write wins.)

OPKIT_EXPORT void AddNodeAttr(std::string_view name, const AttrValue& value,
                              NodeDef* node_def);
OPKIT_EXPORT void AddNodeAttr(std::string_view name, AttrValue&& value,
                              NodeDef* node_def);
OPKIT_EXPORT void AddNodeAttr(std::string_view name, std::string_view value,
                              NodeDef* node_def);
OPKIT_EXPORT void AddNodeAttr(std::string_view name, const char* value,
                              NodeDef* node_def);
OPKIT_EXPORT void AddNodeAttr(std::string_view name, const std::string& value,
                              NodeDef* node_def);
OPKIT_EXPORT void AddNodeAttr(std::string_view name, int32 value, NodeDef* node_def);
OPKIT_EXPORT void AddNodeAttr(std::string_view name, int64 value, NodeDef* node_def);
OPKIT_EXPORT void AddNodeAttr(std::string_view name, float value, NodeDef* node_def);
// Stored as a float (AttrValue has no double field).
OPKIT_EXPORT void AddNodeAttr(std::string_view name, double value, NodeDef* node_def);
OPKIT_EXPORT void AddNodeAttr(std::string_view name, bool value, NodeDef* node_def);
OPKIT_EXPORT void AddNodeAttr(std::string_view name, DataType value, NodeDef* node_def);
OPKIT_EXPORT void AddNodeAttr(std::string_view name, const TensorShape& value,
                              NodeDef* node_def);
OPKIT_EXPORT void AddNodeAttr(std::string_view name, const PartialTensorShape& value,
                              NodeDef* node_def);
OPKIT_EXPORT void AddNodeAttr(std::string_view name, const TensorShapeProto& value,
                              NodeDef* node_def);
OPKIT_EXPORT void AddNodeAttr(std::string_view name, const Tensor& value,
                              NodeDef* node_def);
OPKIT_EXPORT void AddNodeAttr(std::string_view name, const TensorProto& value,
                              NodeDef* node_def);
OPKIT_EXPORT void AddNodeAttr(std::string_view name, const NameAttrList& value,
                              NodeDef* node_def);
OPKIT_EXPORT void AddNodeAttr(std::string_view name,
                              const std::vector<std::string>& value, NodeDef* node_def);
OPKIT_EXPORT void AddNodeAttr(std::string_view name,
                              const std::vector<std::string_view>& value,
                              NodeDef* node_def);
OPKIT_EXPORT void AddNodeAttr(std::string_view name,
                              const std::vector<const char*>& value, NodeDef* node_def);
OPKIT_EXPORT void AddNodeAttr(std::string_view name, const std::vector<int32>& value,
                              NodeDef* node_def);
OPKIT_EXPORT void AddNodeAttr(std::string_view name, const std::vector<int64>& value,
                              NodeDef* node_def);
OPKIT_EXPORT void AddNodeAttr(std::string_view name, const std::vector<float>& value,
                              NodeDef* node_def);
OPKIT_EXPORT void AddNodeAttr(std::string_view name, const std::vector<double>& value,
                              NodeDef* node_def);
OPKIT_EXPORT void AddNodeAttr(std::string_view name, const std::vector<bool>& value,
                              NodeDef* node_def);
OPKIT_EXPORT void AddNodeAttr(std::string_view name, const std::vector<DataType>& value,
                              NodeDef* node_def);
OPKIT_EXPORT void AddNodeAttr(std::string_view name,
                              const std::vector<TensorShape>& value, NodeDef* node_def);
OPKIT_EXPORT void AddNodeAttr(std::string_view name,
                              const std::vector<PartialTensorShape>& value,
                              NodeDef* node_def);
OPKIT_EXPORT void AddNodeAttr(std::string_view name,
                              const std::vector<TensorShapeProto>& value,
                              NodeDef* node_def);
OPKIT_EXPORT void AddNodeAttr(std::string_view name, const std::vector<Tensor>& value,
                              NodeDef* node_def);
OPKIT_EXPORT void AddNodeAttr(std::string_view name,
                              const std::vector<NameAttrList>& value, NodeDef* node_def);

// A braced list: AddNodeAttr("T", {DT_FLOAT, DT_INT32}, &node),
// AddNodeAttr("ksize", {1, 2, 2, 1}, &node), AddNodeAttr("s", {"a"}, &node).
template <typename T>
void AddNodeAttr(std::string_view name, std::initializer_list<T> value,
                 NodeDef* node_def) {
  AddNodeAttr(name, std::vector<T>(value), node_def);
}

// Sets attr `name` of *map to `value`, replacing any value it had.
OPKIT_EXPORT void AddAttr(std::string_view name, const AttrValue& value,
                          AttrValueMap* map);
OPKIT_EXPORT void AddAttr(std::string_view name, bool value, AttrValueMap* map);

// Adds to *node_def, for every attr of `op_def` with a default value that
// *node_def does not set, that default. Existing attrs are left alone.
OPKIT_EXPORT void AddDefaultsToNodeDef(const OpDef& op_def, NodeDef* node_def);

// ---------------------------------------------------------------------------
// Checking a NodeDef against its OpDef.

// OK if `node_def` is a valid use of `op_def`; otherwise InvalidArgument with
// TensorFlow's text, always ending with (or containing) "NodeDef: {{node n}}":
//   - its op is not op_def's name:
//       "NodeDef op 'Wrong' does not match Op<name=In; ...>; NodeDef: ..."
//   - a data input follows a control input ("Non-control input 'a' after
//     control input in NodeDef: ..."), or a control input has a port
//     ("Control input '^b:0' must not have ':' in NodeDef: ...");
//   - `op_def` lists an attr twice ("OpDef has duplicate attr name 'x': ...");
//   - it sets an attr that op_def does not declare ("NodeDef mentions attr
//     'x' not in Op<...>; NodeDef: ..."). Attrs whose name starts with '_'
//     are internal and always allowed. (Current TensorFlow logs this case
//     and ignores the attr; opkit rejects it, as TensorFlow 1.x did, so a
//     misspelt attr is caught.)
//   - an attr value is not of the attr's type or outside its constraints
//     (ValidateAttrValue's message, then "\n\t; NodeDef: ...; Op<...>");
//     placeholder values ("$x", in function bodies) are not checked;
//   - an attr without a default is missing ("NodeDef missing attr 'T' from
//     Op<...>; NodeDef: ..."; "attrs 'a', 'b'" for several). An attr that
//     has a default may be left out: it counts as set to its default
//     (TensorFlow requires AddDefaultsToNodeDef to have run first);
//   - the number of data inputs differs from what the attrs imply for the
//     op's inputs (`N * T`, `list(type)`): "NodeDef expected inputs 'float,
//     float' do not match 3 inputs specified; Op<...>; NodeDef: ...".
// Requires nothing of `op_def`: a malformed OpDef gives an error, not a crash.
OPKIT_EXPORT Status ValidateNodeDef(const NodeDef& node_def, const OpDef& op_def);

// ---------------------------------------------------------------------------
// Input and output types.
//
// These compute the DataTypes of a node's inputs or outputs from its attrs,
// in the order of op_def's input_arg / output_arg: an arg typed `float` gives
// one DT_FLOAT, `T` the value of attr T, `N * T` N copies of it, a
// `list(type)` attr its list, and `Ref(...)` the ref type of each. An attr the
// node does not set is taken from op_def's default when it has one (opkit
// applies defaults here; TensorFlow needs AddDefaultsToNodeDef first).
// Errors (InvalidArgument unless said otherwise, each naming the node):
//   - a needed attr is missing with no default (NotFound "No attr named ..."),
//     or of the wrong kind;
//   - N is negative ("Value for number_attr() -1 < 0"), or above
//     kMaxArgsPerNode ("Number of inputs is too big: ..."), or the total of
//     the node's inputs or outputs would be;
//   - a type attr holds DT_INVALID, a ref type or a value outside the enum;
//   - an arg names no type ("No type fields in ..."), or Ref() of a ref type.
// The output vector is appended to, as in TensorFlow; on error it may hold
// part of the result.

OPKIT_EXPORT Status InputTypesForNode(const NodeDef& node_def, const OpDef& op_def,
                                      DataTypeVector* inputs);
OPKIT_EXPORT Status OutputTypesForNode(const NodeDef& node_def, const OpDef& op_def,
                                       DataTypeVector* outputs);
// For attrs without a NodeDef (an eager call's attrs); messages name the op
// and the argument, and the node too if the slice has one.
OPKIT_EXPORT Status OutputTypesForNode(const AttrSlice& attrs, const OpDef& op_def,
                                       DataTypeVector* outputs);
OPKIT_EXPORT Status InOutTypesForNode(const NodeDef& node_def, const OpDef& op_def,
                                      DataTypeVector* inputs, DataTypeVector* outputs);
// The type of input / output `index` (0-based over all inputs / outputs).
// InvalidArgument "Input 2 not found for node n" when `index` is negative or
// not below the number of inputs / outputs.
OPKIT_EXPORT Status InputTypeForNode(const NodeDef& node_def, const OpDef& op_def,
                                     int index, DataType* input_type);
OPKIT_EXPORT Status OutputTypeForNode(const NodeDef& node_def, const OpDef& op_def,
                                      int index, DataType* output_type);
// The number of outputs.
OPKIT_EXPORT Status NumOutputsForNode(const NodeDef& node_def, const OpDef& op_def,
                                      int* num_outputs);

// The index range [first, second) of each input or output argument, by
// argument name. TensorFlow uses a FlatMap keyed by views into the OpDef;
// opkit owns its keys (so the map may outlive the OpDef) and compares them
// transparently, so find() takes a std::string_view without allocating.
using NameRangeMap = std::map<std::string, std::pair<int, int>, std::less<>>;

// Fills *inputs and *outputs (either may be null to skip it; each is cleared
// first) with the index range of every input and output argument of
// `op_def` for a node with `attrs`: `a: T` takes 1, `a: N * T` takes N,
// `a: L` (L a list(type) attr) takes L's length. Attrs missing from `attrs`
// are taken from op_def's defaults. Errors as for InputTypesForNode, plus
// "Argument 'a' incorrectly specified in op definition: Op<...>" for an arg
// with no type.
OPKIT_EXPORT Status NameRangesForNode(const AttrSlice& attrs, const OpDef& op_def,
                                      NameRangeMap* inputs, NameRangeMap* outputs);

// Note [Validate once]
// What a node's attrs say about its arguments is worked out where the node
// enters (ValidateNodeDef, which must compute the input types to count the
// inputs) and carried from there: NodeProperties keeps the types and ranges,
// and OpKernel reads them instead of reading the attrs again.
//
// The input and output types (InOutTypesForNode's) and argument ranges
// (NameRangesForNode's) of a valid node.
struct OPKIT_EXPORT NodeSignature {
  DataTypeVector input_types;
  DataTypeVector output_types;
  NameRangeMap input_ranges;
  NameRangeMap output_ranges;
};

// ValidateNodeDef, also filling *signature from the same pass over the
// attrs when the node is valid (on error *signature is unspecified).
OPKIT_EXPORT Status ValidateNodeDef(const NodeDef& node_def, const OpDef& op_def,
                                    NodeSignature* signature);

// ---------------------------------------------------------------------------
// Names and syntax.

// Whether `name` is a valid node name: segments joined by '>' (for names
// namespaced by a project, "Project>n"), each segment one of [A-Za-z0-9.]
// followed by any of [A-Za-z0-9_./-]. So "_n", "n:0" and "" are not.
OPKIT_EXPORT bool IsValidNodeName(std::string_view name);
// A data input: a valid node name, optionally ":<port>" with port "0" or a
// number without leading zeros ("a", "a:0", "Project>b:12"; not "a:00",
// "a:b", "a:"). TensorFlow's scanner also accepts oddities such as "a:1>b"
// and "a:0:1"; opkit does not.
OPKIT_EXPORT bool IsValidDataInputName(std::string_view name);
// A control input: "^" then a valid node name, no port ("^b"; not "^b:0").
OPKIT_EXPORT bool IsValidControlInputName(std::string_view name);

// OK and *is_control_input set for a valid data or control input name;
// InvalidArgument "Illegal op input name 'x'" otherwise.
OPKIT_EXPORT Status ValidateOpInput(std::string_view input_name, bool* is_control_input);
// OK for a valid node name; InvalidArgument "Illegal op name 'x'" (TensorFlow's
// wording) otherwise.
OPKIT_EXPORT Status ValidateNodeName(std::string_view node_name);

// Checks the parts of a NodeDef that come from outside and that its OpDef
// does not govern: the node name and the input names, and that every control
// input follows every data input ("All control inputs must follow all data
// inputs"). Errors are InvalidArgument with the node attached (AttachDef).
//   Node         = NodeName, Inputs
//   Inputs       = ( DataInput * ), ( ControlInput * )
//   DataInput    = NodeName, ( ":", ( "0" | [1-9], [0-9] * ) ) ?
//   ControlInput = "^", NodeName
//   NodeName     = Segment, ( ">", Segment ) *
//   Segment      = [A-Za-z0-9.], [A-Za-z0-9_./-] *
OPKIT_EXPORT Status ValidateExternalNodeDefSyntax(const NodeDef& node_def);

// The slot of a control input ("^a") in a TensorId.
inline constexpr int kControlSlot = -1;

// A tensor named by a node input string: the producing node and the output
// index ("a:1" -> {"a", 1}; "a" -> {"a", 0}; "^a" -> {"a", kControlSlot}).
// Borrows the string it was parsed from.
struct OPKIT_EXPORT TensorId : public std::pair<std::string_view, int> {
  TensorId() : std::pair<std::string_view, int>(std::string_view(), 0) {}
  TensorId(std::string_view node, int index)
      : std::pair<std::string_view, int>(node, index) {}
  std::string_view node() const { return first; }
  int index() const { return second; }
  // "a:1"; "a" for index 0; "^a" for kControlSlot.
  std::string ToString() const;
};

// TensorFlow's ParseTensorName: "^a" is {"a", kControlSlot}; a trailing
// ":<digits>" is the index; anything else is the whole string with index 0
// (so "a:" and "a:b" are node names). A port too large for an int is not
// taken as a port (TensorFlow would overflow). Never fails; see the
// Status overload for checked parsing.
OPKIT_EXPORT TensorId ParseTensorName(std::string_view name);
// Checked parsing: InvalidArgument "Illegal op input name 'x'" unless `name`
// is a valid data or control input (IsValidDataInputName /
// IsValidControlInputName).
OPKIT_EXPORT Status ParseTensorName(std::string_view name, TensorId* out);

// ---------------------------------------------------------------------------
// Printing, and naming nodes in messages.

// "{{node n}}": how an error message names a node (tools that read the
// message find nodes by this pattern).
OPKIT_EXPORT std::string FormatNodeNameForError(std::string_view name);
// "{{function_node f}}": how an error message names a function.
OPKIT_EXPORT std::string FormatFunctionForError(std::string_view name);
// FormatNodeNameForError(node_def.name()), or, when the node carries
// experimental_debug_info with original node names, each original name
// (preceded by "{{function_node f}}" for its function, if known) joined by
// ", ": "{{function_node f}}{{node a}}, {{node b}}".
OPKIT_EXPORT std::string FormatNodeDefForError(const NodeDef& node_def);
OPKIT_EXPORT std::string FormatNodeDefForError(
    std::string_view node_name, bool has_experimental_debug_info,
    const NodeDef::ExperimentalDebugInfo& experimental_debug_info);

// TensorFlow's one-line form of a node:
//   "{{node m}} = MatMul[T=DT_FLOAT, transpose_a=false, transpose_b=false](a, b)"
// Attrs are sorted by name (SummarizeAttrValue for each value); a device
// follows as `_device="/cpu:0"`; inputs, control inputs included, are
// printed as written. With max_inputs_in_summary >= 0 only that many inputs
// are printed, then "...".
OPKIT_EXPORT std::string SummarizeNodeDef(const NodeDef& node_def,
                                          int max_inputs_in_summary = -1);
// The bracketed part of SummarizeNodeDef: "T=DT_FLOAT, _device=\"/cpu:0\"".
OPKIT_EXPORT std::string SummarizeAttrs(const NodeDef& node_def);
// The same for any attrs, with `device` (if not empty) as a last
// `_device="..."` entry.
OPKIT_EXPORT std::string SummarizeAttrsHelper(const AttrSlice& attrs,
                                              std::string_view device);

// `status` (same code) with the node appended: "<message>\n\t [[{{node n}}]]".
// If the message already names a node ("{{node ") and
// `allow_multiple_formatted_node` is false, only "\n\t [[n]]" is appended,
// as TensorFlow does, so that tools pick out the first node. An OK status
// stays OK.
OPKIT_EXPORT Status AttachDef(const Status& status, const NodeDef& node_def,
                              bool allow_multiple_formatted_node = false);

}  // namespace opkit

#endif  // OPKIT_OP_NODE_DEF_UTIL_H_
