package enrich

import (
	"os"
	"testing"
)

func TestDbg(t *testing.T) {
	d := os.Getenv("DESC")
	if d == "" {
		t.Skip()
	}
	typ := os.Getenv("TYP")
	if typ == "" {
		typ = "string"
	}
	s := map[string]any{"type": typ}
	_, _, ds := enrichOne("t", "/properties/"+os.Getenv("NAME"), d, s, false)
	t.Logf("norm %q mods %v", normalizeMarkdown(d), signModifiers(d))
	for _, x := range ds {
		t.Logf("%s %v %v %q %s", x.Kind, x.To, x.Accepted, x.Evidence, x.Reason)
	}
}
