package shellguard

// Shapes that could make the guard's work explode (brace products, many
// inner sources, deep globs, regular expressions) stay bounded: each is
// judged within a generous wall-clock bound on a loaded machine.

import (
	"strings"
	"testing"
	"time"
)

func TestAdversarialShapesStayBounded(t *testing.T) {
	for _, c := range []string{
		strings.Repeat("*", 2000) + "x -rf /",
		"rm -rf " + strings.Repeat("{a,b}", 40),
		"rm -rf " + strings.Repeat("/?*", 500),
		"rm -rf " + strings.Repeat("/*", 2000) + "/x",
		"rm -rf " + strings.Repeat("{", 60) + strings.Repeat("a,", 50) + strings.Repeat("}", 60),
		strings.Repeat("rm -rf {a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}; ", 200),
		strings.Repeat("cd ../x; ", 400) + "rm -rf *",
		strings.Repeat("echo / | ", 300) + "xargs rm -rf",
		strings.Repeat("sudo ", 3000) + "rm -rf /",
		"find / " + strings.Repeat("( ", 30) + "-name x" + strings.Repeat(" )", 30) + " -delete",
		"find / " + strings.Repeat("! ", 3000) + "-delete",
		"python3 -c '" + strings.Repeat("system(\"rm -rf x\");", 3000) + "'",
		"strace " + strings.Repeat("'a b c' ", 3000),
		strings.Repeat("tmux '", 1) + strings.Repeat("tmux \"x y ", 100) + "'",
		"kill " + strings.Repeat("-9 ", 5000),
		"pkill '" + strings.Repeat("(a*)*", 500) + "'",
	} {
		s := time.Now()
		v := Check(c, tableOptions)
		if d := time.Since(s); d > time.Second {
			t.Errorf("%v for %.60q -> %v", d, c, v.Decision)
		}
	}
}

// The work budget is shared by one command: many brace products are
// blocked unreviewed, a few are judged.
func TestWorkBudget(t *testing.T) {
	product := "rm -rf {a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}; "
	few := strings.Repeat(product, maxWork/256/2)
	if v := Check(few, tableOptions); v.Decision != Prompt {
		t.Errorf("%d brace products = %v %q, want prompt", maxWork/256/2, v.Decision, v.Reasons)
	}
	many := strings.Repeat(product, maxWork/256+1)
	if v := Check(many, tableOptions); v.Decision != Block || !strings.Contains(strings.Join(v.Reasons, " "), "brace") {
		t.Errorf("%d brace products = %v %q, want block (too large to review)", maxWork/256+1, v.Decision, v.Reasons)
	}
	code := strings.Repeat("bash -c 'ls'; ", maxWork/16+1)
	if v := Check(code, tableOptions); v.Decision != Block {
		t.Errorf("%d inner sources = %v, want block (more shell code than reviewed)", maxWork/16+1, v.Decision)
	}
}
