package service

import (
	"context"
	"errors"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// errNoStorageMeter is a store that cannot measure what it holds.
var errNoStorageMeter = errors.New("this store cannot measure its storage")

// MeasureStorage reports what the stored events cost on disk: the events
// table, each of its indexes and the side tables, and the stored size of
// each column of events averaged over about sample rows (of the
// organization's events unless orgID is uuid.Nil). Only the operator's
// CLI asks it (gatehouse bench bytes). It bypasses the read slots and
// their deadline: it reads every page of a large database.
func (s *Service) MeasureStorage(ctx context.Context, orgID uuid.UUID, sample int) (gatehouse.StorageReport, error) {
	if err := gatehouse.CheckStorageSample(sample); err != nil {
		return gatehouse.StorageReport{}, err
	}
	meter, ok := storeAs[gatehouse.StorageMeter](s.store)
	if !ok {
		return gatehouse.StorageReport{}, errNoStorageMeter
	}
	return meter.MeasureStorage(ctx, orgID, sample)
}
