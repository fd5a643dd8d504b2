package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"demiurge.dev/host/policy/shellguard"
)

// policyCommand groups the host's policy checks, each printing a verdict
// as JSON without running anything.
func policyCommand() *cli.Command {
	return &cli.Command{
		Name:  "policy",
		Usage: "the host's policy verdicts as JSON: check-command, check-url",
		Subcommands: []*cli.Command{
			policyCheckCommandCommand(),
			policyCheckURLCommand(),
		},
	}
}

// policyCheckCommandCommand is `demiurge policy check-command -- 'CMD'`:
// the shell guard's verdict. It exits 0 on any verdict (allow, prompt or
// block; --exit-code makes it the status) and 2 on a usage mistake.
func policyCheckCommandCommand() *cli.Command {
	return &cli.Command{
		Name:      "check-command",
		Usage:     "the shell guard's verdict on a command as JSON (decision allow|prompt|block, risk, reasons, parts)",
		ArgsUsage: "-- 'COMMAND'",
		Description: "Quote the command as one argument after --, as the terminal tool would receive it. " +
			"Nothing is run. The workspace (default: the current directory) is where rm -rf of the root is " +
			"blocked and outside which reads need approval; --cwd is where the command would run.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "workspace", Usage: "workspace directory; default: the current directory"},
			&cli.StringFlag{Name: "cwd", Usage: "directory the command would run in; default: the workspace"},
			exitCodeFlag(),
		},
		Action: policyCheckCommand,
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usageError{err}
		},
	}
}

// commandVerdict is what check-command prints.
type commandVerdict struct {
	Command   string `json:"command"`
	Workspace string `json:"workspace"`
	Cwd       string `json:"cwd"`
	shellguard.Verdict
}

func policyCheckCommand(c *cli.Context) error {
	if c.NArg() != 1 {
		return usagef("policy check-command takes the command as one quoted argument after --, as in: demiurge policy check-command -- 'git log -5' (got %d arguments)", c.NArg())
	}
	ws, err := absDir(flagInLineage(c, "workspace"), "")
	if err != nil {
		return usagef("--workspace: %v", err)
	}
	cwd, err := absDir(c.String("cwd"), ws)
	if err != nil {
		return usagef("--cwd: %v", err)
	}
	// The guard follows paths from real directories, as the host gives it.
	if real, err := filepath.EvalSymlinks(ws); err == nil {
		ws = real
	}
	if real, err := filepath.EvalSymlinks(cwd); err == nil {
		cwd = real
	}
	home, _ := os.UserHomeDir()
	cmd := c.Args().First()
	v := shellguard.Check(cmd, shellguard.Options{WorkspaceRoot: ws, Cwd: cwd, Home: home, Files: shellguard.OSFiles{}})
	if v.Reasons == nil {
		v.Reasons = []string{}
	}
	if err := printJSON(c, commandVerdict{Command: cmd, Workspace: ws, Cwd: cwd, Verdict: v}); err != nil {
		return err
	}
	return verdictStatus(c, v.Decision.String())
}

// Exit statuses of --exit-code on the policy checks: the verdict as the
// status, for scripts (2 stays a usage mistake).
const (
	exitVerdictBlock  = 1 // block
	exitVerdictPrompt = 3 // prompt, or a URL whose name is not resolved
)

func exitCodeFlag() cli.Flag {
	return &cli.BoolFlag{Name: "exit-code", Usage: "exit with the verdict: 0 allow, 1 block, 3 prompt (or unresolved); the JSON is printed either way"}
}

// verdictStatus is the command's result for a decision: nil (exit 0)
// unless --exit-code asks for the verdict as the status.
func verdictStatus(c *cli.Context, decision string) error {
	if !c.Bool("exit-code") {
		return nil
	}
	switch decision {
	case "allow":
		return nil
	case "block":
		return cli.Exit("", exitVerdictBlock)
	}
	return cli.Exit("", exitVerdictPrompt)
}

// absDir makes dir absolute (relative to base, or to the current
// directory when base is empty); an empty dir means base, or the current
// directory.
func absDir(dir, base string) (string, error) {
	switch {
	case dir == "" && base != "":
		return base, nil
	case dir == "":
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("no current directory: %w", err)
		}
		return wd, nil
	case !filepath.IsAbs(dir) && base != "":
		return filepath.Join(base, dir), nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("%s: %w", dir, err)
	}
	return abs, nil
}

// flagInLineage reads a string flag set here or, failing that, on a
// parent command (the global --workspace and DEMIURGE_WORKSPACE).
func flagInLineage(c *cli.Context, name string) string {
	for _, l := range c.Lineage() {
		if v := l.String(name); v != "" {
			return v
		}
	}
	return ""
}
