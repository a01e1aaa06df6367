// TensorFlow's distributions over a Philox-style generator, each giving the
// same values as TensorFlow's class of the same name for the same generator
// state: UniformDistribution (half, bfloat16, float, double; int32/int64 in
// [lo, hi)), UniformFullIntDistribution, NormalDistribution (Box-Muller),
// TruncatedNormalDistribution (|x| < 2, by rejection) and the
// SingleSampleAdapter that hands out a generator's values one at a time.
//
//   opkit::random::PhiloxRandom gen(seed, seed2);
//   opkit::random::UniformDistribution<PhiloxRandom, float> uniform;
//   auto four = uniform(&gen);         // Array<float, 4>, each in [0, 1)
//   opkit::random::UniformDistribution<PhiloxRandom, int32_t> dice(1, 7);
//   auto rolls = dice(&gen);           // Array<int32_t, 4>, each in [1, 7)
//
// A distribution consumes one generator call per use and returns
// kResultElementCount values (half as many for the 64-bit types, which use
// two uint32 each); the truncated normal, marked kVariableSamplesPerOutput,
// draws from a SingleSampleAdapter until it has enough. Distributions hold
// no generator state; they are as thread-safe as the generator passed in.
#ifndef OPKIT_RANDOM_RANDOM_DISTRIBUTIONS_H_
#define OPKIT_RANDOM_RANDOM_DISTRIBUTIONS_H_

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "opkit/core/eigen.h"
#include "opkit/random/philox_random.h"
#include "opkit/random/random_distributions_utils.h"

namespace opkit {
namespace random {

// A half in [0, 1) from the low 10 bits of `x` (1.m - 1, as Uint32ToFloat).
PHILOX_DEVICE_INLINE Eigen::half Uint16ToHalf(uint16_t x) {
  const uint16_t bits = static_cast<uint16_t>((15u << 10) | (x & 0x3ffu));
  return Eigen::numext::bit_cast<Eigen::half>(bits) - Eigen::half(1.0f);
}

// A bfloat16 in [0, 1) from the low 7 bits of `x` (TensorFlow's name).
PHILOX_DEVICE_INLINE Eigen::bfloat16 Uint16ToGfloat16(uint16_t x) {
  const uint16_t bits = static_cast<uint16_t>((127u << 7) | (x & 0x7fu));
  return Eigen::numext::bit_cast<Eigen::bfloat16>(bits) - Eigen::bfloat16(1.0f);
}

// Two standard normal doubles from four uint32: BoxMullerFloat in double,
// u1 = Uint64ToDouble(x0, x1) clamped at 1e-7, angle from (x2, x3).
PHILOX_DEVICE_INLINE void BoxMullerDouble(uint32_t x0, uint32_t x1, uint32_t x2,
                                          uint32_t x3, double* d0, double* d1) {
  const double kEpsilon = 1.0e-7;
  double u1 = Uint64ToDouble(x0, x1);
  if (u1 < kEpsilon) u1 = kEpsilon;
  const double angle = 2 * internal::kPi * Uint64ToDouble(x2, x3);
  const double radius = std::sqrt(-2.0 * std::log(u1));
#if defined(__linux__)
  sincos(angle, d0, d1);
#else
  *d0 = std::sin(angle);
  *d1 = std::cos(angle);
#endif
  *d0 *= radius;
  *d1 *= radius;
}

// a + b for a result that fits in Int, where b (unsigned) itself may not:
// the offset of an integer range [lo, hi) whose width overflows Int.
template <typename Int>
PHILOX_DEVICE_INLINE Int SignedAdd(Int a, typename std::make_unsigned<Int>::type b) {
  const auto half = b >> 1;
  return a + static_cast<Int>(half) + static_cast<Int>(b - half);
}

namespace internal {
// What every distribution declares: values per use, their cost in cycles
// (sharding estimates), whether a use may take a variable number of
// generator values, and the result types.
template <typename T, int kCount, int kCost, bool kVariable = false>
struct DistributionTraits {
  static constexpr int kResultElementCount = kCount;
  static constexpr int kElementCost = kCost;
  static constexpr bool kVariableSamplesPerOutput = kVariable;
  using ResultType = Array<T, kCount>;
  using ResultElementType = T;
};

// Values from one generator call, each converted by Convert(uint32): the
// uniform half, bfloat16 and float distributions.
template <class Generator, typename T, T (*Convert)(uint16_t)>
struct ConvertEach16 : DistributionTraits<T, Generator::kResultElementCount, 3> {
  using Base = DistributionTraits<T, Generator::kResultElementCount, 3>;
  PHILOX_DEVICE_INLINE typename Base::ResultType operator()(Generator* gen) {
    const typename Generator::ResultType sample = (*gen)();
    typename Base::ResultType result;
    for (int i = 0; i < Base::kResultElementCount; ++i) {
      result[i] = Convert(static_cast<uint16_t>(sample[i]));  // low 16 bits
    }
    return result;
  }
};

// The 64-bit value of two consecutive uint32 (low word first).
template <class Sample>
PHILOX_DEVICE_INLINE uint64_t Bits64(const Sample& sample, int i) {
  return sample[2 * i] | static_cast<uint64_t>(sample[2 * i + 1]) << 32;
}
}  // namespace internal

// Uniform values of RealType (or integers, see below) from Generator.
// Specialised per type; the general template is deliberately undefined.
template <class Generator, typename RealType>
class UniformDistribution;

template <class Generator>
class UniformDistribution<Generator, Eigen::half>
    : public internal::ConvertEach16<Generator, Eigen::half, Uint16ToHalf> {};

template <class Generator>
class UniformDistribution<Generator, Eigen::bfloat16>
    : public internal::ConvertEach16<Generator, Eigen::bfloat16, Uint16ToGfloat16> {};

template <class Generator>
class UniformDistribution<Generator, float>
    : public internal::DistributionTraits<float, Generator::kResultElementCount, 3> {
 public:
  using typename UniformDistribution::DistributionTraits::ResultType;
  PHILOX_DEVICE_INLINE ResultType operator()(Generator* gen) {
    const typename Generator::ResultType sample = (*gen)();
    ResultType result;
    for (int i = 0; i < this->kResultElementCount; ++i) result[i] = Uint32ToFloat(sample[i]);
    return result;
  }
};

template <class Generator>
class UniformDistribution<Generator, double>
    : public internal::DistributionTraits<double, Generator::kResultElementCount / 2, 3> {
 public:
  using typename UniformDistribution::DistributionTraits::ResultType;
  PHILOX_DEVICE_INLINE ResultType operator()(Generator* gen) {
    const typename Generator::ResultType sample = (*gen)();
    ResultType result;
    for (int i = 0; i < this->kResultElementCount; ++i) {
      result[i] = Uint64ToDouble(sample[2 * i], sample[2 * i + 1]);
    }
    return result;
  }
};

// Integers in [lo, hi): uint32 value % (hi - lo) + lo (slightly biased
// towards small values when the width does not divide 2^32, as in
// TensorFlow). Requires lo < hi.
template <class Generator>
class UniformDistribution<Generator, int32_t>
    : public internal::DistributionTraits<int32_t, Generator::kResultElementCount, 3> {
 public:
  using typename UniformDistribution::DistributionTraits::ResultType;
  UniformDistribution(int32_t lo, int32_t hi)
      : lo_(lo), range_(static_cast<uint32_t>(hi) - static_cast<uint32_t>(lo)) {}

  PHILOX_DEVICE_INLINE ResultType operator()(Generator* gen) {
    const typename Generator::ResultType sample = (*gen)();
    ResultType result;
    for (int i = 0; i < this->kResultElementCount; ++i) {
      result[i] = SignedAdd(lo_, sample[i] % range_);
    }
    return result;
  }

 private:
  int32_t lo_;      // signed: the range's start
  uint32_t range_;  // unsigned: hi - lo overflows int32 when lo < 0 < hi
};

// Integers in [lo, hi) from 64 bits (two uint32 per value). Requires lo < hi.
template <class Generator>
class UniformDistribution<Generator, int64_t>
    : public internal::DistributionTraits<int64_t, Generator::kResultElementCount / 2, 3> {
 public:
  using typename UniformDistribution::DistributionTraits::ResultType;
  UniformDistribution(int64_t lo, int64_t hi)
      : lo_(lo), range_(static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo)) {}

  PHILOX_DEVICE_INLINE ResultType operator()(Generator* gen) {
    const typename Generator::ResultType sample = (*gen)();
    ResultType result;
    for (int i = 0; i < this->kResultElementCount; ++i) {
      result[i] = SignedAdd(lo_, internal::Bits64(sample, i) % range_);
    }
    return result;
  }

 private:
  int64_t lo_;
  uint64_t range_;
};

// Integers over the whole range of IntType (int32, uint32, int64, uint64):
// the generator's bits as they are.
template <typename Generator, typename IntType>
class UniformFullIntDistribution
    : public internal::DistributionTraits<IntType,
                                          sizeof(IntType) == 4
                                              ? Generator::kResultElementCount
                                              : Generator::kResultElementCount / 2,
                                          3> {
  static_assert(std::is_integral<IntType>::value &&
                    (sizeof(IntType) == 4 || sizeof(IntType) == 8),
                "UniformFullIntDistribution is for 32- and 64-bit integers");

 public:
  using typename UniformFullIntDistribution::DistributionTraits::ResultType;
  PHILOX_DEVICE_INLINE ResultType operator()(Generator* gen) {
    const typename Generator::ResultType sample = (*gen)();
    ResultType result;
    for (int i = 0; i < this->kResultElementCount; ++i) {
      if constexpr (sizeof(IntType) == 4) {
        result[i] = static_cast<IntType>(sample[i]);
      } else {
        result[i] = static_cast<IntType>(internal::Bits64(sample, i));
      }
    }
    return result;
  }
};

// Hands out Generator's values one at a time (for distributions that take
// a variable number of values, and SimplePhilox). Borrows `gen`, which must
// outlive the adapter.
template <class Generator>
class SingleSampleAdapter {
 public:
  static constexpr int kResultElementCount = 1;
  // Values per call of the underlying generator.
  static constexpr int kNativeElementCount = Generator::kResultElementCount;
  using ResultType = typename Generator::ResultElementType;
  using ResultElementType = typename Generator::ResultElementType;

  PHILOX_DEVICE_INLINE explicit SingleSampleAdapter(Generator* gen)
      : generator_(gen), used_result_index_(kNativeElementCount) {}

  PHILOX_DEVICE_INLINE ResultType operator()() {
    if (used_result_index_ == kNativeElementCount) {
      unused_results_ = (*generator_)();
      used_result_index_ = 0;
    }
    return unused_results_[used_result_index_++];
  }

  // Skips `num_skips` single values, exactly as if they had been drawn.
  PHILOX_DEVICE_INLINE void Skip(uint64_t num_skips) {
    if (num_skips == 0) return;
    const uint64_t unused = kNativeElementCount - used_result_index_;
    if (num_skips <= unused) {
      used_result_index_ += static_cast<int>(num_skips);
      return;
    }
    num_skips -= unused;
    used_result_index_ = kNativeElementCount;
    SkipFromGenerator(num_skips / kNativeElementCount);
    const int rest = static_cast<int>(num_skips % kNativeElementCount);
    if (rest != 0) {
      unused_results_ = (*generator_)();
      used_result_index_ = rest;
    }
  }

 private:
  PHILOX_DEVICE_INLINE void SkipFromGenerator(uint64_t calls) {
    if constexpr (std::is_same<Generator, PhiloxRandom>::value) {
      generator_->Skip(calls);  // O(1)
    } else {
      while (calls-- > 0) (*generator_)();
    }
  }

  Generator* generator_;
  typename Generator::ResultType unused_results_;
  int used_result_index_;
};

// Standard normal values from Generator (Box-Muller on pairs of values).
// Specialised per type; the general template is deliberately undefined.
template <class Generator, typename RealType>
class NormalDistribution;

namespace internal {
// Normal half, bfloat16 and float: BoxMullerFloat on each pair of uint32,
// then rounded to T.
template <class Generator, typename T>
struct NormalFromFloat : DistributionTraits<T, Generator::kResultElementCount, 70> {
  using Base = DistributionTraits<T, Generator::kResultElementCount, 70>;
  static_assert(Base::kResultElementCount % 2 == 0, "Box-Muller makes values in pairs");
  PHILOX_DEVICE_INLINE typename Base::ResultType operator()(Generator* gen) {
    const typename Generator::ResultType sample = (*gen)();
    typename Base::ResultType result;
    for (int i = 0; i < Base::kResultElementCount; i += 2) {
      float f[2];
      BoxMullerFloat(sample[i], sample[i + 1], &f[0], &f[1]);
      result[i] = T(f[0]);
      result[i + 1] = T(f[1]);
    }
    return result;
  }
};
}  // namespace internal

template <class Generator>
class NormalDistribution<Generator, Eigen::half>
    : public internal::NormalFromFloat<Generator, Eigen::half> {};
template <class Generator>
class NormalDistribution<Generator, Eigen::bfloat16>
    : public internal::NormalFromFloat<Generator, Eigen::bfloat16> {};
template <class Generator>
class NormalDistribution<Generator, float>
    : public internal::NormalFromFloat<Generator, float> {};

template <class Generator>
class NormalDistribution<Generator, double>
    : public internal::DistributionTraits<double, Generator::kResultElementCount / 2, 70> {
 public:
  using typename NormalDistribution::DistributionTraits::ResultType;
  PHILOX_DEVICE_INLINE ResultType operator()(Generator* gen) {
    const typename Generator::ResultType sample = (*gen)();
    ResultType result;
    for (int i = 0; i < this->kResultElementCount; i += 2) {
      const int j = 2 * i;
      BoxMullerDouble(sample[j], sample[j + 1], sample[j + 2], sample[j + 3], &result[i],
                      &result[i + 1]);
    }
    return result;
  }
};

// Standard normal values with |x| < 2 (kTruncateValue), by rejection: draws
// pairs from a SingleSampleAdapter, keeps each Box-Muller value inside the
// bound, in order, until the result is full. Specialised per type.
template <class SingleSampleGenerator, typename RealType>
class TruncatedNormalDistribution;

namespace internal {
template <class SingleSampleGenerator, typename T>
struct TruncatedNormalFromFloat
    : DistributionTraits<T, SingleSampleGenerator::kNativeElementCount, 90, true> {
  using Base = DistributionTraits<T, SingleSampleGenerator::kNativeElementCount, 90, true>;
  static constexpr float kTruncateValue = 2.0f;

  PHILOX_DEVICE_INLINE typename Base::ResultType operator()(SingleSampleGenerator* gen) {
    typename Base::ResultType results;
    int index = 0;
    while (true) {
      const uint32_t x0 = (*gen)();
      const uint32_t x1 = (*gen)();
      float f[2];
      BoxMullerFloat(x0, x1, &f[0], &f[1]);
      for (float value : f) {
        if (std::fabs(value) < kTruncateValue) {
          results[index++] = T(value);
          if (index >= Base::kResultElementCount) return results;
        }
      }
    }
  }
};
}  // namespace internal

template <class SingleSampleGenerator>
class TruncatedNormalDistribution<SingleSampleGenerator, Eigen::half>
    : public internal::TruncatedNormalFromFloat<SingleSampleGenerator, Eigen::half> {};
template <class SingleSampleGenerator>
class TruncatedNormalDistribution<SingleSampleGenerator, Eigen::bfloat16>
    : public internal::TruncatedNormalFromFloat<SingleSampleGenerator, Eigen::bfloat16> {};
template <class SingleSampleGenerator>
class TruncatedNormalDistribution<SingleSampleGenerator, float>
    : public internal::TruncatedNormalFromFloat<SingleSampleGenerator, float> {};

template <class SingleSampleGenerator>
class TruncatedNormalDistribution<SingleSampleGenerator, double>
    : public internal::DistributionTraits<
          double,
          (SingleSampleGenerator::kNativeElementCount > 1
               ? SingleSampleGenerator::kNativeElementCount / 2
               : 1),
          90, true> {
 public:
  using typename TruncatedNormalDistribution::DistributionTraits::ResultType;
  static constexpr double kTruncateValue = 2.0;

  PHILOX_DEVICE_INLINE ResultType operator()(SingleSampleGenerator* gen) {
    ResultType results;
    int index = 0;
    while (true) {
      const uint32_t x0 = (*gen)();
      const uint32_t x1 = (*gen)();
      const uint32_t x2 = (*gen)();
      const uint32_t x3 = (*gen)();
      double d[2];
      BoxMullerDouble(x0, x1, x2, x3, &d[0], &d[1]);
      for (double value : d) {
        if (std::fabs(value) < kTruncateValue) {
          results[index++] = value;
          if (index >= this->kResultElementCount) return results;
        }
      }
    }
  }
};

}  // namespace random
}  // namespace opkit

#endif  // OPKIT_RANDOM_RANDOM_DISTRIBUTIONS_H_
