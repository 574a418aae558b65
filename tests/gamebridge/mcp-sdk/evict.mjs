// SPDX-License-Identifier: LGPL-2.1-or-later
// evict.mjs: the official MCP TypeScript SDK client against a daemon whose
// session table holds <max> sessions. Client A is served, then left idle;
// client B keeps a long call (wait_for) running; <max> + 4 clients come and
// leave without DELETE. A's session was the least recently used one without
// a request in flight, so A's next call gets 404 and A initializes again; B's
// was never ended and its call returns. Prints one JSON line for
// test-mcp-sdk-http.
//   node evict.mjs <url> <max sessions> <game port> <wait ms>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, maxArg, portArg, waitArg] = process.argv.slice(2);
const max = Number(maxArg);
const port = Number(portArg);
const waitMs = Number(waitArg);
if (!url || !(max > 0) || !(port > 0) || !(waitMs > 0)) {
  console.error("usage: node evict.mjs <url> <max sessions> <game port> <wait ms>");
  process.exit(2);
}

const errors = { A: [], B: [], other: [] };
const ours = (e) => /abort/i.test(String(e?.name ?? "") + String(e?.message ?? e));

async function connect(who) {
  const client = new Client({ name: `gamegate-evict-${who}`, version: "1.0.0" });
  client.onerror = (e) => {
    if (!ours(e))
      (errors[who] ?? errors.other).push(String(e?.message ?? e));
  };
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

const health = (client) => client.callTool({ name: "call_tool", arguments: { name: "health", port } });

const a = await connect("A");
const first = (await health(a)).structuredContent;

const b = await connect("B");
const waiting = b.callTool({
  name: "call_tool",
  arguments: { name: "wait_for", port, arguments: { path: "game.score", equals: -1, timeoutMs: waitMs } },
});

let served = 0;
for (let i = 0; i < max + 4; i++) {
  const c = await connect("other");
  if (!(await health(c)).isError)
    served++;
  await c.close();
}

let evicted = null;
try {
  await health(a);
} catch (e) {
  evicted = { code: e?.code ?? null, message: String(e?.message ?? e) };
}
await a.close();
const again = await connect("A");
const reinitialized = (await health(again)).structuredContent;
await again.close();

const waited = (await waiting).structuredContent;
const busyAfter = (await health(b)).structuredContent;
await b.close();

console.log(JSON.stringify({ first, served, evicted, reinitialized, waited, busyAfter, errors }));
