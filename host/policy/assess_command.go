package policy

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"demiurge.dev/catalog"
	"demiurge.dev/host/policy/shellguard"
)

// ResourceKeyExec prefixes the resource key of a command call: the
// directory it runs in.
const ResourceKeyExec = "exec:"

// CommandFact is what the host derived from a command subject beyond the
// command text (SubjectFact.Value) and its resolved working directory
// (SubjectFact.Resolved, Inside, Rel).
type CommandFact struct {
	// Guard is the shell guard's verdict on the command.
	Guard shellguard.Verdict
	// EnvKeys are the keys of the explicit environment overlay, sorted.
	// The values are in the fingerprint and nowhere else.
	EnvKeys    []string
	Background bool
	// Timeout is the requested timeout in seconds; 0 when none was given
	// (the tool's default applies).
	Timeout float64
	// EnvArg names the overlay's argument ("" when the tool has none), so
	// that views can hide its values.
	EnvArg string
	// ProtectedWrites are the redirection targets that write the active
	// core or git's program-running files (Workspace.ProtectedWhy): only
	// the operator's answer approves such a command, never a rule.
	ProtectedWrites []string
	// guardOpts are the options the guard reviewed the command with, for
	// RecheckGuard.
	guardOpts shellguard.Options
}

// RecheckGuard reviews the command again, with the options of its
// assessment, against the file system as it is now, and reports whether
// the guard still allows it (and why not). A batch is assessed before any
// of it runs: an earlier call can plant a symlink or a git configuration
// key that a later read-only command would follow or run.
func (f SubjectFact) RecheckGuard() (allows bool, reasons []string) {
	if !f.GuardAllows() {
		return false, []string{"the command was not allowed by the shell guard"}
	}
	v := shellguard.Check(f.Value, f.Command.guardOpts)
	return v.Decision == shellguard.Allow, v.Reasons
}

// HideEnvValues returns args with every command subject's environment
// overlay replaced by its sorted keys, for the approval preview and the
// event views, which name environment keys and never values. args itself
// is not changed; without an overlay it is returned as is.
func (a Assessment) HideEnvValues(args map[string]any) map[string]any {
	var out map[string]any
	for _, f := range a.Subjects {
		if f.Command == nil || f.Command.EnvArg == "" || args[f.Command.EnvArg] == nil {
			continue
		}
		if out == nil {
			out = make(map[string]any, len(args))
			for k, v := range args {
				out[k] = v
			}
		}
		keys := make([]any, len(f.Command.EnvKeys))
		for i, k := range f.Command.EnvKeys {
			keys[i] = k
		}
		out[f.Command.EnvArg] = map[string]any{"keys": keys, "values": "hidden"}
	}
	if out == nil {
		return args
	}
	return out
}

// GuardAllows reports whether the shell guard found the command literal
// and read-only: the only kind an approval rule or auto policy may let
// run without an explicit approval. A fact without a guard verdict never
// allows.
func (f SubjectFact) GuardAllows() bool {
	return f.Kind == string(catalog.SubjectCommand) && f.Command != nil && f.Command.Guard.Decision == shellguard.Allow
}

// assessCommand reviews a command subject: the shell guard's verdict, the
// working directory (resolved through symlinks: outside the workspace is
// refused), the environment overlay (any overlay needs approval), the
// background flag and the timeout. Everything that shapes the execution
// goes into the fingerprint, so that an allow for one shape approves no
// other; reasons name environment keys, never values.
func (a *Assessment) assessCommand(fact *SubjectFact, s catalog.Subject, args map[string]any, ws Workspace, fp []byte) ([]byte, error) {
	cf := &CommandFact{EnvArg: s.EnvArg}
	fact.Command = cf

	cwdArg, err := optionalString(args, s.CwdArg)
	if err != nil {
		return nil, err
	}
	root, cwd, inside, rel, err := resolveCwd(ws, cwdArg)
	if err != nil {
		return nil, fmt.Errorf("argument %q: %w", s.CwdArg, err)
	}
	fact.Resolved, fact.Inside, fact.Rel = cwd, inside, rel
	switch {
	case !inside && cwdArg != "" && lexicallyInside(ws, cwdArg):
		a.raise(catalog.RiskHigh, catalog.ApprovalDeny, "cwd "+cwdArg+" leads outside the workspace through a symlink; commands run inside it")
	case !inside:
		a.raise(catalog.RiskHigh, catalog.ApprovalDeny, "cwd "+cwd+" is outside the workspace; commands run inside it")
	}
	a.addKey(ResourceKeyExec + cwd)

	env, err := envObject(args, s.EnvArg)
	if err != nil {
		return nil, err
	}
	for k := range env {
		cf.EnvKeys = append(cf.EnvKeys, k)
	}
	slices.Sort(cf.EnvKeys)
	if len(cf.EnvKeys) > 0 {
		risk := catalog.RiskMedium
		for _, k := range cf.EnvKeys {
			if ExecControlEnvKey(k) {
				risk = catalog.RiskHigh
			}
		}
		a.raise(risk, catalog.ApprovalPrompt, "sets environment variables "+strings.Join(cf.EnvKeys, ", "))
	}

	if cf.Background, err = optionalBool(args, s.BackgroundArg); err != nil {
		return nil, err
	}
	if cf.Timeout, err = optionalNumber(args, s.TimeoutArg); err != nil {
		return nil, err
	}

	home, _ := os.UserHomeDir()
	// The guard follows the command's paths through the real file system
	// and reviews the git repository it runs in.
	cf.guardOpts = shellguard.Options{WorkspaceRoot: root, Cwd: cwd, Home: home, Files: shellguard.OSFiles{}}
	cf.guardOpts.Sensitive = ws.guardSensitive(cwd)
	cf.Guard = shellguard.Check(fact.Value, cf.guardOpts)
	targets, whys := ws.protectedRedirects(fact.Value, cwd)
	cf.ProtectedWrites = targets
	for i, t := range targets {
		a.raise(catalog.RiskHigh, catalog.ApprovalPrompt, "writes "+t+" by redirection: "+whys[i]+"; this write changes what the agent may do, so only the operator's answer approves it")
	}
	risk := guardRisk(cf.Guard.Risk)
	switch cf.Guard.Decision {
	case shellguard.Block:
		a.Block = true
		for _, r := range cf.Guard.Reasons {
			a.raise(catalog.RiskHigh, catalog.ApprovalDeny, "blocked command: "+r)
		}
	case shellguard.Prompt:
		for _, r := range cf.Guard.Reasons {
			a.raise(risk, catalog.ApprovalPrompt, "command: "+r)
		}
	}

	mode := "foreground"
	if cf.Background {
		mode = "background"
	}
	timeout := "default"
	if cf.Timeout != 0 {
		timeout = strconv.FormatFloat(cf.Timeout, 'g', -1, 64)
	}
	fp = appendFields(fp, fact.Kind, fact.Arg, fact.Value, cwd, mode, timeout, strconv.Itoa(len(cf.EnvKeys)))
	for _, k := range cf.EnvKeys {
		fp = appendFields(fp, k, env[k])
	}
	return fp, nil
}

func guardRisk(r shellguard.Risk) catalog.Risk {
	switch r {
	case shellguard.Low:
		return catalog.RiskLow
	case shellguard.Medium:
		return catalog.RiskMedium
	}
	return catalog.RiskHigh
}

// resolveCwd resolves the working directory through the workspace and
// through symlinks, when it exists: the real directory is what the
// command will run in. A directory that does not exist keeps its lexical
// form (the call fails when it starts). root is the workspace root as the
// guard should see it (real when it exists).
func resolveCwd(ws Workspace, cwd string) (root, resolved string, inside bool, rel string, err error) {
	root = ws.Root
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	p := cwd
	if p == "" {
		p = "."
	}
	rp, err := ws.Resolve(p)
	if err != nil {
		return "", "", false, "", err
	}
	resolved = rp.Abs
	if real, err := filepath.EvalSymlinks(rp.Abs); err == nil {
		resolved = real
	} else if rp.Inside {
		// Not there (yet): place it under the real root lexically.
		resolved = filepath.Join(root, filepath.FromSlash(rp.Rel))
	}
	rel, inside = within(root, resolved)
	return root, resolved, inside, rel, nil
}

func lexicallyInside(ws Workspace, cwd string) bool {
	rp, err := ws.Resolve(cwd)
	return err == nil && rp.Inside
}

// optionalString reads an optional string argument; absent and null are
// "".
func optionalString(args map[string]any, arg string) (string, error) {
	if arg == "" || args[arg] == nil {
		return "", nil
	}
	s, ok := args[arg].(string)
	if !ok {
		return "", fmt.Errorf("argument %q must be a string, got %T", arg, args[arg])
	}
	if strings.ContainsRune(s, 0) {
		return "", fmt.Errorf("argument %q contains a NUL byte", arg)
	}
	return s, nil
}

func optionalBool(args map[string]any, arg string) (bool, error) {
	if arg == "" || args[arg] == nil {
		return false, nil
	}
	b, ok := args[arg].(bool)
	if !ok {
		return false, fmt.Errorf("argument %q must be true or false, got %T", arg, args[arg])
	}
	return b, nil
}

// optionalNumber reads an optional number of seconds; its range is the
// tool's business, but it must be a finite number.
func optionalNumber(args map[string]any, arg string) (float64, error) {
	if arg == "" || args[arg] == nil {
		return 0, nil
	}
	var f float64
	switch n := args[arg].(type) {
	case float64:
		f = n
	case float32:
		f = float64(n)
	case int:
		f = float64(n)
	case int64:
		f = float64(n)
	case json.Number:
		v, err := n.Float64()
		if err != nil {
			return 0, fmt.Errorf("argument %q must be a number of seconds: %w", arg, err)
		}
		f = v
	default:
		return 0, fmt.Errorf("argument %q must be a number of seconds, got %T", arg, args[arg])
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("argument %q must be a finite number of seconds", arg)
	}
	return f, nil
}

// envObject reads the explicit environment overlay: an object of string
// values; absent and null are no overlay.
func envObject(args map[string]any, arg string) (map[string]string, error) {
	if arg == "" || args[arg] == nil {
		return nil, nil
	}
	obj, ok := args[arg].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("argument %q must be an object of string values, got %T", arg, args[arg])
	}
	out := make(map[string]string, len(obj))
	for k, v := range obj {
		s, ok := v.(string)
		if !ok {
			// The key only: a value may be a secret.
			return nil, fmt.Errorf("argument %q: the value of %q must be a string", arg, k)
		}
		out[k] = s
	}
	return out, nil
}
