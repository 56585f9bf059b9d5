#!/usr/bin/env bash
# Times irlite on the workloads of the peer comparison (PyTorch, NumPy, ONNX Runtime).
#
#   scripts/bench.sh [--threads N[,N...]]... [--reps R] [WORKLOAD...]   JSON lines on stdout
#   scripts/bench.sh --compare OUT.jsonl      the peers, then irlite, into OUT.jsonl; tables
#   scripts/bench.sh --compare OUT.jsonl --real-models   only the real models of ../shared
#
# Builds build-bench as the README's commands build (RelWithDebInfo, Ninja) and runs its
# tools/irlite_bench once per workload and thread count (default: all workloads, 1 and 2 threads).
# --compare needs ../shared/peers beside the repository; without it, irlite runs alone.
# Environment: BUILD_DIR (default build-bench), JOBS (default: nproc), MODELS (with --real-models:
# the names of the models to time, separated by spaces; default all).
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
  sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
  exit "$1"
}

fail() {
  echo "bench.sh: $*" >&2
  exit 2
}

threads=()
reps=()
workloads=()
compare=""
real_only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --threads)
      [ $# -ge 2 ] || fail "$1 needs a value"
      IFS=, read -ra list <<<"$2"
      for t in "${list[@]}"; do
        [[ $t =~ ^[0-9]+$ ]] || fail "--threads $2: expected counts like 1 or 1,2"
        threads+=("$t")
      done
      shift 2
      ;;
    --reps)
      [ $# -ge 2 ] || fail "$1 needs a value"
      [[ $2 =~ ^[1-9][0-9]*$ ]] || fail "--reps $2: expected a positive count"
      reps=(--reps "$2")
      shift 2
      ;;
    --compare)
      [ $# -ge 2 ] || fail "$1 needs a value"
      compare=$2
      shift 2
      ;;
    --real-models)
      real_only=1
      shift
      ;;
    -h | --help) usage 0 ;;
    -*) fail "unknown option $1 (see scripts/bench.sh --help)" ;;
    *)
      workloads+=("$1")
      shift
      ;;
  esac
done
[ -z "$real_only" ] || [ -n "$compare" ] || fail "--real-models goes with --compare OUT.jsonl"
if [ -n "$compare" ] && ((${#threads[@]} + ${#reps[@]} + ${#workloads[@]} > 0)); then
  fail "--compare runs every workload at 1 and 2 threads with the peers' timing rules: no other options"
fi
[ ${#threads[@]} -gt 0 ] || threads=(1 2)

dir=${BUILD_DIR:-$root/build-bench}
bench=$dir/tools/irlite_bench
install_deps >&2
configure "$dir" "$test_flags"
cmake --build "$dir" --target irlite_bench -j "${JOBS:-$(nproc)}" >&2
names=$("$bench" --list)
for w in "${workloads[@]}"; do
  grep -qx -- "$w" <<<"$names" || fail "unknown workload '$w'; known: ${names//$'\n'/, }"
done
[ ${#workloads[@]} -gt 0 ] || mapfile -t workloads <<<"$names"


# One process per workload and thread count, so each line's peak_rss_mb is that run's own.
run_irlite() {
  for w in "${workloads[@]}"; do
    for t in "${threads[@]}"; do
      "$bench" --threads "$t" "${reps[@]}" --dir "$dir/bench-models" "$w"
    done
  done
}

if [ -z "$compare" ]; then
  run_irlite
  exit 0
fi

out=$(realpath -m "$compare")
mkdir -p "$(dirname "$out")"
peers=$root/../shared/peers
export PYTHONDONTWRITEBYTECODE=1
# Each --compare into the same file is one more pass (run_all.sh tags its lines the same way).
last=$(grep -o '"pass": *[0-9]*' "$out" 2>/dev/null | grep -o '[0-9]*$' | sort -n | tail -n 1 || true)
pass=$((${last:-0} + 1))
if [ -d "$peers" ]; then
  peers=$(cd "$peers" && pwd)
  apt_install python3-numpy python3-torch python3-onnx gcc >&2
  command -v node >/dev/null || fail "node (Node.js with npm) not found: the ONNX Runtime peer needs it"
  if [ ! -d "$peers/node_modules" ]; then
    echo "npm ci in $peers" >&2
    (cd "$peers" && ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund >&2)
  fi
  if [ -z "$real_only" ]; then
    echo "peers: sh $peers/run_all.sh $out $pass (a few minutes)" >&2
    sh "$peers/run_all.sh" "$out" "$pass"
  fi
else
  echo "bench.sh: no peers at $root/../shared/peers: irlite runs alone" >&2
fi
threads=(1 2)
if [ -z "$real_only" ]; then
  echo "irlite: ${#workloads[@]} workloads at 1 and 2 threads, pass $pass" >&2
  run_irlite | sed "s/^{/{\"pass\": $pass, /" >>"$out"
fi

# The MatMul workloads (mm, mm1x1) on ONNX Runtime: the core-op peers' models of the same shapes
# (B a Const), timed by the vision peers' runner, 3 warm-ups and 40 runs.
core=$peers/core_ops
mm_out=""
if [ -z "$real_only" ] && [ -f "$core/mk.py" ]; then
  mm_out=$(mktemp)
  mm_work=$(mktemp -d)
  echo "peers: ONNX Runtime on mm and mm1x1 (core_ops)" >&2
  (cd "$mm_work" && /usr/bin/python3 "$core/mk.py" >/dev/null)
  for tag in mm mm1x1; do
    node "$peers/vision/ort_run.js" "$mm_work/$tag.onnx" --name "$tag" --threads 1,2 --warmup 3 \
      --iters 40 --inputs "$mm_work/${tag}_in" </dev/null
  done | sed "s/^{/{\"pass\": $pass, /" >>"$out"
  rm -rf "$mm_work"
  grep -E '"workload": ?"mm(1x1)?"' "$out" >"$mm_out" || true
fi

# The real models of ../shared/real-models, each on the inputs of its first case there (a real
# photo, batch 1): ONNX Runtime (and, for models with PReLU, the graph with LeakyRelu) and
# PyTorch eager through the peers' vision scripts, then `irlite bench`, at 1 and 2 threads, each
# after 5 warm-ups and timed for at least 20 runs and 1 s (irlite: 2 s). The peers read the
# inputs as float32, irlite as the model declares them (the same values).
real=$root/../shared/real-models
if [ -d "$peers/vision" ] && [ -d "$real/cases" ]; then
  vision_out=$(mktemp)
  feeds=$(mktemp -d)
  trap 'rm -rf "$vision_out" "$feeds"' EXIT
  cache=${REALCV_CACHE:-/tmp/realcv_onnx_cache}
  export REALCV_CACHE=$cache
  cmake --build "$dir" --target irlite_cli -j "${JOBS:-$(nproc)}" >&2
  echo "real models: the vision peers and irlite at 1 and 2 threads (a few minutes)" >&2
  timing=(--warmup 5 --iters 20 --min-time 1)
  /usr/bin/python3 "$peers/vision/models.py" list | while read -r name xml; do
    [ -z "${MODELS:-}" ] || [[ " $MODELS " == *" $name "* ]] || continue
    # The inputs of the model's first case, as the model declares them (irlite's -i) and as
    # float32 with a manifest (the peers' --inputs).
    irlite_inputs=()
    while read -r input file; do
      irlite_inputs+=(-i "$input=$file")
    done < <(/usr/bin/python3 - "$real/cases" "$name" "$feeds/$name" <<'PY'
import json, os, sys
import numpy as np
cases, name, out = sys.argv[1:]
for case in sorted(os.listdir(cases)):
    path = os.path.join(cases, case, "case.json")
    if not os.path.exists(path):
        continue
    c = json.load(open(path))
    if c["model"] != name + ".xml":
        continue
    os.makedirs(out, exist_ok=True)
    manifest = {"inputs": {}}
    for i, item in enumerate(c["inputs"]):
        file = os.path.join(cases, case, item["file"])
        np.save(os.path.join(out, f"{i}.npy"), np.load(file).astype(np.float32))
        manifest["inputs"][item["name"]] = f"{i}.npy"
        print(item["name"], file)
    json.dump(manifest, open(os.path.join(out, "manifest.json"), "w"))
    break
PY
    )
    [ ${#irlite_inputs[@]} -gt 0 ] || { echo "real models: no case for $name, skipped" >&2; continue; }
    /usr/bin/python3 "$peers/vision/models.py" convert "$name" "$cache/$name.f32.onnx" --f32 >&2
    node "$peers/vision/ort_run.js" "$cache/$name.f32.onnx" --name "$name" --threads 1,2 \
      "${timing[@]}" --inputs "$feeds/$name" </dev/null
    if grep -q 'type="PReLU"' "$xml"; then
      /usr/bin/python3 "$peers/vision/models.py" convert "$name" "$cache/$name.leaky.onnx" --f32 --leaky >&2
      node "$peers/vision/ort_run.js" "$cache/$name.leaky.onnx" --name "$name" --threads 1,2 \
        "${timing[@]}" --inputs "$feeds/$name" --peer-name onnxruntime-leakyrelu </dev/null
    fi
    /usr/bin/python3 "$peers/vision/torch_run.py" "$xml" --name "$name" --threads 1,2 "${timing[@]}" \
      --inputs "$feeds/$name" </dev/null
    for t in 1 2; do
      runs=$("$dir/tools/irlite" bench "$xml" "${irlite_inputs[@]}" --threads "$t" --warmup 5 -t 2 --json </dev/null)
      /usr/bin/python3 -c 'import json, sys
r = json.loads(sys.argv[1])
lat = r["latency_ms"]
print(json.dumps({"peer": "irlite", "workload": sys.argv[2], "threads": int(sys.argv[3]),
                  "median_ms": lat["median"], "min_ms": lat["min"], "iters": r["iterations"],
                  "load_ms": r["load_ms"]}))' "$runs" "$name" "$t"
    done
  done | sed "s/^{/{\"pass\": $pass, /" >>"$vision_out"
  cat "$vision_out" >>"$out"
fi
if [ -d "$peers" ]; then
  [ -n "$real_only" ] || /usr/bin/python3 "$peers/summarize.py" "$out"
  if [ -n "$mm_out" ]; then
    echo
    /usr/bin/python3 "$peers/vision/summarize.py" "$mm_out" | sed '1s/^| model |/| workload |/'
    rm -f "$mm_out"
  fi
  [ -z "${vision_out:-}" ] || /usr/bin/python3 "$peers/vision/summarize.py" "$vision_out"
else
  grep '"peer": "irlite"' "$out"
fi
