# Writes the .npy fixtures of tests/cli and tools/opkit/npy_test.cc with
# numpy itself (run with /usr/bin/python3 from this folder).
import numpy as np

np.save("x_2x2_float32.npy", np.array([[1, 2], [3, 4]], dtype=np.float32))
np.save("x_3x2_float32.npy", np.array([[1, 0], [0, 1], [-1, 1]], dtype=np.float32))
np.save("x_int32.npy", np.array([[1, 2], [3, 4]], dtype=np.int32))
np.save("big_f64_be.npy", np.arange(6, dtype=">f8").reshape(2, 3))
np.save("bool_vec.npy", np.array([True, False, True]))
np.save("complex64_scalar.npy", np.array(1.5 - 2j, dtype=np.complex64))
np.save("float16_empty.npy", np.zeros((0, 3), dtype=np.float16))
np.save("uint16_3d.npy", np.arange(24, dtype=np.uint16).reshape(2, 3, 4))
np.save("fortran.npy", np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)))
np.save("object.npy", np.array([1, "a", None], dtype=object), allow_pickle=True)
with open("v2_int64.npy", "wb") as f:
    np.lib.format.write_array(f, np.arange(5, dtype=np.int64), version=(2, 0))
with open("v3_float32.npy", "wb") as f:
    np.lib.format.write_array(f, np.arange(4, dtype=np.float32), version=(3, 0))
np.save("limit_5.npy", np.int32(5))
np.save("limit_max.npy", np.int32(2**31 - 1))
# tfjs_matmul_relu/: matmul_relu.pbtxt's w = [[1, -1], [2, 0.5]] as a TF.js
# uint8-quantised weight (scale 0.5, min -1: q = (w + 1) / 0.5); model.json
# is hand-written.
w = np.array([[1, -1], [2, 0.5]], dtype=np.float32)
((w + 1) / 0.5).astype("<u1").tofile("tfjs_matmul_relu/group1-shard1of1.bin")
