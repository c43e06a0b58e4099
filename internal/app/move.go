package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gatehouse/gatehouse/internal/move"
	"github.com/gatehouse/gatehouse/internal/sqlite"
)

// ErrMoveSource: the source of a move is not a SQLite file.
var ErrMoveSource = errors.New("a move reads a SQLite file: give its path (or sqlite:PATH)")

// ErrMoveTarget: the target of a move is not PostgreSQL.
var ErrMoveTarget = errors.New("a move writes to PostgreSQL: give a postgres:// URL")

// Move moves a SQLite installation, or one organization of it, into
// PostgreSQL (internal/move). The source must be at this release's
// schema, and is refused otherwise; the target is migrated to it first.
// After the copy, which is all or nothing, the player rollup is folded
// (as the servers would: a failure there loses nothing, they fold it)
// and the planner's statistics of the moved tables are gathered.
func Move(ctx context.Context, o move.Options) (*move.Report, error) {
	if IsPostgres(o.From) {
		return nil, ErrMoveSource
	}
	if !IsPostgres(o.To) {
		return nil, ErrMoveTarget
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	o.From = SQLitePath(o.From)
	src, err := sqlite.OpenExisting(ctx, o.From)
	if err != nil {
		return nil, err
	}
	src.Close()
	dst, err := Open(ctx, o.To)
	if err != nil {
		return nil, err
	}
	defer dst.Close()
	rep, err := move.Copy(ctx, o)
	if err != nil {
		return nil, err
	}
	if err := dst.Service(o.Now).RollInsights(ctx); err != nil {
		return rep, fmt.Errorf("moved; folding the player rollup (the servers fold it when they run): %w", err)
	}
	if err := move.Finish(ctx, o.To, rep); err != nil {
		return rep, fmt.Errorf("moved; counting the rebuilt rows and gathering statistics: %w", err)
	}
	return rep, nil
}
