package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// fingerprintVersion changes when the hashed form changes, so that an old
// fingerprint never matches a new catalog by accident.
const fingerprintVersion = "demiurge.catalog/v1"

type fingerprintEntry struct {
	Spec                 ToolSpec     `json:"spec"`
	Effective            Metadata     `json:"effective"`
	RequiredCapabilities []string     `json:"required_capabilities"`
	StrictCompatible     bool         `json:"strict_compatible"`
	Diagnostics          []Diagnostic `json:"diagnostics"`
}

// fingerprint hashes the resolved entries. The schema is hashed in its
// canonical form, so reformatting a schema does not change the catalog's
// identity while any change of meaning does.
func fingerprint(c *Catalog) string {
	doc := struct {
		Version     string             `json:"version"`
		Entries     []fingerprintEntry `json:"entries"`
		Disabled    []string           `json:"disabled"`
		Diagnostics []Diagnostic       `json:"diagnostics"`
		Unavailable []Unavailable      `json:"unavailable,omitempty"`
	}{Version: fingerprintVersion, Disabled: c.disabled, Diagnostics: c.diagnostics, Unavailable: c.unavailable}
	for _, e := range c.entries {
		spec := e.Spec
		spec.InputSchema = e.Schema.canonical
		doc.Entries = append(doc.Entries, fingerprintEntry{
			Spec: spec, Effective: e.Effective, RequiredCapabilities: e.RequiredCapabilities,
			StrictCompatible: e.StrictCompatible, Diagnostics: e.Diagnostics,
		})
	}
	b, err := json.Marshal(doc)
	if err != nil {
		// Every field is plain data that marshals; this cannot happen.
		panic("catalog: fingerprint encoding failed: " + err.Error())
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
