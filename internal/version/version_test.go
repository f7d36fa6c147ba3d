package version

import "testing"

// What git describe --tags --always --dirty says, as a semantic version.
func TestSemantic(t *testing.T) {
	for describe, want := range map[string]string{
		"":                               Base + "-dev",
		"devel":                          Base + "-dev",
		"e7ab1b3":                        Base + "-dev",
		"e7ab1b3-dirty":                  Base + "-dev+dirty",
		"v1.2.3":                         "1.2.3",
		"1.2.3":                          "1.2.3",
		"v1.2.3-dirty":                   "1.2.3+dirty",
		"v1.2.3-4-gabcdef1":              "1.2.4-dev.4+gabcdef1",
		"v1.2.3-4-gabcdef1-dirty":        "1.2.4-dev.4+gabcdef1.dirty",
		"v2.0.0-rc.1":                    "2.0.0-rc.1",
		"v2.0.0-rc.1-2-g1234567":         "2.0.0-rc.1.dev.2+g1234567",
		"v0.3.0-0.20261121-abcdef123456": "0.3.0-0.20261121-abcdef123456", // a Go pseudo-version
	} {
		if got := Semantic(describe); got != want {
			t.Errorf("Semantic(%q) = %q, want %q", describe, got, want)
		}
	}
}

func TestString(t *testing.T) {
	Version, Commit = "v1.2.3-4-gabcdef1", "abcdef123456"
	defer func() { Version, Commit = "", "" }()
	if got := String(); got != "1.2.4-dev.4+gabcdef1 (commit abcdef123456)" {
		t.Errorf("%q", got)
	}
}
