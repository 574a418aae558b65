#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Checks libgamegate's exported symbols and the plugins' single entry point.

Usage: check-symbols.py LIBRARY MAP HEADER... [--plugin MODULE]...

Fails when a function declared in a public header is missing from the version
script or not exported, when the library exports something that is not
declared, or when a plugin module exports anything but gg_plugin_describe.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import importlib

api_symbols = importlib.import_module('api-symbols')


def exported(path):
    out = subprocess.run(['nm', '-D', '--defined-only', path], check=True,
                         capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in 'TDBRVWiu':
            name = parts[2].split('@')[0]
            if not name.startswith('GAMEGATE_'):
                names.add(name)
    return names


def map_symbols(path):
    with open(path, encoding='utf-8') as f:
        text = re.sub(r'/\*.*?\*/', '', f.read(), flags=re.S)
    glob = re.search(r'global:(.*?)local:', text, re.S)
    return {s.strip() for s in glob.group(1).split(';') if s.strip()}


def main(argv):
    plugins = []
    args = []
    it = iter(argv[1:])
    for a in it:
        if a == '--plugin':
            plugins.append(next(it))
        else:
            args.append(a)
    library, version_map, headers = args[0], args[1], args[2:]

    declared = set(api_symbols.symbols(headers))
    mapped = map_symbols(version_map)
    actual = exported(library)
    problems = []
    for name in sorted(declared - mapped):
        problems.append(f'{name}: declared in a public header but missing from {os.path.basename(version_map)}')
    for name in sorted(mapped - declared):
        problems.append(f'{name}: in the version script but declared in no public header')
    for name in sorted(mapped - actual):
        problems.append(f'{name}: in the version script but not exported (not defined?)')
    for name in sorted(actual - mapped):
        problems.append(f'{name}: exported but not in the version script')
    for plugin in plugins:
        extra = exported(plugin) - {'gg_plugin_describe'}
        if 'gg_plugin_describe' not in exported(plugin):
            problems.append(f'{plugin}: does not export gg_plugin_describe')
        for name in sorted(extra):
            problems.append(f'{plugin}: exports {name}; a plugin exports only gg_plugin_describe')
    for p in problems:
        print(p)
    print(f'{len(declared)} API symbols, {len(actual)} exported, {len(plugins)} plugin module(s) checked')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
