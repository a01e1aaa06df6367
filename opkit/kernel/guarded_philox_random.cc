// GuardedPhiloxRandom: seeding from attrs or values, and reserving samples.
#include "opkit/kernel/guarded_philox_random.h"

#include "opkit/core/logging.h"
#include "opkit/kernel/op_kernel_construction.h"
#include "opkit/random/random.h"

namespace opkit {

Status GuardedPhiloxRandom::Init(OpKernelConstruction* context) {
  int64_t seed = 0;
  int64_t seed2 = 0;
  OPKIT_RETURN_IF_ERROR(context->GetAttr("seed", &seed));
  OPKIT_RETURN_IF_ERROR(context->GetAttr("seed2", &seed2));
  Init(seed, seed2);
  return Status::OK();
}

void GuardedPhiloxRandom::Init(int64_t seed, int64_t seed2) {
  if (seed == 0 && seed2 == 0) {
    // Neither seed set: a different stream in every run, as in TensorFlow.
    seed = static_cast<int64_t>(random::New64());
    seed2 = static_cast<int64_t>(random::New64());
  }
  SetGenerator(random::PhiloxRandom(static_cast<uint64_t>(seed), static_cast<uint64_t>(seed2)));
}

void GuardedPhiloxRandom::Init(random::PhiloxRandom::ResultType counter,
                               random::PhiloxRandom::Key key) {
  SetGenerator(random::PhiloxRandom(counter, key));
}

bool GuardedPhiloxRandom::SetGenerator(const random::PhiloxRandom& generator) {
  mutex_lock lock(mu_);
  if (initialized_) {
    LOG(ERROR) << "GuardedPhiloxRandom::Init called twice; the generator keeps its first "
                  "seeds. Call Init once, in the kernel's constructor.";
    return false;
  }
  generator_ = generator;
  initialized_ = true;
  return true;
}

random::PhiloxRandom GuardedPhiloxRandom::ReserveSamples128(int64_t samples) {
  {
    mutex_lock lock(mu_);
    if (initialized_) {
      random::PhiloxRandom local = generator_;
      generator_.Skip(static_cast<uint64_t>(samples));
      return local;
    }
  }
  LOG(ERROR) << "GuardedPhiloxRandom used before Init; seeding it randomly. Call "
                "Init(context) in the kernel's constructor.";
  Init(0, 0);  // a racing first Init wins; this one is then ignored
  return ReserveSamples128(samples);
}

}  // namespace opkit
