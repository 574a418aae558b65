#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Line and branch coverage of a -Db_coverage=true build, by directory.

Run the suite in the build first (`meson test -C build-cov`); this runs
gcovr over its .gcda files and prints one line per top directory
(gateway, plugin-api, each plugin), tests excluded.

Usage: coverage-by-dir.py BUILD_DIR
"""
import collections
import json
import os
import subprocess
import sys
import tempfile


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    build = os.path.abspath(argv[1])
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'summary.json')
        subprocess.run(['gcovr', '--root', root, '--object-directory', build,
                        '--exclude', os.path.join(root, 'tests') + '/',
                        '--exclude', build + '/',
                        '--json-summary', '--output', out, build], check=True)
        with open(out, encoding='utf-8') as f:
            summary = json.load(f)
    totals = collections.defaultdict(lambda: [0, 0, 0, 0, 0])
    for entry in summary['files']:
        parts = entry['filename'].split('/')
        directory = '/'.join(parts[:2]) if parts[0] == 'plugins' else parts[0]
        for key in (directory, 'total'):
            t = totals[key]
            t[0] += entry['line_covered']
            t[1] += entry['line_total']
            t[2] += entry['branch_covered']
            t[3] += entry['branch_total']
            t[4] += 1

    def pct(a, b):
        return f'{100.0 * a / b:5.1f}%' if b else '    -'

    print(f'{"directory":24} {"files":>5} {"lines":>15} {"":>6} {"branches":>15} {"":>6}')
    for key in sorted(totals, key=lambda k: (k == 'total', k)):
        lc, lt, bc, bt, n = totals[key]
        print(f'{key:24} {n:5} {lc:7}/{lt:<7} {pct(lc, lt)} {bc:7}/{bt:<7} {pct(bc, bt)}')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
