"""Python wrappers generated from OpDefs, as TensorFlow's python_op_gen does.

    fn = make_op_function("ZeroOut")          # def zero_out(to_zero, name=None)
    fn([[1, 2], [3, 4]])                      # array([[1, 0], [0, 0]], dtype=int32)
    raw = make_op_function("ZeroOut", raw=True)   # ZeroOut(*, to_zero, name=None)
    mod = load_op_library("zero_out.so")      # a module: one function per op

The function is one opkit._opkit.FastOp (C, vectorcall) carrying the
generated signature: it binds positional and keyword arguments as a Python
function with that signature would (so inspect.signature and help() show
the real parameters, and binding errors are the usual TypeErrors), then
runs the op with inputs first and every attr parameter after (None when an
optional attr is left unset). numpy arrays are taken as they are; anything
else (lists, Python scalars, numpy scalars) goes through `_Converter`, which
applies TensorFlow's conversion rules.

Parameters, in TensorFlow's order: the inputs, the attrs without a default,
the attrs with a default (the OpDef's), then `name=None` (accepted and
ignored, as eager TensorFlow does). Attrs that the inputs determine (a type
attr `T` of an input, the length `N` of a list input, a list(type) attr) are
not parameters, except that a type attr may be given as a keyword-only
argument (`T=np.float32`) to choose how Python values convert.
"""

import builtins
import collections
import inspect
import keyword
import os
import types

import numpy as np

from opkit import _opkit
from opkit import dtypes as _dtypes

# TensorFlow's reserved words (python_op_gen_internal.cc IsPythonReserved):
# keywords, plus the builtins whose name does not start with a lower-case
# letter. Today's keywords are included, as is "print"/"exec" (Python 2's).
_RESERVED = (frozenset(keyword.kwlist) | frozenset(keyword.softkwlist)
             | {"exec", "print"}
             | {n for n in dir(builtins) if not n[0].islower()})
_RESERVED = _RESERVED - {"_"}


def snake_case(op_name):
    """TensorFlow's op-name-to-function-name rule: a '_' goes before an
    upper-case letter that follows a lower-case one or that is followed by a
    lower-case one; everything is lower-cased. Conv2D -> conv2d,
    BatchMatMulV2 -> batch_mat_mul_v2, LRN -> lrn. '>' (namespace separator)
    becomes '_'."""
    out = []
    last = len(op_name) - 1
    for i, c in enumerate(op_name):
        if c == ">":
            out.append("_")
            continue
        if c.isupper() and i > 0:
            prev = op_name[i - 1]
            if prev != ">" and (prev.islower() or (i < last and op_name[i + 1].islower())):
                out.append("_")
        out.append(c.lower())
    return "".join(out)


def avoid_reserved(name):
    """`name` with a trailing '_' when it is a Python keyword or reserved
    builtin (TensorFlow's AvoidPythonReserved)."""
    name = name.replace(">", "_")
    return name + "_" if name in _RESERVED else name


def function_name(op_name):
    """The snake_case Python function name of an op."""
    return avoid_reserved(snake_case(op_name))


# --- Conversion of Python values ------------------------------------------

_INT32_MIN, _INT32_MAX = -(2 ** 31), 2 ** 31 - 1
_INT64_MIN, _INT64_MAX = -(2 ** 63), 2 ** 63 - 1


def _describe(value):
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# A nested list deeper than this cannot be a tensor (TensorShape's rank
# limit); deeper input is a ValueError before Python's recursion limit.
_MAX_RANK = 254


def _leaves_and_shape(value, where, depth=0):
    """Leaves of a nested list and its shape; ValueError for a ragged one
    or one nested deeper than a tensor's rank limit."""
    if isinstance(value, (list, tuple)):
        if depth >= _MAX_RANK:
            raise ValueError(
                f"{where}: the nested list is more than {_MAX_RANK} levels "
                f"deep; a tensor has at most {_MAX_RANK} dimensions")
        shapes = []
        leaves = []
        for item in value:
            sub_leaves, sub_shape = _leaves_and_shape(item, where, depth + 1)
            shapes.append(sub_shape)
            leaves.extend(sub_leaves)
        if shapes and any(s != shapes[0] for s in shapes):
            raise ValueError(
                f"{where}: cannot convert a ragged nested list "
                f"{_describe(value)}: its sequences have different lengths "
                f"({sorted({len(s) and s[0] for s in shapes})}); pass a "
                "rectangular list or a numpy array")
        return leaves, (len(value),) + (shapes[0] if shapes else ())
    return [value], ()


def _natural_dtype(value, where, leaves=None):
    """The dtype TensorFlow would give a Python value: ints int32 (int64
    when one does not fit), floats float32, complex complex128, bools bool,
    str/bytes string; [] float32."""
    if leaves is None:
        leaves, _ = _leaves_and_shape(value, where)
    kinds = set()
    big = False
    for leaf in leaves:
        if isinstance(leaf, (bool, np.bool_)):
            kinds.add("b")
        elif isinstance(leaf, (int, np.integer)):
            kinds.add("i")
            if not _INT32_MIN <= int(leaf) <= _INT32_MAX:
                big = True
                if not _INT64_MIN <= int(leaf) <= _INT64_MAX:
                    raise ValueError(f"{where}: {leaf} does not fit in int64")
        elif isinstance(leaf, (float, np.floating)):
            kinds.add("f")
        elif isinstance(leaf, (complex, np.complexfloating)):
            kinds.add("c")
        elif isinstance(leaf, (str, bytes, np.str_, np.bytes_)):
            kinds.add("s")
        else:
            raise TypeError(
                f"{where}: cannot convert {_describe(leaf)} of type "
                f"{type(leaf).__name__} to a tensor; pass numbers, bools, "
                "strings, nested lists of them or numpy arrays")
    if not kinds:
        return np.dtype(np.float32)
    if "s" in kinds:
        if kinds != {"s"}:
            raise TypeError(f"{where}: cannot mix strings and numbers in "
                            f"{_describe(value)}")
        return np.dtype(object)
    if "b" in kinds:
        if kinds != {"b"}:
            raise TypeError(f"{where}: cannot mix bools and numbers in "
                            f"{_describe(value)}")
        return np.dtype(np.bool_)
    if "c" in kinds:
        return np.dtype(np.complex128)
    if "f" in kinds:
        return np.dtype(np.float32)
    return np.dtype(np.int64 if big else np.int32)


def _common_dtype(natural_dtypes, where):
    """The dtype a list of Python values converts to together: strings
    only with strings, bools only with bools, else the widest number."""
    kinds = {d.kind for d in natural_dtypes}
    if len(kinds) > 1 and (kinds & {"O", "b"}):
        raise TypeError(f"{where}: cannot mix strings, bools and numbers in "
                        "one list input")
    order = [np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.float32),
             np.dtype(np.complex128)]
    best = natural_dtypes[0]
    for d in natural_dtypes[1:]:
        if d in order and best in order and order.index(d) > order.index(best):
            best = d
    if best == np.dtype(np.int64) and np.dtype(np.float32) in natural_dtypes:
        best = np.dtype(np.float32)
    return best


def _compatible(natural, target):
    """Whether a Python value of dtype `natural` converts to `target`
    without losing its kind (TensorFlow refuses 1.5 -> int32)."""
    if target == natural:
        return True
    if natural.kind == "O" or target.kind == "O":
        return False
    if natural.kind == "b" or target.kind == "b":
        return False
    if natural.kind in "iu":
        return target.kind in "iufc"
    if natural.kind == "f":
        return target.kind in "fc"
    if natural.kind == "c":
        return target.kind == "c"
    return False


def to_array(value, where, target=None, preferred=None):
    """`value` as a numpy array: arrays as they are, numpy scalars as 0-d
    arrays, Python values by TensorFlow's rules (to `target` when given,
    else to `preferred` when that keeps the value's kind, else the natural
    dtype). TypeError/ValueError naming `where` when it cannot convert."""
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, np.generic):
        return np.asarray(value)
    if isinstance(value, (list, tuple)) and any(
            isinstance(e, np.ndarray) for e in value):
        # Arrays in a list are packed, as TensorFlow packs tensors in one.
        parts = [to_array(e, f"{where}[{i}]", target, preferred)
                 for i, e in enumerate(value)]
        if any(p.shape != parts[0].shape for p in parts):
            raise ValueError(f"{where}: cannot pack arrays of different shapes "
                             f"{[p.shape for p in parts]} into one tensor")
        return np.stack(parts)
    leaves, shape = _leaves_and_shape(value, where)
    natural = _natural_dtype(value, where, leaves)
    dtype = natural
    if not leaves:
        # An empty list has no kind of its own: it takes the declared
        # dtype, else the type attr's default, else float32 (TensorFlow).
        dtype = target if target is not None else (
            preferred if preferred is not None else natural)
        return np.empty(shape, dtype=dtype)
    if target is not None:
        if not _compatible(natural, target):
            raise TypeError(
                f"{where}: cannot convert {_describe(value)} to "
                f"{_name_of(target)} (the value is {_name_of(natural)})")
        dtype = target
    elif (preferred is not None and _compatible(natural, preferred)
          and not (natural.kind in "iu" and preferred.kind in "iu"
                   and natural.itemsize > preferred.itemsize)):
        # A preferred dtype is a hint, as in TensorFlow: ints too large for
        # it (natural int64 against a preferred int32) keep their own dtype.
        dtype = preferred
    if dtype.kind == "O":
        arr = np.empty(shape, dtype=object)
        arr.reshape(-1)[:] = [bytes(v) if isinstance(v, (bytes, np.bytes_))
                              else str(v).encode("utf-8") for v in leaves]
        return arr
    try:
        arr = np.array(value, dtype=dtype)
    except (OverflowError, ValueError) as e:
        raise ValueError(
            f"{where}: cannot convert {_describe(value)} to "
            f"{_name_of(dtype)}: {e}") from None
    if dtype.kind in "iu" and natural.kind in "iu":
        # numpy may wrap out-of-range ints silently.
        info = np.iinfo(dtype)
        for v in leaves:
            if not info.min <= int(v) <= info.max:
                raise ValueError(f"{where}: {v} is out of range for "
                                 f"{_name_of(dtype)}")
    return arr


def _name_of(np_dtype):
    return "string" if np_dtype.kind == "O" else np_dtype.name


def _is_arraylike_with_dtype(v):
    return isinstance(v, (np.ndarray, np.generic)) and v.dtype.kind not in "OSUV"


class SymbolicValue:
    """Base of opkit.Tensor and opkit.Variable (opkit/framework.py): what
    an op input becomes is up to them (`_as_op_input`); a graph tensor
    stays as it is, for graph mode."""

    __slots__ = ()

    def _as_op_input(self, symbolic, where):
        """The value an op call takes for this: a Tensor (graph mode,
        `symbolic`) or an array (eager)."""
        raise NotImplementedError

    def _eager_value(self):
        """The array an eager call takes for this when no conversion rule
        is needed (an eager Variable's value), else None."""
        return None


def _as_op_input(v, symbolic, where):
    if isinstance(v, SymbolicValue):
        return v._as_op_input(symbolic, where)
    if isinstance(v, (list, tuple)) and any(isinstance(e, SymbolicValue) for e in v):
        return [e._as_op_input(symbolic, where) if isinstance(e, SymbolicValue)
                else e for e in v]
    return v


def _numpy_dtype_of(v):
    """The numpy dtype a converted input has: an array's, or a symbolic
    tensor's when numpy has one (None otherwise)."""
    if isinstance(v, SymbolicValue):
        try:
            return _dtypes.to_numpy(int(v.dtype))
        except TypeError:
            return None
    return v.dtype


class _OpSpec:
    """What the generator needs to know about one OpDef, with the API
    overrides of `override` (an entry of _opkit._op_gen_overrides: renamed
    parameters and outputs, new attr defaults) applied to the Python side
    only: the op still runs under its OpDef's names."""

    def __init__(self, op_name, override=None):
        info = _opkit.op_info(op_name)
        self.info = info
        self.override = override
        self.op_name = info["name"]
        self.inputs = info["inputs"]
        self.outputs = info["outputs"]
        if override:
            defaults = override["attr_defaults"]
            info_attrs = [dict(a, has_default=True, default=defaults[a["name"]])
                          if a["name"] in defaults else a for a in info["attrs"]]
        else:
            info_attrs = info["attrs"]
        self.attrs = {a["name"]: a for a in info_attrs}
        inferred = set()
        self.input_type_attrs = []
        for arg in self.inputs:
            if arg["number_attr"]:
                inferred.add(arg["number_attr"])
            if arg["type_list_attr"]:
                inferred.add(arg["type_list_attr"])
            if arg["type_attr"]:
                inferred.add(arg["type_attr"])
                if arg["type_attr"] not in self.input_type_attrs:
                    self.input_type_attrs.append(arg["type_attr"])
        self.inferred = inferred
        visible = [a for a in info_attrs
                   if a["name"] not in inferred and not a["name"].startswith("_")]
        self.required_attrs = [a for a in visible if not a["has_default"]]
        self.default_attrs = [a for a in visible if a["has_default"]]
        # Attr values the FastOp receives after the inputs, in this order.
        self.fast_attr_names = ([a["name"] for a in self.required_attrs]
                                + [a["name"] for a in self.default_attrs]
                                + [t for t in self.input_type_attrs
                                   if self.attrs[t]["type"] == "type"])
        # Python parameter names (reserved words get a trailing '_').
        used = {"name"}
        self.param = {}
        input_renames = override["input_renames"] if override else {}
        attr_renames = override["attr_renames"] if override else {}
        for arg in self.inputs:
            self.param[("in", arg["name"])] = self._unique(
                input_renames.get(arg["name"], arg["name"]), used)
        for aname in self.fast_attr_names:
            self.param[("attr", aname)] = self._unique(attr_renames.get(aname, aname), used)

    @staticmethod
    def _unique(name, used):
        p = avoid_reserved(name)
        while p in used:
            p += "_"
        used.add(p)
        return p

    def input_params(self):
        return [self.param[("in", a["name"])] for a in self.inputs]

    def attr_params(self):
        return [self.param[("attr", n)] for n in self.fast_attr_names]


# DataType numbers of resource handles and variants; such inputs take an
# opkit.ResourceTensor / opkit.VariantTensor (an op's output) as it is.
_DT_RESOURCE = 20
_DT_VARIANT = 21


class _Converter:
    """Converts a wrapper's arguments (inputs, then attr values) to what the
    FastOp takes: every input a numpy array (a list of arrays for a list
    input), or the opkit.ResourceTensor / opkit.VariantTensor of a resource /
    variant input. Called only when some input is not already an array."""

    def __init__(self, spec):
        self.spec = spec
        self.n_inputs = len(spec.inputs)
        self._single = [not (a["number_attr"] or a["type_list_attr"])
                        for a in spec.inputs]

    def _where(self, arg):
        return (f"argument '{self.spec.param[('in', arg['name'])]}' of "
                f"{self.spec.op_name}")

    def __call__(self, *args):
        return self.convert(args, symbolic=False)

    def _read_variables(self, args):
        """The arguments with each eager Variable input replaced by its
        value, when every other input is an array already (matmul(x, w) on
        a Variable w: no conversion rule applies); None otherwise."""
        out = None
        for i, single in enumerate(self._single):
            v = args[i]
            if isinstance(v, np.ndarray):
                continue
            if not single or not isinstance(v, SymbolicValue):
                return None
            value = v._eager_value()
            if value is None:
                return None
            if out is None:
                out = list(args)
            out[i] = value
        return None if out is None else tuple(out)

    def convert(self, args, symbolic):
        """The arguments converted; with `symbolic` (graph mode), symbolic
        Tensors stay as they are and fix their type attrs as arrays do."""
        if not symbolic:
            fast = self._read_variables(args)
            if fast is not None:
                return fast
        spec = self.spec
        inputs = [_as_op_input(v, symbolic, self._where(arg))
                  for arg, v in zip(spec.inputs, args[:self.n_inputs])]
        attr_values = dict(zip(spec.fast_attr_names, args[self.n_inputs:]))
        fixed = {}
        for t in spec.input_type_attrs:
            v = attr_values.get(t)
            if v is not None:
                fixed[t] = _dtypes.to_numpy(_dtypes.as_datatype(v))
        # An input that is already an array fixes its type attr, wherever it
        # sits among the inputs (as TensorFlow's eager execution does).
        for arg, v in zip(spec.inputs, inputs):
            t = arg["type_attr"]
            if not t or t in fixed:
                continue
            items = v if (arg["number_attr"] and isinstance(v, (list, tuple))) else [v]
            for item in items:
                if _is_arraylike_with_dtype(item):
                    fixed[t] = item.dtype
                    break
                if isinstance(item, SymbolicValue):
                    dt = _numpy_dtype_of(item)
                    if dt is not None:
                        fixed[t] = dt
                    break
        out = []
        for arg, v in zip(spec.inputs, inputs):
            where = self._where(arg)
            if isinstance(v, SymbolicValue):
                out.append(v)
                continue
            if (symbolic and isinstance(v, (list, tuple))
                    and not (arg["number_attr"] or arg["type_list_attr"])
                    and any(isinstance(e, SymbolicValue) for e in v)):
                out.append(list(v))   # packed into one tensor by the graph
                continue
            if arg["type"] == _DT_RESOURCE and not arg["number_attr"]:
                if not isinstance(v, _opkit.ResourceTensor):
                    raise TypeError(
                        f"{where}: expected a resource tensor (what an op "
                        f"such as a handle op returns), got {_describe(v)}")
                out.append(v)
                continue
            if arg["type"] == _DT_VARIANT and not arg["number_attr"]:
                if not isinstance(v, _opkit.VariantTensor):
                    raise TypeError(
                        f"{where}: expected a variant tensor (what an op such "
                        f"as TensorListReserve returns), got {_describe(v)}")
                out.append(v)
                continue
            t = arg["type_attr"]
            target = None
            preferred = None
            if arg["type"]:
                target = _dtypes.to_numpy(arg["type"])
            elif t:
                target = fixed.get(t)
                default = self.spec.attrs[t]["default"] if t in self.spec.attrs else None
                if target is None and isinstance(default, int):
                    try:
                        preferred = _dtypes.to_numpy(default)
                    except TypeError:
                        preferred = None
            if arg["number_attr"] or arg["type_list_attr"]:
                if not isinstance(v, (list, tuple)):
                    raise TypeError(
                        f"Expected list for '{spec.param[('in', arg['name'])]}' "
                        f"argument to '{spec.op_name}' Op, not {_describe(v)}.")
                if arg["type_list_attr"]:
                    converted = [e if isinstance(e, SymbolicValue)
                                 else to_array(e, f"{where}[{i}]")
                                 for i, e in enumerate(v)]
                else:
                    if any(isinstance(e, SymbolicValue) for e in v):
                        out.append(list(v))
                        continue
                    if target is None and v and not any(
                            isinstance(e, (np.ndarray, np.generic)) for e in v):
                        # Python values only: one dtype for the whole list,
                        # as TensorFlow converts a list input together.
                        nat = _common_dtype(
                            [_natural_dtype(e, f"{where}[{i}]") for i, e in enumerate(v)],
                            where)
                        target = (preferred if preferred is not None
                                  and _compatible(nat, preferred) else nat)
                    converted = [to_array(e, f"{where}[{i}]", target, preferred)
                                 for i, e in enumerate(v)]
                    if t and t not in fixed and converted:
                        fixed[t] = _numpy_dtype_of(converted[0])
                out.append(converted)
            else:
                a = to_array(v, where, target, preferred)
                if t and t not in fixed:
                    fixed[t] = a.dtype
                out.append(a)
        return tuple(out) + tuple(args[self.n_inputs:])




# --- Docstrings --------------------------------------------------------------

def _type_list(values):
    return ", ".join(f"`{_dtypes.python_name(v)}`" for v in values)


def _input_doc(spec, arg, first_with_attr):
    t = arg["type_attr"]
    if arg["number_attr"]:
        n = spec.attrs[arg["number_attr"]]
        count = (f"at least {n['minimum']} " if n["has_minimum"] else "")
        if arg["type"]:
            text = (f"A list of {count}`Tensor` objects with type "
                    f"`{_dtypes.python_name(arg['type'])}`.")
        else:
            text = f"A list of {count}`Tensor` objects with the same type"
            allowed = spec.attrs[t]["allowed"] if t in spec.attrs else None
            text += (f" in: {_type_list(allowed)}." if allowed else ".")
    elif arg["type_list_attr"]:
        text = "A list of `Tensor` objects."
    elif arg["type"]:
        text = f"A `Tensor` of type `{_dtypes.python_name(arg['type'])}`."
    elif t and first_with_attr.get(t) != arg["name"]:
        other = spec.param[("in", first_with_attr[t])]
        text = f"A `Tensor`. Must have the same type as `{other}`."
    else:
        allowed = spec.attrs[t]["allowed"] if t in spec.attrs else None
        text = ("A `Tensor`. Must be one of the following types: "
                f"{_type_list(allowed)}." if allowed else "A `Tensor`.")
    if arg["description"]:
        text += " " + " ".join(arg["description"].split())
    return text


_ATTR_WORDS = {"int": "`int`", "float": "`float`", "bool": "`bool`",
               "string": "`string`", "type": "`tf.DType`", "shape": "shape",
               "tensor": "`Tensor`", "func": "function name"}


def _value_doc(attr_type, value):
    if attr_type == "type":
        return _dtypes.python_name(value)
    if attr_type == "list(type)":
        return "[" + ", ".join(_dtypes.python_name(v) for v in value) + "]"
    if attr_type in ("string",) and isinstance(value, str):
        return repr(value).replace("'", '"')
    if isinstance(value, np.ndarray):
        return repr(value.tolist())
    return repr(value)


def _attr_doc(attr, optional):
    ty = attr["type"]
    if ty.startswith("list("):
        inner = ty[5:-1]
        word = f"list of {_ATTR_WORDS.get(inner, inner).rstrip('`')}s`".replace("``", "`")
        article = "A"
    else:
        word = _ATTR_WORDS.get(ty, ty)
        article = "An" if word.lstrip("`")[0] in "aeiou" else "A"
    text = f"{'An optional' if optional else article} {word}"
    if attr["allowed"] is not None and len(attr["allowed"]) > 0:
        if ty in ("type", "list(type)"):
            text += " from: " + ", ".join(
                f"`{_dtypes.python_name(v)}`" for v in attr["allowed"])
        else:
            text += " from: " + ", ".join(
                f"`{_value_doc(ty, v)}`" for v in attr["allowed"])
    if attr["has_minimum"]:
        what = "length" if ty.startswith("list(") else ""
        text += (f" that has {what} `>= {attr['minimum']}`" if what
                 else f" that is `>= {attr['minimum']}`")
    text += "."
    if optional:
        text += f" Defaults to `{_value_doc(ty, attr['default'])}`."
    if attr["description"]:
        text += " " + " ".join(attr["description"].split())
    return text


def _output_doc(spec, arg, first_with_attr):
    t = arg["type_attr"]
    if arg["number_attr"]:
        text = f"A list of `{arg['number_attr']}` `Tensor` objects"
        if arg["type"]:
            text += f" with type `{_dtypes.python_name(arg['type'])}`."
        elif t in first_with_attr:
            text += f" with the same type as `{spec.param[('in', first_with_attr[t])]}`."
        else:
            text += f" with type `{t}`."
    elif arg["type_list_attr"]:
        text = f"A list of `Tensor` objects of type `{arg['type_list_attr']}`."
    elif arg["type"]:
        text = f"A `Tensor` of type `{_dtypes.python_name(arg['type'])}`."
    elif t in first_with_attr:
        text = f"A `Tensor`. Has the same type as `{spec.param[('in', first_with_attr[t])]}`."
    else:
        text = f"A `Tensor` of type `{t}`."
    if arg["description"]:
        text += " " + " ".join(arg["description"].split())
    return text


def _docstring(spec):
    info = spec.info
    lines = []
    lines.append(info["summary"] or f"Runs the {spec.op_name} op.")
    if info["description"]:
        lines += ["", info["description"].strip()]
    first_with_attr = {}
    for arg in spec.inputs:
        if arg["type_attr"] and arg["type_attr"] not in first_with_attr:
            first_with_attr[arg["type_attr"]] = arg["name"]
    lines += ["", "Args:"]
    for arg in spec.inputs:
        lines.append(f"  {spec.param[('in', arg['name'])]}: "
                     f"{_input_doc(spec, arg, first_with_attr)}")
    for attr in spec.required_attrs:
        lines.append(f"  {spec.param[('attr', attr['name'])]}: {_attr_doc(attr, False)}")
    for attr in spec.default_attrs:
        lines.append(f"  {spec.param[('attr', attr['name'])]}: {_attr_doc(attr, True)}")
    lines.append("  name: A name for the operation (optional; ignored in eager calls).")
    for t in spec.fast_attr_names[len(spec.required_attrs) + len(spec.default_attrs):]:
        attr = spec.attrs[t]
        allowed = ""
        if attr["allowed"]:
            allowed = " One of: " + _type_list(attr["allowed"]) + "."
        default = ""
        if attr["has_default"]:
            default = (f" Python values convert to "
                       f"`{_dtypes.python_name(attr['default'])}` by default.")
        lines.append(f"  {spec.param[('attr', t)]}: An optional `tf.DType` (keyword "
                     f"only): the type of the inputs typed `{t}`; inferred from "
                     f"them when None.{allowed}{default}")
    lines += ["", "Returns:"]
    outs = spec.outputs
    if not outs:
        lines.append("  None (the op has no outputs).")
    elif len(outs) == 1:
        lines.append("  " + _output_doc(spec, outs[0], first_with_attr))
    else:
        names = ", ".join(avoid_reserved(o["name"]) for o in outs)
        lines.append(f"  A tuple of `Tensor` objects ({names}).")
        lines.append("")
        for o in outs:
            lines.append(f"  {avoid_reserved(o['name'])}: "
                         f"{_output_doc(spec, o, first_with_attr)}")
    return "\n".join(lines)


# --- Wrapper generation -------------------------------------------------------

def _output_class(spec):
    # Named as TensorFlow's generator names it: the op name with '>'
    # (namespace separators) as '_', so "Examples>MultiplexSparse" gives
    # Examples_MultiplexSparse.
    if len(spec.outputs) < 2:
        return None
    renames = spec.override["output_renames"] if spec.override else {}
    return collections.namedtuple(
        avoid_reserved(spec.op_name), [renames.get(o["name"], o["name"]) for o in spec.outputs],
        rename=True)


def raw_function_name(op_name):
    """The tf.raw_ops name of an op: the op name, '>' as '_'
    (Addons>Gelu -> Addons_Gelu), reserved words with a trailing '_'."""
    return avoid_reserved(op_name)


_SPECS = {}


def op_spec(op_name):
    """The generator's view of op `op_name`'s OpDef (cached per op; an op
    re-registered by another library gets a new one)."""
    spec = _SPECS.get(op_name)
    if spec is None or spec.info != _opkit.op_info(op_name):
        spec = _SPECS[op_name] = _OpSpec(op_name)
    return spec


def output_class(spec):
    """The namedtuple class a multi-output op returns (None for fewer
    outputs), the same for eager and graph calls."""
    cls = getattr(spec, "output_class", False)
    if cls is False:
        cls = spec.output_class = _output_class(spec)
    return cls


def make_op_function(op_name, raw=False, module=None, override=None):
    """A Python callable running op `op_name`: snake_case with positional
    inputs (raw=False), or named like the op with keyword-only parameters
    like tf.raw_ops (raw=True; a namespaced op "Addons>Gelu" is named
    Addons_Gelu, as in TensorFlow). NotFoundError for an unknown op.

    The callable is the op's opkit._opkit.FastOp itself, given the
    generated signature (`__signature__`, checked by inspect) and binding
    arguments to it in C: a Python wrapper function around it would cost a
    frame per call.

    `override` (an entry of _opkit._op_gen_overrides) gives the function
    the API an OpGenOverrides file defines: its `rename_to` name and its
    renamed parameters, outputs and attr defaults (see api_names for
    skip, hide and aliases)."""
    spec = _OpSpec(op_name, override)
    api_name = (override or {}).get("rename_to") or spec.op_name
    fn_name = raw_function_name(api_name) if raw else function_name(api_name)
    output_class = spec.output_class = _output_class(spec)
    slot = {name: i for i, name in enumerate(
        spec.input_params() + spec.attr_params())}
    required = _opkit.REQUIRED
    Param = inspect.Parameter
    positional = Param.KEYWORD_ONLY if raw else Param.POSITIONAL_OR_KEYWORD
    entries = []   # (name, slot, default, keyword_only)
    sig_params = []

    def add(name, default, kind):
        entries.append((name, slot.get(name, -1), default,
                        kind is Param.KEYWORD_ONLY))
        sig_params.append(Param(name, kind, default=(
            Param.empty if default is required else default)))

    for p in spec.input_params():
        add(p, required, positional)
    for a in spec.required_attrs:
        add(spec.param[("attr", a["name"])], required, positional)
    for a in spec.default_attrs:
        add(spec.param[("attr", a["name"])], a["default"], positional)
    add("name", None, positional)
    inferred_types = spec.fast_attr_names[
        len(spec.required_attrs) + len(spec.default_attrs):]
    for t in inferred_types:
        add(spec.param[("attr", t)], None, Param.KEYWORD_ONLY)
    converter = _Converter(spec)
    fn = _opkit.FastOp(spec.op_name, tuple(spec.fast_attr_names),
                       converter, output_class, entries, fn_name)
    fn.__name__ = fn_name
    fn.__qualname__ = fn_name
    fn.__module__ = module or ("opkit.raw_ops" if raw else "opkit.ops")
    fn.__doc__ = _docstring(spec)
    fn.__signature__ = inspect.Signature(sig_params)
    fn.__text_signature__ = None
    fn._opkit_op_name = spec.op_name
    # For graph mode (opkit/framework.py's hook).
    fn._opkit_spec = spec
    fn._opkit_converter = converter
    if output_class is not None:
        output_class.__module__ = fn.__module__
    return fn


# --- API overrides (OpGenOverrides) --------------------------------------------

def read_op_gen_overrides(filenames, op_names):
    """{op name: override} for the ops among `op_names` that the
    OpGenOverrides text files `filenames` (a path or a comma-separated
    list of paths, or a list of paths) override. InvalidArgumentError for
    text that does not parse (file, line and column) or an attr_default
    naming an attr the op lacks; NotFoundError for a missing file."""
    if not filenames:
        return {}
    if isinstance(filenames, (list, tuple)):
        filenames = ",".join(os.fsdecode(f) for f in filenames)
    elif isinstance(filenames, (str, bytes, os.PathLike)):
        filenames = os.fsdecode(filenames)
    else:
        raise TypeError("op_gen_overrides: expected a path, a comma-separated list of "
                        f"paths or a list of paths, got {type(filenames).__name__}")
    return _opkit._op_gen_overrides(filenames, list(op_names))


def api_names(op_name, override):
    """The module attribute names under which op `op_name`'s function is
    exported, as TensorFlow's API definitions place an op: none when the
    override skips it; its snake_case name (of `rename_to` when given) and
    each alias's; with `hide`, each name with a leading '_' (importable, not
    in dir() or `from ... import *`)."""
    if override is None:
        return [function_name(op_name)]
    if override["skip"]:
        return []
    names = [function_name(override["rename_to"] or op_name)]
    names += [function_name(a) for a in override["aliases"]]
    if override["hide"]:
        names = ["_" + n for n in names]
    return names


# --- Libraries -----------------------------------------------------------------

_LIBRARIES = {}


def load_op_library(path, op_gen_overrides=None):
    """Loads the op library at `path` and returns a module with one
    snake_case function per op it registers (tf.load_op_library's
    behaviour). Loading the same file again returns the same module.
    `op_gen_overrides` (opkit's addition): OpGenOverrides text files (a
    path, a comma-separated list or a list) applied to the module's
    functions as TensorFlow applies API definitions: a skipped op has no
    function, a hidden one only a '_'-prefixed name, a renamed one its new
    name (and aliases), with renamed parameters and new attr defaults.
    NotFoundError for a missing file; InvalidArgumentError for a file that
    is not a loadable opkit library; AlreadyExistsError for an op name taken
    by a different OpDef."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise TypeError(f"load_op_library: path must be a str or path, "
                        f"got {type(path).__name__}")
    info = _opkit.load_library(os.fsdecode(path))
    resolved = info["path"]
    overrides = (read_op_gen_overrides(op_gen_overrides, info["ops"])
                 if op_gen_overrides else {})
    # One module per library and set of overrides (the plain one under the
    # path alone).
    key = resolved if not overrides else (resolved, repr(sorted(
        (op, sorted(o.items(), key=repr)) for op, o in overrides.items())))
    cached = _LIBRARIES.get(key)
    if cached is not None and cached.OP_NAMES == list(info["ops"]):
        return cached
    base = os.path.basename(resolved).split(".")[0]
    mod_name = f"opkit.libraries.{base}"
    module = types.ModuleType(mod_name, f"Ops of the opkit library {resolved}.")
    module.__file__ = resolved
    module.OP_NAMES = list(info["ops"])
    exported = []
    for op in info["ops"]:
        names = api_names(op, overrides.get(op))
        if not names:
            continue
        fn = make_op_function(op, module=mod_name, override=overrides.get(op))
        for n in names:
            setattr(module, n, fn)
            if not n.startswith("_"):
                exported.append(n)
    module.__all__ = exported
    _LIBRARIES[key] = module
    return module


def unload_op_library(library):
    """Removes what a library loaded by load_op_library registered: its ops
    and kernels (a built-in kernel it displaced wins again). `library` is the
    module load_op_library returned or the library's path. Its functions
    raise NotFoundError afterwards; loading the file again brings them back
    (and returns the same module).
    NotFoundError when no loaded library is at that path."""
    if isinstance(library, types.ModuleType):
        path = getattr(library, "__file__", None)
        if not path:
            raise TypeError(f"unload_op_library: {library.__name__} is not a "
                            f"module returned by load_op_library")
    elif isinstance(library, (str, bytes, os.PathLike)):
        path = os.fsdecode(library)
    else:
        raise TypeError(f"unload_op_library: expected a library module or "
                        f"a path, got {type(library).__name__}")
    # The module stays cached: loading the file again returns it, and its
    # functions (which find their op by name) work again.
    _opkit.unload_library(path)
