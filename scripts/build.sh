#!/usr/bin/env bash
# Installs what is missing and builds a CMake preset (default: "default").
#   scripts/build.sh [preset]
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-default}"
scripts/install_deps.sh
# CI (CI=true) makes the release build with warnings as errors; a user's
# build only warns, and so do the sanitizer builds (GCC's instrumented
# optimiser reports uninitialised values it cannot see through).
werror=OFF
if [ "${CI:-}" = true ] && [ "$preset" = default ]; then werror=ON; fi
cmake --preset "$preset" -DOPKIT_WERROR="$werror" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
