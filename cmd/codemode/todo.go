package main

import (
	"context"
	"io"
)

func cmdEnrich(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return &exitError{1, "codemode enrich: not built yet"}
}
