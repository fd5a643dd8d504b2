package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"demiurge.dev/host/core"
	"demiurge.dev/host/providers"
	"demiurge.dev/host/turn"
)

// modelFlags choose the model the agent loop talks to.
func modelFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "model", Usage: "the model as provider:name (anthropic, openai, openai-responses, openai-compatible, gemini), e.g. anthropic:claude-sonnet-4-5", EnvVars: []string{"DEMIURGE_MODEL"}},
		&cli.StringFlag{Name: "base-url", Usage: "the model server's base URL (an OpenAI-compatible server: Ollama, vLLM, llama.cpp, LM Studio)", EnvVars: []string{"DEMIURGE_BASE_URL"}},
		&cli.IntFlag{Name: "max-steps", Usage: "model steps a turn may take before it stops", DefaultText: fmt.Sprint(turn.DefaultMaxSteps)},
		&cli.IntFlag{Name: "context-window", Usage: "the model's context window in tokens (default: the provider's known value)", Hidden: true},
		&cli.IntFlag{Name: "max-output-tokens", Usage: "the most tokens of one model reply", DefaultText: "the core's max_output_tokens, else 8192"},
	}
}

// errNoModel is what a command that needs a model says without one.
var errNoModel = fmt.Errorf("no model is configured: pass --model provider:name (e.g. --model anthropic:claude-sonnet-4-5, with ANTHROPIC_API_KEY set) or set model: in agent.yaml")

// modelConfig is the model to use: --model replaces the core's model:
// block; --base-url, --max-output-tokens and --context-window override
// either. ok false when neither names one.
func modelConfig(c *cli.Context, fromCore *core.ModelConfig) (cfg providers.Config, ok bool, err error) {
	if c.Int("max-steps") < 0 || c.Int("context-window") < 0 || c.Int("max-output-tokens") < 0 {
		return cfg, false, usagef("--max-steps, --context-window and --max-output-tokens must not be negative")
	}
	switch m := c.String("model"); {
	case m != "":
		p, name, err := providers.ParseModel(m)
		if err != nil {
			return cfg, false, usagef("--model: %v", err)
		}
		cfg = providers.Config{Provider: p, Name: name}
	case fromCore != nil:
		cfg = providers.Config(*fromCore)
	case c.String("base-url") != "":
		return cfg, false, usagef("--base-url needs --model provider:name (or model: in agent.yaml)")
	default:
		return cfg, false, nil
	}
	if u := c.String("base-url"); u != "" {
		cfg.BaseURL = u
	}
	if n := c.Int("max-output-tokens"); n > 0 {
		cfg.MaxOutputTokens = n
	}
	if n := c.Int("context-window"); n > 0 {
		cfg.ContextWindow = n
	}
	return cfg, true, nil
}

// checkModelFlags refuses bad model flags before anything is opened.
func checkModelFlags(c *cli.Context) error {
	if c.Int("max-steps") < 0 || c.Int("context-window") < 0 || c.Int("max-output-tokens") < 0 {
		return usagef("--max-steps, --context-window and --max-output-tokens must not be negative")
	}
	if m := c.String("model"); m != "" {
		if _, _, err := providers.ParseModel(m); err != nil {
			return usagef("--model: %v", err)
		}
	}
	return nil
}

// openModel builds the provider the flags or the core name. Its key is
// read from the host's environment only.
func openModel(c *cli.Context, fromCore *core.ModelConfig) (providers.Provider, providers.Config, error) {
	cfg, ok, err := modelConfig(c, fromCore)
	if err != nil {
		return nil, cfg, err
	}
	if !ok {
		return nil, cfg, usageError{errNoModel}
	}
	p, err := providers.New(cfg, os.Getenv, nil)
	if errors.Is(err, providers.ErrNoKey) {
		return nil, cfg, usageError{err} // run exits 2, as without a model
	}
	if err != nil {
		return nil, cfg, err
	}
	return p, cfg, nil
}
