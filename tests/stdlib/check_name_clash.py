#!/usr/bin/env python3
"""Calls every stdlib op with names that clash with its own, and with names that differ.

An imported op must not depend on the caller's names: not on the names of the tensors passed to
it (its carried schedule names its own inputs and stages), and not on the caller's params (its
dimension variables and attributes are its own). For every stdlib op, this script takes a *_small
op of tests/stdlib/ that calls it (a compute block that is one call), and writes a user file with
two variants of it:

  clash: the caller declares a `param` for every dimension variable and attribute name of the
         callee's signature (N, C, H, W, K, pad, ...) with values that fit nothing, names its
         input tensors after the callee's parameters in rotated order (the callee's `A` gets the
         caller's `B` and so on; a single input takes the callee's output name) and its output
         after the callee's first input;
  fresh: inputs in0, in1, ... and output out0, with no params.

Both are run with `texc run --target TARGET` (checked against the reference interpreter); any
failure is reported with texc's output.

usage: check_name_clash.py TEXC [TARGET] [REPO_ROOT]      TARGET defaults to interp
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

OP_DECL = re.compile(r'^\s*op\s+(\w+)\s*\(([^)]*)\)\s*->\s*([\w\s,]+?)\s*\{', re.M)
# A test op whose compute block is exactly one call: `op T(sig) -> O { compute { O = f(args) } }`.
ONE_CALL = re.compile(r'^op\s+(\w+_small)\s*\(([^)]*)\)\s*->\s*(\w+)\s*\{\s*compute\s*\{\s*(\w+)\s*=\s*(\w+)\s*\(([^)]*)\)\s*\}\s*\}',
                      re.M)


def split_top(text):
    """Splits at commas that are not inside brackets."""
    parts, depth, cur = [], 0, ''
    for ch in text:
        if ch in '[(':
            depth += 1
        elif ch in '])':
            depth -= 1
        if ch == ',' and depth == 0:
            parts.append(cur.strip())
            cur = ''
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def signature(params_text):
    """[(name, type, [dims] or None)] of an op's parameter list."""
    out = []
    for p in split_top(params_text):
        m = re.match(r'(\w+)\s*:\s*(\w+)\s*(?:\[(.*)\])?', p)
        dims = [d.strip() for d in m.group(3).split(',')] if m.group(3) is not None else None
        out.append((m.group(1), m.group(2), dims))
    return out


def stdlib_ops(stdlib):
    """op name -> (module, signature, outputs)"""
    ops = {}
    for path in sorted(glob.glob(os.path.join(stdlib, '**', '*.tex'), recursive=True)):
        module = os.path.relpath(path, stdlib)[:-len('.tex')].replace(os.sep, '.')
        for m in OP_DECL.finditer(open(path).read()):
            ops[m.group(1)] = (module, signature(m.group(2)), [o.strip() for o in m.group(3).split(',')])
    return ops


def variant(test_name, test_sig, test_out, callee, call_args, callee_sig, callee_outs, kind):
    """The text of one caller op, and the params it needs."""
    tensors = [name for name, _, dims in test_sig if dims is not None]
    callee_tensors = [name for name, _, dims in callee_sig if dims is not None]
    if kind == 'clash':
        if len(callee_tensors) == 1:
            new_names = [callee_outs[0]]
        else:
            new_names = callee_tensors[1:] + callee_tensors[:1]
        new_names = new_names[:len(tensors)] + ['arg%d' % k for k in range(len(new_names), len(tensors))]
        out_name = next(n for n in callee_tensors[:1] + callee_outs + ['res'] if n not in new_names)
    else:
        new_names = ['in%d' % k for k in range(len(tensors))]
        out_name = 'out0'
    rename = dict(zip(tensors, new_names))
    sig = ', '.join('%s: %s[%s]' % (rename[n], t, ', '.join(d)) if d is not None else '%s: %s' % (n, t)
                    for n, t, d in test_sig)
    args = []
    for a in split_top(call_args):
        if '=' in a:
            args.append(a)
        else:
            args.append(rename.get(a, a))
    return ('op %s_%s(%s) -> %s {\n  compute {\n    %s = %s(%s)\n  }\n}\n' %
            (test_name, kind, sig, out_name, out_name, callee, ', '.join(args)))


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    texc = sys.argv[1]
    target = sys.argv[2] if len(sys.argv) > 2 else 'interp'
    root = sys.argv[3] if len(sys.argv) > 3 else os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ops = stdlib_ops(os.path.join(root, 'stdlib'))

    covered = {}
    for test in sorted(glob.glob(os.path.join(root, 'tests', 'stdlib', '*.tex'))):
        for m in ONE_CALL.finditer(open(test).read()):
            test_name, test_sig, test_out, lhs, callee, call_args = m.groups()
            if callee in ops and lhs == test_out and callee not in covered:
                covered[callee] = (test_name, signature(test_sig), test_out, call_args)

    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for callee in sorted(ops):
            module, callee_sig, callee_outs = ops[callee]
            if callee not in covered:
                print('FAIL: no *_small test op in tests/stdlib calls %s with one call: add one' % callee)
                failed += 1
                continue
            test_name, test_sig, test_out, call_args = covered[callee]
            names = set()
            for name, typ, dims in callee_sig:
                if dims is None:
                    names.add(name)
                else:
                    names.update(d for d in dims if re.fullmatch(r'[A-Za-z_]\w*', d))
            params = ''.join('param %s = %d\n' % (n, 997 + k) for k, n in enumerate(sorted(names)))
            text = 'import %s\n%s' % (module, params)
            for kind in ('clash', 'fresh'):
                text += variant(test_name, test_sig, test_out, callee, call_args, callee_sig, callee_outs, kind)
            path = os.path.join(tmp, 'user_%s.tex' % callee)
            with open(path, 'w') as f:
                f.write(text)
            r = subprocess.run([texc, 'run', path, '--target', target], capture_output=True, text=True)
            if r.returncode == 2:
                print('SKIP: texc cannot run target %r here (exit 2):\n%s%s' % (target, r.stdout, r.stderr))
                return 77
            if r.returncode != 0:
                failed += 1
                print('FAIL: %s (exit %d)\n--- %s\n%s--- texc said:\n%s%s' %
                      (callee, r.returncode, path, text, r.stdout, r.stderr))
            else:
                passed += 1
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
