package sqlite

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/gatehouse/gatehouse"
)

var errPoliciesPending = errors.New("policies: not stored yet")

// PutPolicy implements gatehouse.Store.
func (db *DB) PutPolicy(ctx context.Context, e gatehouse.AuditEntry, orgID, accessPointID uuid.UUID, p gatehouse.Policy, ifVersion *int64, at time.Time) (gatehouse.Policy, error) {
	return gatehouse.Policy{}, errPoliciesPending
}

// FindPolicy implements gatehouse.Store.
func (db *DB) FindPolicy(ctx context.Context, orgID, accessPointID uuid.UUID) (*gatehouse.Policy, error) {
	return nil, errPoliciesPending
}

// PolicySet implements gatehouse.Store.
func (db *DB) PolicySet(ctx context.Context, orgID uuid.UUID, universeID string) ([]gatehouse.AccessPointPolicy, error) {
	return nil, nil
}

// FindDecisionContext implements gatehouse.Store.
func (db *DB) FindDecisionContext(ctx context.Context, orgID, accessPointID uuid.UUID, now time.Time) (gatehouse.DecisionContext, error) {
	return gatehouse.DecisionContext{}, errPoliciesPending
}
