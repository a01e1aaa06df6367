// GraphBuilder: adds nodes to a GraphDef the way gradient functions need
// to, naming each tensor by an Output and filling in what the OpDef implies.
//
//   GraphBuilder b(&graph_def, OpRegistry::Global(), "gradients/mm_grad");
//   Output da = b.Add("MatMul", {dy, bmat}, {{"transpose_b", Attr(true)}});
//   Output shape = b.Add("Shape", {x});
//   if (!b.status().ok()) return b.status();
//
// Add() names the node "<prefix>/<Op>" (then _1, _2 ... while the name is
// taken), wires each input, sets every type attr and number attr that the
// inputs determine (`T` of MatMul from `dy`, `N` and `T` of AddN from the
// list's length and dtype), applies the OpDef's defaults and validates the
// node. The first error sticks: later calls do nothing and return an
// invalid Output, and status() says which op could not be added and why,
// so a gradient function checks once at its end.
#ifndef OPKIT_GRADIENTS_GRAPH_BUILDER_H_
#define OPKIT_GRADIENTS_GRAPH_BUILDER_H_

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "opkit/attr_value.pb.h"
#include "opkit/core/export.h"
#include "opkit/core/status.h"
#include "opkit/graph.pb.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/op/op_registry.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/types.h"

namespace opkit {

// One tensor of a graph: output `index` of node `node`, of type `dtype`.
// Default-constructed, it is "no tensor" (a gradient that is not defined).
struct OPKIT_EXPORT Output {
  std::string node;
  int index = 0;
  DataType dtype = DT_INVALID;

  bool valid() const { return !node.empty(); }
  // The tensor's name in a GraphDef input or a Session fetch: "node" for
  // output 0, "node:index" otherwise.
  std::string name() const;
};

// One input of a node: a single tensor, or a list (for `N * T` and
// `list(type)` inputs).
struct OPKIT_EXPORT Input {
  Input(Output single) : tensors{std::move(single)} {}  // NOLINT: implicit
  Input(std::vector<Output> list) : tensors(std::move(list)), is_list(true) {}  // NOLINT
  std::vector<Output> tensors;
  bool is_list = false;
};

// An attr value from anything SetAttrValue takes.
template <typename T>
AttrValue Attr(const T& value) {
  AttrValue out;
  SetAttrValue(value, &out);
  return out;
}
inline AttrValue Attr(std::initializer_list<int64_t> values) {
  return Attr(std::vector<int64_t>(values));
}

class OPKIT_EXPORT GraphBuilder {
 public:
  // Nodes go into `graph` (not owned; its existing node names are taken),
  // ops are looked up in `registry`, new names start with `prefix`.
  GraphBuilder(GraphDef* graph, const OpRegistryInterface* registry,
               std::string prefix);

  // A builder on the same graph whose names start with "<prefix>/<sub>";
  // its errors are its own (check both, or use one at a time).
  GraphBuilder WithPrefix(std::string_view sub) const;

  // Adds one node; returns its output 0 (or an invalid Output on error).
  Output Add(std::string_view op, std::vector<Input> inputs,
             std::vector<std::pair<std::string, AttrValue>> attrs = {});
  // Adds one node; returns all its outputs (empty on error).
  std::vector<Output> AddN(std::string_view op, std::vector<Input> inputs,
                           std::vector<std::pair<std::string, AttrValue>> attrs = {});

  // Adds a node run for its effect (AssignVariableOp, NoOp ...); returns
  // its name, to pass as a Session target ("" on error).
  std::string AddTarget(std::string_view op, std::vector<Input> inputs,
                        std::vector<std::pair<std::string, AttrValue>> attrs = {});

  // A Const node holding `value`.
  Output Const(const Tensor& value);
  // An int32 vector or scalar Const.
  Output ConstInt(const std::vector<int32_t>& values);
  Output ScalarInt(int32_t value);
  // A scalar Const of `dtype` holding `value` (float and integer types).
  Output Scalar(DataType dtype, double value);

  // The sum of `terms` (one term is returned as it is; several are AddN'd).
  Output Sum(const std::vector<Output>& terms);

  const Status& status() const { return *status_; }
  // Records `s` as this builder's error if it has none yet.
  void Fail(Status s);
  GraphDef* graph() const { return graph_; }
  const OpRegistryInterface* registry() const { return registry_; }
  const std::string& prefix() const { return prefix_; }

  // The dtype of tensor `name` ("node" or "node:k") of `graph`, from the
  // node's OpDef and attrs; DT_INVALID and an error when it has none.
  static Status OutputType(const GraphDef& graph, const OpRegistryInterface& registry,
                           std::string_view tensor_name, DataType* dtype);

 private:
  struct Shared {
    std::unordered_set<std::string> names;
  };
  GraphBuilder(GraphDef* graph, const OpRegistryInterface* registry, std::string prefix,
               std::shared_ptr<Shared> shared);
  std::string UniqueName(std::string_view op);
  // Adds the node; its name in *name and its outputs in *outputs.
  bool AddNode(std::string_view op, std::vector<Input> inputs,
               std::vector<std::pair<std::string, AttrValue>> attrs, std::string* name,
               std::vector<Output>* outputs);

  GraphDef* graph_;
  const OpRegistryInterface* registry_;
  std::string prefix_;
  std::shared_ptr<Shared> shared_;
  std::shared_ptr<Status> status_;
};

}  // namespace opkit

#endif  // OPKIT_GRADIENTS_GRAPH_BUILDER_H_
