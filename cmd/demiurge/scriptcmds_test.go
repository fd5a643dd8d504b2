package main

import (
	"encoding/json"
	"errors"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/testscript"
)

// scriptCmds are the testscript commands that check the CLI conventions
// on the last command's standard output.
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"snakejson": snakeJSON,
	"maxwidth":  maxWidth,
	"exits":     exits,
	"procgone":  procGone,
	"waitfile":  waitFile,
}

// exits: exits N PROG [ARGS...] — runs PROG like exec and checks that it
// exits with status N exactly (exec only tells zero from non-zero).
func exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits N PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: %v", err)
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", strings.Join(args[1:], " "), got, want)
	}
}

var snakeKey = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// Subtrees whose keys are data, not the CLI's own: JSON Schemas, tool
// arguments and environment names.
var dataKeys = map[string]bool{"schema": true, "input_schema": true, "parameters": true, "properties": true, "args": true, "arguments": true, "env": true,
	"rules": true, // sandbox status: Landlock rule names such as fs.read
}

// snakeJSON: snakejson — stdout is JSON whose every key (outside schema
// and argument subtrees) is snake_case.
func snakeJSON(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: snakejson")
	}
	var v any
	if err := json.Unmarshal([]byte(ts.ReadFile("stdout")), &v); err != nil {
		ts.Fatalf("stdout is not one JSON value: %v", err)
	}
	var bad []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, child := range v {
				if !snakeKey.MatchString(k) {
					bad = append(bad, path+"."+k)
				}
				if !dataKeys[k] {
					walk(path+"."+k, child)
				}
			}
		case []any:
			for i, child := range v {
				walk(path+"["+strconv.Itoa(i)+"]", child)
			}
		}
	}
	walk("$", v)
	if len(bad) > 0 {
		ts.Fatalf("keys not in snake_case: %s", strings.Join(bad, ", "))
	}
}

// maxWidth: maxwidth N — no line of stdout is wider than N runes.
func maxWidth(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: maxwidth N")
	}
	n, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("maxwidth: %v", err)
	}
	for i, line := range strings.Split(ts.ReadFile("stdout"), "\n") {
		if w := utf8.RuneCountInString(line); w > n {
			ts.Fatalf("stdout line %d is %d wide, more than %d: %q", i+1, w, n, line)
		}
	}
}

// goEnv hands the go command's caches to a script, so that building a
// plugin in one uses the modules and builds already here (HOME is the
// script's own; GOEXPERIMENT as the Makefile set it, the same build
// configuration) and never the network.
func goEnv(env *testscript.Env) {
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOFLAGS", "GOROOT", "GOEXPERIMENT"} {
		if out, err := exec.Command("go", "env", k).Output(); err == nil {
			env.Setenv(k, strings.TrimSpace(string(out)))
		}
	}
	env.Setenv("GOPROXY", "off")
	env.Setenv("GOTOOLCHAIN", "local")
}
