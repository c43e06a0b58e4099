package server

import (
	"net/http"

	"github.com/gatehouse/gatehouse"
)

// insightList is the body of GET /insights.
type insightList struct {
	Data []gatehouse.InsightCount `json:"data"`
	Meta insightMeta              `json:"meta"`
}

// insightMeta tells the client what the server applied.
type insightMeta struct {
	GroupBy           gatehouse.InsightGroup `json:"groupBy"`
	TimeZone          string                 `json:"timeZone"`
	Limit             int                    `json:"limit"`
	DateFrom          gatehouse.Time         `json:"dateFrom"`
	DateTo            gatehouse.Time         `json:"dateTo"`
	DateRangeNarrowed bool                   `json:"dateRangeNarrowed"`
	Types             []gatehouse.EventType  `json:"types"`
	IgnoredTypes      []string               `json:"ignoredTypes"`
	// Truncated: more groups matched than limit.
	Truncated bool `json:"truncated"`
}

// listInsights serves GET /api/consumer/v1/insights.
func (s *server) listInsights() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		orgID := apiKey(r.Context()).OrgID
		v, err := parseQuery(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		q, err := s.Service.ReadInsightQuery(v)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		f := q.Filter
		counts, more, err := s.Service.Insights(r.Context(), orgID, q, f.Limit)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		body := insightList{Data: counts, Meta: insightMeta{
			GroupBy: q.GroupBy, TimeZone: q.Zone.String(), Limit: f.Limit, DateFrom: gatehouse.Time(*f.From),
			DateTo: gatehouse.Time(*f.To), DateRangeNarrowed: q.Narrowed, Types: f.Types,
			IgnoredTypes: q.IgnoredTypes, Truncated: more,
		}}
		if body.Data == nil {
			body.Data = []gatehouse.InsightCount{}
		}
		if body.Meta.Types == nil {
			body.Meta.Types = []gatehouse.EventType{}
		}
		if body.Meta.IgnoredTypes == nil {
			body.Meta.IgnoredTypes = []string{}
		}
		writeJSON(w, http.StatusOK, body)
	})
}
