#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Checks that every source file carries the project's SPDX licence line.

Sources are C files and headers, meson files, Python, JavaScript and shell
scripts, config files and the systemd unit: each needs
`SPDX-License-Identifier: LGPL-2.1-or-later` in its first 40 lines (in a C
file, as the last line of the opening comment). Vendored data (the GABP schemas,
JSON fixtures, translations) is not source and is not checked.

Usage: check-spdx.py SOURCE_ROOT [FILE...]
With FILE arguments (as pre-commit passes them) only those are checked;
otherwise the files git knows (tracked, or new and not ignored), or every
file under SOURCE_ROOT outside build directories when it is not a git tree.
"""
import os
import re
import subprocess
import sys

LICENCE = 'LGPL-2.1-or-later'
LINE = re.compile(r'SPDX-License-Identifier:\s*(\S+)')
SUFFIXES = ('.c', '.h', '.py', '.mjs', '.js', '.sh', '.conf', '.service.in')
NAMES = ('meson.build', 'meson_options.txt', 'meson.options', 'quickstart', 'run')
SKIP_DIRS = ('.git', 'node_modules', '__pycache__', 'subprojects')
HEAD_LINES = 40


def is_source(path):
    name = os.path.basename(path)
    if any(part.startswith(('build', '_build')) or part in SKIP_DIRS
           for part in path.split(os.sep)[:-1]):
        return False
    if name == 'POTFILES.in':
        return False
    return name in NAMES or name.endswith(SUFFIXES)


def candidate_files(root):
    try:
        out = subprocess.run(['git', '-C', root, 'ls-files', '-z', '--cached', '--others',
                              '--exclude-standard'],
                             check=True, capture_output=True).stdout.decode()
        return [p for p in out.split('\0') if p]
    except (OSError, subprocess.CalledProcessError):
        found = []
        for dirpath, dirs, files in os.walk(root):
            rel = os.path.relpath(dirpath, root)
            dirs[:] = [d for d in dirs
                       if d not in SKIP_DIRS and not (rel == '.' and d.startswith(('build', '_build')))]
            found += [os.path.normpath(os.path.join(rel, f)) for f in files]
        return found


def check(root, rel):
    path = os.path.join(root, rel)
    if not os.path.isfile(path):
        return None  # deleted in the work tree, or a dangling link
    with open(path, encoding='utf-8', errors='replace') as f:
        head = [next(f, '') for _ in range(HEAD_LINES)]
    for line in head:
        m = LINE.search(line)
        if m:
            if m.group(1).rstrip('*/') != LICENCE:
                return f'{rel}: SPDX-License-Identifier is {m.group(1)}, expected {LICENCE}'
            return None
    return f'{rel}: no "SPDX-License-Identifier: {LICENCE}" in its first {HEAD_LINES} lines'


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = argv[1]
    files = argv[2:] or candidate_files(root)
    problems = [p for p in (check(root, f) for f in sorted(set(files)) if is_source(f)) if p]
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
