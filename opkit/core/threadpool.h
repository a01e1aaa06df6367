// ThreadPool: a fixed set of worker threads (Eigen's non-blocking pool),
// for inter-op scheduling and intra-op parallel loops.
//
//   ThreadPool pool("intra_op", 4);
//   pool.Schedule([] { DoWork(); });
//   pool.ParallelFor(n, /*cost_per_unit=*/50, [&](int64_t begin, int64_t end) {
//     for (int64_t i = begin; i < end; ++i) out[i] = f(in[i]);
//   });
//
// Thread-safe. The destructor waits for scheduled work to finish.
#ifndef OPKIT_CORE_THREADPOOL_H_
#define OPKIT_CORE_THREADPOOL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "opkit/core/export.h"

namespace Eigen {
class ThreadPoolInterface;
struct ThreadPoolDevice;
}  // namespace Eigen

namespace opkit {

class Env;

class OPKIT_EXPORT ThreadPool {
 public:
  // `num_threads` < 1 is taken as 1. `name` shows in debuggers' thread lists.
  ThreadPool(std::string name, int num_threads);
  // TensorFlow's form, `thread::ThreadPool pool(Env::Default(), "work", 4)`;
  // the Env (opkit has one) is not needed.
  ThreadPool(Env* /*env*/, std::string name, int num_threads)
      : ThreadPool(std::move(name), num_threads) {}
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Runs `fn` on some worker, later.
  void Schedule(std::function<void()> fn);

  // Calls `fn(begin, end)` over disjoint ranges covering [0, total), in
  // parallel on the pool and the calling thread, splitting so that each
  // piece is worth scheduling given `cost_per_unit` (roughly, cycles per
  // element). Returns when all of it is done. Must not be called from
  // inside a task of this pool that the caller blocks on recursively.
  void ParallelFor(int64_t total, int64_t cost_per_unit,
                   const std::function<void(int64_t, int64_t)>& fn);

  int NumThreads() const;
  // Index of the calling thread in this pool, or -1 outside it.
  int CurrentThreadId() const;
  const std::string& name() const { return name_; }

  // The underlying Eigen pool, for an Eigen::ThreadPoolDevice.
  Eigen::ThreadPoolInterface* AsEigenThreadPool() const;
  // An Eigen device over this pool, for Eigen tensor expressions.
  const Eigen::ThreadPoolDevice& eigen_device() const;

 private:
  struct Impl;
  std::string name_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace opkit

#endif  // OPKIT_CORE_THREADPOOL_H_
