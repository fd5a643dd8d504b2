// The ACP client of the demiurge acp tests: the official TypeScript SDK
// driving `demiurge acp` over stdio. The plan (ACP_PLAN, JSON) says what
// to do; what the agent sent comes back as one JSON report on stdout.
//
//	{"cmd": [bin, ...args], "cwd": DIR,
//	 (a step's "cancelOnTerminal": true cancels it once its terminal/create came)
//	 "load": SESSION_ID (optional: session/load it first),
//	 "steps": [{"prompt": TEXT, "answers": [KIND...], "cancelAfterMs": N,
//	            "newSession": bool}]}
//
// "buffers" (optional: {absolute path: text}) makes this client an editor
// that offers fs/read_text_file and fs/write_text_file on those buffers;
// every such call is reported under "editor".
//
// "terminal": true makes this client an editor that offers a terminal:
// terminal/create runs the command for real (child_process, no shell of
// its own), and every terminal/* call is reported under "editor".
//
// "elicit": [ANSWER...] makes this client offer form elicitation: each
// elicitation/create is reported under "elicitations" and answered with
// the next answer as the form's "answer" ("decline" declines).
//
// "sessionOps": true, after the steps: session/list (in the project and
// for "/"), session/close of the last session and a prompt to it (its
// error), session/resume of it and a prompt "after resume".
//
// answers are the permission option kinds this client picks, in order
// (allow_once, allow_always, reject_once; "cancelled" answers cancelled).
import { client, ndJsonStream } from "@agentclientprotocol/sdk";
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";

const plan = JSON.parse(process.env.ACP_PLAN);
const proc = spawn(plan.cmd[0], plan.cmd.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
const stream = ndJsonStream(Writable.toWeb(proc.stdin), Readable.toWeb(proc.stdout));

const report = { sessions: [], updates: [], permissions: [], stops: [], errors: [], ms: [], editor: [] };
const buffers = plan.buffers ?? null;
const t0 = Date.now();
let answers = [];
let cancelOnTerminal = false;

const app = client({ name: "demiurge-acp-test" })
  .onNotification("session/update", async ({ params }) => {
    report.updates.push(params);
  })
  .onRequest("session/request_permission", async ({ params }) => {
    const kind = answers.shift();
    report.permissions.push({ params, answered: kind ?? "none" });
    if (!kind || kind === "cancelled") {
      return { outcome: { outcome: "cancelled" } };
    }
    const opt = params.options.find((o) => o.kind === kind);
    if (!opt) {
      throw new Error(`no option of kind ${kind} among ${JSON.stringify(params.options)}`);
    }
    return { outcome: { outcome: "selected", optionId: opt.optionId } };
  });

if (buffers) {
  app
    .onRequest("fs/read_text_file", async ({ params }) => {
      report.editor.push({ method: "fs/read_text_file", params });
      if (!(params.path in buffers)) {
        throw new Error(`no buffer for ${params.path}`);
      }
      return { content: buffers[params.path] };
    })
    .onRequest("fs/write_text_file", async ({ params }) => {
      report.editor.push({ method: "fs/write_text_file", params });
      buffers[params.path] = params.content;
      return {};
    });
}

if (plan.terminal) {
  const terms = new Map();
  let next = 0;
  const term = (params) => {
    const t = terms.get(params.terminalId);
    if (!t) {
      throw new Error(`no terminal ${params.terminalId}`);
    }
    return t;
  };
  app
    .onRequest("terminal/create", async ({ params }) => {
      report.editor.push({ method: "terminal/create", params });
      const env = Object.fromEntries((params.env ?? []).map((v) => [v.name, v.value]));
      const child = spawn(params.command, params.args ?? [], { cwd: params.cwd, env: { ...process.env, ...env } });
      const t = { output: "", truncated: false, limit: params.outputByteLimit ?? 1 << 20, exit: null };
      const add = (b) => {
        t.output += b.toString();
        if (Buffer.byteLength(t.output) > t.limit) {
          t.output = t.output.slice(-t.limit);
          t.truncated = true;
        }
      };
      child.stdout.on("data", add);
      child.stderr.on("data", add);
      t.done = new Promise((resolve) =>
        child.on("close", (code, signal) => {
          t.exit = { exitCode: code, signal };
          resolve(t.exit);
        }),
      );
      t.child = child;
      const terminalId = `term-${++next}`;
      terms.set(terminalId, t);
      if (cancelOnTerminal) {
        // The step cancels its turn once its command runs in this terminal.
        cancelOnTerminal = false;
        setTimeout(() => agent.notify("session/cancel", { sessionId: params.sessionId }), 300);
      }
      return { terminalId };
    })
    .onRequest("terminal/wait_for_exit", async ({ params }) => {
      report.editor.push({ method: "terminal/wait_for_exit", params });
      return await term(params).done;
    })
    .onRequest("terminal/output", async ({ params }) => {
      report.editor.push({ method: "terminal/output", params });
      const t = term(params);
      return { output: t.output, truncated: t.truncated, exitStatus: t.exit };
    })
    .onRequest("terminal/kill", async ({ params }) => {
      report.editor.push({ method: "terminal/kill", params });
      term(params).child.kill("SIGKILL");
      return {};
    })
    .onRequest("terminal/release", async ({ params }) => {
      report.editor.push({ method: "terminal/release", params });
      const t = term(params);
      if (t.exit === null) {
        t.child.kill("SIGKILL");
      }
      terms.delete(params.terminalId);
      return {};
    });
}

if (plan.elicit) {
  const elicitAnswers = [...plan.elicit];
  report.elicitations = [];
  app.onRequest("elicitation/create", async ({ params }) => {
    report.elicitations.push(params);
    const a = elicitAnswers.shift();
    if (a === undefined || a === "decline") {
      return { action: "decline" };
    }
    return { action: "accept", content: { answer: a } };
  });
}

const conn = app.connect(stream);
const agent = conn.agent;
try {
  report.initialize = await agent.request("initialize", {
    protocolVersion: 1,
    clientCapabilities: {
      ...(buffers ? { fs: { readTextFile: true, writeTextFile: true } } : {}),
      ...(plan.terminal ? { terminal: true } : {}),
      ...(plan.elicit ? { elicitation: { form: {} } } : {}),
    },
  });
  let sessionId;
  if (plan.load) {
    report.load = await agent.request("session/load", { sessionId: plan.load, cwd: plan.cwd, mcpServers: [] });
    sessionId = plan.load;
  } else {
    sessionId = (await agent.request("session/new", { cwd: plan.cwd, mcpServers: [] })).sessionId;
  }
  report.sessions.push(sessionId);
  for (const step of plan.steps) {
    if (step.newSession) {
      sessionId = (await agent.request("session/new", { cwd: plan.cwd, mcpServers: [] })).sessionId;
      report.sessions.push(sessionId);
    }
    answers = [...(step.answers ?? [])];
    cancelOnTerminal = !!step.cancelOnTerminal;
    const req = agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: step.prompt }] });
    if (step.cancelAfterMs) {
      // Mid-turn: the model's reply is still on its way.
      setTimeout(() => agent.notify("session/cancel", { sessionId }), step.cancelAfterMs);
    }
    try {
      const res = await req;
      report.stops.push(res.stopReason);
      report.ms.push(Date.now() - t0);
    } catch (e) {
      report.stops.push("error");
      report.errors.push(String(e?.message ?? e));
    }
  }
  if (plan.sessionOps) {
    report.list = await agent.request("session/list", { cwd: plan.cwd });
    report.listOutside = await agent.request("session/list", { cwd: "/" });
    await agent.request("session/close", { sessionId });
    try {
      await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "closed?" }] });
      report.afterClose = { code: 0 };
    } catch (e) {
      report.afterClose = { code: e.code, message: e.message, data: e.data };
    }
    await agent.request("session/resume", { sessionId, cwd: plan.cwd, mcpServers: [] });
    const res = await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "after resume" }] });
    report.stops.push(res.stopReason);
  }
  try {
    await agent.request("session/prompt", { sessionId: "no-such-session", prompt: [{ type: "text", text: "hi" }] });
  } catch (e) {
    report.unknownSession = { code: e.code, message: e.message, data: e.data };
  }
} catch (e) {
  report.fatal = String(e?.stack ?? e);
}
process.stdout.write(JSON.stringify(report) + "\n");
proc.stdin.end();
const timer = setTimeout(() => proc.kill("SIGKILL"), 10000);
proc.on("exit", (code) => {
  clearTimeout(timer);
  process.exit(0);
});
