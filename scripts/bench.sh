#!/usr/bin/env bash
# Times irlite on the workloads of the peer comparison (PyTorch, NumPy, ONNX Runtime).
#
#   scripts/bench.sh [--threads N[,N...]]... [--reps R] [WORKLOAD...]   JSON lines on stdout
#   scripts/bench.sh --compare OUT.jsonl      the peers, then irlite, into OUT.jsonl; tables
#
# Builds build-bench as the README's commands build (RelWithDebInfo, Ninja) and runs its
# tools/irlite_bench once per workload and thread count (default: all workloads, 1 and 2 threads).
# --compare needs ../shared/peers beside the repository; without it, irlite runs alone.
# Environment: BUILD_DIR (default build-bench), JOBS (default: nproc).
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
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
    -h | --help) usage 0 ;;
    -*) fail "unknown option $1 (see scripts/bench.sh --help)" ;;
    *)
      workloads+=("$1")
      shift
      ;;
  esac
done
if [ -n "$compare" ] && ((${#threads[@]} + ${#reps[@]} + ${#workloads[@]} > 0)); then
  fail "--compare runs every workload at 1 and 2 threads with the peers' timing rules: no other options"
fi
[ ${#threads[@]} -gt 0 ] || threads=(1 2)

dir=${BUILD_DIR:-$root/build-bench}
bench=$dir/tools/irlite_bench
install_deps >&2
configure "$dir"
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
  echo "peers: sh $peers/run_all.sh $out $pass (a few minutes)" >&2
  sh "$peers/run_all.sh" "$out" "$pass"
else
  echo "bench.sh: no peers at $root/../shared/peers: irlite runs alone" >&2
fi
threads=(1 2)
echo "irlite: ${#workloads[@]} workloads at 1 and 2 threads, pass $pass" >&2
run_irlite | sed "s/^{/{\"pass\": $pass, /" >>"$out"

# The real models of ../shared/real-models: the vision peers (ONNX Runtime, PyTorch), then
# `irlite bench` on the same inputs (the photos the peers' models.py prepares), batch 1, at 1 and
# 2 threads, each after 5 warm-ups and timed for at least 20 runs and 2 s.
if [ -d "$peers/vision" ]; then
  echo "vision peers: sh $peers/vision/bench.sh 1 2 (a few minutes)" >&2
  vision_out=$(mktemp)
  trap 'rm -f "$vision_out"' EXIT
  sh "$peers/vision/bench.sh" 1 2 | sed "s/^{/{\"pass\": $pass, /" >>"$vision_out"
  cmake --build "$dir" --target irlite_cli -j "${JOBS:-$(nproc)}" >&2
  cache=${REALCV_CACHE:-/tmp/realcv_onnx_cache}
  /usr/bin/python3 "$peers/vision/models.py" list | while read -r name xml; do
    inputs=()
    while read -r input file; do
      inputs+=(-i "$input=$cache/$name/inputs/$file")
    done < <(/usr/bin/python3 -c 'import json, sys
for k, v in json.load(open(sys.argv[1]))["inputs"].items(): print(k, v)' "$cache/$name/inputs/manifest.json")
    for t in 1 2; do
      runs=$("$dir/tools/irlite" bench "$xml" "${inputs[@]}" --threads "$t" --warmup 5 -t 2 --json)
      /usr/bin/python3 -c 'import json, sys
r = json.loads(sys.argv[1])
lat = r["latency_ms"]
print(json.dumps({"pass": int(sys.argv[4]), "peer": "irlite", "workload": sys.argv[2],
                  "threads": int(sys.argv[3]), "median_ms": lat["median"], "min_ms": lat["min"],
                  "iters": r["iterations"], "load_ms": r["load_ms"]}))' "$runs" "$name" "$t" "$pass" >>"$vision_out"
    done
  done
  cat "$vision_out" >>"$out"
fi
if [ -d "$peers" ]; then
  /usr/bin/python3 "$peers/summarize.py" "$out"
  [ -z "${vision_out:-}" ] || /usr/bin/python3 "$peers/vision/summarize.py" "$vision_out"
else
  grep '"peer": "irlite"' "$out"
fi
