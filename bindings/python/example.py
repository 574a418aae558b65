#!/usr/bin/env python3
"""A castle guard NPC with a client tool, in-process through gamegate's C ABI
(the README's example). A scripted model stands in for a real one, so that
it runs anywhere: python3 example.py

SPDX-License-Identifier: LGPL-2.1-or-later
"""
import asyncio

from gamegate_oam import Bridge

SCRIPT = {"type": "scripted", "steps": [
    {"toolCalls": [{"name": "open_gate", "arguments": {"gate": "north"}}]},
    {"template": "[angry] No luck: {toolOutput}."}]}


async def main():
    bridge = await Bridge.open()

    @bridge.tool("open_gate", "Open a named gate.",
                 {"type": "object", "properties": {"gate": {"type": "string"}}, "required": ["gate"]})
    def open_gate(gate):
        return "the portcullis chain is jammed"  # the engine plays the animation here

    guard = await bridge.create_npc("guard", persona={"name": "Brom", "role": "the north gate's guard"},
                                    tools=["open_gate"], grounding_tool="open_gate",
                                    reply_format="text", model=SCRIPT)
    reply = await guard.talk("Open the north gate!", on_line=lambda line: print("  …", line))
    print(f"Brom ({reply['emotion']}): {reply['line']}")
    await bridge.close()

if __name__ == "__main__":
    asyncio.run(main())
