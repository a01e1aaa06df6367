// What the oneDNN kernels of examples/onednn_kernels share: the library's
// engine, oneDNN exceptions turned into a Status, OpenMP threads taken from
// the kernel's intra-op pool, the fused_ops attr of the _Fused* ops as a
// oneDNN post-op, running a primitive with a scratchpad of the call's own,
// and a small bounded cache of primitives per kernel instance.
//
//   OP_REQUIRES_OK(ctx, ParseFusedOps(ctx, /*allow_empty=*/false, &fused_));
//   ...
//   Status s = RunGuarded(type_string(), [&]() -> Status {
//     const int threads = SetOpenMpThreads(ctx);
//     ...
//     return Execute(ctx, pd, prim, args);
//   });
//   OP_REQUIRES_OK(ctx, s);
//
// Private to the library: nothing here is exported.
#ifndef OPKIT_EXAMPLES_ONEDNN_KERNELS_ONEDNN_UTIL_H_
#define OPKIT_EXAMPLES_ONEDNN_KERNELS_ONEDNN_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <dnnl.hpp>

#include "opkit/core/mutex.h"
#include "opkit/core/status.h"
#include "opkit/kernel/op_kernel.h"

#if DNNL_VERSION_MAJOR != 2
#error "onednn_kernels is written for oneDNN 2.x's API (Debian's libdnnl-dev 2.6)"
#endif

namespace opkit {
namespace onednn_kernels {

// The CPU engine of the library, made on first use. An engine holds no
// per-call state and may be used from any thread, so one serves every
// kernel. Throws dnnl::error if oneDNN has no CPU engine (call it inside
// RunGuarded).
const dnnl::engine& CpuEngine();

// Runs `body`, turning what it throws into a Status naming `op`: a
// dnnl::error becomes Unimplemented when oneDNN has no implementation for
// the case and Internal otherwise; std::bad_alloc becomes
// ResourceExhausted. Nothing escapes.
Status RunGuarded(const std::string& op, const std::function<Status()>& body);

// Makes OpenMP parallel regions started from the calling thread use the
// intra-op thread count of `ctx`'s device (1 without a pool) and returns
// it. A no-op returning that count when oneDNN was not built on OpenMP.
int SetOpenMpThreads(OpKernelContext* ctx);

// The activation fused after a convolution or a matrix product.
enum class Activation { kNone, kRelu, kRelu6, kElu, kLeakyRelu };

// The fused_ops of a _Fused* op that these kernels implement: a bias, then
// at most one activation.
struct FusedOps {
  bool bias = false;
  Activation activation = Activation::kNone;
  float leakyrelu_alpha = 0.2f;
};

// Reads fused_ops, num_args and leakyrelu_alpha when the op has them (the
// plain ops have none: *out stays empty). Accepts [BiasAdd] followed by at
// most one of Relu, Relu6, Elu, LeakyRelu, with num_args == 1; anything
// else is Unimplemented naming the list and what is supported.
Status ParseFusedOps(OpKernelConstruction* ctx, FusedOps* out);

// The activation as a oneDNN eltwise post-op (no post-op for kNone).
dnnl::primitive_attr MakeAttr(const FusedOps& fused);

// Checks that `bias` is a vector of `channels` values.
Status CheckBias(const Tensor& bias, int64_t channels);

// The result of an empty reduction (a window or inner dimension of size
// zero): out[o, c, i] = activation(bias[c]), or 0 without a bias, for an
// output viewed as [outer, channels, inner]. `bias` may be null.
void FillEmptyReduction(const FusedOps& fused, const float* bias,
                        int64_t outer, int64_t channels, int64_t inner,
                        float* out);

// Runs `prim` (made from `pd`, whose attr asked for a user scratchpad) with
// `args` on a stream of its own, giving it a scratchpad allocated for this
// call: a primitive is then safe to run from several threads at once.
Status Execute(OpKernelContext* ctx, const dnnl::primitive_desc_base& pd,
               const dnnl::primitive& prim,
               std::unordered_map<int, dnnl::memory> args);

// A memory object over a tensor's data, which must outlive it. Inputs are
// only read: oneDNN writes nothing but a primitive's destination.
dnnl::memory WrapTensor(const dnnl::memory::desc& desc, const Tensor& t);

// A thread-safe cache of at most kMaxEntries values, most recent first
// (when full, the least recently created entry goes). Values are shared
// so that a caller keeps using one while another thread replaces it.
template <typename Key, typename Value>
class SmallCache {
 public:
  static constexpr size_t kMaxEntries = 8;

  std::shared_ptr<Value> Find(const Key& key) const {
    mutex_lock lock(mu_);
    for (const auto& entry : entries_) {
      if (entry.first == key) return entry.second;
    }
    return nullptr;
  }

  // Inserts `value` unless another thread inserted one for `key` first;
  // returns the value now cached.
  std::shared_ptr<Value> Insert(const Key& key, std::shared_ptr<Value> value) {
    mutex_lock lock(mu_);
    for (const auto& entry : entries_) {
      if (entry.first == key) return entry.second;
    }
    if (entries_.size() == kMaxEntries) entries_.pop_back();
    entries_.insert(entries_.begin(), {key, value});
    return value;
  }

 private:
  mutable mutex mu_;
  std::vector<std::pair<Key, std::shared_ptr<Value>>> entries_
      OPKIT_GUARDED_BY(mu_);
};

}  // namespace onednn_kernels
}  // namespace opkit

#endif  // OPKIT_EXAMPLES_ONEDNN_KERNELS_ONEDNN_UTIL_H_
