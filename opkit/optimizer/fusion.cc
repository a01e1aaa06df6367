// Fusion, as TensorFlow's grappler remapper does it for the CPU:
//
//   FoldBatchNorms: Conv2D or DepthwiseConv2dNative -> FusedBatchNorm*
//   (is_training false) whose filter, scale, offset, mean and variance are
//   Consts becomes the convolution with a scaled filter -> BiasAdd, the
//   BiasAdd taking the batch norm's name.
//
//   FuseBiasAndActivation: Conv2D / MatMul / DepthwiseConv2dNative ->
//   BiasAdd [-> Relu | Relu6 | Elu | LeakyRelu] becomes one _FusedConv2D /
//   _FusedMatMul / _FusedDepthwiseConv2dNative named as the last node of
//   the chain, when a CPU kernel for the fused node is registered (asked of
//   the kernel registry at that moment, so a fused kernel added later is
//   used from then on).
//
// A chain is rewritten only when every node before its last has that one
// consumer (no other data or control consumer, not fetched or otherwise
// protected), all of it asks for the same device, and formats are NHWC.
// Control inputs of the chain's nodes go to the node that replaces it.
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "opkit/device/device_type.h"
#include "opkit/kernel/kernel_registry.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/op/node_def_util.h"
#include "opkit/op/op_registry.h"
#include "opkit/optimizer/internal/graph_view.h"
#include "opkit/tensor/tensor.h"

namespace opkit {
namespace internal {
namespace {

const OpRegistryInterface& Ops(const PassContext& ctx) {
  return ctx.op_registry != nullptr ? *ctx.op_registry : *OpRegistry::Global();
}

const KernelRegistry& Kernels(const PassContext& ctx) {
  return ctx.kernel_registry != nullptr ? *ctx.kernel_registry
                                        : *KernelRegistry::Global();
}

std::string StringAttr(const NodeDef& n, const char* name,
                       const std::string& otherwise) {
  auto it = n.attr().find(name);
  return it == n.attr().end() ? otherwise : it->second.s();
}

DataType TypeAttr(const NodeDef& n, const char* name) {
  auto it = n.attr().find(name);
  return it == n.attr().end() ? DT_INVALID : it->second.type();
}

bool IsNhwc(const NodeDef& n) {
  return StringAttr(n, "data_format", "NHWC") == "NHWC";
}

// Whether node `i` may disappear into a chain: not protected, its output 0
// read once and nothing else of it read, no control consumers.
bool OnlyFeedsTheChain(const PassContext& ctx, const GraphView& view, int i) {
  const NodeDef& n = view.node(i);
  return ctx.protected_nodes.count(n.name()) == 0 &&
         view.consumers(i).size() == 1 && view.NumDataConsumers(i, 0) == 1;
}

// The single consumer of node `i` (OnlyFeedsTheChain must hold).
const GraphView::Consumer& OnlyConsumer(const GraphView& view, int i) {
  return view.consumers(i).front();
}

// The node a data input comes from, if it is output 0 of a node; -1 else.
int Producer(const GraphView& view, const std::string& input) {
  const InputRef ref = ParseInput(input);
  if (ref.control || ref.index != 0) return -1;
  return view.Find(ref.node);
}

void AppendControlInputs(const NodeDef& from, std::set<std::string>* seen,
                         NodeDef* to) {
  for (const std::string& in : from.input()) {
    if (!in.empty() && in[0] == '^' && seen->insert(in).second) {
      to->add_input(in);
    }
  }
}

// The value of a Const node, or false.
bool ConstValue(const GraphView& view, const PassContext& ctx, int i,
                Tensor* out) {
  if (i < 0) return false;
  const NodeDef& n = view.node(i);
  if (n.op() != "Const" || ctx.fed_nodes.count(n.name()) > 0) return false;
  auto it = n.attr().find("value");
  return it != n.attr().end() && out->FromProto(it->second.tensor());
}

NodeDef MakeConst(const std::string& name, const std::string& device,
                  const Tensor& value) {
  NodeDef c;
  c.set_name(name);
  c.set_op("Const");
  c.set_device(device);
  SetAttrValue(value.dtype(), &(*c.mutable_attr())["dtype"]);
  value.AsProtoTensorContent((*c.mutable_attr())["value"].mutable_tensor());
  return c;
}

}  // namespace

Status FoldBatchNorms(const PassContext& ctx, GraphDef* graph, int* folded) {
  const std::set<std::string> needed = NeededNodes(*graph, ctx);
  GraphView view(*graph);
  std::set<std::string> taken;
  std::vector<NodeDef> added;
  const int n = graph->node_size();
  for (int b = 0; b < n; ++b) {
    const NodeDef& bn = view.node(b);
    if ((bn.op() != "FusedBatchNorm" && bn.op() != "FusedBatchNormV2" &&
         bn.op() != "FusedBatchNormV3") ||
        needed.count(bn.name()) == 0 || ctx.fed_nodes.count(bn.name()) > 0 ||
        bn.input_size() < 5 || !IsNhwc(bn) ||
        TypeAttr(bn, "T") != DT_FLOAT) {
      continue;
    }
    auto training = bn.attr().find("is_training");
    // is_training defaults to true.
    if (training == bn.attr().end() || training->second.b()) continue;
    // Only the normalised output may be used.
    bool side_outputs_used = false;
    for (int k = 1; k < 6; ++k) {
      if (view.NumDataConsumers(b, k) > 0 ||
          ctx.fetched_tensors.count(bn.name() + ":" + std::to_string(k)) > 0) {
        side_outputs_used = true;
      }
    }
    if (side_outputs_used) continue;
    const int conv = Producer(view, bn.input(0));
    if (conv < 0) continue;
    const NodeDef& conv_def = view.node(conv);
    if ((conv_def.op() != "Conv2D" &&
         conv_def.op() != "DepthwiseConv2dNative") ||
        !OnlyFeedsTheChain(ctx, view, conv) || !IsNhwc(conv_def) ||
        TypeAttr(conv_def, "T") != DT_FLOAT ||
        conv_def.device() != bn.device() || conv_def.input_size() < 2) {
      continue;
    }
    Tensor filter, scale, offset, mean, variance;
    if (!ConstValue(view, ctx, Producer(view, conv_def.input(1)), &filter) ||
        !ConstValue(view, ctx, Producer(view, bn.input(1)), &scale) ||
        !ConstValue(view, ctx, Producer(view, bn.input(2)), &offset) ||
        !ConstValue(view, ctx, Producer(view, bn.input(3)), &mean) ||
        !ConstValue(view, ctx, Producer(view, bn.input(4)), &variance)) {
      continue;
    }
    if (filter.dtype() != DT_FLOAT || filter.dims() != 4) continue;
    // Output channels: O of an HWIO Conv2D filter, C*M of a depthwise
    // [H, W, C, M] one; either way output channel o of filter element i is
    // i % channels.
    const int64_t channels = conv_def.op() == "Conv2D"
                                 ? filter.dim_size(3)
                                 : filter.dim_size(2) * filter.dim_size(3);
    bool ok = channels > 0;
    for (const Tensor* t : {&scale, &offset, &mean, &variance}) {
      ok = ok && t->dtype() == DT_FLOAT && t->dims() == 1 &&
           t->dim_size(0) == channels;
    }
    if (!ok) continue;
    float epsilon = 0.0001f;
    auto eps = bn.attr().find("epsilon");
    if (eps != bn.attr().end()) epsilon = eps->second.f();

    // y = (conv(x, w) - mean) * scale / sqrt(variance + epsilon) + offset
    //   = conv(x, w * s) + (offset - mean * s), s = scale / sqrt(...).
    std::vector<float> s(static_cast<size_t>(channels));
    Tensor bias(DT_FLOAT, TensorShape({channels}));
    for (int64_t c = 0; c < channels; ++c) {
      s[c] = scale.flat<float>()(c) /
             std::sqrt(variance.flat<float>()(c) + epsilon);
      bias.flat<float>()(c) =
          offset.flat<float>()(c) - mean.flat<float>()(c) * s[c];
    }
    Tensor scaled(DT_FLOAT, filter.shape());
    const float* w = filter.flat<float>().data();
    float* ws = scaled.flat<float>().data();
    for (int64_t i = 0; i < filter.NumElements(); ++i) {
      ws[i] = w[i] * s[i % channels];
    }
    const std::string filter_name =
        UniqueName(view, conv_def.name() + "/folded_filter", &taken);
    const std::string bias_name =
        UniqueName(view, bn.name() + "/folded_bias", &taken);
    added.push_back(MakeConst(filter_name, conv_def.device(), scaled));
    added.push_back(MakeConst(bias_name, bn.device(), bias));

    graph->mutable_node(conv)->set_input(1, filter_name);
    NodeDef bias_add;
    bias_add.set_name(bn.name());
    bias_add.set_op("BiasAdd");
    bias_add.set_device(bn.device());
    bias_add.add_input(bn.input(0));
    bias_add.add_input(bias_name);
    std::set<std::string> seen;
    AppendControlInputs(bn, &seen, &bias_add);
    SetAttrValue(DT_FLOAT, &(*bias_add.mutable_attr())["T"]);
    SetAttrValue("NHWC", &(*bias_add.mutable_attr())["data_format"]);
    *graph->mutable_node(b) = bias_add;
    ++*folded;
  }
  for (NodeDef& c : added) *graph->add_node() = std::move(c);
  return OkStatus();
}

Status FuseBiasAndActivation(const PassContext& ctx, GraphDef* graph,
                             int* fused) {
  const std::set<std::string> needed = NeededNodes(*graph, ctx);
  GraphView view(*graph);
  std::set<std::string> doomed;
  const int n = graph->node_size();
  for (int a = 0; a < n; ++a) {
    const NodeDef& bias_add = view.node(a);
    if (bias_add.op() != "BiasAdd" || needed.count(bias_add.name()) == 0 ||
        ctx.fed_nodes.count(bias_add.name()) > 0 || !IsNhwc(bias_add) ||
        bias_add.input_size() < 2 || doomed.count(bias_add.name()) > 0) {
      continue;
    }
    const int head = Producer(view, bias_add.input(0));
    if (head < 0 || doomed.count(view.node(head).name()) > 0) continue;
    const NodeDef& head_def = view.node(head);
    std::string fused_op;
    if (head_def.op() == "Conv2D") {
      fused_op = "_FusedConv2D";
    } else if (head_def.op() == "MatMul") {
      fused_op = "_FusedMatMul";
    } else if (head_def.op() == "DepthwiseConv2dNative") {
      fused_op = "_FusedDepthwiseConv2dNative";
    } else {
      continue;
    }
    if (!OnlyFeedsTheChain(ctx, view, head) ||
        head_def.device() != bias_add.device() || !IsNhwc(head_def) ||
        head_def.input_size() < 2) {
      continue;
    }
    // An activation after the bias add joins the chain when the bias add
    // feeds only it.
    int act = -1;
    if (OnlyFeedsTheChain(ctx, view, a)) {
      const GraphView::Consumer& c = OnlyConsumer(view, a);
      const NodeDef& cand = view.node(c.node);
      if ((cand.op() == "Relu" || cand.op() == "Relu6" ||
           cand.op() == "Elu" || cand.op() == "LeakyRelu") &&
          c.input == 0 && cand.device() == bias_add.device() &&
          ctx.fed_nodes.count(cand.name()) == 0) {
        act = c.node;
      }
    }
    const NodeDef& last = act >= 0 ? view.node(act) : bias_add;

    NodeDef f;
    f.set_name(last.name());
    f.set_op(fused_op);
    f.set_device(last.device());
    f.add_input(head_def.input(0));
    f.add_input(head_def.input(1));
    f.add_input(bias_add.input(1));
    std::set<std::string> seen;
    AppendControlInputs(head_def, &seen, &f);
    AppendControlInputs(bias_add, &seen, &f);
    if (act >= 0) AppendControlInputs(last, &seen, &f);
    // A node that asks for a particular kernel (by label) keeps it.
    if (head_def.attr().count("_kernel") > 0) continue;
    const OpDef* fused_def = nullptr;
    if (!Ops(ctx).LookUpOpDef(fused_op, &fused_def).ok()) continue;
    auto* attrs = f.mutable_attr();
    for (const auto& kv : head_def.attr()) {
      // The head's attrs that the fused op has carry over (Conv2D's T,
      // strides, padding, explicit_paddings, data_format, dilations,
      // use_cudnn_on_gpu; MatMul's T, transpose_a, transpose_b); others
      // (internal "_" ones) are dropped.
      for (const OpDef::AttrDef& a : fused_def->attr()) {
        if (a.name() == kv.first) (*attrs)[kv.first] = kv.second;
      }
    }
    std::vector<std::string> fused_ops = {"BiasAdd"};
    if (act >= 0) fused_ops.push_back(last.op());
    SetAttrValue(fused_ops, &(*attrs)["fused_ops"]);
    SetAttrValue(int64{1}, &(*attrs)["num_args"]);
    if (act >= 0 && last.op() == "LeakyRelu") {
      auto alpha = last.attr().find("alpha");
      SetAttrValue(alpha == last.attr().end() ? 0.2f : alpha->second.f(),
                   &(*attrs)["leakyrelu_alpha"]);
    }
    // The attr values must suit the fused op too (_FusedDepthwiseConv2dNative
    // has no EXPLICIT padding), and a kernel must exist for it.
    if (!ValidateNodeDef(f, *fused_def).ok() ||
        !Kernels(ctx).KernelDefAvailable(DeviceType(DEVICE_CPU), f)) {
      continue;
    }

    doomed.insert(head_def.name());
    if (act >= 0) doomed.insert(bias_add.name());
    *graph->mutable_node(act >= 0 ? act : a) = f;
    ++*fused;
  }
  RemoveNodes(doomed, graph);
  return OkStatus();
}

}  // namespace internal
}  // namespace opkit
