package dispatch

import (
	"demiurge.dev/host/egress"

	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"demiurge.dev/catalog"
	"demiurge.dev/host/policy"
	"demiurge.dev/host/redact"
	sharedredact "demiurge.dev/shared/redact"
	"demiurge.dev/shared/toolsetv1"
)

// Command timeouts, in seconds, when a tool's command subject names a
// timeout argument.
const (
	DefaultCommandTimeout = 120
	MaxCommandTimeout     = 3600
)

// CommandConfig says how the host builds a command's environment. The
// zero value uses the host's own environment, a runtime home beside the
// turn's artifact root and the host's TZ.
type CommandConfig struct {
	// HostEnv is the environment allowlisted variables are taken from;
	// nil means os.Environ().
	HostEnv []string
	// Lookup reads secrets for bindings; nil means os.LookupEnv.
	Lookup func(string) (string, bool)
	// Home is the runtime directory commands see as HOME; "" derives
	// <state>/runtime/terminal-home from the artifact root.
	Home string
	// Timezone is the configured TZ; "" keeps the host's.
	Timezone string
	// Pass names further host variables commands inherit.
	Pass []string
}

// commandPlan is what the host prepared for a call with a command subject:
// the child environment, the checked secret bindings and what the audit
// may say about them.
type commandPlan struct {
	env        []string
	bindings   policy.BindingPlan
	cwd        string
	timeout    time.Duration
	background bool
	shell      string
	executable string
	homeErr    error // no runtime home could be found; the call cannot start
	// recheck are the command subjects the guard allowed: reviewed again
	// when the call starts, since calls before it in the batch ran after
	// it was assessed.
	recheck []policy.SubjectFact
	// sandbox is the OS sandbox mode the command was sent to run under
	// (applySandbox); the helper runs it in exactly that mode or not at
	// all, so it is the enforced one. "" when no sandbox was configured.
	sandbox string
	// undid are what the sandbox helper undid after the command (see
	// noteUndid).
	undid []string
	// egress is a network-mode call's proxy (egress.go); connections are
	// what went through it, once it closed.
	egress      *egress.Proxy
	connections []egress.Event
	folded      egress.Folded
}

// guardAllowed reports whether the shell guard allowed every command of
// the call.
func guardAllowed(a *policy.Assessment) bool {
	n := 0
	for _, f := range a.Subjects {
		if f.Command == nil {
			continue
		}
		if !f.GuardAllows() {
			return false
		}
		n++
	}
	return n > 0
}

// commandSubject is the tool's command subject, if it has one.
func commandSubject(spec catalog.ToolSpec) (catalog.Subject, bool) {
	for _, s := range spec.Subjects {
		if s.Kind == catalog.SubjectCommand {
			return s, true
		}
	}
	return catalog.Subject{}, false
}

// prepareCommand builds the plan of a command call before approval: an
// impossible timeout, a cwd outside the workspace, a refused overlay key
// or a binding that cannot be made fails the call here, with a message
// for the model. It reads the host's environment and nothing else.
func (t *Turn) prepareCommand(p *prepared) (*commandPlan, error) {
	s, ok := commandSubject(p.entry.Spec)
	if !ok {
		return nil, nil
	}
	cfg := t.Commands
	plan := &commandPlan{timeout: DefaultCommandTimeout * time.Second}
	if s.TimeoutArg != "" {
		if raw, ok := p.args[s.TimeoutArg]; ok && raw != nil {
			n, ok := policy.WholeNumber(raw)
			if !ok || n <= 0 || n > MaxCommandTimeout {
				return nil, fmt.Errorf("%s must be 1 to %d seconds (default %d)", s.TimeoutArg, MaxCommandTimeout, DefaultCommandTimeout)
			}
			plan.timeout = time.Duration(n) * time.Second
		}
	}
	if s.BackgroundArg != "" {
		plan.background, _ = p.args[s.BackgroundArg].(bool)
	}
	cwd, err := commandCwd(t.Workspace.Root, stringArg(p.args, s.CwdArg))
	if err != nil {
		return nil, err
	}
	plan.cwd = cwd
	overlay, err := envOverlay(p.args, s.EnvArg)
	if err != nil {
		return nil, err
	}
	hostEnv := cfg.HostEnv
	if hostEnv == nil {
		hostEnv = os.Environ()
	}
	home := cfg.Home
	if home == "" {
		// Without a home the call cannot run; that is said when it would
		// start, after the checks that concern the model's arguments.
		home, plan.homeErr = runtimeHome(t.ArtifactRoot)
	}
	if err := policy.CheckEnvOverlay(overlay); err != nil {
		return nil, err
	}
	if plan.homeErr == nil {
		plan.env, err = policy.BuildCommandEnv(policy.EnvOptions{Host: hostEnv, Home: home, Timezone: cfg.Timezone, Pass: cfg.Pass}, overlay)
		if err != nil {
			return nil, err
		}
		if guardAllowed(p.assess) {
			// What the guard reviewed of git's configuration may change
			// before the run: switch its program-running keys off.
			plan.env = policy.GuardedGitEnv(plan.env)
			// A bare name finds no program the workspace holds.
			plan.env = t.Workspace.GuardedPath(plan.env)
			for _, f := range p.assess.Subjects {
				if f.Command != nil {
					plan.recheck = append(plan.recheck, f)
				}
			}
		}
	}
	reqs, err := policy.ParseBindingRequests(p.args[argSecretBindings])
	if err != nil {
		return nil, err
	}
	lookup := cfg.Lookup
	if lookup == nil {
		lookup = os.LookupEnv
	}
	plan.bindings, err = policy.ResolveBindings(reqs, policy.BindingContext{
		Capabilities: t.Authority.Capabilities, Lookup: lookup, Background: plan.background,
		Timeout: plan.timeout, Now: p.start,
	})
	if err != nil {
		return nil, err
	}
	plan.shell, plan.executable = resolveExecutables(plan.env, stringArg(p.args, s.Arg))
	return plan, nil
}

// apply puts the plan into the invocation once the call is approved: the
// environment, the bound values (for this one call only) and how long
// they are still good. A binding that expired while approval was pending
// fails the call.
func (c *commandPlan) apply(inv *Invocation, now time.Time) error {
	if c == nil {
		return nil
	}
	if c.homeErr != nil {
		return c.homeErr
	}
	for _, f := range c.recheck {
		if ok, why := f.RecheckGuard(); !ok {
			return fmt.Errorf("the command was reviewed as read-only before the batch ran, but what it reads changed since (%s); it did not run: call it again to have it reviewed anew", strings.Join(why, "; "))
		}
	}
	if err := os.MkdirAll(envValue(c.env, "HOME"), 0o700); err != nil {
		return fmt.Errorf("create the command's runtime home: %w", err)
	}
	left, err := c.bindings.Remaining(now)
	if err != nil {
		return err
	}
	inv.Env = c.env
	inv.Secrets = c.bindings.Secrets()
	inv.SecretsExpire = left
	return nil
}

// sessionAllowable is false for a call with secret bindings: it must be
// asked about every time, whatever was allowed before.
func (c *commandPlan) sessionAllowable() bool { return c == nil || len(c.bindings.Bindings) == 0 }

// reasons are added to the approval card: what a binding hands over, and
// the environment keys (never values).
func (c *commandPlan) reasons() []string {
	if c == nil {
		return nil
	}
	var out []string
	for _, b := range c.bindings.Bindings {
		r := fmt.Sprintf("binds secret %s as %s (%s)", b.Source, b.Target, b.Capability)
		if !b.ExpiresAt.IsZero() {
			r += ", expires " + b.ExpiresAt.Format(time.TimeOnly)
		}
		out = append(out, r)
	}
	if len(c.bindings.Bindings) > 0 {
		out = append(out, "secret bindings are asked about every time; a session allow does not cover them")
	}
	return out
}

// secrets are the bound values, for redacting every view of the call.
func (c *commandPlan) secrets() []redact.Secret {
	if c == nil {
		return nil
	}
	out := make([]redact.Secret, 0, len(c.bindings.Bindings))
	for _, b := range c.bindings.Bindings {
		out = append(out, redact.Secret{Value: b.Value(), Source: "binding:" + b.Name, Target: b.Target})
	}
	return out
}

// audit is what the audit event records of the execution: cwd, the
// environment's keys, the resolved shell and executable, and each binding
// without its value.
// The cwd and executable are redacted with the call's secrets (a
// directory named after one).
func (c *commandPlan) audit(secrets []redact.Secret) map[string]any {
	if c == nil {
		return nil
	}
	m := map[string]any{
		"cwd": redact.TextOf(c.cwd, secrets), "env_keys": policy.EnvKeys(c.env), "shell": c.shell,
		"timeout_seconds": int64(c.timeout / time.Second), "background": c.background,
	}
	if c.executable != "" {
		m["executable"] = redact.TextOf(c.executable, secrets)
	}
	if len(c.bindings.Bindings) > 0 {
		m["secret_bindings"] = c.bindings.Audit()
	}
	if c.sandbox != "" {
		m["sandbox"] = c.sandbox
	}
	if len(c.undid) > 0 {
		m["sandbox_undid"] = c.undid
	}
	if c.egress != nil {
		m["network_connections"] = connectionAudit(c.connections, c.folded)
	}
	return m
}

// noteUndid keeps what the sandbox undid after the command ended (the
// terminal's structured sandbox_undid, from the redacted record view's
// structured result, redact.Views.Structured), so that the audit says it:
// nothing the sandbox undoes is undone silently.
func (c *commandPlan) noteUndid(v redact.Views) {
	if c == nil || c.sandbox == "" || c.sandbox == "off" {
		return
	}
	st, _ := v.Structured().(map[string]any) // decodes a deferred result: a sandboxed command's alone
	list, _ := st["sandbox_undid"].([]any)
	for _, u := range list {
		if s, ok := u.(string); ok {
			c.undid = append(c.undid, s)
		}
	}
}

// redactEvents makes the invocation's output chunks pass a streaming
// redactor of the bound values before its OnEvent sees them, one per
// stream, so a value split across chunks is found too. The returned
// flush writes what is held back; call it when Invoke returns.
// The values bound to earlier commands of the session and the host's own
// credentials (known: Turn.redactionValues) are redacted the same way, in
// the output of any tool.
func (c *commandPlan) redactEvents(inv *Invocation, known []redact.Secret) (flush func()) {
	var pairs []sharedredact.Secret
	if c != nil {
		for _, b := range c.bindings.Bindings {
			pairs = append(pairs, sharedredact.Secret{Target: b.Target, Value: b.Value()})
		}
	}
	for _, s := range known {
		pairs = append(pairs, sharedredact.Secret{Target: s.Target, Value: s.Value})
	}
	if len(pairs) == 0 || inv.OnEvent == nil {
		return func() {}
	}
	next := inv.OnEvent
	rep := sharedredact.NewReplacer(pairs)
	writers := map[string]*sharedredact.Writer{}
	inv.OnEvent = func(ev *toolsetv1.InvokeEvent) error {
		out := ev.GetOutput()
		if out == nil {
			return next(ev)
		}
		w := writers[out.GetStream()]
		if w == nil {
			w = rep.NewWriter(eventWriter{stream: out.GetStream(), next: next})
			writers[out.GetStream()] = w
		}
		_, err := w.Write(out.GetData())
		return err
	}
	return func() {
		for _, w := range writers {
			_ = w.Close()
		}
	}
}

// eventWriter turns redacted bytes back into output events.
type eventWriter struct {
	stream string
	next   func(*toolsetv1.InvokeEvent) error
}

func (e eventWriter) Write(p []byte) (int, error) {
	data := append([]byte(nil), p...) // the redactor reuses its buffer
	err := e.next(&toolsetv1.InvokeEvent{Event: &toolsetv1.InvokeEvent_Output{Output: &toolsetv1.OutputChunk{Stream: e.stream, Data: data}}})
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// commandCwd resolves a command's cwd against the workspace root,
// following symlinks, and refuses anything outside it.
func commandCwd(root, cwd string) (string, error) {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("workspace root %s: %w", root, err)
	}
	if strings.ContainsRune(cwd, 0) {
		return "", errors.New("cwd contains a NUL byte")
	}
	dir := cwd
	switch {
	case dir == "":
		return realRoot, nil
	case !filepath.IsAbs(dir):
		dir = filepath.Join(realRoot, dir)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Errorf("cwd %q does not exist; give a directory inside the workspace", cwd)
	}
	if real != realRoot && !strings.HasPrefix(real, realRoot+string(filepath.Separator)) {
		return "", fmt.Errorf("cwd %q is outside the workspace (symlinks are followed); give a directory inside it", cwd)
	}
	return real, nil
}

// envOverlay reads the explicit environment overlay argument.
func envOverlay(args map[string]any, arg string) (map[string]string, error) {
	if arg == "" || args[arg] == nil {
		return nil, nil
	}
	obj, ok := args[arg].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s must be an object of string values", arg)
	}
	out := make(map[string]string, len(obj))
	for k, v := range obj {
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("%s.%s must be a string", arg, k)
		}
		out[k] = s
	}
	return out, nil
}

// runtimeHome is <state>/runtime/terminal-home for an artifact root
// <state>/runtime/artifacts/<session>: a directory of the host's, shared by
// no one else, where commands keep their dotfiles.
func runtimeHome(artifactRoot string) (string, error) {
	artifacts := filepath.Dir(artifactRoot)
	if artifactRoot == "" || filepath.Base(artifacts) != "artifacts" {
		return "", errors.New("commands need a runtime home, and the turn has no artifact root under runtime/artifacts to derive it from")
	}
	return filepath.Join(filepath.Dir(artifacts), "terminal-home"), nil
}

// resolveExecutables finds, best effort, the shell the plugin will use
// (bash, else sh, on the command's PATH) and the first word of the
// command, for the audit record.
func resolveExecutables(env []string, command string) (shell, executable string) {
	path := envValue(env, "PATH")
	find := func(name string) string {
		if strings.ContainsRune(name, '/') {
			return name
		}
		return lookIn(path, name)
	}
	shell = find("bash")
	if shell == "" {
		shell = find("sh")
	}
	// Only a plain word is recorded: "TOKEN=x cmd" or anything quoted or
	// expanded could carry a value into the audit record.
	if f := strings.Fields(command); len(f) > 0 && plainWord(f[0]) {
		executable = find(f[0])
		if executable == "" {
			executable = f[0]
		}
	}
	return shell, executable
}

// LookPath finds name on env's PATH (its last PATH entry; absolute
// directories only): an executable regular file, else "". It is how a
// command's shell is resolved, for the editor's terminal too.
func LookPath(env []string, name string) string {
	return lookIn(envValue(env, "PATH"), name)
}

func lookIn(path, name string) string {
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
			return p
		}
	}
	return ""
}

func envValue(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v
		}
	}
	return ""
}

func stringArg(args map[string]any, name string) string {
	if name == "" {
		return ""
	}
	s, _ := args[name].(string)
	return s
}

func plainWord(w string) bool {
	if len(w) > 256 {
		return false
	}
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._/+-", r)) {
			return false
		}
	}
	return true
}
