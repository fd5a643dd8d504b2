package shellguard

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// sedSandboxRefuses runs GNU sed's own judgement: --sandbox refuses a
// script with e, r, w (and R, W, s///e, s///w) before it reads input.
func sedSandboxRefuses(script string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sed", "--sandbox", "-n", "-e", script, "/dev/null")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	_ = cmd.Run()
	return strings.Contains(stderr.String(), "disabled in sandbox mode")
}

// sedPieces are what the generated scripts are made of: delimiters,
// bracket expressions, escapes, the commands and flags that execute or
// write and those that do not.
var sedPieces = []string{"s", "s", "y", "/", "/", "/", "[", "]", "^", `\`, "e", "w", "r", "x", "g", "p", ";", "\n",
	"1", "$", ",", "{", "}", " ", "I", "M", "~", "!", "a", "W", "R", "q", ",", "|", "n", "[:", ":]", "[.", ".]", "[=", "=]", "[:alpha:]"}

// sedScript is a generated script: half free soup of pieces, half shaped
// as one or two s commands (delimiter, regex, replacement, flags), where
// a misread end of the regex or replacement matters most.
func sedScript(rng *rand.Rand) string {
	soup := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(sedPieces[rng.IntN(len(sedPieces))])
		}
		return b.String()
	}
	if rng.IntN(2) == 0 {
		return []string{"s/", "/", "s|", `\,`, "1", "y/"}[rng.IntN(6)] + soup(1+rng.IntN(12))
	}
	var b strings.Builder
	for range 1 + rng.IntN(2) {
		d := []string{"/", "|", ",", "e", "w", "["}[rng.IntN(6)]
		b.WriteString("s" + d + soup(rng.IntN(5)) + d + soup(rng.IntN(3)) + d)
		b.WriteString([]string{"", "g", "p", "e", "w x", "2", "I", "gp"}[rng.IntN(8)])
		b.WriteString([]string{";", "\n", ""}[rng.IntN(3)])
	}
	return b.String()
}

// TestSedScriptsTheGuardPassesSedsSandboxAllows: every script the guard's
// sed reader accepts as read-only, GNU sed's --sandbox accepts too (it
// refuses e, r and w in every spelling), over generated scripts made of
// delimiters, brackets and escapes that a misreading of where a regex
// ends would let an e or w flag through.
func TestSedScriptsTheGuardPassesSedsSandboxAllows(t *testing.T) {
	if _, err := exec.LookPath("sed"); err != nil {
		t.Fatal("GNU sed is needed (Debian: sed, an essential package)")
	}
	rng := rand.New(rand.NewPCG(68, 1))
	accepted := 0
	for range 4000 {
		script := sedScript(rng)
		if !sedScriptSafe(script) {
			continue
		}
		accepted++
		if sedSandboxRefuses(script) {
			t.Errorf("the guard reads %q as read-only; sed --sandbox refuses it as executing or writing", script)
		}
	}
	if accepted < 400 {
		t.Fatalf("only %d generated scripts were accepted: the test exercises too little", accepted)
	}
	t.Logf("%d of 4000 generated scripts accepted, each checked against sed --sandbox", accepted)
}
