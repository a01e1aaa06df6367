// Executor: pruning, frames, kernel caching and the step loop.
//
// Note [Dead tensors and frames]
// Semantics are TensorFlow's v1 control flow; the bookkeeping is this file's.
//   - Every node runs in a frame: the root frame, or the frame a chain of
//     Enter nodes leads into (named by Enter's frame_name). Frames are
//     assigned statically when the executor is built: a node's successors are
//     in its frame, except that an Enter's successors are in the Enter's
//     child frame and an Exit's successors are in the parent frame of the
//     Exit's frame. A node reached from two frames is an error.
//   - At run time a frame has instances (one per iteration of the parent
//     that entered it) and each instance has iterations. Each iteration
//     holds, for every node of the frame, its input slots and counters.
//   - A value is live or dead. A non-Merge node becomes ready when all its
//     in-edges (data and control) have delivered; if any delivered dead, the
//     node does not run and all its outputs (and control out-edges) are dead.
//     A Switch leaves its untaken output unset, which is dead.
//   - Merge becomes ready on its first live data input once its control
//     inputs are in; later inputs of that iteration are dropped. It is dead
//     when every data input it can get in that iteration is dead: for a loop
//     Merge (one with inputs from NextIteration) the Enter-side inputs in
//     iteration 0 and the NextIteration-side inputs after it; for other
//     Merges all of them.
//   - Enter delivers to iteration 0 of the child instance (created on first
//     use); a constant Enter (is_constant) delivers to every iteration, also
//     those created later. NextIteration delivers to the next iteration
//     (created on first use); a dead NextIteration delivers nothing, which is
//     how a loop ends. A live Exit delivers to the parent iteration at once;
//     an Exit that never delivered live when its frame instance finishes
//     delivers dead then (a loop in an untaken cond branch).
//   - A frame instance finishes when nothing in it is ready or running, no
//     Enter of it is still to come, and no child instance is alive
//     (`outstanding` counts all three). The step ends when nothing anywhere
//     is ready or running (`inflight`).
// All of this state is guarded by the step's mutex; a kernel runs without
// it. A node's input slots are written only before it becomes ready (Merge
// drops late inputs), so the thread that runs it reads them unlocked.
#include "opkit/runtime/executor.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <deque>
#include <exception>
#include <algorithm>
#include <map>
#include <unordered_map>
#include <utility>

#include "opkit/core/errors.h"
#include "opkit/core/mutex.h"
#include "opkit/core/threadpool.h"
#include "opkit/device/device.h"
#include "opkit/kernel/kernel_registry.h"
#include "opkit/op/node_def_util.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/graph/graph.h"
#include "opkit/runtime/kernel_cache.h"

namespace opkit {
namespace {

using Clock = std::chrono::steady_clock;

// One value in flight: a tensor, or a ref (pointer + mutex) to one.
struct Entry {
  Tensor val;
  mutex* ref_mu = nullptr;
  Tensor* ref = nullptr;
  bool has_value = false;

  void Clear() {
    if (!has_value) return;
    Tensor drop(std::move(val));
    ref_mu = nullptr;
    ref = nullptr;
    has_value = false;
  }
};

struct OutEdge {
  int dst;          // item
  int dst_slot;     // input index, or -1 for a control edge
  int src_output;   // output index, or -1 for a control edge
  bool last_use;    // no later edge of the node reads src_output: move it
};

// A node the executor runs, with everything the hot path needs precomputed.
struct Item {
  const Node* node = nullptr;
  int frame = -1;
  int local_id = -1;
  int input_start = 0;
  int num_inputs = 0;
  int num_outputs = 0;
  int out_begin = 0;
  int out_end = 0;
  int fetch_begin = 0;
  int fetch_end = 0;
  int ref_begin = 0;  // into Impl::input_is_ref, num_inputs entries
  int device = 0;
  int child_frame = -1;  // Enter: the frame it leads into
  int merge_front = 0;   // Merge: data inputs not from NextIteration
  int merge_back = 0;    // Merge: data inputs from NextIteration
  bool is_merge = false;
  bool is_enter = false;
  bool is_constant_enter = false;
  bool is_exit = false;
  bool is_next_iteration = false;
  bool is_switch = false;
  bool allows_uninitialized = false;
};

struct FrameInfo {
  std::string name;
  int parent = -1;
  std::vector<int> items;  // by local id
  int num_slots = 0;
  int num_enters = 0;
  std::vector<int> exits;  // items
  std::vector<int> initial_pending;  // by local id
};

struct Counts {
  int32_t pending = 0;
  int32_t dead = 0;
  bool fired = false;
  bool has_live = false;
};

struct IterState {
  std::unique_ptr<Entry[]> inputs;
  std::unique_ptr<Counts[]> counts;
};

struct FrameState {
  const FrameInfo* info = nullptr;
  int info_index = 0;
  int64_t id = 0;
  FrameState* parent = nullptr;
  int64_t parent_iter = 0;
  std::vector<std::unique_ptr<IterState>> iterations;
  int64_t outstanding = 0;
  // Values of constant Enters, for iterations created later.
  struct ConstValue {
    int enter_item;
    Entry value;
    bool dead;
  };
  std::vector<ConstValue> const_values;
  std::vector<bool> exit_live;  // parallel to info->exits
  std::map<std::pair<int, int64_t>, std::unique_ptr<FrameState>> children;
};

struct TaggedNode {
  int item;
  FrameState* frame;
  IterState* iter;
  int64_t iter_id;
  bool dead;
};

// The kernels of one registry generation, one per item (Note [Kernel cache
// generations]): the set is current while the registry's generation is the
// one read before its first selection.
struct KernelSet {
  uint64_t generation = 0;
  std::vector<CachedKernel> cached;
  // Per item, for the step loop: cached[i].kernel() and whether it is
  // expensive, packed densely.
  std::vector<OpKernel*> kernels;
  std::vector<char> expensive;
};

std::string CanonicalName(const TensorId& id) {
  return StrCat(id.node(), ":", id.index());
}

}  // namespace

struct Executor::Impl {
  std::shared_ptr<const Graph> graph;
  std::vector<Device*> devices;
  ExecutorOptions options;
  const KernelRegistry* registry = nullptr;
  std::unique_ptr<ThreadPool> owned_pool;
  ThreadPool* pool = nullptr;  // owned_pool or options.inter_op_pool; may be null

  std::vector<Item> items;
  std::vector<OutEdge> out_edges;
  std::vector<char> input_is_ref;
  std::vector<std::pair<int, int>> fetch_slots;  // (output, fetch index)
  std::vector<FrameInfo> frames;

  // Feeds: the dtype of each and the edges it fills.
  struct FeedEdge {
    int feed;
    int dst;
    int dst_slot;
  };
  std::vector<DataType> feed_types;
  std::vector<std::string> feed_names;
  std::vector<FeedEdge> feed_edges;
  // Fetches of fed tensors: fetch index -> feed index.
  std::vector<int> fetch_from_feed;
  std::vector<std::string> fetch_names;
  std::vector<int> initial_ready;  // root items with nothing to wait for

  mutex kernels_mu;
  std::shared_ptr<KernelSet> kernels OPKIT_GUARDED_BY(kernels_mu);

  // Root-frame iteration states of finished steps, cleared, for the next
  // steps to reuse (a big graph's slot arrays are costly to allocate and
  // construct every step).
  mutex pool_mu;
  std::vector<std::unique_ptr<IterState>> root_iter_pool
      OPKIT_GUARDED_BY(pool_mu);
  static constexpr size_t kMaxPooledRootIters = 4;

  Status Build(const ExecutorSignature& sig);
  Status AssignFrames();
  StatusOr<std::shared_ptr<KernelSet>> CreateKernels(uint64_t generation) const;
  StatusOr<std::shared_ptr<KernelSet>> CurrentKernels();

  class Step;
};

// ---------------------------------------------------------------------------
// Building

Status Executor::Impl::Build(const ExecutorSignature& sig) {
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

Status Executor::Impl::AssignFrames() {
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

StatusOr<std::shared_ptr<KernelSet>> Executor::Impl::CreateKernels(
    uint64_t generation) const {
  auto set = std::make_shared<KernelSet>();
  set->generation = generation;
  set->cached.reserve(items.size());
  set->kernels.resize(items.size());
  set->expensive.resize(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    const Node& node = *items[i].node;
    CachedKernel& cached = set->cached.emplace_back(
        registry, devices[items[i].device], node.properties(), graph->version());
    Status s = cached.Refresh();
    if (!s.ok()) return AttachDef(s, node.def());
    set->kernels[i] = cached.kernel();
    set->expensive[i] = cached.kernel()->IsExpensive() ? 1 : 0;
  }
  return set;
}

StatusOr<std::shared_ptr<KernelSet>> Executor::Impl::CurrentKernels() {
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

// ---------------------------------------------------------------------------
// One step

class Executor::Impl::Step {
 public:
  Step(Impl* impl, std::shared_ptr<KernelSet> kernels,
       const ExecutorRunArgs& args)
      : impl_(impl), kernels_(std::move(kernels)), args_(args) {
    start_ = Clock::now();
    if (args_.timeout_ms > 0) {
      has_deadline_ = true;
      deadline_ = start_ + std::chrono::milliseconds(args_.timeout_ms);
    }
    fetch_values_.resize(impl_->fetch_names.size());
  }

  Status Run(const std::vector<Tensor>& feeds, std::vector<Tensor>* outputs);

 private:
  // Nodes to run on this thread, and scratch for what a node makes ready
  // (reused, so that a node's completion allocates nothing once warm).
  struct ReadyQueue {
    std::deque<TaggedNode> nodes;
    std::vector<TaggedNode> scratch;
    bool empty() const { return nodes.empty(); }
    void push_back(const TaggedNode& tn) { nodes.push_back(tn); }
    TaggedNode pop() {
      TaggedNode tn = nodes.front();
      nodes.pop_front();
      return tn;
    }
  };

  // The helpers below run with mu_ held.
  IterState* NewIteration(FrameState* frame, std::vector<TaggedNode>* ready);
  FrameState* ChildFrame(FrameState* parent, int64_t parent_iter,
                         int frame_index);
  // Delivers `value` (moved from when `move`) to input `slot` (-1: a control
  // edge) of `dst` in `iter`.
  void Activate(const Item& dst, FrameState* frame, IterState* iter,
                int64_t iter_id, int slot, Entry* value, bool move, bool dead,
                std::vector<TaggedNode>* ready);
  // Delivers a node's outputs along its out-edges; with `may_move` the last
  // edge reading an output takes it over.
  void DeliverEdges(const Item& item, FrameState* frame, IterState* iter,
                    int64_t iter_id, Entry* outputs, bool may_move, bool dead,
                    std::vector<TaggedNode>* ready);
  void Propagate(const TaggedNode& tn, Entry* outputs, bool dead,
                 std::vector<TaggedNode>* ready);
  void MaybeFrameDone(FrameState* frame, std::vector<TaggedNode>* ready);
  void Push(const TaggedNode& tn, std::vector<TaggedNode>* ready) {
    ++tn.frame->outstanding;
    ++inflight_;
    ready->push_back(tn);
  }

  // Runs `nodes` and what becomes ready after them on this thread
  // (scheduling expensive nodes on the pool).
  void RunFrom(const std::vector<TaggedNode>& nodes);
  // Runs one node; returns false when it went async (its completion
  // continues elsewhere). Once the node's NodeDone has run, the step (and
  // the executor) may be destroyed by the thread waiting in Run: nothing
  // after it touches them.
  bool Process(const TaggedNode& tn, ReadyQueue* queue);
  // After a node's kernel: propagate, count it done, queue what is ready.
  void NodeDone(const TaggedNode& tn, Entry* outputs, bool dead,
                const Status& status, ReadyQueue* queue, int64_t start_ns);
  void Enqueue(std::vector<TaggedNode>* ready, ReadyQueue* queue);
  void RecordError(const Status& s);
  // The step's DeadlineExceeded, naming the node about to start (or none).
  Status DeadlineError(const Node* next) const;
  int64_t NowNs() const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() -
                                                                start_)
        .count();
  }

  Impl* const impl_;
  const std::shared_ptr<KernelSet> kernels_;
  const ExecutorRunArgs args_;
  Clock::time_point start_;
  bool has_deadline_ = false;
  Clock::time_point deadline_;
  CancellationManager cancellation_;
  std::atomic<bool> aborted_{false};

  // Guards the frames, iterations, counters, status and fetch values below
  // (Note [Dead tensors and frames]). A plain std::mutex: taken once per
  // node, it is on the hot path, where a reader-writer lock costs more.
  std::mutex mu_;
  std::condition_variable done_cv_;
  bool done_ = false;
  int64_t inflight_ = 0;
  int64_t next_frame_id_ = 1;
  Status status_;
  std::unique_ptr<FrameState> root_;
  std::vector<Entry> fetch_values_;
};

IterState* Executor::Impl::Step::NewIteration(FrameState* frame,
                                              std::vector<TaggedNode>* ready) {
  const FrameInfo& info = *frame->info;
  std::unique_ptr<IterState> iter;
  if (frame == root_.get()) {
    mutex_lock l(impl_->pool_mu);
    if (!impl_->root_iter_pool.empty()) {
      iter = std::move(impl_->root_iter_pool.back());
      impl_->root_iter_pool.pop_back();
    }
  }
  if (iter == nullptr) {
    iter = std::make_unique<IterState>();
    iter->inputs.reset(new Entry[info.num_slots > 0 ? info.num_slots : 1]);
    iter->counts.reset(new Counts[info.items.empty() ? 1 : info.items.size()]);
  }
  for (size_t i = 0; i < info.items.size(); ++i) {
    iter->counts[i] = Counts();
    iter->counts[i].pending = info.initial_pending[i];
  }
  IterState* raw = iter.get();
  const int64_t iter_id = static_cast<int64_t>(frame->iterations.size());
  frame->iterations.push_back(std::move(iter));
  // Loop invariants reach every iteration.
  for (FrameState::ConstValue& cv : frame->const_values) {
    DeliverEdges(impl_->items[cv.enter_item], frame, raw, iter_id, &cv.value,
                 /*may_move=*/false, cv.dead, ready);
  }
  return raw;
}

FrameState* Executor::Impl::Step::ChildFrame(FrameState* parent,
                                             int64_t parent_iter,
                                             int frame_index) {
  auto key = std::make_pair(frame_index, parent_iter);
  auto it = parent->children.find(key);
  if (it != parent->children.end()) return it->second.get();
  auto child = std::make_unique<FrameState>();
  child->info = &impl_->frames[frame_index];
  child->info_index = frame_index;
  child->id = next_frame_id_++;
  child->parent = parent;
  child->parent_iter = parent_iter;
  child->outstanding = child->info->num_enters;
  child->exit_live.assign(child->info->exits.size(), false);
  ++parent->outstanding;
  FrameState* raw = child.get();
  parent->children.emplace(key, std::move(child));
  return raw;
}

void Executor::Impl::Step::Activate(const Item& dst, FrameState* frame,
                                    IterState* iter, int64_t iter_id, int slot,
                                    Entry* value, bool move, bool dead,
                                    std::vector<TaggedNode>* ready) {
  Counts& c = iter->counts[dst.local_id];
  const int item_index = static_cast<int>(&dst - impl_->items.data());
  if (dst.is_merge) {
    if (c.fired) return;
    if (slot < 0) {
      --c.pending;
    } else if (!dead) {
      Entry& e = iter->inputs[dst.input_start + slot];
      if (move) {
        e = std::move(*value);
      } else {
        e = *value;
      }
      c.has_live = true;
    } else {
      ++c.dead;
    }
    if (c.pending > 0) return;
    if (c.has_live) {
      c.fired = true;
      Push(TaggedNode{item_index, frame, iter, iter_id, false}, ready);
      return;
    }
    const int expected = dst.merge_back == 0
                             ? dst.merge_front
                             : (iter_id == 0 ? dst.merge_front : dst.merge_back);
    if (c.dead >= expected) {
      c.fired = true;
      Push(TaggedNode{item_index, frame, iter, iter_id, true}, ready);
    }
    return;
  }
  if (dead) {
    ++c.dead;
  } else if (slot >= 0) {
    if (move) {
      iter->inputs[dst.input_start + slot] = std::move(*value);
    } else {
      iter->inputs[dst.input_start + slot] = *value;
    }
  }
  if (--c.pending == 0) {
    Push(TaggedNode{item_index, frame, iter, iter_id, c.dead > 0}, ready);
  }
}

void Executor::Impl::Step::DeliverEdges(const Item& item, FrameState* frame,
                                        IterState* iter, int64_t iter_id,
                                        Entry* outputs, bool may_move,
                                        bool dead,
                                        std::vector<TaggedNode>* ready) {
  const std::vector<Item>& items = impl_->items;
  for (int e = item.out_begin; e < item.out_end; ++e) {
    const OutEdge& oe = impl_->out_edges[e];
    if (oe.src_output < 0) {
      Activate(items[oe.dst], frame, iter, iter_id, -1, nullptr, false, dead,
               ready);
    } else if (dead || outputs == nullptr) {
      Activate(items[oe.dst], frame, iter, iter_id, oe.dst_slot, nullptr,
               false, true, ready);
    } else {
      Entry& v = outputs[oe.src_output];
      Activate(items[oe.dst], frame, iter, iter_id, oe.dst_slot, &v,
               may_move && oe.last_use, !v.has_value, ready);
    }
  }
}

void Executor::Impl::Step::Propagate(const TaggedNode& tn, Entry* outputs,
                                     bool dead,
                                     std::vector<TaggedNode>* ready) {
  const Item& item = impl_->items[tn.item];
  FrameState* frame = tn.frame;
  // Fetched outputs (only values that land in the root frame: an Exit's
  // output lands in its parent frame, an Enter's in its child frame).
  FrameState* out_frame = item.is_exit ? frame->parent : frame;
  if (out_frame == root_.get() && !item.is_enter) {
    for (int f = item.fetch_begin; f < item.fetch_end; ++f) {
      const auto& slot = impl_->fetch_slots[f];
      if (!dead && outputs[slot.first].has_value) {
        fetch_values_[slot.second] = outputs[slot.first];
      }
    }
  }
  if (item.is_enter) {
    FrameState* child = ChildFrame(frame, tn.iter_id, item.child_frame);
    if (item.is_constant_enter) {
      child->const_values.push_back(FrameState::ConstValue{
          tn.item, dead || outputs == nullptr ? Entry() : outputs[0], dead});
      for (size_t i = 0; i < child->iterations.size(); ++i) {
        DeliverEdges(item, child, child->iterations[i].get(),
                     static_cast<int64_t>(i), outputs, /*may_move=*/false,
                     dead, ready);
      }
      if (child->iterations.empty()) NewIteration(child, ready);
    } else {
      IterState* iter0 = child->iterations.empty()
                             ? NewIteration(child, ready)
                             : child->iterations[0].get();
      DeliverEdges(item, child, iter0, 0, outputs, true, dead, ready);
    }
    --child->outstanding;
    MaybeFrameDone(child, ready);
  } else if (item.is_exit) {
    if (!dead && outputs[0].has_value) {
      const std::vector<int>& exits = frame->info->exits;
      for (size_t i = 0; i < exits.size(); ++i) {
        if (exits[i] == tn.item) frame->exit_live[i] = true;
      }
      FrameState* parent = frame->parent;
      DeliverEdges(item, parent,
                   parent->iterations[frame->parent_iter].get(),
                   frame->parent_iter, outputs, true, false, ready);
    }
  } else if (item.is_next_iteration) {
    if (!dead && outputs[0].has_value) {
      const int64_t next = tn.iter_id + 1;
      IterState* iter = next < static_cast<int64_t>(frame->iterations.size())
                            ? frame->iterations[next].get()
                            : NewIteration(frame, ready);
      DeliverEdges(item, frame, iter, next, outputs, true, false, ready);
    }
  } else {
    DeliverEdges(item, frame, tn.iter, tn.iter_id, outputs, true, dead, ready);
  }
}

void Executor::Impl::Step::MaybeFrameDone(FrameState* frame,
                                          std::vector<TaggedNode>* ready) {
  while (frame->outstanding == 0 && frame != root_.get()) {
    FrameState* parent = frame->parent;
    IterState* parent_iter = parent->iterations[frame->parent_iter].get();
    const std::vector<int>& exits = frame->info->exits;
    for (size_t i = 0; i < exits.size(); ++i) {
      if (frame->exit_live[i]) continue;
      Entry dead_value;
      DeliverEdges(impl_->items[exits[i]], parent, parent_iter,
                   frame->parent_iter, &dead_value, false, true, ready);
    }
    parent->children.erase(
        std::make_pair(frame->info_index, frame->parent_iter));
    --parent->outstanding;
    frame = parent;
  }
}

void Executor::Impl::Step::RecordError(const Status& s) {
  bool first = false;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (status_.ok()) {
      status_ = s;
      first = true;
    }
  }
  if (first) {
    aborted_.store(true, std::memory_order_release);
    cancellation_.StartCancel();
    if (args_.cancellation_manager != nullptr) {
      args_.cancellation_manager->StartCancel();
    }
  }
}

Status Executor::Impl::Step::DeadlineError(const Node* next) const {
  Status s = errors::DeadlineExceeded(
      "The step ran past its timeout of ", args_.timeout_ms,
      " ms and was stopped", next != nullptr ? " before node '" : "",
      next != nullptr ? next->name() : "", next != nullptr ? "'" : "",
      ". A while loop whose condition never turns false runs forever; "
      "otherwise raise the timeout (RunOptions::timeout_in_ms)");
  return s;
}

void Executor::Impl::Step::Enqueue(std::vector<TaggedNode>* ready,
                                   ReadyQueue* queue) {
  if (ready->empty()) return;
  if (impl_->pool == nullptr) {
    for (const TaggedNode& tn : *ready) queue->push_back(tn);
    ready->clear();
    return;
  }
  // Cheap nodes run here. Expensive ones are split into at most one batch
  // per pool thread plus one for this thread: a batch is one task, so a
  // node fanning out to thousands of others costs a few thread hops, not
  // thousands. This thread keeps its batch (no hop) when it has nothing
  // else queued.
  std::vector<TaggedNode> expensive;
  for (const TaggedNode& tn : *ready) {
    if (!tn.dead && kernels_->expensive[tn.item]) {
      expensive.push_back(tn);
    } else {
      queue->push_back(tn);
    }
  }
  ready->clear();
  if (expensive.empty()) return;
  const bool keep_one = queue->empty();
  const size_t workers = static_cast<size_t>(impl_->pool->NumThreads());
  const size_t batches =
      std::min(expensive.size(), workers + (keep_one ? 1 : 0));
  const size_t per_batch = (expensive.size() + batches - 1) / batches;
  size_t begin = 0;
  if (keep_one) {
    for (size_t i = 0; i < per_batch; ++i) queue->push_back(expensive[i]);
    begin = per_batch;
  }
  for (; begin < expensive.size(); begin += per_batch) {
    const size_t end = std::min(expensive.size(), begin + per_batch);
    std::vector<TaggedNode> batch(expensive.begin() + begin,
                                  expensive.begin() + end);
    impl_->pool->Schedule(
        [this, batch = std::move(batch)] { RunFrom(batch); });
  }
}

void Executor::Impl::Step::RunFrom(const std::vector<TaggedNode>& nodes) {
  ReadyQueue queue;
  for (const TaggedNode& tn : nodes) queue.push_back(tn);
  while (!queue.empty()) {
    Process(queue.pop(), &queue);
  }
}

namespace {

// What one node's call needs while it runs (on the stack for a synchronous
// kernel, on the heap for an async one).
struct CallState {
  std::vector<TensorValue> inputs;
  std::vector<Tensor> derefs;  // values read from ref inputs
  std::vector<Entry> outputs;
};

// The synchronous-call scratch of this thread, and whether a call on this
// thread is using it (a kernel's completion can run another node inline
// from inside a call, e.g. through a cancellation callback; that one gets
// its own).
struct ThreadScratch {
  CallState state;
  bool busy = false;
};
thread_local ThreadScratch tls_scratch;

}  // namespace

bool Executor::Impl::Step::Process(const TaggedNode& tn, ReadyQueue* queue) {
  const Item& item = impl_->items[tn.item];
  const int64_t start_ns = args_.stats != nullptr ? NowNs() : 0;
  if (has_deadline_ && !aborted_.load(std::memory_order_relaxed) &&
      Clock::now() > deadline_) {
    RecordError(DeadlineError(item.node));
  }
  if (aborted_.load(std::memory_order_acquire)) {
    NodeDone(tn, nullptr, true, OkStatus(), queue, start_ns);
    return true;
  }
  if (tn.dead) {
    // Not run: every output is dead.
    NodeDone(tn, nullptr, true, OkStatus(), queue, start_ns);
    return true;
  }
  OpKernel* kernel = kernels_->kernels[tn.item];
  AsyncOpKernel* async = kernel->AsAsync();

  // Per-thread scratch for synchronous calls: no allocation per node once
  // warm.
  std::unique_ptr<CallState> owned;
  CallState* cs;
  bool* busy_flag = nullptr;
  if (async != nullptr || tls_scratch.busy) {
    owned = std::make_unique<CallState>();
    cs = owned.get();
  } else {
    tls_scratch.busy = true;
    busy_flag = &tls_scratch.busy;
    cs = &tls_scratch.state;
  }
  // Releases the thread's scratch on every return path of a synchronous call.
  struct Release {
    bool* flag;
    ~Release() {
      if (flag != nullptr) *flag = false;
    }
  } release{busy_flag};
  const int n_in = item.num_inputs;
  cs->inputs.resize(n_in);
  Entry* in = tn.iter->inputs.get() + item.input_start;
  bool any_missing = false;
  Status input_error;
  for (int i = 0; i < n_in; ++i) {
    Entry& e = in[i];
    if (!e.has_value) {
      cs->inputs[i] = TensorValue();
      any_missing = true;
      continue;
    }
    if (e.ref == nullptr) {
      cs->inputs[i] = TensorValue(&e.val);
      continue;
    }
    if (impl_->input_is_ref[item.ref_begin + i]) {
      cs->inputs[i] = TensorValue(e.ref_mu, e.ref);
      continue;
    }
    // A ref read as a value: copy under the ref's lock.
    if (cs->derefs.size() < static_cast<size_t>(n_in)) cs->derefs.resize(n_in);
    {
      mutex_lock l(*e.ref_mu);
      cs->derefs[i] = *e.ref;
    }
    if (!cs->derefs[i].IsInitialized() && !item.allows_uninitialized &&
        cs->derefs[i].NumElements() != 0) {
      const NodeDef& def = item.node->def();
      input_error = errors::FailedPrecondition(
          "Attempting to use uninitialized value ",
          i < def.input_size() ? def.input(i) : std::string("input"));
    }
    cs->inputs[i] = TensorValue(&cs->derefs[i]);
  }
  if (any_missing && !item.is_merge) {
    input_error = errors::Internal("Node ", item.node->name(),
                                   " became ready with a missing input");
  }
  if (!input_error.ok()) {
    NodeDone(tn, nullptr, true, input_error, queue, start_ns);
    return true;
  }

  OpKernelContext::Params params;
  params.step_id = args_.step_id;
  params.op_kernel = kernel;
  params.device = impl_->devices[item.device];
  params.inputs = &cs->inputs;
  params.is_input_dead = any_missing;
  params.allow_missing_inputs = item.is_merge;
  params.frame_iter = FrameAndIter{tn.frame->id, tn.iter_id};
  params.cancellation_manager = &cancellation_;
  // Fed tensors are shared with the caller and values may fan out to
  // several consumers; the context only forwards buffers no one else
  // holds, so forwarding stays on.

  auto finish = [this, tn, &item](OpKernelContext* ctx, CallState* state,
                                  ReadyQueue* q, int64_t t0) {
    Status s = ctx->status();
    state->outputs.resize(item.num_outputs);
    Entry* outs = state->outputs.data();
    if (s.ok()) {
      for (int o = 0; o < item.num_outputs; ++o) {
        Entry& out = outs[o];
        if (ctx->output_is_ref(o)) {
          TensorValue r = ctx->output_ref(o);
          out.ref = r.tensor;
          out.ref_mu = r.mutex_if_ref;
          out.has_value = true;
        } else if (ctx->output_is_set(o)) {
          s = ctx->release_output(o, &out.val);
          if (!s.ok()) break;
          out.has_value = true;
        } else if (!item.is_switch) {
          s = errors::Internal("Missing ", o, "-th output from ",
                               FormatNodeDefForError(item.node->def()));
          break;
        }
      }
    }
    // The inputs are consumed.
    Entry* in_slots = tn.iter->inputs.get() + item.input_start;
    for (int i = 0; i < item.num_inputs; ++i) in_slots[i].Clear();
    for (Tensor& t : state->derefs) t = Tensor();
    // NodeDone may end the step, after which the executor (and `item`) may
    // be gone: read nothing of it afterwards.
    const int num_outputs = item.num_outputs;
    NodeDone(tn, s.ok() ? outs : nullptr, !s.ok(), s, q, t0);
    for (int o = 0; o < num_outputs; ++o) outs[o].Clear();
  };

  if (async == nullptr) {
    OpKernelContext ctx(&params);
    if (ctx.status().ok()) {
      try {
        kernel->Compute(&ctx);
      } catch (const std::exception& e) {
        ctx.SetStatus(errors::Internal("Kernel threw an exception: ", e.what()));
      } catch (...) {
        ctx.SetStatus(errors::Internal("Kernel threw an unknown exception"));
      }
    }
    finish(&ctx, cs, queue, start_ns);
    return true;
  }

  // Async: the context and its inputs live until `done`.
  struct AsyncCall {
    std::unique_ptr<CallState> state;
    OpKernelContext::Params params;
    std::unique_ptr<OpKernelContext> ctx;
  };
  auto call = std::make_shared<AsyncCall>();
  call->state = std::move(owned);
  call->params = params;
  call->params.inputs = &call->state->inputs;
  call->ctx = std::make_unique<OpKernelContext>(&call->params);
  if (!call->ctx->status().ok()) {
    finish(call->ctx.get(), call->state.get(), queue, start_ns);
    return true;
  }
  auto once = std::make_shared<std::atomic<bool>>(false);
  async->ComputeAsync(call->ctx.get(), [this, call, once, finish, start_ns]() {
    if (once->exchange(true)) return;
    ReadyQueue q;
    finish(call->ctx.get(), call->state.get(), &q, start_ns);
    while (!q.empty()) {
      Process(q.pop(), &q);
    }
  });
  return false;
}

void Executor::Impl::Step::NodeDone(const TaggedNode& tn, Entry* outputs,
                                    bool dead, const Status& status,
                                    ReadyQueue* queue, int64_t start_ns) {
  const Item& item = impl_->items[tn.item];
  if (!status.ok()) RecordError(AttachDef(status, item.node->def()));
  if (args_.stats != nullptr && !tn.dead && status.ok() &&
      !aborted_.load(std::memory_order_relaxed)) {
    NodeExecStats st;
    st.node_name = item.node->name();
    st.op = item.node->op();
    st.start_ns = start_ns;
    st.end_ns = NowNs();
    st.thread_id = impl_->pool != nullptr ? impl_->pool->CurrentThreadId() : -1;
    std::lock_guard<std::mutex> l(mu_);
    args_.stats->push_back(std::move(st));
  }
  std::vector<TaggedNode>& ready = queue->scratch;
  ready.clear();
  bool finished = false;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!aborted_.load(std::memory_order_relaxed)) {
      Propagate(tn, outputs, dead, &ready);
    }
    --tn.frame->outstanding;
    MaybeFrameDone(tn.frame, &ready);
    --inflight_;
    if (inflight_ == 0 && ready.empty()) {
      done_ = true;
      finished = true;
      // Notified under the lock: once Run sees done_ the step is destroyed.
      done_cv_.notify_all();
    }
  }
  // With nothing made ready, the step may end on another thread from here
  // on; with something ready it cannot (inflight_ counts it).
  if (finished || ready.empty()) return;
  Enqueue(&ready, queue);
}

Status Executor::Impl::Step::Run(const std::vector<Tensor>& feeds,
                                 std::vector<Tensor>* outputs) {
  if (feeds.size() != impl_->feed_types.size()) {
    return errors::InvalidArgument("Expected ", impl_->feed_types.size(),
                                   " fed tensors, got ", feeds.size());
  }
  for (size_t i = 0; i < feeds.size(); ++i) {
    if (feeds[i].dtype() != impl_->feed_types[i]) {
      return errors::InvalidArgument(
          "The feed for ", impl_->feed_names[i], " is a ",
          DataTypeString(feeds[i].dtype()), " tensor, but that tensor is ",
          DataTypeString(impl_->feed_types[i]),
          "; feed a tensor of the output's dtype");
    }
  }
  root_ = std::make_unique<FrameState>();
  root_->info = &impl_->frames[0];
  root_->id = 0;
  std::vector<TaggedNode> ready;
  {
    std::lock_guard<std::mutex> l(mu_);
    IterState* iter0 = NewIteration(root_.get(), &ready);
    for (const auto& fe : impl_->feed_edges) {
      Entry value;
      value.val = feeds[fe.feed];
      value.has_value = true;
      Activate(impl_->items[fe.dst], root_.get(), iter0, 0, fe.dst_slot,
               &value, /*move=*/true, /*dead=*/false, &ready);
    }
    // Nodes fed tensors were counted as waiting for them (initial_ready
    // excludes them); Activate above made them ready.
    for (int i : impl_->initial_ready) {
      Push(TaggedNode{i, root_.get(), iter0, 0, false}, &ready);
    }
    if (ready.empty()) done_ = true;
  }
  if (!ready.empty()) {
    ReadyQueue queue;
    Enqueue(&ready, &queue);
    while (!queue.empty()) {
      Process(queue.pop(), &queue);
    }
  }
  Status result;
  {
    std::unique_lock<std::mutex> l(mu_);
    if (has_deadline_) {
      // Async kernels may hold the step past its deadline: cancel them then
      // (RecordError takes mu_), and wait for the nodes in flight to finish.
      while (!done_ && done_cv_.wait_until(l, deadline_) !=
                           std::cv_status::timeout) {
      }
      if (!done_) {
        l.unlock();
        RecordError(DeadlineError(nullptr));
        l.lock();
      }
    }
    while (!done_) done_cv_.wait(l);
    result = status_;
  }
  if (result.ok()) {
    outputs->clear();
    outputs->reserve(impl_->fetch_names.size());
    for (size_t f = 0; f < impl_->fetch_names.size(); ++f) {
      if (impl_->fetch_from_feed[f] >= 0) {
        outputs->push_back(feeds[impl_->fetch_from_feed[f]]);
        continue;
      }
      Entry& e = fetch_values_[f];
      if (!e.has_value) {
        result = errors::InvalidArgument(
            "The fetch ", impl_->fetch_names[f],
            " was not computed: its node did not run or its value is dead "
            "(an untaken tf.cond branch)");
        break;
      }
      if (e.ref != nullptr) {
        mutex_lock l(*e.ref_mu);
        outputs->push_back(*e.ref);
      } else {
        outputs->push_back(e.val);
      }
    }
  }
  {
    // Frames may be left unfinished by an error; drop them under the lock.
    // The root iteration goes back to the pool with every slot cleared.
    std::unique_ptr<IterState> reusable;
    {
      std::lock_guard<std::mutex> l(mu_);
      if (!root_->iterations.empty()) {
        reusable = std::move(root_->iterations[0]);
      }
      root_.reset();
      fetch_values_.clear();
    }
    if (reusable != nullptr) {
      const int slots = impl_->frames[0].num_slots;
      for (int i = 0; i < slots; ++i) reusable->inputs[i].Clear();
      mutex_lock l(impl_->pool_mu);
      if (impl_->root_iter_pool.size() < Impl::kMaxPooledRootIters) {
        impl_->root_iter_pool.push_back(std::move(reusable));
      }
    }
  }
  return result;
}

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
  auto impl = std::make_unique<Impl>();
  impl->graph = std::move(graph);
  impl->devices = std::move(devices);
  impl->options = options;
  impl->registry = options.kernel_registry != nullptr
                       ? options.kernel_registry
                       : KernelRegistry::Global();
  OPKIT_RETURN_IF_ERROR(impl->Build(signature));
  if (options.inter_op_pool != nullptr) {
    impl->pool = options.inter_op_pool;
  } else if (options.inter_op_threads > 1) {
    impl->owned_pool = std::make_unique<ThreadPool>("opkit_inter_op",
                                                    options.inter_op_threads);
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
  OPKIT_ASSIGN_OR_RETURN(std::shared_ptr<KernelSet> kernels,
                         impl_->CurrentKernels());
  Impl::Step step(impl_.get(), std::move(kernels), args);
  return step.Run(feeds, outputs);
}

}  // namespace opkit
