#!/usr/bin/env python3
"""Counts the vector register spills and reloads in the innermost loops of x86-64 assembly (AT&T, as
`texc --emit asm` writes it): the instructions between a label and the last backward jump to it
that contain no other such loop, whose operands name a vector register (xmm/ymm/zmm) and a stack
slot (an address off %rsp, or off %rbp in a function that makes %rbp its frame pointer with
`movq %rsp, %rbp`; elsewhere %rbp is one more general register, e.g. the pointer an input's
broadcasts read through). Prints one line per innermost loop ("LABEL: N spills, M fma")
and exits 1 when a loop with FMAs (a micro-kernel) has any spill, else 0. With --steady, only
the loops with the most FMAs (the steady-state micro-kernel, not the ragged tails) count.

usage: asm_loop_spills.py [--steady] FILE.s"""
import re
import sys

LABEL = re.compile(r'^(\.?[A-Za-z_$][\w.$]*):')
JUMP = re.compile(r'^\s+j[a-z]+\s+(\.?[A-Za-z_$][\w.$]*)\s*$')
STACK_VECTOR = re.compile(r'%[xyz]mm\d+.*\(%r[sb]p\)|\(%r[sb]p\).*%[xyz]mm\d+')
RSP_VECTOR = re.compile(r'%[xyz]mm\d+.*\(%rsp\)|\(%rsp\).*%[xyz]mm\d+')
FUNCTION = re.compile(r'^([A-Za-z_$][\w.$]*):')  # a function's label (local labels start with '.')
FRAME_POINTER = re.compile(r'^\s+movq\s+%rsp, %rbp\s*$')
FMA = re.compile(r'^\s+vfn?m(add|sub)')


def innermost_loops(lines):
    labels = {}
    loops = []  # (start, end, label)
    for i, line in enumerate(lines):
        m = LABEL.match(line)
        if m:
            labels[m.group(1)] = i
            continue
        m = JUMP.match(line)
        if m and m.group(1) in labels and labels[m.group(1)] < i:
            loops.append((labels[m.group(1)], i, m.group(1)))
    # One range per label: the last backward jump closes it.
    by_label = {}
    for start, end, label in loops:
        if label not in by_label or by_label[label][1] < end:
            by_label[label] = (start, end, label)
    ranges = sorted(by_label.values())
    return [r for r in ranges
            if not any(o is not r and r[0] <= o[0] and o[1] <= r[1] for o in ranges)]


def main():
    args = sys.argv[1:]
    steady = '--steady' in args
    args = [a for a in args if a != '--steady']
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    with open(args[0]) as f:
        lines = f.read().splitlines()
    loops = innermost_loops(lines)
    if not loops:
        print('no loops in ' + args[0])
        return 1
    # Per line: does its function keep its frame pointer in %rbp?
    frame_pointer, fp = [], False
    for line in lines:
        if FUNCTION.match(line):
            fp = False
        elif FRAME_POINTER.match(line):
            fp = True
        frame_pointer.append(fp)
    counted = []
    for start, end, label in loops:
        body = lines[start:end + 1]
        stack = STACK_VECTOR if frame_pointer[start] else RSP_VECTOR
        spills = sum(1 for l in body if stack.search(l))
        fmas = sum(1 for l in body if FMA.match(l))
        print(f'{label}: {spills} spills, {fmas} fma')
        counted.append((fmas, spills))
    most = max(f for f, _ in counted)
    if most == 0:
        print('no loop with FMAs in ' + args[0])
        return 1
    bad = [1 for f, s in counted if f and s and (not steady or f == most)]
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
