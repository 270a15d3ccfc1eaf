package bytesize

import "testing"

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint64
	}{
		{"256MB", 256 << 20}, {"8MiB", 8 << 20}, {" 1 gib ", 1 << 30}, {"512kb", 512 << 10},
		{"100", 100}, {"100B", 100},
	} {
		if got, err := Parse(c.in); err != nil || got != c.want {
			t.Errorf("Parse(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
}

// TestFractionalSizeReadAsWhole: the pack's size reader used fmt.Sscanf,
// which read "1.5GB" as 1 GiB and "12abcMB" as 12 MiB without an error.
func TestFractionalSizeReadAsWhole(t *testing.T) {
	for _, in := range []string{"1.5GB", "12abcMB", "0MB", "", "MB", "-1MB", "99999999999999999999GB", "17179869184GB"} {
		if n, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) = %d, want an error", in, n)
		} else if err.Error() != "want a whole, positive size like 256MB or 8MiB" {
			t.Errorf("Parse(%q): %v", in, err)
		}
	}
}

func TestFormat(t *testing.T) {
	for n, want := range map[int64]string{8 << 20: "8 MiB", 512 << 10: "512 KiB", 100: "100 bytes", 1 << 30: "1 GiB", 1<<20 + 1: "1048577 bytes"} {
		if got := Format(n); got != want {
			t.Errorf("Format(%d) = %q, want %q", n, got, want)
		}
	}
}
