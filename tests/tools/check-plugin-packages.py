#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Each plugin's packages, as meson_options.txt names them, checked (TAP).

Every plugin_* option's description ends in "needs PKG >= VERSION, ..." (or
"needs nothing beyond GLib and json-glib"). For each package named there,
this configures the source tree (configure only, nothing is built) with a
pkg-config directory holding every .pc file of this machine but that
package's, and checks:

- with the plugins that name it set to `auto`, the configure succeeds, says
  "<plugin> plugin skipped: PKG >= VERSION not found", and its "Plugins"
  summary shows exactly those plugins as "no (missing PKG >= VERSION)" and
  every other one as "yes";
- with one of those plugins `enabled`, the configure fails, naming the
  option and the package.

CMake is turned off (CMAKE=false) so that a package meson would find through
its CMake files (hiredis ships some) counts as missing too.

Usage: check-plugin-packages.py SOURCE_DIR
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

SOURCE_DIR = sys.argv[1]
OPTION = re.compile(r"option\('(plugin_\w+)',\s*type:\s*'feature',\s*value:\s*'(\w+)',"
                    r"\s*description:\s*'([^']*)'\)")
NEEDS = re.compile(r'; needs (.*)$')
NOTHING = 'nothing beyond GLib and json-glib'
SKIPPED = re.compile(r'^Message: (\S+) plugin skipped: (.*) not found \((\w+) is auto\)$', re.M)
count = 0
failed = 0


def report(ok, name, detail='', skip=None):
    global count, failed
    count += 1
    if not ok:
        failed += 1
        for line in detail.splitlines():
            print('# ' + line)
    directive = ' # SKIP ' + skip if skip else ''
    print('%s %d - %s%s' % ('ok' if ok else 'not ok', count, name, directive), flush=True)


def read_plugins():
    """{option: [package requirement, ...]} from meson_options.txt, in order."""
    with open(os.path.join(SOURCE_DIR, 'meson_options.txt'), encoding='utf-8') as f:
        text = f.read()
    plugins = {}
    for option, _, description in OPTION.findall(text):
        needs = NEEDS.search(description)
        report(needs is not None, '%s: its description names what it needs' % option,
               'description: %r\nexpected it to end in "; needs PKG >= VERSION, ..." or "; needs %s"'
               % (description, NOTHING))
        if needs is None or needs.group(1) == NOTHING:
            plugins[option] = []
        else:
            plugins[option] = needs.group(1).split(', ')
    return plugins


def pc_dirs():
    """The directories pkg-config reads, in its order."""
    dirs = os.environ.get('PKG_CONFIG_PATH', '').split(':')
    libdir = os.environ.get('PKG_CONFIG_LIBDIR')
    if libdir is None:
        libdir = subprocess.run(['pkg-config', '--variable', 'pc_path', 'pkg-config'],
                                capture_output=True, text=True, check=True).stdout.strip()
    return [d for d in dirs + libdir.split(':') if d and os.path.isdir(d)]


def pc_files():
    """{package: .pc path}, the first of each name as pkg-config finds it."""
    found = {}
    for directory in pc_dirs():
        for name in sorted(os.listdir(directory)):
            if name.endswith('.pc'):
                found.setdefault(name[:-3], os.path.join(directory, name))
    return found


def summary(output):
    """The "Plugins" section of a configure's summary, {plugin: value}."""
    section = re.search(r'^  Plugins\n((?:    .*\n)+)', output, re.M)
    if section is None:
        return {}
    return dict(re.match(r'\s*(\S+)\s*: (.*)$', line).groups()
                for line in section.group(1).splitlines())


def configure(work, name, pcdir, args):
    env = dict(os.environ, PKG_CONFIG_LIBDIR=pcdir, CMAKE='false')
    env.pop('PKG_CONFIG_PATH', None)
    proc = subprocess.run(['meson', 'setup', os.path.join(work, name), SOURCE_DIR] + args,
                          env=env, capture_output=True, text=True, timeout=600)
    return proc.returncode, proc.stdout + proc.stderr


def main():
    plugins = read_plugins()
    available = pc_files()
    packages = []
    for needs in plugins.values():
        for requirement in needs:
            if requirement.split()[0] not in packages:
                packages.append(requirement.split()[0])
    report(len(packages) > 0, 'some plugin needs a package',
           'no plugin_* description names a package: nothing to check')

    work = tempfile.mkdtemp(prefix='gg-plugin-packages-')
    try:
        for package in packages:
            if package not in available:
                report(True, 'without %s' % package, skip='not installed here')
                continue
            pcdir = os.path.join(work, 'pc-without-' + package)
            os.mkdir(pcdir)
            for name, path in available.items():
                if name != package:
                    os.symlink(path, os.path.join(pcdir, name + '.pc'))
            users = [o for o, needs in plugins.items() if any(r.split()[0] == package for r in needs)]

            # The plugins that need it set to auto: they are skipped, saying why.
            args = ['-D%s=auto' % o for o in users]
            rc, output = configure(work, 'auto-without-' + package, pcdir, args)
            report(rc == 0, 'without %s: %s configures' % (package, ' '.join(args)), output[-4000:])
            got = summary(output)
            messages = {m[0]: (m[1], m[2]) for m in SKIPPED.findall(output)}
            for option, needs in plugins.items():
                plugin = option[len('plugin_'):].replace('_', '-')
                missing = [r for r in needs if r.split()[0] == package or r.split()[0] not in available]
                want = 'no (missing %s)' % ', '.join(missing) if missing else 'yes'
                report(got.get(plugin) == want,
                       'without %s: the summary shows %s: %s' % (package, plugin, want),
                       'summary: %r' % got)
                if missing:
                    report(messages.get(plugin) == (', '.join(missing), option),
                           'without %s: a message says why %s is skipped' % (package, plugin),
                           'skip messages: %r' % messages)

            # Each of them enabled: the configure fails, naming it and the package.
            for option in users:
                plugin = option[len('plugin_'):].replace('_', '-')
                requirement = next(r for r in plugins[option] if r.split()[0] == package)
                rc, output = configure(work, 'enabled-without-%s-%s' % (package, plugin), pcdir,
                                       ['-D%s=enabled' % option])
                want = 'ERROR: Feature %s cannot be enabled: the %s plugin needs %s: not found' % (
                    option, plugin, requirement)
                report(rc != 0 and want in output,
                       'without %s: -D%s=enabled fails: "%s"' % (package, option, want),
                       'exit status %d, output:\n%s' % (rc, output[-4000:]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print('1..%d' % count)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
