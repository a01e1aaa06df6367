// Session: load a GraphDef and run it, TensorFlow's v1 way.
//
//   SessionOptions options;
//   options.inter_op_threads = 2;
//   OPKIT_ASSIGN_OR_RETURN(std::unique_ptr<Session> session,
//                          Session::New(options));
//   OPKIT_RETURN_IF_ERROR(session->Create(graph_def));
//   std::vector<Tensor> outputs;
//   OPKIT_RETURN_IF_ERROR(session->Run({{"x:0", x}}, {"y:0"}, {"train_op"},
//                                      &outputs));
//
// A session owns one CPU device (with its intra-op thread pool and its
// ResourceMgr, where VariableV2 keeps its values: variables persist across
// Run calls of one session and are private to it), the placed Graph, and an
// Executor per distinct (feeds, fetches, targets) signature, built on first
// use and reused.
//
// Thread-safe: Run may be called concurrently from several threads (each call
// is its own step; updates to one variable from concurrent steps are
// serialized by the variable's mutex). Extend and Close may race with Run:
// a Run that has started finishes on the graph it started with.
#ifndef OPKIT_RUNTIME_SESSION_H_
#define OPKIT_RUNTIME_SESSION_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "opkit/core/export.h"
#include "opkit/core/mutex.h"
#include "opkit/core/status.h"
#include "opkit/core/statusor.h"
#include "opkit/tensor/tensor.h"
#include "opkit/graph.pb.h"
#include "opkit/runtime/executor.h"

namespace opkit {

class Device;
class Graph;
class ThreadPool;
class KernelRegistry;
class OpRegistryInterface;

struct SessionOptions {
  // Threads that run independent nodes, shared by the session's executors
  // (TensorFlow's inter_op_parallelism_threads): 0 means one per CPU the
  // process may use (NumSchedulableCpus in opkit/core/threadpool.h), 1 runs
  // every node on the calling thread, N pins it. Negative: InvalidArgument.
  int inter_op_threads = 0;
  // Threads of the CPU device's intra-op pool (Eigen, Shard; TensorFlow's
  // intra_op_parallelism_threads), with the same meaning of 0.
  int intra_op_threads = 0;
  // Place nodes pinned to an unusable device elsewhere instead of failing.
  bool allow_soft_placement = false;
  // Default timeout of every Run in milliseconds (TensorFlow's
  // ConfigProto.operation_timeout_in_ms); 0 means none. See RunOptions.
  int64_t operation_timeout_in_ms = 0;
  // Rewrite the graph before it runs, once per (feeds, fetches, targets)
  // signature: constant folding, Identity pruning and fusion into
  // TensorFlow's fused ops (opkit/optimizer/graph_optimizer.h).
  // TensorFlow's equivalent is grappler, configured by
  // ConfigProto.graph_options.rewrite_options (RewriterConfig). When the
  // optimizer fails, the graph runs as it is (the failure is logged).
  bool optimize = true;
  // Registries; null means the global ones. Borrowed: must outlive the
  // session.
  const OpRegistryInterface* op_registry = nullptr;
  const KernelRegistry* kernel_registry = nullptr;
};

// Per-call options (TensorFlow's RunOptions, the parts opkit honours).
struct RunOptions {
  // Collect per-node timings into RunMetadata::step_stats.
  bool collect_step_stats = false;
  // When > 0, a Run taking longer fails with DeadlineExceeded (TensorFlow's
  // RunOptions.timeout_in_ms); the step stops at its next node and cancels
  // pending async kernels. 0 takes SessionOptions::operation_timeout_in_ms.
  int64_t timeout_in_ms = 0;
};

// What a call reports besides its outputs.
struct RunMetadata {
  // One entry per node that ran, when RunOptions::collect_step_stats.
  std::vector<NodeExecStats> step_stats;
};

class OPKIT_EXPORT Session {
 public:
  // A session without a graph; call Create next. Thread counts of 0 are
  // resolved here (options() shows what they became). InvalidArgument for
  // negative thread counts; the CPU device's errors.
  static StatusOr<std::unique_ptr<Session>> New(
      const SessionOptions& options = SessionOptions());

  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Loads the session's graph: parses nothing (see ParseGraphDef in
  // opkit/graph/graph.h), validates it (Graph::Create's errors, each naming
  // the node) and places it (PlaceGraph's errors). AlreadyExists if the
  // session already has a graph (use Extend); FailedPrecondition after
  // Close. On error the session is unchanged.
  Status Create(const GraphDef& graph);

  // Adds the nodes of `graph` to the session's graph (Create when there is
  // none). A name already in the graph, or any other fault of the combined
  // graph, is an error and leaves the session unchanged.
  Status Extend(const GraphDef& graph);

  // Runs one step: feeds `inputs` ("name:index" -> value), returns the
  // tensors `output_tensor_names` in order in *outputs, and runs
  // `target_node_names` for their effects. Errors: FailedPrecondition
  // without a graph or after Close; InvalidArgument for a name that is not
  // in the graph or names no such output, a feed of the wrong dtype, a fetch
  // that ends dead; the first kernel error of the step, with its node
  // ("[[{{node n}}]]").
  Status Run(const std::vector<std::pair<std::string, Tensor>>& inputs,
             const std::vector<std::string>& output_tensor_names,
             const std::vector<std::string>& target_node_names,
             std::vector<Tensor>* outputs);

  // The same, with per-call options; `run_metadata` (may be null) receives
  // what the options ask for.
  Status Run(const RunOptions& run_options,
             const std::vector<std::pair<std::string, Tensor>>& inputs,
             const std::vector<std::string>& output_tensor_names,
             const std::vector<std::string>& target_node_names,
             std::vector<Tensor>* outputs, RunMetadata* run_metadata);

  // Ends the session: later calls fail with FailedPrecondition ("Session has
  // been closed."); steps in progress finish. Frees the graph and the
  // executors (variables live as long as the session object). Idempotent.
  Status Close();

  // The session's device (for tests and tools).
  Device* device() const { return device_.get(); }
  // The options it was made with, thread counts resolved (never 0).
  const SessionOptions& options() const { return options_; }

 private:
  explicit Session(const SessionOptions& options);
  // Builds and places the graph of `def`.
  StatusOr<std::shared_ptr<const Graph>> BuildGraph(const GraphDef& def) const;
  // The graph an executor for `sig` runs: graph_ optimised for `sig`, or
  // graph_ itself when optimisation is off or fails.
  std::shared_ptr<const Graph> GraphForSignature(const ExecutorSignature& sig)
      OPKIT_REQUIRES(mu_);

  const SessionOptions options_;
  std::unique_ptr<Device> device_;
  // Shared by the session's executors; null with one inter-op thread.
  std::unique_ptr<ThreadPool> inter_op_pool_;
  mutex mu_;
  bool closed_ OPKIT_GUARDED_BY(mu_) = false;
  GraphDef graph_def_ OPKIT_GUARDED_BY(mu_);
  std::shared_ptr<const Graph> graph_ OPKIT_GUARDED_BY(mu_);
  // Executors of graph_, by signature.
  std::map<std::string, std::shared_ptr<Executor>> executors_
      OPKIT_GUARDED_BY(mu_);
  int64_t next_step_id_ OPKIT_GUARDED_BY(mu_) = 1;
};

}  // namespace opkit

#endif  // OPKIT_RUNTIME_SESSION_H_
