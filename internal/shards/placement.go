package shards

import (
	"context"
	"fmt"

	"github.com/gatehouse/gatehouse"
)

// place chooses the shard of a new organization: of the shards given as
// --shards that answer, the one the directory places the fewest
// organizations on, the first given on a tie. The --db database takes new
// organizations only when no --shards are given: an operator adds shards
// to take the growth off it. An organization may be moved later
// (`gatehouse shard move`): the rule counts organizations, not their
// events, which a placement cannot know in advance.
func (r *Router) place(ctx context.Context) (*Shard, error) {
	counts, err := r.main.Placements(ctx)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var best *Shard
	candidates := 0
	for _, s := range r.shards {
		if s.Main {
			continue
		}
		candidates++
		if s.db != nil && (best == nil || counts[s.ID] < counts[best.ID]) {
			best = s
		}
	}
	switch {
	case best != nil:
		return best, nil
	case candidates == 0:
		return r.shards[0], nil
	}
	return nil, fmt.Errorf("%w: %w: no shard of --shards answers to take a new organization", gatehouse.ErrUnavailable, ErrShardUnknown)
}
