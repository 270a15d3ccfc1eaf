package sentence

import "testing"

// FuzzTokenize: any text tokenizes (no panic, no endless walk back) into
// ids of the vocabulary, and embeds into a unit vector.
func FuzzTokenize(f *testing.F) {
	m := model(f)
	for _, s := range texts[:len(texts)-3] {
		f.Add(s)
	}
	f.Add("\xff\xfe a\x00b")
	f.Fuzz(func(t *testing.T, s string) {
		for _, id := range m.Tokenize(s) {
			if id < 0 || id >= len(m.tok.width) {
				t.Fatalf("%q: id %d", s, id)
			}
		}
		v := m.Embed(s)
		var n float32
		for _, x := range v {
			n += x * x
		}
		if n < 0.9999 || n > 1.0001 {
			t.Fatalf("%q: norm² %v", s, n)
		}
	})
}
