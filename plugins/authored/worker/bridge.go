package worker

import _ "embed"

// Bridge is the Python worker bridge: a copy of sdk/python/demiurge/sdk.py,
// which is its one source (authors read and install it there). The copy
// exists because a Go module embeds only files inside its own directory;
// TestBridgeMatchesSDK fails when the two drift.
//
//go:generate cp ../../../sdk/python/demiurge/sdk.py bridge.py
//go:embed bridge.py
var Bridge string
