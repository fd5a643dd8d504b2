// Package redact turns one raw tool result into the five views of the
// design (model, operator card, event, durable record, host debug) with
// every known secret removed.
//
// Secrets are found three ways: Discover reads them out of the call's
// structured arguments and explicit bindings; DiscoverText reads them out of
// free text such as error messages; the token table recognises well-known
// credential formats anywhere. Exact values are replaced by
// <redacted:TARGET>, table hits by <redacted:KIND>. If anything in that
// process fails, every view is the same fixed <redaction-failed> result:
// redaction fails closed, never open.
package redact
