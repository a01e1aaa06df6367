// What this process may use of the machine: NumSchedulableCpus, the count a
// thread-count option of 0 ("one per core") resolves to, and
// UsableMemoryBytes, the default limit on one tensor allocation.
//
//   ThreadPool pool("work", NumSchedulableCpus());
#ifndef OPKIT_CORE_MACHINE_RESOURCES_H_
#define OPKIT_CORE_MACHINE_RESOURCES_H_

#include <cstdint>

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

// The memory this process could have: physical memory (sysconf), lowered to
// the cgroup v2 memory limit (memory.max) when one is set. Computed once,
// then cached; thread-safe; 0 when neither can be read.
OPKIT_EXPORT int64_t UsableMemoryBytes();

}  // namespace opkit

#endif  // OPKIT_CORE_MACHINE_RESOURCES_H_
