#!/usr/bin/env bash
# Installs what irlite needs (Debian 12 packages), builds it, and runs a sample model or the tests.
#
#   scripts/dev.sh run [MODEL.xml] [irlite run options...]   build, then run a model (default: models/pipeline.xml)
#   scripts/dev.sh test [--sanitize]                         build with warnings as errors, run every test
#
# Environment: BUILD_DIR (default build, or build-asan with --sanitize), JOBS (default: nproc).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
packages=(cmake ninja-build g++ pkgconf libpugixml-dev libfmt-dev doctest-dev libcli11-dev nlohmann-json3-dev)

install_deps() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "installing: ${missing[*]}" >&2
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

build() {
  local dir=$1
  shift
  cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DIRLITE_WERROR=ON "$@" >/dev/null
  cmake --build "$dir" -j "${JOBS:-$(nproc)}"
}

cmd=${1:-}
shift || true
case "$cmd" in
  run)
    install_deps
    dir=${BUILD_DIR:-$root/build}
    build "$dir" >&2
    model=${1:-$root/models/pipeline.xml}
    shift || true
    exec "$dir/tools/irlite" run "$model" "$@"
    ;;
  test)
    install_deps
    if [ "${1:-}" = "--sanitize" ]; then
      dir=${BUILD_DIR:-$root/build-asan}
      build "$dir" -DIRLITE_SANITIZE=ON
      export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    else
      dir=${BUILD_DIR:-$root/build}
      build "$dir"
    fi
    ctest --test-dir "$dir" --output-on-failure -j "${JOBS:-$(nproc)}"
    ;;
  *)
    sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
