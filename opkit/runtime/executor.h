// Executor: runs a placed Graph, step after step — the part of a Session that
// moves tensors between kernels.
//
//   ExecutorOptions options;  // inter_op_threads 0: one per CPU
//   options.inter_op_threads = 2;
//   ExecutorSignature sig;
//   sig.feeds = {"x:0"};
//   sig.fetches = {"y:0"};
//   OPKIT_ASSIGN_OR_RETURN(std::unique_ptr<Executor> exec,
//                          Executor::Create(graph, devices, sig, options));
//   ExecutorRunArgs args;
//   std::vector<Tensor> outputs;
//   OPKIT_RETURN_IF_ERROR(exec->Run(args, {x_value}, &outputs));
//
// What it does:
//   - Only the nodes the fetches and targets need run; a fed tensor replaces
//     the output it names, and its producer runs only if something else
//     needs it.
//   - Ready nodes run on an inter-op ThreadPool (the executor's own, one
//     thread per CPU by default, or a shared one). Cheap nodes run inline on
//     the thread that made them ready: those whose kernel says so
//     (OpKernel::IsExpensive() false) and those measured to compute in less
//     than a pool hand-off costs (Note [Inline cheap nodes] in
//     internal/executor_impl.h). Of the expensive nodes a completion makes
//     ready, the thread keeps one batch when it has nothing else to run and
//     hands only the surplus to the pool, so a chain never changes thread.
//     With one thread everything runs inline, in order, on the calling
//     thread (an AsyncOpKernel's continuation runs on the thread that calls
//     its `done`).
//   - Each node's kernel is created once and cached; when the kernel
//     registry's generation() changes (Note [Kernel replacement],
//     kernel_registry.h) the next step re-selects every kernel, so a step
//     never mixes kernels of two registry states.
//   - A step may have a deadline (ExecutorRunArgs::timeout_ms): past it the
//     step fails with DeadlineExceeded as if a node had failed.
//   - The first error stops the step: no node starts after it, pending async
//     kernels are cancelled (Note [Step cancellation], op_kernel_context.h),
//     and Run returns it with the node attached ("... [[{{node n}}]]").
//   - TensorFlow's v1 control flow (Note [Dead tensors and frames] in
//     internal/executor_impl.h): Switch leaves its untaken output dead, a
//     node with a dead input does not run and its outputs are dead, Merge
//     runs on its first live input; Enter/Exit/NextIteration move values into a loop frame, out
//     of it, and to the next iteration, so tf.cond and tf.while_loop graphs
//     run, nested loops included.
//   - Ref edges (VariableV2 -> Assign) carry the variable's tensor pointer
//     and mutex; a ref read by a non-ref input is copied under its mutex, and
//     an uninitialized one is FailedPrecondition unless the op allows it.
//
// Thread-safe: Run may be called from several threads at once; each call is
// one independent step (kernels are shared and must be thread-safe).
#ifndef OPKIT_RUNTIME_EXECUTOR_H_
#define OPKIT_RUNTIME_EXECUTOR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "opkit/core/export.h"
#include "opkit/core/status.h"
#include "opkit/core/statusor.h"
#include "opkit/tensor/tensor.h"

namespace opkit {

class CancellationManager;
class Device;
class Graph;
class KernelRegistry;

class ThreadPool;

struct ExecutorOptions {
  // Inter-op threads: 0 means one per CPU the process may use
  // (NumSchedulableCpus), 1 runs every node on the calling thread, N pins
  // it; negative is InvalidArgument. Ignored when inter_op_pool is set.
  int inter_op_threads = 0;
  // A pool to run nodes on, shared with others (a Session's); borrowed, must
  // outlive the executor. Null: the executor makes its own when
  // inter_op_threads > 1.
  ThreadPool* inter_op_pool = nullptr;
  // Where kernels are selected; null means KernelRegistry::Global().
  const KernelRegistry* kernel_registry = nullptr;
};

// Which tensors a step is given and which it returns ("name:index" or
// "name", meaning "name:0"), and which nodes it must run for their effects.
struct ExecutorSignature {
  std::vector<std::string> feeds;
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
};

// How long one node took in a step (RunMetadata's step stats).
struct NodeExecStats {
  std::string node_name;
  std::string op;
  // Nanoseconds since the step started, on a monotonic clock.
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  // The thread-pool thread (-1: the calling or another thread).
  int thread_id = -1;
};

struct ExecutorRunArgs {
  int64_t step_id = 0;
  // A caller's cancellation manager, also cancelled when the step fails
  // (the step cancels its own async work either way). Borrowed.
  CancellationManager* cancellation_manager = nullptr;
  // When not null, filled with one entry per node that ran, in completion
  // order.
  std::vector<NodeExecStats>* stats = nullptr;
  // When > 0, the step fails with DeadlineExceeded once it has run this long:
  // no node starts after the deadline and pending async kernels are
  // cancelled (a loop that never ends stops; a kernel already computing
  // finishes first).
  int64_t timeout_ms = 0;
};

class OPKIT_EXPORT Executor {
 public:
  // Prepares `graph` (already placed: PlaceGraph; shared with the caller) to
  // run `signature` on `devices` (borrowed; must outlive the executor). Every
  // kernel is created here, so a node without a usable kernel fails now.
  // Errors (InvalidArgument unless said): a feed, fetch or target that names
  // no node or no such output, a tensor fed twice, a fed tensor used inside a
  // loop frame (Unimplemented), inconsistent frames (a node reached from two
  // loop frames, an Exit outside any loop), and CreateOpKernel's errors with
  // the node attached.
  static StatusOr<std::unique_ptr<Executor>> Create(
      std::shared_ptr<const Graph> graph, std::vector<Device*> devices,
      const ExecutorSignature& signature,
      const ExecutorOptions& options = ExecutorOptions());

  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Runs one step. `feeds` are the values of signature.feeds, in order (each
  // must have the dtype of the output it replaces; InvalidArgument
  // otherwise). On success *outputs holds one tensor per fetch, in order; a
  // fetch that ended dead (an untaken cond branch) or never ran is
  // InvalidArgument. The first error of the step is returned as it is (a
  // kernel's error with its node attached).
  Status Run(const ExecutorRunArgs& args, const std::vector<Tensor>& feeds,
             std::vector<Tensor>* outputs);

  // Number of nodes a step runs (after pruning to the signature).
  int num_nodes_to_run() const;

 private:
  struct Impl;
  explicit Executor(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace opkit

#endif  // OPKIT_RUNTIME_EXECUTOR_H_
