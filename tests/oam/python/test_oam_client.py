#!/usr/bin/env python3
"""End-to-end test of oam_client against the built `gamegate oam`.

    python3 test_oam_client.py PATH-TO-GAMEGATE

Needs GAMEGATE_PLUGIN_PATH and GAMEGATE_CONFIG (meson's test setups provide
them); honours GAMEGATE_TEST_WRAPPER (valgrind) for the spawned gamegate.
Prints one line per case and "N passed, M failed"; exits 1 on failure.

SPDX-License-Identifier: LGPL-2.1-or-later
"""

import asyncio
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from oam_client import Bridge, BridgeError, ToolError  # noqa: E402
import example_guard  # noqa: E402

GAMEGATE = ""
# Everything takes far longer when gamegate runs under valgrind.
SCALE = 20 if os.environ.get("GAMEGATE_TEST_WRAPPER") else 1


def scripted(*steps):
    return {"type": "scripted", "steps": list(steps)}


def step(index, rounds, mode, tools):
    return {"index": index, "completedToolRounds": rounds, "toolCallingMode": mode,
            "enabledTools": tools, "trimmedEntries": 0}


def expect_eq(actual, expected, what=""):
    if actual != expected:
        raise AssertionError(f"{what}: expected {expected!r}, got {actual!r}")


async def expect_error(awaitable, code, name, message=None, data=None):
    try:
        result = await awaitable
    except BridgeError as error:
        expect_eq(error.code, code, "error code")
        expect_eq(error.name, name, "error name")
        if message is not None:
            expect_eq(error.message, message, "error message")
        if data is not None:
            expect_eq(error.data, data, "error data")
        return error
    raise AssertionError(f"expected BridgeError {name}, got result {result!r}")


def without_duration(records):
    out = []
    for record in records:
        record = dict(record)
        duration = record.pop("durationSeconds")
        assert isinstance(duration, (int, float)) and duration >= 0, duration
        out.append(record)
    return out


# -- cases -------------------------------------------------------------------

async def case_example_guard(_bridge):
    """The example script: section 3 with a Python tool and streamed text."""
    lines = []
    result = await example_guard.run_guard(GAMEGATE, show=lines.append)
    assert lines[0].startswith("bridge: gamegate ") and lines[0].endswith(", protocol 1.0"), lines[0]
    expect_eq(lines[1:], [
        "  [tool] open_gate({'gate': 'north'})",
        "  … The north gate ",
        "  … The north gate remains shut because the ",
        "  … The north gate remains shut because the portcullis chain is jammed.",
        "guard: The north gate remains shut because the portcullis chain is jammed.",
    ], "printed lines")
    call = {"id": "call_NYH7", "name": "open_gate", "arguments": {"gate": "north"}}
    expect_eq(without_duration(result["toolCalls"]), [
        {"call": call, "output": {"opened": False, "reason": "the portcullis chain is jammed"},
         "isError": False}], "toolCalls")
    expect_eq(result["usage"], {"inputTokens": 83, "cachedInputTokens": 0,
                                "outputTokens": 34, "totalTokens": 117}, "usage")
    expect_eq(result["steps"], [step(0, 0, "required", ["open_gate"]),
                                step(1, 1, "allowed", ["open_gate"])], "steps")


async def case_events_and_tool_round(bridge):
    """A streamed turn with a tool round: every event in order, routed to
    the caller."""
    @bridge.tool("check_stock", "Stock of an item.",
                 {"type": "object", "properties": {"item": {"type": "string"}},
                  "required": ["item"]}, timeout=30)
    async def check_stock(item):
        await asyncio.sleep(0)
        return f"{item}: 3"

    shop = await bridge.create_session(
        "shop", tools=["check_stock"],
        model=scripted({"toolCalls": [{"name": "check_stock", "arguments": {"item": "sword"},
                                       "id": "k1"}]},
                       {"template": "We have {toolOutput} left.", "chunks": 2}))
    expect_eq(shop.warnings, [], "warnings")
    events, texts = [], []
    result = await shop.respond("Swords?", on_text=texts.append, on_event=events.append)
    call = {"id": "k1", "name": "check_stock", "arguments": {"item": "sword"}}
    expect_eq(result["text"], "We have sword: 3 left.", "text")
    expect_eq([e["type"] for e in events],
              ["modelStep", "toolCallStarted", "toolCallCompleted", "modelStep", "text", "text"],
              "event types")
    expect_eq(events[0]["step"], step(0, 0, "allowed", ["check_stock"]), "first step")
    expect_eq(events[1], {"type": "toolCallStarted", "call": call, "execution": "client"},
              "toolCallStarted")
    expect_eq(without_duration([events[2]["record"]]),
              [{"call": call, "output": "sword: 3", "isError": False}], "record")
    expect_eq(texts[-1], "We have sword: 3 left.", "last text")
    expect_eq(len(texts), 2, "text events")
    expect_eq(without_duration(result["toolCalls"]),
              [{"call": call, "output": "sword: 3", "isError": False}], "toolCalls")


async def case_concurrent_routing(bridge):
    """Two streamed turns at once: each caller sees only its own events."""
    a = await bridge.create_session("route-a", model=scripted(
        {"text": "alpha one two", "chunks": 3, "delayMs": 50}))
    b = await bridge.create_session("route-b", model=scripted(
        {"text": "beta three", "chunks": 2, "delayMs": 10}))
    texts_a, texts_b = [], []
    ra, rb = await asyncio.gather(a.respond("go", on_text=texts_a.append),
                                  b.respond("go", on_text=texts_b.append))
    expect_eq(ra["text"], "alpha one two", "a text")
    expect_eq(rb["text"], "beta three", "b text")
    expect_eq(texts_a, ["alpha ", "alpha one ", "alpha one two"], "a events")
    expect_eq(texts_b, ["beta ", "beta three"], "b events")


async def case_tool_reply_forms(bridge):
    """ToolError, a failing tool, JSON output and an unknown tool, as the
    model sees them."""
    @bridge.tool("jam", "Always jams.")
    def jam():
        raise ToolError("Chain jammed.")

    @bridge.tool("offline", "Always fails.")
    def offline():
        raise RuntimeError("Gate subsystem offline")

    @bridge.tool("opener", "Opens.")
    def opener():
        return {"opened": True}

    s = await bridge.create_session(
        "forms", tools=["jam", "offline", "opener", {"name": "ghost", "description": "Unknown here."}],
        model=scripted({"toolCalls": [{"name": n, "arguments": {}, "id": n}
                                      for n in ("jam", "offline", "opener", "ghost")]},
                       {"template": "{toolOutputs}"}))
    result = await s.respond("try")
    records = {r["call"]["name"]: r for r in without_duration(result["toolCalls"])}
    expect_eq(records["jam"]["output"], "Chain jammed.", "jam output")
    expect_eq(records["jam"]["isError"], True, "jam isError")
    expect_eq(records["offline"]["output"], "Gate subsystem offline", "offline output")
    expect_eq(records["offline"]["isError"], True, "offline isError")
    expect_eq(records["opener"]["output"], {"opened": True}, "opener output")
    expect_eq(records["opener"]["isError"], False, "opener isError")
    expect_eq(records["ghost"]["output"], "No tool named 'ghost' in this client.", "ghost output")
    expect_eq(sorted(result["text"].split("\n")), sorted([
        "Error: Chain jammed.", "Error: Gate subsystem offline", '{"opened":true}',
        "Error: No tool named 'ghost' in this client."]), "what the model saw")


async def case_schema_turn(bridge):
    s = await bridge.create_session("decide", model=scripted(
        {"json": {"reasoning": "The gate is jammed.", "choice": "refuse"}}))
    schema = {"type": "object",
              "properties": {"reasoning": {"type": "string"},
                             "choice": {"type": "string", "enum": ["open", "refuse"]}},
              "required": ["reasoning", "choice"]}
    result = await s.respond("Open it?", schema=schema)
    expect_eq(result["structured"], {"reasoning": "The gate is jammed.", "choice": "refuse"},
              "structured")
    expect_eq(result["text"], '{"reasoning":"The gate is jammed.","choice":"refuse"}', "text")
    expect_eq(result["toolCalls"], [], "toolCalls")


async def case_cancel_running_turn(bridge):
    """cancel() while the model runs: -32009 and no trace in the transcript."""
    s = await bridge.create_session("slow", instructions="Be slow.", model=scripted(
        {"text": "never", "delayMs": 60000}))
    started = asyncio.Event()
    turn = asyncio.ensure_future(s.respond("wait", on_event=lambda e: started.set()))
    await started.wait()
    expect_eq(await s.cancel(), 1, "cancelled count")
    await expect_error(turn, -32009, "cancelled", "The request was cancelled",
                       {"code": "cancelled"})
    transcript = await s.transcript()
    expect_eq(transcript["type"], "FoundationModels.Transcript", "transcript type")
    expect_eq([e["role"] for e in transcript["transcript"]["entries"]], ["instructions"],
              "entries after cancel")


async def case_cancel_outstanding_tool(bridge):
    """cancel() while a tool/call is outstanding: tool/cancel arrives and the
    Python tool is cancelled."""
    cancels = []
    tool_cancelled = asyncio.Event()
    tool_started = asyncio.Event()
    bridge.on_notification("tool/cancel", cancels.append)

    @bridge.tool("wait_forever", "Never answers.")
    async def wait_forever():
        tool_started.set()
        try:
            await asyncio.Event().wait()
        finally:
            tool_cancelled.set()

    s = await bridge.create_session("stuck", tools=["wait_forever"], model=scripted(
        {"toolCalls": [{"name": "wait_forever", "arguments": {}, "id": "w1"}]}))
    turn = asyncio.ensure_future(s.respond("hold"))
    await tool_started.wait()
    expect_eq(await s.cancel(), 1, "cancelled count")
    await expect_error(turn, -32009, "cancelled")
    await tool_cancelled.wait()
    expect_eq(len(cancels), 1, "tool/cancel count")
    expect_eq(cancels[0]["session"], "stuck", "tool/cancel session")
    expect_eq(cancels[0]["callId"], "w1", "tool/cancel callId")
    assert cancels[0]["requestId"].startswith("py-"), cancels[0]
    assert cancels[0]["id"].startswith("t-"), cancels[0]


async def case_transcript_and_history(bridge):
    s = await bridge.create_session("saga", instructions="Tell tales.",
                                    model=scripted({"text": "Once upon a time."}))
    await s.respond("A tale?")
    transcript = await s.transcript()
    entries = transcript["transcript"]["entries"]
    expect_eq([e["role"] for e in entries], ["instructions", "user", "response"], "roles")
    expect_eq(entries[1]["segments"][0]["text"], "A tale?", "prompt entry")
    expect_eq(entries[2]["segments"][0]["text"], "Once upon a time.", "response entry")
    resumed = await bridge.create_session("saga2", history=transcript,
                                          model=scripted({"template": "again: {prompt}"}))
    listing = await bridge.request("session/list")
    row = next(r for r in listing["sessions"] if r["session"] == "saga2")
    expect_eq((row["instructions"], row["entries"], row["busy"]),
              ("Tell tales.", 2, False), "resumed session")
    result = await resumed.respond("More")
    expect_eq(result["text"], "again: More", "resumed turn")


async def case_errors(bridge):
    """BridgeError carries the number, data.code and the data fields."""
    await expect_error(bridge.request("session/respond", {"session": "nope", "prompt": "hi"}),
                       -32020, "session_not_found", data={"code": "session_not_found",
                                                          "session": "nope"})
    await bridge.create_session("dup", model="scripted")
    await expect_error(bridge.create_session("dup", model="scripted"),
                       -32021, "session_exists")
    error = await expect_error(bridge.request("quest/narrate", {}), -32601, "method_not_found")
    expect_eq(error.data.get("method"), "quest/narrate", "data.method")
    await expect_error(bridge.request("session/respond", {"session": "dup"}),
                       -32602, "invalid_params")


async def case_session_settings(bridge):
    """set_instructions, set_context_note, set_tools, compact, reset, delete."""
    s = await bridge.create_session("cfg", model=scripted(
        {"text": "one"}, {"text": "two"}, {"text": "A short summary."}))
    await s.set_instructions("Speak plainly.")
    await s.set_context_note("The gate is jammed.")
    expect_eq(await s.set_tools([{"name": "bell", "description": "Rings the bell."}]), [],
              "set_tools warnings")
    await s.respond("first")
    await s.respond("second")
    expect_eq(await s.compact(keep_recent_turns=1), "A short summary.", "summary")
    entries = (await s.transcript())["transcript"]["entries"]
    expect_eq([e["role"] for e in entries], ["instructions", "user", "response"],
              "entries after compact")
    expect_eq(entries[1]["segments"][0]["text"], "second", "kept turn")
    listing = await bridge.request("session/list")
    row = next(r for r in listing["sessions"] if r["session"] == "cfg")
    expect_eq((row["instructions"], row["tools"]), ("Speak plainly.", ["bell"]), "settings")
    await s.reset()
    expect_eq(await s.compact(), None, "nothing to compact")
    await s.delete()
    await expect_error(s.respond("gone?"), -32020, "session_not_found")


async def case_npc_talk(bridge):
    """npc/talk through request(): npc/event routed by requestId."""
    created = await bridge.request("npc/create", {
        "npc": "gorm", "persona": {"name": "Gorm", "role": "the village blacksmith"},
        "options": {"replyFormat": "structured"},
        "model": scripted({"json": {"emotion": "proud", "line": "Aye, three swords left.",
                                    "player_options": ["Buy", "More?", "Bye"],
                                    "ends_conversation": False}})})
    expect_eq(created, {"npc": "gorm", "tools": [], "warnings": []}, "npc/create")
    events = []
    result = await bridge.request("npc/talk", {"npc": "gorm", "line": "Got swords?",
                                               "stream": True}, on_event=events.append)
    expect_eq(events, [{"type": "emotion", "emotion": "proud"},
                       {"type": "lineDelta", "delta": "Aye, three swords left."}], "npc events")
    expect_eq(result, {"npc": "gorm", "line": "Aye, three swords left.", "emotion": "proud",
                       "playerOptions": ["Buy", "More?", "Bye"], "endsConversation": False,
                       "toolCalls": [], "relationship": 0, "isFallback": False,
                       "usage": {"inputTokens": 88, "cachedInputTokens": 0,
                                 "outputTokens": 30, "totalTokens": 118}}, "npc/talk")


# A stand-in bridge: sends requests the client cannot know, then reports
# the client's answers back as a notification.
FAKE_BRIDGE = r"""
import json, sys
for request in ({"jsonrpc": "2.0", "id": "x-1", "method": "game/pause"},
                {"jsonrpc": "2.0", "id": 7, "method": "tool/list", "params": {}}):
    print(json.dumps(request), flush=True)
    answer = json.loads(sys.stdin.readline())
    print(json.dumps({"jsonrpc": "2.0", "method": "fake/answer", "params": answer}), flush=True)
sys.stdin.readline()
"""


async def case_unknown_bridge_requests(_bridge):
    fake = await Bridge.start([sys.executable, "-c", FAKE_BRIDGE], env=dict(os.environ))
    answers = []
    got_both = asyncio.Event()

    def on_answer(params):
        answers.append(params)
        if len(answers) == 2:
            got_both.set()

    fake.on_notification("fake/answer", on_answer)
    await got_both.wait()
    expect_eq(answers, [
        {"jsonrpc": "2.0", "id": "x-1",
         "error": {"code": -32601, "message": "Method 'game/pause' not found.",
                   "data": {"code": "method_not_found", "method": "game/pause"}}},
        {"jsonrpc": "2.0", "id": 7,
         "error": {"code": -32601, "message": "Method 'tool/list' not found.",
                   "data": {"code": "method_not_found", "method": "tool/list"}}},
    ], "answers")
    expect_eq(await fake.close(), 0, "fake exit status")


async def case_notify_ping(bridge):
    """A notification gets no response; the next request still answers."""
    await bridge.notify("session/cancel", {"session": "nope"})
    expect_eq(await bridge.request("ping"), {}, "ping")
    availability = await bridge.request("model/availability")
    expect_eq(availability["available"], False, "no system model configured")


CASES = [case_example_guard, case_events_and_tool_round, case_concurrent_routing,
         case_tool_reply_forms, case_schema_turn, case_cancel_running_turn,
         case_cancel_outstanding_tool, case_transcript_and_history, case_errors,
         case_session_settings, case_npc_talk, case_unknown_bridge_requests,
         case_notify_ping]


async def run_cases(bridge, cases) -> tuple[int, int]:
    """Runs each case on `bridge`, one line each; returns (passed, failed)."""
    passed = failed = 0
    for case in cases:
        name = case.__name__.removeprefix("case_")
        try:
            await asyncio.wait_for(case(bridge), 30 * SCALE)
        except Exception:
            failed += 1
            print(f"not ok - {name}")
            traceback.print_exc(file=sys.stdout)
        else:
            passed += 1
            print(f"ok - {name}")
    return passed, failed


async def run_all() -> tuple[int, int]:
    bridge = await Bridge.spawn(GAMEGATE)
    passed, failed = await run_cases(bridge, CASES)
    status = await bridge.close(timeout=60 * SCALE)
    if status == 0:
        passed += 1
        print("ok - gamegate exits 0 at end of input")
    else:
        failed += 1
        print(f"not ok - gamegate exit status {status}")
    return passed, failed


def main() -> int:
    global GAMEGATE
    if len(sys.argv) != 2:
        print(f"usage: {sys.argv[0]} PATH-TO-GAMEGATE", file=sys.stderr)
        return 2
    GAMEGATE = sys.argv[1]
    passed, failed = asyncio.run(run_all())
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
