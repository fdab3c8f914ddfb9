"""Reads and writes texc weights containers from the format docs/onnx.md documents ("The weights
container"), independently of texc's own reader and writer, so that onnx_import_test.sh checks both
against the document: it rewrites a container texc wrote, dropping a tensor or giving one another
shape, and compares a container's tensors with .npy files.

usage: weights_container.py rewrite IN OUT [--drop NAME] [--shape NAME=D0,D1,...]
       weights_container.py compare IN NAME=FILE.npy...   (exit 1 when a tensor differs)
"""
import struct
import sys

import numpy as np

MAGIC = b"TEXCWGTS"
DTYPES = {"f16": "<f2", "f32": "<f4", "f64": "<f8", "i8": "i1", "i16": "<i2", "i32": "<i4", "i64": "<i8",
          "u8": "u1", "u16": "<u2", "u32": "<u4", "u64": "<u8", "bool": "?"}


def read(path):
    data = open(path, "rb").read()
    assert data[:8] == MAGIC, "no magic"
    version, count = struct.unpack_from("<II", data, 8)
    assert version == 1, version
    at, tensors = 16, []
    for _ in range(count):
        (name_len,) = struct.unpack_from("<I", data, at)
        name = data[at + 4:at + 4 + name_len].decode()
        at += 4 + name_len
        dtype = data[at:at + 8].rstrip(b"\0").decode()
        (rank,) = struct.unpack_from("<I", data, at + 8)
        dims = struct.unpack_from("<%dq" % rank, data, at + 12)
        offset, nbytes = struct.unpack_from("<QQ", data, at + 12 + 8 * rank)
        at += 12 + 8 * rank + 16
        assert offset % 64 == 0
        a = np.frombuffer(data[offset:offset + nbytes], dtype=DTYPES[dtype]).reshape(dims)
        tensors.append((name, dtype, a))
    return tensors


def write(path, tensors):
    directory_end = 16 + sum(4 + len(n.encode()) + 8 + 4 + 8 * a.ndim + 16 for n, _, a in tensors)
    head = MAGIC + struct.pack("<II", 1, len(tensors))
    body, offset = b"", directory_end
    for name, dtype, a in tensors:
        offset = (offset + 63) // 64 * 64
        raw = np.ascontiguousarray(a, dtype=DTYPES[dtype]).tobytes()
        head += struct.pack("<I", len(name.encode())) + name.encode() + dtype.encode().ljust(8, b"\0")
        head += struct.pack("<I", a.ndim) + struct.pack("<%dq" % a.ndim, *a.shape) + struct.pack("<QQ", offset, len(raw))
        body += b"\0" * (offset - directory_end - len(body)) + raw
        offset += len(raw)
    assert len(head) == directory_end
    open(path, "wb").write(head + body)


def main(argv):
    if argv[0] == "rewrite":
        tensors = read(argv[1])
        args = argv[3:]
        for flag, value in zip(args[::2], args[1::2]):
            if flag == "--drop":
                tensors = [t for t in tensors if t[0] != value]
            elif flag == "--shape":
                name, dims = value.split("=")
                dims = [int(d) for d in dims.split(",")]
                tensors = [(n, d, np.resize(a, dims) if n == name else a) for n, d, a in tensors]
        write(argv[2], tensors)
        return 0
    if argv[0] == "compare":
        tensors = {n: a for n, _, a in read(argv[1])}
        for pair in argv[2:]:
            name, npy = pair.split("=")
            want = np.load(npy).reshape(-1) if name in tensors else None
            if want is None or not np.array_equal(tensors[name].reshape(-1), want):
                print("FAIL: tensor %s of %s differs from %s" % (name, argv[1], npy))
                return 1
        print("ok: %d tensors of %s match" % (len(argv) - 2, argv[1]))
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
