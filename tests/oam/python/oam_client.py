"""The Python oam client the tests use: gamegate's binding itself
(bindings/python/gamegate_oam.py), which speaks to `gamegate oam` over stdio
(`Bridge.spawn`) as well as in-process through the C ABI (`Bridge.open`).

Kept under this name for the scripts of tests/oam/python.

SPDX-License-Identifier: LGPL-2.1-or-later
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "bindings", "python"))

from gamegate_oam import (Bridge, BridgeError, Npc, Session, ToolError,  # noqa: E402,F401
                          World)

__all__ = ["Bridge", "BridgeError", "Npc", "Session", "ToolError", "World"]
