#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Checks that data/gamegate.conf shows every key the code reads.

Finds every gg_config_get_*() call with a literal key in gateway/ and
plugins/ (the group is a literal or the file's `#define GROUP`/
`GATEWAY_GROUP`; gabp's per-mod keys are `<name>.<key>`) and reports each
key that the shipped file does not show, commented or not, in its group.

Usage: check-config-keys.py SOURCE_ROOT
"""
import os
import re
import sys

CALL = re.compile(r'gg_config_get_\w+\s*\(\s*[\w>.-]+\s*,\s*(\w+|"[^"]+")\s*,\s*("[^"]+"|\w+)')
MOD_KEY = re.compile(r'mod_key\s*\(\s*name\s*,\s*"([^"]+)"\s*\)')
DEFINE = re.compile(r'#define\s+(\w+)\s+"([^"]+)"')
CONF_KEY = re.compile(r'^#?([A-Za-z0-9<>._-]+)\s*=')


def read_code(root):
    wanted = set()
    for top in ('gateway', 'plugins'):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in files:
                if not name.endswith('.c'):
                    continue
                with open(os.path.join(dirpath, name), encoding='utf-8') as f:
                    text = f.read()
                defines = dict(DEFINE.findall(text))
                for group, key in CALL.findall(text):
                    group = group.strip('"') if group.startswith('"') else defines.get(group)
                    if group is None or not key.startswith('"'):
                        continue  # a computed group or key (gabp's per-mod keys: below)
                    wanted.add((group, key.strip('"')))
                for key in MOD_KEY.findall(text):
                    wanted.add((defines.get('GROUP', '?'), '<name>.' + key))
    return wanted


def read_conf(path):
    shown, group = set(), None
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.strip()
            m = re.match(r'^\[([^]]+)\]$', line)
            if m:
                group = m.group(1)
                continue
            m = CONF_KEY.match(line)
            if m and group is not None:
                shown.add((group, m.group(1)))
    return shown


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = argv[1]
    wanted = read_code(root)
    shown = read_conf(os.path.join(root, 'data', 'gamegate.conf'))
    missing = sorted(wanted - shown)
    for group, key in missing:
        print(f'data/gamegate.conf: [{group}] {key} is read by the code but not shown', file=sys.stderr)
    print(f'{len(wanted)} keys read, {len(missing)} missing from data/gamegate.conf')
    return 1 if missing or not wanted else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
