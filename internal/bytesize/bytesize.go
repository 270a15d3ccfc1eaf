// Package bytesize reads and prints the sizes a pack file and error
// messages use: "256MB", "8MiB", "512 KiB". One implementation, so a limit
// is written the same way where it is set and where it is reported.
package bytesize

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// units are the suffixes Parse accepts, longest first; KB, MB and GB are
// read as powers of two, as the pack file has always read them.
var units = []struct {
	suffix string
	n      uint64
}{
	{"GIB", 1 << 30}, {"MIB", 1 << 20}, {"KIB", 1 << 10},
	{"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}, {"B", 1},
}

var errSize = errors.New("want a whole, positive size like 256MB or 8MiB")

// Parse reads a size: a whole number of bytes, optionally followed by B,
// KB/KiB, MB/MiB or GB/GiB (any case, spaces allowed). Zero, fractions and
// sizes that overflow are refused.
func Parse(s string) (uint64, error) {
	s = strings.TrimSpace(strings.ToUpper(s))
	mult := uint64(1)
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.n
			break
		}
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n == 0 || n > math.MaxUint64/mult {
		return 0, errSize
	}
	return n * mult, nil
}

// Format prints n bytes as "8 MiB" or "512 KiB" when it is a whole number
// of them, else as "100 bytes".
func Format(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
