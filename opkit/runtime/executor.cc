// Executor: building it (pruning to the signature, the items and their
// edges, frames, kernels re-selected per registry generation) and its
// public entry points. The step loop is in executor_step.cc, the frame
// bookkeeping in executor_frames.cc (Note [Dead tensors and frames] in
// internal/executor_impl.h).
#include "opkit/runtime/executor.h"

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/core/mutex.h"
#include "opkit/core/str_util.h"
#include "opkit/core/threadpool.h"
#include "opkit/device/device.h"
#include "opkit/graph/graph.h"
#include "opkit/kernel/kernel_registry.h"
#include "opkit/op/node_def_util.h"
#include "opkit/resource/resource_mgr.h"
#include "opkit/runtime/internal/executor_impl.h"
#include "opkit/runtime/internal/thread_count.h"
#include "opkit/runtime/kernel_cache.h"

namespace opkit {
namespace internal {
namespace executor {
namespace {

std::string CanonicalName(const TensorId& id) {
  return StrCat(id.node(), ":", id.index());
}

}  // namespace

// ---------------------------------------------------------------------------
// Building

Status ExecutorImpl::Build(const ExecutorSignature& sig) {
  const Graph& g = *graph;
  const int n = g.num_nodes();

  auto resolve = [&](const std::string& name, const char* what,
                     bool want_output, TensorId* out) -> Status {
    TensorId id = ParseTensorName(name);
    if (id.index() == kControlSlot) {
      if (want_output) {
        return errors::InvalidArgument(
            "The ", what, " '", name,
            "' is a control input name; name a tensor as \"node:index\"");
      }
      id = TensorId(id.node(), 0);
    }
    const Node* node = g.FindNode(id.node());
    if (node == nullptr) {
      return errors::InvalidArgument("The ", what, " '", name,
                                     "' names no node of the graph");
    }
    if (want_output && id.index() >= node->num_outputs()) {
      return errors::InvalidArgument(
          "The ", what, " '", name, "' names output ", id.index(), " of node ",
          node->name(), ", which has ", node->num_outputs(), " outputs");
    }
    *out = id;
    return OkStatus();
  };

  // Feeds.
  std::map<std::pair<int, int>, int> fed;  // (node, output) -> feed index
  for (size_t i = 0; i < sig.feeds.size(); ++i) {
    TensorId id;
    OPKIT_RETURN_IF_ERROR(resolve(sig.feeds[i], "feed", true, &id));
    const Node* node = g.FindNode(id.node());
    if (!fed.emplace(std::make_pair(node->id(), id.index()),
                     static_cast<int>(i))
             .second) {
      return errors::InvalidArgument("The tensor ", CanonicalName(id),
                                     " is fed more than once");
    }
    feed_types.push_back(RemoveRefType(node->output_type(id.index())));
    feed_names.push_back(CanonicalName(id));
  }

  // Nodes needed: backwards from fetches and targets, stopping at fed tensors.
  std::vector<char> needed(n, 0);
  std::vector<int> stack;
  std::vector<std::pair<int, int>> fetch_ids;
  for (const std::string& f : sig.fetches) {
    TensorId id;
    OPKIT_RETURN_IF_ERROR(resolve(f, "fetch", true, &id));
    const Node* node = g.FindNode(id.node());
    fetch_ids.emplace_back(node->id(), id.index());
    fetch_names.push_back(CanonicalName(id));
    auto it = fed.find({node->id(), id.index()});
    fetch_from_feed.push_back(it == fed.end() ? -1 : it->second);
    if (it == fed.end() && !needed[node->id()]) {
      needed[node->id()] = 1;
      stack.push_back(node->id());
    }
  }
  for (const std::string& t : sig.targets) {
    TensorId id;
    OPKIT_RETURN_IF_ERROR(resolve(t, "target", false, &id));
    const Node* node = g.FindNode(id.node());
    if (!needed[node->id()]) {
      needed[node->id()] = 1;
      stack.push_back(node->id());
    }
  }
  while (!stack.empty()) {
    const int id = stack.back();
    stack.pop_back();
    for (int e : g.node(id).in_edges()) {
      const GraphEdge& edge = g.edge(e);
      if (!edge.IsControl() && fed.count({edge.src, edge.src_output})) continue;
      if (!needed[edge.src]) {
        needed[edge.src] = 1;
        stack.push_back(edge.src);
      }
    }
  }

  // Items.
  std::vector<int> item_of(n, -1);
  for (int id : g.topological_order()) {
    if (!needed[id]) continue;
    item_of[id] = static_cast<int>(items.size());
    Item item;
    const Node& node = g.node(id);
    item.node = &node;
    item.num_inputs = node.num_inputs();
    item.num_outputs = node.num_outputs();
    item.device = node.assigned_device_index() >= 0 &&
                          node.assigned_device_index() <
                              static_cast<int>(devices.size())
                      ? node.assigned_device_index()
                      : 0;
    item.is_merge = node.IsMerge();
    item.is_enter = node.IsEnter();
    item.is_exit = node.IsExit();
    item.is_next_iteration = node.IsNextIteration();
    item.is_switch = node.IsSwitch();
    item.allows_uninitialized = node.op_def().allows_uninitialized_input();
    if (item.is_enter) {
      bool is_constant = false;
      if (TryGetNodeAttr(AttrSlice(node.def()), "is_constant", &is_constant)) {
        item.is_constant_enter = is_constant;
      }
    }
    item.ref_begin = static_cast<int>(input_is_ref.size());
    for (int i = 0; i < item.num_inputs; ++i) {
      input_is_ref.push_back(IsRefType(node.input_type(i)) ? 1 : 0);
    }
    items.push_back(item);
  }

  // Out-edges and feed edges, per item.
  for (size_t i = 0; i < items.size(); ++i) {
    Item& item = items[i];
    item.out_begin = static_cast<int>(out_edges.size());
    for (int e : item.node->out_edges()) {
      const GraphEdge& edge = g.edge(e);
      const int dst = item_of[edge.dst];
      if (dst < 0) continue;
      if (!edge.IsControl() && fed.count({edge.src, edge.src_output})) continue;
      out_edges.push_back(OutEdge{dst, edge.IsControl() ? -1 : edge.dst_input,
                                  edge.IsControl() ? -1 : edge.src_output,
                                  false});
      if (items[dst].is_merge && !edge.IsControl()) {
        if (item.is_next_iteration) {
          ++items[dst].merge_back;
        } else {
          ++items[dst].merge_front;
        }
      }
    }
    item.out_end = static_cast<int>(out_edges.size());
    for (int e = item.out_begin; e < item.out_end; ++e) {
      bool last = out_edges[e].src_output >= 0;
      for (int later = e + 1; later < item.out_end && last; ++later) {
        last = out_edges[later].src_output != out_edges[e].src_output;
      }
      out_edges[e].last_use = last;
    }
    item.fetch_begin = static_cast<int>(fetch_slots.size());
    for (size_t f = 0; f < fetch_ids.size(); ++f) {
      if (fetch_ids[f].first == item.node->id() && fetch_from_feed[f] < 0) {
        fetch_slots.emplace_back(fetch_ids[f].second, static_cast<int>(f));
      }
    }
    item.fetch_end = static_cast<int>(fetch_slots.size());
  }
  for (int id = 0; id < n; ++id) {
    if (item_of[id] < 0) continue;
    for (int e : g.node(id).in_edges()) {
      const GraphEdge& edge = g.edge(e);
      if (edge.IsControl()) continue;
      auto it = fed.find({edge.src, edge.src_output});
      if (it == fed.end()) continue;
      feed_edges.push_back(FeedEdge{it->second, item_of[id], edge.dst_input});
    }
  }

  OPKIT_RETURN_IF_ERROR(AssignFrames());

  for (const FeedEdge& fe : feed_edges) {
    if (items[fe.dst].frame != 0) {
      return errors::Unimplemented(
          "The fed tensor ", feed_names[fe.feed], " is used by node ",
          items[fe.dst].node->name(),
          " inside the loop frame '", frames[items[fe.dst].frame].name,
          "'; feed a tensor outside the loop and pass it in through Enter");
    }
  }
  // Initial pending counts and the nodes ready at the start.
  for (FrameInfo& f : frames) f.initial_pending.assign(f.items.size(), 0);
  for (const Item& item : items) {
    for (int e = item.out_begin; e < item.out_end; ++e) {
      const OutEdge& oe = out_edges[e];
      const Item& dst = items[oe.dst];
      if (dst.is_merge && oe.dst_slot >= 0) continue;
      ++frames[dst.frame].initial_pending[dst.local_id];
    }
  }
  for (const FeedEdge& fe : feed_edges) {
    const Item& dst = items[fe.dst];
    if (dst.is_merge) continue;
    ++frames[0].initial_pending[dst.local_id];
  }
  for (size_t i = 0; i < items.size(); ++i) {
    const Item& item = items[i];
    if (item.frame == 0 && !item.is_merge &&
        frames[0].initial_pending[item.local_id] == 0) {
      initial_ready.push_back(static_cast<int>(i));
    }
  }
  return OkStatus();
}

Status ExecutorImpl::AssignFrames() {
  frames.clear();
  FrameInfo root;
  root.name = "";
  frames.push_back(root);
  std::unordered_map<std::string, int> frame_by_name;
  // Items with no in-edge (feed edges count as root-frame inputs) start in
  // the root frame.
  std::vector<int> in_count(items.size(), 0);
  for (const OutEdge& oe : out_edges) ++in_count[oe.dst];
  std::deque<int> queue;
  for (size_t i = 0; i < items.size(); ++i) {
    if (in_count[i] == 0) {
      items[i].frame = 0;
      queue.push_back(static_cast<int>(i));
    }
  }
  while (!queue.empty()) {
    const int i = queue.front();
    queue.pop_front();
    Item& item = items[i];
    int out_frame = item.frame;
    if (item.is_enter) {
      std::string name;
      if (!TryGetNodeAttr(AttrSlice(item.node->def()), "frame_name", &name)) {
        return AttachDef(errors::InvalidArgument("Enter has no frame_name"),
                         item.node->def());
      }
      auto it = frame_by_name.find(name);
      if (it == frame_by_name.end()) {
        FrameInfo info;
        info.name = name;
        info.parent = item.frame;
        frames.push_back(info);
        it = frame_by_name.emplace(name, static_cast<int>(frames.size()) - 1)
                 .first;
      } else if (frames[it->second].parent != item.frame) {
        return AttachDef(
            errors::InvalidArgument(
                "The loop frame '", name,
                "' is entered from two different frames ('",
                frames[frames[it->second].parent].name, "' and '",
                frames[item.frame].name, "')"),
            item.node->def());
      }
      out_frame = it->second;
      item.child_frame = out_frame;
      ++frames[out_frame].num_enters;
    } else if (item.is_exit) {
      if (item.frame == 0) {
        return AttachDef(errors::InvalidArgument(
                             "Exit node is not inside any loop frame (no "
                             "Enter leads to it)"),
                         item.node->def());
      }
      out_frame = frames[item.frame].parent;
    }
    for (int e = item.out_begin; e < item.out_end; ++e) {
      Item& dst = items[out_edges[e].dst];
      if (dst.frame < 0) {
        dst.frame = out_frame;
        queue.push_back(out_edges[e].dst);
      } else if (dst.frame != out_frame) {
        return AttachDef(
            errors::InvalidArgument(
                "Node ", dst.node->name(), " has inputs from two frames ('",
                frames[dst.frame].name, "' and '", frames[out_frame].name,
                "'); values must enter a loop through Enter and leave it "
                "through Exit"),
            dst.node->def());
      }
    }
  }
  for (size_t i = 0; i < items.size(); ++i) {
    Item& item = items[i];
    if (item.frame < 0) {
      return AttachDef(errors::InvalidArgument(
                           "Node is unreachable from the graph's sources"),
                       item.node->def());
    }
    FrameInfo& f = frames[item.frame];
    item.local_id = static_cast<int>(f.items.size());
    f.items.push_back(static_cast<int>(i));
    item.input_start = f.num_slots;
    f.num_slots += item.num_inputs;
    if (item.is_exit) f.exits.push_back(static_cast<int>(i));
  }
  return OkStatus();
}

StatusOr<std::shared_ptr<KernelSet>> ExecutorImpl::CreateKernels(
    uint64_t generation) const {
  auto set = std::make_shared<KernelSet>();
  set->generation = generation;
  set->cached.reserve(items.size());
  set->kernels.resize(items.size());
  set->cost_ns = std::make_unique<std::atomic<int64_t>[]>(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    const Node& node = *items[i].node;
    CachedKernel& cached = set->cached.emplace_back(
        registry, devices[items[i].device], node.properties(), graph->version());
    Status s = cached.Refresh();
    if (!s.ok()) return AttachDef(s, node.def());
    set->kernels[i] = cached.kernel();
    set->cost_ns[i].store(
        cached.kernel()->IsExpensive() ? kUnmeasuredCost : 0,
        std::memory_order_relaxed);
  }
  return set;
}

StatusOr<std::shared_ptr<KernelSet>> ExecutorImpl::CurrentKernels() {
  const uint64_t generation = registry->generation();
  {
    shared_lock l(kernels_mu);
    if (kernels != nullptr && kernels->generation == generation) return kernels;
  }
  mutex_lock l(kernels_mu);
  if (kernels != nullptr && kernels->generation == generation) return kernels;
  // Note [Kernel replacement]: the registry changed; select every kernel
  // again. Steps still running keep the old set alive.
  OPKIT_ASSIGN_OR_RETURN(std::shared_ptr<KernelSet> fresh,
                         CreateKernels(generation));
  kernels = std::move(fresh);
  return kernels;
}

}  // namespace executor
}  // namespace internal

// Executor::Impl is ExecutorImpl; the public header names it only.
struct Executor::Impl : internal::executor::ExecutorImpl {};

// ---------------------------------------------------------------------------
// Executor

Executor::Executor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Executor::~Executor() = default;

int Executor::num_nodes_to_run() const {
  return static_cast<int>(impl_->items.size());
}

StatusOr<std::unique_ptr<Executor>> Executor::Create(
    std::shared_ptr<const Graph> graph, std::vector<Device*> devices,
    const ExecutorSignature& signature, const ExecutorOptions& options) {
  if (graph == nullptr) {
    return errors::InvalidArgument("Executor::Create was given no graph");
  }
  if (devices.empty() || devices[0] == nullptr) {
    return errors::InvalidArgument(
        "Executor::Create was given no devices; pass at least a CpuDevice");
  }
  OPKIT_ASSIGN_OR_RETURN(
      const int inter_op_threads,
      internal::ResolveThreadCount(options.inter_op_threads,
                                   "ExecutorOptions::inter_op_threads"));
  auto impl = std::make_unique<Impl>();
  impl->graph = std::move(graph);
  impl->devices = std::move(devices);
  impl->options = options;
  impl->options.inter_op_threads = inter_op_threads;
  impl->registry = options.kernel_registry != nullptr
                       ? options.kernel_registry
                       : KernelRegistry::Global();
  OPKIT_RETURN_IF_ERROR(impl->Build(signature));
  if (options.inter_op_pool != nullptr) {
    impl->pool = options.inter_op_pool;
  } else if (inter_op_threads > 1) {
    impl->owned_pool = std::make_unique<ThreadPool>("opkit_inter_op",
                                                    inter_op_threads);
    impl->pool = impl->owned_pool.get();
  }
  OPKIT_RETURN_IF_ERROR(impl->CurrentKernels().status());
  return std::unique_ptr<Executor>(new Executor(std::move(impl)));
}

Status Executor::Run(const ExecutorRunArgs& args,
                     const std::vector<Tensor>& feeds,
                     std::vector<Tensor>* outputs) {
  if (outputs == nullptr) {
    return errors::InvalidArgument("Executor::Run was given a null outputs");
  }
  OPKIT_ASSIGN_OR_RETURN(std::shared_ptr<internal::executor::KernelSet> kernels,
                         impl_->CurrentKernels());
  Status s;
  {
    internal::executor::Step step(impl_.get(), std::move(kernels), args);
    s = step.Run(feeds, outputs);
  }
  // Resources made for this step only (TensorArrays, anything under
  // MakePerStepResourceHandle) go with it, as TensorFlow's step container.
  const std::string step_container = StrCat("__per_step_", args.step_id);
  for (Device* device : impl_->devices) {
    ResourceMgr* rm = device != nullptr ? device->resource_manager() : nullptr;
    if (rm != nullptr) rm->Cleanup(step_container).IgnoreError();
  }
  return s;
}

}  // namespace opkit
