package main

import (
	"context"
	"io"
)

func cmdServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return &exitError{1, "codemode serve: not built yet"}
}

func cmdEnrich(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return &exitError{1, "codemode enrich: not built yet"}
}

func cmdAudit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return &exitError{1, "codemode audit: not built yet"}
}
