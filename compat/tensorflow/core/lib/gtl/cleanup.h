// TensorFlow compatibility: gtl::MakeCleanup, run a callable when a scope
// ends unless released first.
//
//   auto cleanup = gtl::MakeCleanup([&] { fclose(f); });
//   ...
//   if (keep_open) cleanup.release();   // the callable will not run
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_LIB_GTL_CLEANUP_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_LIB_GTL_CLEANUP_H_

#include <type_traits>
#include <utility>

#include "tensorflow/core/platform/types.h"

namespace tensorflow {
namespace gtl {

// Runs F once, on destruction or on an assignment that replaces it, unless
// released. Movable, not copyable; a moved-from Cleanup runs nothing.
template <typename F>
class Cleanup {
 public:
  Cleanup() : released_(true), f_() {}
  template <typename G>
  explicit Cleanup(G&& f) : f_(std::forward<G>(f)) {}
  Cleanup(Cleanup&& src) : released_(src.is_released()), f_(src.release()) {}
  // Converts from a Cleanup of another callable type (e.g. into
  // Cleanup<std::function<void()>>).
  template <typename G>
  Cleanup(Cleanup<G>&& src)  // NOLINT: implicit, as TensorFlow's
      : released_(src.is_released()), f_(src.release()) {}
  Cleanup& operator=(Cleanup&& src) {
    if (!released_) std::move(f_)();
    released_ = src.released_;
    f_ = src.release();
    return *this;
  }
  Cleanup(const Cleanup&) = delete;
  Cleanup& operator=(const Cleanup&) = delete;
  ~Cleanup() {
    if (!released_) std::move(f_)();
  }

  // Disarms the cleanup and hands back the callable.
  F release() {
    released_ = true;
    return std::move(f_);
  }
  bool is_released() const { return released_; }

 private:
  bool released_ = false;
  F f_;
};

template <int&... ExplicitParameterBarrier, typename F,
          typename DecayF = typename std::decay<F>::type>
Cleanup<DecayF> MakeCleanup(F&& f) {
  return Cleanup<DecayF>(std::forward<F>(f));
}

}  // namespace gtl
}  // namespace tensorflow

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_LIB_GTL_CLEANUP_H_
