#!/usr/bin/env bash
# Builds an op library's shape-function test (out_of_tree/*.cc) the way an
# op author would outside opkit's tree: g++, the flags opkit-config gives and
# GoogleTest, nothing else; then runs it.
#   shape_fn_test_out_of_tree.sh OPKIT_CONFIG SOURCE
#   shape_fn_test_out_of_tree.sh --install BUILD_DIR SOURCE
# The second form first installs the build into a scratch prefix and uses
# the installed opkit-config, so the headers and library come from there.
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ "$1" = "--install" ]; then
  cmake --install "$2" --prefix "$work/prefix" > "$work/install.log"
  config=$work/prefix/bin/opkit-config
  test -f "$work/prefix/include/opkit_compat/tensorflow/core/framework/shape_inference_testutil.h"
  test -f "$work/prefix/include/opkit/shape/shape_inference_testutil.h"
  source=$3
else
  config=$1 source=$2
fi
libdir=$("$config" --libdir)
# shellcheck disable=SC2046
g++ "$source" -o "$work/shape_fn_test" $("$config" --cflags --libs) \
  -Wl,-rpath,"$libdir" -lgtest -lgtest_main -pthread
"$work/shape_fn_test"
