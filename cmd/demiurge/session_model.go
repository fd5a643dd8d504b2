package main

import (
	"context"
	"encoding/json"

	"demiurge.dev/host/core"
	"demiurge.dev/host/providers"
	"demiurge.dev/host/toolhost"
)

// sessionModel is the model a resumed session last ran with, to stand in
// for agent.yaml's model: a session resumed without --model goes on with
// the model (provider, name, base URL, key variable) it was talking to.
// --model still wins; without a remembered one, agent.yaml's model is
// used.
func sessionModel(h *toolhost.Host, session string, fromCore *core.ModelConfig) *core.ModelConfig {
	store, err := h.Store()
	if err != nil {
		return fromCore
	}
	raw, err := store.SessionModel(session)
	if err != nil || raw == nil {
		return fromCore
	}
	var cfg providers.Config
	if json.Unmarshal(raw, &cfg) != nil || cfg.Provider == "" || cfg.Name == "" {
		return fromCore
	}
	m := core.ModelConfig(cfg)
	return &m
}

// rememberModel records the session's model for a later resume. It is
// not worth failing a turn over: an error leaves resume to --model.
func rememberModel(ctx context.Context, h *toolhost.Host, session string, cfg providers.Config) {
	store, err := h.Store()
	if err != nil {
		return
	}
	raw, err := json.Marshal(cfg)
	if err != nil {
		return
	}
	_ = store.SetSessionModel(context.WithoutCancel(ctx), session, raw)
}
