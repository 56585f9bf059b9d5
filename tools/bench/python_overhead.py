"""The Python module's calling overhead: a model's runs timed from Python beside the same runs
timed by `irlite bench`, in alternating rounds, each side's median over its timed runs.

    PYTHONPATH=build/python python3 tools/bench/python_overhead.py build/tools/irlite \\
        models/pipeline.xml indices=models/inputs/pipeline_indices.npy

Both sides load the model, make a session of --threads threads, run it --warmup times untimed,
then time --runs runs one at a time, each run's outputs dropped inside its timed span (as
`irlite bench` drops them, and as a Python caller's result goes away). The Python side times
`session.run(feed)` with time.perf_counter_ns on arrays of the inputs' dtypes, which are read
in place. It prints each round's medians and the median over the rounds of their difference.
"""

import argparse
import json
import statistics
import subprocess
import time

import numpy as np

import irlite


def python_median(model_path, feed, threads, warmup, runs):
    session = irlite.load(model_path).session(threads=threads)
    for _ in range(warmup):
        out = session.run(feed)
        del out
    times = []
    for _ in range(runs):
        start = time.perf_counter_ns()
        out = session.run(feed)
        del out
        times.append(time.perf_counter_ns() - start)
    return statistics.median(times) / 1e3


def bench_median(irlite_command, model_path, inputs, threads, warmup, runs):
    command = [irlite_command, "bench", model_path, "--threads", str(threads), "-n", str(runs),
               "--warmup", str(warmup), "--json"]
    for item in inputs:
        command += ["-i", item]
    report = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
    return report["latency_ms"]["median"] * 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("irlite", help="the irlite command")
    parser.add_argument("model", help="the model's .xml")
    parser.add_argument("inputs", nargs="*", metavar="NAME=FILE.npy")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--runs", type=int, default=1000, help="timed runs per side and round")
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    feed = {}
    for item in args.inputs:
        name, path = item.split("=", 1)
        feed[name] = np.load(path)
    print(f"{args.model}, {args.threads} thread(s), medians of {args.runs} runs after "
          f"{args.warmup} untimed, in microseconds")
    print(f"{'round':>5} {'irlite bench':>12} {'Python':>8} {'difference':>10}")
    differences = []
    for i in range(args.rounds):
        bench = bench_median(args.irlite, args.model, args.inputs, args.threads, args.warmup,
                             args.runs)
        python = python_median(args.model, feed, args.threads, args.warmup, args.runs)
        differences.append(python - bench)
        print(f"{i + 1:>5} {bench:>12.2f} {python:>8.2f} {python - bench:>10.2f}")
    print(f"median difference over {args.rounds} rounds: {statistics.median(differences):.2f} us")


if __name__ == "__main__":
    main()
