"""gamegate's oam bridge from Python: in-process through the C ABI, or
`gamegate oam` over stdio.

Standard library only (Python 3.9+, asyncio and ctypes). The shape engine
authors know from the reference binding of open-apple-models:

    from gamegate_oam import Bridge, ToolError

    bridge = await Bridge.open()                  # libgamegate-oam-1, in-process

    @bridge.tool("open_gate", "Ask the game engine to open a named gate.",
                 {"type": "object", "properties": {"gate": {"type": "string"}},
                  "required": ["gate"]})
    def open_gate(gate):
        if gate == "north":
            raise ToolError("the portcullis chain is jammed")
        return {"opened": True}

    guard = await bridge.create_npc("guard", persona={"name": "Brom"},
                                    tools=["open_gate"], grounding_tool="open_gate")
    reply = await guard.talk("Open the north gate!", on_line=print)
    print(reply["line"])
    await bridge.close()

`Bridge.open(library=None)` loads the C ABI (gamegate-oam.h): `library`, else
$OAM_LIBRARY, else libgamegate-oam-1, else libOpenAppleModelsFFI.so; the
bridge reads the user's configuration and plugins as `gamegate oam` does.
`Bridge.spawn(gamegate)` runs `gamegate oam` instead. Both speak the same
protocol (oam-bridge-protocol-1.0) through the same object.

Every request gets a generated id `py-<n>`; `session/event`, `npc/event` and
any other notification carrying that id as `requestId` go to the caller's
`on_event`. `tool/call` requests are answered by the functions registered with
`@bridge.tool` (plain or async; raising ToolError sends `isError: true`);
any other request from the bridge is answered -32601 `method_not_found`.

SPDX-License-Identifier: LGPL-2.1-or-later
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import inspect
import json
import os
import shlex
from typing import Any, Awaitable, Callable

__all__ = ["Bridge", "BridgeError", "Npc", "Session", "ToolError", "World",
           "load_library"]

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


def _camel_keys(values: dict) -> dict:
    return {_camel(key): value for key, value in values.items()}


def _add_options(params: dict, options: dict | None, policy: dict) -> None:
    """`options`, with keyword options (`tool_choice=...`) added camel-cased."""
    options = dict(options or {})
    options.update(_camel_keys(policy))
    if options:
        params["options"] = options


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


# -- transports -----------------------------------------------------------

_MESSAGE_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_void_p)


def load_library(library: str | None = None) -> ctypes.CDLL:
    """The C ABI: `library`, else $OAM_LIBRARY, else libgamegate-oam-1, else
    the compatibility name libOpenAppleModelsFFI.so (the first that loads)."""
    candidates = [library] if library else []
    if not candidates and os.environ.get("OAM_LIBRARY"):
        candidates.append(os.environ["OAM_LIBRARY"])
    if not candidates:
        found = ctypes.util.find_library("gamegate-oam-1")
        candidates += [found] if found else []
        candidates += ["libgamegate-oam-1.so.0", "libOpenAppleModelsFFI.so"]
    errors = []
    for candidate in candidates:
        try:
            lib = ctypes.CDLL(candidate)
        except OSError as error:
            errors.append(str(error))
            continue
        lib.oam_bridge_create.restype = ctypes.c_void_p
        lib.oam_bridge_create.argtypes = [_MESSAGE_CALLBACK, ctypes.c_void_p]
        lib.oam_bridge_send.restype = ctypes.c_int
        lib.oam_bridge_send.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        lib.oam_bridge_destroy.restype = None
        lib.oam_bridge_destroy.argtypes = [ctypes.c_void_p]
        lib.oam_version.restype = ctypes.c_char_p
        lib.oam_version.argtypes = []
        # char *: a pointer, so that it can be given back to oam_string_free.
        lib.oam_call_blocking.restype = ctypes.c_void_p
        lib.oam_call_blocking.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
        lib.oam_string_free.restype = None
        lib.oam_string_free.argtypes = [ctypes.c_void_p]
        return lib
    raise OSError("cannot load the oam C ABI: " + "; ".join(errors))


class _LibraryTransport:
    """One oam_bridge of the C ABI. The callback runs on the bridge's own
    thread: it only hands each line to the event loop's thread."""

    def __init__(self, lib: ctypes.CDLL, loop: asyncio.AbstractEventLoop):
        self._lib = lib
        self._loop = loop
        self._lines: asyncio.Queue = asyncio.Queue()
        # Kept here as long as the bridge lives: ctypes would free it.
        self._callback = _MESSAGE_CALLBACK(self._on_message)
        self._bridge = lib.oam_bridge_create(self._callback, None)
        if not self._bridge:
            raise OSError("oam_bridge_create failed")
        self.pid = os.getpid()

    def _on_message(self, line: bytes, _user_data) -> None:
        try:
            self._loop.call_soon_threadsafe(self._lines.put_nowait, line)
        except RuntimeError:
            pass  # the loop is closed: nobody is listening any more

    async def send(self, line: bytes) -> None:
        if self._bridge is None:
            raise BrokenPipeError("the bridge is closed")
        status = self._lib.oam_bridge_send(self._bridge, line)
        if status != 0:
            raise ValueError(f"oam_bridge_send refused the message ({status})")

    async def readline(self) -> bytes:
        return await self._lines.get()

    def call_blocking(self, line: bytes, timeout_ms: int) -> bytes:
        pointer = self._lib.oam_call_blocking(self._bridge, line, timeout_ms)
        try:
            return ctypes.string_at(pointer)
        finally:
            self._lib.oam_string_free(pointer)

    async def close(self, timeout: float) -> int:
        bridge, self._bridge = self._bridge, None
        if bridge is not None:
            # It waits for a callback in progress: not on the loop's thread.
            await self._loop.run_in_executor(None, self._lib.oam_bridge_destroy, bridge)
        self._lines.put_nowait(b"")
        return 0


class _ProcessTransport:
    """`gamegate oam` (or any program speaking the protocol) on stdio."""

    def __init__(self, process: asyncio.subprocess.Process):
        self._process = process
        self.pid = process.pid

    async def send(self, line: bytes) -> None:
        self._process.stdin.write(line + b"\n")
        await self._process.stdin.drain()

    async def readline(self) -> bytes:
        return await self._process.stdout.readline()

    async def close(self, timeout: float) -> int:
        """Closes stdin (the bridge answers what it has, then exits)."""
        if not self._process.stdin.is_closing():
            self._process.stdin.close()
        try:
            return await asyncio.wait_for(self._process.wait(), timeout)
        except asyncio.TimeoutError:
            self._process.kill()
            return await self._process.wait()


# -- the bridge -----------------------------------------------------------

class Bridge:
    """One client of the oam bridge, in-process or on a process's stdio."""

    def __init__(self, transport):
        self._transport = transport
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
    async def open(cls, library: str | None = None) -> "Bridge":
        """A bridge in this process, through the C ABI (see load_library)."""
        return cls(_LibraryTransport(load_library(library), asyncio.get_running_loop()))

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
        return cls(_ProcessTransport(process))

    @property
    def pid(self) -> int:
        """The bridge's process (this one, in-process)."""
        return self._transport.pid

    # -- sending -----------------------------------------------------------

    async def _send(self, message: dict) -> None:
        message = {"jsonrpc": "2.0", **message}
        line = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        await self._transport.send(line.encode("utf-8"))

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

    def call_blocking(self, method: str, params: dict | None = None,
                      timeout: float = 0) -> Any:
        """In-process only, from a thread of the caller's (never the event
        loop's, whose callbacks it would hold up): oam_call_blocking(). Its
        events go to the notification handlers; `timeout` in seconds (0:
        forever) cancels the request and raises BridgeError `timeout`."""
        if not isinstance(self._transport, _LibraryTransport):
            raise TypeError("call_blocking needs a bridge opened in-process")
        message = {"method": method}
        if params is not None:
            message["params"] = params
        line = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        response = json.loads(self._transport.call_blocking(line.encode("utf-8"), int(timeout * 1000)))
        if "error" in response:
            error = response["error"] or {}
            raise BridgeError(error.get("code", 0), error.get("message", ""), error.get("data"))
        return response.get("result")

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
        try:
            while True:
                line = await self._transport.readline()
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
        _add_options(params, options, policy)
        if history is not None:
            params["history"] = history
        if model is not None:
            params["model"] = model
        result = await self.request("session/create", params)
        return Session(self, result["session"], result.get("warnings", []))

    # -- NPCs, decisions, worlds, content (section 6) ---------------------

    async def create_npc(self, npc: str | None = None, *, persona: dict, tools=None,
                         world: "str | World | None" = None, memory: dict | None = None,
                         options: dict | None = None, model: Any = None, **policy) -> "Npc":
        """`npc/create`. `tools` as for sessions; keyword options
        (`grounding_tool="open_gate"`, `reply_format="text"`) go into `options`."""
        params: dict[str, Any] = {"persona": persona}
        if npc is not None:
            params["npc"] = npc
        if tools is not None:
            params["tools"] = self._resolve_tools(tools)
        if world is not None:
            params["world"] = world.id if isinstance(world, World) else world
        if memory is not None:
            params["memory"] = memory
        _add_options(params, options, policy)
        if model is not None:
            params["model"] = model
        return Npc(self, await self.request("npc/create", params))

    async def restore_npc(self, state: dict, **params) -> "Npc":
        """`npc/restore` from what Npc.state() saved; keywords (`npc`, `tools`,
        `options`, `world`, `model`) win over the save."""
        if "tools" in params:
            params["tools"] = self._resolve_tools(params["tools"])
        return Npc(self, await self.request("npc/restore", {"state": state, **_camel_keys(params)}))

    async def decide(self, situation: Any, options: list, **params) -> dict:
        """`decision/decide`: `{"optionID", "reasoning", "confidence", …}`.
        Keywords: `actor`, `context`, `tools`, `tool_choice`,
        `fallback_option_id`, `instructions`, `temperature`, `model`…"""
        if "tools" in params:
            params["tools"] = self._resolve_tools(params["tools"])
        if "fallback_option_id" in params:
            params["fallbackOptionID"] = params.pop("fallback_option_id")
        return await self.request("decision/decide", {"situation": situation, "options": options,
                                                      **_camel_keys(params)})

    async def decide_many(self, requests: list[dict], **settings) -> list:
        """`decision/decideMany`: the results, in request order."""
        result = await self.request("decision/decideMany", {"requests": requests,
                                                            **_camel_keys(settings)})
        return result["results"]

    async def create_world(self, world: str | None = None, state: dict | None = None) -> "World":
        """`world/create`: a blackboard the game and NPCs share."""
        params: dict[str, Any] = {}
        if world is not None:
            params["world"] = world
        if state is not None:
            params["state"] = state
        return World(self, (await self.request("world/create", params))["world"])

    async def generate(self, prompt: str, schema: dict, **params) -> Any:
        """`content/generate`: JSON content matching `schema`."""
        if "tools" in params:
            params["tools"] = self._resolve_tools(params["tools"])
        result = await self.request("content/generate", {"prompt": prompt, "schema": schema,
                                                         **_camel_keys(params)})
        return result["content"]

    # -- shutting down -----------------------------------------------------

    async def close(self, timeout: float = 30.0) -> int:
        """Ends the bridge (in-process: destroys it; stdio: closes stdin, the
        bridge answers what it has and exits) and returns the exit status."""
        status = await self._transport.close(timeout)
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
        params.update(_camel_keys(policy))
        handler = _stream_handler(params, on_event, on_text,
                                  lambda event: event["text"] if event.get("type") == "text" else None)
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


def _stream_handler(params: dict, on_event, on_text, text_of):
    """Turns streaming on when a handler is given; the handler calls
    `on_event(event)` and `on_text(text)` for events that carry text."""
    if on_text is None and on_event is None:
        return None
    params["stream"] = True

    def handler(event):
        results = []
        if on_event is not None:
            results.append(on_event(event))
        text = text_of(event) if on_text is not None else None
        if text is not None:
            results.append(on_text(text))
        awaitables = [r for r in results if inspect.isawaitable(r)]
        if awaitables:
            return asyncio.gather(*awaitables)
        return None
    return handler


class Npc:
    """An NPC (`npc/*`): a persona, its conversation and memory."""

    def __init__(self, bridge: Bridge, created: dict):
        self.bridge = bridge
        self.id = created["npc"]
        self.tools = created.get("tools", [])
        self.warnings = created.get("warnings", [])

    async def _call(self, method: str, **params) -> dict:
        return await self.bridge.request(method, {"npc": self.id, **params})

    async def talk(self, line: str = "", context: Any = None,
                   on_line: Callable[[str], Any] | None = None,
                   on_event: Callable[[dict], Any] | None = None, **overrides) -> dict:
        """One turn: the player's `line` ("" says nothing). Returns the reply
        (`line`, `emotion`, `playerOptions`, `endsConversation`, …).

        `on_line(text)` gets the line as displayed so far after every
        `lineDelta`/`lineReset`; `on_event(event)` every `npc/event`. Either
        turns streaming on."""
        params: dict[str, Any] = {"npc": self.id, "line": line}
        if context is not None:
            params["context"] = context
        params.update(_camel_keys(overrides))
        shown = [""]

        def line_of(event):
            if event.get("type") == "lineDelta":
                shown[0] += event.get("delta", "")
            elif event.get("type") == "lineReset":
                shown[0] = event.get("line", "")
            else:
                return None
            return shown[0]
        handler = _stream_handler(params, on_event, on_line, line_of)
        return await self.bridge.request("npc/talk", params, on_event=handler)

    async def bark(self, situation: Any = None) -> str:
        """A short ambient line (no history, memory or tools)."""
        params = {} if situation is None else {"situation": situation}
        return (await self._call("npc/bark", **params))["line"]

    async def state(self, settle: bool = True) -> dict:
        """The save state, for Bridge.restore_npc()."""
        return (await self._call("npc/state", settle=settle))["state"]

    async def update(self, persona: dict | None = None, options: dict | None = None,
                     memory: dict | None = None, tools=None) -> list[str]:
        """Merge patches of persona, options and memory; `tools` replaces the
        client tools. Returns the warnings."""
        params: dict[str, Any] = {}
        for key, value in (("persona", persona), ("options", options), ("memory", memory)):
            if value is not None:
                params[key] = value
        if tools is not None:
            params["tools"] = self.bridge._resolve_tools(tools)
        return (await self._call("npc/update", **params)).get("warnings", [])

    async def reset(self, clear_memory: bool = False) -> None:
        await self._call("npc/reset", clearMemory=clear_memory)

    async def cancel(self) -> int:
        """Cancels the running turn and queued requests; returns how many."""
        return (await self._call("npc/cancel"))["cancelled"]

    async def delete(self) -> None:
        await self._call("npc/delete")


class World:
    """A world blackboard (`world/*`): dot paths into one JSON object."""

    def __init__(self, bridge: Bridge, world: str):
        self.bridge = bridge
        self.id = world
        self._subscriptions: dict[str, Callable[[dict], Any]] = {}
        bridge.on_notification("world/changed", self._on_changed)

    def _on_changed(self, params: dict):
        handler = self._subscriptions.get(params.get("subscription"))
        return handler(params) if handler is not None else None

    async def _call(self, method: str, **params) -> dict:
        return await self.bridge.request(method, {"world": self.id, **params})

    async def get(self, path: str = "") -> Any:
        """The value at `path` (None when absent)."""
        return (await self._call("world/get", path=path))["value"]

    async def set(self, path: str, value: Any) -> int:
        """Sets `path`; returns the world's version."""
        return (await self._call("world/set", path=path, value=value))["version"]

    async def merge(self, patch: dict, path: str = "") -> int:
        """RFC 7386 merge patch at `path`; returns the version."""
        return (await self._call("world/merge", path=path, patch=patch))["version"]

    async def remove(self, path: str) -> Any:
        """Removes `path`; returns the old value."""
        return (await self._call("world/remove", path=path)).get("oldValue")

    async def snapshot(self) -> dict:
        return (await self._call("world/snapshot"))["state"]

    async def subscribe(self, handler: Callable[[dict], Any], path: str = "") -> str:
        """Calls `handler(change)` for every change at, in or above `path`
        (`world/changed` params); returns the subscription id."""
        subscription = (await self._call("world/subscribe", path=path))["subscription"]
        self._subscriptions[subscription] = handler
        return subscription

    async def unsubscribe(self, subscription: str) -> None:
        self._subscriptions.pop(subscription, None)
        await self.bridge.request("world/unsubscribe", {"subscription": subscription})

    async def delete(self) -> None:
        await self._call("world/delete")
