#!/usr/bin/env python3
"""Checks that the examples in the documentation still work, so docs cannot drift from the code.

1. Every fenced ```tex block in README.md, docs/*.md and the folders' README.md files is a complete
   file: it must compile (`texc FILE --target interp --emit loops`), and when it defines ops with
   every dimension known it must also pass `texc run --target interp` (params above 64 are shrunk
   to 64 with -D, as run_corpus.sh does). A block whose first line is `# fragment` is skipped.
2. Every op signature written in docs/stdlib.md as `NAME(...) -> OUT` for an op of the standard
   library must be the op's declaration, exactly (whitespace aside).

usage: check_doc_examples.py TEXC [REPO_ROOT]
"""
import glob
import os
import re
import subprocess
import sys
import tempfile


def tex_blocks(path):
    text = open(path).read()
    for m in re.finditer(r'^( *)```tex\n(.*?)^ *```', text, re.M | re.S):
        indent = len(m.group(1))
        block = ''.join(line[indent:] if line[:indent].strip() == '' else line
                        for line in m.group(2).splitlines(True))
        yield text[:m.start()].count('\n') + 2, block


def stdlib_declarations(root):
    decls = {}
    for path in glob.glob(os.path.join(root, 'stdlib', '**', '*.tex'), recursive=True):
        for m in re.finditer(r'^\s*op\s+(\w+)\s*\(([^)]*)\)\s*->\s*([\w\s,]+?)\s*\{', open(path).read(), re.M):
            outs = ', '.join(o.strip() for o in m.group(3).split(','))
            decls[m.group(1)] = '%s(%s) -> %s' % (m.group(1), ' '.join(m.group(2).split()), outs)
    return decls


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    texc = os.path.abspath(sys.argv[1])
    root = sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    passed = failed = skipped = 0
    docs = [os.path.join(root, 'README.md')] + sorted(glob.glob(os.path.join(root, 'docs', '*.md'))) + \
        sorted(glob.glob(os.path.join(root, '*', 'README.md')))
    with tempfile.TemporaryDirectory() as tmp:
        for doc in docs:
            for line, block in tex_blocks(doc):
                where = '%s:%d' % (os.path.relpath(doc, root), line)
                if block.startswith('# fragment'):
                    skipped += 1
                    continue
                path = os.path.join(tmp, 'example.tex')
                with open(path, 'w') as f:
                    f.write(block)
                shrink = []
                for name, value in re.findall(r'^\s*param\s+(\w+)\s*=\s*(\d+)\s*$', block, re.M):
                    if int(value) > 64:
                        shrink += ['-D', '%s=64' % name]
                runs = [[texc, path, '--target', 'interp', '--emit', 'loops', '-o', os.path.join(tmp, 'out')],
                        [texc, 'run', path, '--target', 'interp', '--repeat', '1'] + shrink]
                for cmd in runs:
                    r = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp)
                    if r.returncode != 0:
                        failed += 1
                        print('FAIL: the example at %s: %s (exit %d)\n%s%s' %
                              (where, ' '.join(cmd[1:2]), r.returncode, r.stdout, r.stderr))
                        break
                else:
                    passed += 1
                    print('ok: the example at %s' % where)

    decls = stdlib_declarations(root)
    stdlib_doc = os.path.join(root, 'docs', 'stdlib.md')
    for m in re.finditer(r'`(\w+)\(([^`]*)\)\s*->\s*([^`]*)`', open(stdlib_doc).read()):
        name = m.group(1)
        if name not in decls:
            continue
        written = '%s(%s) -> %s' % (name, ' '.join(m.group(2).split()), m.group(3).strip())
        if written != decls[name]:
            failed += 1
            print('FAIL: docs/stdlib.md writes `%s`, but stdlib declares `%s`' % (written, decls[name]))
        else:
            passed += 1
    print('%d passed, %d failed, %d skipped' % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
