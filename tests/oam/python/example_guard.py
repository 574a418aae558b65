#!/usr/bin/env python3
"""The castle guard of oam spec section 3, with oam_client.

A guard session gets a client tool `open_gate` (run here, in Python, as the
game engine would) and is asked to open the north gate. A scripted model
stands in for the on-device model, so this runs anywhere:

    python3 example_guard.py /path/to/gamegate

It prints the streamed text as it arrives and the final answer.

SPDX-License-Identifier: LGPL-2.1-or-later
"""

import asyncio
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from oam_client import Bridge  # noqa: E402

# What the model "decides": call open_gate, then answer from its output.
GUARD_SCRIPT = {
    "type": "scripted",
    "steps": [
        {"toolCalls": [{"name": "open_gate", "arguments": {"gate": "north"},
                        "id": "call_NYH7"}]},
        {"text": "The north gate remains shut because the portcullis chain is jammed.",
         "chunks": 3},
    ],
}


async def run_guard(gamegate: str, show=print) -> dict:
    """Plays the exchange; returns the turn's result."""
    bridge = await Bridge.spawn(gamegate)

    @bridge.tool("open_gate",
                 "Ask the game engine to open a named gate. Returns whether it opened.",
                 {"type": "object", "properties": {"gate": {"type": "string"}},
                  "required": ["gate"]})
    def open_gate(gate):
        # The engine plays the gate animation here.
        if gate == "north":
            return {"opened": False, "reason": "the portcullis chain is jammed"}
        return {"opened": True}

    try:
        hello = await bridge.request("initialize", {
            "client": {"name": "MyGame", "version": "1.2"}, "protocolVersion": "1.0"})
        show(f"bridge: {hello['server']['name']} {hello['server']['version']}, "
             f"protocol {hello['protocolVersion']}")

        guard = await bridge.create_session(
            "guard",
            instructions="You are a castle guard in a game. Use tools to act. "
                         "Reply in one sentence.",
            tools=["open_gate"], tool_choice="required", model=GUARD_SCRIPT)

        def on_event(event):
            if event["type"] == "toolCallStarted":
                show(f"  [tool] {event['call']['name']}({event['call']['arguments']})")

        result = await guard.respond("Please open the north gate.",
                                     on_text=lambda text: show(f"  … {text}"),
                                     on_event=on_event)
        show(f"guard: {result['text']}")
    finally:
        status = await bridge.close()
    if status != 0:
        raise RuntimeError(f"gamegate exited with status {status}")
    return result


def main() -> int:
    if len(sys.argv) != 2:
        print(f"usage: {sys.argv[0]} PATH-TO-GAMEGATE", file=sys.stderr)
        return 2
    asyncio.run(run_guard(sys.argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
