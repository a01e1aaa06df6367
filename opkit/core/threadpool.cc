// ThreadPool over Eigen's non-blocking pool. The build defines
// EIGEN_USE_THREADS (Eigen's ThreadPoolDevice needs it) for every target.
#include "opkit/core/threadpool.h"

#include <algorithm>
#include <thread>

#include "opkit/core/eigen.h"

namespace opkit {

struct ThreadPool::Impl {
  explicit Impl(int n) : pool(n), device(&pool, n) {}
  Eigen::ThreadPool pool;
  Eigen::ThreadPoolDevice device;
};

ThreadPool::ThreadPool(std::string name, int num_threads)
    : name_(std::move(name)),
      impl_(std::make_unique<Impl>(std::max(1, num_threads))) {}

ThreadPool::~ThreadPool() = default;

void ThreadPool::Schedule(std::function<void()> fn) {
  impl_->pool.Schedule(std::move(fn));
}

void ThreadPool::ParallelFor(int64_t total, int64_t cost_per_unit,
                             const std::function<void(int64_t, int64_t)>& fn) {
  if (total <= 0) return;
  if (total == 1) {
    fn(0, total);
    return;
  }
  // Eigen's cost model: bytes loaded/stored and compute cycles per element.
  Eigen::TensorOpCost cost(0, 0, static_cast<double>(std::max<int64_t>(cost_per_unit, 1)));
  impl_->device.parallelFor(
      total, cost, [&fn](Eigen::Index first, Eigen::Index last) {
        fn(static_cast<int64_t>(first), static_cast<int64_t>(last));
      });
}

int ThreadPool::NumThreads() const { return impl_->pool.NumThreads(); }

int ThreadPool::CurrentThreadId() const { return impl_->pool.CurrentThreadId(); }

Eigen::ThreadPoolInterface* ThreadPool::AsEigenThreadPool() const {
  return &impl_->pool;
}

const Eigen::ThreadPoolDevice& ThreadPool::eigen_device() const {
  return impl_->device;
}

}  // namespace opkit
