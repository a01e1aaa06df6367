// Executor: the frame bookkeeping of a step -- iterations, child frames,
// delivering values along edges, dead values, frames finishing (Note [Dead
// tensors and frames] in internal/executor_impl.h).
#include <memory>
#include <utility>
#include <vector>

#include "opkit/core/mutex.h"
#include "opkit/runtime/internal/executor_impl.h"

namespace opkit {
namespace internal {
namespace executor {

IterState* Step::NewIteration(FrameState* frame,
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

FrameState* Step::ChildFrame(FrameState* parent,
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

void Step::Activate(const Item& dst, FrameState* frame,
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

void Step::DeliverEdges(const Item& item, FrameState* frame,
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

void Step::Propagate(const TaggedNode& tn, Entry* outputs,
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

void Step::MaybeFrameDone(FrameState* frame,
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

}  // namespace executor
}  // namespace internal
}  // namespace opkit
