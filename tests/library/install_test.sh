#!/usr/bin/env bash
# Installs opkit into a scratch prefix, then builds an op library against
# the installed package three ways (find_package + opkit_add_op_library,
# the installed opkit-config, pkg-config) and loads each; then runs the
# installed command line and Python package.
#   install_test.sh BUILD_DIR SOURCE_DIR LOAD_AND_RUN
set -euo pipefail
build=$1 src=$2 load_and_run=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" > "$work/install.log"

# 1. CMake package.
mkdir "$work/consumer"
cp "$src/tests/library/plugins/value_op.cc" "$work/consumer/"
cat > "$work/consumer/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.22)
project(consumer LANGUAGES CXX)
find_package(opkit REQUIRED)
opkit_add_op_library(value SOURCES value_op.cc)
target_compile_definitions(value PRIVATE LIBTEST_RESULT=42)
CMAKE
cmake -S "$work/consumer" -B "$work/consumer/build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" > "$work/configure.log"
cmake --build "$work/consumer/build" > "$work/build.log"
"$load_and_run" "$work/consumer/build/value.so" LibTestValue 42

# 2. The installed opkit-config.
# shellcheck disable=SC2046
g++ -shared -DLIBTEST_RESULT=43 "$src/tests/library/plugins/value_op.cc" \
  -o "$work/value_config.so" $("$prefix/bin/opkit-config" --cflags --ldflags)
"$load_and_run" "$work/value_config.so" LibTestValue 43

# 3. pkg-config.
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
# shellcheck disable=SC2046
g++ -shared -fPIC -DLIBTEST_RESULT=44 "$src/tests/library/plugins/value_op.cc" \
  -o "$work/value_pc.so" $(pkg-config --cflags --libs opkit)
"$load_and_run" "$work/value_pc.so" LibTestValue 44

# 4. The installed command line and Python package run from the prefix alone
# (their RPATHs find the installed libraries), and load the library built
# against the installed package.
ops=$("$prefix/bin/opkit" --load "$work/consumer/build/value.so" ops LibTestValue)
grep -q '^LibTestValue' <<<"$ops"
if [ -d "$prefix/lib/python3/dist-packages/opkit" ]; then
  PYTHONPATH="$prefix/lib/python3/dist-packages" /usr/bin/python3 -c "
import sys, opkit
assert opkit.__file__.startswith(sys.argv[1]), opkit.__file__
lib = opkit.load_op_library(sys.argv[2])
print('installed opkit package loaded', sorted(n for n in dir(lib) if n[0].islower()))
" "$prefix" "$work/consumer/build/value.so"
fi

# 5. TensorFlow's guide command with the installed package's
# opkit.sysconfig flags (the same as the installed opkit-config's), with
# the guide's -std=c++11 first on the line.
if [ -d "$prefix/lib/python3/dist-packages/opkit" ]; then
  export PYTHONPATH="$prefix/lib/python3/dist-packages"
  # shellcheck disable=SC2207
  CFLAGS=( $(/usr/bin/python3 -c 'import opkit as tf; print(" ".join(tf.sysconfig.get_compile_flags()))') )
  # shellcheck disable=SC2207
  LFLAGS=( $(/usr/bin/python3 -c 'import opkit as tf; print(" ".join(tf.sysconfig.get_link_flags()))') )
  [ "${CFLAGS[*]}" = "$("$prefix/bin/opkit-config" --cflags)" ]
  [ "$(/usr/bin/python3 -c 'import opkit as tf; print(tf.sysconfig.get_include())')" = "$prefix/include" ]
  [ "$(/usr/bin/python3 -c 'import opkit as tf; print(tf.sysconfig.get_lib())')" = "$prefix/lib" ]
  g++ -std=c++11 -shared "$src/tests/library/plugins/value_op.cc" -o "$work/value_sysconfig.so" \
    -fPIC "${CFLAGS[@]}" "${LFLAGS[@]}" -O2 -DLIBTEST_RESULT=45
  "$load_and_run" "$work/value_sysconfig.so" LibTestValue 45
fi
