package catalog

import (
	"slices"
	"testing"
)

func TestSearchCapabilities(t *testing.T) {
	cands := []CapabilityCandidate{
		{Name: "docs__search_pages", Description: "Full-text search over the product documentation."},
		{Name: "docs__fetch_page", Description: "Fetch one documentation page by URL."},
		{Name: "jira__create_issue", Description: "Create an issue in a Jira project."},
		{Name: "jira__search", Description: "Search Jira issues with JQL."},
		{Name: "pdf_fill", Description: "Fill the fields of a PDF form."},
	}
	tests := []struct {
		query string
		want  []string
	}{
		{"search", []string{"docs__search_pages", "jira__search"}},
		{"jira issue", []string{"jira__create_issue", "jira__search"}},
		{"documentation page", []string{"docs__search_pages", "docs__fetch_page"}},
		{"fetch documentation page", []string{"docs__fetch_page", "docs__search_pages"}},
		{"PDF form", []string{"pdf_fill"}},
		{"pdf_fill", []string{"pdf_fill"}},
		{"docs__fetch_page", []string{"docs__fetch_page"}},
		{"kubernetes pods", nil},
		{"", nil},
		{"  ?! ", nil},
		{"a", nil},
	}
	for _, tc := range tests {
		var got []string
		for _, c := range SearchCapabilities(cands, tc.query) {
			got = append(got, c.Name)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("SearchCapabilities(%q) = %q, want %q", tc.query, got, tc.want)
		}
	}
}
