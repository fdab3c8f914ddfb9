#!/usr/bin/env python3
"""Checks that the reference in docs/ and the code list the same names, both ways:

  what                      the code's table                                the docs' list
  built-in functions        builtin_function_names() in                    the first column of the table under
                            frontend/ExprElaborator.cpp (with the table    "## Built-in functions" in docs/language.md
                            of ir/MathFunctions.cpp it reads)
  schedule primitives       primitive_signatures() and kOtherSpellings in  the first column of the table under
                            frontend/ScheduleElaborator.cpp                "## Schedule primitives" in docs/language.md
  memory scopes             storage_rank_name() in ir/IR.cpp (the ranks)    the table under "### Memory scopes"
                            and the tagged scopes the targets declare in
                            ir/Target.cpp ({StorageRank::R, "TAG"})
  thread tags               all_thread_tags() in ir/Target.cpp             the table under "### Thread tags"
  command-line flags        parse_command_line() in                        the first column of the table under
                            tools/texc/CommandLine.cpp                     "## Flags" in docs/cli.md
  commands                  the words parse_command_line() takes first     the headings of docs/cli.md
  VDLA configuration keys   vdla_config_keys() in backends/vdla/           the table under "## The configuration" in
                            VdlaConfig.cpp, defaults in VdlaConfig.h       docs/vdla.md (with each default)

Every name of a code table must appear in the docs' list, and every name the docs list must be in
the code's table. The tables are read from the source files; a table that cannot be found or reads
as empty is a failure (so a refactoring that moves a table breaks this test, not silently passes).

usage: check_doc_reference.py [REPO_ROOT]
"""
import os
import re
import sys


class Failure(Exception):
    pass


def read(root, rel):
    with open(os.path.join(root, rel)) as f:
        return f.read()


def strip_cpp_comments(text):
    text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
    # Line comments, but not inside string literals: drop '//' only outside quotes.
    out = []
    for line in text.splitlines():
        in_str = False
        cut = len(line)
        i = 0
        while i < len(line):
            c = line[i]
            if c == '\\' and in_str:
                i += 2
                continue
            if c == '"':
                in_str = not in_str
            elif not in_str and line.startswith('//', i):
                cut = i
                break
            i += 1
        out.append(line[:cut])
    return '\n'.join(out)


def braced_body(text, start, what):
    """The text between the first '{' at or after `start` and its matching '}'."""
    open_at = text.find('{', start)
    if open_at < 0:
        raise Failure('cannot find the body of %s' % what)
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] == '{':
            depth += 1
        elif text[i] == '}':
            depth -= 1
            if depth == 0:
                return text[open_at + 1:i]
    raise Failure('unbalanced braces in %s' % what)


def function_body(text, signature_regex, what):
    m = re.search(signature_regex, text)
    if not m:
        raise Failure('cannot find %s (the test reads the table there; update the test if it moved)' % what)
    return braced_body(text, m.end(), what)


def string_literals(text):
    return re.findall(r'"((?:[^"\\]|\\.)*)"', text)


def nonempty(names, what):
    if not names:
        raise Failure('read no names from %s' % what)
    return names


# ---- the code's tables --------------------------------------------------------------------------

def code_builtin_functions(root):
    text = strip_cpp_comments(read(root, 'frontend/ExprElaborator.cpp'))
    body = function_body(text, r'builtin_function_names\s*\(\s*\)\s*(?=\{)',
                         'builtin_function_names() in frontend/ExprElaborator.cpp')
    names = set(string_literals(body))
    # Names the body takes from other tables of the file (`names.insert(..., kUnaryFloatMath...)`).
    for table in set(re.findall(r'\b(k[A-Z]\w*)\b', body)):
        m = re.search(r'\b%s\s*=\s*' % table, text)
        if not m:
            raise Failure('builtin_function_names() uses %s, whose definition the test cannot find' % table)
        names |= set(string_literals(braced_body(text, m.end(), table)))
    # ... and from functions it calls (`for (auto& f : math_functions()) ...`), defined in this file
    # or in ir/MathFunctions.cpp (the one table of math functions).
    math_text = strip_cpp_comments(read(root, 'ir/MathFunctions.cpp'))
    for fn in set(re.findall(r'\b(\w+)\s*\(\s*\)', body)):
        m = re.search(r'\b%s\s*\(\s*\)\s*(?=\{)' % fn, text)
        if not m and fn == 'math_functions':
            m = re.search(r'\b%s\s*\(\s*\)\s*(?=\{)' % fn, math_text)
            if not m:
                raise Failure('builtin_function_names() calls math_functions(), which ir/MathFunctions.cpp does not define')
            names |= set(string_literals(braced_body(math_text, m.end(), fn)))
            continue
        if m:
            fn_body = braced_body(text, m.end(), fn)
            names |= set(string_literals(fn_body))
            for table in set(re.findall(r'\b(k[A-Z]\w*)\b', fn_body)):
                t = re.search(r'\b%s\s*=\s*' % table, text)
                if t:
                    names |= set(string_literals(braced_body(text, t.end(), table)))
    return nonempty({n for n in names if re.fullmatch(r'\w+', n)},
                    'builtin_function_names() in frontend/ExprElaborator.cpp')


def code_primitives(root):
    text = strip_cpp_comments(read(root, 'frontend/ScheduleElaborator.cpp'))
    body = function_body(text, r'primitive_signatures\s*\(\s*\)\s*(?=\{)', 'primitive_signatures() in frontend/ScheduleElaborator.cpp')
    names = set(re.findall(r'\{\s*"(\w+)"\s*,\s*\{', body))
    nonempty(names, 'primitive_signatures()')
    m = re.search(r'kOtherSpellings\s*=\s*', text)
    if not m:
        raise Failure('cannot find kOtherSpellings in frontend/ScheduleElaborator.cpp')
    aliases = dict(re.findall(r'\{\s*"(\w+)"\s*,\s*"(\w+)"\s*\}', braced_body(text, m.end(), 'kOtherSpellings')))
    for alias, target in aliases.items():
        if target not in names:
            raise Failure('kOtherSpellings maps %s to %s, which is not a primitive' % (alias, target))
    return names | set(aliases)


def code_scopes(root):
    text = strip_cpp_comments(read(root, 'ir/IR.cpp'))
    body = function_body(text, r'storage_rank_name\s*\(\s*StorageRank\s+\w+\s*\)\s*(?=\{)',
                         'storage_rank_name() in ir/IR.cpp')
    ranks = nonempty(set(re.findall(r'return\s+"([\w.]+)"', body)) - {'?'}, 'storage_rank_name()')
    targets = strip_cpp_comments(read(root, 'ir/Target.cpp'))
    tags = nonempty(set(re.findall(r'\{\s*StorageRank::\w+\s*,\s*"([\w.]+)"\s*\}', targets)),
                    'the tagged scopes of ir/Target.cpp')
    return ranks | tags


def code_thread_tags(root):
    text = strip_cpp_comments(read(root, 'ir/Target.cpp'))
    body = function_body(text, r'all_thread_tags\s*\(\s*\)\s*(?=\{)', 'all_thread_tags() in ir/Target.cpp')
    return nonempty(set(string_literals(body)), 'all_thread_tags()')


def code_flags(root):
    text = strip_cpp_comments(read(root, 'tools/texc/CommandLine.cpp'))
    body = function_body(text, r'CommandLine\s+parse_command_line\s*\([^)]*\)\s*(?=\{)',
                         'parse_command_line() in tools/texc/CommandLine.cpp')
    flags = set(re.findall(r'\barg\s*==\s*"(-[\w-]+)"', body))
    flags |= set(re.findall(r'\barg\.rfind\("(-[\w-]+)",\s*0\)\s*==\s*0\s*&&\s*arg\.size\(\)', body))
    commands = set(re.findall(r'\bargs\[0\]\s*==\s*"(\w+)"', body))
    return nonempty(flags, 'parse_command_line()'), nonempty(commands, 'the commands of parse_command_line()')


def eval_int(expr):
    if not re.fullmatch(r'[\d\s*+()<-]+', expr):
        raise Failure('cannot evaluate the default %r' % expr)
    return int(eval(expr.replace('int64_t', '')))


def code_vdla_keys(root):
    text = strip_cpp_comments(read(root, 'backends/vdla/VdlaConfig.cpp'))
    body = function_body(text, r'vdla_config_keys\s*\(\s*\)\s*(?=\{)', 'vdla_config_keys() in backends/vdla/VdlaConfig.cpp')
    keys = re.findall(r'\{\s*"(\w+)"\s*,\s*&VdlaConfig::(\w+)', body)
    nonempty(keys, 'vdla_config_keys()')
    header = strip_cpp_comments(read(root, 'backends/vdla/VdlaConfig.h'))
    struct = function_body(header, r'struct\s+VdlaConfig\s*', 'struct VdlaConfig in backends/vdla/VdlaConfig.h')
    defaults = {m.group(1): eval_int(m.group(2)) for m in re.finditer(r'int64_t\s+(\w+)\s*=\s*([^;]+);', struct)}
    out = {}
    for key, member in keys:
        if member not in defaults:
            raise Failure('VdlaConfig has no default for %s' % member)
        out[key] = defaults[member]
    return out


# ---- the docs' lists ----------------------------------------------------------------------------

def section(text, heading, doc):
    """The text from the line `heading` (exactly) to the next heading of the same or a higher level."""
    level = len(heading) - len(heading.lstrip('#'))
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.strip() == heading or line.startswith(heading + ' '):
            out = []
            for nxt in lines[i + 1:]:
                m = re.match(r'(#+) ', nxt)
                if m and len(m.group(1)) <= level:
                    break
                out.append(nxt)
            return '\n'.join(out)
    raise Failure('%s has no section "%s"' % (doc, heading))


def first_cells(section_text):
    """The first cell of each row of the section's tables (header and rule rows left out)."""
    cells = []
    rows = [l for l in section_text.splitlines() if l.lstrip().startswith('|')]
    for i, row in enumerate(rows):
        cell = row.strip().strip('|').split('|')[0].strip()
        if re.fullmatch(r':?-+:?', cell):
            continue
        if i + 1 < len(rows) and re.fullmatch(r'\|?\s*:?-+:?\s*(\|.*)?', rows[i + 1].strip()):
            continue  # a header row
        cells.append(cell)
    return cells


def code_spans(cell):
    return re.findall(r'`([^`]+)`', cell)


def doc_called_names(cells):
    """`name(...)` in the code spans of the cells (`o, i = split(L, F)` gives split)."""
    names = set()
    for cell in cells:
        for span in code_spans(cell):
            m = re.match(r'(?:[\w\s,]+=\s*)?(\w+)\(', span)
            if m:
                names.add(m.group(1))
    return names


def doc_words(cells):
    return {span.split()[0] for cell in cells for span in code_spans(cell)}


def doc_vdla_keys(text):
    keys = {}
    for row in section(text, '## The configuration', 'docs/vdla.md').splitlines():
        cells = [c.strip() for c in row.strip().strip('|').split('|')]
        if len(cells) >= 2 and re.fullmatch(r'`\w+`', cells[0]):
            keys[cells[0].strip('`')] = cells[1]
    return keys


# ---- the comparison -----------------------------------------------------------------------------

def compare(what, code, docs, where):
    problems = []
    for name in sorted(set(code) - set(docs)):
        problems.append('%s %s is in the code but not in %s' % (what, name, where))
    for name in sorted(set(docs) - set(code)):
        problems.append('%s %s is listed in %s but the code has none such' % (what, name, where))
    if not problems:
        print('ok: %d %ss in the code and %s' % (len(code), what, where))
    return problems


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    problems = []
    try:
        language = read(root, 'docs/language.md')
        cli = read(root, 'docs/cli.md')
        vdla = read(root, 'docs/vdla.md')

        problems += compare('built-in function', code_builtin_functions(root),
                            doc_called_names(first_cells(section(language, '## Built-in functions', 'docs/language.md'))),
                            'docs/language.md "Built-in functions"')
        problems += compare('schedule primitive', code_primitives(root),
                            doc_called_names(first_cells(section(language, '## Schedule primitives', 'docs/language.md'))),
                            'docs/language.md "Schedule primitives"')
        problems += compare('memory scope', code_scopes(root),
                            doc_words(first_cells(section(language, '### Memory scopes', 'docs/language.md'))),
                            'docs/language.md "Memory scopes"')
        problems += compare('thread tag', code_thread_tags(root),
                            doc_words(first_cells(section(language, '### Thread tags', 'docs/language.md'))),
                            'docs/language.md "Thread tags"')

        flags, commands = code_flags(root)
        doc_flags = set()
        for cell in first_cells(section(cli, '## Flags', 'docs/cli.md')):
            for span in code_spans(cell):
                m = re.match(r'(--?[A-Za-z][\w-]*)', span)
                if m:
                    doc_flags.add(m.group(1))
        problems += compare('flag', flags, doc_flags, 'docs/cli.md "Flags"')
        for command in sorted(commands):
            if not re.search(r'^## (`texc )?%s`?\b' % command, cli, re.M):
                problems.append('command %s has no section "## %s" in docs/cli.md' % (command, command))

        keys = code_vdla_keys(root)
        doc_keys = doc_vdla_keys(vdla)
        problems += compare('VDLA configuration key', keys, doc_keys, 'docs/vdla.md "The configuration"')
        for key in sorted(set(keys) & set(doc_keys)):
            if not re.fullmatch(r'%d\b.*' % keys[key], doc_keys[key]):
                problems.append('VDLA configuration key %s defaults to %d, but docs/vdla.md says %s' %
                                (key, keys[key], doc_keys[key]))
    except Failure as e:
        problems.append(str(e))
    for p in problems:
        print('FAIL: ' + p)
    print('%d problems' % len(problems))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
