// PublishedSnapshot<T>: an immutable T that readers use without a lock or a
// reference count while one writer at a time replaces it; the epoch read
// scheme behind the kernel registry's lookups.
//
//   PublishedSnapshot<Index> published(std::make_unique<Index>());
//   {  // reader, any thread
//     PublishedSnapshot<Index>::ReadSection section(published);
//     Use(section.snapshot());
//   }
//   // writer, serialized by the caller's mutex
//   std::unique_ptr<const Index> old = published.Swap(BuildNext());
//   published.Retire(std::move(old));   // waits for readers of `old`
//
// Note [Read sections]
// A reader increments readers[e & 1] for the epoch e it read, then checks
// that the epoch is still e (else it undoes and retries), then loads the
// snapshot. A writer swaps the snapshot, advances the epoch from e to e + 1
// and waits for readers[e & 1] to reach 0. Readers that validated epoch e
// may hold the old snapshot and are waited for; readers that validate e + 1
// load the snapshot after the swap and so see the new one; readers of
// earlier epochs were waited for by the previous writer (writers are
// serialized). All of it is sequentially consistent atomics, so
// ThreadSanitizer sees the happens-before edges; new readers never wait for
// writers.
#ifndef OPKIT_KERNEL_INTERNAL_PUBLISHED_SNAPSHOT_H_
#define OPKIT_KERNEL_INTERNAL_PUBLISHED_SNAPSHOT_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <utility>

namespace opkit {
namespace internal {

template <typename T>
class PublishedSnapshot {
 public:
  explicit PublishedSnapshot(std::unique_ptr<const T> initial)
      : current_(initial.release()) {}
  ~PublishedSnapshot() { delete current_.load(); }
  PublishedSnapshot(const PublishedSnapshot&) = delete;
  PublishedSnapshot& operator=(const PublishedSnapshot&) = delete;

  // Brackets a reader's use of the snapshot; the snapshot stays valid until
  // the section ends. Cheap: two atomic increments, no lock.
  class ReadSection {
   public:
    explicit ReadSection(const PublishedSnapshot& published)
        : published_(published) {
      for (;;) {
        const uint64_t e = published_.epoch_.load();
        slot_ = static_cast<int>(e & 1);
        published_.readers_[slot_].value.fetch_add(1);
        if (published_.epoch_.load() == e) break;
        published_.readers_[slot_].value.fetch_sub(1);
      }
      snapshot_ = published_.current_.load();
    }
    ~ReadSection() { published_.readers_[slot_].value.fetch_sub(1); }
    ReadSection(const ReadSection&) = delete;
    ReadSection& operator=(const ReadSection&) = delete;

    const T& snapshot() const { return *snapshot_; }

   private:
    const PublishedSnapshot& published_;
    int slot_ = 0;
    const T* snapshot_ = nullptr;
  };

  // The current snapshot, for the writer (whose lock keeps it current).
  const T& current() const { return *current_.load(); }

  // Writer: makes `next` current and returns the previous snapshot, which
  // readers may still hold: pass it to Retire().
  std::unique_ptr<const T> Swap(std::unique_ptr<const T> next) {
    return std::unique_ptr<const T>(current_.exchange(next.release()));
  }

  // Writer: waits until no reader can hold a snapshot loaded before the
  // last Swap(), then frees `old`.
  void Retire(std::unique_ptr<const T> old) {
    const uint64_t e = epoch_.load();
    epoch_.store(e + 1);
    std::atomic<int64_t>& waited = readers_[e & 1].value;
    int spins = 0;
    while (waited.load() != 0) {
      if (++spins > 100) std::this_thread::yield();
    }
    old.reset();
  }

 private:
  struct alignas(64) Counter {
    std::atomic<int64_t> value{0};
  };

  std::atomic<const T*> current_;
  std::atomic<uint64_t> epoch_{0};
  mutable Counter readers_[2];
};

}  // namespace internal
}  // namespace opkit

#endif  // OPKIT_KERNEL_INTERNAL_PUBLISHED_SNAPSHOT_H_
