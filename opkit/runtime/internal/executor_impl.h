// The executor's internals, shared by its .cc files: the values in flight,
// the precomputed nodes (items) and frames, the kernel set, ExecutorImpl
// (what Executor::Create builds once) and Step (one run). Not an API.
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
#ifndef OPKIT_RUNTIME_INTERNAL_EXECUTOR_IMPL_H_
#define OPKIT_RUNTIME_INTERNAL_EXECUTOR_IMPL_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "opkit/core/mutex.h"
#include "opkit/core/status.h"
#include "opkit/core/statusor.h"
#include "opkit/core/threadpool.h"
#include "opkit/device/device.h"
#include "opkit/graph/graph.h"
#include "opkit/kernel/kernel_registry.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/runtime/executor.h"
#include "opkit/runtime/kernel_cache.h"
#include "opkit/tensor/tensor.h"

namespace opkit {
namespace internal {
namespace executor {

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
  int ref_begin = 0;  // into ExecutorImpl::input_is_ref, num_inputs entries
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

// Note [Inline cheap nodes]
// Handing a node to another thread costs a pool wake-up and lock traffic on
// the step's mutex from two threads, a few microseconds; a node cheaper
// than that runs faster on the thread that made it ready, and a graph of
// such nodes (a wide fan-out of scalar ops) only loses from more threads.
// So, as TensorFlow's executor does, a node counts as expensive only while
// its kernel says so (OpKernel::IsExpensive) and its measured compute time
// is above kExpensiveNodeNs. A node not yet measured is expensive; the
// first synchronous run on an executor with a pool measures it, later runs
// of an expensive node keep a decaying average. A node found cheap is not
// measured again (as in TensorFlow): it runs inline from then on. Async
// kernels are not measured (their time is not this thread's) and stay
// expensive. Scheduling decides only where a node runs, never what it
// computes, so results do not depend on it.
inline constexpr int64_t kExpensiveNodeNs = 5000;
inline constexpr int64_t kUnmeasuredCost = -1;

// The kernels of one registry generation, one per item (Note [Kernel cache
// generations]): the set is current while the registry's generation is the
// one read before its first selection.
struct KernelSet {
  uint64_t generation = 0;
  std::vector<CachedKernel> cached;
  // Per item, for the step loop: cached[i].kernel(), packed densely.
  std::vector<OpKernel*> kernels;
  // Per item, Note [Inline cheap nodes]: 0 for a kernel that says it is
  // cheap, kUnmeasuredCost before the first measurement, else the estimate
  // in nanoseconds. Relaxed atomics: a stale read only moves one node.
  std::unique_ptr<std::atomic<int64_t>[]> cost_ns;

  bool IsExpensive(int item) const {
    const int64_t cost = cost_ns[item].load(std::memory_order_relaxed);
    return cost == kUnmeasuredCost || cost > kExpensiveNodeNs;
  }
  // Folds a run of `elapsed_ns` into the item's estimate.
  void UpdateCost(int item, int64_t elapsed_ns) {
    const int64_t old = cost_ns[item].load(std::memory_order_relaxed);
    const int64_t updated =
        old == kUnmeasuredCost ? elapsed_ns : (old * 3 + elapsed_ns) / 4;
    cost_ns[item].store(std::max<int64_t>(updated, 0),
                        std::memory_order_relaxed);
  }
};

// What Executor::Create builds once: the pruned nodes with their edges,
// frames, feeds and fetches, and the kernels (executor.cc). Executor::Impl
// is this type.
struct ExecutorImpl {
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
};

// One step: the frames, iterations and counters of one Run, and the loop
// that runs ready nodes (frames in executor_frames.cc, the rest in
// executor_step.cc).
class Step {
 public:
  Step(ExecutorImpl* impl, std::shared_ptr<KernelSet> kernels,
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
    std::vector<TaggedNode> expensive;  // Enqueue's
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

  ExecutorImpl* const impl_;
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

}  // namespace executor
}  // namespace internal
}  // namespace opkit

#endif  // OPKIT_RUNTIME_INTERNAL_EXECUTOR_IMPL_H_
