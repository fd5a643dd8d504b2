package websearchtest

import (
	"net/http"
	"strings"
	"testing"

	"demiurge.dev/sdk"
	"demiurge.dev/shared/netpolicy"
)

// Loopback is the URL policy's test hook: the loopback servers of these
// tests are refused by the production policy.
var Loopback = netpolicy.Options{AllowLoopbackForTests: true}

// SoftFailure is one way a search must end in a soft failure result.
type SoftFailure struct {
	Name string
	// Key is bound for the call; "" binds none.
	Key string
	// Answer is the provider's answer; nil leaves it to the provider's
	// test server (which refuses a wrong key itself).
	Answer http.HandlerFunc
	// Code is the result's error code, Contains a part of its text.
	Code, Contains string
}

// Hang is an answer that never comes: the call's timeout has to end it.
func Hang(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }

// CheckSoftFailures runs each case as a call of the tool newTool makes
// against a provider's test server giving that answer (with a short
// timeout), and checks the result's code and text, and that secret shows
// nowhere.
func CheckSoftFailures(t *testing.T, cases []SoftFailure, newTool func(t *testing.T, answer http.HandlerFunc) sdk.Tool, target, secret string) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			res := Call(t, newTool(t, tc.Answer), `{"query":"golang"}`, target, tc.Key, secret)
			if !res.IsError || res.ErrorCode != tc.Code || !strings.Contains(res.Content, tc.Contains) {
				t.Fatalf("got error=%v code=%q %q; want code %q containing %q", res.IsError, res.ErrorCode, res.Content, tc.Code, tc.Contains)
			}
		})
	}
}
