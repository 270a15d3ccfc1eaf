package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"
)

// ShapeKey names one tool in the shape cache.
type ShapeKey struct {
	Service string
	Tool    string // its wire name
}

// ShapeStore keeps the gateway's result-shape cache: per tool, what its
// results looked like, as JSON the store keeps without reading. Every
// store Open returns implements it.
type ShapeStore interface {
	// Shapes returns every tool's entry.
	Shapes(ctx context.Context) (map[ShapeKey]json.RawMessage, error)
	// MergeShape changes one tool's entry under its lock (a row lock on
	// PostgreSQL, the database's write lock on SQLite), so that two
	// replicas changing it at once each see the other's change: f gets
	// the stored entry (nil when none) and returns the entry to store; an
	// error from f changes nothing and is returned. It returns what it
	// stored.
	MergeShape(ctx context.Context, k ShapeKey, f func(old json.RawMessage) (json.RawMessage, error)) (json.RawMessage, error)
}

var _ ShapeStore = (*sqlStore)(nil)

// Shapes implements ShapeStore.
func (s *sqlStore) Shapes(ctx context.Context) (out map[ShapeKey]json.RawMessage, err error) {
	defer s.observe("shapes.load", time.Now(), &err)
	err = retry(func() error {
		out = map[ShapeKey]json.RawMessage{}
		rows, err := s.db.QueryContext(ctx, "SELECT service, tool, body FROM codemode_shape")
		if err != nil {
			return s.wrap("reading the shape cache", err)
		}
		defer rows.Close()
		for rows.Next() {
			var k ShapeKey
			var body string
			if err := rows.Scan(&k.Service, &k.Tool, &body); err != nil {
				return s.wrap("reading the shape cache", err)
			}
			out[k] = json.RawMessage(body)
		}
		return s.wrap("reading the shape cache", rows.Err())
	})
	return out, err
}

// MergeShape implements ShapeStore.
func (s *sqlStore) MergeShape(ctx context.Context, k ShapeKey, f func(json.RawMessage) (json.RawMessage, error)) (out json.RawMessage, err error) {
	defer s.observe("shapes.save", time.Now(), &err)
	err = retry(func() (err error) {
		out, err = s.mergeShape(ctx, k, f)
		return err
	})
	return out, err
}

func (s *sqlStore) mergeShape(ctx context.Context, k ShapeKey, f func(json.RawMessage) (json.RawMessage, error)) (json.RawMessage, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, s.wrap("starting a transaction", err)
	}
	defer tx.Rollback()
	query := "SELECT body FROM codemode_shape WHERE service = ? AND tool = ?"
	if s.d.name == "postgres" {
		// The row is locked if it exists; two replicas inserting the
		// first entry at once are ordered by the primary key below.
		query += " FOR UPDATE"
	}
	var old json.RawMessage
	var body string
	switch err := tx.QueryRowContext(ctx, s.q(query), k.Service, k.Tool).Scan(&body); {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return nil, s.wrap("reading the shape cache", err)
	default:
		old = json.RawMessage(body)
	}
	next, err := f(old)
	if err != nil {
		return nil, err
	}
	if old == nil {
		// Another replica may insert the first entry meanwhile: then this
		// one does nothing and the merge is tried again with its entry.
		res, err := tx.ExecContext(ctx, s.q("INSERT INTO codemode_shape (service, tool, body, at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING"), k.Service, k.Tool, string(next), micros(time.Now()))
		if err != nil {
			return nil, s.wrap("saving the shape cache", err)
		}
		if n, err := res.RowsAffected(); err == nil && n == 0 {
			tx.Rollback()
			return s.mergeShape(ctx, k, f)
		}
	} else if _, err := tx.ExecContext(ctx, s.q("UPDATE codemode_shape SET body = ?, at = ? WHERE service = ? AND tool = ?"), string(next), micros(time.Now()), k.Service, k.Tool); err != nil {
		return nil, s.wrap("saving the shape cache", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, s.wrap("committing", err)
	}
	return next, nil
}
