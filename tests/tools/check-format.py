#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Checks the C lines a change touches against .clang-format.

Runs `git clang-format --diff` on the staged lines (or on the lines
changed since COMMIT) and fails on each place where clang-format would
write the code differently, leaving aside what .clang-format says
clang-format 14 cannot express of GLib's style: the alignment inside a
line and where long lines break. What is left is the spacing between
tokens (`foo (x)`, `char *p`, `a + b`, `g_autoptr(T)`), the braces and the
indentation of a statement's first line; each place is printed with
clang-format's version, which `git clang-format` applies.

Usage: check-format.py [COMMIT]   (no COMMIT: the staged changes)
"""
import re
import subprocess
import sys

# Lines clang-format 14 writes otherwise whatever the options: a quark's
# name is one token to G_DEFINE_QUARK, an expression to clang-format.
IGNORED = re.compile(r'^\s*G_DEFINE_QUARK \(')


def joined(lines):
    """@lines as one line: line breaks, continuations and runs of spaces as
    one space (none after `*`, `(`, `[` or before `)`, `]`, `,`, `;`),
    indentation aside, and a pointer qualifier's spacing as one."""
    text = ''
    for line in lines:
        line = (line[:-1] if line.endswith('\\') else line).strip()
        if not line:
            continue
        if text and not (text.endswith(('*', '(', '[')) or line.startswith((')', ']', ',', ';'))):
            text += ' '
        text += line
    # clang-format 14 writes `* const` or `*const` by where it stands.
    return re.sub(r'\*\s*const\b', '* const', re.sub(r'\s+', ' ', text))


def indents(lines):
    """The indentation of the statements that follow a complete one (a
    line ending in `;`): a hunk's first line may be a continuation, and a
    brace's contents are clang-format's to lay out."""
    found = []
    for previous, line in zip(lines, lines[1:]):
        # A macro's body is clang-format's to lay out.
        if line.strip() and previous.rstrip().endswith(';') and not line.rstrip().endswith('\\'):
            found.append(len(line) - len(line.lstrip(' ')))
    return found


def hunks(diff):
    """(file, line, old, new) of each hunk of a unified diff, context
    lines in both."""
    path = None
    current = None
    for line in diff.splitlines():
        if line.startswith('+++ '):
            path = line[6:] if line.startswith('+++ b/') else line[4:]
        elif line.startswith('@@'):
            if current is not None:
                yield current
            start = int(re.match(r'@@ -\d+(?:,\d+)? \+(\d+)', line).group(1))
            current = (path, start, [], [])
        elif current is None or line.startswith(('---', 'diff ', 'index ')):
            continue
        elif line.startswith('-'):
            current[2].append(line[1:])
        elif line.startswith('+'):
            current[3].append(line[1:])
        elif line.startswith(' '):
            current[2].append(line[1:])
            current[3].append(line[1:])
    if current is not None:
        yield current


def main(argv):
    command = ['git', 'clang-format', '--diff', '--quiet']
    command += [argv[1]] if len(argv) > 1 else ['--staged']
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode not in (0, 1) or result.stderr.strip():
        sys.stderr.write(result.stderr)
        return 2
    problems = 0
    for path, start, removed, added in hunks(result.stdout):
        changed = [line for line in removed if line not in added]
        if changed and all(IGNORED.match(line) for line in changed if line.strip()):
            continue
        before, after = indents(removed), indents(added)
        # Statements split or joined: their layout is clang-format's.
        if joined(removed) == joined(added) and (len(before) != len(after) or before == after):
            continue
        problems += 1
        print('%s:%d: clang-format writes it so:' % (path, start))
        for line in removed:
            if line not in added:
                print('-' + line)
        for line in added:
            if line not in removed:
                print('+' + line)
    if problems:
        print('%d place(s) to format: `git clang-format` (on staged lines: `git clang-format --staged`) '
              'writes them so; keep your own alignment' % problems)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
