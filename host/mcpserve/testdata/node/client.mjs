// The TypeScript SDK's client against `demiurge mcp serve`: over stdio
// (argv: the command and its arguments) or streamable HTTP (MCP_URL and
// MCP_TOKEN). It declares elicitation and answers every approval with
// DECISION (allow_once, allow_session or deny), recording each card it was
// shown; it lists the tools and makes the calls of CALLS (a JSON array of
// {name, arguments, task}; task: true makes it a task-augmented call through
// client.experimental.tasks, whose created task and statuses are reported
// too), then prints one JSON report on stdout.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const decision = process.env.DECISION ?? "deny";
const calls = JSON.parse(process.env.CALLS ?? "[]");
const asked = [];

const client = new Client({ name: "ts-sdk-test", version: "1.0.0" }, { capabilities: { elicitation: {} } });
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  asked.push({ message: req.params.message, choices: req.params.requestedSchema?.properties?.decision?.enum });
  return { action: "accept", content: { decision } };
});

let transport;
if (process.env.MCP_URL) {
  transport = new StreamableHTTPClientTransport(new URL(process.env.MCP_URL), {
    requestInit: { headers: { Authorization: `Bearer ${process.env.MCP_TOKEN}` } },
  });
} else {
  const [command, ...args] = process.argv.slice(2);
  transport = new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
}
await client.connect(transport);
const listed = await client.listTools();
const results = [];
const tasks = [];
for (const c of calls) {
  if (!c.task) {
    results.push(await client.callTool({ name: c.name, arguments: c.arguments }));
    continue;
  }
  const seen = { created: null, statuses: [], listed: false };
  let result = null;
  for await (const m of client.experimental.tasks.callToolStream({ name: c.name, arguments: c.arguments }, undefined, { task: { ttl: 60000 } })) {
    if (m.type === "taskCreated") {
      seen.created = m.task;
      const listed = await client.experimental.tasks.listTasks();
      seen.listed = listed.tasks.some((t) => t.taskId === m.task.taskId);
    } else if (m.type === "taskStatus") {
      seen.statuses.push(m.task.status);
    } else if (m.type === "result") {
      result = m.result;
    } else if (m.type === "error") {
      result = { isError: true, content: [{ type: "text", text: String(m.error?.message ?? m.error) }] };
    }
  }
  results.push(result);
  tasks.push(seen);
}
await client.close();
process.stdout.write(JSON.stringify({
  server: client.getServerVersion(),
  tools: listed.tools.map((t) => ({ name: t.name, annotations: t.annotations })),
  results,
  tasks,
  asked,
}) + "\n");
