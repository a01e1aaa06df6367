// OptimizeGraph: checks the graph and the signature, then runs the passes
// of internal/graph_view.h in order on a copy.
#include "opkit/optimizer/graph_optimizer.h"

#include <memory>
#include <utility>

#include "opkit/core/errors.h"
#include "opkit/core/logging.h"
#include "opkit/device/device.h"
#include "opkit/graph/graph.h"
#include "opkit/optimizer/internal/graph_view.h"

namespace opkit {

Status OptimizeGraph(const GraphDef& graph,
                     const GraphOptimizerOptions& options,
                     GraphDef* optimized, GraphOptimizerStats* stats) {
  if (optimized == nullptr || optimized == &graph) {
    return errors::InvalidArgument(
        "OptimizeGraph needs an output GraphDef other than its input");
  }
  GraphOptimizerStats local_stats;
  if (stats == nullptr) stats = &local_stats;
  *stats = GraphOptimizerStats();
  // The input must be a valid graph: the passes rely on it.
  OPKIT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> checked,
                         Graph::Create(graph, options.op_registry));

  internal::PassContext ctx;
  ctx.op_registry = options.op_registry;
  ctx.kernel_registry = options.kernel_registry;
  ctx.max_constant_bytes = options.max_constant_bytes;
  auto require_node = [&](const std::string& name,
                          const char* what) -> Status {
    if (checked->FindNode(name) == nullptr) {
      return errors::InvalidArgument("The ", what, " '", name,
                                     "' names no node of the graph");
    }
    return OkStatus();
  };
  for (const std::string& feed : options.feeds) {
    const internal::InputRef ref = internal::ParseInput(feed);
    OPKIT_RETURN_IF_ERROR(require_node(ref.node, "feed"));
    ctx.protected_nodes.insert(ref.node);
    ctx.fed_nodes.insert(ref.node);
  }
  for (const std::string& fetch : options.fetches) {
    const internal::InputRef ref = internal::ParseInput(fetch);
    OPKIT_RETURN_IF_ERROR(require_node(ref.node, "fetch"));
    ctx.protected_nodes.insert(ref.node);
    ctx.roots.insert(ref.node);
    ctx.fetched_tensors.insert(ref.node + ":" +
                               std::to_string(ref.control ? 0 : ref.index));
  }
  for (const std::string& target : options.targets) {
    const std::string name = internal::NodeNameOf(target);
    OPKIT_RETURN_IF_ERROR(require_node(name, "target"));
    ctx.protected_nodes.insert(name);
    ctx.roots.insert(name);
  }

  std::unique_ptr<Device> own_device;
  ctx.device = options.device;
  if (ctx.device == nullptr && options.fold_constants) {
    OPKIT_ASSIGN_OR_RETURN(
        own_device, CpuDevice::Create("/job:localhost/replica:0/task:0/device:CPU:0",
                                      /*intra_op_threads=*/1));
    ctx.device = own_device.get();
  }

  GraphDef work = graph;
  auto check = [&](const char* pass, Status s) -> Status {
    if (!s.ok()) {
      return errors::Internal("The graph optimizer's ", pass,
                              " pass failed: ", s.message());
    }
    return OkStatus();
  };
  if (options.prune_identity) {
    OPKIT_RETURN_IF_ERROR(check(
        "Identity pruning",
        internal::PruneIdentities(ctx, &work, &stats->identities_removed)));
  }
  if (options.fold_constants) {
    OPKIT_RETURN_IF_ERROR(check(
        "constant folding",
        internal::FoldConstants(ctx, &work, &stats->constants_folded)));
  }
  if (options.fuse) {
    OPKIT_RETURN_IF_ERROR(check(
        "batch norm folding",
        internal::FoldBatchNorms(ctx, &work, &stats->batch_norms_folded)));
    OPKIT_RETURN_IF_ERROR(check("fusion", internal::FuseBiasAndActivation(
                                              ctx, &work, &stats->nodes_fused)));
  }
  // What the passes made must still be a valid graph.
  Status valid = Graph::Create(work, options.op_registry).status();
  if (!valid.ok()) {
    return errors::Internal("The graph optimizer produced an invalid graph: ",
                            valid.message());
  }
  *optimized = std::move(work);
  VLOG(1) << "OptimizeGraph: " << stats->identities_removed
          << " Identity nodes removed, " << stats->constants_folded
          << " nodes folded to constants, " << stats->batch_norms_folded
          << " batch norms folded, " << stats->nodes_fused << " chains fused";
  return OkStatus();
}

}  // namespace opkit
