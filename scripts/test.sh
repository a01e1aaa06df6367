#!/usr/bin/env bash
# The README's second command: set up, build, and run every test.
#   scripts/test.sh [preset]     (default, asan or tsan)
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-default}"
scripts/build.sh "$preset"
ctest --preset "$preset"
