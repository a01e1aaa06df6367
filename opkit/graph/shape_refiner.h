// Shapes through a graph: runs every node's shape function over a GraphDef
// in topological order and records the shape of every output.
//
//   ShapeRefiner refiner(graph.versions().producer(), OpRegistry::Global());
//   OPKIT_RETURN_IF_ERROR(refiner.InferShapes(graph, {{"x", PartialTensorShape({8, 3})}}));
//   PartialTensorShape s;
//   OPKIT_RETURN_IF_ERROR(refiner.OutputShape("matmul", &s));   // "[8,4]"
//
// Constant values reach the shape functions that read them
// (InferenceContext::input_tensor, MakeShapeFromShapeTensor):
//   - the output of a node of op "Const" is its `value` attr;
//   - the output of a node of op "Shape" is a constant when its input's shape
//     is fully defined, and a partial shape (input_tensors_as_shapes) when
//     only the rank is known.
// Shape and dimension handles flow from node to node, so an unknown
// dimension stays "the same dimension" across a chain of shape functions.
//
// A node whose op has no shape function gets unknown output shapes. The
// first problem found stops inference with a Status naming the node
// ("{{node n}}"): a missing input, a cycle (other than a while loop's, whose
// NextIteration -> Merge back edge the Merge sees as an unknown shape, as on
// TensorFlow's first pass), an unregistered op, inputs that
// do not match the op, a shape function error, a feed that names no tensor
// or contradicts the inferred shape.
#ifndef OPKIT_GRAPH_SHAPE_REFINER_H_
#define OPKIT_GRAPH_SHAPE_REFINER_H_

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "opkit/core/export.h"
#include "opkit/core/status.h"
#include "opkit/op/op_registry.h"
#include "opkit/shape/shape_inference.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/tensor_shape.h"
#include "opkit/graph.pb.h"
#include "opkit/node_def.pb.h"

namespace opkit {

// Infers the output shapes of every node of a GraphDef. Holds the results
// (and the inference contexts that own their handles) until the next
// InferShapes call or destruction. Thread-compatible.
class OPKIT_EXPORT ShapeRefiner {
 public:
  // `ops` is where node ops are looked up (nullptr: OpRegistry::Global()); it
  // must outlive InferShapes calls. `graph_def_version` is passed to shape
  // functions.
  ShapeRefiner(int graph_def_version, const OpRegistryInterface* ops);
  ~ShapeRefiner();
  ShapeRefiner(const ShapeRefiner&) = delete;
  ShapeRefiner& operator=(const ShapeRefiner&) = delete;

  // Infers the shapes of every node of `graph`, replacing earlier results.
  // `feeds` pins output shapes by tensor name ("x" means "x:0", or "x:1"):
  // the fed shape replaces the inferred one for consumers, after checking
  // the two are compatible. Errors are InvalidArgument (NotFound for an
  // unregistered op) naming the node; on error, results for the nodes
  // before the failing one remain readable.
  Status InferShapes(const GraphDef& graph,
                     const std::map<std::string, PartialTensorShape>& feeds = {});

  // The shape of tensor `tensor_name` ("n" = "n:0", "n:k"). NotFound for a
  // node without results, InvalidArgument for an output index out of range.
  Status OutputShape(std::string_view tensor_name, PartialTensorShape* out) const;
  Status OutputShapeProto(std::string_view tensor_name, TensorShapeProto* out) const;
  // The shapes of every output of node `node_name`.
  Status OutputShapes(std::string_view node_name, std::vector<PartialTensorShape>* out) const;

  // The context the node's shape function ran in (its handles stay valid
  // while the refiner holds results), or nullptr.
  shape_inference::InferenceContext* GetContext(std::string_view node_name) const;

  // The constant value known for tensor `tensor_name`, or nullptr.
  const Tensor* ConstantValue(std::string_view tensor_name) const;

 private:
  struct NodeInfo;

  Status InferNode(NodeInfo* info, const std::map<std::string, PartialTensorShape>& feeds);
  // Derives the constant (or partial shape) a Const / Shape node outputs.
  void RecordConstants(NodeInfo* info);
  NodeInfo* Find(std::string_view node_name) const;
  // Whether an input from `producer` is a loop's back edge (a NextIteration).
  bool IsBackEdge(std::string_view producer) const;

  const int graph_def_version_;
  const OpRegistryInterface* const ops_;
  // By node name; the infos own their NodeDef, OpDef and context.
  std::map<std::string, std::unique_ptr<NodeInfo>, std::less<>> nodes_;
};

}  // namespace opkit

#endif  // OPKIT_GRAPH_SHAPE_REFINER_H_
