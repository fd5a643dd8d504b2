package redact

import (
	"fmt"
	"strings"
	"testing"
)

// A remembered answer is the judged one, for secret and plain names alike,
// asked again and again.
func TestSecretNameMemoAnswersAsJudged(t *testing.T) {
	for _, name := range []string{"password", "apiKey", "path", "content", "max_tokens", "x" + strings.Repeat("y", 70) + "token"} {
		want := judgeSecretName(name)
		for i := 0; i < 3; i++ {
			if got := isSecretName(name); got != want {
				t.Fatalf("isSecretName(%q) round %d = %v, judged %v", name, i, got, want)
			}
		}
	}
	if !isSecretName("password") || isSecretName("path") {
		t.Fatal("memo changed an answer")
	}
}

// The memory never grows past its bound, long names are never kept, and
// answers past the bound are still judged.
func TestSecretNameMemoIsBounded(t *testing.T) {
	long := strings.Repeat("a", nameMemoKeyMax) + "_token"
	isSecretName(long)
	if _, ok := nameMemo.Load(long); ok {
		t.Fatal("a name longer than the bound was remembered")
	}
	for i := 0; i < nameMemoMax+100; i++ {
		isSecretName(fmt.Sprintf("field_%d", i))
	}
	if n := nameCount.Load(); n > nameMemoMax {
		t.Fatalf("memo holds %d names, bound %d", n, nameMemoMax)
	}
	if !isSecretName("late_password_after_the_bound") || isSecretName("late_plain_after_the_bound") {
		t.Fatal("a name judged past the bound got the wrong answer")
	}
}
