// GuardedPhiloxRandom: a random op's generator, seeded from its "seed" and
// "seed2" attrs as in TensorFlow, from which each Compute call reserves a
// stretch of the stream under a lock and then draws from its own copy.
//
//   class DropoutMaskOp : public OpKernel {
//    public:
//     explicit DropoutMaskOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
//       OP_REQUIRES_OK(ctx, generator_.Init(ctx));
//     }
//     void Compute(OpKernelContext* ctx) override {
//       ...
//       random::PhiloxRandom local = generator_.ReserveSamples32(n);
//       random::SimplePhilox rng(&local);    // n values, no lock held
//     }
//    private:
//     GuardedPhiloxRandom generator_;
//   };
//
// Seeds: PhiloxRandom(seed, seed2); when both are 0, two values of
// random::New64() instead, so the op differs from run to run. Two kernels
// with the same nonzero seeds give the same sequence, call after call.
//
// Thread-safe after Init (the Reserve* methods take the lock).
#ifndef OPKIT_KERNEL_GUARDED_PHILOX_RANDOM_H_
#define OPKIT_KERNEL_GUARDED_PHILOX_RANDOM_H_

#include <cstdint>

#include "opkit/core/export.h"
#include "opkit/core/mutex.h"
#include "opkit/core/status.h"
#include "opkit/random/philox_random.h"

namespace opkit {

class OpKernelConstruction;

class OPKIT_EXPORT GuardedPhiloxRandom {
 public:
  GuardedPhiloxRandom() = default;
  GuardedPhiloxRandom(const GuardedPhiloxRandom&) = delete;
  GuardedPhiloxRandom& operator=(const GuardedPhiloxRandom&) = delete;

  // Seeds from the node's int attrs "seed" and "seed2"; a missing attr or
  // one of another type is GetAttr's error (NotFound / InvalidArgument),
  // and leaves the generator uninitialised.
  Status Init(OpKernelConstruction* context);

  // Seeds with PhiloxRandom(seed, seed2), or random seeds if both are 0.
  void Init(int64_t seed, int64_t seed2);
  // Starts at the given counter and key.
  void Init(random::PhiloxRandom::ResultType counter, random::PhiloxRandom::Key key);
  // Init must be called once. A second Init is logged as an error and
  // ignored (TensorFlow aborts the process).

  // A copy of the generator at the current position, valid for `samples`
  // calls (of four uint32 each); the shared generator moves past them.
  // Before any Init, the generator is first seeded randomly (and an error
  // logged) rather than aborting as TensorFlow does.
  random::PhiloxRandom ReserveSamples128(int64_t samples);

  // The same for `samples` single uint32 values.
  random::PhiloxRandom ReserveSamples32(int64_t samples) {
    return ReserveSamples128((samples + 3) / 4);
  }

  // Enough for `output_count` outputs that take up to `multiplier` calls
  // each (a rejection sampler's conservative bound).
  random::PhiloxRandom ReserveRandomOutputs(int64_t output_count, int multiplier) {
    return ReserveSamples128(output_count * multiplier);
  }

 private:
  // Seeds `generator` under the lock unless already done; false (and an
  // error logged) if it was.
  bool SetGenerator(const random::PhiloxRandom& generator);

  mutex mu_;
  random::PhiloxRandom generator_ OPKIT_GUARDED_BY(mu_);
  bool initialized_ OPKIT_GUARDED_BY(mu_) = false;
};

}  // namespace opkit

#endif  // OPKIT_KERNEL_GUARDED_PHILOX_RANDOM_H_
