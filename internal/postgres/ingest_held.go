package postgres

import (
	"context"
	"errors"
	"strings"

	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// An ingest holds the rows of its batch's access points while it writes
// their events, so that none is deleted under them (DeleteAccessPoint,
// retire.go): PostgreSQL reads a batch's places before its write (see
// ingestAt); SQLite reads them in the transaction of its one writer, and
// needs none of this.

// errPlacesChanged: an access point of the batch was deleted or moved to
// another location between the read of the batch's places and the
// write of its events. Nothing was stored; the batch is stored again
// from a new read of its places, which refuses an access point deleted.
var errPlacesChanged = errors.New("an access point of the batch was deleted or moved meanwhile")

// placeAttempts bounds how many times a batch reads its places: a batch
// whose access points keep moving fails rather than loop.
const placeAttempts = 3

// doors are the access points of a batch with the locations it read them
// in, as arrays of the statement that holds them.
type doors struct {
	ids, locations []uuid.UUID
}

func heldDoors(places map[uuid.UUID]sqlstore.Place) doors {
	var d doors
	for id, p := range places {
		d.ids, d.locations = append(d.ids, id), append(d.locations, p.LocationID)
	}
	return d
}

// holdDoorsQuery counts the batch's access points still where their
// places were read ($2, $3), holding each row it counts until the
// transaction ends. FOR KEY SHARE: concurrent batches of one access point
// do not wait for each other, nor for a rename or a policy change.
const holdDoorsQuery = `SELECT count(*) AS n FROM (SELECT 1 FROM access_points
	WHERE org = $1 AND (id, location_id) IN (SELECT * FROM unnest($2::uuid[], $3::uuid[])) FOR KEY SHARE) d`

// holdDoors holds the batch's access points (holdDoorsQuery) in tx, or
// returns errPlacesChanged when one is gone or elsewhere.
func holdDoors(ctx context.Context, tx pgx.Tx, org int64, d doors) error {
	var n int
	if err := tx.QueryRow(ctx, holdDoorsQuery, org, d.ids, d.locations).Scan(&n); err != nil {
		return err
	}
	if n != len(d.ids) {
		return errPlacesChanged
	}
	return nil
}

// insertHeldQuery is insertEventsQuery that holds the doors ($16, $17;
// $18 of them) as holdDoorsQuery does, first, and inserts only when they
// are all there; otherwise its one row is a NULL id.
var insertHeldQuery = `WITH held AS MATERIALIZED (` + strings.NewReplacer("$2", "$16", "$3", "$17").Replace(holdDoorsQuery) + `), ` +
	storeEventsCTEs(unnestedEvents, " WHERE (SELECT n FROM held) = $18") + `
	SELECT id FROM stored UNION ALL SELECT NULL FROM held WHERE n <> $18`
