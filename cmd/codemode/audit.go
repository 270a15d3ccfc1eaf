package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/codemode-dev/codemode/audit"
)

// cmdAudit is "codemode audit verify FILE": exit 0 with "ok: N events" when
// the hash chain holds, 1 naming the first bad line otherwise.
func cmdAudit(_ context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) != 2 || args[0] != "verify" {
		return usageErr("usage: codemode audit verify FILE")
	}
	res, err := audit.Verify(args[1])
	var le *audit.LineError
	if errors.As(err, &le) {
		return &exitError{1, fmt.Sprintf("%s: %v", args[1], le)}
	}
	if err != nil {
		return err
	}
	head := ""
	if res.Head != "" {
		head = " (head " + res.Head + ")"
	}
	fmt.Fprintf(stdout, "ok: %d events%s\n", res.Events, head)
	return nil
}
