"""opkit.train: Checkpoint save/restore of variables under TensorFlow 2's
keys, the "checkpoint" state file and latest_checkpoint, CheckpointManager,
bundles written by an independent implementation of the format
(tensor_bundle_format.py), damaged bundles, and a process killed while
saving."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import opkit
from opkit import errors

import tensor_bundle_format as fmt


class Model:
    """A plain object whose attributes hold variables, nested."""

    def __init__(self):
        self.w = opkit.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))
        self.layers = [Dense(3), Dense(1)]
        self._private = opkit.Variable(1.0)  # underscore: not tracked


class Dense:
    def __init__(self, n):
        self.kernel = opkit.Variable(np.full([n], float(n), np.float32))
        self.bias = opkit.Variable(np.zeros([n], np.float64))


def test_save_and_restore_variables(tmp_path):
    model = Model()
    step = opkit.Variable(np.int64(7))
    ckpt = opkit.train.Checkpoint(model=model, step=step)
    path = ckpt.save(str(tmp_path / "ckpt"))
    assert path == str(tmp_path / "ckpt-1")

    model.w.assign(np.zeros([2, 3], np.float32))
    model.layers[1].kernel.assign([5.0])
    step.assign(np.int64(0))
    ckpt.restore(path).assert_consumed()
    np.testing.assert_array_equal(model.w.numpy(), np.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(model.layers[1].kernel.numpy(), [1.0])
    assert step.numpy() == 7


def test_keys_are_tensorflow_2s(tmp_path):
    ckpt = opkit.train.Checkpoint(model=Model(), v=opkit.Variable([1, 2]))
    path = ckpt.save(str(tmp_path / "ckpt"))
    names = dict(opkit.train.list_variables(path))
    assert names == {
        "_CHECKPOINTABLE_OBJECT_GRAPH": [],
        "model/layers/0/bias/.ATTRIBUTES/VARIABLE_VALUE": [3],
        "model/layers/0/kernel/.ATTRIBUTES/VARIABLE_VALUE": [3],
        "model/layers/1/bias/.ATTRIBUTES/VARIABLE_VALUE": [1],
        "model/layers/1/kernel/.ATTRIBUTES/VARIABLE_VALUE": [1],
        "model/w/.ATTRIBUTES/VARIABLE_VALUE": [2, 3],
        "save_counter/.ATTRIBUTES/VARIABLE_VALUE": [],
        "v/.ATTRIBUTES/VARIABLE_VALUE": [2],
    }
    assert opkit.train.load_variable(path, "save_counter") == 1
    np.testing.assert_array_equal(opkit.train.load_variable(str(tmp_path), "v"), [1, 2])


def _decode_object_graph(blob):
    """[(children [(local name, node id)], attributes [(name, full name,
    key)])] per node of a TrackableObjectGraph."""
    fields = opkit.train._proto_fields
    nodes = []
    for _, node in fields(blob, "graph"):
        children, attributes = [], []
        for number, value in fields(node, "node"):
            sub = dict(fields(value, "field"))
            if number == 1:
                children.append((sub[2].decode(), sub.get(1, 0)))
            elif number == 2:
                attributes.append((sub[1].decode(), sub[2].decode(), sub[3].decode()))
        nodes.append((children, attributes))
    return nodes


def test_the_object_graph_tensorflow_restores_by(tmp_path):
    layer = Dense(2)
    ckpt = opkit.train.Checkpoint(layer=layer, also=[layer.kernel])
    path = ckpt.save(str(tmp_path / "ckpt"))
    blob = opkit.train.load_variable(path, "_CHECKPOINTABLE_OBJECT_GRAPH")
    nodes = _decode_object_graph(blob.item() if hasattr(blob, "item") else blob)
    # Keywords in sorted order, then breadth first: the kernel is reached
    # first through also/0, and saved under that path.
    assert nodes == [
        ([("also", 1), ("layer", 2), ("save_counter", 3)], []),
        ([("0", 4)], []),
        ([("kernel", 4), ("bias", 5)], []),  # the same kernel node
        ([], [("VARIABLE_VALUE", "save_counter",
               "save_counter/.ATTRIBUTES/VARIABLE_VALUE")]),
        ([], [("VARIABLE_VALUE", layer.kernel.name.split(":")[0],
               "also/0/.ATTRIBUTES/VARIABLE_VALUE")]),
        ([], [("VARIABLE_VALUE", layer.bias.name.split(":")[0],
               "layer/bias/.ATTRIBUTES/VARIABLE_VALUE")]),
    ]


def test_a_variable_reachable_twice_is_saved_once():
    shared = opkit.Variable(3.0)
    ckpt = opkit.train.Checkpoint(a=[shared], b={"x": shared})
    assert list(ckpt._tensors()) == ["a/0/.ATTRIBUTES/VARIABLE_VALUE"]


def test_modules_graphs_and_functions_are_not_walked():
    class Holder:
        def __init__(self):
            self.np = np
            self.graph = opkit.Graph()
            self.fn = len
            self.v = opkit.Variable(1.0)
            self.count = 3
    ckpt = opkit.train.Checkpoint(h=Holder())
    assert list(ckpt._tensors()) == ["h/v/.ATTRIBUTES/VARIABLE_VALUE"]


def test_numbered_saves_and_the_state_file(tmp_path):
    v = opkit.Variable(1.0)
    ckpt = opkit.train.Checkpoint(v=v)
    prefix = str(tmp_path / "ckpt")
    assert opkit.train.latest_checkpoint(str(tmp_path)) is None
    assert ckpt.save(prefix) == prefix + "-1"
    v.assign(2.0)
    assert ckpt.save(prefix) == prefix + "-2"
    assert opkit.train.latest_checkpoint(str(tmp_path)) == prefix + "-2"
    # TensorFlow's CheckpointState text, with paths relative to the folder.
    assert (tmp_path / "checkpoint").read_text() == (
        'model_checkpoint_path: "ckpt-2"\nall_model_checkpoint_paths: "ckpt-2"\n')
    assert not [p for p in os.listdir(tmp_path) if "tmp" in p or "tempstate" in p]

    # A new Checkpoint resumes the numbering from the restored save_counter.
    v2 = opkit.Variable(0.0)
    ckpt2 = opkit.train.Checkpoint(v=v2)
    ckpt2.restore(opkit.train.latest_checkpoint(str(tmp_path))).assert_consumed()
    assert v2.numpy() == 2.0
    assert ckpt2.save(prefix) == prefix + "-3"


def test_state_file_written_by_tensorflow_is_read(tmp_path):
    ckpt = opkit.train.Checkpoint(v=opkit.Variable(1.0))
    ckpt.write(str(tmp_path / "model.ckpt-100"))
    (tmp_path / "checkpoint").write_text(
        'model_checkpoint_path: "model.ckpt-100"\n'
        'all_model_checkpoint_paths: "model.ckpt-50"\n'
        'all_model_checkpoint_paths: "model.ckpt-100"\n'
        'all_model_checkpoint_timestamps: 1700000000.5\n'
        'last_preserved_timestamp: 1699999999.25\n')
    state = opkit.train.get_checkpoint_state(str(tmp_path))
    assert state.all_model_checkpoint_paths == [
        str(tmp_path / "model.ckpt-50"), str(tmp_path / "model.ckpt-100")]
    assert state.last_preserved_timestamp == 1699999999.25
    assert opkit.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "model.ckpt-100")
    os.unlink(tmp_path / "model.ckpt-100.index")
    assert opkit.train.latest_checkpoint(str(tmp_path)) is None


def test_write_and_read_without_numbering(tmp_path):
    v = opkit.Variable(np.float32([1, 2, 3]))
    ckpt = opkit.train.Checkpoint(v=v)
    path = ckpt.write(str(tmp_path / "sub" / "weights"))
    assert path == str(tmp_path / "sub" / "weights")
    assert not (tmp_path / "sub" / "checkpoint").exists()
    v.assign(np.float32([0, 0, 0]))
    ckpt.read(path).assert_consumed()
    np.testing.assert_array_equal(v.numpy(), [1, 2, 3])


def test_assert_consumed_reports_what_did_not_match(tmp_path):
    path = opkit.train.Checkpoint(a=opkit.Variable(1.0), b=opkit.Variable(2.0)).write(
        str(tmp_path / "ab"))
    a = opkit.Variable(0.0)
    status = opkit.train.Checkpoint(a=a).read(path)
    assert a.numpy() == 1.0
    status.assert_existing_objects_matched()
    with pytest.raises(AssertionError, match="b/.ATTRIBUTES"):
        status.assert_consumed()
    status.expect_partial()

    c = opkit.Variable(0.0)
    status = opkit.train.Checkpoint(a=opkit.Variable(0.0), c=c).read(path)
    with pytest.raises(AssertionError, match="c/.ATTRIBUTES"):
        status.assert_existing_objects_matched()
    with pytest.raises(AssertionError, match="No checkpoint"):
        opkit.train.Checkpoint(c=c).restore(None).assert_consumed()


def test_restore_with_another_dtype_names_the_variable(tmp_path):
    path = opkit.train.Checkpoint(v=opkit.Variable(np.float32([1]))).write(
        str(tmp_path / "f"))
    with pytest.raises(errors.InvalidArgumentError, match="v/.ATTRIBUTES.*int32"):
        opkit.train.Checkpoint(v=opkit.Variable(np.int32([1]))).read(path)


def test_checkpoint_refuses_objects_without_variables():
    with pytest.raises(ValueError, match="holds no variables"):
        opkit.train.Checkpoint(x=3)


def test_graph_variables_are_refused_with_a_message(tmp_path):
    g = opkit.Graph()
    with g.as_default():
        v = opkit.Variable(1.0)
    with pytest.raises(NotImplementedError, match="belongs to a graph"):
        opkit.train.Checkpoint(v=v).write(str(tmp_path / "g"))


def test_checkpoint_manager_keeps_the_newest(tmp_path):
    v = opkit.Variable(0.0)
    ckpt = opkit.train.Checkpoint(v=v)
    manager = opkit.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
    assert manager.latest_checkpoint is None
    for i in range(1, 5):
        v.assign(float(i))
        manager.save()
    assert manager.checkpoints == [str(tmp_path / "ckpt-3"), str(tmp_path / "ckpt-4")]
    assert not (tmp_path / "ckpt-1.index").exists()
    assert not (tmp_path / "ckpt-2.data-00000-of-00001").exists()
    again = opkit.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
    assert again.checkpoints == manager.checkpoints
    v.assign(0.0)
    ckpt.restore(again.latest_checkpoint).assert_consumed()
    assert v.numpy() == 4.0


# --- Bundles from another writer, and damaged ones ------------------------

def test_reads_bundles_written_from_the_format_description(tmp_path):
    prefix = str(tmp_path / "foreign")
    values = {name: arr for name, arr in [
        ("f32", np.float32([[1.5, -2], [3, 4e10]])),
        ("f64", np.float64([np.pi])),
        ("i64", np.int64([-(1 << 40), 5])),
        ("u8", np.uint8([0, 255])),
        ("flag", np.bool_([True, False, True])),
        ("half", np.float16([0.5, 65504])),
        ("scalar", np.int32(-3)),
        ("empty", np.zeros([0, 4], np.float32)),
        ("words", np.array([b"", b"x" * 200, b"caf\xc3\xa9"], dtype=object)),
    ]}
    fmt.write_bundle(prefix, values)
    assert [k for k, _ in opkit.train.list_variables(prefix)] == sorted(values)
    for name, arr in values.items():
        got = opkit.train.load_variable(prefix, name)
        assert got.shape == np.shape(arr), name
        if arr.dtype == object:
            assert list(got.ravel()) == list(arr.ravel())
        else:
            assert got.dtype == arr.dtype, name
            np.testing.assert_array_equal(got, arr)


def test_opkit_bundles_match_the_format_description(tmp_path):
    # The same tensors written by both: the data files are byte-identical.
    values = {"a": np.float32([1, 2, 3]), "s": np.array([b"ab", b""], dtype=object)}
    fmt.write_bundle(str(tmp_path / "ref"), values)
    opkit.raw_ops.SaveV2(prefix=str(tmp_path / "ok"),
                         tensor_names=np.array(sorted(values), dtype=object),
                         shape_and_slices=np.array(["", ""], dtype=object),
                         tensors=[values[k] for k in sorted(values)])
    ref = (tmp_path / "ref.data-00000-of-00001").read_bytes()
    assert (tmp_path / "ok.data-00000-of-00001").read_bytes() == ref


def _restore(prefix, name, dtype):
    return opkit.raw_ops.RestoreV2(prefix=prefix,
                                   tensor_names=np.array([name], dtype=object),
                                   shape_and_slices=np.array([""], dtype=object),
                                   dtypes=[dtype])


@pytest.mark.parametrize("override, message", [
    ({"crc": 12345}, r"'w'.*checksum mismatch"),
    ({"size": 12}, r"'w'.*records 12 bytes"),
    ({"offset": 1 << 40}, r"'w'.*past the end"),
    ({"shape": [-5, 2]}, r"'w'.*shape"),
    ({"shape": [1 << 62, 1 << 62]}, r"'w'.*shape"),
    ({"shard_id": 3}, r"'w'.*data file number 3"),
    ({"dtype": 999}, r"'w'.*unknown dtype"),
])
def test_damaged_entries_are_data_loss_naming_the_tensor(tmp_path, override, message):
    prefix = str(tmp_path / "bad")
    fmt.write_bundle(prefix, {"w": np.float32([1, 2, 3, 4])},
                     entry_overrides={"w": override})
    with pytest.raises(errors.DataLossError, match=message):
        _restore(prefix, "w", opkit.float32)


@pytest.mark.parametrize("header, error, message", [
    (fmt.header_proto(min_consumer=2), errors.InvalidArgumentError,
     "reader of format version 2 or newer"),
    (fmt.header_proto(endianness=1), errors.UnimplementedError, "big-endian"),
    (fmt.header_proto(num_shards=0), errors.DataLossError, "0 data files"),
])
def test_bundle_headers_are_checked(tmp_path, header, error, message):
    prefix = str(tmp_path / "h")
    fmt.write_bundle(prefix, {"w": np.float32([1])}, header=header)
    with pytest.raises(error, match=message):
        _restore(prefix, "w", opkit.float32)


def test_a_string_count_beyond_the_bytes_is_refused_before_allocating(tmp_path):
    prefix = str(tmp_path / "s")
    fmt.write_bundle(prefix, {"s": np.array([b"ab"], dtype=object)},
                     entry_overrides={"s": {"shape": [1 << 40]}})
    with pytest.raises(errors.DataLossError, match="'s'.*strings"):
        _restore(prefix, "s", opkit.string)


def test_damaged_data_files_are_data_loss(tmp_path):
    prefix = str(tmp_path / "ckpt")
    opkit.train.Checkpoint(w=opkit.Variable(np.float32([1, 2, 3]))).write(prefix)
    data = tmp_path / "ckpt.data-00000-of-00001"
    good = data.read_bytes()
    # The variable's 12 bytes come last (after the object graph's key).
    data.write_bytes(good[:-5] + bytes([good[-5] ^ 1]) + good[-4:])
    key = "w/.ATTRIBUTES/VARIABLE_VALUE"
    with pytest.raises(errors.DataLossError, match="checksum mismatch"):
        _restore(prefix, key, opkit.float32)
    data.write_bytes(good[:5])
    with pytest.raises(errors.DataLossError, match="past the end"):
        _restore(prefix, key, opkit.float32)
    data.unlink()
    with pytest.raises(errors.DataLossError, match="ckpt.data-00000-of-00001"):
        _restore(prefix, key, opkit.float32)


def test_damaged_indexes_are_data_loss(tmp_path):
    prefix = str(tmp_path / "ckpt")
    opkit.train.Checkpoint(w=opkit.Variable(np.float32([1, 2, 3]))).write(prefix)
    index = tmp_path / "ckpt.index"
    good = index.read_bytes()
    for bad in (good[:-1], good[:20], b"", good[:-8] + b"\0" * 8,
                bytes([good[0] ^ 4]) + good[1:]):
        index.write_bytes(bad)
        with pytest.raises(errors.DataLossError, match="ckpt.index"):
            _restore(prefix, "w/.ATTRIBUTES/VARIABLE_VALUE", opkit.float32)


def test_listing_a_damaged_index_raises_only_data_loss(tmp_path):
    prefix = str(tmp_path / "ckpt")
    opkit.train.Checkpoint(w=opkit.Variable(np.float32([1, 2])),
                           s=opkit.Variable(np.int64(3))).write(prefix)
    index = tmp_path / "ckpt.index"
    good = index.read_bytes()
    for i in range(len(good)):
        for bad in (good[:i] + bytes([good[i] ^ 0xA5]) + good[i + 1:], good[:i]):
            index.write_bytes(bad)
            try:
                opkit.train.list_variables(prefix)
            except errors.DataLossError:
                pass


def test_missing_checkpoint_is_not_found(tmp_path):
    with pytest.raises(errors.NotFoundError, match="nothing.index"):
        _restore(str(tmp_path / "nothing"), "w", opkit.float32)


# --- A process killed while saving ----------------------------------------

_SAVER = textwrap.dedent("""
    import sys
    import numpy as np
    import opkit
    v = opkit.Variable(np.zeros([8 << 20], np.float32))   # 32 MiB
    ckpt = opkit.train.Checkpoint(v=v)
    for step in range(1, 1000):
        v.assign(np.full([8 << 20], step, np.float32))
        print("saving", step, flush=True)
        ckpt.save(sys.argv[1])
        print("saved", step, flush=True)
""")


def test_killed_during_a_save_leaves_the_previous_checkpoint(tmp_path):
    prefix = str(tmp_path / "ckpt")
    proc = subprocess.Popen([sys.executable, "-c", _SAVER, prefix],
                            stdout=subprocess.PIPE, text=True, env=os.environ.copy())
    killed_at = None
    try:
        deadline = time.monotonic() + 120
        saved = 0
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            word, step = line.split()
            if word == "saved":
                saved = int(step)
            elif word == "saving" and saved >= 2:
                time.sleep(0.005 * saved)  # somewhere inside this save
                proc.send_signal(signal.SIGKILL)
                killed_at = int(step)
                break
    finally:
        proc.kill()
        proc.wait()
    assert killed_at is not None, "the saving process ended before it could be killed"
    assert proc.returncode == -signal.SIGKILL

    latest = opkit.train.latest_checkpoint(str(tmp_path))
    assert latest in (f"{prefix}-{killed_at - 1}", f"{prefix}-{killed_at}")
    if any(".tempstate" in name for name in os.listdir(tmp_path)):
        # Killed inside the save (its temporary file is left): the state
        # file still names the one before.
        assert latest == f"{prefix}-{killed_at - 1}"
    v = opkit.Variable(np.zeros([8 << 20], np.float32))
    opkit.train.Checkpoint(v=v).restore(latest).assert_consumed()
    step = int(latest.rsplit("-", 1)[1])
    values = v.numpy()
    assert values[0] == step and values[-1] == step and np.all(values == step)
