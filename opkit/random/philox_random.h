// Philox4x32-10, the counter-based generator behind TensorFlow's random ops
// (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011),
// bit for bit TensorFlow's random::PhiloxRandom: the same seeds give the
// same sequence.
//
//   opkit::random::PhiloxRandom gen(/*seed_lo=*/150, /*seed_hi=*/10);
//   opkit::random::PhiloxRandom::ResultType r = gen();  // four uint32
//   gen.Skip(1000);                          // 1000 calls ahead, in O(1)
//
// Each call encrypts the 128-bit counter with the 64-bit key in ten rounds
// and then increments the counter, so a copy of a generator skipped ahead
// by n gives exactly the n-th and later results: threads filling disjoint
// parts of an output each take a copy and Skip to their part.
//
// PhiloxRandom and Array are trivially copyable values; not thread-safe to
// share (copy instead, or see GuardedPhiloxRandom in opkit/kernel).
#ifndef OPKIT_RANDOM_PHILOX_RANDOM_H_
#define OPKIT_RANDOM_PHILOX_RANDOM_H_

#include <cstddef>
#include <cstdint>

// TensorFlow's function qualifiers for code that nvcc also compiles; part of
// its public API (custom GPU kernels write PHILOX_DEVICE_INLINE).
#ifndef PHILOX_DEVICE_INLINE
#if defined(__CUDACC__) || defined(__HIPCC__)
#define PHILOX_DEVICE_FUNC __host__ __device__
#define PHILOX_INLINE __inline__
#else
#define PHILOX_DEVICE_FUNC
#define PHILOX_INLINE inline
#endif
#define PHILOX_DEVICE_INLINE PHILOX_DEVICE_FUNC PHILOX_INLINE
#endif

namespace opkit {
namespace random {

// A fixed-size array of T, zero-initialised, usable on host and device.
template <typename T, int ElementCount>
class Array {
 public:
  static constexpr int kElementCount = ElementCount;

  PHILOX_DEVICE_INLINE Array() {
    for (int i = 0; i < ElementCount; ++i) data_[i] = T(0);
  }

  PHILOX_DEVICE_INLINE const T& operator[](int index) const { return data_[index]; }
  PHILOX_DEVICE_INLINE T& operator[](int index) { return data_[index]; }
  std::size_t size() const { return ElementCount; }

 private:
  T data_[ElementCount];
};

// Philox4x32-10: four uint32 per call. Seeding: the 64-bit key is `seed`
// (or `seed_lo`), low word first; `seed_hi` fills the upper half of the
// counter, whose lower half starts at zero.
class PhiloxRandom {
 public:
  using ResultType = Array<uint32_t, 4>;
  using ResultElementType = uint32_t;
  using Key = Array<uint32_t, 2>;
  // Values per call.
  static constexpr int kResultElementCount = 4;
  // Cost of one value, in cycles (what TensorFlow's sharding estimates use).
  static constexpr int kElementCost = 10;

  PHILOX_DEVICE_INLINE PhiloxRandom() {}

  PHILOX_DEVICE_INLINE explicit PhiloxRandom(uint64_t seed) {
    key_[0] = static_cast<uint32_t>(seed);
    key_[1] = static_cast<uint32_t>(seed >> 32);
  }

  PHILOX_DEVICE_INLINE explicit PhiloxRandom(uint64_t seed_lo, uint64_t seed_hi) {
    key_[0] = static_cast<uint32_t>(seed_lo);
    key_[1] = static_cast<uint32_t>(seed_lo >> 32);
    counter_[2] = static_cast<uint32_t>(seed_hi);
    counter_[3] = static_cast<uint32_t>(seed_hi >> 32);
  }

  PHILOX_DEVICE_INLINE PhiloxRandom(ResultType counter, Key key)
      : counter_(counter), key_(key) {}

  PHILOX_DEVICE_INLINE const ResultType& counter() const { return counter_; }
  PHILOX_DEVICE_INLINE const Key& key() const { return key_; }

  // Moves `count` calls ahead: adds `count` to the 128-bit counter.
  PHILOX_DEVICE_INLINE void Skip(uint64_t count) {
    const uint32_t lo = static_cast<uint32_t>(count);
    uint32_t hi = static_cast<uint32_t>(count >> 32);
    counter_[0] += lo;
    if (counter_[0] < lo) ++hi;  // carry out of word 0
    counter_[1] += hi;
    if (counter_[1] < hi) {      // carry out of word 1
      if (++counter_[2] == 0) ++counter_[3];
    }
  }

  // The next four values.
  PHILOX_DEVICE_INLINE ResultType operator()() {
    ResultType block = counter_;
    Key key = key_;
    for (int round = 0; round < kRounds; ++round) {
      if (round > 0) BumpKey(&key);
      block = Round(block, key);
    }
    SkipOne();
    return block;
  }

 private:
  static constexpr int kRounds = 10;
  // The paper's constants: Weyl sequence increments for the key, and the
  // two multipliers of the 4x32 round function.
  static constexpr uint32_t kKeyIncrement0 = 0x9E3779B9;
  static constexpr uint32_t kKeyIncrement1 = 0xBB67AE85;
  static constexpr uint32_t kMultiplier0 = 0xD2511F53;
  static constexpr uint32_t kMultiplier1 = 0xCD9E8D57;

  PHILOX_DEVICE_INLINE void SkipOne() {
    if (++counter_[0] == 0 && ++counter_[1] == 0 && ++counter_[2] == 0) {
      ++counter_[3];
    }
  }

  PHILOX_DEVICE_INLINE static void MulHiLo(uint32_t a, uint32_t b, uint32_t* lo,
                                           uint32_t* hi) {
    const uint64_t product = static_cast<uint64_t>(a) * b;
    *lo = static_cast<uint32_t>(product);
    *hi = static_cast<uint32_t>(product >> 32);
  }

  PHILOX_DEVICE_INLINE static ResultType Round(const ResultType& in, const Key& key) {
    uint32_t lo0, hi0, lo1, hi1;
    MulHiLo(kMultiplier0, in[0], &lo0, &hi0);
    MulHiLo(kMultiplier1, in[2], &lo1, &hi1);
    ResultType out;
    out[0] = hi1 ^ in[1] ^ key[0];
    out[1] = lo1;
    out[2] = hi0 ^ in[3] ^ key[1];
    out[3] = lo0;
    return out;
  }

  PHILOX_DEVICE_INLINE static void BumpKey(Key* key) {
    (*key)[0] += kKeyIncrement0;
    (*key)[1] += kKeyIncrement1;
  }

  ResultType counter_;
  Key key_;
};

}  // namespace random
}  // namespace opkit

#endif  // OPKIT_RANDOM_PHILOX_RANDOM_H_
