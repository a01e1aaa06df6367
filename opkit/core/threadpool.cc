// ThreadPool over Eigen's non-blocking pool, with idle workers that poll for
// work before they sleep (Note [Idle spinning] in threadpool.h). The build
// defines EIGEN_USE_THREADS (Eigen's ThreadPoolDevice needs it) for every
// target.
#include "opkit/core/threadpool.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "opkit/core/eigen.h"
#include "opkit/core/logging.h"

namespace opkit {

namespace {

constexpr char kIdleSpinEnvVar[] = "OPKIT_IDLE_SPIN_US";

// Tells the CPU this thread is in a polling loop (less power, and the other
// hardware thread of the core gets the pipeline).
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// The spin state of the pool whose worker the calling thread is, or null.
thread_local const void* tls_worker_of = nullptr;

}  // namespace

// In a named namespace: ThreadPool::Impl holds them.
namespace internal {

// What a pool's workers share for spinning.
struct SpinState {
  explicit SpinState(int64_t us) : spin_us(std::max<int64_t>(us, 0)) {}
  const int64_t spin_us;
  // Tasks made (Schedule) and not yet started: a spinning worker stops
  // polling as soon as this is non-zero, and its Eigen loop then takes the
  // task from whichever queue it is in.
  std::atomic<int64_t> pending{0};
  std::atomic<bool> someone_spinning{false};
  std::atomic<bool> stopping{false};
};

// Eigen's thread environment (as Eigen::StlThreadEnvironment) whose workers
// spin after each task. Eigen copies the environment into the pool, so it
// holds the shared state by pointer.
struct SpinningEnvironment {
  struct Task {
    std::function<void()> f;
  };
  using EnvThread = Eigen::StlThreadEnvironment::EnvThread;

  SpinState* state;

  EnvThread* CreateThread(std::function<void()> f) {
    const SpinState* s = state;
    return new EnvThread([s, f = std::move(f)] {
      tls_worker_of = s;
      f();
    });
  }

  Task CreateTask(std::function<void()> f) {
    state->pending.fetch_add(1, std::memory_order_relaxed);
    return Task{std::move(f)};
  }

  // Eigen also calls this on the scheduling thread when a queue is full;
  // only the pool's own workers spin afterwards.
  void ExecuteTask(const Task& t) const {
    state->pending.fetch_sub(1, std::memory_order_relaxed);
    t.f();
    if (tls_worker_of == state && state->spin_us > 0) Spin();
  }

  // Polls until a task is pending, the pool is being destroyed or spin_us
  // has passed; one worker at a time (the others sleep at once, as a second
  // poller would only take CPU from threads with work).
  void Spin() const {
    if (state->someone_spinning.load(std::memory_order_relaxed) ||
        state->someone_spinning.exchange(true, std::memory_order_acquire)) {
      return;
    }
    const SpinState* s = state;
    SpinUntil(s->spin_us, [s] {
      return s->pending.load(std::memory_order_relaxed) > 0 ||
             s->stopping.load(std::memory_order_relaxed);
    });
    state->someone_spinning.store(false, std::memory_order_release);
  }
};

}  // namespace internal

namespace {

int64_t ReadDefaultIdleSpinMicros() {
  const char* text = std::getenv(kIdleSpinEnvVar);
  if (text == nullptr || *text == '\0') {
    return ThreadPool::kDefaultIdleSpinMicros;
  }
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value < 0) {
    OPKIT_LOG(WARNING) << "Ignoring " << kIdleSpinEnvVar << "=\"" << text
                       << "\": it must be a number of microseconds, 0 or "
                          "more (0 turns idle spinning off); using "
                       << ThreadPool::kDefaultIdleSpinMicros;
    return ThreadPool::kDefaultIdleSpinMicros;
  }
  return value;
}

}  // namespace

struct ThreadPool::Impl {
  Impl(int n, int64_t spin_us)
      : spin(spin_us),
        pool(n, internal::SpinningEnvironment{&spin}),
        device(&pool, n) {}
  // Spinning workers stop polling before the pool joins them.
  ~Impl() { spin.stopping.store(true, std::memory_order_relaxed); }

  internal::SpinState spin;
  Eigen::ThreadPoolTempl<internal::SpinningEnvironment> pool;
  Eigen::ThreadPoolDevice device;
};

ThreadPool::ThreadPool(std::string name, int num_threads)
    : ThreadPool(std::move(name), num_threads, DefaultIdleSpinMicros()) {}

ThreadPool::ThreadPool(std::string name, int num_threads, int64_t idle_spin_us)
    : name_(std::move(name)),
      impl_(std::make_unique<Impl>(std::max(1, num_threads), idle_spin_us)) {}

ThreadPool::~ThreadPool() = default;

bool SpinUntil(int64_t spin_us, const std::function<bool()>& done) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline =
      Clock::now() + std::chrono::microseconds(std::max<int64_t>(spin_us, 0));
  for (int i = 1;; ++i) {
    if (done()) return true;
    CpuRelax();
    // Every 256 polls (a few microseconds): stop at the deadline, else give
    // the CPU to any other runnable thread before polling on.
    if (i % 256 == 0) {
      if (Clock::now() >= deadline) return done();
      std::this_thread::yield();
    }
  }
}

int64_t ThreadPool::DefaultIdleSpinMicros() {
  static const int64_t spin_us = ReadDefaultIdleSpinMicros();
  return spin_us;
}

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

int64_t ThreadPool::idle_spin_us() const { return impl_->spin.spin_us; }

int ThreadPool::CurrentThreadId() const { return impl_->pool.CurrentThreadId(); }

Eigen::ThreadPoolInterface* ThreadPool::AsEigenThreadPool() const {
  return &impl_->pool;
}

const Eigen::ThreadPoolDevice& ThreadPool::eigen_device() const {
  return impl_->device;
}

}  // namespace opkit
