package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"demiurge.dev/host/core"
	"demiurge.dev/host/policy"
	hredact "demiurge.dev/host/redact"
	sredact "demiurge.dev/shared/redact"
)

// plan is one declared server resolved against the workspace, before any
// approval: what would be started or reached, and the values that must
// never be shown.
type plan struct {
	server core.MCPServer
	// command is the resolved program (stdio).
	command string
	// cwd is the resolved working directory, inside the workspace.
	cwd string
	// workspace is the root the plan was resolved in.
	workspace string
	// programSHA256 is the resolved program's content hash; script and
	// scriptSHA256 the script an interpreter is given, if any.
	programSHA256, script, scriptSHA256 string
	// key identifies the declaration as it would run: manifest bytes,
	// resolved program and directory, and the content of the program and
	// its script. A connection serves one key.
	key string
	// private are the operator's allowances of private addresses for
	// this server (HTTP only).
	private []PrivateAllowance
	// secrets replaces every env and header value, URL userinfo and
	// query values, secret-looking arguments and the host's own
	// credentials in errors, logs, forms and results.
	secrets *sredact.Replacer
}

// newPlan resolves a server. coreDir anchors a relative program path; the
// cwd must lie inside the workspace after symlinks are resolved.
// host are the host's own credentials (Config.HostSecrets).
func newPlan(s core.MCPServer, ws policy.Workspace, coreDir string, private []PrivateAllowance, host map[string]string) (*plan, error) {
	p := &plan{server: s, secrets: knownSecretsWith(s, host), workspace: ws.Root}
	if s.Transport == core.MCPHTTP {
		p.private = private
	}
	if s.Transport == core.MCPStdio {
		cmd, err := resolveCommand(s.Command, coreDir)
		if err != nil {
			return p, err
		}
		p.command = cmd
		if err := p.hiddenArg(); err != nil {
			return p, err
		}
		if p.cwd, err = resolveCwd(s.Cwd, ws); err != nil {
			return p, err
		}
	}
	fields := []string{"demiurge.mcp.plan.v2", s.Fingerprint, s.File, p.command, p.cwd}
	if s.Transport == core.MCPStdio {
		// What runs, by content (programhash.go).
		p.programSHA256 = contentHash(p.command)
		fields = append(fields, p.programSHA256)
		if p.script = scriptOf(p.command, s.Args, p.cwd); p.script != "" {
			p.scriptSHA256 = contentHash(p.script)
			fields = append(fields, p.script, p.scriptSHA256)
		}
	}
	// An allowance is part of what a connect approval is for: a changed
	// one needs a new approval.
	for _, a := range p.private {
		fields = append(fields, "private:"+a.Addr.String()+":"+a.Source)
	}
	h := sha256.New()
	for _, f := range fields {
		fmt.Fprintf(h, "%d:%s\n", len(f), f)
	}
	p.key = hex.EncodeToString(h.Sum(nil))
	return p, nil
}

// resolveCommand finds the program: a bare name on PATH, a path with a
// slash relative to the core directory.
func resolveCommand(command, coreDir string) (string, error) {
	if !strings.ContainsRune(command, '/') {
		path, err := exec.LookPath(command)
		if err != nil {
			return "", fmt.Errorf("command %q is not found on PATH; install it or give its path", command)
		}
		return path, nil
	}
	if !filepath.IsAbs(command) {
		if coreDir == "" {
			return "", fmt.Errorf("command %q is relative, and this core has no directory to resolve it against; give an absolute path", command)
		}
		command = filepath.Join(coreDir, command)
	}
	fi, err := os.Stat(command)
	switch {
	case err != nil:
		return "", fmt.Errorf("command %s does not exist", command)
	case fi.IsDir() || fi.Mode()&0o111 == 0:
		return "", fmt.Errorf("command %s is not an executable file", command)
	}
	return filepath.Clean(command), nil
}

// resolveCwd resolves the configured directory, relative to the workspace,
// and refuses one that leaves it, also through a symlink. "" is the root.
func resolveCwd(cwd string, ws policy.Workspace) (string, error) {
	if ws.Root == "" {
		return "", errors.New("no workspace to run the server in")
	}
	root, err := filepath.EvalSymlinks(ws.Root)
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", ws.Root, err)
	}
	if cwd == "" {
		return root, nil
	}
	p := cwd
	if !filepath.IsAbs(p) {
		p = filepath.Join(ws.Root, p)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", fmt.Errorf("cwd %q does not resolve to a directory: %w", cwd, errors.Unwrap(err))
	}
	rel, err := filepath.Rel(root, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return "", fmt.Errorf("cwd %q resolves to %s, outside the workspace %s; a server runs inside the workspace", cwd, real, root)
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("cwd %q is not a directory", cwd)
	}
	return real, nil
}

// hiddenArg refuses a declaration with an argument the connect card would
// hide that no option names as a credential (--api-key X, --token=X): a
// bare token-like argument, or one holding an env or header value. Such
// an argument may as well name what runs (npx -y evil-pkg-a1b2c3d4e5f6g7h8,
// python -m a module of the workspace), and the operator would approve
// "<redacted:arg 1>". Credentials go in env, whose values the card never
// shows. The argument itself is never quoted.
func (p *plan) hiddenArg() error {
	args := make([]any, len(p.server.Args))
	for i, a := range p.server.Args {
		args[i] = a
	}
	var named []sredact.Secret
	for _, sec := range hredact.Discover(map[string]any{"args": args}, nil) {
		named = append(named, sredact.Secret{Target: sec.Target, Value: sec.Value})
	}
	byOption := sredact.NewReplacer(named)
	for i, a := range p.server.Args {
		if byOption.String(a) != a {
			continue
		}
		if p.previewArg(i, a) != a {
			return fmt.Errorf("args[%d] looks like a credential or holds an env or header value, so the connect card would hide it and the operator could not see what runs; pass a credential in env, or after an option that names it (--api-key VALUE)", i)
		}
	}
	return nil
}

// knownSecrets are the values of a declaration that never appear in a
// view: every env and header value, URL userinfo and query values, and
// arguments that look like credentials.
func knownSecrets(s core.MCPServer) *sredact.Replacer { return knownSecretsWith(s, nil) }

// knownSecretsWith is knownSecrets with the host's own credentials (by
// variable name) besides: a server may have found a copy where the
// operator left one, and no view, form or log shows it.
func knownSecretsWith(s core.MCPServer, host map[string]string) *sredact.Replacer {
	var list []sredact.Secret
	for name, v := range host {
		list = append(list, sredact.Secret{Target: name, Value: v}) // as dispatch marks it
	}
	for _, kv := range s.Env {
		list = append(list, sredact.Secret{Target: "env:" + kv.Key, Value: kv.Value})
	}
	for _, kv := range s.Headers {
		list = append(list, sredact.Secret{Target: "header:" + kv.Key, Value: kv.Value})
		// "Bearer x": the token alone may be echoed too.
		if _, tok, ok := strings.Cut(kv.Value, " "); ok {
			list = append(list, sredact.Secret{Target: "header:" + kv.Key, Value: strings.TrimSpace(tok)})
		}
	}
	if u, err := url.Parse(s.URL); err == nil && s.URL != "" {
		for k, vs := range u.Query() {
			for _, v := range vs {
				list = append(list, sredact.Secret{Target: "url.query:" + k, Value: v})
			}
		}
		if u.RawQuery != "" {
			list = append(list, sredact.Secret{Target: "url.query", Value: u.RawQuery})
		}
	}
	args := make([]any, len(s.Args))
	for i, a := range s.Args {
		args[i] = a
	}
	for _, sec := range hredact.Discover(map[string]any{"args": args}, nil) {
		list = append(list, sredact.Secret{Target: sec.Target, Value: sec.Value})
	}
	return sredact.NewReplacer(list)
}

// clean is a server's words as a card or a report may hold them: its
// declared values and well-known token formats replaced (as redactErr).
func (p *plan) clean(s string) string { return hredact.Text(p.secrets.String(s)) }

// redactErr turns err into a message with every known value replaced.
func (p *plan) redactErr(err error) string {
	if err == nil {
		return ""
	}
	return p.clean(err.Error())
}
