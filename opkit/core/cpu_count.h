// NumSchedulableCpus: how many CPUs this process may run on, the count a
// thread-count option of 0 ("one per core") resolves to.
//
//   ThreadPool pool("work", NumSchedulableCpus());
#ifndef OPKIT_CORE_CPU_COUNT_H_
#define OPKIT_CORE_CPU_COUNT_H_

#include "opkit/core/export.h"

namespace opkit {

// The CPUs of the process's affinity mask (sched_getaffinity: `taskset`,
// cpusets, what a container was given), lowered to the cgroup v2 CPU quota
// when one is set (cpu.max "quota period", rounded up); where neither can
// be read, std::thread::hardware_concurrency(). At least 1. Computed once,
// then cached; thread-safe. TensorFlow's ConfigProto *_parallelism_threads
// = 0 means the same. Every opkit option whose 0 means "one per core"
// resolves it here.
OPKIT_EXPORT int NumSchedulableCpus();

}  // namespace opkit

#endif  // OPKIT_CORE_CPU_COUNT_H_
