#!/usr/bin/env bash
# Installs what irlite needs (Debian 12 packages), builds it, and runs a sample model or the tests.
#
#   scripts/dev.sh run [MODEL.xml] [irlite run options...]   build, then run a model (default: models/pipeline.xml)
#   scripts/dev.sh test [--sanitize]                         build with warnings as errors, run every test
#
# Environment: BUILD_DIR (default build, or build-asan with --sanitize), JOBS (default: nproc).
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

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
