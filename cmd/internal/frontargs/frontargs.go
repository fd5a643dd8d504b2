// Package frontargs recognises the commands the small front end
// (bin/demiurge-front) answers by asking a running host, and nothing else:
// the launcher uses it to pick the front end, the front end to read its
// request. Whatever it does not recognise goes to the full host, which
// parses and answers everything (usage errors included).
package frontargs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"demiurge.dev/host/mcpserve/mcpbind"
)

// Request is one recognised invocation.
type Request struct {
	// Command is the command's words, e.g. "host status".
	Command string
	// State is --state's value, else DEMIURGE_STATE's ("" for the default).
	State string
	JSON  bool
	// The host-shaping flags a tools call may give (their environment
	// variables applied): the host must have been started with them.
	Core, Workspace, PluginDir, Timezone string
	// Tool and Args are a tools call's NAME and ARGS_JSON (as given: ""
	// when left out); Tool is also audit's --tool.
	Tool, Args string
	// Task is the ID (or "last") of `tasks show`, `logs`, `wait` and
	// `cancel`.
	Task string
	// Follow is `tasks logs --follow`; Timeout and ExitCode are `tasks
	// wait`'s --timeout (DefaultWaitTimeout if not given) and --exit-code.
	Follow bool
	// Session is `sessions show`'s ID and `run --session`'s (or "last").
	Session string
	// A run's model flags (their environment variables applied), its
	// --approve rules in order, its --tool-display ("" for the default)
	// and its prompt (the words joined by spaces).
	Model, BaseURL                           string
	MaxSteps, ContextWindow, MaxOutputTokens int
	Approve                                  []string
	ToolDisplay, Prompt                      string
	// Principal and MaxRequestKiB are `mcp serve`'s --principal and
	// --max-request-kib (DefaultMCPMaxRequestKiB when not given).
	Principal     string
	MaxRequestKiB int
	// HTTP, TokenFile, ListenPublic, AllowOrigins and MaxConcurrent are
	// `mcp serve --http`'s flags (MaxConcurrent DefaultMCPMaxConcurrent
	// when not given); HTTP is "" for stdio.
	HTTP, TokenFile string
	ListenPublic    bool
	AllowOrigins    []string
	MaxConcurrent   int
	Timeout         time.Duration
	ExitCode        bool
	// Kind and Limit are audit's --kind and --limit (default 50).
	Kind  string
	Limit int
	// Quiet (-q, --quiet) draws no live output; NoColor (--no-color)
	// prints no colour.
	Quiet, NoColor bool
}

// typedEnv are environment variables of the full CLI's global flags that
// it parses as numbers or durations: a bad value is a usage error there,
// whatever the command, so their presence sends the command to it.
var typedEnv = []string{"DEMIURGE_OUTPUT_CAP_MIB", "DEMIURGE_ARTIFACT_BUDGET_MIB"}

// detachedEnv marks a detached host's child process (cmd/demiurge
// detach.go): its call runs in process, never through a front end.
const detachedEnv = "DEMIURGE_DETACHED_REPORT_FD"

// Parse recognises exactly
//
//	demiurge [--state DIR | --state=DIR] host status [--json]
//	demiurge [--state|--core|--workspace|--plugin-dir VALUE | -q | --no-color]... tools call [--json] NAME [ARGS_JSON]
//
// and audit, tasks list|show|logs|wait|cancel, sessions list|show, run,
// mcp serve and the interactive session (parseAudit, parseTasks,
// parseSessions, parseRun, parseMCPServe, parseSession say how), and only when the environment leaves the
// long-lived host on (DEMIURGE_HOST is not "off") and sets no typed global flag. Anything
// else reports false: a flag it does not know (--approve, --core-id,
// --session, a flag after NAME, …), a repeated flag, arguments from a
// file (@FILE), a word that starts with "-" where NAME or ARGS_JSON
// stands.
func Parse(args []string, getenv func(string) string) (Request, bool) {
	r := Request{State: getenv("DEMIURGE_STATE")}
	if getenv("DEMIURGE_HOST") == "off" {
		return r, false
	}
	for _, name := range typedEnv {
		if getenv(name) != "" {
			return r, false
		}
	}
	// The first that recognises the command takes it (in this order).
	for _, parse := range commandParsers {
		if req, ok := parse(args, getenv); ok {
			return req, true
		}
	}
	i := 0
	if i < len(args) && strings.HasPrefix(args[i], "--state") {
		name, value, ok := FlagValue(args, &i)
		if !ok || name != "state" {
			return r, false
		}
		r.State = value
		i++
	}
	rest := args[i:]
	if len(rest) < 2 || rest[0] != "host" || rest[1] != "status" {
		return r, false
	}
	r.Command = "host status"
	switch {
	case len(rest) == 2:
	case len(rest) == 3 && rest[2] == "--json":
		r.JSON = true
	default:
		return r, false
	}
	return r, true
}

// parseCall recognises a tools call (Parse says which).
func parseCall(args []string, getenv func(string) string) (Request, bool) {
	r, i, ok := parseShaping("tools call", args, getenv)
	if !ok || len(args)-i < 3 || args[i] != "tools" || args[i+1] != "call" {
		return r, false
	}
	rest := args[i+2:]
	if rest[0] == "--json" {
		r.JSON, rest = true, rest[1:]
	}
	if len(rest) < 1 || len(rest) > 2 {
		return r, false
	}
	for _, a := range rest {
		// "help" and "h" are words the CLI library may read as asking
		// for help: the full CLI answers them.
		if strings.HasPrefix(a, "-") || strings.HasPrefix(a, "@") || a == "help" || a == "h" {
			return r, false
		}
	}
	r.Tool = rest[0]
	if len(rest) == 2 {
		r.Args = rest[1]
	}
	return r, r.Tool != ""
}

// limitValue is a --limit the CLI library reads as the same decimal
// number (it reads a leading 0 as octal, 0x as hex: those go to it).
var limitValue = regexp.MustCompile(`^(0|[1-9][0-9]{0,8})$`)

// parseAudit recognises
//
//	demiurge [--state|--core|--workspace|--plugin-dir VALUE]... audit [--json] [--limit N] [--tool T] [--kind K]
//
// its flags in any order, each at most once.
func parseAudit(args []string, getenv func(string) string) (Request, bool) {
	r, i, ok := parseShaping("audit", args, getenv)
	if !ok || i >= len(args) || args[i] != "audit" {
		return r, false
	}
	r.Limit = 50
	seen := map[string]bool{}
	rest := args[i+1:]
	for j := 0; j < len(rest); j++ {
		if rest[j] == "--json" && !seen["json"] {
			seen["json"], r.JSON = true, true
			continue
		}
		name, value, ok := FlagValue(rest, &j)
		if !ok || seen[name] {
			return r, false
		}
		seen[name] = true
		switch name {
		case "limit":
			if !limitValue.MatchString(value) {
				return r, false
			}
			r.Limit, _ = strconv.Atoi(value)
		case "tool":
			r.Tool = value
		case "kind":
			r.Kind = value
		default:
			return r, false
		}
	}
	return r, true
}

// taskCommands are the tasks subcommands the front end answers, with
// the flags each takes besides --json.
var taskCommands = map[string][]string{"list": nil, "show": nil, "logs": {"--follow", "-f"},
	"wait": {"--timeout", "--exit-code"}, "cancel": nil}

// DefaultWaitTimeout is `tasks wait` without --timeout (the full CLI's).
const DefaultWaitTimeout = 30 * time.Second

// commandParsers are the commands the front end answers besides
// `host status`, tried in order by Parse.
var commandParsers = []func(args []string, getenv func(string) string) (Request, bool){
	parseCall, parseAudit, parseTasks, parseSessions, parseRun, parseMCPServe, parseSession,
}

// parseTasks recognises
//
//	demiurge [--state|--core|--workspace|--plugin-dir VALUE | -q | --no-color]... tasks list [--json]
//	demiurge [...the same...] tasks show|cancel ID
//	demiurge [...the same...] tasks logs ID [--follow | -f]
//	demiurge [...the same...] tasks wait ID [--timeout D | --timeout=D] [--exit-code]
//
// each with --json too, the flags before or after ID in any order, each
// at most once (the full CLI moves flags after ID in front of it):
// Command "tasks list", "tasks show", …. Any other word, a --timeout the
// full CLI would refuse (not a positive duration), or an ID that could
// be read as a flag or as asking for help, goes to the full CLI.
func parseTasks(args []string, getenv func(string) string) (Request, bool) {
	r, i, ok := parseShaping("tasks", args, getenv)
	if !ok || len(args)-i < 2 || args[i] != "tasks" {
		return r, false
	}
	sub := args[i+1]
	flags, known := taskCommands[sub]
	if !known {
		return r, false
	}
	r.Command = "tasks " + sub
	if sub == "wait" {
		r.Timeout = DefaultWaitTimeout
	}
	seen := map[string]bool{}
	var ids []string
	rest := args[i+2:]
	for j := 0; j < len(rest); j++ {
		a := rest[j]
		if !strings.HasPrefix(a, "-") {
			ids = append(ids, a)
			continue
		}
		name, value := a, ""
		if strings.HasPrefix(a, "--timeout") && slices.Contains(flags, "--timeout") {
			n, v, ok := FlagValue(rest, &j)
			if !ok || n != "timeout" {
				return r, false
			}
			name, value = "--timeout", v
		}
		if name == "-f" {
			name = "--follow" // its alias
		}
		if seen[name] || (name != "--json" && !slices.Contains(flags, name)) {
			return r, false
		}
		seen[name] = true
		switch name {
		case "--json":
			r.JSON = true
		case "--follow":
			r.Follow = true
		case "--exit-code":
			r.ExitCode = true
		case "--timeout":
			d, err := time.ParseDuration(value)
			if err != nil || d <= 0 {
				return r, false
			}
			r.Timeout = d
		}
	}
	r.Task, ok = idWord(sub == "list", ids)
	return r, ok
}

// idWord is the ID among a tasks or sessions command's words: a list
// takes none; any other command exactly one, not empty nor asking for
// help (those go to the full CLI).
func idWord(list bool, ids []string) (string, bool) {
	if list {
		return "", len(ids) == 0
	}
	if len(ids) != 1 || ids[0] == "" || ids[0] == "help" || ids[0] == "h" {
		return "", false
	}
	return ids[0], true
}

// parseSessions recognises
//
//	demiurge [--state|--core|--workspace|--plugin-dir VALUE | -q | --no-color]... sessions list [--json]
//	demiurge [...the same...] sessions show [--json] ID (or ID --json)
//
// (Command "sessions list" or "sessions show"; Session is ID or "last").
// `sessions resume` runs a turn: the full CLI's.
func parseSessions(args []string, getenv func(string) string) (Request, bool) {
	r, i, ok := parseShaping("sessions", args, getenv)
	if !ok || len(args)-i < 2 || args[i] != "sessions" || (args[i+1] != "list" && args[i+1] != "show") {
		return r, false
	}
	r.Command = "sessions " + args[i+1]
	var ids []string
	for _, a := range args[i+2:] {
		switch {
		case a == "--json" && !r.JSON:
			r.JSON = true
		case strings.HasPrefix(a, "-"):
			return r, false
		default:
			ids = append(ids, a)
		}
	}
	r.Session, ok = idWord(r.Command == "sessions list", ids)
	return r, ok
}

// parseRun recognises
//
//	demiurge [GLOBAL]... run [--json] [--session ID] WORD...
//	demiurge [GLOBAL]... sessions resume [--json] ID WORD...
//
// where GLOBAL is --state, --core, --workspace, --plugin-dir, --model,
// --base-url, --tool-display VALUE, --max-steps, --context-window,
// --max-output-tokens N (a plain decimal), --approve RULE (repeatable),
// -q or --no-color, each other flag at most once and before `run`; run's
// flags may stand among the words. The prompt must be in the words: a
// prompt on standard input is the full CLI's (the front end could not
// hand it over once read). A word that starts with "-" (other than
// those flags), "--", "help" or "h" first, or no word with text goes to
// the full CLI.
func parseRun(args []string, getenv func(string) string) (Request, bool) {
	r, ok := envRequest("run", true, getenv)
	if !ok {
		return r, false
	}
	i, ok := runGlobals(&r, args)
	if !ok {
		return r, false
	}
	// `sessions resume ID WORDS...` is `run --session ID WORDS...` (the
	// full CLI runs the same turn).
	resume := len(args)-i >= 2 && args[i] == "sessions" && args[i+1] == "resume"
	if !resume && (i >= len(args) || args[i] != "run") {
		return r, false
	}
	var words []string
	rest := args[i+1:]
	if resume {
		rest = args[i+2:]
	}
	for j := 0; j < len(rest); j++ {
		a := rest[j]
		switch {
		case a == "--json" && !r.JSON:
			r.JSON = true
		case strings.HasPrefix(a, "--session") && r.Session == "" && !resume:
			name, value, ok := FlagValue(rest, &j)
			if !ok || name != "session" {
				return r, false
			}
			r.Session = value
		case strings.HasPrefix(a, "-"):
			return r, false
		default:
			words = append(words, a)
		}
	}
	if resume {
		// The first word is the session; the prompt must follow it.
		if len(words) < 2 || words[0] == "help" || words[0] == "h" || words[0] == "" {
			return r, false
		}
		r.Session, words = words[0], words[1:]
	}
	if len(words) == 0 || words[0] == "help" || words[0] == "h" {
		return r, false
	}
	r.Prompt = strings.Join(words, " ")
	return r, strings.TrimSpace(r.Prompt) != ""
}

// parseSession recognises the interactive session, no command at all:
//
//	demiurge [GLOBAL]...
//
// (GLOBAL as for run, --json aside). Command "session".
func parseSession(args []string, getenv func(string) string) (Request, bool) {
	r, ok := envRequest("session", true, getenv)
	if !ok {
		return r, false
	}
	i, ok := runGlobals(&r, args)
	return r, ok && i == len(args)
}

// runGlobals reads the global flags `run` and `mcp serve` may give
// before their words (parseRun says which) into r, and says where the
// command's words start; false at any other flag, a repeated one (but
// --approve) or a number the full CLI might read otherwise.
func runGlobals(r *Request, args []string) (int, bool) {
	values := map[string]*string{"state": &r.State, "core": &r.Core, "workspace": &r.Workspace, "plugin-dir": &r.PluginDir,
		"model": &r.Model, "base-url": &r.BaseURL, "tool-display": &r.ToolDisplay}
	ints := map[string]*int{"max-steps": &r.MaxSteps, "context-window": &r.ContextWindow, "max-output-tokens": &r.MaxOutputTokens}
	switches := map[string]*bool{"-q": &r.Quiet, "--quiet": &r.Quiet, "--no-color": &r.NoColor}
	seen := map[string]bool{}
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i], "-"); i++ {
		if p := switches[args[i]]; p != nil && !*p {
			*p = true
			continue
		}
		name, value, ok := FlagValue(args, &i)
		if !ok || (seen[name] && name != "approve") {
			return 0, false
		}
		seen[name] = true
		switch {
		case name == "approve":
			if strings.Contains(value, ",") {
				return 0, false // the full CLI splits it into rules
			}
			r.Approve = append(r.Approve, value)
		case values[name] != nil:
			*values[name] = value
		case ints[name] != nil:
			if !limitValue.MatchString(value) {
				return 0, false
			}
			*ints[name], _ = strconv.Atoi(value)
		default:
			return 0, false
		}
	}
	return i, true
}

// DefaultMCPMaxRequestKiB and DefaultMCPMaxConcurrent are `mcp serve
// --max-request-kib` and `--max-concurrent`'s defaults, the full CLI's
// (host/mcpserve.DefaultMaxRequestBytes and DefaultMaxConcurrent; a test
// checks).
const (
	DefaultMCPMaxRequestKiB = 4 << 10
	DefaultMCPMaxConcurrent = 32
)

// parseMCPServe recognises
//
//	demiurge [GLOBAL]... mcp serve [--principal P] [--max-request-kib N]
//	demiurge [GLOBAL]... mcp serve --http HOST:PORT [--token-file F] [--listen-public]
//	         [--allow-origin O]... [--max-concurrent N] [--principal P] [--max-request-kib N]
//
// (GLOBAL as for run; the flags after serve in any order, each at most
// once but --allow-origin, N a plain decimal): stdio, or streamable HTTP
// relayed to the host. What the full CLI refuses (an address
// mcpbind.CheckBind refuses, --token-file or --listen-public without
// --http), an origin with a comma (the full CLI splits it), every other
// flag and an argument go to the full CLI.
func parseMCPServe(args []string, getenv func(string) string) (Request, bool) {
	r, ok := envRequest("mcp serve", false, getenv)
	if !ok {
		return r, false
	}
	r.MaxRequestKiB, r.MaxConcurrent = DefaultMCPMaxRequestKiB, DefaultMCPMaxConcurrent
	i, ok := runGlobals(&r, args)
	if !ok || len(args)-i < 2 || args[i] != "mcp" || args[i+1] != "serve" {
		return r, false
	}
	seen := map[string]bool{}
	rest := args[i+2:]
	for j := 0; j < len(rest); j++ {
		if rest[j] == "--listen-public" && !r.ListenPublic {
			r.ListenPublic = true
			continue
		}
		name, value, ok := FlagValue(rest, &j)
		if !ok || (seen[name] && name != "allow-origin") {
			return r, false
		}
		seen[name] = true
		switch name {
		case "principal":
			r.Principal = value
		case "http":
			r.HTTP = value
		case "token-file":
			r.TokenFile = value
		case "allow-origin":
			// urfave splits a value at commas and trims each part's
			// spaces: such a value is the full CLI's to read.
			if strings.Contains(value, ",") || value != strings.TrimSpace(value) {
				return r, false
			}
			r.AllowOrigins = append(r.AllowOrigins, value)
		case "max-request-kib", "max-concurrent":
			if !limitValue.MatchString(value) {
				return r, false
			}
			n, _ := strconv.Atoi(value)
			if name == "max-request-kib" {
				r.MaxRequestKiB = n
			} else {
				r.MaxConcurrent = n
			}
		default:
			return r, false
		}
	}
	if r.HTTP == "" {
		// The HTTP-only flags without --http: the full CLI's usage error.
		return r, r.TokenFile == "" && !r.ListenPublic && r.AllowOrigins == nil && !seen["max-concurrent"]
	}
	return r, mcpbind.CheckBind(r.HTTP, r.ListenPublic, r.TokenFile != "") == nil
}

// envRequest is command's Request with the host-shaping variables of
// the environment (a turn's model ones too, when turn); ok is false in a
// detached host's child, whose call runs in process, never through a
// front end.
func envRequest(command string, turn bool, getenv func(string) string) (r Request, ok bool) {
	r = Request{Command: command, State: getenv("DEMIURGE_STATE"), Core: getenv("DEMIURGE_CORE"),
		Workspace: getenv("DEMIURGE_WORKSPACE"), PluginDir: getenv("DEMIURGE_PLUGIN_DIR"),
		Timezone: getenv("DEMIURGE_TIMEZONE")}
	if turn {
		r.Model, r.BaseURL = getenv("DEMIURGE_MODEL"), getenv("DEMIURGE_BASE_URL")
	}
	return r, getenv(detachedEnv) == ""
}

// parseShaping reads the global flags a command of the front end may
// give before its words, with their environment variables, and says
// where the command's words start.
func parseShaping(command string, args []string, getenv func(string) string) (r Request, i int, ok bool) {
	if r, ok = envRequest(command, false, getenv); !ok {
		return r, 0, false
	}
	// Plain string flags, so that the front end reads them as the full
	// CLI does, and the two global switches as the full CLI spells them
	// in its help. Any other flag or spelling goes to the full CLI.
	i, ok = Globals(args,
		map[string]*string{"state": &r.State, "core": &r.Core, "workspace": &r.Workspace, "plugin-dir": &r.PluginDir},
		map[string]*bool{"-q": &r.Quiet, "--quiet": &r.Quiet, "--no-color": &r.NoColor})
	return r, i, ok
}

// Globals reads the global flags that start args, as the full CLI
// accepts them: the value flags named in values (see FlagValue) and the
// switches spelled in switches, each at most once. It reports where the
// command's words start, or false at any other flag, a repeated one or
// an empty value: the full host judges those.
func Globals(args []string, values map[string]*string, switches map[string]*bool) (int, bool) {
	seen := map[string]bool{}
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i], "-"); i++ {
		if p := switches[args[i]]; p != nil && !*p {
			*p = true
			continue
		}
		name, value, ok := FlagValue(args, &i)
		p := values[name]
		if !ok || p == nil || seen[name] {
			return 0, false
		}
		seen[name], *p = true, value
	}
	return i, true
}

// FlagValue reads the value flag at args[*i], as --name=value or as
// --name value (then advancing *i past the value). A flag without a
// value, or with an empty one, is not understood: the full host judges it.
func FlagValue(args []string, i *int) (name, value string, ok bool) {
	a, found := strings.CutPrefix(args[*i], "--")
	if !found || a == "" || strings.HasPrefix(a, "-") {
		return "", "", false
	}
	name, value, inline := strings.Cut(a, "=")
	if !inline {
		if *i+1 >= len(args) {
			return "", "", false
		}
		*i++
		value = args[*i]
	}
	return name, value, value != ""
}

// StateDir is the full CLI's state directory for a --state (or
// DEMIURGE_STATE) value: made absolute, else $XDG_STATE_HOME/demiurge,
// else ~/.local/state/demiurge.
// It refuses one another user could replace or fill (CheckStateDir).
func StateDir(flag string) (string, error) {
	dir, err := stateDirPath(flag)
	if err != nil {
		return "", err
	}
	if err := CheckStateDir(dir); err != nil {
		return "", err
	}
	return dir, nil
}

func stateDirPath(flag string) (string, error) {
	if flag != "" {
		return filepath.Abs(flag)
	}
	if s := os.Getenv("XDG_STATE_HOME"); s != "" {
		return filepath.Join(s, "demiurge"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no state directory: set --state or HOME: %w", err)
	}
	return filepath.Join(home, ".local", "state", "demiurge"), nil
}
