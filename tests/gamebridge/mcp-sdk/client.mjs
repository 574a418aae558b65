// SPDX-License-Identifier: LGPL-2.1-or-later
// client.mjs: drives a stdio MCP server with the official MCP TypeScript SDK
// client and prints what it saw as one JSON line.
//   node client.mjs <command> [args...]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: node client.mjs <server command> [args...]");
  process.exit(2);
}

const transport = new StdioClientTransport({ command, args, stderr: "inherit" });
const client = new Client({ name: "gamegate-sdk-test", version: "1.0.0" });
// The SDK runs notification handlers a microtask late, and forgets a
// request's progress handler as soon as its response is read: progress that
// arrives in the same read as the response reaches onerror instead. Count it
// as received.
let lateProgress = 0;
const errors = [];
client.onerror = (e) => {
  if (/progress notification for an unknown token/.test(String(e?.message ?? e)))
    lateProgress++;
  else
    errors.push(String(e?.message ?? e));
};
await client.connect(transport);

const listed = await client.listTools();
const echo = await client.callTool({ name: "echo", arguments: { hello: "world" } });
const fail = await client.callTool({ name: "fail", arguments: {} });
const progress = [];
await client.callTool({ name: "progress", arguments: {} }, undefined, {
  onprogress: (p) => progress.push(p.progress),
});
let unknownTool = null;
try {
  await client.callTool({ name: "nosuch", arguments: {} });
} catch (e) {
  unknownTool = e.code ?? String(e);
}
await client.ping();

console.log(JSON.stringify({
  server: client.getServerVersion(),
  capabilities: client.getServerCapabilities(),
  instructions: client.getInstructions(),
  tools: listed.tools.map((t) => t.name),
  echo: echo.structuredContent,
  failIsError: fail.isError === true,
  progress,
  progressReceived: progress.length + lateProgress,
  unknownTool,
  errors,
}));
await client.close();
