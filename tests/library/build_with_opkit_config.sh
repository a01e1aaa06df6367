#!/usr/bin/env bash
# Builds an op library with nothing but g++ and opkit-config (the way
# TensorFlow's guide builds with tf.sysconfig flags), loads it and runs it.
#   build_with_opkit_config.sh OPKIT_CONFIG SOURCE LOAD_AND_RUN
set -euo pipefail
config=$1 source=$2 load_and_run=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$config" --version
# shellcheck disable=SC2046
g++ -std=c++17 -shared -fPIC -DLIBTEST_RESULT=41 "$source" -o "$work/value.so" \
  $("$config" --cflags --ldflags)
"$load_and_run" "$work/value.so" LibTestValue 41
