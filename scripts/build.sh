#!/usr/bin/env bash
# Installs what is missing and builds a CMake preset (default: "default").
#   scripts/build.sh [preset]
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-default}"
scripts/install_deps.sh
# OPKIT_WERROR=ON (warnings as errors) is for the release build once it is
# known clean on CI's machine; off until then, so set it by hand to check.
werror="${OPKIT_WERROR:-OFF}"
cmake --preset "$preset" -DOPKIT_WERROR="$werror" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
