// What the files behind node_def_util.h share: reading one attr value
// (node_def_util.cc), the types of a node's args (node_def_args.cc), and
// naming the node in messages and summaries (node_def_format.cc). Not part
// of the API.
#ifndef OPKIT_OP_INTERNAL_NODE_DEF_HELPERS_H_
#define OPKIT_OP_INTERNAL_NODE_DEF_HELPERS_H_

#include <string>
#include <string_view>
#include <vector>

#include "opkit/attr_value.pb.h"
#include "opkit/core/status.h"
#include "opkit/core/str_util.h"
#include "opkit/node_def.pb.h"
#include "opkit/op/node_def_util.h"
#include "opkit/op_def.pb.h"
#include "opkit/tensor/types.h"

namespace opkit {
namespace internal {

// `s` with `context` appended on a new line, TensorFlow's
// errors::AppendToMessage layout.
template <typename... Args>
Status WithContext(const Status& s, const Args&... context) {
  if (s.ok()) return s;
  return Status(s.code(), StrCat(s.message(), "\n\t", context...));
}

// Names the slice's node in a failure, unless the message names it already.
Status NameNode(const AttrSlice& attrs, const Status& s);

// One attr value as an "int" / a "type" (GetNodeAttr's checks and messages,
// without the node). *out is unchanged on failure.
Status ReadAttrValue(const AttrValue& v, std::string_view name, int64* out);
Status ReadAttrValue(const AttrValue& v, std::string_view name, DataType* out);
// OK if `v` is a list of types each usable as a "type" value.
Status CheckTypeListAttr(const AttrValue& v, std::string_view name);

// Appends the types of op_def's inputs (`is_input`) or outputs for a node
// with `attrs` to *types (InputTypesForNode's rules, without the node name).
// With `ranges`, also sets it (cleared first) to each argument's index range
// among the types this call appends (NameRangesForNode's result).
Status ArgTypes(const AttrSlice& attrs, const OpDef& op_def, bool is_input,
                DataTypeVector* types, NameRangeMap* ranges = nullptr);

// The attrs of `attrs` sorted by name.
std::vector<const AttrValueMap::value_type*> SortedAttrs(const AttrSlice& attrs);
// SummarizeNodeDef of `node_def` with `attrs` standing for its attrs.
std::string SummarizeNodeWithAttrs(const NodeDef& node_def, const AttrSlice& attrs,
                                   int max_inputs_in_summary);

}  // namespace internal
}  // namespace opkit

#endif  // OPKIT_OP_INTERNAL_NODE_DEF_HELPERS_H_
