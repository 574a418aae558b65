// SPDX-License-Identifier: LGPL-2.1-or-later
// leavers.mjs: clients of the official MCP TypeScript SDK that connect to
// gamegate's Streamable HTTP endpoint, make one call and leave the way the
// SDK's close() does: without DELETE. One process runs the cycles, each
// with a fresh Client and transport, <workers> at a time (default 4), and
// prints what it saw as one JSON line for test-mcp-sdk-http and the
// benchmark.
//   node leavers.mjs <url> <cycles> <game port> [workers]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, cyclesArg, portArg, workersArg] = process.argv.slice(2);
const cycles = Number(cyclesArg);
const port = Number(portArg);
const workers = Number(workersArg ?? 4);
if (!url || !(cycles > 0) || !(port > 0) || !(workers > 0)) {
  console.error("usage: node leavers.mjs <url> <cycles> <game port> [workers]");
  process.exit(2);
}

// Our own close() aborts the GET stream the SDK opened: not an error.
const ours = (e) => /abort/i.test(String(e?.name ?? "") + String(e?.message ?? e));
const errors = [];
const failures = [];
let served = 0;
let last = null;
let next = 0;

async function cycle(i) {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: "gamegate-leaver", version: "1.0.0" });
  client.onerror = (e) => {
    if (!ours(e))
      errors.push(`cycle ${i}: ${e?.message ?? e}`);
  };
  try {
    await client.connect(transport);
    const r = await client.callTool({ name: "call_tool", arguments: { name: "health", port } });
    if (r.isError)
      failures.push(`cycle ${i}: ${r.content?.map((c) => c.text).join("\n")}`);
    else {
      served++;
      last = r.structuredContent;
    }
  } catch (e) {
    failures.push(`cycle ${i}: ${e?.code ?? ""} ${e?.message ?? e}`);
  }
  // No DELETE: the SDK's close() only aborts its connections.
  await client.close();
}

async function worker() {
  while (next < cycles)
    await cycle(next++);
}

const start = Date.now();
await Promise.all(Array.from({ length: Math.min(workers, cycles) }, worker));
console.log(JSON.stringify({
  cycles,
  workers,
  served,
  failures: failures.slice(0, 5),
  failureCount: failures.length,
  errors: errors.slice(0, 5),
  errorCount: errors.length,
  last,
  ms: Date.now() - start,
}));
