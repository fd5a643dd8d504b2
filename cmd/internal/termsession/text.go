package termsession

import (
	"fmt"
	"strconv"
	"strings"

	"demiurge.dev/catalog"
)

// Help is /help.
const Help = `commands:
  /tools [quiet|summary|full]   the tools this turn resolves to
  /call NAME [ARGS_JSON]        call a tool through the full call path
  /approvals [revoke N|all]     live session approvals: tool, what each covers, expiry
  /tasks [list|show|logs|wait|cancel] [ID]   this session's background tasks
  /subagents [ID] [--json]   this session's child agents; with ID, its requested controls and resolved pipeline
  /session [list|new|resume ID] this session; start a new one or go back to one
  /usage                        tokens the model used in this session (each turn ends with a line)
  /stop                         stop the running turn or call (Ctrl-C does the same)
  /help                         this text
  /quit                         leave (also Ctrl-D, or Ctrl-C twice at an empty prompt)
`

// SlashCommands are the session's commands, for "did you mean".
var SlashCommands = []string{"/tools", "/call", "/approvals", "/tasks", "/session", "/usage", "/stop", "/help", "/quit", "/exit"}

// NoModelHelp answers chat typed into a session without a model.
const NoModelHelp = `no model is configured, so this is a tool session: /call NAME {json} calls a tool.
To chat, configure a model: a model: block in agent.yaml (provider, name, api_key_env)
or --model provider:name, with the provider's key in the environment (e.g. ANTHROPIC_API_KEY).`

// SessionUsage is /session's usage line.
const SessionUsage = "usage: /session [list|new|resume ID]"

// ApprovalsUsage is /approvals' usage line.
const ApprovalsUsage = "usage: /approvals [revoke N|all]"

// DidYouMean is "; did you mean X?" when a candidate is near name
// (catalog.Suggest: the host's one "did you mean" for tools, arguments and
// agent.yaml keys, here for commands, shells and tool names), else "".
func DidYouMean(name string, candidates []string) string {
	if s := catalog.Suggest(name, candidates); s != "" && s != name {
		return fmt.Sprintf("; did you mean %q?", s)
	}
	return ""
}

// ParseApprovalsArg reads /approvals' argument: nothing lists, "revoke
// all" or "revoke N" revokes first; refusal is the line to print instead.
func ParseApprovalsArg(arg string) (n int, all bool, refusal string) {
	verb, which, _ := strings.Cut(arg, " ")
	which = strings.TrimSpace(which)
	switch {
	case verb == "" && which == "":
	case verb == "revoke" && which == "all":
		all = true
	case verb == "revoke" && which != "":
		var err error
		if n, err = strconv.Atoi(which); err != nil || n < 1 {
			return 0, false, fmt.Sprintf("no approval %s; /approvals lists them", printable(which, 20))
		}
	default:
		return 0, false, ApprovalsUsage
	}
	return n, all, ""
}

// OrDash is s, or "-" when empty.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
