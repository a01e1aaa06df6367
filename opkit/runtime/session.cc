// Session: graph, placement and executors per signature.
#include "opkit/runtime/session.h"

#include <utility>

#include "opkit/core/errors.h"
#include "opkit/core/threadpool.h"
#include "opkit/runtime/internal/thread_count.h"
#include "opkit/device/device.h"
#include "opkit/op/op_registry.h"
#include "opkit/graph/graph.h"
#include "opkit/graph/placer.h"
#include "opkit/core/logging.h"
#include "opkit/optimizer/graph_optimizer.h"

namespace opkit {

Session::Session(const SessionOptions& options) : options_(options) {}
Session::~Session() = default;

StatusOr<std::unique_ptr<Session>> Session::New(const SessionOptions& requested) {
  SessionOptions options = requested;
  OPKIT_ASSIGN_OR_RETURN(
      options.inter_op_threads,
      internal::ResolveThreadCount(requested.inter_op_threads,
                                   "SessionOptions::inter_op_threads"));
  OPKIT_ASSIGN_OR_RETURN(
      options.intra_op_threads,
      internal::ResolveThreadCount(requested.intra_op_threads,
                                   "SessionOptions::intra_op_threads"));
  std::unique_ptr<Session> session(new Session(options));
  OPKIT_ASSIGN_OR_RETURN(
      session->device_,
      CpuDevice::Create("/job:localhost/replica:0/task:0/device:CPU:0",
                        options.intra_op_threads));
  if (options.inter_op_threads > 1) {
    session->inter_op_pool_ = std::make_unique<ThreadPool>(
        "opkit_session_inter_op", options.inter_op_threads);
  }
  return session;
}

StatusOr<std::shared_ptr<const Graph>> Session::BuildGraph(
    const GraphDef& def) const {
  OPKIT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph,
                         Graph::Create(def, options_.op_registry));
  PlacerOptions placer;
  placer.allow_soft_placement = options_.allow_soft_placement;
  placer.kernel_registry = options_.kernel_registry;
  OPKIT_RETURN_IF_ERROR(PlaceGraph(graph.get(), {device_.get()}, placer));
  return std::shared_ptr<const Graph>(std::move(graph));
}

std::shared_ptr<const Graph> Session::GraphForSignature(
    const ExecutorSignature& sig) {
  if (!options_.optimize) return graph_;
  GraphOptimizerOptions options;
  options.feeds = sig.feeds;
  options.fetches = sig.fetches;
  options.targets = sig.targets;
  options.op_registry = options_.op_registry;
  options.kernel_registry = options_.kernel_registry;
  options.device = device_.get();
  GraphDef optimized;
  Status s = OptimizeGraph(graph_def_, options, &optimized);
  StatusOr<std::shared_ptr<const Graph>> built =
      s.ok() ? BuildGraph(optimized)
             : StatusOr<std::shared_ptr<const Graph>>(s);
  if (!built.ok()) {
    // A name the signature gets wrong (InvalidArgument) is reported by
    // Executor::Create on the unoptimised graph, as without the optimizer.
    if (built.status().code() == error::INVALID_ARGUMENT) {
      VLOG(1) << "Not optimising: " << built.status().message();
    } else {
      LOG(WARNING) << "The graph optimizer failed; running the graph as it "
                   << "is: " << built.status().message();
    }
    return graph_;
  }
  return std::move(built).value();
}

Status Session::Create(const GraphDef& graph) {
  {
    mutex_lock l(mu_);
    if (closed_) return errors::FailedPrecondition("Session has been closed.");
    if (graph_ != nullptr) {
      return errors::AlreadyExists(
          "A Graph has already been created for this session; use Extend to "
          "add nodes");
    }
  }
  return Extend(graph);
}

Status Session::Extend(const GraphDef& graph) {
  mutex_lock l(mu_);
  if (closed_) return errors::FailedPrecondition("Session has been closed.");
  GraphDef combined = graph_def_;
  for (const NodeDef& node : graph.node()) *combined.add_node() = node;
  if (graph.has_versions() && !combined.has_versions()) {
    *combined.mutable_versions() = graph.versions();
  }
  OPKIT_ASSIGN_OR_RETURN(std::shared_ptr<const Graph> built,
                         BuildGraph(combined));
  graph_def_ = std::move(combined);
  graph_ = std::move(built);
  executors_.clear();
  return OkStatus();
}

Status Session::Run(const std::vector<std::pair<std::string, Tensor>>& inputs,
                    const std::vector<std::string>& output_tensor_names,
                    const std::vector<std::string>& target_node_names,
                    std::vector<Tensor>* outputs) {
  return Run(RunOptions(), inputs, output_tensor_names, target_node_names,
             outputs, nullptr);
}

Status Session::Run(const RunOptions& run_options,
                    const std::vector<std::pair<std::string, Tensor>>& inputs,
                    const std::vector<std::string>& output_tensor_names,
                    const std::vector<std::string>& target_node_names,
                    std::vector<Tensor>* outputs, RunMetadata* run_metadata) {
  if (outputs == nullptr) {
    return errors::InvalidArgument("Session::Run was given a null outputs");
  }
  ExecutorSignature sig;
  std::vector<Tensor> feeds;
  feeds.reserve(inputs.size());
  std::string key;
  for (const auto& in : inputs) {
    sig.feeds.push_back(in.first);
    feeds.push_back(in.second);
    key += StrCat("<", in.first.size(), ":", in.first);
  }
  key += "|";
  for (const std::string& f : output_tensor_names) {
    sig.fetches.push_back(f);
    key += StrCat(">", f.size(), ":", f);
  }
  key += "|";
  for (const std::string& t : target_node_names) {
    sig.targets.push_back(t);
    key += StrCat("^", t.size(), ":", t);
  }

  std::shared_ptr<Executor> executor;
  int64_t step_id = 0;
  {
    mutex_lock l(mu_);
    if (closed_) return errors::FailedPrecondition("Session has been closed.");
    if (graph_ == nullptr) {
      return errors::FailedPrecondition(
          "Session was not created with a graph before Run()!");
    }
    step_id = next_step_id_++;
    auto it = executors_.find(key);
    if (it != executors_.end()) {
      executor = it->second;
    } else {
      ExecutorOptions eo;
      eo.inter_op_threads = options_.inter_op_threads;
      eo.inter_op_pool = inter_op_pool_.get();
      eo.kernel_registry = options_.kernel_registry;
      std::shared_ptr<const Graph> graph = GraphForSignature(sig);
      StatusOr<std::unique_ptr<Executor>> created =
          Executor::Create(graph, {device_.get()}, sig, eo);
      if (!created.ok() && graph != graph_) {
        // Whatever the optimised graph lacks, the graph as written decides.
        LOG(WARNING) << "Running the graph unoptimised: its optimised form "
                     << "could not be prepared: " << created.status().message();
        created = Executor::Create(graph_, {device_.get()}, sig, eo);
      }
      if (!created.ok()) return created.status();
      executor = std::move(created).value();
      executors_.emplace(key, executor);
    }
  }
  ExecutorRunArgs args;
  args.step_id = step_id;
  args.timeout_ms = run_options.timeout_in_ms > 0
                        ? run_options.timeout_in_ms
                        : options_.operation_timeout_in_ms;
  std::vector<NodeExecStats> stats;
  if (run_options.collect_step_stats && run_metadata != nullptr) {
    args.stats = &stats;
  }
  Status s = executor->Run(args, feeds, outputs);
  if (run_metadata != nullptr) run_metadata->step_stats = std::move(stats);
  return s;
}

Status Session::Close() {
  mutex_lock l(mu_);
  closed_ = true;
  executors_.clear();
  graph_.reset();
  return OkStatus();
}

}  // namespace opkit
