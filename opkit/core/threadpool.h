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
//
// Note [Idle spinning]
// A worker that runs out of work keeps polling for more for a short while
// (idle_spin_us, at most one worker per pool at a time) before it sleeps.
// A kernel that splits its work over the pool hands a piece to a worker
// every few hundred microseconds; a sleeping worker is woken through the
// kernel, and on a virtual machine whose idle CPU the host has parked that
// wake-up costs tens of microseconds to milliseconds (seen: a training step
// of 2 threads ran 1.5x slower after a 0.25 s pause, while the threads of
// OpenMP and OpenBLAS, which spin the same way, were unaffected). The cost
// is the polling worker's CPU: at most idle_spin_us after the pool's last
// task. The default is kDefaultIdleSpinMicros, or the environment variable
// OPKIT_IDLE_SPIN_US read once (a count of microseconds; 0 turns spinning
// off, for a process that must use no CPU at all while it waits).
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
  // How long an idle worker polls for work by default (Note [Idle spinning]).
  static constexpr int64_t kDefaultIdleSpinMicros = 1000;

  // `num_threads` < 1 is taken as 1. `name` shows in debuggers' thread lists.
  // Idle workers spin for DefaultIdleSpinMicros().
  ThreadPool(std::string name, int num_threads);
  // As above, with idle workers spinning for `idle_spin_us` microseconds
  // (negative is taken as 0: no spinning).
  ThreadPool(std::string name, int num_threads, int64_t idle_spin_us);
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
  // Microseconds an idle worker of this pool polls for work before sleeping.
  int64_t idle_spin_us() const;
  // The spin of pools made without one: OPKIT_IDLE_SPIN_US when it is set to
  // a non-negative count (read once; anything else is ignored with a
  // warning), else kDefaultIdleSpinMicros.
  static int64_t DefaultIdleSpinMicros();
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

// Polls `done` until it returns true (then returns true) or `spin_us`
// microseconds pass (then false), pausing the CPU between polls and yielding
// it every few microseconds: the poll of Note [Idle spinning], for a thread
// that waits on work it handed to a pool (Shard) before it sleeps.
OPKIT_EXPORT bool SpinUntil(int64_t spin_us, const std::function<bool()>& done);

}  // namespace opkit

#endif  // OPKIT_CORE_THREADPOOL_H_
