package main

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"demiurge.dev/host/providers"
	"demiurge.dev/host/turn"
)

// modelFlags choose the model the agent loop talks to.
func modelFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "model", Usage: "the model as provider:name (anthropic, openai, openai-responses, openai-compatible, gemini), e.g. anthropic:claude-sonnet-4-5", EnvVars: []string{"DEMIURGE_MODEL"}},
		&cli.StringFlag{Name: "base-url", Usage: "the model server's base URL (an OpenAI-compatible server: Ollama, vLLM, llama.cpp, LM Studio)", EnvVars: []string{"DEMIURGE_BASE_URL"}},
		&cli.IntFlag{Name: "max-steps", Usage: fmt.Sprintf("model steps a turn may take before it stops (default %d)", turn.DefaultMaxSteps)},
		&cli.IntFlag{Name: "context-window", Usage: "the model's context window in tokens (default: the provider's known value)", Hidden: true},
		&cli.IntFlag{Name: "max-output-tokens", Usage: "the most tokens of one model reply"},
	}
}

// errNoModel is what a command that needs a model says without one.
var errNoModel = fmt.Errorf("no model is configured: pass --model provider:name (e.g. --model anthropic:claude-sonnet-4-5, with ANTHROPIC_API_KEY set) or set DEMIURGE_MODEL")

// modelConfig is the model the flags name; ok false when none is named.
func modelConfig(c *cli.Context) (cfg providers.Config, ok bool, err error) {
	m := c.String("model")
	if m == "" {
		if c.String("base-url") != "" {
			return cfg, false, usagef("--base-url needs --model provider:name")
		}
		return cfg, false, nil
	}
	p, name, err := providers.ParseModel(m)
	if err != nil {
		return cfg, false, usagef("--model: %v", err)
	}
	if c.Int("max-steps") < 0 || c.Int("context-window") < 0 || c.Int("max-output-tokens") < 0 {
		return cfg, false, usagef("--max-steps, --context-window and --max-output-tokens must not be negative")
	}
	return providers.Config{Provider: p, Name: name, BaseURL: c.String("base-url"),
		ContextWindow: c.Int("context-window"), MaxOutputTokens: c.Int("max-output-tokens")}, true, nil
}

// openModel builds the provider the flags name. Its key is read from the
// host's environment only.
func openModel(c *cli.Context) (providers.Provider, providers.Config, error) {
	cfg, ok, err := modelConfig(c)
	if err != nil {
		return nil, cfg, err
	}
	if !ok {
		return nil, cfg, usageError{errNoModel}
	}
	p, err := providers.New(cfg, os.Getenv, nil)
	if err != nil {
		return nil, cfg, err
	}
	return p, cfg, nil
}
