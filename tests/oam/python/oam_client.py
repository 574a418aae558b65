"""A small asyncio client for the oam bridge protocol (`gamegate oam`).

Standard library only (Python 3.11). Written in the binding style engine
authors know from the reference Python binding:

    bridge = await Bridge.spawn("/usr/bin/gamegate")

    @bridge.tool("open_gate", "Ask the game engine to open a named gate.",
                 {"type": "object", "properties": {"gate": {"type": "string"}},
                  "required": ["gate"]})
    async def open_gate(gate):
        if gate == "north":
            raise ToolError("the portcullis chain is jammed")
        return {"opened": True}

    guard = await bridge.create_session("guard", instructions="...",
                                        tools=["open_gate"])
    reply = await guard.respond("Please open the north gate.",
                                on_text=lambda text: print(text))
    print(reply["text"])
    await bridge.close()

Every request gets a generated id `py-<n>`; `session/event`, `npc/event` and
any other `<namespace>/event` notification carrying that id as `requestId` is
handed to the caller's `on_event`. `tool/call` requests from the bridge are
answered by the functions registered with `@bridge.tool`; any other request
from the bridge is answered with -32601 `method_not_found`.

SPDX-License-Identifier: LGPL-2.1-or-later
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import shlex
from typing import Any, Awaitable, Callable

__all__ = ["Bridge", "BridgeError", "Session", "ToolError"]

# Lines can be long (transcripts, NPC saves); the bridge itself caps them.
_LINE_LIMIT = 64 * 1024 * 1024


class BridgeError(Exception):
    """An error response from the bridge.

    `code` is the JSON-RPC number, `name` the stable `data.code` string
    (prefer it), `data` the whole data object.
    """

    def __init__(self, code: int, message: str, data: dict | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data or {}
        self.name = self.data.get("code")

    def __repr__(self) -> str:
        return f"BridgeError({self.code}, {self.name!r}, {self.message!r})"


class ToolError(Exception):
    """Raise from a tool function: the model sees the output as an error."""

    def __init__(self, output: Any):
        super().__init__(output if isinstance(output, str) else json.dumps(output))
        self.output = output


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


class _Tool:
    def __init__(self, name, description, parameters, timeout, function):
        self.name = name
        self.description = description
        self.parameters = parameters
        self.timeout = timeout
        self.function = function

    def definition(self) -> dict:
        definition = {"name": self.name, "description": self.description}
        if self.parameters is not None:
            definition["parameters"] = self.parameters
        if self.timeout is not None:
            definition["timeoutSeconds"] = self.timeout
        return definition


class Bridge:
    """One `gamegate oam` process spoken to over its stdin and stdout."""

    def __init__(self, process: asyncio.subprocess.Process):
        self._process = process
        self._next_id = 0
        self._pending: dict[str, asyncio.Future] = {}
        self._event_handlers: dict[str, Callable[[dict], Any]] = {}
        self._notification_handlers: dict[str, list[Callable]] = {}
        self._tools: dict[str, _Tool] = {}
        # Running tool/call handlers by bridge request id, for tool/cancel.
        self._tool_tasks: dict[Any, asyncio.Task] = {}
        self._background: set[asyncio.Task] = set()
        self._closed = False
        self._reader = asyncio.get_running_loop().create_task(self._read_loop())

    @classmethod
    async def spawn(cls, gamegate: str, *args: str, env: dict | None = None,
                    wrapper: str | None = None) -> "Bridge":
        """Starts `gamegate oam ARGS…`.

        `wrapper` (default: $GAMEGATE_TEST_WRAPPER) is a command line put in
        front, e.g. valgrind. stderr (the bridge's log) is inherited.
        """
        if wrapper is None:
            wrapper = os.environ.get("GAMEGATE_TEST_WRAPPER", "")
        return await cls.start(shlex.split(wrapper) + [gamegate, "oam", *args], env=env)

    @classmethod
    async def start(cls, argv: list[str], env: dict | None = None) -> "Bridge":
        """Starts any program speaking the bridge protocol on stdio."""
        process = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            env=env, limit=_LINE_LIMIT)
        return cls(process)

    @property
    def pid(self) -> int:
        return self._process.pid

    # -- sending -----------------------------------------------------------

    async def _send(self, message: dict) -> None:
        message = {"jsonrpc": "2.0", **message}
        line = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        self._process.stdin.write(line.encode("utf-8") + b"\n")
        await self._process.stdin.drain()

    async def request(self, method: str, params: dict | None = None,
                      on_event: Callable[[dict], Any] | None = None) -> Any:
        """Sends a request and returns its result; raises BridgeError.

        `on_event(event)` receives the `event` of every notification whose
        `requestId` is this request's id, before the result is returned.
        """
        if self._closed:
            raise BridgeError(-32023, "The bridge is closed.", {"code": "shut_down"})
        self._next_id += 1
        request_id = f"py-{self._next_id}"
        future = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        if on_event is not None:
            self._event_handlers[request_id] = on_event
        message = {"id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        try:
            try:
                await self._send(message)
            except (BrokenPipeError, ConnectionResetError) as error:
                raise BridgeError(-32023, "The bridge is gone.", {"code": "shut_down"}) from error
            return await future
        finally:
            self._pending.pop(request_id, None)
            self._event_handlers.pop(request_id, None)

    async def notify(self, method: str, params: dict | None = None) -> None:
        """Sends a notification (no response)."""
        message = {"method": method}
        if params is not None:
            message["params"] = params
        await self._send(message)

    def on_notification(self, method: str, handler: Callable[[dict], Any]) -> None:
        """Calls `handler(params)` for every notification `method`
        (e.g. `world/changed`, `tool/cancel`). Coroutines are awaited in
        the background."""
        self._notification_handlers.setdefault(method, []).append(handler)

    # -- tools -------------------------------------------------------------

    def tool(self, name: str, description: str, parameters: dict | None = None,
             timeout: float | None = None):
        """Decorator: registers a function answering `tool/call` for `name`.

        The function gets the call's arguments as keyword arguments (plain or
        async). Its return value is the output (a string or any JSON value);
        raising ToolError sends `{"output": ..., "isError": true}`; any other
        exception becomes a JSON-RPC error the model sees as `Error: …`.
        """
        def register(function):
            self._tools[name] = _Tool(name, description, parameters, timeout, function)
            return function
        return register

    def tool_definitions(self, names=None) -> list[dict]:
        """Definitions of the registered tools (all, or those in `names`)."""
        if names is None:
            names = list(self._tools)
        return [self._tools[name].definition() for name in names]

    def _resolve_tools(self, tools):
        if tools is None:
            return None
        return [self._tools[t].definition() if isinstance(t, str) else t for t in tools]

    async def _answer_tool_call(self, request_id, params: dict) -> None:
        call = params.get("call") or {}
        tool = self._tools.get(call.get("name"))
        try:
            if tool is None:
                raise ToolError(f"No tool named '{call.get('name')}' in this client.")
            output = tool.function(**(call.get("arguments") or {}))
            if inspect.isawaitable(output):
                output = await output
            reply = {"id": request_id, "result": {"output": output}}
        except ToolError as error:
            reply = {"id": request_id, "result": {"output": error.output, "isError": True}}
        except asyncio.CancelledError:
            return  # tool/cancel: the bridge ignores any answer now
        except Exception as error:  # the model sees it; the turn goes on
            reply = {"id": request_id, "error": {"code": -32000, "message": str(error)}}
        finally:
            self._tool_tasks.pop(request_id, None)
        try:
            await self._send(reply)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the bridge is gone; nobody waits for the output any more

    # -- receiving ---------------------------------------------------------

    def _spawn_background(self, awaitable: Awaitable) -> asyncio.Task:
        task = asyncio.ensure_future(awaitable)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    def _dispatch(self, message: dict) -> None:
        method = message.get("method")
        if method is None:
            # A response to one of our requests.
            future = self._pending.get(message.get("id"))
            if future is None or future.done():
                return
            if "error" in message:
                error = message["error"] or {}
                future.set_exception(BridgeError(error.get("code", 0),
                                                 error.get("message", ""),
                                                 error.get("data")))
            else:
                future.set_result(message.get("result"))
            return

        params = message.get("params") or {}
        if "id" in message:
            # A request from the bridge.
            if method == "tool/call":
                task = self._spawn_background(self._answer_tool_call(message["id"], params))
                self._tool_tasks[message["id"]] = task
            else:
                self._spawn_background(self._send({
                    "id": message["id"],
                    "error": {"code": -32601, "message": f"Method '{method}' not found.",
                              "data": {"code": "method_not_found", "method": method}}}))
            return

        # A notification: events go to the request that caused them.
        handler = self._event_handlers.get(params.get("requestId"))
        if handler is not None and "event" in params:
            result = handler(params["event"])
            if inspect.isawaitable(result):
                self._spawn_background(result)
        if method == "tool/cancel":
            task = self._tool_tasks.get(params.get("id"))
            if task is not None:
                task.cancel()
        for callback in self._notification_handlers.get(method, []):
            result = callback(params)
            if inspect.isawaitable(result):
                self._spawn_background(result)

    async def _read_loop(self) -> None:
        stdout = self._process.stdout
        try:
            while True:
                line = await stdout.readline()
                if not line:
                    break
                if not line.strip():
                    continue
                try:
                    message = json.loads(line)
                except ValueError:
                    continue  # not protocol output; the bridge never sends it
                if isinstance(message, dict):
                    self._dispatch(message)
        finally:
            self._closed = True
            gone = BridgeError(-32023, "The bridge closed its output.", {"code": "shut_down"})
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(gone)

    # -- sessions ----------------------------------------------------------

    async def create_session(self, session: str | None = None, *,
                             instructions: str | None = None, tools=None,
                             options: dict | None = None, history: dict | None = None,
                             model: Any = None, **policy) -> "Session":
        """`session/create`. `tools` holds names of `@tool` functions or
        definitions; keyword options (`tool_choice=...`) go into `options`."""
        params: dict[str, Any] = {}
        if session is not None:
            params["session"] = session
        if instructions is not None:
            params["instructions"] = instructions
        if tools is not None:
            params["tools"] = self._resolve_tools(tools)
        options = dict(options or {})
        options.update({_camel(key): value for key, value in policy.items()})
        if options:
            params["options"] = options
        if history is not None:
            params["history"] = history
        if model is not None:
            params["model"] = model
        result = await self.request("session/create", params)
        return Session(self, result["session"], result.get("warnings", []))

    # -- shutting down -----------------------------------------------------

    async def close(self, timeout: float = 30.0) -> int:
        """Closes stdin (the bridge answers what it has, then exits) and
        returns the exit status."""
        if not self._process.stdin.is_closing():
            self._process.stdin.close()
        try:
            status = await asyncio.wait_for(self._process.wait(), timeout)
        except asyncio.TimeoutError:
            self._process.kill()
            status = await self._process.wait()
        await self._reader
        for task in list(self._background):
            task.cancel()
        return status


class Session:
    """An agent session on the bridge (`session/*`)."""

    def __init__(self, bridge: Bridge, session: str, warnings: list[str]):
        self.bridge = bridge
        self.id = session
        self.warnings = warnings

    async def _call(self, method: str, **params) -> dict:
        return await self.bridge.request(method, {"session": self.id, **params})

    async def respond(self, prompt: str, schema: dict | None = None,
                      on_text: Callable[[str], Any] | None = None,
                      on_event: Callable[[dict], Any] | None = None, **policy) -> dict:
        """Runs a turn; returns the `session/respond` result.

        `on_text(text)` gets the whole answer so far after every text event;
        `on_event(event)` every event. Either turns streaming on. `policy`
        keywords are per-turn overrides (`tool_choice="required"`, …).
        """
        params: dict[str, Any] = {"session": self.id, "prompt": prompt}
        if schema is not None:
            params["schema"] = schema
        params.update({_camel(key): value for key, value in policy.items()})
        handler = None
        if on_text is not None or on_event is not None:
            params["stream"] = True

            def handler(event):
                results = []
                if on_event is not None:
                    results.append(on_event(event))
                if on_text is not None and event.get("type") == "text":
                    results.append(on_text(event["text"]))
                awaitables = [r for r in results if inspect.isawaitable(r)]
                if awaitables:
                    return asyncio.gather(*awaitables)
                return None
        return await self.bridge.request("session/respond", params, on_event=handler)

    async def cancel(self) -> int:
        """Cancels the running turn and queued work; returns how many."""
        return (await self._call("session/cancel"))["cancelled"]

    async def reset(self) -> None:
        await self._call("session/reset")

    async def delete(self) -> None:
        await self._call("session/delete")

    async def transcript(self) -> dict:
        """The transcript, to save and pass as `history` later."""
        return (await self._call("session/transcript"))["transcript"]

    async def set_instructions(self, instructions: str | None) -> None:
        await self._call("session/setInstructions", instructions=instructions)

    async def set_context_note(self, note: str | None) -> None:
        await self._call("session/setContextNote", note=note)

    async def set_tools(self, tools) -> list[str]:
        """Replaces the tools (names of `@tool` functions or definitions);
        returns the warnings."""
        result = await self._call("session/setTools",
                                  tools=self.bridge._resolve_tools(tools))
        return result.get("warnings", [])

    async def compact(self, keep_recent_turns: int = 2,
                      summary_instructions: str | None = None) -> str | None:
        """Summarizes older turns into the context note; returns the summary."""
        params: dict[str, Any] = {"keepRecentTurns": keep_recent_turns}
        if summary_instructions is not None:
            params["summaryInstructions"] = summary_instructions
        return (await self._call("session/compact", **params))["summary"]
