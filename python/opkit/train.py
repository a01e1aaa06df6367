"""Checkpoints as tf.train has them: save and restore variables in
TensorFlow's TensorBundle format, through the SaveV2 and RestoreV2 ops.

    v = opkit.Variable([1.0, 2.0])
    ckpt = opkit.train.Checkpoint(model=model, step=v)
    path = ckpt.save("/tmp/run/ckpt")          # "/tmp/run/ckpt-1"
    ...
    ckpt.restore(opkit.train.latest_checkpoint("/tmp/run")).assert_consumed()

Keys are the ones TensorFlow 2 writes: an object path joined by "/", then
"/.ATTRIBUTES/VARIABLE_VALUE" ("model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE",
"save_counter/.ATTRIBUTES/VARIABLE_VALUE"), so tf.train.load_checkpoint and
tf.train.list_variables read opkit's checkpoints by name and the other way
round. The object graph TensorFlow 2 restores by is stored too, under
"_CHECKPOINTABLE_OBJECT_GRAPH" (a TrackableObjectGraph message); opkit
itself restores by key.

A save writes temporary files and renames them into place, data before
index, and the "checkpoint" state file is replaced atomically after that: a
process killed during a save leaves the previous checkpoint intact and
latest_checkpoint() pointing at it. Only eager variables are saved.
"""

import codecs
import os
import re
import struct
import tempfile
import types

import numpy as np

from opkit import dtypes as _dtypes
from opkit import errors as _errors
from opkit import raw_ops as _raw_ops
from opkit.framework import Variable as _Variable
from opkit.optimizers import (  # noqa: F401 (TensorFlow 1's tf.train names)
    AdamOptimizer, GradientDescentOptimizer, MomentumOptimizer)

__all__ = ["Checkpoint", "CheckpointManager", "latest_checkpoint",
           "list_variables", "load_variable", "get_checkpoint_state",
           "GradientDescentOptimizer", "MomentumOptimizer", "AdamOptimizer"]

_VALUE_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"
_OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
_STATE_FILENAME = "checkpoint"


# --- What to save: variables found by walking the objects ---------------

class _Root:
    """The objects of a Checkpoint plus its save_counter, as one node."""

    def __init__(self, items):
        self.items = items


def _children(obj):
    """The (name, child) pairs a checkpoint follows from `obj`, as
    TensorFlow tracks them: public attributes, list/tuple items by index,
    dict items by key."""
    if isinstance(obj, _Root):
        return obj.items
    if isinstance(obj, (list, tuple)):
        return [(str(i), v) for i, v in enumerate(obj)]
    if isinstance(obj, dict):
        return [(str(k), v) for k, v in obj.items()]
    if isinstance(obj, Checkpoint):
        return list(obj._objects.items())
    attrs = getattr(obj, "__dict__", None)
    if attrs is None:
        return []
    return [(k, v) for k, v in attrs.items() if not k.startswith("_")]


def _trackable(obj):
    """Whether the walk looks into `obj`: variables, containers, and
    instances of the user's own classes (not modules, functions, classes,
    or opkit's and numpy's objects such as graphs and tensors)."""
    if isinstance(obj, (_Variable, list, tuple, dict, Checkpoint)):
        return True
    if isinstance(obj, types.ModuleType) or callable(obj):
        return False
    module = type(obj).__module__ or ""
    if module.split(".")[0] in ("opkit", "numpy", "builtins"):
        return False
    return hasattr(obj, "__dict__")


def _object_graph(root):
    """The variables under `root` by checkpoint key, and the object graph
    TensorFlow stores beside them: nodes numbered breadth first from the
    root (node 0), each with its children by local name and, for a
    variable, the key of its value. A variable reachable two ways is one
    node, saved once under its shortest path."""
    node_ids = {id(root): 0}
    nodes = [[root, [], None]]  # object, [(child node id, local name)], key
    variables = {}
    queue = [(0, "")]
    while queue:
        node_id, path = queue.pop(0)
        for name, child in _children(nodes[node_id][0]):
            if not _trackable(child):
                continue
            child_id = node_ids.get(id(child))
            if child_id is None:
                child_id = node_ids[id(child)] = len(nodes)
                child_path = f"{path}/{name}" if path else name
                key = None
                if isinstance(child, _Variable):
                    if child.graph is not None:
                        raise NotImplementedError(
                            f"Checkpoint: variable {child.name!r} ({child_path}) "
                            "belongs to a graph; checkpoints save eager variables "
                            "(create them outside `with graph.as_default():`)")
                    key = child_path + _VALUE_SUFFIX
                    variables[key] = child
                nodes.append([child, [], key])
                if key is None:
                    queue.append((child_id, child_path))
            nodes[node_id][1].append((child_id, name))
    return variables, nodes


def _variables_by_key(root):
    return _object_graph(root)[0]


def _pb_len(field, payload):
    return _pb_varint(field << 3 | 2) + _pb_varint(len(payload)) + payload


def _pb_varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _serialize_object_graph(nodes):
    """A TrackableObjectGraph message (TensorFlow's
    trackable_object_graph.proto): nodes = 1; in each, children = 1
    (node_id = 1, local_name = 2) and attributes = 2 (name = 1,
    full_name = 2, checkpoint_key = 3)."""
    out = bytearray()
    for obj, children, key in nodes:
        node = bytearray()
        for child_id, name in children:
            ref = (_pb_varint(1 << 3) + _pb_varint(child_id) if child_id else b"")
            node += _pb_len(1, ref + _pb_len(2, name.encode()))
        if key is not None:
            full_name = obj.name[:-2] if obj.name.endswith(":0") else obj.name
            node += _pb_len(2, _pb_len(1, b"VARIABLE_VALUE") +
                            _pb_len(2, full_name.encode()) + _pb_len(3, key.encode()))
        out += _pb_len(1, bytes(node))
    return bytes(out)


# --- Reading a bundle's index (to list what a checkpoint holds) ----------

def _varint(buf, pos, what):
    result = shift = 0
    while True:
        if pos >= len(buf) or shift > 63:
            raise _errors.DataLossError(f"{what}: a length is cut off")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def _block_entries(block, what):
    """The (key, value) pairs of one table block."""
    if len(block) < 4:
        raise _errors.DataLossError(f"{what}: block too short")
    num_restarts = struct.unpack_from("<I", block, len(block) - 4)[0]
    limit = len(block) - 4 - 4 * num_restarts
    if limit < 0:
        raise _errors.DataLossError(f"{what}: bad restart count")
    pos, key, out = 0, b"", []
    while pos < limit:
        shared, pos = _varint(block, pos, what)
        unshared, pos = _varint(block, pos, what)
        size, pos = _varint(block, pos, what)
        if shared > len(key) or pos + unshared + size > limit:
            raise _errors.DataLossError(f"{what}: an entry runs past its block")
        key = key[:shared] + block[pos:pos + unshared]
        pos += unshared
        out.append((bytes(key), bytes(block[pos:pos + size])))
        pos += size
    return out


def _read_block(data, handle, what):
    offset, pos = _varint(handle, 0, what)
    size, _ = _varint(handle, pos, what)
    if offset + size + 5 > len(data):
        raise _errors.DataLossError(f"{what}: a block lies outside the file")
    if data[offset + size] != 0:
        raise _errors.DataLossError(f"{what}: compressed blocks are not supported")
    return data[offset:offset + size]


def _proto_fields(buf, what):
    """The (field number, value) pairs of a serialized message: ints for
    varints and fixed32, bytes for length-delimited fields."""
    pos, out = 0, []
    while pos < len(buf):
        tag, pos = _varint(buf, pos, what)
        field, wire = tag >> 3, tag & 7
        if wire == 0:
            value, pos = _varint(buf, pos, what)
        elif wire == 2:
            n, pos = _varint(buf, pos, what)
            value, pos = bytes(buf[pos:pos + n]), pos + n
        elif wire == 5:
            value, pos = struct.unpack_from("<I", buf, pos)[0], pos + 4
        elif wire == 1:
            value, pos = struct.unpack_from("<Q", buf, pos)[0], pos + 8
        else:
            raise _errors.DataLossError(f"{what}: unparsable entry")
        out.append((field, value))
    return out


def _entries(prefix):
    """{key: (DataType number, shape)} of the bundle `prefix`, header left
    out. Damage that stops the walk is DataLossError; block checksums are
    left to RestoreV2, which checks them before it reads anything."""
    try:
        return _parse_entries(prefix)
    except (struct.error, IndexError, ValueError) as e:
        raise _errors.DataLossError(
            f"Checkpoint index {prefix}.index is corrupted: {e}") from None


def _parse_entries(prefix):
    path = prefix + ".index"
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise _errors.NotFoundError(
            f"Checkpoint index {path} not found: no checkpoint was written under "
            f"prefix {prefix}") from None
    what = f"Checkpoint index {path}"
    if len(data) < 48 or data[-8:] != b"\x57\xfb\x80\x8b\x24\x75\x47\xdb":
        raise _errors.DataLossError(f"{what} has a bad footer; the file is truncated "
                                    "or is not a checkpoint index")
    footer = data[-48:-8]
    _, pos = _varint(footer, 0, what)
    _, pos = _varint(footer, pos, what)
    index = _read_block(data, footer[pos:], what)
    result = {}
    for _, handle in _block_entries(index, what):
        for key, value in _block_entries(_read_block(data, handle, what), what):
            if not key:
                continue  # the header
            dtype, shape = 0, []
            for field, v in _proto_fields(value, what):
                if field == 1:
                    dtype = v
                elif field == 2:
                    for f2, dim in _proto_fields(v, what):
                        if f2 == 2:
                            size = dict(_proto_fields(dim, what)).get(1, 0)
                            shape.append(size - (1 << 64) if size >= 1 << 63 else size)
            result[key.decode("utf-8", "surrogateescape")] = (dtype, shape)
    return result


def _prefix_of(ckpt_dir_or_file):
    if os.path.isdir(ckpt_dir_or_file):
        prefix = latest_checkpoint(ckpt_dir_or_file)
        if prefix is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in "
                             f"given directory {ckpt_dir_or_file}")
        return prefix
    return os.fspath(ckpt_dir_or_file)


def list_variables(ckpt_dir_or_file):
    """[(key, shape)] of the tensors a checkpoint holds, sorted by key (as
    tf.train.list_variables)."""
    entries = _entries(_prefix_of(ckpt_dir_or_file))
    return [(k, list(s)) for k, (_, s) in sorted(entries.items())]


def load_variable(ckpt_dir_or_file, name):
    """The value stored under `name` as an array (tf.train.load_variable);
    a name without "/.ATTRIBUTES/..." gets the variable suffix if only that
    is stored."""
    prefix = _prefix_of(ckpt_dir_or_file)
    entries = _entries(prefix)
    if name not in entries and name + _VALUE_SUFFIX in entries:
        name += _VALUE_SUFFIX
    if name not in entries:
        raise _errors.NotFoundError(f"Key {name} not found in checkpoint {prefix}")
    return _restore(prefix, [name], [entries[name][0]])[0]


def _save(prefix, tensors):
    names = sorted(tensors)
    _raw_ops.SaveV2(prefix=prefix, tensor_names=np.array(names, dtype=object),
                    shape_and_slices=np.array([""] * len(names), dtype=object),
                    tensors=[tensors[n] for n in names])


def _restore(prefix, names, dtypes):
    out = _raw_ops.RestoreV2(prefix=prefix, tensor_names=np.array(names, dtype=object),
                             shape_and_slices=np.array([""] * len(names), dtype=object),
                             dtypes=[_dtypes.as_dtype(d) for d in dtypes])
    return list(out) if isinstance(out, (list, tuple)) else [out]


# --- The "checkpoint" state file (CheckpointState in text format) ---------

class CheckpointState:
    """What the "checkpoint" file of a folder says: the latest checkpoint
    and the ones kept (tf.train.CheckpointState's fields)."""

    def __init__(self, model_checkpoint_path, all_model_checkpoint_paths=(),
                 all_model_checkpoint_timestamps=(), last_preserved_timestamp=0.0):
        self.model_checkpoint_path = model_checkpoint_path
        self.all_model_checkpoint_paths = list(all_model_checkpoint_paths)
        self.all_model_checkpoint_timestamps = list(all_model_checkpoint_timestamps)
        self.last_preserved_timestamp = last_preserved_timestamp

    def __repr__(self):
        return _state_text(self)


def _quote(s):
    out = []
    for ch in s.encode("utf-8"):
        c = chr(ch)
        if c in "\\\"'":
            out.append("\\" + c)
        elif c == "\n":
            out.append("\\n")
        elif 32 <= ch < 127:
            out.append(c)
        else:
            out.append("\\%03o" % ch)
    return '"' + "".join(out) + '"'


def _unquote(s):
    body = s[1:-1].encode("latin-1", "backslashreplace")
    return codecs.escape_decode(body)[0].decode("utf-8", "surrogateescape")


def _state_text(state):
    lines = [f"model_checkpoint_path: {_quote(state.model_checkpoint_path)}"]
    lines += [f"all_model_checkpoint_paths: {_quote(p)}"
              for p in state.all_model_checkpoint_paths]
    lines += [f"all_model_checkpoint_timestamps: {t!r}"
              for t in state.all_model_checkpoint_timestamps]
    if state.last_preserved_timestamp:
        lines.append(f"last_preserved_timestamp: {state.last_preserved_timestamp!r}")
    return "\n".join(lines) + "\n"


_STATE_LINE = re.compile(r'^\s*(\w+)\s*:\s*("(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|\S+)\s*$')


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """The CheckpointState of the folder's state file, or None when there is
    none (tf.train.get_checkpoint_state). Relative paths are made relative
    to `checkpoint_dir`, as TensorFlow does."""
    path = os.path.join(checkpoint_dir, latest_filename or _STATE_FILENAME)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (FileNotFoundError, NotADirectoryError):
        return None
    fields = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        m = _STATE_LINE.match(line)
        if not m:
            raise ValueError(f"{path}: cannot parse line {line!r} as a CheckpointState "
                             "field; the file is corrupted (delete it to start over)")
        name, value = m.groups()
        value = _unquote(value) if value[0] in "\"'" else float(value)
        fields.setdefault(name, []).append(value)
    if "model_checkpoint_path" not in fields:
        raise ValueError(f"Invalid checkpoint state loaded from {path}: no "
                         "model_checkpoint_path")

    def absolute(p):
        return p if os.path.isabs(p) else os.path.join(checkpoint_dir, p)

    return CheckpointState(
        absolute(fields["model_checkpoint_path"][-1]),
        [absolute(p) for p in fields.get("all_model_checkpoint_paths", [])],
        fields.get("all_model_checkpoint_timestamps", []),
        (fields.get("last_preserved_timestamp") or [0.0])[-1])


def _write_state(save_dir, state):
    """Replaces the folder's state file atomically (write, fsync, rename),
    with paths relative to `save_dir` where they lie inside it."""
    def relative(p):
        if os.path.isabs(p) and os.path.dirname(p) == os.path.abspath(save_dir):
            return os.path.basename(p)
        if not os.path.isabs(p) and os.path.dirname(p) == save_dir:
            return os.path.basename(p)
        return p
    rel = CheckpointState(relative(state.model_checkpoint_path),
                          [relative(p) for p in state.all_model_checkpoint_paths],
                          state.all_model_checkpoint_timestamps,
                          state.last_preserved_timestamp)
    target = os.path.join(save_dir, _STATE_FILENAME)
    fd, tmp = tempfile.mkstemp(prefix=_STATE_FILENAME + ".tmp", dir=save_dir or ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(_state_text(rel))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The prefix of the newest checkpoint the folder's state file names,
    or None when there is none or its index is missing
    (tf.train.latest_checkpoint)."""
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state is None or not state.model_checkpoint_path:
        return None
    if os.path.exists(state.model_checkpoint_path + ".index"):
        return state.model_checkpoint_path
    return None


# --- Checkpoint -----------------------------------------------------------

class CheckpointLoadStatus:
    """What restore() matched, with TensorFlow's assertions."""

    def __init__(self, prefix, unmatched_objects, unused_keys):
        self._prefix = prefix
        self._unmatched_objects = unmatched_objects  # keys of variables not in the file
        self._unused_keys = unused_keys  # keys in the file no variable took

    def assert_consumed(self):
        """AssertionError unless every variable got a value and every value
        in the checkpoint found its variable."""
        self.assert_existing_objects_matched()
        if self._unused_keys:
            raise AssertionError(
                f"Unresolved values in checkpoint {self._prefix}: "
                f"{sorted(self._unused_keys)}; nothing in the Checkpoint's objects "
                "has these paths (use expect_partial() if that is intended)")
        return self

    def assert_existing_objects_matched(self):
        """AssertionError unless every variable got a value."""
        if self._unmatched_objects:
            raise AssertionError(
                f"Some objects had no value in checkpoint {self._prefix}: "
                f"{sorted(self._unmatched_objects)}")
        return self

    def assert_nontrivial_match(self):
        return self

    def expect_partial(self):
        return self

    def run_restore_ops(self, session=None):
        """Nothing to run: eager restores are done already."""


class InitializationOnlyStatus(CheckpointLoadStatus):
    """restore(None): nothing was restored; assert_consumed() fails."""

    def __init__(self):
        super().__init__(None, [], [])

    def assert_consumed(self):
        raise AssertionError("No checkpoint specified (save_path=None); nothing is "
                             "being restored.")

    assert_existing_objects_matched = assert_consumed


class Checkpoint:
    """Groups objects with variables to save and restore
    (tf.train.Checkpoint):

        ckpt = opkit.train.Checkpoint(model=model, optimizer_state=slots)
        ckpt.save("/tmp/run/ckpt")      # "/tmp/run/ckpt-1", then "-2", ...
        ckpt.restore(path).assert_consumed()

    Each keyword names an object: an opkit.Variable, a list, tuple or dict
    of them, or any object whose public attributes hold them (nested as
    deep as needed). `save_counter` counts save() calls and is saved too."""

    def __init__(self, root=None, **kwargs):
        objects = {}
        if root is not None:
            objects.update(_children(root))
        for name, obj in sorted(kwargs.items()):  # TensorFlow's order
            if not _trackable(obj):
                raise ValueError(
                    f"Checkpoint: `Checkpoint({name}=...)` was given a "
                    f"{type(obj).__name__}, which holds no variables; pass "
                    "opkit.Variable objects or objects that have them")
            objects[name] = obj
        object.__setattr__(self, "_objects", objects)
        object.__setattr__(self, "_save_counter", None)

    def __getattr__(self, name):
        objects = self.__dict__.get("_objects", {})
        if name in objects:
            return objects[name]
        raise AttributeError(name)

    def __setattr__(self, name, value):
        if name.startswith("_"):
            object.__setattr__(self, name, value)
        else:
            self._objects[name] = value

    @property
    def save_counter(self):
        """An int64 Variable counting the saves (created at the first save
        or restore)."""
        if self._save_counter is None:
            self._save_counter = _Variable(np.int64(0), trainable=False,
                                           name="save_counter")
        return self._save_counter

    def _root(self):
        items = list(self._objects.items())
        if self._save_counter is not None:
            items.append(("save_counter", self._save_counter))
        return _Root(items)

    def _tensors(self):
        return _variables_by_key(self._root())

    def write(self, file_prefix):
        """Saves every variable under `file_prefix` (no numbering, no state
        file) and returns the prefix."""
        file_prefix = os.fspath(file_prefix)
        variables, nodes = _object_graph(self._root())
        tensors = {k: v.numpy() for k, v in variables.items()}
        graph = np.empty((), dtype=object)
        graph[()] = _serialize_object_graph(nodes)
        tensors[_OBJECT_GRAPH_KEY] = graph
        _save(file_prefix, tensors)
        return file_prefix

    def save(self, file_prefix):
        """Saves to "<file_prefix>-<n>" for the n-th save, then records it in
        the folder's "checkpoint" state file; returns the path."""
        file_prefix = os.fspath(file_prefix)
        counter = self.save_counter
        number = int(counter.numpy()) + 1
        counter.assign(np.int64(number))
        path = self.write(f"{file_prefix}-{number}")
        _write_state(os.path.dirname(file_prefix),
                     CheckpointState(path, [path]))
        return path

    def read(self, save_path):
        """Restores the variables from `save_path` (a prefix); returns a
        CheckpointLoadStatus."""
        save_path = os.fspath(save_path)
        entries = _entries(save_path)
        if ("save_counter" + _VALUE_SUFFIX) in entries:
            self.save_counter  # noqa: B018 (created to take the saved value)
        variables = self._tensors()
        names = [k for k in variables if k in entries]
        if names:
            values = _restore(save_path, names, [variables[k].dtype for k in names])
            for name, value in zip(names, values):
                var = variables[name]
                if tuple(value.shape) != tuple(np.shape(var.numpy())):
                    raise ValueError(
                        f"Checkpoint {save_path}: {name} has shape "
                        f"{list(value.shape)}, but the variable has "
                        f"{list(np.shape(var.numpy()))}")
                var.assign(value)
        unmatched = [k for k in variables if k not in entries]
        unused = [k for k in entries if k not in variables and k != _OBJECT_GRAPH_KEY]
        return CheckpointLoadStatus(save_path, unmatched, unused)

    def restore(self, save_path):
        """read(save_path); restore(None) restores nothing, as in TensorFlow
        (so `ckpt.restore(latest_checkpoint(d))` starts fresh when there is
        no checkpoint yet)."""
        if save_path is None:
            return InitializationOnlyStatus()
        return self.read(save_path)


class CheckpointManager:
    """Keeps the newest `max_to_keep` checkpoints of a Checkpoint in a
    folder (tf.train.CheckpointManager):

        manager = opkit.train.CheckpointManager(ckpt, "/tmp/run", max_to_keep=3)
        ckpt.restore(manager.latest_checkpoint)
        manager.save()   # "/tmp/run/ckpt-1"; older ones beyond 3 are deleted
    """

    def __init__(self, checkpoint, directory, max_to_keep, checkpoint_name="ckpt"):
        if max_to_keep is not None and max_to_keep < 1:
            raise ValueError(f"max_to_keep must be None or >= 1, got {max_to_keep}")
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._prefix = os.path.join(self._directory, checkpoint_name)
        state = get_checkpoint_state(self._directory)
        self._kept = [p for p in (state.all_model_checkpoint_paths if state else [])
                      if os.path.exists(p + ".index")]

    @property
    def directory(self):
        return self._directory

    @property
    def checkpoints(self):
        """The kept checkpoints, oldest first."""
        return list(self._kept)

    @property
    def latest_checkpoint(self):
        return self._kept[-1] if self._kept else None

    def save(self, checkpoint_number=None):
        """Saves a numbered checkpoint, records it, then deletes the oldest
        beyond max_to_keep; returns the new path."""
        os.makedirs(self._directory, exist_ok=True)
        counter = self._checkpoint.save_counter
        counter.assign(np.int64(int(counter.numpy()) + 1))
        number = int(counter.numpy()) if checkpoint_number is None else int(checkpoint_number)
        path = self._checkpoint.write(f"{self._prefix}-{number}")
        self._kept = [p for p in self._kept if p != path] + [path]
        dropped = []
        if self._max_to_keep is not None:
            while len(self._kept) > self._max_to_keep:
                dropped.append(self._kept.pop(0))
        _write_state(self._directory, CheckpointState(path, self._kept))
        for old in dropped:  # after the state file no longer names them
            _delete_bundle(old)
        return path


def _delete_bundle(prefix):
    folder, base = os.path.split(prefix)
    try:
        names = os.listdir(folder or ".")
    except OSError:
        return
    for name in names:
        if name == base + ".index" or name.startswith(base + ".data-"):
            try:
                os.unlink(os.path.join(folder, name))
            except OSError:
                pass
