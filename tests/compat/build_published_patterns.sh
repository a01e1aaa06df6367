#!/usr/bin/env bash
# Builds tests/compat/plugins/published_patterns_ops.cc with g++, -Wall
# -Werror and nothing but opkit-config's flags, as a user outside CMake
# would, then loads it and runs its ops.
#   build_published_patterns.sh OPKIT_CONFIG SOURCE LOAD_AND_RUN
set -euo pipefail
config=$1 source=$2 load_and_run=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck disable=SC2046
g++ -O1 -Wall -Werror -shared -fPIC "$source" -o "$work/published.so" \
  $("$config" --cflags --ldflags)
"$load_and_run" "$work/published.so" PublishedTopOfQueue 41
"$load_and_run" "$work/published.so" PublishedPaddingCode 203
