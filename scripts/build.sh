#!/usr/bin/env bash
# Installs what is missing and builds a CMake preset (default: "default").
#   scripts/build.sh [preset]
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-default}"
scripts/install_deps.sh
# Warnings are errors (OPKIT_WERROR) in CI's release build, where the
# compiler is the one the build is known clean with; elsewhere a newer
# compiler's new warning should not stop a user's build. Set OPKIT_WERROR=ON
# or OFF to choose.
if [ "${CI:-}" = true ] && [ "$preset" = default ]; then
  werror="${OPKIT_WERROR:-ON}"
else
  werror="${OPKIT_WERROR:-OFF}"
fi
cmake --preset "$preset" -DOPKIT_WERROR="$werror" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
