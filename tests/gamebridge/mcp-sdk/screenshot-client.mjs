// SPDX-License-Identifier: LGPL-2.1-or-later
// screenshot-client.mjs: the official MCP TypeScript SDK client driving the
// real `gamegate mcp` through gamegate's extension: screenshots as image
// content (after spawn and drop, with call_tool's screenshot, on games that
// answer wrongly, on a GABP mod), and each instance's state, log and
// screenshot as resources (list, templates, read, subscribe, updates,
// unsubscribe). It prints what it saw as one JSON line for
// test-mcp-sdk-screenshot to check (images as their base64).
//   node screenshot-client.mjs <command> [args...]
// GB_SDK_PORTS: {"noScreenshot","truncated","notImage","huge"} ports of
// games the test started; GB_SDK_GABP: a GABP instance id, or empty.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  ResourceUpdatedNotificationSchema,
  ResourceListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

const [command, ...args] = process.argv.slice(2);
const timeout = Number(process.env.GB_SDK_TIMEOUT_MS ?? 60000);
const options = { timeout, maxTotalTimeout: timeout };
const ports = JSON.parse(process.env.GB_SDK_PORTS ?? "{}");
const gabp = process.env.GB_SDK_GABP ?? "";
const watchMs = Number(process.env.GB_SDK_WATCH_MS ?? 1500);

const transport = new StdioClientTransport({ command, args, env: { ...process.env }, stderr: "inherit" });
const client = new Client({ name: "gamegate-sdk-screenshot", version: "1.0.0" });
const errors = [];
client.onerror = (e) => {
  if (!/progress notification for an unknown token/.test(String(e?.message ?? e)))
    errors.push(String(e?.message ?? e));
};
const updates = [];
let listChanged = 0;
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updates.push(n.params.uri));
client.setNotificationHandler(ResourceListChangedNotificationSchema, () => listChanged++);
await client.connect(transport, options);

// A tool call as the SDK parsed it: its content kinds, text, image.
async function call(name, a) {
  const r = await client.callTool({ name, arguments: a }, undefined, options);
  const text = r.content.find((c) => c.type === "text")?.text;
  const image = r.content.find((c) => c.type === "image");
  return {
    isError: r.isError ?? false,
    kinds: r.content.map((c) => c.type),
    text: r.isError ? text : undefined,
    structured: r.structuredContent,
    image: image ? { mimeType: image.mimeType, data: image.data } : null,
  };
}

// A request that must fail: its JSON-RPC code and message.
async function failing(promise) {
  try {
    await promise;
    return { code: null };
  } catch (e) {
    return { code: e.code ?? null, message: String(e.message ?? e), data: e.data ?? null };
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const out = {};

const launched = (await call("launch_instance", {})).structured;
const port = launched.port;
out.port = port;

// Act, then look: the crate where the state says, in the picture.
await call("call_tool", { name: "spawn", port, arguments: { kind: "steel" } });
out.dropped = await call("call_tool", { name: "drop", port, arguments: { x: -1 }, screenshot: true });
await call("call_tool", { name: "spawn", port, arguments: { kind: "ice" } });
out.shot = await call("call_tool", { name: "screenshot", port });
out.state = (await call("call_tool", { name: "get_state", port })).structured.state;
out.small = await call("call_tool", { name: "screenshot", port, arguments: { width: 160 } });
out.toolsets = (await call("list_toolsets", { port })).structured;

// Games that answer wrongly, or not at all.
for (const [key, p] of Object.entries(ports))
  out[key] = await call("call_tool", { name: "screenshot", port: p });

if (gabp !== "") {
  // Until the mod is connected.
  for (let tries = 0; tries < 200; tries++) {
    const r = await client.callTool({ name: "list_toolsets", arguments: { instance: gabp } }, undefined, options);
    if (!r.isError)
      break;
    await sleep(100);
  }
  out.gabpShot = await call("call_tool", { name: "screenshot", instance: gabp });
  out.gabpBad = await call("call_tool", { name: "game/bad_image", instance: gabp, arguments: { kind: "truncated" } });
}

// Resources.
out.capabilities = client.getServerCapabilities();
out.resources = (await client.listResources(undefined, options)).resources;
out.templates = (await client.listResourceTemplates(undefined, options)).resourceTemplates;
const base = `game://${port}`;
out.readState = (await client.readResource({ uri: `${base}/state` }, options)).contents;
out.readLog = (await client.readResource({ uri: `${base}/log` }, options)).contents;
out.readScreenshot = (await client.readResource({ uri: `${base}/screenshot` }, options)).contents;
out.readUnknown = await failing(client.readResource({ uri: `${base}/nothing` }, options));
out.readNoGame = ports.noGame ? await failing(client.readResource({ uri: `game://${ports.noGame}/state` }, options))
                              : null;
out.subscribeUnknown = await failing(client.subscribeResource({ uri: "test://watched-resource" }, options));

// Subscribed: the game's frames advance, updates come, at most one per interval.
const subscribed = Date.now();
await client.subscribeResource({ uri: `${base}/state` }, options);
await client.subscribeResource({ uri: `${base}/log` }, options);
await sleep(watchMs);
await call("call_tool", { name: "spawn", port, arguments: { kind: "wood" } });
await sleep(watchMs / 2);
out.updatesState = updates.filter((u) => u === `${base}/state`).length;
out.updatesLog = updates.filter((u) => u === `${base}/log`).length;
await client.unsubscribeResource({ uri: `${base}/state` }, options);
await client.unsubscribeResource({ uri: `${base}/log` }, options);
// How long the subscription lasted: the bound on its updates.
out.subscribedMs = Date.now() - subscribed;
await sleep(300);
const before = updates.length;
await sleep(watchMs);
out.updatesAfterUnsubscribe = updates.length - before;
out.otherUpdates = updates.filter((u) => u !== `${base}/state` && u !== `${base}/log`);
out.listChanged = listChanged;

await call("stop_instance", { port });
await client.close();
out.errors = errors;
console.log(JSON.stringify(out));
