// Executor: one step -- the ready queue and its hand-off to the inter-op
// pool, running a node's kernel (sync or async), completing it, errors,
// deadlines and the step's result.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/core/mutex.h"
#include "opkit/core/threadpool.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/op/node_def_util.h"
#include "opkit/runtime/internal/executor_impl.h"

namespace opkit {
namespace internal {
namespace executor {

void Step::RecordError(const Status& s) {
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

Status Step::DeadlineError(const Node* next) const {
  Status s = errors::DeadlineExceeded(
      "The step ran past its timeout of ", args_.timeout_ms,
      " ms and was stopped", next != nullptr ? " before node '" : "",
      next != nullptr ? next->name() : "", next != nullptr ? "'" : "",
      ". A while loop whose condition never turns false runs forever; "
      "otherwise raise the timeout (RunOptions::timeout_in_ms)");
  return s;
}

void Step::Enqueue(std::vector<TaggedNode>* ready,
                                   ReadyQueue* queue) {
  if (ready->empty()) return;
  if (impl_->pool == nullptr) {
    for (const TaggedNode& tn : *ready) queue->push_back(tn);
    ready->clear();
    return;
  }
  // Cheap nodes run here (Note [Inline cheap nodes]). Expensive ones are
  // split into at most one batch per pool thread plus one for this thread:
  // a batch is one task, so a node fanning out to thousands of others costs
  // a few thread hops, not thousands. This thread keeps its batch (no hop)
  // when it has nothing else queued, so a chain never leaves it and the
  // pool is woken only for the surplus.
  std::vector<TaggedNode>& expensive = queue->expensive;
  expensive.clear();
  for (const TaggedNode& tn : *ready) {
    if (!tn.dead && kernels_->IsExpensive(tn.item)) {
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

void Step::RunFrom(const std::vector<TaggedNode>& nodes) {
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

bool Step::Process(const TaggedNode& tn, ReadyQueue* queue) {
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
      // Note [Inline cheap nodes]: time the nodes that would go to the pool.
      const bool measure =
          impl_->pool != nullptr && kernels_->IsExpensive(tn.item);
      const Clock::time_point t0 = measure ? Clock::now() : Clock::time_point();
      try {
        kernel->Compute(&ctx);
      } catch (const std::exception& e) {
        ctx.SetStatus(errors::Internal("Kernel threw an exception: ", e.what()));
      } catch (...) {
        ctx.SetStatus(errors::Internal("Kernel threw an unknown exception"));
      }
      if (measure) {
        kernels_->UpdateCost(
            tn.item, std::chrono::duration_cast<std::chrono::nanoseconds>(
                         Clock::now() - t0)
                         .count());
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

void Step::NodeDone(const TaggedNode& tn, Entry* outputs,
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

Status Step::Run(const std::vector<Tensor>& feeds,
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
        if (!e.ref->IsInitialized() && e.ref->NumElements() != 0) {
          // A variable fetched before anything assigned it (TensorFlow's
          // text; its reads inside the step say the same).
          const std::string& name = impl_->fetch_names[f];
          result = errors::FailedPrecondition(
              "Attempting to use uninitialized value ",
              name.substr(0, name.rfind(':')));
          break;
        }
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
      if (impl_->root_iter_pool.size() < ExecutorImpl::kMaxPooledRootIters) {
        impl_->root_iter_pool.push_back(std::move(reusable));
      }
    }
  }
  return result;
}

}  // namespace executor
}  // namespace internal
}  // namespace opkit
