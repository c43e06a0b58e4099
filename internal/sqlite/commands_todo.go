package sqlite

// Placeholders while the store of commands is written (issue 14); this
// file is deleted by the commit that implements them.

import (
	"context"
	"errors"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

var errTodo = errors.New("not implemented yet")

func (db *DB) SetLocationUniverse(ctx context.Context, e gatehouse.AuditEntry, orgID, id uuid.UUID, universeID string) (gatehouse.Location, error) {
	return gatehouse.Location{}, errTodo
}
func (db *DB) FindAccessPoint(ctx context.Context, orgID, id uuid.UUID) (gatehouse.AccessPoint, error) {
	return gatehouse.AccessPoint{}, errTodo
}
func (db *DB) CreateCommand(ctx context.Context, e gatehouse.AuditEntry, c gatehouse.IssuedCommand) (gatehouse.Command, error) {
	return gatehouse.Command{}, errTodo
}
func (db *DB) FindIdempotencyKey(ctx context.Context, orgID uuid.UUID, key string, since time.Time) (uuid.UUID, [32]byte, error) {
	return uuid.Nil, [32]byte{}, errTodo
}
func (db *DB) FindCommand(ctx context.Context, orgID, id uuid.UUID) (gatehouse.Command, error) {
	return gatehouse.Command{}, errTodo
}
func (db *DB) ListCommands(ctx context.Context, orgID uuid.UUID, f gatehouse.CommandFilter) (gatehouse.CommandPage, error) {
	return gatehouse.CommandPage{}, errTodo
}
func (db *DB) CancelCommand(ctx context.Context, e gatehouse.AuditEntry, orgID, id uuid.UUID, at time.Time) (gatehouse.Command, error) {
	return gatehouse.Command{}, errTodo
}
func (db *DB) SweepCommands(ctx context.Context, now time.Time) (int, error) { return 0, errTodo }
func (db *DB) Heartbeat(ctx context.Context, orgID uuid.UUID, s gatehouse.GameServer) error {
	return errTodo
}
func (db *DB) LiveServers(ctx context.Context, orgID uuid.UUID, universeID string, since time.Time, player *string) ([]gatehouse.GameServer, error) {
	return nil, errTodo
}
func (db *DB) AckCommands(ctx context.Context, orgID uuid.UUID, jobID string, acks []gatehouse.Ack, at time.Time) ([]uuid.UUID, error) {
	return nil, errTodo
}
func (db *DB) TakeCommands(ctx context.Context, orgID uuid.UUID, jobID, universeID string, cursor int64, now time.Time) ([]gatehouse.Command, int64, error) {
	return nil, 0, errTodo
}
func (db *DB) WatchCommands(ctx context.Context, wake func(orgID uuid.UUID, universeID string)) error {
	<-ctx.Done()
	return ctx.Err()
}
func (db *DB) TryLease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (bool, error) {
	return false, errTodo
}
func (db *DB) OrgOfCommand(ctx context.Context, id uuid.UUID) (uuid.UUID, error) {
	return uuid.Nil, errTodo
}
