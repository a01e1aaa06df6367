"""opkit's training step time as a ratio of PyTorch's: the steps of
train_step.py at one thread count, each framework in a process of its own,
timed in turns (torch, opkit_graph, opkit_tape, repeated) so that a busy
machine slows all of them alike; prints the best time of each and the
median of the per-round ratios.

    cd bench/python && OMP_WAIT_POLICY=passive PYTHONPATH=../../build/default/python \\
        python3 train_step_ratios.py --threads=2 [--rounds=15]

One process per step: frameworks sharing a process share OpenBLAS's one
thread setting and each other's idle workers. At 2 threads on a 2-CPU
machine the per-round ratios still vary a lot (turns disturb each other
through the CPUs); compare the best times too, and --pause (seconds
between turns) shows how much the order of turns matters. Without PyTorch
it prints opkit's times only.
"""

import argparse
import multiprocessing
import statistics
import time

import train_step


def _worker(kind, threads, conn):
    """Makes the step, then answers each request for n steps with their
    mean time in ms (None ends the worker)."""
    if kind != "torch":
        train_step.configure_opkit(threads)
    step = train_step.make_step(kind, threads)
    for _ in range(5):
        step()
    conn.send("ready")
    while True:
        n = conn.recv()
        if n is None:
            return
        start = time.perf_counter()
        for _ in range(n):
            step()
        conn.send((time.perf_counter() - start) / n * 1e3)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--steps", type=int, default=30, help="steps per timing")
    parser.add_argument("--pause", type=float, default=0.0,
                        help="seconds between turns")
    args = parser.parse_args()
    kinds = (["torch"] if train_step.have_torch() else []) + ["opkit_graph", "opkit_tape"]
    context = multiprocessing.get_context("spawn")
    workers = {}
    for kind in kinds:
        parent, child = context.Pipe()
        process = context.Process(target=_worker, args=(kind, args.threads, child))
        process.start()
        workers[kind] = (process, parent)
    for _, conn in workers.values():
        conn.recv()   # every step made and warmed up
    times = {k: [] for k in kinds}
    try:
        for _ in range(args.rounds):
            for kind, (_, conn) in workers.items():
                time.sleep(args.pause)
                conn.send(args.steps)
                times[kind].append(conn.recv())
    finally:
        for process, conn in workers.values():
            conn.send(None)
            process.join()
    line = [f"threads={args.threads}"]
    line += [f"{k} {min(v):.2f} ms" for k, v in times.items()]
    if "torch" in times:
        for kind in kinds[1:]:
            ratios = [t / r for t, r in zip(times[kind], times["torch"])]
            line.append(f"{kind}/torch median {statistics.median(ratios):.2f}")
    print(", ".join(line))


if __name__ == "__main__":
    main()
