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

// modelFlagValues are the model flags of a command line, or of a front
// end's run request to the host.
type modelFlagValues struct {
	Model, BaseURL                           string
	MaxSteps, ContextWindow, MaxOutputTokens int
}

func modelFlagsOf(c *cli.Context) modelFlagValues {
	return modelFlagValues{Model: c.String("model"), BaseURL: c.String("base-url"), MaxSteps: c.Int("max-steps"),
		ContextWindow: c.Int("context-window"), MaxOutputTokens: c.Int("max-output-tokens")}
}

// modelConfig is the model to use: --model replaces the core's model:
// block; --base-url, --max-output-tokens and --context-window override
// either. ok false when neither names one.
func modelConfig(c *cli.Context, fromCore *core.ModelConfig) (cfg providers.Config, ok bool, err error) {
	return modelConfigOf(modelFlagsOf(c), fromCore)
}

func modelConfigOf(f modelFlagValues, fromCore *core.ModelConfig) (cfg providers.Config, ok bool, err error) {
	if f.MaxSteps < 0 || f.ContextWindow < 0 || f.MaxOutputTokens < 0 {
		return cfg, false, usagef("--max-steps, --context-window and --max-output-tokens must not be negative")
	}
	switch m := f.Model; {
	case m != "":
		p, name, err := providers.ParseModel(m)
		if err != nil {
			return cfg, false, usagef("--model: %v", err)
		}
		cfg = providers.Config{Provider: p, Name: name}
	case fromCore != nil:
		cfg = providers.Config(*fromCore)
	case f.BaseURL != "":
		return cfg, false, usagef("--base-url needs --model provider:name (or model: in agent.yaml)")
	default:
		return cfg, false, nil
	}
	if f.BaseURL != "" {
		cfg.BaseURL = f.BaseURL
	}
	if f.MaxOutputTokens > 0 {
		cfg.MaxOutputTokens = f.MaxOutputTokens
	}
	if f.ContextWindow > 0 {
		cfg.ContextWindow = f.ContextWindow
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
	return openModelOf(modelFlagsOf(c), fromCore, os.Getenv)
}

// openModelOf is openModel for flags and an environment given: a run the
// host makes for a front end reads the key from the front end's
// environment, never the host's.
func openModelOf(f modelFlagValues, fromCore *core.ModelConfig, getenv func(string) string) (providers.Provider, providers.Config, error) {
	cfg, ok, err := modelConfigOf(f, fromCore)
	if err != nil {
		return nil, cfg, err
	}
	if !ok {
		return nil, cfg, usageError{errNoModel}
	}
	p, err := providers.New(cfg, getenv, nil)
	if errors.Is(err, providers.ErrNoKey) {
		return nil, cfg, usageError{err} // run exits 2, as without a model
	}
	if err != nil {
		return nil, cfg, err
	}
	return p, cfg, nil
}
