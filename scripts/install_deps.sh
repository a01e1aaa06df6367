#!/usr/bin/env bash
# Installs the Debian packages opkit's build, tests and benchmarks need,
# skipping those already present. Safe to run twice; downloads nothing but
# Debian packages. Needs root (or sudo) only when something is missing.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config
  protobuf-compiler libprotobuf-dev
  libeigen3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libabsl-dev nlohmann-json3-dev libcli11-dev libleveldb-dev
  libopenblas-dev libdnnl-dev
  pybind11-dev python3-dev python3-numpy python3-pytest python3-sklearn
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install_deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install_deps: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install_deps: done"
