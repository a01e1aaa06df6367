"""Runs a GraphDef from Python for mobilenet_v2_test.cc: opkit.load_graph
reads MODEL, an opkit.Session feeds INPUT.npy to NAME and each fetched tensor
is saved to OUT_DIR/<fetch with '/' and ':' as '_'>.npy. With --load LIB the
op library is loaded first (opkit.load_op_library), so its kernels run.

    run_graph.py MODEL NAME INPUT.npy OUT_DIR FETCH... [--load LIB]
"""
import argparse
import os

import numpy as np

import opkit


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("input_name")
    parser.add_argument("input")
    parser.add_argument("out_dir")
    parser.add_argument("fetches", nargs="+")
    parser.add_argument("--load", action="append", default=[])
    args = parser.parse_args()
    for lib in args.load:
        opkit.load_op_library(lib)
    graph = opkit.load_graph(args.model)
    with opkit.Session(graph) as session:
        outputs = session.run(list(args.fetches), {args.input_name: np.load(args.input)})
    for name, value in zip(args.fetches, outputs):
        file = name.replace("/", "_").replace(":", "_") + ".npy"
        np.save(os.path.join(args.out_dir, file), value)


if __name__ == "__main__":
    main()
