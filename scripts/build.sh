#!/usr/bin/env bash
# Installs what is missing and builds a CMake preset (default: "default").
#   scripts/build.sh [preset]
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-default}"
scripts/install_deps.sh
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
