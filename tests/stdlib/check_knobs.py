#!/usr/bin/env python3
"""Checks every value of every knob of the stdlib schedules, not only the defaults.

Without tuning records a knob takes its first value, so the other values are only ever compiled by
the tuner. For every knob of the schedule blocks that apply to TARGET (`schedule cuda` for
cuda-interp, the cpu ones otherwise) and every one of its other values, this script makes a copy of stdlib/
with that knob reduced to that value (the others keep their defaults) and runs the *_small ops of
the tests/stdlib/ files that import the changed file (`texc run --target TARGET --op OP`, checked
against the reference interpreter). A value that gives an illegal schedule or a wrong result fails.

usage: check_knobs.py TEXC [TARGET] [REPO_ROOT]      TARGET defaults to interp
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    texc = sys.argv[1]
    target = sys.argv[2] if len(sys.argv) > 2 else 'interp'
    root = sys.argv[3] if len(sys.argv) > 3 else os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    stdlib = os.path.join(root, 'stdlib')

    # stdlib file (relative) -> the test files that import it
    importers = {}
    for test in sorted(glob.glob(os.path.join(root, 'tests', 'stdlib', '*.tex'))):
        for module in re.findall(r'^import\s+([A-Za-z0-9_.]+)', open(test).read(), re.M):
            importers.setdefault(module.replace('.', '/') + '.tex', []).append(test)

    values = failures = runs = unchanged = 0
    default_env = dict(os.environ, TEXC_STDLIB=stdlib)
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, 'stdlib')
        for path in sorted(glob.glob(os.path.join(stdlib, '**', '*.tex'), recursive=True)):
            rel = os.path.relpath(path, stdlib)
            source = open(path).read()
            for knob in re.finditer(r'knob\s+(\w+)\s+in\s+\[([^\]]*)\]', source):
                # Only the knobs of the blocks that apply to the target: `schedule cuda` for
                # cuda-interp, the others (cpu, x86, arm) elsewhere.
                blocks = re.findall(r'schedule\s+([\w-]+)\s*\{', source[:knob.start()])
                if (blocks and blocks[-1] == 'cuda') != (target == 'cuda-interp'):
                    continue
                name, choices = knob.group(1), [v.strip() for v in knob.group(2).split(',')]
                for value in choices[1:]:
                    values += 1
                    shutil.rmtree(copy, ignore_errors=True)
                    shutil.copytree(stdlib, copy)
                    with open(os.path.join(copy, rel), 'w') as f:
                        f.write(source[:knob.start()] + 'knob %s in [%s]' % (name, value) + source[knob.end():])
                    env = dict(os.environ, TEXC_STDLIB=copy)
                    for test in importers.get(rel, []):
                        ops = re.findall(r'^op\s+(\w+_small)\b', open(test).read(), re.M)
                        # A value that leaves the file's loops as the defaults make them (a knob of
                        # a branch its ops do not take) is not run again.
                        loops = lowered(texc, test, target, env)
                        if loops is not None and loops == lowered(texc, test, target, default_env, cache=True):
                            unchanged += len(ops)
                            continue
                        for op in ops:
                            runs += 1
                            r = subprocess.run([texc, 'run', test, '--target', target, '--op', op],
                                               capture_output=True, text=True, env=env)
                            if r.returncode == 2 and runs == 1:
                                print('SKIP: texc cannot run target %r here (exit 2):\n%s%s' % (target, r.stdout, r.stderr))
                                return 77
                            if r.returncode != 0:
                                failures += 1
                                print('FAIL %s %s = %s: %s:%s (exit %d)\n    %s' % (
                                    rel, name, value, os.path.basename(test), op, r.returncode,
                                    (r.stdout + r.stderr).strip().replace('\n', '\n    ')))
    print('%d knob values, %d runs, %d failed, %d not run: the loops of the defaults (%s)' % (
        values, runs, failures, unchanged, target))
    return 1 if failures else 0


_default_lowered = {}


def lowered(texc, test, target, env, cache=False):
    """The lowered loops of every op of `test` (`texc --emit loops`) under env's TEXC_STDLIB, or None
    when that fails (then each op is run, and its error reported); with cache, computed once (the
    defaults')."""
    key = (test, target)
    if cache and key in _default_lowered:
        return _default_lowered[key]
    r = subprocess.run([texc, test, '--target', target, '--emit', 'loops', '-o', '-'],
                       capture_output=True, text=True, env=env)
    out = r.stdout if r.returncode == 0 else None
    if cache:
        _default_lowered[key] = out
    return out


if __name__ == '__main__':
    sys.exit(main())
