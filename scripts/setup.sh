#!/usr/bin/env bash
# Installs plansim's build dependencies (Debian 12 packages only) and configures + builds it.
# Usage: scripts/setup.sh [BUILD_DIR] [extra cmake args...]   (default build dir: build)
# Safe to re-run: apt skips installed packages, CMake and ccache reuse earlier work.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true

packages=(cmake ninja-build ccache g++ pkg-config
  libboost-graph-dev libyaml-cpp-dev catch2 libcli11-dev nlohmann-json3-dev libfmt-dev libspdlog-dev libmimalloc-dev
  gnuplot-nox libopenmpi-dev openmpi-bin chromium
  pybind11-dev python3-dev python3-pytest python3-numpy python3-pandas)
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# CUDA lives in the standard location when present; put nvcc on PATH so PLANSIM_HW=AUTO finds it.
if [ -x /usr/local/cuda/bin/nvcc ]; then export PATH=/usr/local/cuda/bin:$PATH; fi

cmake -S . -B "$build" -G Ninja "$@" >/dev/null
cmake --build "$build" -j "$(nproc)"

# `import plansim` (README "Python"): when the module was built, a .pth file in the user's site-packages
# puts <build>/python on Python's path (what `pip install -e` does); remove it to undo.
if ls "$build"/python/plansim/_plansim*.so >/dev/null 2>&1; then
  site=$(python3 -m site --user-site)
  mkdir -p "$site"
  echo "$(cd "$build/python" && pwd)" > "$site/plansim-build.pth"
  echo "setup: import plansim: $site/plansim-build.pth -> $(cat "$site/plansim-build.pth")" >&2
fi
