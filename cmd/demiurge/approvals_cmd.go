package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"demiurge.dev/host/approval"
)

// approvalsCommand edits the operator's approvals file: standing rules
// (allow:mcp_connect__fs) that count like --approve on every run, in the
// user's configuration directory, which no core, tool or agent can write.
func approvalsCommand() *cli.Command {
	return &cli.Command{
		Name:  "approvals",
		Usage: "the operator's standing approval rules ($XDG_CONFIG_HOME/demiurge/approvals.yaml)",
		Description: "Rules here count like --approve on every run: they may approve what needs the operator\n" +
			"(an MCP server's start, a command the shell guard asks about). The file must be this user's,\n" +
			"writable by no one else, and outside every workspace, core and state directory.",
		Subcommands: []*cli.Command{
			{Name: "list", Usage: "the rules, one a line", Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print JSON"}}, Action: approvalsList},
			{Name: "add", Usage: "add a rule", ArgsUsage: "RULE (" + approval.RuleSyntax + ")", Action: approvalsEdit(true)},
			{Name: "remove", Usage: "remove a rule", ArgsUsage: "RULE", Action: approvalsEdit(false)},
		},
	}
}

// operatorFileOff are the directories the approvals file must lie outside:
// the workspace, the core and the state directory of this command line.
func operatorFileOff(c *cli.Context) []string {
	var off []string
	ws := c.String("workspace")
	if ws == "" {
		ws, _ = os.Getwd()
	}
	for _, d := range []string{ws, c.String("core")} {
		if d != "" {
			if abs, err := filepath.Abs(d); err == nil {
				off = append(off, abs)
			}
		}
	}
	if st, err := stateDir(c); err == nil {
		off = append(off, st)
	}
	return off
}

func operatorFileOrFail() (string, error) {
	f := approval.OperatorFile()
	if f == "" {
		return "", fmt.Errorf("no configuration directory: set XDG_CONFIG_HOME or HOME")
	}
	return f, nil
}

func approvalsList(c *cli.Context) error {
	file, err := operatorFileOrFail()
	if err != nil {
		return err
	}
	rules, err := approval.OperatorRules(file, operatorFileOff(c)...)
	if err != nil {
		return err
	}
	if rules == nil {
		rules = []string{}
	}
	byName(rules, func(r string) string { return r })
	if c.Bool("json") {
		return writeJSON(c.App.Writer, map[string]any{"file": file, "rules": rules})
	}
	if len(rules) == 0 {
		fmt.Fprintf(c.App.ErrWriter, "no standing rules in %s; add one with: demiurge approvals add allow:TOOL\n", file)
		return nil
	}
	for _, r := range rules {
		fmt.Fprintln(c.App.Writer, r)
	}
	return nil
}

func approvalsEdit(add bool) cli.ActionFunc {
	return func(c *cli.Context) error {
		if c.NArg() != 1 {
			return usagef("approvals %s needs one RULE (%s)", c.Command.Name, approval.RuleSyntax)
		}
		file, err := operatorFileOrFail()
		if err != nil {
			return err
		}
		rule := c.Args().First()
		if _, err := approval.ParseRule(rule); err != nil {
			return usageError{err}
		}
		changed, err := approval.EditOperatorFile(file, rule, add, operatorFileOff(c)...)
		if err != nil {
			return err
		}
		switch {
		case add && changed:
			fmt.Fprintf(c.App.Writer, "added %s to %s\n", rule, file)
		case add:
			fmt.Fprintf(c.App.Writer, "%s is already in %s\n", rule, file)
		case changed:
			fmt.Fprintf(c.App.Writer, "removed %s from %s\n", rule, file)
		default:
			return fmt.Errorf("%s is not in %s; 'demiurge approvals list' shows the rules", rule, file)
		}
		return nil
	}
}
