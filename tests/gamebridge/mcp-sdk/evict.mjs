// SPDX-License-Identifier: LGPL-2.1-or-later
// evict.mjs: the official MCP TypeScript SDK client against a daemon whose
// session table holds <max> sessions. Client A is served, then left idle;
// client B keeps a long call (wait_for) running; <max> + 4 clients come and
// leave without DELETE. A's session was the least recently used one without
// a request in flight, so A's next call gets 404 and A initializes again; B's
// was never ended and its call returns. Prints one JSON line for
// test-mcp-sdk-http.
//   node evict.mjs <url> <max sessions> <game port> <wait ms> [request timeout ms]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, maxArg, portArg, waitArg, timeoutArg] = process.argv.slice(2);
const max = Number(maxArg);
const port = Number(portArg);
const waitMs = Number(waitArg);
// Each request's bound (slow under valgrind); the SDK's default is 60 s.
const timeout = Number(timeoutArg ?? 60000);
const options = { timeout, maxTotalTimeout: timeout };
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
  await client.connect(new StreamableHTTPClientTransport(new URL(url)), options);
  return client;
}

const health = (client) => client.callTool({ name: "call_tool", arguments: { name: "health", port } },
                                           undefined, options);
// A tool error is a result with isError: keep its text so the test can show it.
const content = (r) => r.isError ? { isError: true, text: r.content?.map((c) => c.text).join("\n") }
                                 : r.structuredContent;

const a = await connect("A");
const first = content(await health(a));

const b = await connect("B");
const waiting = b.callTool({
  name: "call_tool",
  arguments: { name: "wait_for", port, arguments: { path: "game.score", equals: -1, timeoutMs: waitMs } },
}, undefined, options);

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
const reinitialized = content(await health(again));
await again.close();

const waited = content(await waiting);
const busyAfter = content(await health(b));
await b.close();

console.log(JSON.stringify({ first, served, evicted, reinitialized, waited, busyAfter, errors }));
