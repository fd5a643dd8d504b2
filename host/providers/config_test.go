package providers

import (
	"strings"
	"testing"

	pt "demiurge.dev/host/providers/providertest"
)

func TestParseModel(t *testing.T) {
	for _, tc := range []struct{ in, provider, name, err string }{
		{"openai:gpt-5.1", "openai", "gpt-5.1", ""},
		{"anthropic:claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5", ""},
		{"openai-compatible:qwen3:8b", "openai-compatible", "qwen3:8b", ""},
		{"openai-responses:gpt-5.1", "openai-responses", "gpt-5.1", ""},
		{"gemini:gemini-2.5-pro", "gemini", "gemini-2.5-pro", ""},
		{"gpt-5.1", "", "", "want provider:name"},
		{"openai:", "", "", "want provider:name"},
		{":gpt", "", "", "want provider:name"},
		{"opnai:gpt-5.1", "", "", `unknown model provider "opnai" (known: anthropic, openai, openai-responses, openai-compatible, gemini); did you mean "openai"?`},
		{"cohere:command", "", "", `unknown model provider "cohere"`},
	} {
		p, n, err := ParseModel(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: err %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || p != tc.provider || n != tc.name {
			t.Errorf("%q: %q %q %v", tc.in, p, n, err)
		}
	}
}

func TestNewRefusesBadConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		env  map[string]string
		want string
	}{
		{"unknown provider", Config{Provider: "antropic", Name: "m"}, nil, `unknown model provider "antropic" (known: anthropic, openai, openai-responses, openai-compatible, gemini); did you mean "anthropic"?`},
		{"no name", Config{Provider: "openai"}, nil, "no model name"},
		{"missing key", Config{Provider: "anthropic", Name: "claude-x"}, nil, "no API key: the environment variable ANTHROPIC_API_KEY is not set"},
		{"missing openai key", Config{Provider: "openai-responses", Name: "gpt-5.1"}, nil, "OPENAI_API_KEY is not set"},
		{"missing gemini key", Config{Provider: "gemini", Name: "gemini-2.5-pro"}, nil, "GEMINI_API_KEY is not set"},
		{"api_key_env names the variable", Config{Provider: "openai", Name: "gpt-5.1", APIKeyEnv: "MY_KEY"}, map[string]string{"OPENAI_API_KEY": "k"}, "MY_KEY is not set"},
		{"compatible without base url", Config{Provider: "openai-compatible", Name: "qwen3"}, nil, "base_url is required"},
		{"compatible with a named but unset key", Config{Provider: "openai-compatible", Name: "qwen3", BaseURL: "http://127.0.0.1:1/v1", APIKeyEnv: "VLLM_KEY"}, nil, "VLLM_KEY is not set"},
		{"base url not http", Config{Provider: "openai", Name: "m", BaseURL: "file:///etc/passwd"}, map[string]string{"OPENAI_API_KEY": "k"}, "not an http(s) URL"},
		{"base url with credentials", Config{Provider: "openai", Name: "m", BaseURL: "https://u:p@example.com/v1"}, map[string]string{"OPENAI_API_KEY": "k"}, "must not hold credentials"},
		{"negative limit", Config{Provider: "openai", Name: "m", MaxOutputTokens: -1}, map[string]string{"OPENAI_API_KEY": "k"}, "must not be negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.cfg, env(tc.env), nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestKeyFromAPIKeyEnv: api_key_env chooses the variable, and the key goes
// out in the request header.
func TestKeyFromAPIKeyEnv(t *testing.T) {
	srv := pt.NewServer(pt.KindOpenAI, []pt.Step{okStep})
	defer srv.Close()
	p, err := New(Config{Provider: "openai", Name: "gpt-5.1", BaseURL: srv.URL + "/v1", APIKeyEnv: "TEAM_OPENAI_KEY"},
		env(map[string]string{"TEAM_OPENAI_KEY": "team-key-123", "OPENAI_API_KEY": "default-key"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer closeIdle(p)
	h := harness{p: p, srv: srv, clock: &fakeClock{}}
	if _, _, err := h.stream(t, hello()); err != nil {
		t.Fatal(err)
	}
	if got := srv.Requests()[0].Header.Get("Authorization"); got != "Bearer team-key-123" {
		t.Fatalf("Authorization %q", got)
	}
}

// TestCompatibleSendsNoAmbientKey: an openai-compatible server given no
// key gets no Authorization header, even though the process environment
// holds OPENAI_API_KEY (which the SDK's NewClient would pick up), and the
// SDK's OPENAI_BASE_URL does not redirect it.
func TestCompatibleSendsNoAmbientKey(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", testKey)
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/elsewhere")
	t.Setenv("OPENAI_ORG_ID", "org-ambient")
	srv := pt.NewServer(pt.KindOpenAI, []pt.Step{okStep})
	defer srv.Close()
	p, err := New(Config{Provider: "openai-compatible", Name: "qwen3:8b", BaseURL: srv.URL + "/v1"}, env(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer closeIdle(p)
	h := harness{p: p, srv: srv, clock: &fakeClock{}}
	if _, _, err := h.stream(t, hello()); err != nil {
		t.Fatal(err)
	}
	req := srv.Requests()[0]
	for k, v := range req.Header {
		if strings.Contains(strings.Join(v, ","), testKey) || strings.Contains(strings.Join(v, ","), "org-ambient") {
			t.Fatalf("ambient credential in header %s", k)
		}
	}
	if req.Header.Get("Authorization") != "" || !strings.Contains(string(req.Body), `"max_tokens"`) {
		t.Fatalf("Authorization %q, body %s", req.Header.Get("Authorization"), req.Body)
	}
}

// TestAnthropicIgnoresAmbientCredentials: ANTHROPIC_* variables of the
// process do not reach the client; only the key New was given.
func TestAnthropicIgnoresAmbientCredentials(t *testing.T) {
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "ambient-token")
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1/elsewhere")
	t.Setenv("ANTHROPIC_CUSTOM_HEADERS", "X-Ambient: yes")
	h := newHarness(t, ProviderAnthropic, okStep)
	if _, _, err := h.stream(t, hello()); err != nil {
		t.Fatal(err)
	}
	req := h.srv.Requests()[0]
	if req.Header.Get("X-Ambient") != "" || strings.Contains(req.Header.Get("Authorization"), "ambient-token") {
		t.Fatalf("ambient configuration reached the request: %v", req.Header)
	}
}

func TestContextWindow(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want int
	}{
		{Config{Name: "claude-sonnet-4-5"}, 200_000},
		{Config{Name: "gpt-5.1"}, 400_000},
		{Config{Name: "gpt-4o-mini"}, 128_000},
		{Config{Name: "gemini-2.5-pro"}, 1_048_576},
		{Config{Name: "qwen3:8b"}, 32_768},
		{Config{Name: "some-local-model"}, DefaultContextWindow},
		{Config{Name: "claude-sonnet-4-5", ContextWindow: 50_000}, 50_000},
	} {
		if got := contextWindow(tc.cfg); got != tc.want {
			t.Errorf("%+v: %d, want %d", tc.cfg, got, tc.want)
		}
	}
	p, err := New(Config{Provider: "anthropic", Name: "claude-opus-4-1"}, keyEnv, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name() != "anthropic:claude-opus-4-1" || p.ContextWindow() != 200_000 {
		t.Fatalf("%s %d", p.Name(), p.ContextWindow())
	}
}
