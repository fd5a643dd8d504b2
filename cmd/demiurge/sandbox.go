package main

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"demiurge.dev/host/sandboxing"
	"demiurge.dev/shared/sandbox"
)

// sandboxCommand is `demiurge sandbox status`: what the kernel enforces
// for sandboxed commands here, and the mode they would get.
func sandboxCommand() *cli.Command {
	return &cli.Command{
		Name:  "sandbox",
		Usage: "the OS sandbox under commands: status",
		Subcommands: []*cli.Command{{
			Name:  "status",
			Usage: "the kernel's Landlock ABI, the rules enforced, seccomp and namespaces, and the effective mode",
			Flags: []cli.Flag{
				&cli.BoolFlag{Name: "json", Usage: "print JSON"},
				&cli.StringFlag{Name: "mode", Value: string(sandbox.WorkspaceWrite), Usage: "the mode to check: read-only, workspace-write, network, off"},
			},
			Action: sandboxStatus,
		}},
	}
}

func sandboxStatus(c *cli.Context) error {
	mode, err := sandbox.ParseMode(c.String("mode"))
	if err != nil {
		return usageError{err}
	}
	st := sandboxing.Report(sandboxing.HelperPath(builtinPluginDir(c)), mode)
	if c.Bool("json") {
		return writeJSON(os.Stdout, st)
	}
	w := os.Stdout
	helper := st.Helper
	if helper == "" {
		helper = "(not found)"
	}
	fmt.Fprintf(w, "helper:             %s\n", helper)
	fmt.Fprintf(w, "landlock ABI:       %d\n", st.LandlockABI)
	var on, off []string
	for r, ok := range st.Rules {
		if ok {
			on = append(on, r)
		} else {
			off = append(off, r)
		}
	}
	sort.Strings(on)
	sort.Strings(off)
	fmt.Fprintf(w, "enforced rules:     %s\n", listOrNone(on))
	fmt.Fprintf(w, "not enforceable:    %s\n", listOrNone(off))
	fmt.Fprintf(w, "seccomp:            %s\n", yesNo(st.Seccomp))
	fmt.Fprintf(w, "user namespaces:    %s\n", yesNo(st.UserNS))
	fmt.Fprintf(w, "mount namespaces:   %s\n", yesNo(st.MountNS))
	fmt.Fprintf(w, "network namespaces: %s\n", yesNo(st.NetNS))
	fmt.Fprintf(w, "requested mode:     %s\n", st.Requested)
	fmt.Fprintf(w, "effective mode:     %s\n", st.Effective)
	fmt.Fprintf(w, "unasked commands:   %s\n", st.Unasked)
	fmt.Fprintf(w, "network calls:      %s\n", st.Network)
	fmt.Fprintf(w, "limits:             %d processes, %d MiB TMPDIR per command\n", st.Limits.MaxProcs, st.Limits.TmpMiB)
	fmt.Fprintf(w, "package plugins:    %s\n", st.Packages)
	fmt.Fprintf(w, "installed plugins:  %s\n", st.Toolsets)
	for _, p := range st.Toolchains {
		fmt.Fprintf(w, "toolchain (r-x):    %s\n", p)
	}
	for _, m := range st.Missing {
		fmt.Fprintf(w, "missing:            %s\n", m)
	}
	for _, n := range st.Notes {
		fmt.Fprintf(w, "note:               %s\n", n)
	}
	return nil
}

func listOrNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, " ")
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// sandboxLine is the one-line sandbox status `plugins list` ends with.
func sandboxLine(st sandboxing.Status) string {
	line := fmt.Sprintf("sandbox: landlock ABI %d, seccomp %s, mode %s enforced as %s, unasked commands %s",
		st.LandlockABI, yesNo(st.Seccomp), st.Requested, st.Effective, st.Unasked)
	if len(st.Missing) > 0 {
		line += "; missing: " + strings.Join(st.Missing, ", ")
	}
	return line + " (details: demiurge sandbox status)"
}
