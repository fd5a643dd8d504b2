package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"demiurge.dev/host/approval"
)

// The bash and zsh scripts ask demiurge itself for the words that can
// follow (urfave/cli's --generate-bash-completion), so they never go
// stale as commands are added; fish gets urfave/cli's generated script.
const bashCompletion = `# demiurge bash completion: source <(demiurge completion bash)
_demiurge_complete() {
	local cur opts
	COMPREPLY=()
	cur="${COMP_WORDS[COMP_CWORD]}"
	if [[ "$cur" == -* ]]; then
		opts=$("${COMP_WORDS[@]:0:$COMP_CWORD}" "$cur" --generate-bash-completion 2>/dev/null)
	else
		opts=$("${COMP_WORDS[@]:0:$COMP_CWORD}" --generate-bash-completion 2>/dev/null)
	fi
	COMPREPLY=($(compgen -W "$opts" -- "$cur"))
	return 0
}
complete -o bashdefault -o default -F _demiurge_complete demiurge bin/demiurge ./bin/demiurge
`

const zshCompletion = `#compdef demiurge
# demiurge zsh completion: source <(demiurge completion zsh)
_demiurge() {
	local -a opts
	local cur=${words[-1]}
	if [[ "$cur" == -* ]]; then
		opts=("${(@f)$(${words[@]:0:#words[@]-1} "$cur" --generate-bash-completion 2>/dev/null)}")
	else
		opts=("${(@f)$(${words[@]:0:#words[@]-1} --generate-bash-completion 2>/dev/null)}")
	fi
	if [[ "${opts[1]}" != "" ]]; then
		_describe 'values' opts
	else
		_files
	fi
}
compdef _demiurge demiurge bin/demiurge ./bin/demiurge
`

var completionShells = []string{"bash", "zsh", "fish"}

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script: bash, zsh or fish",
		ArgsUsage: "bash|zsh|fish",
		Description: "bash: source <(demiurge completion bash)\n" +
			"zsh:  source <(demiurge completion zsh)\n" +
			"fish: demiurge completion fish | source",
		BashComplete: func(c *cli.Context) {
			fmt.Fprintln(c.App.Writer, strings.Join(completionShells, "\n"))
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("completion takes one shell: %s", strings.Join(completionShells, ", "))
			}
			shell := c.Args().First()
			switch shell {
			case "bash":
				_, err := fmt.Fprint(c.App.Writer, bashCompletion)
				return err
			case "zsh":
				_, err := fmt.Fprint(c.App.Writer, zshCompletion)
				return err
			case "fish":
				s, err := c.App.ToFishCompletion()
				if err != nil {
					return err
				}
				_, err = fmt.Fprint(c.App.Writer, s)
				return err
			}
			return usagef("completion: no shell %q%s; choose %s", shell, didYouMeanSuffix(shell, completionShells), strings.Join(completionShells, ", "))
		},
	}
}

// completeToolNames completes a tool name as the first argument of
// `tools call|show`: the catalog this command line resolves to, in
// process and denying every approval (completion never calls a tool).
// Errors complete nothing.
func completeToolNames(c *cli.Context) {
	if c.NArg() > 0 {
		return
	}
	h, err := openHost(c, approval.DenyAll{})
	if err != nil {
		return
	}
	defer h.Close()
	cat, err := h.Catalog(c.Context)
	if err != nil {
		return
	}
	names := toolNames(cat)
	slices.Sort(names)
	fmt.Fprintln(c.App.Writer, strings.Join(names, "\n"))
}

// commandNames lists a command list's names and aliases, hidden ones left out.
func commandNames(cmds []*cli.Command) []string {
	var names []string
	for _, c := range cmds {
		if !c.Hidden {
			names = append(names, c.Names()...)
		}
	}
	slices.Sort(names)
	return names
}
