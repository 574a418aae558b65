#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Adds up meson's JSON test logs and prints one closing line:
'tests: N passed, N failed, N skipped', after naming each test that did
not pass (setup and test name), so that the tail of a CI log says which.

Usage: summarize-tests.py TESTLOG.json...
"""
import json
import sys


def main(paths):
    passed = failed = skipped = 0
    for path in paths:
        try:
            with open(path, encoding='utf-8') as f:
                for line in f:
                    test = json.loads(line)
                    result = test.get('result')
                    if result in ('OK', 'EXPECTEDFAIL'):
                        passed += 1
                    elif result == 'SKIP':
                        skipped += 1
                    else:
                        failed += 1
                        print(f"{path}: {test.get('name')}: {result}")
        except FileNotFoundError:
            print(f'{path}: missing (that setup did not run)')
            failed += 1
    print(f'tests: {passed} passed, {failed} failed, {skipped} skipped')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
