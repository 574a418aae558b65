// SPDX-License-Identifier: LGPL-2.1-or-later
// http-call.mjs: one agent run against a daemon's MCP endpoint over
// Streamable HTTP with the official MCP TypeScript SDK client: connect,
// list the tools, call one, close() (as agents do: the SDK sends no DELETE),
// and print what it saw as one JSON line.
//   node http-call.mjs <url> <tool> <arguments as JSON>
// GB_SDK_TIMEOUT_MS bounds each request (slow under valgrind).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, tool, argumentsJson] = process.argv.slice(2);
if (!url || !tool) {
  console.error("usage: node http-call.mjs <url> <tool> [<arguments as JSON>]");
  process.exit(2);
}
const timeout = Number(process.env.GB_SDK_TIMEOUT_MS ?? 60000);
const options = { timeout, maxTotalTimeout: timeout };

const transport = new StreamableHTTPClientTransport(new URL(url));
const client = new Client({ name: "gamegate-sdk-http", version: "1.0.0" });
const errors = [];
client.onerror = (e) => errors.push(String(e?.message ?? e));
await client.connect(transport, options);

const listed = await client.listTools(undefined, options);
const answer = await client.callTool({ name: tool, arguments: JSON.parse(argumentsJson ?? "{}") },
                                     undefined, options);
const result = answer.isError
  ? { isError: true, text: answer.content?.map((c) => c.text).join("\n") }
  : answer.structuredContent;
const sessionId = transport.sessionId;
await client.close();

console.log(JSON.stringify({
  server: client.getServerVersion()?.name,
  protocolVersion: transport.protocolVersion,
  session: typeof sessionId === "string" && sessionId.length > 0,
  tools: listed.tools.map((t) => t.name),
  result,
  errors,
}));
