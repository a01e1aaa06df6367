"""A small writer of TensorFlow's TensorBundle format, written from the
format's description (not from opkit's code), for tests: a bundle made here
must read in opkit, and a damaged one made here (valid checksums around bad
contents) must be refused with DataLossError.

    write_bundle(prefix, {"v": np.float32([1, 2])})
    write_bundle(prefix, {"v": arr}, entry_overrides={"v": {"size": 1 << 40}})
"""

import struct

import numpy as np

_POLY = 0x82F63B78
_TABLE = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ _POLY if _c & 1 else _c >> 1
    _TABLE.append(_c)

MAGIC = struct.pack("<Q", 0xDB4775248B80FB57)

# DataType numbers (types.proto) and the numpy dtypes they store.
DTYPES = {np.dtype(np.float32): 1, np.dtype(np.float64): 2, np.dtype(np.int32): 3,
          np.dtype(np.uint8): 4, np.dtype(np.int16): 5, np.dtype(np.int8): 6,
          np.dtype(np.int64): 9, np.dtype(np.bool_): 10, np.dtype(np.uint16): 17,
          np.dtype(np.float16): 19, np.dtype(np.uint32): 22, np.dtype(np.uint64): 23}
DT_STRING = 7


def crc32c(data, crc=0):
    crc ^= 0xFFFFFFFF
    for b in data:
        crc = (crc >> 8) ^ _TABLE[(crc ^ b) & 0xFF]
    return crc ^ 0xFFFFFFFF


def mask(crc):
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def varint(n):
    out = bytearray()
    n &= (1 << 64) - 1
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _field(number, wire, payload):
    key = varint(number << 3 | wire)
    if wire == 0:
        return key + varint(payload)
    if wire == 5:
        return key + struct.pack("<I", payload)
    return key + varint(len(payload)) + payload


def entry_proto(dtype, shape, shard_id, offset, size, crc):
    dims = b"".join(_field(2, 2, _field(1, 0, d) if d else b"") for d in shape)
    out = _field(1, 0, dtype) + _field(2, 2, dims)
    if shard_id:
        out += _field(3, 0, shard_id)
    if offset:
        out += _field(4, 0, offset)
    if size:
        out += _field(5, 0, size)
    return out + _field(6, 5, crc)


def header_proto(num_shards=1, producer=1, min_consumer=0, endianness=0):
    version = (_field(1, 0, producer) if producer else b"") + (
        _field(2, 0, min_consumer) if min_consumer else b"")
    out = _field(1, 0, num_shards) if num_shards else b""
    if endianness:
        out += _field(2, 0, endianness)
    return out + _field(3, 2, version)


def block(entries):
    """One table block of (key, value) pairs, keys whole (one restart)."""
    body = b"".join(varint(0) + varint(len(k)) + varint(len(v)) + k + v
                    for k, v in entries)
    return body + struct.pack("<II", 0, 1)


def table(entries, index_handle_override=None):
    """An SSTable (LevelDB's layout, uncompressed) holding sorted `entries`."""
    out = bytearray()

    def put(contents):
        offset = len(out)
        out.extend(contents + b"\0")
        out.extend(struct.pack("<I", mask(crc32c(contents + b"\0"))))
        return offset, len(contents)

    data_offset, data_size = put(block(entries))
    meta_offset, meta_size = put(block([]))
    handle = index_handle_override or (data_offset, data_size)
    index_offset, index_size = put(block([(entries[-1][0] + b"\xff",
                                           varint(handle[0]) + varint(handle[1]))]))
    footer = (varint(meta_offset) + varint(meta_size) + varint(index_offset) +
              varint(index_size))
    out.extend(footer + b"\0" * (40 - len(footer)) + MAGIC)
    return bytes(out)


def tensor_bytes(arr):
    """The data-file bytes of `arr` and their CRC32C (unmasked)."""
    if arr.dtype == object:
        values = [v if isinstance(v, bytes) else str(v).encode() for v in arr.ravel()]
        lengths = b"".join(varint(len(v)) for v in values)
        crc = crc32c(b"".join(struct.pack("<I", len(v)) for v in values))
        length_crc = struct.pack("<I", mask(crc))
        crc = crc32c(length_crc, crc)
        body = b"".join(values)
        return lengths + length_crc + body, crc32c(body, crc)
    data = np.ascontiguousarray(arr).tobytes()
    return data, crc32c(data)


def write_bundle(prefix, tensors, entry_overrides=None, header=None,
                 index_handle_override=None):
    """Writes `tensors` ({name: array}) as the bundle `prefix`. An entry's
    fields (dtype, shape, shard_id, offset, size, crc) can be replaced by
    `entry_overrides[name]` to make a damaged bundle with valid checksums."""
    data = bytearray()
    entries = [(b"", header if header is not None else header_proto())]
    for name in sorted(tensors):
        arr = np.asarray(tensors[name])
        payload, crc = tensor_bytes(arr)
        fields = dict(dtype=DT_STRING if arr.dtype == object else DTYPES[arr.dtype],
                      shape=list(arr.shape), shard_id=0, offset=len(data),
                      size=len(payload), crc=mask(crc))
        fields.update((entry_overrides or {}).get(name, {}))
        data.extend(payload)
        entries.append((name.encode(), entry_proto(**fields)))
    with open(f"{prefix}.data-00000-of-00001", "wb") as f:
        f.write(data)
    with open(f"{prefix}.index", "wb") as f:
        f.write(table(entries, index_handle_override))
