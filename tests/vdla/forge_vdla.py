#!/usr/bin/env python3
"""Forged .vdla files for vdla_sim_fuzz_test.sh: reads a valid program written by texc, changes one
field (keeping the checksum right unless asked not to) and writes the result.

usage: forge_vdla.py IN.vdla OUT.vdla FORGERY [SEED]

FORGERY (docs/vdla-format.md describes the fields):
  dram_2_40, dram_max        the DRAM size field set to 2^40 / 2^64 - 1
  gemm_max_iterations        the first GEMM iterates 16383 x 16383 times over the whole UOP buffer
  alu_max_iterations         the same for the first ALU instruction, if any (else the first GEMM)
  shape_overflow             the first tensor argument gets the shape [2^40, 2^40]
  rank_100                   the first tensor argument gets 100 dimensions of extent 1
  config_huge                the configuration entry inp_buffer_bytes set to 2^40
  config_zero                the configuration entry batch set to 0
  uops_count_max             the micro-op count set to 2^32 - 1 (the file holds far fewer)
  insns_count_max            the instruction count set to 2^32 - 1
  uop_offset_outside         the micro-op table's DRAM offset past the DRAM image
  arg_offset_outside         the first tensor argument's DRAM offset set to 2^63
  load_sram_out_of_range     the first LOAD's sram_base set to its field's maximum
  truncate                   cut at a random byte (SEED)
  trailing                   one byte appended after the checksum
  bad_checksum               one body byte changed, checksum left as it was
  flip                       one random bit of one random instruction flipped (SEED), checksum fixed
"""
import random
import struct
import sys

MAGIC = b"\x89VDLA\r\n\x1a"


def fnv1a(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


class Program:
    """The file split into its fields (docs/vdla-format.md), written back with serialize()."""

    def __init__(self, data):
        self.pos = 0
        self.data = data
        assert data[:8] == MAGIC
        self.pos = 8
        self.version, self.flags = self.u32(), self.u32()
        self.config = [(self.str_(), self.u64()) for _ in range(self.u32())]
        self.insns = [[self.u64(), self.u64()] for _ in range(self.u32())]
        self.uop_offset = self.u64()
        self.uops = [self.u32() for _ in range(self.u32())]
        self.args = []
        for _ in range(self.u32()):
            name, typ, role = self.str_(), self.str_(), self.data[self.pos]
            self.pos += 1
            shape = [self.u64() for _ in range(self.u32())]
            self.args.append([name, typ, role, shape, self.u64()])
        self.dram = self.u64()
        self.comments = [self.str_() for _ in range(self.u32())]
        self.counts = {}  # overrides of the counts written

    def u32(self):
        v = struct.unpack_from("<I", self.data, self.pos)[0]
        self.pos += 4
        return v

    def u64(self):
        v = struct.unpack_from("<Q", self.data, self.pos)[0]
        self.pos += 8
        return v

    def str_(self):
        n = self.u32()
        s = self.data[self.pos:self.pos + n]
        self.pos += n
        return s

    def serialize(self):
        out = bytearray(MAGIC)
        u32 = lambda v: out.extend(struct.pack("<I", v))
        u64 = lambda v: out.extend(struct.pack("<Q", v))
        def s(b):
            u32(len(b))
            out.extend(b)
        u32(self.version)
        u32(self.flags)
        u32(len(self.config))
        for k, v in self.config:
            s(k)
            u64(v)
        u32(self.counts.get("insns", len(self.insns)))
        for w0, w1 in self.insns:
            u64(w0)
            u64(w1)
        u64(self.uop_offset)
        u32(self.counts.get("uops", len(self.uops)))
        for u in self.uops:
            u32(u)
        u32(len(self.args))
        for name, typ, role, shape, off in self.args:
            s(name)
            s(typ)
            out.append(role)
            u32(len(shape))
            for e in shape:
                u64(e)
            u64(off)
        u64(self.dram)
        u32(len(self.comments))
        for c in self.comments:
            s(c)
        u64(fnv1a(out))
        return bytes(out)

    def config_value(self, key):
        return dict(self.config)[key.encode()]

    def set_config(self, key, value):
        self.config = [(k, value if k == key.encode() else v) for k, v in self.config]

    def uop_bits(self):
        depth = self.config_value("uop_buffer_bytes") // 4
        return max(depth - 1, 1).bit_length() if depth > 1 else 0

    def first(self, opcode):
        for i, (w0, _) in enumerate(self.insns):
            if w0 & 7 == opcode:
                return i
        return None


def put(word, lo, width, value):
    mask = ((1 << width) - 1) << lo
    return (word & ~mask) | ((value << lo) & mask)


def main():
    src, dst, forgery = sys.argv[1], sys.argv[2], sys.argv[3]
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 0)
    data = open(src, "rb").read()
    p = Program(data)
    out = None
    if forgery == "dram_2_40":
        p.dram = 1 << 40
    elif forgery == "dram_max":
        p.dram = (1 << 64) - 1
    elif forgery in ("gemm_max_iterations", "alu_max_iterations"):
        i = p.first(4) if forgery == "alu_max_iterations" else None
        if i is None:
            i = p.first(2)
        u = p.uop_bits()
        w0 = p.insns[i][0]
        # GEMM/ALU word 0 after the 7-bit header: reset, uop_begin (U), uop_end (U+1), iter_out, iter_in (14 each).
        w0 = put(w0, 7, 1, 0)
        w0 = put(w0, 8, u, 0)
        w0 = put(w0, 8 + u, u + 1, 1 << u)
        w0 = put(w0, 9 + 2 * u, 14, (1 << 14) - 1)
        w0 = put(w0, 23 + 2 * u, 14, (1 << 14) - 1)
        p.insns[i][0] = w0
    elif forgery == "shape_overflow":
        p.args[0][3] = [1 << 40, 1 << 40]
    elif forgery == "rank_100":
        p.args[0][3] = [1] * 100
    elif forgery == "config_huge":
        p.set_config("inp_buffer_bytes", 1 << 40)
    elif forgery == "config_zero":
        p.set_config("batch", 0)
    elif forgery == "uops_count_max":
        p.counts["uops"] = (1 << 32) - 1
    elif forgery == "insns_count_max":
        p.counts["insns"] = (1 << 32) - 1
    elif forgery == "uop_offset_outside":
        p.uop_offset = p.dram + 4
    elif forgery == "arg_offset_outside":
        p.args[0][4] = 1 << 63
    elif forgery == "load_sram_out_of_range":
        # A LOAD that moves data (x_size, bits 80..95, not 0); sram_base is bits 10..25.
        i = next(k for k, (w0, w1) in enumerate(p.insns) if w0 & 7 == 0 and (w1 >> 16) & 0xFFFF)
        p.insns[i][0] = put(p.insns[i][0], 10, 16, (1 << 16) - 1)
    elif forgery == "truncate":
        out = data[:rng.randrange(len(data) - 1)]
    elif forgery == "trailing":
        out = data + b"\0"
    elif forgery == "bad_checksum":
        b = bytearray(data)
        b[12] ^= 0x01  # the flags
        out = bytes(b)
    elif forgery == "flip":
        i = rng.randrange(len(p.insns))
        w = rng.randrange(2)
        p.insns[i][w] ^= 1 << rng.randrange(64)
    else:
        sys.exit("unknown forgery " + forgery)
    open(dst, "wb").write(out if out is not None else p.serialize())


if __name__ == "__main__":
    main()
