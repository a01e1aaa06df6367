// NodeProperties: a node with its op's defaults applied, validated against
// the OpDef, and the input and output types its attrs give.
#include "opkit/kernel/op_kernel_construction.h"

#include <utility>

#include "opkit/op/node_def_util.h"
#include "opkit/op/op_registry.h"

namespace opkit {

Status NodeProperties::CreateFromNodeDef(
    NodeDef node_def, const OpRegistryInterface& op_registry,
    std::shared_ptr<const NodeProperties>* props) {
  const OpRegistrationData* op_reg_data = nullptr;
  OPKIT_RETURN_IF_ERROR(op_registry.LookUp(node_def.op(), &op_reg_data));
  return CreateFromNodeDef(std::move(node_def), op_reg_data->op_def, props);
}

Status NodeProperties::CreateFromNodeDef(
    NodeDef node_def, const OpDef& op_def,
    std::shared_ptr<const NodeProperties>* props) {
  props->reset();
  AddDefaultsToNodeDef(op_def, &node_def);
  // One pass validates the attrs and gives the types and argument ranges
  // (Note [Validate once] in node_def_util.h).
  NodeSignature signature;
  OPKIT_RETURN_IF_ERROR(ValidateNodeDef(node_def, op_def, &signature));
  *props = std::make_shared<const NodeProperties>(op_def, std::move(node_def),
                                                  std::move(signature));
  return OkStatus();
}

}  // namespace opkit
