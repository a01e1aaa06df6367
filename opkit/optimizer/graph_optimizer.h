// OptimizeGraph: rewrites a GraphDef before it runs, as a small version of
// TensorFlow's grappler does -- constant folding, Identity pruning, and
// fusion of a convolution or matrix product with the bias add, batch norm
// and activation after it into TensorFlow's fused ops.
//
//   GraphOptimizerOptions options;
//   options.feeds = {"x:0"};
//   options.fetches = {"logits:0"};
//   GraphDef optimized;
//   GraphOptimizerStats stats;
//   OPKIT_RETURN_IF_ERROR(OptimizeGraph(graph, options, &optimized, &stats));
//
// The result computes the same values for the run's fetches and has the
// same effects for its targets, given the same feeds. Nodes named by the
// feeds, fetches and targets are protected: none of them is removed,
// renamed, folded or fused away. A node that ends a fused chain keeps its
// name, so its consumers and fetches find the fused node under it.
//
// Session (opkit/runtime/session.h) optimises the graph once per
// (feeds, fetches, targets) signature before building that signature's
// executor, unless SessionOptions::optimize is false.
#ifndef OPKIT_OPTIMIZER_GRAPH_OPTIMIZER_H_
#define OPKIT_OPTIMIZER_GRAPH_OPTIMIZER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "opkit/core/export.h"
#include "opkit/core/status.h"
#include "opkit/graph.pb.h"

namespace opkit {

class Device;
class KernelRegistry;
class OpRegistryInterface;

struct GraphOptimizerOptions {
  // The run's signature: fed and fetched tensors ("node:index", or "node"
  // for output 0) and target nodes. All of them are protected; when
  // fetches or targets are given, only the nodes they depend on are folded
  // or fused.
  std::vector<std::string> feeds;
  std::vector<std::string> fetches;
  std::vector<std::string> targets;

  // The passes, in the order they run.
  bool prune_identity = true;
  bool fold_constants = true;
  bool fuse = true;

  // Constant folding leaves a node alone when its result would take more
  // than this many bytes (TensorFlow's grappler uses 10 MB too).
  int64_t max_constant_bytes = int64_t{10} << 20;

  // Registries; null means the global ones. Borrowed for the call.
  const OpRegistryInterface* op_registry = nullptr;
  const KernelRegistry* kernel_registry = nullptr;
  // The CPU device constant folding runs kernels on; null means a private
  // one-thread CPU device made for the call. Borrowed for the call.
  Device* device = nullptr;
};

// What OptimizeGraph did.
struct GraphOptimizerStats {
  // Nodes replaced by a Const.
  int constants_folded = 0;
  // Identity nodes bypassed and removed.
  int identities_removed = 0;
  // Batch norms folded into the filter of the convolution before them.
  int batch_norms_folded = 0;
  // Chains replaced by one fused node.
  int nodes_fused = 0;
};

// Writes the optimised form of `graph` into *optimized (which may not be
// `graph` itself). Errors: InvalidArgument when `graph` is not a valid graph
// (Graph::Create's errors) or names a feed, fetch or target it does not
// have; Internal when a pass breaks the graph (an opkit bug: callers should
// then run `graph` as it is). A node whose kernel fails while being folded
// is not an error: it stays as it was and fails when the graph runs.
OPKIT_EXPORT Status OptimizeGraph(const GraphDef& graph,
                                  const GraphOptimizerOptions& options,
                                  GraphDef* optimized,
                                  GraphOptimizerStats* stats = nullptr);

}  // namespace opkit

#endif  // OPKIT_OPTIMIZER_GRAPH_OPTIMIZER_H_
