"""opkit's training step time as a ratio of PyTorch's, from one process:
the steps of train_step.py at one thread count, timed in turns (torch,
opkit_graph, opkit_tape, repeated) so that a busy machine slows all of them
alike; prints the best time of each and the median of the per-round ratios.

    cd bench/python && OMP_WAIT_POLICY=passive PYTHONPATH=../../build/default/python \\
        taskset -c 0,1 python3 train_step_ratios.py --threads=2 [--rounds=15]

Without PyTorch it prints opkit's times only.
"""

import argparse
import statistics
import time

import train_step


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--steps", type=int, default=30, help="steps per timing")
    args = parser.parse_args()
    train_step.configure_opkit(args.threads)
    kinds = (["torch"] if train_step.have_torch() else []) + ["opkit_graph", "opkit_tape"]
    steps = {k: train_step.make_step(k, args.threads) for k in kinds}
    for step in steps.values():
        for _ in range(5):
            step()
    times = {k: [] for k in kinds}
    for _ in range(args.rounds):
        for kind, step in steps.items():
            start = time.perf_counter()
            for _ in range(args.steps):
                step()
            times[kind].append((time.perf_counter() - start) / args.steps * 1e3)
    line = [f"threads={args.threads}"]
    line += [f"{k} {min(v):.2f} ms" for k, v in times.items()]
    if "torch" in times:
        for kind in kinds[1:]:
            ratios = [t / r for t, r in zip(times[kind], times["torch"])]
            line.append(f"{kind}/torch median {statistics.median(ratios):.2f}")
    print(", ".join(line))


if __name__ == "__main__":
    main()
