// SPDX-License-Identifier: LGPL-2.1-or-later
// gamegate-client.mjs: drives the real `gamegate mcp` (launching the
// reference game) with the official MCP TypeScript SDK client, and prints
// what it saw as one JSON line for test-mcp-sdk-gamegate to check.
//   node gamegate-client.mjs <command> [args...]
// The server gets this process's whole environment (GAMEGATE_PLUGIN_PATH,
// GAME_BRIDGE_INSTANCES, ...), not the SDK's short default list.
// GB_SDK_TIMEOUT_MS bounds each request and the server's exit (slow under
// valgrind).
import { once } from "node:events";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: node gamegate-client.mjs <gamegate command> [args...]");
  process.exit(2);
}
const timeout = Number(process.env.GB_SDK_TIMEOUT_MS ?? 60000);
const options = { timeout, maxTotalTimeout: timeout };

const transport = new StdioClientTransport({
  command, args, env: { ...process.env }, stderr: "inherit",
});
const client = new Client({ name: "gamegate-sdk-test", version: "1.0.0" });
// Progress that arrives in the same read as its response reaches onerror
// (see client.mjs); count it, keep anything else as an error.
let lateProgress = 0;
const errors = [];
client.onerror = (e) => {
  if (/progress notification for an unknown token/.test(String(e?.message ?? e)))
    lateProgress++;
  else
    errors.push(String(e?.message ?? e));
};
await client.connect(transport, options);

// A tool error is a result with isError; keep its text so the test can show it.
async function call(name, args, extra = {}) {
  const r = await client.callTool({ name, arguments: args }, undefined, { ...options, ...extra });
  if (r.isError)
    return { isError: true, text: r.content?.map((c) => c.text).join("\n") };
  return r.structuredContent;
}

const listed = await client.listTools(undefined, options);
const progress = [];
const launched = await call("launch_instance", {}, {
  onprogress: (p) => progress.push(p.progress),
  resetTimeoutOnProgress: true,
});
const port = launched.port;
const spawn = await call("call_tool", { name: "spawn", port, arguments: { kind: "steel" } });
const drop = await call("call_tool", { name: "drop", port, arguments: { x: 0.5, settle: true } });
const state = await call("call_tool", { name: "get_state", port });
const dropped = await call("call_tool", { name: "get_state", port, arguments: { path: "game.dropped" } });
const instances = await call("list_instances", {});
const stopped = await call("stop_instance", { port });
// A second instance left running: the server must stop it on stdin EOF.
const second = await call("launch_instance", {});

// Close stdin ourselves and wait for the exit status (a sanitizer or
// valgrind report shows there); the SDK's close() would SIGTERM a server
// that takes over two seconds, which a valgrind run does.
const proc = transport._process;
const exited = once(proc, "exit");
proc.stdin.end();
const [exitCode, exitSignal] = await Promise.race([
  exited,
  new Promise((resolve) => setTimeout(() => resolve([null, "timeout"]), timeout).unref()),
]);
await client.close();

console.log(JSON.stringify({
  server: client.getServerVersion(),
  capabilities: client.getServerCapabilities(),
  tools: listed.tools.map((t) => t.name),
  launched,
  progressReceived: progress.length + lateProgress,
  spawn,
  drop,
  state,
  dropped,
  instances,
  stopped,
  second,
  exitCode,
  exitSignal,
  errors,
}));
