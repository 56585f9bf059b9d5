#!/usr/bin/env bash
# Installs what irlite needs (Debian 12 packages), builds it, and runs a sample model or the tests.
#
#   scripts/dev.sh run [MODEL.xml] [irlite run options...]   build the library and the command only (in
#                                                            build-run), then run a model (default:
#                                                            models/pipeline.xml)
#   scripts/dev.sh test [--sanitize | --tsan]                build with warnings as errors, run every test,
#                                                            the Python module's included (--sanitize:
#                                                            not the Python module; --tsan: the threaded
#                                                            tests only)
#   scripts/dev.sh fuzz [SECONDS]                            run each libFuzzer target (default 60 s),
#                                                            as many at once as JOBS
#
# Environment: BUILD_DIR (default build; build-run, build-asan for --sanitize and fuzz, build-tsan),
# JOBS (default: nproc).
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cmd=${1:-}
shift || true
case "$cmd" in
  run)
    # Everything but the model's outputs goes to stderr, so that stdout holds only those.
    install_run_deps
    dir=${BUILD_DIR:-$root/build-run}
    echo "dev.sh run: building the library and the irlite command in $dir (no tests)" >&2
    build_command "$dir" >&2
    model=${1:-$root/models/pipeline.xml}
    shift || true
    echo "dev.sh run: $dir/tools/irlite run $model $*" >&2
    exec "$dir/tools/irlite" run "$model" "$@"
    ;;
  test)
    install_deps
    case "${1:-}" in
      --sanitize)
        dir=${BUILD_DIR:-$root/build-asan}
        configure_sanitized "$dir"
        # The test programs and what they run (the irlite command, the example, the op timer);
        # not the benchmark programs, and the fuzz targets build in `dev.sh fuzz`.
        cmake --build "$dir" --target irlite_tests irlite_alloc_tests -j "${JOBS:-$(nproc)}"
        export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
        ;;
      --tsan)
        # The tests that run threads: Sessions sharing a Model, the thread pool, the kernels' splits.
        dir=${BUILD_DIR:-$root/build-tsan}
        configure "$dir" -DIRLITE_TSAN=ON -DIRLITE_BUILD_TOOLS=OFF "$sanitizer_flags"
        cmake --build "$dir" --target irlite_thread_tests -j "${JOBS:-$(nproc)}"
        export TSAN_OPTIONS=halt_on_error=1
        exec "$dir/tests/irlite_thread_tests"
        ;;
      "")
        # With the Python module and its pytest suite, for Debian's Python (the one whose
        # pybind11, NumPy and pytest install_deps installed).
        dir=${BUILD_DIR:-$root/build}
        build "$dir" -DIRLITE_PYTHON=ON -DPython_EXECUTABLE=/usr/bin/python3 "$test_flags"
        ;;
      *)
        echo "dev.sh test: unknown option $1 (--sanitize or --tsan)" >&2
        exit 2
        ;;
    esac
    ctest --test-dir "$dir" --output-on-failure -j "${JOBS:-$(nproc)}"
    ;;
  fuzz)
    # Every libFuzzer target under ASan + UBSan, each for SECONDS (default 60), from the seeds in
    # tests/fuzz/corpus/TARGET (and the sample models); new inputs go to build-asan/corpus/TARGET.
    # The build is the sanitized tests' (configure_sanitized), so after those only the targets'
    # own files compile.
    seconds=${1:-60}
    [[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "dev.sh fuzz: SECONDS must be a positive count" >&2; exit 2; }
    install_deps
    dir=${BUILD_DIR:-$root/build-asan}
    configure_sanitized "$dir"
    targets=(load_fuzzer run_fuzzer npy_fuzzer npz_fuzzer pieces_fuzzer image_fuzzer)
    cmake --build "$dir" --target "${targets[@]}" -j "${JOBS:-$(nproc)}"
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    # fuzz_one TARGET: runs one target, its output into build-asan/logs/TARGET.log, printed whole
    # when it ends, so that targets running side by side do not mix their lines; its exit status
    # into build-asan/logs/TARGET.status.
    fuzz_one() {
      local target=$1 name=${1%_fuzzer} status=0
      # The pieces target reads IR texts, as the load target does.
      local seeds=("$root/tests/fuzz/corpus/$([ "$name" = pieces ] && echo load || echo "$name")")
      [ "$name" = load ] && seeds+=("$root/models/invalid")
      mkdir -p "$dir/corpus/$name" "$dir/logs"
      echo "fuzz: $target for ${seconds} s" >&2
      "$dir/$target" -max_total_time="$seconds" -max_len=16384 -timeout=10 -rss_limit_mb=4096 \
        -print_final_stats=1 -artifact_prefix="$dir/logs/$name-" "$dir/corpus/$name" "${seeds[@]}" \
        >"$dir/logs/$target.log" 2>&1 || status=$?
      echo "$status" >"$dir/logs/$target.status"
      echo "fuzz: $target ($seconds s): $([ "$status" -eq 0 ] && echo clean || echo "FAILED ($status)")" >&2
      cat "$dir/logs/$target.log" >&2
    }
    # As many lanes as jobs (default: one per CPU), each running its share of the targets one
    # after another; every target runs SECONDS, so the lanes end together.
    lanes=${JOBS:-$(nproc)}
    rm -f "$dir"/logs/*.status
    for ((lane = 0; lane < lanes; ++lane)); do
      (
        for ((t = lane; t < ${#targets[@]}; t += lanes)); do fuzz_one "${targets[t]}"; done
      ) &
    done
    wait
    # The outcome of every target last, where a CI log's tail shows it, with the report of each
    # that failed (libFuzzer's, from its first error line on: the stack and the input).
    failed=0
    for target in "${targets[@]}"; do
      status=$(cat "$dir/logs/$target.status" 2>/dev/null || echo "no status")
      if [ "$status" = 0 ]; then
        echo "fuzz: $target: clean" >&2
        continue
      fi
      failed=1
      echo "fuzz: $target: FAILED ($status); its report, from $dir/logs/$target.log:" >&2
      if grep -q 'ERROR\|==[0-9][0-9]*==' "$dir/logs/$target.log"; then
        sed -n '/ERROR\|==[0-9][0-9]*==/,$p' "$dir/logs/$target.log" | head -80 >&2 || true
      else
        tail -40 "$dir/logs/$target.log" >&2
      fi
    done
    [ "$failed" -eq 0 ] || { echo "dev.sh fuzz: a target failed (its report is above)" >&2; exit 1; }
    ;;
  *)
    sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
