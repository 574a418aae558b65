#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The quick start's A2G part: starts `gamegate a2g` on a free port (its
model is the demo configuration's scripted one), plays a few ticks of the
SDK example's pirates-and-freighters game against it, and stops it.

Usage: drive-a2g.py GAMEGATE EXAMPLES_DIR
"""
import os
import subprocess
import sys


def main(gamegate, examples):
    service = subprocess.Popen([gamegate, 'a2g', '--listen', '127.0.0.1:0'],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
    try:
        line = service.stdout.readline().strip()
        print(line)
        url = line.rsplit(' ', 1)[-1]
        if not url.startswith('http://'):
            print('drive-a2g: gamegate a2g did not start (is the a2g plugin built?); skipped')
            return 0
        game = subprocess.run([sys.executable, os.path.join(examples, 'pirates.py'), '--url', url,
                               '--ticks', '4', '--pirates', '3'])
        return game.returncode
    finally:
        service.terminate()
        service.wait(timeout=20)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1], sys.argv[2]))
