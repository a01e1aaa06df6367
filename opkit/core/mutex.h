// mutex (exclusive and shared), scoped locks and a condition variable, with
// thread-safety annotations.
//
//   mutable mutex mu_;
//   std::map<Key, Value> map_ OPKIT_GUARDED_BY(mu_);
//
//   void Insert(Key k, Value v) {
//     mutex_lock lock(mu_);           // exclusive
//     map_.emplace(k, v);
//   }
//   bool Has(const Key& k) const {
//     shared_lock lock(mu_);          // readers in parallel
//     return map_.count(k) > 0;
//   }
#ifndef OPKIT_CORE_MUTEX_H_
#define OPKIT_CORE_MUTEX_H_

#include <chrono>
#include <condition_variable>
#include <shared_mutex>

#include "opkit/core/thread_annotations.h"

namespace opkit {

// A reader-writer mutex. Not recursive.
class OPKIT_CAPABILITY("mutex") mutex {
 public:
  mutex() = default;
  mutex(const mutex&) = delete;
  mutex& operator=(const mutex&) = delete;

  void lock() OPKIT_ACQUIRE() { mu_.lock(); }
  bool try_lock() OPKIT_THREAD_ANNOTATION(try_acquire_capability(true)) {
    return mu_.try_lock();
  }
  void unlock() OPKIT_RELEASE() { mu_.unlock(); }

  void lock_shared() OPKIT_ACQUIRE_SHARED() { mu_.lock_shared(); }
  void unlock_shared() OPKIT_RELEASE_SHARED() { mu_.unlock_shared(); }

 private:
  friend class condition_variable;
  std::shared_mutex mu_;
};

// Holds `mu` exclusively for its lifetime.
class OPKIT_SCOPED_CAPABILITY mutex_lock {
 public:
  explicit mutex_lock(mutex& mu) OPKIT_ACQUIRE(mu) : mu_(mu) { mu_.lock(); }
  ~mutex_lock() OPKIT_RELEASE() { mu_.unlock(); }
  mutex_lock(const mutex_lock&) = delete;
  mutex_lock& operator=(const mutex_lock&) = delete;
  mutex& mutex_ref() { return mu_; }

 private:
  mutex& mu_;
};

// Holds `mu` shared for its lifetime.
class OPKIT_SCOPED_CAPABILITY shared_lock {
 public:
  explicit shared_lock(mutex& mu) OPKIT_ACQUIRE_SHARED(mu) : mu_(mu) {
    mu_.lock_shared();
  }
  ~shared_lock() OPKIT_RELEASE_GENERIC() { mu_.unlock_shared(); }
  shared_lock(const shared_lock&) = delete;
  shared_lock& operator=(const shared_lock&) = delete;

 private:
  mutex& mu_;
};

// TensorFlow's name for shared_lock.
using tf_shared_lock = shared_lock;

// Waits on a mutex held by a mutex_lock.
class condition_variable {
 public:
  void wait(mutex_lock& lock) {
    std::unique_lock<std::shared_mutex> ul(lock.mutex_ref().mu_, std::adopt_lock);
    cv_.wait(ul);
    ul.release();
  }
  template <typename Predicate>
  void wait(mutex_lock& lock, Predicate pred) {
    while (!pred()) wait(lock);
  }
  // Returns false on timeout.
  template <typename Rep, typename Period, typename Predicate>
  bool wait_for(mutex_lock& lock, std::chrono::duration<Rep, Period> d,
                Predicate pred) {
    std::unique_lock<std::shared_mutex> ul(lock.mutex_ref().mu_, std::adopt_lock);
    bool ok = cv_.wait_for(ul, d, pred);
    ul.release();
    return ok;
  }
  void notify_one() { cv_.notify_one(); }
  void notify_all() { cv_.notify_all(); }

 private:
  std::condition_variable_any cv_;
};

}  // namespace opkit

#endif  // OPKIT_CORE_MUTEX_H_
