"""opkit's training step time as a ratio of PyTorch's: the steps of
train_step.py at one thread count, each framework in a process of its own,
timed in turns (torch, opkit_graph, opkit_tape, each round starting one
further along) so that a busy machine slows all of them alike; prints the
best time of each and the median of the per-round ratios.

    cd bench/python && OMP_WAIT_POLICY=passive PYTHONPATH=../../build/default/python \\
        python3 train_step_ratios.py --threads=2 [--rounds=15]

One process per step: frameworks sharing a process share OpenBLAS's one
thread setting and each other's idle workers. Turns are --pause seconds
apart (default 0.25) and begin with --warmup untimed steps (default 5):
after 30 steps at 2 threads PyTorch's process keeps a CPU busy for about
120 ms with nothing to do (its idle workers spin before they sleep; opkit's
processes use none), so without the pause the turn after PyTorch's ran on
one CPU; the warm-up steps wake each framework's sleeping threads before
the clock starts. The order rotates each round, so no framework always
follows the same one. Without PyTorch it prints opkit's times only.
"""

import argparse
import multiprocessing
import statistics
import time

import train_step


def _worker(kind, threads, conn):
    """Makes the step, then answers each request (n, warmup) with the mean
    time in ms of n steps run after `warmup` untimed ones (None ends the
    worker)."""
    if kind != "torch":
        train_step.configure_opkit(threads)
    step = train_step.make_step(kind, threads)
    for _ in range(5):
        step()
    conn.send("ready")
    while True:
        request = conn.recv()
        if request is None:
            return
        n, warmup = request
        for _ in range(warmup):
            step()
        start = time.perf_counter()
        for _ in range(n):
            step()
        conn.send((time.perf_counter() - start) / n * 1e3)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--steps", type=int, default=30, help="steps per timing")
    parser.add_argument("--warmup", type=int, default=5,
                        help="untimed steps at the start of each turn")
    parser.add_argument("--pause", type=float, default=0.25,
                        help="seconds between turns, for idle threads to sleep")
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
        for round_ in range(args.rounds):
            shift = round_ % len(kinds)
            for kind in kinds[shift:] + kinds[:shift]:
                conn = workers[kind][1]
                time.sleep(args.pause)
                conn.send((args.steps, args.warmup))
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
