// SPDX-License-Identifier: LGPL-2.1-or-later
// resume.mjs: the official MCP TypeScript SDK client calls launch_instance on
// gamegate's Streamable HTTP endpoint through a TCP proxy that cuts the
// connection carrying the call's SSE stream right after the first progress
// event, as a network would. The SDK reconnects by itself (GET with
// Last-Event-ID, after the stream's `retry`), gets the progress it missed
// and the launch's result. Then stop_instance. Prints one JSON line for
// test-mcp-sdk-http.
//   node resume.mjs <url> <timeout ms>
import net from "node:net";
import { once } from "node:events";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, timeoutArg] = process.argv.slice(2);
const timeout = Number(timeoutArg ?? 60000);
if (!url) {
  console.error("usage: node resume.mjs <url> [timeout ms]");
  process.exit(2);
}
const target = new URL(url);

// The proxy: everything passes, once; the first connection that carries a
// progress notification is cut after it.
let dropped = false;
let droppedAt = null;
let resumedAt = null;
const lastEventIds = [];
let retrySeen = null;
const proxy = net.createServer((downstream) => {
  const upstream = net.connect(Number(target.port), target.hostname);
  let seen = "";
  downstream.on("data", (chunk) => {
    const m = /^last-event-id:\s*(\S+)/im.exec(chunk.toString("latin1"));
    if (m) {
      lastEventIds.push(m[1]);
      resumedAt ??= Date.now();
    }
    upstream.write(chunk);
  });
  upstream.on("data", (chunk) => {
    downstream.write(chunk);
    seen = (seen + chunk.toString("latin1")).slice(-65536);
    const retry = /\nretry: (\d+)\n/.exec(seen);
    if (retry && retrySeen === null)
      retrySeen = Number(retry[1]);
    if (!dropped && seen.includes("notifications/progress")) {
      dropped = true;
      droppedAt = Date.now();
      // Let that event reach the client, then cut both ways.
      downstream.end(() => { downstream.destroy(); upstream.destroy(); });
    }
  });
  const close = () => { downstream.destroy(); upstream.destroy(); };
  downstream.on("error", close);
  upstream.on("error", close);
  downstream.on("close", close);
  upstream.on("close", close);
});
proxy.listen(0, "127.0.0.1");
await once(proxy, "listening");
const proxied = new URL(url);
proxied.port = String(proxy.address().port);

const errors = [];
const client = new Client({ name: "gamegate-resume", version: "1.0.0" });
client.onerror = (e) => errors.push(String(e?.message ?? e));
await client.connect(new StreamableHTTPClientTransport(proxied), { timeout });

let before = 0;
let after = 0;
const launched = await client.callTool({ name: "launch_instance", arguments: {} }, undefined, {
  timeout,
  maxTotalTimeout: timeout,
  resetTimeoutOnProgress: true,
  // The client runs in this process too: what it handled before it
  // reconnected came before the cut.
  onprogress: () => { if (resumedAt === null) before++; else after++; },
});
const reconnectedInMs = droppedAt !== null && resumedAt !== null ? resumedAt - droppedAt : null;
const port = launched.structuredContent?.port;
const stopped = port ? (await client.callTool({ name: "stop_instance", arguments: { port } })).structuredContent : null;
await client.close();
proxy.close();

console.log(JSON.stringify({
  launched: launched.isError ? { isError: true, text: launched.content?.map((c) => c.text).join("\n") }
                             : launched.structuredContent,
  dropped,
  lastEventIds,
  retrySeen,
  progressBefore: before,
  progressAfter: after,
  reconnectedInMs,
  stopped,
  errors,
}));
