#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Checks that po/POTFILES.in lists exactly the source files that use _() or N_().

Usage: check-potfiles.py SOURCE_ROOT
"""
import os
import re
import sys

MARK = re.compile(r'(?<![\w])(?:_|N_|C_|NC_)\s*\(\s*"')
DIRS = ('gateway', 'libgamegate-oam', 'plugin-api', 'plugins')


def main(root):
    with open(os.path.join(root, 'po', 'POTFILES.in'), encoding='utf-8') as f:
        listed = {line.strip() for line in f if line.strip() and not line.startswith('#')}
    using = set()
    for top in DIRS:
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in files:
                if name.endswith(('.c', '.h')):
                    path = os.path.join(dirpath, name)
                    with open(path, encoding='utf-8') as f:
                        if MARK.search(f.read()):
                            using.add(os.path.relpath(path, root))
    problems = [f'{p}: uses _() but is not listed in po/POTFILES.in' for p in sorted(using - listed)]
    problems += [f'{p}: listed in po/POTFILES.in but missing or without translatable strings'
                 for p in sorted(listed - using)]
    for p in problems:
        print(p)
    print(f'{len(using)} files with translatable strings, {len(listed)} listed')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))
