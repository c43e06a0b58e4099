package gatehouse

import (
	"net/url"

	"github.com/google/uuid"
)

// ReadCommandQuery parses the query of a command list and opens its
// cursor for orgID (see the package function ReadCommandQuery).
func (s *Service) ReadCommandQuery(orgID uuid.UUID, v url.Values) (CommandFilter, error) {
	return ReadCommandQuery(v, s.cursors, orgID)
}

// CommandCursor signs the position next of the list of orgID's commands
// matching f: the nextCursor of a page.
func (s *Service) CommandCursor(orgID uuid.UUID, f CommandFilter, next CommandKey) string {
	return s.cursors.Sign(CursorCommands, f.Digest(orgID), EncodeCommandKey(next))
}
