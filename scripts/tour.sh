#!/usr/bin/env bash
# The README's first command: set up, build, and run the tour of opkit.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh default
exec build/default/examples/tour/opkit_tour "$@"
