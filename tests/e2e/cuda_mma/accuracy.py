#!/usr/bin/env python3
"""The error of a matmul's output against an f64 reference, from `texc run --save-io DIR`.

usage: accuracy.py DIR OP A B C
Prints the largest |C - C64| over the sum of the terms' magnitudes (sum_k |A[i,k] B[k,j]|), the
measure the check against the reference uses (backends/interp/Check.h), as `max_err_vs_f64 X`.
"""
import sys

import numpy as np

d, op, a_name, b_name, c_name = sys.argv[1:6]
a = np.load(f"{d}/{op}.{a_name}.npy").astype(np.float64)
b = np.load(f"{d}/{op}.{b_name}.npy").astype(np.float64)
c = np.load(f"{d}/{op}.{c_name}.npy").astype(np.float64)
exact = a @ b
magnitude = np.abs(a) @ np.abs(b)
print(f"max_err_vs_f64 {np.max(np.abs(c - exact) / magnitude):.3e}")
