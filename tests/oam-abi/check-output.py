#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Runs a program and compares its stdout with a file, exactly.

    check-output.py EXPECTED PROGRAM [ARG...]

The valgrind setup's GAMEGATE_TEST_WRAPPER goes in front of PROGRAM.
"""
import os
import shlex
import subprocess
import sys

expected = open(sys.argv[1], encoding="utf-8").read()
argv = shlex.split(os.environ.get("GAMEGATE_TEST_WRAPPER", "")) + sys.argv[2:]
proc = subprocess.run(argv, capture_output=True, text=True, timeout=600)
sys.stderr.write(proc.stderr)
if proc.returncode != 0 or proc.stdout != expected:
    print(f"exit status {proc.returncode}; expected:\n{expected}got:\n{proc.stdout}")
    sys.exit(1)
