package service

import (
	"net/url"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// ReadCommandQuery parses the query of a command list and opens its
// cursor for orgID (see [gatehouse.ReadCommandQuery]).
func (s *Service) ReadCommandQuery(orgID uuid.UUID, v url.Values) (gatehouse.CommandFilter, error) {
	return gatehouse.ReadCommandQuery(v, s.cursors, orgID)
}

// CommandCursor signs the position next of the list of orgID's commands
// matching f: the nextCursor of a page.
func (s *Service) CommandCursor(orgID uuid.UUID, f gatehouse.CommandFilter, next gatehouse.CommandKey) string {
	return s.cursors.Sign(gatehouse.CursorCommands, f.Digest(orgID), gatehouse.EncodeCommandKey(next))
}
