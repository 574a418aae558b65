// SPDX-License-Identifier: LGPL-2.1-or-later
// resources-http.mjs: the official MCP TypeScript SDK client subscribed to
// a game's state resource over Streamable HTTP, where the updates are
// server-initiated notifications and travel on the session's standalone GET
// stream, not in a response: subscribe, let the game change, count the
// updates, unsubscribe, count again; prints what it saw as one JSON line.
//   node resources-http.mjs <url> <game port> <watch ms>
// GB_SDK_TIMEOUT_MS bounds each request (slow under valgrind).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const [url, portText, watchText] = process.argv.slice(2);
if (!url || !portText || !watchText) {
  console.error("usage: node resources-http.mjs <url> <game port> <watch ms>");
  process.exit(2);
}
const port = Number(portText);
const watchMs = Number(watchText);
const timeout = Number(process.env.GB_SDK_TIMEOUT_MS ?? 60000);
const options = { timeout, maxTotalTimeout: timeout };
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const transport = new StreamableHTTPClientTransport(new URL(url));
const client = new Client({ name: "gamegate-sdk-resources-http", version: "1.0.0" });
const errors = [];
client.onerror = (e) => errors.push(String(e?.message ?? e));
const updates = [];
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updates.push(n.params.uri));
await client.connect(transport, options);

const uri = `game://${port}/state`;
const out = { capabilities: client.getServerCapabilities() };
const subscribed = Date.now();
await client.subscribeResource({ uri }, options);
await sleep(watchMs);
const spawned = await client.callTool({ name: "call_tool", arguments: { name: "spawn", port, arguments: { kind: "wood" } } },
                                      undefined, options);
out.spawnFailed = spawned.isError ?? false;
await sleep(watchMs / 2);
out.updates = updates.filter((u) => u === uri).length;
await client.unsubscribeResource({ uri }, options);
out.subscribedMs = Date.now() - subscribed;
await sleep(300);
const before = updates.length;
await sleep(watchMs);
out.updatesAfterUnsubscribe = updates.length - before;
out.otherUpdates = updates.filter((u) => u !== uri);
await client.close();
out.errors = errors;
console.log(JSON.stringify(out));
