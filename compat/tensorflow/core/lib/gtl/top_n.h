// TensorFlow compatibility: gtl::TopN<T, Cmp>, the `limit` greatest of the
// values pushed one at a time (by Cmp, a "greater" predicate: std::greater
// keeps the largest; a "less" predicate keeps the smallest), in
// O(limit) memory and O(log limit) per push.
//
//   gtl::TopN<float> top(3);
//   for (float s : scores) top.push(s);
//   std::unique_ptr<std::vector<float>> best(top.Extract());  // descending
//
// Extract* return a vector the caller owns (TensorFlow's interface). After
// Extract() or ExtractUnsorted() the TopN is empty; the Nondestructive forms
// leave it as it was. Copyable and movable when T and Cmp are.
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_LIB_GTL_TOP_N_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_LIB_GTL_TOP_N_H_

#include <algorithm>
#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

#include "tensorflow/core/platform/logging.h"
#include "tensorflow/core/platform/types.h"

namespace tensorflow {
namespace gtl {

template <class T, class Cmp = std::greater<T>>
class TopN {
 public:
  using UnsortedIterator = typename std::vector<T>::const_iterator;

  explicit TopN(size_t limit) : TopN(limit, Cmp()) {}
  TopN(size_t limit, const Cmp& cmp) : limit_(limit), cmp_(cmp) {}

  size_t limit() const { return limit_; }
  // How many values are kept: min(pushed, limit).
  size_t size() const { return elements_.size(); }
  bool empty() const { return elements_.empty(); }
  void reserve(size_t n) { elements_.reserve(std::min(n, limit_ + 1)); }

  // Pushes `v`. When that drops a value (the smallest of the limit + 1,
  // which may be `v` itself) it is stored in *dropped if given; otherwise
  // *dropped is left alone.
  void push(const T& v) { PushInternal(v, nullptr); }
  void push(const T& v, T* dropped) { PushInternal(v, dropped); }
  void push(T&& v) { PushInternal(std::move(v), nullptr); }
  void push(T&& v, T* dropped) { PushInternal(std::move(v), dropped); }

  // The smallest value kept. Requires !empty() (checked).
  const T& peek_bottom() {
    CHECK(!empty());
    if (heap_) return elements_.front();
    return *std::max_element(elements_.begin(), elements_.end(), cmp_);
  }

  // The values, greatest first; the TopN is left empty.
  std::vector<T>* Extract() {
    auto* out = ExtractUnsorted();
    std::sort(out->begin(), out->end(), cmp_);
    return out;
  }
  // The values in no particular order; the TopN is left empty.
  std::vector<T>* ExtractUnsorted() {
    auto* out = new std::vector<T>;
    out->swap(elements_);
    heap_ = false;
    return out;
  }
  std::vector<T>* ExtractNondestructive() const {
    return new std::vector<T>(Sorted());
  }
  // Replaces *output with the values, greatest first.
  void ExtractNondestructive(std::vector<T>* output) const {
    CHECK(output != nullptr);
    *output = Sorted();
  }
  std::vector<T>* ExtractUnsortedNondestructive() const {
    return new std::vector<T>(elements_);
  }
  void ExtractUnsortedNondestructive(std::vector<T>* output) const {
    CHECK(output != nullptr);
    *output = elements_;
  }

  // The kept values in no particular order; invalidated by any change.
  UnsortedIterator unsorted_begin() const { return elements_.begin(); }
  UnsortedIterator unsorted_end() const { return elements_.end(); }

  Cmp* comparator() { return &cmp_; }
  // Empties the TopN (also after Extract).
  void Reset() {
    elements_.clear();
    heap_ = false;
  }

 private:
  std::vector<T> Sorted() const {
    std::vector<T> out = elements_;
    std::sort(out.begin(), out.end(), cmp_);
    return out;
  }

  // Until `limit_` values are kept, elements_ is unordered. From then on it
  // is a heap under cmp_ whose front is the smallest kept value, the one a
  // greater value displaces.
  template <typename U>
  void PushInternal(U&& v, T* dropped) {
    if (limit_ == 0) {
      if (dropped != nullptr) *dropped = std::forward<U>(v);
      return;
    }
    if (!heap_) {
      elements_.push_back(std::forward<U>(v));
      if (elements_.size() <= limit_) return;
      std::make_heap(elements_.begin(), elements_.end(), cmp_);
      std::pop_heap(elements_.begin(), elements_.end(), cmp_);
      if (dropped != nullptr) *dropped = std::move(elements_.back());
      elements_.pop_back();
      heap_ = true;
      return;
    }
    if (!cmp_(v, elements_.front())) {
      if (dropped != nullptr) *dropped = std::forward<U>(v);
      return;
    }
    std::pop_heap(elements_.begin(), elements_.end(), cmp_);
    if (dropped != nullptr) *dropped = std::move(elements_.back());
    elements_.back() = std::forward<U>(v);
    std::push_heap(elements_.begin(), elements_.end(), cmp_);
  }

  std::vector<T> elements_;
  size_t limit_;
  Cmp cmp_;
  bool heap_ = false;
};

}  // namespace gtl
}  // namespace tensorflow

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_LIB_GTL_TOP_N_H_
