#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Checks that each plugin's README.md lists its plugin's files.

Every plugins/<name>/ has a README.md that names each of its files, in
its subdirectories too (meson files aside): each .c file, each header (one with a .c of the same name
counts as named when either is), and anything else (a GResource
description). A name counts wherever it stands in the README, as itself
(`gg-oam-npc.c`, plugins/oam/gg-oam-npc.c), not as a glob. The README also
names no file of the plugin's own prefixes that is not there (a file
renamed or removed).

Usage: check-plugin-readmes.py SOURCE_ROOT
"""
import os
import re
import sys

SKIP = ('README.md', 'meson.build')


def prefix_of(name):
    """The plugin's own file prefix a file name starts with: `gg-oam-`, `gb-`."""
    parts = name.split('-')
    return '-'.join(parts[:2]) + '-' if parts[0] == 'gg' and len(parts) > 2 else parts[0] + '-'


def named(text, name):
    return re.search(r'(?<![\w.-])' + re.escape(name) + r'(?![\w-])', text) is not None


def check_plugin(directory):
    problems = []
    readme = os.path.relpath(os.path.join(directory, 'README.md'))
    if not os.path.isfile(readme):
        return ['%s: no README.md' % os.path.relpath(directory)]
    with open(readme, encoding='utf-8') as f:
        text = f.read()
    files = sorted(n for root, _, names in os.walk(directory) for n in names if n not in SKIP)
    for name in files:
        if name.endswith('.h') and name[:-2] + '.c' in files:
            if not named(text, name) and not named(text, name[:-2] + '.c'):
                problems.append('%s: names neither %s nor %s' % (readme, name[:-2] + '.c', name))
        elif not named(text, name):
            problems.append('%s: does not name %s' % (readme, name))
    prefixes = sorted({prefix_of(n) for n in files if n.endswith(('.c', '.h'))})
    for prefix in prefixes:
        for match in re.finditer(r'(?<![\w.-])' + re.escape(prefix) + r'[\w-]*\.[ch](?![\w-])', text):
            if match.group(0) not in files:
                problems.append('%s: names %s, which is not in %s' % (readme, match.group(0),
                                                                      os.path.relpath(directory)))
    return problems


def main(root):
    plugins = os.path.join(root, 'plugins')
    dirs = sorted(os.path.join(plugins, n) for n in os.listdir(plugins)
                  if os.path.isdir(os.path.join(plugins, n)))
    problems = []
    for directory in dirs:
        problems += check_plugin(directory)
    for problem in problems:
        print(problem)
    if not dirs:
        print('no plugin directory under %s' % plugins)
        return 1
    print('%d plugin README(s) checked, %d problem(s)' % (len(dirs), len(problems)))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))
