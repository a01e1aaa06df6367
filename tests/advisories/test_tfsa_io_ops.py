"""Regression tests for the advisories against TensorFlow's checkpoint ops
and its checkpoint reader, which apply to opkit since it has SaveV2,
RestoreV2 and MergeV2Checkpoints over the same TensorBundle format. Each
feeds the advisory's input (an op call, or a crafted checkpoint whose
checksums are valid around bad contents) and asserts the error TensorFlow's
fix gives."""

import importlib.util
import pathlib

import numpy as np

import opkit

from conftest import raises

# The format writer the checkpoint tests use, to craft damaged bundles.
_spec = importlib.util.spec_from_file_location(
    "tensor_bundle_format",
    pathlib.Path(__file__).parent.parent / "python" / "tensor_bundle_format.py")
fmt = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fmt)


def _restore(prefix, name="w", dtype=opkit.float32):
    return opkit.raw_ops.RestoreV2(prefix=prefix,
                                   tensor_names=np.array([name], dtype=object),
                                   shape_and_slices=np.array([""], dtype=object),
                                   dtypes=[dtype])


def test_tfsa_2018_004_index_block_handle_overflow(tmp_path):
    # A block size near 2^64 in the index overflowed when the block trailer
    # was added, and the block was read out of bounds.
    prefix = str(tmp_path / "ckpt")
    fmt.write_bundle(prefix, {"w": np.float32([1, 2])},
                     index_handle_override=(0, (1 << 64) - 3))
    with raises("DataLoss", r"ckpt\.index.*outside the file"):
        _restore(prefix)


def test_tfsa_2021_122_save_v2_mismatched_inputs(tmp_path):
    # The advisory's call: one tensor name, no shape_and_slices, three tensors.
    with raises("InvalidArgument", r"shape_and_slices|tensor names|dimension"):
        opkit.raw_ops.SaveV2(prefix=str(tmp_path / "ckpt"), tensor_names=["v"],
                             shape_and_slices=np.array([], dtype=object),
                             tensors=[1, 2, 3])
    assert not list(tmp_path.iterdir())


def test_tfsa_2021_193_checkpoint_with_invalid_shape(tmp_path):
    # Checkpoint loading trusted the shapes, sizes and dtypes it read.
    prefix = str(tmp_path / "ckpt")
    for override, message in [({"shape": [-1, 4]}, r"'w'.*shape"),
                              ({"shape": [1 << 40, 1 << 40]}, r"'w'.*shape"),
                              ({"size": 1 << 40}, r"'w'.*bytes"),
                              ({"dtype": 12345}, r"'w'.*dtype")]:
        fmt.write_bundle(prefix, {"w": np.float32([1, 2, 3, 4])},
                         entry_overrides={"w": override})
        with raises("DataLoss", message):
            _restore(prefix)
    fmt.write_bundle(prefix, {"w": np.float32([1])}, header=fmt.header_proto(num_shards=0))
    with raises("DataLoss", r"0 data files"):
        _restore(prefix)
