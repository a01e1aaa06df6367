// Constant folding: a node whose data inputs are all constants is run once,
// on the CPU, and replaced by a Const holding its result (Note [What may be
// folded]).
#include <exception>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/core/logging.h"
#include "opkit/device/device.h"
#include "opkit/device/device_type.h"
#include "opkit/graph/graph.h"
#include "opkit/kernel/kernel_registry.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_kernel_context.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/op/op_registry.h"
#include "opkit/optimizer/internal/graph_view.h"

namespace opkit {
namespace internal {
namespace {

// Note [What may be folded]: a node is folded when it is needed by the
// run, is not protected (fed, fetched or a target), has exactly one output,
// every one of its data inputs is a constant (a Const that is not fed, or a
// node folded before it), its op is not stateful and not a v1 control-flow
// or source op, no input or output is a reference, resource or variant,
// its CPU kernel is synchronous, builds and runs without error, and its
// result is not a string and takes at most max_constant_bytes. The Const
// that replaces it keeps its name and device, and as control inputs its
// own control inputs plus those of the constants it read (so whatever
// those waited for, the new Const waits for too).
bool IsControlFlowOrSource(const std::string& op) {
  static const std::set<std::string>* kOps = new std::set<std::string>{
      "Switch", "RefSwitch", "Merge", "RefMerge", "Enter", "RefEnter",
      "Exit", "RefExit", "NextIteration", "RefNextIteration", "LoopCond",
      "Const", "HostConst", "Placeholder", "PlaceholderV2",
      "PlaceholderWithDefault", "_Arg", "_Retval", "NoOp"};
  return kOps->count(op) > 0;
}

bool IsPlainType(DataType t) {
  return !IsRefType(t) && t != DT_RESOURCE && t != DT_VARIANT &&
         t != DT_INVALID;
}

// A constant's value and the control inputs a Const made from it carries.
struct ConstantValue {
  Tensor value;
  std::vector<std::string> controls;
};

// Runs `node` (already built into `kernel`) on `inputs`; its one output in
// *out.
Status RunOnce(OpKernel* kernel, Device* device,
               const std::vector<Tensor>& inputs, Tensor* out) {
  std::vector<Tensor> owned = inputs;  // the kernel may not take them over
  std::vector<TensorValue> values(owned.size());
  for (size_t i = 0; i < owned.size(); ++i) values[i] = TensorValue(&owned[i]);
  OpKernelContext::Params params;
  params.op_kernel = kernel;
  params.device = device;
  params.inputs = &values;
  params.forward_inputs = false;
  OpKernelContext ctx(&params);
  OPKIT_RETURN_IF_ERROR(ctx.status());
  try {
    kernel->Compute(&ctx);
  } catch (const std::exception& e) {
    return errors::Internal("kernel threw: ", e.what());
  } catch (...) {
    return errors::Internal("kernel threw");
  }
  OPKIT_RETURN_IF_ERROR(ctx.status());
  if (ctx.num_outputs() != 1) {
    return errors::Internal("expected one output, got ", ctx.num_outputs());
  }
  return ctx.release_output(0, out);
}

}  // namespace

Status FoldConstants(const PassContext& ctx, GraphDef* graph, int* folded) {
  OPKIT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> g,
                         Graph::Create(*graph, ctx.op_registry));
  const std::set<std::string> needed = NeededNodes(*graph, ctx);
  const OpRegistryInterface* ops =
      ctx.op_registry != nullptr ? ctx.op_registry : OpRegistry::Global();
  const KernelRegistry* kernels = ctx.kernel_registry != nullptr
                                      ? ctx.kernel_registry
                                      : KernelRegistry::Global();
  std::map<std::string, ConstantValue> constants;
  // Folded nodes: name -> the Const that replaces it.
  std::map<std::string, NodeDef> replacements;

  for (int id : g->topological_order()) {
    const Node& node = g->node(id);
    const NodeDef& def = node.def();
    const bool fed = ctx.fed_nodes.count(node.name()) > 0;
    if (node.op() == "Const" && !fed) {
      ConstantValue c;
      auto value = def.attr().find("value");
      if (value == def.attr().end() ||
          !c.value.FromProto(value->second.tensor())) {
        continue;
      }
      for (const std::string& in : def.input()) {
        if (ParseInput(in).control) c.controls.push_back(in);
      }
      constants.emplace(node.name(), std::move(c));
      continue;
    }
    if (fed || ctx.protected_nodes.count(node.name()) > 0 ||
        needed.count(node.name()) == 0 || node.num_outputs() != 1 ||
        node.op_def().is_stateful() || IsControlFlowOrSource(node.op())) {
      continue;
    }
    bool plain = IsPlainType(node.output_type(0));
    for (DataType t : node.input_types()) plain = plain && IsPlainType(t);
    if (!plain) continue;

    std::vector<Tensor> inputs;
    std::vector<std::string> controls;
    std::set<std::string> seen_controls;
    bool all_constant = true;
    for (const std::string& in : def.input()) {
      const InputRef ref = ParseInput(in);
      if (ref.control) {
        if (seen_controls.insert(ref.node).second) controls.push_back(in);
        continue;
      }
      auto it = constants.find(ref.node);
      if (it == constants.end() || ref.index != 0) {
        all_constant = false;
        break;
      }
      inputs.push_back(it->second.value);
      for (const std::string& c : it->second.controls) {
        if (seen_controls.insert(ParseInput(c).node).second) {
          controls.push_back(c);
        }
      }
    }
    if (!all_constant) continue;

    std::unique_ptr<OpKernel> kernel;
    Status s = CreateOpKernel(DeviceType(DEVICE_CPU), ctx.device, nullptr,
                              def, g->version(), *ops, *kernels, &kernel);
    if (s.ok() && kernel->AsAsync() != nullptr) continue;
    Tensor result;
    if (s.ok()) s = RunOnce(kernel.get(), ctx.device, inputs, &result);
    if (!s.ok()) {
      // Left as it is: the graph reports the error when it runs.
      VLOG(1) << "Not folding " << node.name() << ": " << s;
      continue;
    }
    // Strings are left alone: their size is not TotalBytes().
    if (result.dtype() != node.output_type(0) || result.dtype() == DT_STRING ||
        static_cast<int64_t>(result.TotalBytes()) > ctx.max_constant_bytes) {
      continue;
    }
    NodeDef c;
    c.set_name(node.name());
    c.set_op("Const");
    c.set_device(def.device());
    for (const std::string& in : controls) c.add_input(in);
    SetAttrValue(result.dtype(), &(*c.mutable_attr())["dtype"]);
    result.AsProtoTensorContent((*c.mutable_attr())["value"].mutable_tensor());
    replacements.emplace(node.name(), std::move(c));
    constants[node.name()] = ConstantValue{result, controls};
  }

  for (NodeDef& n : *graph->mutable_node()) {
    auto it = replacements.find(n.name());
    if (it != replacements.end()) n = it->second;
  }
  *folded += static_cast<int>(replacements.size());
  return OkStatus();
}

}  // namespace internal
}  // namespace opkit
