#!/usr/bin/env bash
# The README's first command: set up, build, and run the tour of opkit: the
# C++ tour (examples/tour/tour.cc), then a glance at the same runtime from
# the command line and from Python (examples/tour/tour.py), then training on
# a real data set (examples/train_digits/train_digits.py).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh default
b=build/default
zero_out="$b/examples/zero_out/zero_out.so"
blas="$b/examples/blas_matmul/blas_matmul.so"

# When blas_matmul.so does float GEMM on oneDNN, OpenBLAS serves only its
# double kernel, which the tour does not time. OpenBLAS's threaded build
# starts a worker per core when it is loaded, and idle workers spin for a
# while: on a 2-core machine that made the tour's float timings, of oneDNN
# and of the built-in kernel alike, up to 2x slower in some runs.
if [ -z "${OPENBLAS_NUM_THREADS:-}" ] && [ -f "$blas" ] &&
   readelf -d "$blas" 2>/dev/null | grep -q 'libdnnl'; then
  export OPENBLAS_NUM_THREADS=1
fi

"$b/examples/tour/opkit_tour" "$@"

printf '\n== The same from the command line (%s)\n' "$b/bin/opkit"
opkit() {
  printf '\n$ opkit %s\n' "$*"
  "$b/bin/opkit" "$@"
}
opkit --load "$zero_out" ops 'ZeroOut*'
if [ -f "$blas" ]; then opkit load "$blas"; fi
opkit shapes tests/cli/testdata/matmul_relu.pbtxt --feed-shape 'x=[8,2]'

# A whole model timed with the built-in kernels, with oneDNN's kernels for
# its convolutions and products loaded from a library, and with the library
# unloaded again, nothing rebuilt: `bench --load` names the nodes the
# library's kernels run and checks that each phase's outputs match the
# built-in ones (it fails the tour when they do not). The model is MobileNetV2
# when bench/ is built (OPKIT_BUILD_BENCHMARKS=ON gives bin/make_mobilenet_v2),
# otherwise the small CNN of the command-line tests.
onednn="$b/examples/onednn_kernels/onednn_kernels.so"
if [ -f "$onednn" ]; then
  # libgomp's idle threads spin by default, which on a 2-core machine slows
  # everything else down (examples/onednn_kernels/README.md).
  export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}"
  if [ -x "$b/bin/make_mobilenet_v2" ]; then
    model="$b/mobilenet_v2.pb"
    "$b/bin/make_mobilenet_v2" "$model" >/dev/null
    opkit bench "$model" --runs 10 --load "$onednn"
  else
    opkit bench tests/cli/testdata/conv_dense.pbtxt --input-shape x=64,8,8,3 --runs 30 \
      --load "$onednn"
  fi
fi

if [ -f "$b/python/opkit/__init__.py" ]; then
  extra=()
  if [ -f "$blas" ]; then extra=("$blas"); fi
  OPKIT_MIN_LOG_LEVEL=1 PYTHONPATH="$b/python" /usr/bin/python3 examples/tour/tour.py \
    "$zero_out" "${extra[@]}"
  # Training with opkit's gradients: an MLP in graph mode and a conv net on
  # the GradientTape, on scikit-learn's 8x8 digits (examples/train_digits).
  printf '\n== Training on scikit-learn'"'"'s digits (examples/train_digits/train_digits.py)\n'
  OPKIT_MIN_LOG_LEVEL=1 PYTHONPATH="$b/python" /usr/bin/python3 \
    examples/train_digits/train_digits.py
fi
