// The third-party headers nearly every opkit source reads, precompiled once
// per build and put ahead of each library source and each header check
// (Note [Library build cost] in cmake/OpkitLayers.cmake). Only headers from
// outside the project: a check that an opkit header compiles on its own
// still reads every opkit header it needs.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

#include <google/protobuf/arena.h>
#include <google/protobuf/generated_message_reflection.h>
#include <google/protobuf/map.h>
#include <google/protobuf/message.h>
#include <google/protobuf/repeated_field.h>

// As opkit/core/eigen.h reads Eigen (Note [Eigen warnings] there).
#ifndef EIGEN_USE_THREADS
#define EIGEN_USE_THREADS
#endif
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include "Eigen/Core"
#include "unsupported/Eigen/CXX11/Tensor"
#include "unsupported/Eigen/CXX11/ThreadPool"
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
