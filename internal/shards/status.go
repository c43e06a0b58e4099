package shards

import "context"

// Status is a shard as `gatehouse shard list` shows it.
type Status struct {
	Shard
	// Organizations is how many organizations live there: those the
	// directory places on it, or, for --db, those it holds that the
	// directory places nowhere.
	Organizations int `json:"organizations"`
	// Up says the shard answered just now; Error is why not.
	Up    bool   `json:"up"`
	Error string `json:"error,omitempty"`
}

// Status returns every shard's status, main first.
func (r *Router) Status(ctx context.Context) ([]Status, error) {
	r.retry(ctx)
	placed, err := r.main.Placements(ctx)
	if err != nil {
		return nil, err
	}
	orgs, err := r.main.ListOrganizations(ctx)
	if err != nil {
		return nil, err
	}
	var out []Status
	for _, s := range r.Shards() {
		st := Status{Shard: s, Organizations: placed[s.ID]}
		if s.Main {
			st.Organizations = 0
			for _, o := range orgs {
				if here, err := r.placedHere(ctx, o.ID, s.ID, true); err == nil && here {
					st.Organizations++
				}
			}
		}
		switch {
		case s.db == nil && s.err != nil:
			st.Error = s.err.Error()
		case s.db == nil:
			st.Error = "has not answered since this command started"
		default:
			if err := s.db.Ping(ctx); err != nil {
				st.Error = err.Error()
			} else {
				st.Up = true
			}
		}
		out = append(out, st)
	}
	return out, nil
}
