package providertest

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestParseScriptRefusesBadSteps(t *testing.T) {
	for _, tc := range []struct{ name, script, want string }{
		{"unknown field", `[{"txt":["a"]}]`, `unknown field "txt"`},
		{"bad stop", `[{"stop":"done"}]`, `stop "done"`},
		{"error status", `[{"error":{"status":200}}]`, "error status 200"},
		{"error and raw", `[{"error":{"status":500},"raw":{"status":200,"body":""}}]`, "exclude"},
		{"nameless call", `[{"tool_calls":[{"id":"c"}]}]`, "no name"},
		{"not an array", `{"text":["a"]}`, "cannot unmarshal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseScript([]byte(tc.script))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to say %q", err, tc.want)
			}
		})
	}
}

func post(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestServerRecordsRequestsAndRunsOut(t *testing.T) {
	s := NewServer(KindAnthropic, []Step{{Text: []string{"hi"}}})
	defer s.Close()
	resp, body := post(t, s.URL+"/v1/messages", `{"model":"m1"}`)
	if resp.StatusCode != 200 || !strings.Contains(body, `"text_delta"`) || !strings.Contains(body, "event: message_stop") {
		t.Fatalf("first reply: %d %s", resp.StatusCode, body)
	}
	resp, body = post(t, s.URL+"/v1/messages", `{"model":"m1"}`)
	if resp.StatusCode != 400 || !strings.Contains(body, "the script has 1 steps and this is request 2") {
		t.Fatalf("exhausted reply: %d %s", resp.StatusCode, body)
	}
	resp, body = post(t, s.URL+"/v1/chat/completions", `{}`)
	if resp.StatusCode != 404 || !strings.Contains(body, "speaks anthropic") {
		t.Fatalf("wrong route: %d %s", resp.StatusCode, body)
	}
	reqs := s.Requests()
	if len(reqs) != 2 || string(reqs[0].Body) != `{"model":"m1"}` || reqs[0].Path != "/v1/messages" {
		t.Fatalf("requests = %+v", reqs)
	}
}

func TestRepeatLast(t *testing.T) {
	s := NewServer(KindOpenAI, []Step{{Text: []string{"one"}}, {Text: []string{"again"}}})
	defer s.Close()
	s.RepeatLast()
	for i, want := range []string{"one", "again", "again", "again"} {
		if _, body := post(t, s.URL+"/v1/chat/completions", `{}`); !strings.Contains(body, `"content":"`+want+`"`) {
			t.Fatalf("request %d: %s", i+1, body)
		}
	}
}

func TestErrorEchoesHeadersWhenAsked(t *testing.T) {
	s := NewServer(KindOpenAI, []Step{{Error: &ErrorReply{Status: 401, Message: "bad key", EchoHeaders: true, Headers: map[string]string{"X-Test": "1"}}}})
	defer s.Close()
	req, _ := http.NewRequest("POST", s.URL+"/v1/chat/completions", strings.NewReader("{}"))
	req.Header.Set("Authorization", "Bearer sk-visible")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 401 || resp.Header.Get("X-Test") != "1" || !strings.Contains(string(b), "Bearer sk-visible") {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
}

func TestInterleavedChatArgumentsAlternate(t *testing.T) {
	s := NewServer(KindOpenAI, []Step{{Interleave: true, ToolCalls: []ToolCall{
		{ID: "a", Name: "x", ArgChunks: []string{"A1", "A2"}}, {ID: "b", Name: "y", ArgChunks: []string{"B1"}}}}})
	defer s.Close()
	_, body := post(t, s.URL+"/chat/completions", `{}`)
	a1, b1, a2 := strings.Index(body, `"A1"`), strings.Index(body, `"B1"`), strings.Index(body, `"A2"`)
	if !(a1 < b1 && b1 < a2) || !strings.HasSuffix(strings.TrimSpace(body), "data: [DONE]") || !strings.Contains(body, `"finish_reason":"tool_calls"`) {
		t.Fatalf("order A1 %d B1 %d A2 %d in\n%s", a1, b1, a2, body)
	}
}

// TestMainServesAScriptFile runs the process mode in-process: it prints
// its URL, writes the URL file, records requests, and stops on SIGINT.
func TestMainServesAScriptFile(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.json")
	os.WriteFile(script, []byte(`[{"text":["hello"]}]`), 0o644)
	urlFile, reqFile := filepath.Join(dir, "url"), filepath.Join(dir, "req.jsonl")
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- Main([]string{"serve", "--kind", "openai", "--script", script, "--url-file", urlFile, "--requests", reqFile}, pw, io.Discard)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	url := strings.TrimSpace(line)
	go io.Copy(io.Discard, pr)
	if got, _ := os.ReadFile(urlFile); string(got) != url {
		t.Fatalf("url file %q, stdout %q", got, url)
	}
	_, body := post(t, url+"/v1/chat/completions", `{"model":"m"}`)
	if !strings.Contains(body, `"content":"hello"`) {
		t.Fatalf("body %s", body)
	}
	if got, _ := os.ReadFile(reqFile); !bytes.Contains(got, []byte(`"path":"/v1/chat/completions"`)) {
		t.Fatalf("requests file: %s", got)
	}
	p, _ := os.FindProcess(os.Getpid())
	p.Signal(os.Interrupt)
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop on SIGINT within 10s")
	}
}

func TestMainBadUsage(t *testing.T) {
	var errb bytes.Buffer
	for _, args := range [][]string{nil, {"serve"}, {"serve", "--kind", "cohere", "--script", "/nonexistent"}} {
		errb.Reset()
		if code := Main(args, io.Discard, &errb); code != 2 || errb.Len() == 0 {
			t.Fatalf("%v: exit %d, stderr %q", args, code, errb.String())
		}
	}
}
