package main

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/template"

	"github.com/urfave/cli/v2"

	"demiurge.dev/catalog"
)

//go:embed scaffold/*.tmpl
var scaffoldFS embed.FS

// scaffold is what the templates of `plugins new` are filled with.
type scaffold struct {
	Name, Tool, Module string
	SDK, Shared        string // the checkout's sdk and shared modules
}

func pluginsNewCommand() *cli.Command {
	return &cli.Command{
		Name:      "new",
		Usage:     "scaffold a toolset plugin module: one tool, its test, and a go.work that uses the SDK of a Demiurge checkout",
		ArgsUsage: "NAME",
		Description: "Writes NAME/ (or --dir): go.mod, go.work, main.go, greet.go with greet.md, greet_test.go and README.md.\n" +
			"demiurge.dev/sdk is not on a module proxy: go.work points at the checkout's sdk and shared modules\n" +
			"(--src, else $DEMIURGE_SRC, else the checkout the demiurge binary was built in).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dir", Usage: "directory to create; default: NAME"},
			&cli.StringFlag{Name: "module", Usage: "module path; default: example.com/NAME"},
			&cli.StringFlag{Name: "src", Usage: "Demiurge checkout holding sdk/ and shared/", EnvVars: []string{"DEMIURGE_SRC"}},
		},
		Action: pluginsNew,
	}
}

func pluginsNew(c *cli.Context) error {
	if c.NArg() != 1 {
		return usagef("plugins new takes one toolset name")
	}
	name := c.Args().First()
	if err := catalog.ValidToolsetName(name); err != nil {
		return usagef("%v", err)
	}
	src, err := demiurgeSource(c)
	if err != nil {
		return err
	}
	dir := c.String("dir")
	if dir == "" {
		dir = name
	}
	module := c.String("module")
	if module == "" {
		module = "example.com/" + name
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("%s already exists; plugins new writes a new directory (choose another with --dir)", dir)
		}
		return err
	}
	data := scaffold{Name: name, Tool: name + "_greet", Module: module,
		SDK: filepath.Join(src, "sdk"), Shared: filepath.Join(src, "shared")}
	tmpls, err := scaffoldFS.ReadDir("scaffold")
	if err != nil {
		return err
	}
	for _, e := range tmpls {
		t, err := template.ParseFS(scaffoldFS, "scaffold/"+e.Name())
		if err != nil {
			return err
		}
		var b bytes.Buffer
		if err := t.Execute(&b, data); err != nil {
			return err
		}
		out := filepath.Join(dir, strings.TrimSuffix(e.Name(), ".tmpl"))
		if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(c.App.Writer, "created %s: toolset %s with the tool %s\n", dir, name, data.Tool)
	fmt.Fprintf(c.App.Writer, "next: cd %s && go test ./... && go build -o demiurge-toolset-%s . && demiurge plugins install ./demiurge-toolset-%s\n", dir, name, name)
	return nil
}

// demiurgeSource is the Demiurge checkout whose sdk and shared modules a
// new toolset builds against.
func demiurgeSource(c *cli.Context) (string, error) {
	candidates := []string{c.String("src")}
	if c.String("src") == "" {
		candidates = []string{filepath.Dir(builtinPluginDir(c))} // bin/ of a checkout
	}
	for _, dir := range candidates {
		if dir == "" {
			continue
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return "", err
		}
		if fileExists(filepath.Join(abs, "sdk", "go.mod")) && fileExists(filepath.Join(abs, "shared", "go.mod")) {
			return abs, nil
		}
		if c.String("src") != "" {
			return "", usagef("--src %s: no sdk/go.mod and shared/go.mod there; give the root of a Demiurge checkout", dir)
		}
	}
	return "", usagef("no Demiurge checkout found beside this binary: pass --src DIR (or set DEMIURGE_SRC) to the repository's root")
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }
