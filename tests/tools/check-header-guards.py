#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Checks how libgamegate's public headers may be included.

For a plugin, <gamegate.h> is the only entry: it must compile on its own,
and each other public header included directly must fail with the
"Only <gamegate.h> can be included directly." error (not any other error).
Inside the library (GAMEGATE_COMPILATION) every header must compile on its
own, so the library's files can include just what they use.

Usage: check-header-guards.py INCLUDE_DIR HEADER...
The compiler is $CC (a command line), the cflags come from pkg-config.
"""
import os
import shlex
import subprocess
import sys
import tempfile

GUARD_ERROR = 'Only <gamegate.h> can be included directly.'
PACKAGES = ['glib-2.0', 'gobject-2.0', 'gio-2.0', 'gio-unix-2.0', 'gmodule-2.0', 'json-glib-1.0']


def compile_source(cc, cflags, source):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'probe.c')
        with open(path, 'w', encoding='utf-8') as f:
            f.write(source)
        proc = subprocess.run(cc + cflags + ['-fsyntax-only', '-Werror', path],
                              capture_output=True, text=True)
        return proc.returncode, proc.stderr


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    include_dir = argv[1]
    headers = sorted({os.path.basename(h) for h in argv[2:]})
    cc = shlex.split(os.environ.get('CC', 'cc'))
    cflags = shlex.split(subprocess.run(['pkg-config', '--cflags'] + PACKAGES, check=True,
                                        capture_output=True, text=True).stdout)
    cflags += ['-I', include_dir, '-std=c11', '-Wall', '-Wextra']
    problems = []
    checked = 0

    status, err = compile_source(cc, cflags, '#include <gamegate.h>\nint main (void) { return 0; }\n')
    checked += 1
    if status != 0:
        problems.append(f'<gamegate.h> does not compile on its own:\n{err}')

    for header in headers:
        if header == 'gamegate.h':
            continue
        status, err = compile_source(cc, cflags, f'#include <{header}>\n')
        checked += 1
        if status == 0:
            problems.append(f'<{header}> compiles when included directly; it must refuse')
        elif GUARD_ERROR not in err:
            problems.append(f'<{header}> fails included directly, but not with the guard:\n{err}')
        status, err = compile_source(cc, cflags + ['-DGAMEGATE_COMPILATION'], f'#include "{header}"\n')
        checked += 1
        if status != 0:
            problems.append(f'"{header}" does not compile on its own inside the library:\n{err}')

    for p in problems:
        print(p, file=sys.stderr)
    print(f'{checked} compilations, {len(problems)} problems')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
