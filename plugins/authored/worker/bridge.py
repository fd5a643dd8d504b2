"""Demiurge authored-tool SDK and worker bridge.

An authored tool is a directory under the core's slots.tools root with a
tool.yaml and, by default, a module.py whose ``execute(ctx, args)`` runs one
call::

    from demiurge.sdk import ToolResult

    def execute(ctx, args):
        ctx.capability.require("fs.write")      # listed in tool.yaml capabilities
        ctx.output.deliver("working on it")     # reaches the active turn, if any
        return ToolResult(content="done", display_output="wrote the note")

Return a ToolResult, a dict with ToolResult's fields, or any value: a str is
the content, other JSON values become JSON text, anything else str(value).
The lifecycle fields executionStarted, denial and approval are the host's:
values returned for them are ignored.

The host runs this file as the worker bridge (``python3 -I -B -c``): it
imports the tool's module, then answers calls as newline-delimited JSON on
its stdin and stdout. stdout belongs to the protocol, so the bridge points
the module's stdout (sys.stdout and file descriptor 1) at stderr, and its
stdin at /dev/null. Outside a worker this module is only the SDK: install it
to get ToolResult and the ToolContext types for tests and editors.
"""

import json
import os
import sys
import traceback
import types

PROTOCOL = 1

__all__ = ["ToolResult", "ToolContext", "CapabilityDenied", "ToolCallError",
           "AgentRunResult", "AgentSpawnHandle", "PROTOCOL"]


class ToolResult:
    """A tool's result. content is what the model sees by default;
    model_output overrides the model's view and display_output the
    operator's tool card. is_error marks a result the model should repair."""

    __slots__ = ("content", "model_output", "display_output", "is_error")

    def __init__(self, content="", model_output=None, display_output=None, is_error=False):
        self.content = content
        self.model_output = model_output
        self.display_output = display_output
        self.is_error = bool(is_error)

    def to_dict(self):
        d = {"content": self.content, "is_error": self.is_error}
        if self.model_output is not None:
            d["model_output"] = self.model_output
        if self.display_output is not None:
            d["display_output"] = self.display_output
        return d

    def __repr__(self):
        return "ToolResult(content=%r, is_error=%r)" % (self.content, self.is_error)


class CapabilityDenied(PermissionError):
    """Raised by ctx.capability.require when the host refuses."""


class Turn:
    """The current turn's metadata."""

    __slots__ = ("id", "session_id", "invocation_id")

    def __init__(self, id="", session_id="", invocation_id=""):
        self.id = id
        self.session_id = session_id
        self.invocation_id = invocation_id

    def __repr__(self):
        return "Turn(id=%r, session_id=%r)" % (self.id, self.session_id)


class Capability:
    """can(name) and require(name), answered by the host for the
    capabilities tool.yaml lists; the singular capability is not among them."""

    def __init__(self, ask):
        self._ask = ask

    def can(self, name):
        granted, _ = self._ask(str(name), False)
        return granted

    def require(self, name):
        granted, reason = self._ask(str(name), True)
        if not granted:
            raise CapabilityDenied("capability %s is not granted: %s" % (name, reason))


class ToolCallError(RuntimeError):
    """Raised by ctx.tools.call when the host would not run the call at
    all (it was not made by a pipeline slot, or the host could not be
    reached). A call the host ran and that failed or was denied is not
    raised: its result says so."""


class Tools:
    """call(name, args) runs a tool as the model would call it, through
    the host's dispatch under the session's authority: its capability,
    approval, sandbox and audit apply. Pipeline slots only."""

    def __init__(self, call):
        self._call = call

    def call(self, name, args=None):
        """Returns {"content": str, "is_error": bool, "status": str}: the
        model's view of the call; status is "ok", "denied", "blocked",
        "capability_denied", "invalid_arguments", "tool_error", ..."""
        if args is None:
            args = {}
        if not isinstance(args, dict):
            raise TypeError("ctx.tools.call(name, args): args must be a dict, got %s" % type(args).__name__)
        return self._call(str(name), args)


class AgentRunResult:
    """How a child agent ended (or, from a handle, how it is now).

    status is one of completed, failed, cancelled, timeout,
    budget_exceeded, or running while a spawned child runs; answer is its
    final answer; usage its tokens ({"input_tokens": ..., "output_tokens":
    ...}); steps its model steps; task_id its agent.spawn task; agent_id
    its session. timed_out says a handle's wait ended before the child.
    """

    ENDED = ("completed", "failed", "cancelled", "timeout", "budget_exceeded")

    def __init__(self, value):
        value = value or {}
        self.status = value.get("status", "")
        self.answer = value.get("answer", "")
        self.usage = value.get("usage") or {}
        self.steps = value.get("steps", 0)
        self.task_id = value.get("task_id", "")
        self.agent_id = value.get("agent_id", "")
        self.timed_out = bool(value.get("timed_out"))

    @property
    def ok(self):
        return self.status == "completed"

    def to_dict(self):
        return {"status": self.status, "answer": self.answer, "usage": self.usage, "steps": self.steps,
                "task_id": self.task_id, "agent_id": self.agent_id}

    def __repr__(self):
        return "AgentRunResult(status=%r, task_id=%r, steps=%r)" % (self.status, self.task_id, self.steps)


class AgentSpawnHandle:
    """A child started by ctx.agents.spawn: its agent.spawn task. Its
    methods work while the call that spawned it runs; afterwards the task
    id still names the child (task_status, yield_until, /subagents)."""

    def __init__(self, request, value):
        self._request = request
        self.task_id = value.get("task_id", "")
        self.agent_id = value.get("agent_id", "")

    def status(self):
        """The child as it is now (status "running" while it runs)."""
        return AgentRunResult(self._request("status", task_id=self.task_id))

    def wait(self, timeout=None):
        """Waits for the child's end, at most timeout seconds (None: as
        long as this call may run). Returns its AgentRunResult; if the
        child still runs when the timeout passes, status is "running" and
        timed_out is True (the child goes on)."""
        ms = 0
        if timeout is not None:
            if timeout < 0:
                raise ValueError("wait(timeout): timeout must be 0 or more seconds")
            ms = max(1, int(timeout * 1000))
        return AgentRunResult(self._request("wait", task_id=self.task_id, timeout_ms=ms))

    def cancel(self):
        """Cancels the child (its process trees and MCP connections end)
        and returns how it ended."""
        return AgentRunResult(self._request("cancel", task_id=self.task_id))

    def __repr__(self):
        return "AgentSpawnHandle(task_id=%r, agent_id=%r)" % (self.task_id, self.agent_id)


class Agents:
    """Child agents, started through the host's one spawn gate: run waits
    for the child's AgentRunResult, spawn returns an AgentSpawnHandle.

    The caller's tool.yaml or slot.yaml must declare the capability
    tool.call:delegate_task, and the session must hold it. The child's
    tools and capabilities only narrow the session's. core_id None is the
    session's own core. input_slots/output_slots: None or [] base only,
    "all" the whole pipeline, a list filters it; tools: None/"all" the
    session's tools, "none"/[] none, a list narrows. A bad id or value
    raises ValueError; a refused capability PermissionError.
    """

    def __init__(self, request):
        self._request = request

    def run(self, core_id, goal, input_slots=None, output_slots=None, tools="all",
            use_bootstrap=False, max_depth=None):
        args = _child_controls(core_id, goal, input_slots, output_slots, tools, use_bootstrap, max_depth)
        return AgentRunResult(self._request("run", args=args))

    def spawn(self, core_id, goal, input_slots=None, output_slots=None, tools="all",
              use_bootstrap=False, max_depth=None):
        args = _child_controls(core_id, goal, input_slots, output_slots, tools, use_bootstrap, max_depth)
        return AgentSpawnHandle(self._request, self._request("spawn", args=args))


def _child_controls(core_id, goal, input_slots, output_slots, tools, use_bootstrap, max_depth):
    if not isinstance(goal, str):
        raise TypeError("ctx.agents: goal must be a str, got %s" % type(goal).__name__)
    if core_id is not None and not isinstance(core_id, str):
        raise TypeError("ctx.agents: core_id must be a str or None")
    args = {"goal": goal, "use_bootstrap": bool(use_bootstrap)}
    if core_id is not None:
        args["core_id"] = core_id
    for name, v in (("input_slots", input_slots), ("output_slots", output_slots), ("tools", tools)):
        if v is None or isinstance(v, str):
            args[name] = v
        elif isinstance(v, (list, tuple)):
            args[name] = [str(x) for x in v]
        else:
            raise TypeError("ctx.agents: %s must be a str, a list of str or None" % name)
    if max_depth is not None:
        if not isinstance(max_depth, int) or isinstance(max_depth, bool):
            raise TypeError("ctx.agents: max_depth must be an int")
        args["max_depth"] = max_depth
    return args


class Output:
    """Delivers text to the active turn while the call runs."""

    def __init__(self, deliver):
        self._deliver = deliver

    def deliver(self, text):
        """Sends text to the active turn; False when no turn takes output
        (a call from the command line, say), which is not an error."""
        return self._deliver(str(text))


class ToolContext:
    """What a call knows: turn, slot_id, slot_path, capability, output,
    workspace, agents (child agents), and (pipeline slots) tools."""

    def __init__(self, turn, slot_id, slot_path, workspace, capability, output, tools=None, agents=None):
        self.turn = turn
        self.slot_id = slot_id
        self.slot_path = slot_path
        self.workspace = workspace
        self.capability = capability
        self.output = output
        self.tools = tools
        self.agents = agents


def to_value(result):
    """The JSON value of a tool's return value, as the host reads it."""
    if isinstance(result, ToolResult):
        return result.to_dict()
    if result is None or isinstance(result, (str, bool, int, float)):
        return result
    try:
        json.dumps(result, allow_nan=False)
        return result
    except (TypeError, ValueError):
        return str(result)


class _Bridge:
    """The worker side of the protocol: one call at a time."""

    def __init__(self, proto_in, proto_out):
        self._in = proto_in
        self._out = proto_out

    def send(self, msg):
        line = json.dumps(msg, ensure_ascii=False, allow_nan=False, default=str)
        # Lone surrogates (undecodable file names) cannot be UTF-8; they
        # become "?" rather than end the worker.
        self._out.write(line.encode("utf-8", "replace") + b"\n")
        self._out.flush()

    def receive(self):
        line = self._in.readline()
        if not line:
            sys.exit(0)  # the host closed the pipe: nothing more to do
        return json.loads(line)

    def ask(self, msg, reply_type):
        self.send(msg)
        reply = self.receive()
        if reply.get("type") != reply_type:
            raise RuntimeError("protocol: expected %s, got %r" % (reply_type, reply.get("type")))
        return reply

    def serve(self, fn):
        while True:
            msg = self.receive()
            if msg.get("type") != "call":
                continue
            self.call(fn, msg)

    def call(self, fn, msg):
        call_id = msg.get("id", "")
        c = msg.get("context") or {}

        def capability(name, require):
            r = self.ask({"type": "capability", "id": call_id, "capability": name, "require": require}, "capability_result")
            return bool(r.get("granted")), r.get("reason", "")

        def deliver(text):
            r = self.ask({"type": "deliver", "id": call_id, "text": text}, "deliver_result")
            return not r.get("error")

        def tool_call(name, args):
            r = self.ask({"type": "tool_call", "id": call_id, "tool": name, "args": args}, "tool_call_result")
            if r.get("error"):
                raise ToolCallError("ctx.tools.call(%r): %s" % (name, r["error"]))
            return {"content": r.get("content", ""), "is_error": bool(r.get("is_error")), "status": r.get("status", "")}

        def agents(op, args=None, task_id="", timeout_ms=0):
            r = self.ask({"type": "agents", "id": call_id, "op": op, "args": args,
                          "task_id": task_id, "timeout_ms": timeout_ms}, "agents_result")
            if r.get("error"):
                exc = _AGENT_ERRORS.get(r.get("code"), RuntimeError)
                raise exc("ctx.agents.%s: %s" % (op, r["error"]))
            return r.get("value") or {}

        ctx = ToolContext(
            Turn(c.get("turn_id", ""), c.get("session_id", ""), call_id),
            c.get("slot_id", ""), c.get("slot_path", ""), c.get("workspace", ""),
            Capability(capability), Output(deliver), Tools(tool_call), Agents(agents))
        try:
            value = to_value(fn(ctx, msg.get("args") or {}))
        except CapabilityDenied as e:
            self.send({"type": "error", "id": call_id, "code": "capability_denied", "error": str(e)})
            return
        except BaseException as e:  # noqa: B902 - a tool's SystemExit must not end the worker silently
            traceback.print_exc(file=sys.stderr)
            self.send({"type": "error", "id": call_id, "code": "exception",
                       "error": "%s: %s" % (type(e).__name__, e)})
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                sys.exit(1)
            return
        self.send({"type": "result", "id": call_id, "value": value})


# How the host's refusals of ctx.agents are raised.
_AGENT_ERRORS = {"value_error": ValueError, "permission": PermissionError, "not_found": LookupError}


def _protocol_streams():
    """Moves the protocol off fds 0 and 1 so that nothing the module (or a
    child it starts) reads or prints can touch it."""
    proto_in = os.fdopen(os.dup(0), "rb")
    proto_out = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    sys.stdin = open(os.devnull, "r")
    sys.stdout = sys.stderr
    return proto_in, proto_out


def _load(path, function):
    import importlib.util

    directory = os.path.dirname(path)
    name = os.path.splitext(os.path.basename(path))[0]
    # The tool's own directory is importable, so a tool may keep helpers
    # beside its module; -I left the script directory and PYTHONPATH out.
    sys.path.insert(0, directory)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    fn = getattr(module, function, None)
    if not callable(fn):
        raise AttributeError("%s has no callable %s(ctx, args)" % (os.path.basename(path), function))
    return fn


def _register_sdk():
    """Makes this file importable as demiurge.sdk inside the worker."""
    me = sys.modules[__name__]
    if "demiurge.sdk" not in sys.modules:
        pkg = types.ModuleType("demiurge")
        pkg.__path__ = []
        pkg.sdk = me
        sys.modules["demiurge"] = pkg
        sys.modules["demiurge.sdk"] = me


def _non_dumpable():
    """prctl(PR_SET_DUMPABLE, 0): no other process of this user (a command
    the tool starts, another tool) may read this worker's environment or
    memory, where a bound secret lives during a call, or ptrace it. Linux
    only; elsewhere, and without ctypes, nothing is done."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0)")
    except (ImportError, AttributeError):
        return


def _sweep_descriptors():
    """Marks every descriptor above 2 the worker inherited close-on-exec
    (as shared/procfd does for Go plugins): Python opens its own that way,
    but one a launcher or the operator's shell left open stays inheritable
    and would reach every program the tool starts with os.system, os.exec*
    or subprocess(close_fds=False). The worker itself keeps using them."""
    try:
        fds = [int(n) for n in os.listdir("/proc/self/fd")]
    except OSError:
        try:
            limit = min(os.sysconf("SC_OPEN_MAX"), 65536)
        except (OSError, ValueError):
            limit = 1024
        fds = range(3, limit)
    for fd in fds:
        if fd > 2:
            try:
                os.set_inheritable(fd, False)
            except OSError:
                pass  # the listing's own descriptor, closed since


def main(argv):
    _sweep_descriptors()
    _non_dumpable()
    if len(argv) != 3:
        sys.stderr.write("usage: bridge MODULE_PATH FUNCTION (run by the Demiurge authored-tool runtime)\n")
        return 2
    sys.dont_write_bytecode = True
    bridge = _Bridge(*_protocol_streams())
    _register_sdk()
    try:
        fn = _load(argv[1], argv[2])
    except BaseException as e:  # noqa: B902 - every import failure is reported
        traceback.print_exc(file=sys.stderr)
        bridge.send({"type": "fatal", "error": "importing %s failed: %s: %s" % (os.path.basename(argv[1]), type(e).__name__, e)})
        return 1
    bridge.send({"type": "ready", "protocol": PROTOCOL})
    bridge.serve(fn)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
