// An independent MCP client: the official TypeScript SDK drives a server over
// stdio, lists its tools, searches, reads the first hit and prints one JSON
// object for the Python test to check.
//
// usage: node stdio_client.mjs QUERY COMMAND [ARG...]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [query, command, ...args] = process.argv.slice(2);
if (!query || !command) {
  console.error("usage: node stdio_client.mjs QUERY COMMAND [ARG...]");
  process.exit(2);
}

const transport = new StdioClientTransport({ command, args, stderr: "inherit" });
const client = new Client({ name: "contextpull-js-test", version: "1.0.0" });
await client.connect(transport);

const payload = (result) => JSON.parse(result.content[0].text);

const { tools } = await client.listTools();
const search = await client.callTool({ name: "search", arguments: { query } });
const hits = payload(search).hits;
const read = hits.length
  ? await client.callTool({ name: "read", arguments: { id: hits[0].id } })
  : null;
const missing = await client.callTool({ name: "read", arguments: { id: "no/such.md#0" } });

console.log(
  JSON.stringify({
    instructions: client.getInstructions() ?? null,
    tools: tools.map((t) => ({ name: t.name, annotations: t.annotations ?? null })),
    search: { isError: search.isError ?? false, payload: payload(search), structured: search.structuredContent ?? null },
    read: read && { isError: read.isError ?? false, payload: payload(read) },
    missing: { isError: missing.isError ?? false, payload: payload(missing) },
  }),
);
await client.close();
