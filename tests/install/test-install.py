#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The installation as a user gets it, checked end to end (TAP output).

Configures the source tree again under a temporary prefix that the dynamic
linker does not search (as ~/.local is), with the plugin options of the
build under test, installs it, and then checks the installed tree only:
the binary starts and finds its library and plugins, the daemon reports
READY=1, the systemd user unit is where `systemctl --user` reads units and
points at the installed binary (`systemd-analyze --user verify` where
systemd is present), the man page describes every subcommand and option the
binary reports, the bash completion produces the subcommands and options,
the commented gamegate.conf holds every key the plugins read, the
out-of-tree example plugin builds against the installed gamegate-1.pc,
installs to its plugindir and serves its model type to `gamegate oam`, and
the oam C ABI (libgamegate-oam-1) serves from the installed tree: the C
example builds against gamegate-oam-1.pc, and the installed Python binding
runs a bridge through the compatibility name libOpenAppleModelsFFI.so.

Usage: test-install.py SOURCE_DIR BUILD_DIR
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback

SOURCE_DIR, BUILD_DIR = sys.argv[1], sys.argv[2]
results = []


class Skip(Exception):
    pass


def check(name):
    def run(function):
        try:
            function()
            results.append(('ok', name, ''))
        except Skip as skip:
            results.append(('ok', name, ' # SKIP ' + str(skip)))
        except Exception:  # report and go on with the next check
            results.append(('not ok', name, ''))
            for line in traceback.format_exc().splitlines():
                print('# ' + line)
        print('%s %d - %s%s' % (results[-1][0], len(results), name, results[-1][2]), flush=True)
        return function
    return run


def run(argv, env=None, input=None, timeout=300, cwd=None):
    proc = subprocess.run(argv, env=env, input=input, capture_output=True, text=True,
                          timeout=timeout, cwd=cwd)
    if proc.returncode != 0:
        raise AssertionError('%s exited %d:\n%s%s' % (' '.join(argv), proc.returncode,
                                                      proc.stdout[-3000:], proc.stderr[-3000:]))
    return proc.stdout


def parent_options():
    """The plugin_* and man options of the build under test, as -D arguments."""
    out = run(['meson', 'introspect', '--buildoptions', BUILD_DIR])
    args, libdir = [], 'lib'
    for option in json.loads(out):
        if option['name'] == 'libdir':
            libdir = option['value']
        if option['name'].startswith('plugin_') or option['name'] == 'man':
            value = option['value']
            if option['name'] != 'man' and value == 'auto':
                continue
            args.append('-D%s=%s' % (option['name'], value))
    return args, libdir


work = tempfile.mkdtemp(prefix='gg-install-')
# The underscore keeps the man page's escaping of installed paths tested.
prefix = os.path.join(work, '_prefix')
home = os.path.join(work, 'home')
runtime = os.path.join(work, 'run')
os.makedirs(home)
os.makedirs(runtime, mode=0o700)
options, libdir = parent_options()
bindir = os.path.join(prefix, 'bin')
gamegate = os.path.join(bindir, 'gamegate')
plugindir = os.path.join(prefix, libdir, 'gamegate-1', 'plugins')
unit = os.path.join(prefix, 'share', 'systemd', 'user', 'gamegate.service')

# What a user's shell has: none of the test setup's variables.
user_env = {k: v for k, v in os.environ.items()
            if not k.startswith(('GAMEGATE_', 'GAME_BRIDGE_', 'GABP_', 'OAM_', 'LD_', 'G_DEBUG',
                                 'MALLOC_', 'XDG_'))}
user_env.update({'HOME': home, 'XDG_CONFIG_HOME': os.path.join(home, '.config'),
                 'XDG_RUNTIME_DIR': runtime, 'LC_ALL': 'C.UTF-8',
                 # Any free port: never another daemon's (the defaults may be taken).
                 'GAME_BRIDGE_HTTP_PORT': '0', 'GAMEGATE_A2G_LISTEN': '127.0.0.1:0'})


def gamegate_out(*args, input=None):
    return run([gamegate] + list(args), env=user_env, input=input)


print('1..17', flush=True)


@check('meson setup, compile and install to a temporary prefix')
def install():
    build = os.path.join(work, 'build')
    run(['meson', 'setup', build, SOURCE_DIR, '--prefix', prefix, '-Dtests=false',
         '--buildtype=debug'] + options, timeout=600)
    run(['meson', 'compile', '-C', build], timeout=1200)
    run(['meson', 'install', '-C', build, '--no-rebuild'], timeout=600)


@check('the installed binary starts without LD_LIBRARY_PATH (install rpath)')
def starts():
    dynamic = run(['readelf', '-d', gamegate])
    assert re.search(r'\((RUNPATH|RPATH)\).*\[%s\]' % re.escape(os.path.join(prefix, libdir)),
                     dynamic), dynamic
    out = gamegate_out('--version')
    assert re.match(r'gamegate \S+ \(plugin ABI 1\.\d+\)\n$', out), out


@check('gamegate plugins lists the installed plugins, from the installed plugindir')
def plugins():
    out = gamegate_out('plugins')
    installed = sorted(f[:-3] for f in os.listdir(plugindir) if f.endswith('.so'))
    listed = sorted(re.findall(r'^(\S+)\n  version:', out, re.M))
    assert installed and listed == installed, (listed, installed, out)
    paths = re.findall(r'^  path: (.*)$', out, re.M)
    assert all(p.startswith(plugindir + '/') for p in paths), paths
    assert 'refused' not in out, out


@check('the daemon from the installed tree reports READY=1 and stops on SIGTERM')
def daemon():
    notify_path = os.path.join(work, 'notify')
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(notify_path)
    listener.settimeout(60)
    env = dict(user_env, NOTIFY_SOCKET=notify_path)
    proc = subprocess.Popen([gamegate, 'serve'], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        message = listener.recv(4096).decode()
        assert 'READY=1' in message, message
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, (proc.returncode, err)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        listener.close()


@check('the user unit is in share/systemd/user and runs the installed binary')
def unit_paths():
    assert os.path.isfile(unit), os.listdir(os.path.join(prefix, 'share'))
    assert not os.path.exists(os.path.join(prefix, 'lib', 'systemd')), 'unit under lib/systemd'
    text = open(unit, encoding='utf-8').read()
    assert re.search(r'^ExecStart=%s serve$' % re.escape(gamegate), text, re.M), text
    docs = re.search(r'^Documentation=file://(.*)$', text, re.M).group(1)
    assert os.path.isfile(docs), docs


@check('systemd-analyze --user verify accepts the installed unit')
def unit_verify():
    if shutil.which('systemd-analyze') is None:
        raise Skip('no systemd-analyze')
    run(['systemd-analyze', '--user', 'verify', unit], env=user_env)


def commands():
    """The subcommands `gamegate --help` reports."""
    help_text = gamegate_out('--help')
    block = help_text.split('Commands:\n', 1)[1].split('\n\n', 1)[0]
    return [line.split()[0] for line in block.splitlines()]


def frontends():
    """The front ends `gamegate plugins` reports (another view of the same)."""
    out = gamegate_out('plugins')
    block = out.split('front ends:', 1)[1].split('\nmodel types:', 1)[0]
    return [line.split()[0] for line in block.splitlines() if line.strip()]


def options_of(command):
    """Every long option `gamegate [COMMAND] --help` reports."""
    out = gamegate_out(*([command] if command else []), '--help')
    return re.findall(r'^  (?:-\w, )?(--[\w-]+)', out, re.M)


@check('the installed man page describes every subcommand and option the binary reports')
def man_page():
    page = os.path.join(prefix, 'share', 'man', 'man1', 'gamegate.1')
    if not os.path.exists(page) and '-Dman=disabled' in options:
        raise Skip('built with -Dman=disabled')
    roff = open(page, encoding='utf-8').read()
    # scdoc writes each term of a list as its own bold line.
    section = roff.split('.SH COMMANDS', 1)[1].split('.SH OPTIONS', 1)[0]
    missing = [c for c in commands() if not re.search(r'^\\fB%s\\fR$' % re.escape(c), section, re.M)]
    assert not missing, 'commands not in gamegate(1): %s' % missing
    text = roff.replace('\\&', '').replace('\\-', '-').replace('\\fB', '').replace('\\fR', '')
    for command in [None] + commands():
        for option in options_of(command):
            assert re.search(r'^%s\b' % re.escape(option), text, re.M) or \
                re.search(r'^-\w, %s\b' % re.escape(option), text, re.M), \
                'option %s of %s not in gamegate(1)' % (option, command or 'gamegate')
    for word in ('GAMEGATE_CONFIG', 'GAMEGATE_PLUGIN_PATH', 'SIGTERM', 'gamegate.conf', plugindir):
        assert word in text, word


def complete(*words):
    """What the installed bash completion offers after WORDS (the last is the one completed)."""
    script = os.path.join(prefix, 'share', 'bash-completion', 'completions', 'gamegate')
    program = ('source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); '
               '_gamegate; printf "%s\\n" "${COMPREPLY[@]}"')
    out = run(['bash', '-c', program, 'complete', script, gamegate] + list(words), env=user_env)
    return [w for w in out.splitlines() if w]


@check('bash completion produces exactly the subcommands')
def completion_commands():
    expected = ['serve', 'plugins', 'tap'] + frontends()
    assert len(expected) > 2, expected
    assert complete('') == expected, (complete(''), expected)
    assert complete('pl') == ['plugins']
    assert complete('--config', '/dev/null', 's') == ['serve']


@check('bash completion produces the options of each subcommand and the --set keys')
def completion_options():
    for command in frontends():
        offered = {w.rstrip('=') for w in complete(command, '--')}
        assert offered == set(options_of(command)), (command, offered, options_of(command))
    keys = complete('--set', 'gateway.')
    assert keys == ['gateway.default-model=', 'gateway.disabled-plugins=',
                    'gateway.tap-drain-timeout-ms=', 'gateway.tap-socket='], keys


@check('the installed gamegate.conf holds every group and key the plugins read')
def conf_complete():
    effective = gamegate_out('--print-config')
    wanted, group = set(), None
    for line in effective.splitlines():
        if line.startswith('['):
            group = line[1:-1]
        elif line and group:
            wanted.add((group, line.lstrip('#').split('=', 1)[0]))
    documented, group = set(), None
    for line in open(os.path.join(prefix, 'share', 'gamegate', 'gamegate.conf'), encoding='utf-8'):
        match = re.match(r'^\[([^\]]+)\]$', line)
        if match:
            group = match.group(1)
            continue
        match = re.match(r'^#?([A-Za-z0-9][A-Za-z0-9_.-]*)=', line)
        if match and group:
            documented.add((group, match.group(1)))
    missing = sorted(wanted - documented)
    assert wanted and not missing, 'not in gamegate.conf: %s' % ', '.join(
        '[%s] %s' % m for m in missing)


hello_build = os.path.join(work, 'hello-build')
hello_env = dict(user_env, PKG_CONFIG_PATH=os.path.join(prefix, libdir, 'pkgconfig'))


@check('examples/plugin-hello builds against the installed gamegate-1 and installs to its plugindir')
def hello_builds():
    out = run(['pkg-config', '--variable=plugindir', 'gamegate-1'], env=hello_env)
    assert out.strip() == plugindir, (out, plugindir)
    run(['meson', 'setup', hello_build, os.path.join(SOURCE_DIR, 'examples', 'plugin-hello')],
        env=hello_env)
    run(['meson', 'compile', '-C', hello_build], env=hello_env)
    run(['meson', 'install', '-C', hello_build, '--no-rebuild'], env=hello_env)
    assert os.path.isfile(os.path.join(plugindir, 'hello.so'))


@check('the installed gamegate loads the out-of-tree plugin')
def hello_loaded():
    out = gamegate_out('plugins')
    assert re.search(r'^hello\n  version: 1\.0\.0\n  licence: LGPL-2\.1-or-later\n  path: %s\n'
                     % re.escape(os.path.join(plugindir, 'hello.so')), out, re.M), out
    assert re.search(r'^model types:.* hello( |$)', out, re.M), out


@check('gamegate oam serves a session on the plugin\'s model type')
def hello_serves():
    requests = [
        {'jsonrpc': '2.0', 'id': 1, 'method': 'session/create',
         'params': {'session': 's1', 'model': {'type': 'hello', 'greeting': 'Howdy'}}},
        {'jsonrpc': '2.0', 'id': 2, 'method': 'session/respond',
         'params': {'session': 's1', 'prompt': 'traveller'}},
        {'jsonrpc': '2.0', 'id': 3, 'method': 'session/create',
         'params': {'session': 's2', 'model': {'type': 'hello', 'greeting': 5}}},
    ]
    if 'oam' not in frontends():
        raise Skip('the oam plugin is not built')
    out = gamegate_out('oam', input=''.join(json.dumps(r) + '\n' for r in requests))
    replies = {m['id']: m for m in map(json.loads, out.splitlines())}
    assert replies[1] == {'jsonrpc': '2.0', 'id': 1, 'result': {'session': 's1', 'warnings': []}}, out
    assert replies[2]['result']['text'] == 'Howdy, traveller!', out
    assert replies[3] == {'jsonrpc': '2.0', 'id': 3, 'error': {
        'code': -32602, 'message': 'Invalid params: model.greeting: must be a string',
        'data': {'code': 'invalid_params'}}}, out


@check('the out-of-tree plugin reads its own [hello] group, listed by --print-config')
def hello_config():
    out = gamegate_out('--print-config')
    assert '[hello]\ngreeting=Hello  # default\n' in out, out


oam_libdir = os.path.join(prefix, libdir)


def oam_abi_installed():
    if not os.path.exists(os.path.join(oam_libdir, 'libgamegate-oam-1.so.0')):
        raise Skip('the oam plugin (and so libgamegate-oam) is not built')


@check('bindings/c/example.c builds against the installed gamegate-oam-1 and runs on the installed plugins')
def oam_abi_c_example():
    oam_abi_installed()
    example = os.path.join(work, 'oam-example')
    flags = run(['pkg-config', '--cflags', '--libs', 'gamegate-oam-1'], env=hello_env).split()
    source = os.path.join(prefix, 'share', 'gamegate-oam-1', 'c', 'example.c')
    run(['cc', source, '-o', example, '-Wl,-rpath,' + oam_libdir] + flags, env=hello_env)
    out = run([example], env=user_env)
    assert out.endswith('Brom (angry): No luck: the portcullis chain is jammed.\n'), out


@check('libOpenAppleModelsFFI.so is the installed libgamegate-oam-1')
def oam_abi_compat_name():
    oam_abi_installed()
    link = os.path.join(oam_libdir, 'libOpenAppleModelsFFI.so')
    assert os.readlink(link) == 'libgamegate-oam-1.so.0', os.readlink(link)


@check('the installed Python binding runs a bridge through OAM_LIBRARY=libOpenAppleModelsFFI.so')
def oam_abi_python():
    oam_abi_installed()
    modules = [os.path.join(d, 'gamegate_oam.py') for d, _, files in os.walk(prefix)
               if 'gamegate_oam.py' in files]
    assert len(modules) == 1, modules
    env = dict(user_env, PYTHONPATH=os.path.dirname(modules[0]),
               OAM_LIBRARY=os.path.join(oam_libdir, 'libOpenAppleModelsFFI.so'))
    script = ('import asyncio, gamegate_oam\n'
              'async def main():\n'
              '    bridge = await gamegate_oam.Bridge.open()\n'
              '    hello = await bridge.request("initialize")\n'
              '    print(hello["server"]["name"], hello["capabilities"]["models"])\n'
              '    await bridge.close()\n'
              'asyncio.run(main())\n')
    out = run([sys.executable, '-c', script], env=env)
    assert out.startswith('gamegate [\'system\''), out
    assert "'scripted'" in out, out


shutil.rmtree(work, ignore_errors=True)
sys.exit(1 if any(r[0] != 'ok' for r in results) else 0)
