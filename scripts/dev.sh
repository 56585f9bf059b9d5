#!/usr/bin/env bash
# Installs what irlite needs (Debian 12 packages), builds it, and runs a sample model or the tests.
#
#   scripts/dev.sh run [MODEL.xml] [irlite run options...]   build, then run a model (default: models/pipeline.xml)
#   scripts/dev.sh test [--sanitize | --tsan]                build with warnings as errors, run every test
#                                                            (--tsan: the threaded tests only)
#
# Environment: BUILD_DIR (default build; build-asan, build-tsan), JOBS (default: nproc).
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
    case "${1:-}" in
      --sanitize)
        dir=${BUILD_DIR:-$root/build-asan}
        build "$dir" -DIRLITE_SANITIZE=ON
        export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
        ;;
      --tsan)
        # The tests that run threads: Sessions sharing a Model, the thread pool, the kernels' splits.
        dir=${BUILD_DIR:-$root/build-tsan}
        configure "$dir" -DIRLITE_TSAN=ON
        cmake --build "$dir" --target irlite_tests -j "${JOBS:-$(nproc)}"
        export TSAN_OPTIONS=halt_on_error=1
        ctest --test-dir "$dir" --output-on-failure -j "${JOBS:-$(nproc)}" -R '^(threads|parallel):'
        exit
        ;;
      "")
        dir=${BUILD_DIR:-$root/build}
        build "$dir"
        ;;
      *)
        echo "dev.sh test: unknown option $1 (--sanitize or --tsan)" >&2
        exit 2
        ;;
    esac
    ctest --test-dir "$dir" --output-on-failure -j "${JOBS:-$(nproc)}"
    ;;
  *)
    sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
