package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
)

// RunConfig says what to drive and how hard.
type RunConfig struct {
	URL         string // the server, e.g. http://localhost:8080
	Key         string // events:read, events:write and locations:read
	Concurrency int
	Duration    time.Duration // per class
	// Rate, when positive, is how many requests a second the workers
	// start between them, on a fixed schedule (an open load, as many
	// independent clients make), instead of each asking again as soon as
	// it is answered. A request's latency then counts from when the
	// schedule called for it, so a server that falls behind is charged
	// for the wait of the requests queued behind it.
	Rate    float64
	Classes []string // empty: all
	// Service and Org, when set, run each class's query straight through
	// the service (and so the store) as well: the ceiling the API is
	// compared with.
	Service *service.Service
	Org     uuid.UUID
	Now     func() time.Time
}

// Stats are the latencies of one class at one level.
type Stats struct {
	Requests int     `json:"requests"`
	Errors   int     `json:"errors"`
	RPS      float64 `json:"rps"`
	P50      float64 `json:"p50Ms"`
	P95      float64 `json:"p95Ms"`
	P99      float64 `json:"p99Ms"`
	Max      float64 `json:"maxMs"`
	// MaxAt is when the slowest request was due, in seconds from the
	// run's start: a stall of the server shows as one moment.
	MaxAt float64 `json:"maxAtSeconds"`
}

// Result is one query class: over HTTP, and through the store when asked.
type Result struct {
	Class  string  `json:"class"`
	Query  string  `json:"query"`
	API    Stats   `json:"api"`
	Driver *Stats  `json:"driver,omitempty"`
	Ratio  float64 `json:"apiDriverP50Ratio,omitempty"`
}

// class is one kind of request the benchmark times.
type class struct {
	name, query string
	deep        bool // time page 50 of the query
	post        bool // POST batches of 1,000 events
	insights    bool // GET /insights instead of GET /events
}

// Run measures every class in turn and returns their figures.
func Run(ctx context.Context, cfg RunConfig) ([]Result, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: cfg.Concurrency * 2}, Timeout: 30 * time.Second}
	d := &driver{cfg: cfg, client: client}
	classes, err := d.classes(ctx)
	if err != nil {
		return nil, err
	}
	var results []Result
	for _, c := range classes {
		if len(cfg.Classes) > 0 && !slices.Contains(cfg.Classes, c.name) {
			continue
		}
		r, err := d.measure(ctx, c)
		if err != nil {
			return results, fmt.Errorf("class %s: %w", c.name, err)
		}
		results = append(results, r)
	}
	return results, nil
}

type driver struct {
	cfg    RunConfig
	client *http.Client
	ap     string // an access point to write to
}

// sample is what the benchmark learns of the data to build its queries.
type sample struct {
	Data []struct {
		ID             string    `json:"id"`
		OccurredAt     time.Time `json:"occurredAt"`
		PlatformUserID *string   `json:"platformUserId"`
		ServerJobID    *string   `json:"serverJobId"`
		Location       struct{ ID, Name string }
		AccessPoint    struct{ ID, Name string } `json:"accessPoint"`
	} `json:"data"`
	NextCursor *string `json:"nextCursor"`
}

// classes builds the query classes from a sample of the data.
func (d *driver) classes(ctx context.Context) ([]class, error) {
	var s sample
	if err := d.getJSON(ctx, "/api/consumer/v1/events?limit=500", &s); err != nil {
		return nil, err
	}
	if len(s.Data) == 0 {
		return nil, fmt.Errorf("the key's organization has no events; run gatehouse bench seed first")
	}
	counts := map[string]int{}
	for _, e := range s.Data {
		if e.PlatformUserID != nil {
			counts[*e.PlatformUserID]++
		}
	}
	// A typical rare term is the median of the users seen once; the
	// smallest is the worst case for trigram search (its digits are the
	// log's most common trigrams) and is measured on its own.
	var once []string
	for u, n := range counts {
		if n == 1 {
			once = append(once, u)
		}
	}
	slices.Sort(once)
	rare, worst := "", ""
	if len(once) > 0 {
		rare, worst = once[len(once)/2], once[0]
	}
	e := s.Data[len(s.Data)/2]
	d.ap = e.AccessPoint.ID
	job := e.ID // a server job id seen in the sample, or any text
	for _, ev := range s.Data {
		if ev.ServerJobID != nil {
			job = *ev.ServerJobID
			break
		}
	}
	now := d.cfg.Now().UTC()
	// Server job ids of a month and of a year ago, as support pastes
	// them from a report: the first 18 characters of one, and 8 from
	// the middle of the other.
	month, err := d.jobBefore(ctx, now.Add(-30*24*time.Hour))
	if err != nil {
		return nil, err
	}
	year, err := d.jobBefore(ctx, now.Add(-365*24*time.Hour))
	if err != nil {
		return nil, err
	}
	window := "dateFrom=" + url.QueryEscape(gatehouse.FormatTime(now.Add(-gatehouse.MaxRange))) + "&dateTo=" + url.QueryEscape(gatehouse.FormatTime(now))
	return []class{
		{name: "first_page", query: ""},
		{name: "access_point", query: "accessPointId=" + e.AccessPoint.ID},
		{name: "location", query: "locationId=" + e.Location.ID},
		{name: "type", query: "type=ACCESS_DENIED"},
		{name: "allowed", query: "allowed=denied"},
		{name: "platform_user", query: "platformUserId=" + url.QueryEscape(rare)},
		{name: "reason", query: "reason=NOT_ON_ALLOWLIST"},
		{name: "scope", query: "scope=PLAYER"},
		{name: "three_filters", query: "locationId=" + e.Location.ID + "&allowed=denied&reason=OUTSIDE_SCHEDULE"},
		{name: "page_50_allowed", query: "allowed=denied", deep: true},
		{name: "q_rare", query: "q=" + url.QueryEscape(rare)},
		{name: "q_rare_worst", query: "q=" + url.QueryEscape(worst)},
		{name: "q_common", query: "q=door"},
		{name: "q_location", query: "q=" + url.QueryEscape(strings.Fields(e.Location.Name)[0])},
		{name: "q_reason", query: "q=allowlist"},
		{name: "q_server_job", query: "q=" + url.QueryEscape(job[:min(len(job), 13)])},
		{name: "q_server_job_month", query: "q=" + url.QueryEscape(month[:min(len(month), 18)])},
		{name: "q_server_job_part", query: "q=" + url.QueryEscape(year[min(len(year), 9):min(len(year), 17)])},
		{name: "q_id_prefix", query: "q=" + e.ID[:8]},
		{name: "q_event_id", query: "q=" + e.ID},
		{name: "window_366d", query: window},
		{name: "post_1000", post: true},
		{name: "insights_door", query: "groupBy=accessPointId&" + window, insights: true},
		{name: "insights_location", query: "groupBy=locationId&" + window, insights: true},
		{name: "insights_reason", query: "groupBy=reason&" + window, insights: true},
		{name: "insights_type", query: "groupBy=type&" + window, insights: true},
		{name: "insights_player", query: "groupBy=platformUserId&allowed=denied&" + window, insights: true},
		{name: "insights_player_500", query: "groupBy=platformUserId&allowed=denied&limit=500&" + window, insights: true},
		{name: "insights_players", query: "groupBy=platformUserId&" + window, insights: true},
		{name: "insights_hour", query: "groupBy=hour&timeZone=Europe%2FBerlin&limit=500&" + window, insights: true},
		{name: "insights_day", query: "groupBy=day&timeZone=Europe%2FBerlin&limit=500&" + window, insights: true},
		{name: "insights_week", query: "groupBy=hourOfWeek&type=ACCESS_DENIED&timeZone=America%2FNew_York&limit=168&" + window, insights: true},
		{name: "insights_door_user", query: "groupBy=accessPointId&platformUserId=" + url.QueryEscape(rare) + "&" + window, insights: true},
	}, nil
}

// jobBefore returns the server job id of the latest event before at that
// has one, or an event id when none has.
func (d *driver) jobBefore(ctx context.Context, at time.Time) (string, error) {
	var s sample
	if err := d.getJSON(ctx, "/api/consumer/v1/events?limit=100&dateTo="+url.QueryEscape(gatehouse.FormatTime(at)), &s); err != nil {
		return "", err
	}
	job := uuid.NewString()
	for i, ev := range s.Data {
		if i == 0 {
			job = ev.ID
		}
		if ev.ServerJobID != nil {
			return *ev.ServerJobID, nil
		}
	}
	return job, nil
}

func (d *driver) measure(ctx context.Context, c class) (Result, error) {
	res := Result{Class: c.name, Query: c.query}
	query := c.query
	var after *gatehouse.EventKey
	if c.deep {
		cursor, key, page, err := d.deepPage(ctx, c.query)
		if err != nil {
			return res, err
		}
		query, after = c.query+"&cursor="+url.QueryEscape(cursor), key
		res.Query = fmt.Sprintf("%s (page %d of 50 events)", c.query, page)
	}
	if c.post {
		res.API = d.load(ctx, func(ctx context.Context) error { return d.postBatch(ctx) })
		return res, nil
	}
	if c.insights {
		res.API = d.load(ctx, func(ctx context.Context) error {
			return d.getJSON(ctx, "/api/consumer/v1/insights?"+query, nil)
		})
		return res, nil
	}
	res.API = d.load(ctx, func(ctx context.Context) error {
		return d.getJSON(ctx, "/api/consumer/v1/events?"+query, nil)
	})
	if d.cfg.Service != nil {
		v, _ := url.ParseQuery(c.query)
		q, err := gatehouse.ParseEventQuery(v)
		if err != nil {
			return res, err
		}
		q.Filter.After = after
		s := d.load(ctx, func(ctx context.Context) error {
			_, err := d.cfg.Service.ListEvents(ctx, d.cfg.Org, q.Filter)
			return err
		})
		res.Driver = &s
		if s.P50 > 0 {
			res.Ratio = res.API.P50 / s.P50
		}
	}
	return res, nil
}

// deepPage walks up to 49 pages of query, 50 events each, and returns the
// cursor of the next page (page 50 on a large log; the last page on a small
// one), its position for the store, and its number.
func (d *driver) deepPage(ctx context.Context, query string) (string, *gatehouse.EventKey, int, error) {
	var (
		cursor string
		last   sample
		page   = 1
	)
	for page < 50 {
		path := "/api/consumer/v1/events?limit=50&" + query
		if cursor != "" {
			path += "&cursor=" + url.QueryEscape(cursor)
		}
		var s sample
		if err := d.getJSON(ctx, path, &s); err != nil {
			return "", nil, 0, err
		}
		if s.NextCursor == nil {
			break
		}
		cursor, last = *s.NextCursor, s
		page++
	}
	if cursor == "" {
		return "", nil, 0, fmt.Errorf("%q has a single page", query)
	}
	// The position of the page is the last event of the page before it.
	end := last.Data[len(last.Data)-1]
	id, err := uuid.Parse(end.ID)
	if err != nil {
		return "", nil, 0, err
	}
	return cursor, &gatehouse.EventKey{OccurredAt: end.OccurredAt, ID: id}, page, nil
}

func (d *driver) getJSON(ctx context.Context, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.cfg.URL+path, nil)
	if err != nil {
		return err
	}
	return d.do(req, v)
}

func (d *driver) do(req *http.Request, v any) error {
	req.Header.Set("Authorization", "Bearer "+d.cfg.Key)
	res, err := d.client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(res.Body, 512))
		return fmt.Errorf("%s %s: %d %s", req.Method, req.URL.Path, res.StatusCode, b)
	}
	if v == nil {
		_, err := io.Copy(io.Discard, res.Body)
		return err
	}
	return json.NewDecoder(res.Body).Decode(v)
}

// postBatch sends 1,000 new events, dated before the seeded span so that
// repeated runs do not change what the read classes measure.
func (d *driver) postBatch(ctx context.Context) error {
	var b bytes.Buffer
	b.WriteString(`{"events":[`)
	now := gatehouse.FormatTime(d.cfg.Now().Add(-span - 24*time.Hour))
	for i := range 1000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%q,"type":"ACCESS_GRANTED","occurredAt":%q,"accessPointId":%q,"platformUserId":"%d"}`,
			gatehouse.NewID(), now, d.ap, 1_000_000+i)
	}
	b.WriteString(`]}`)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.cfg.URL+"/api/consumer/v1/events", &b)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	return d.do(req, nil)
}

// WriteTable prints results as an aligned table.
func WriteTable(w io.Writer, results []Result) {
	fmt.Fprintf(w, "%-16s %9s %9s %8s %8s %8s %10s %10s %7s\n", "class", "requests", "req/s", "p50 ms", "p95 ms", "p99 ms", "store p50", "store p99", "ratio")
	for _, r := range results {
		dp50, dp99, ratio := "-", "-", "-"
		if r.Driver != nil {
			dp50, dp99, ratio = fmt.Sprintf("%.2f", r.Driver.P50), fmt.Sprintf("%.2f", r.Driver.P99), fmt.Sprintf("%.2f", r.Ratio)
		}
		fmt.Fprintf(w, "%-16s %9d %9.0f %8.2f %8.2f %8.2f %10s %10s %7s\n", r.Class, r.API.Requests, r.API.RPS, r.API.P50, r.API.P95, r.API.P99, dp50, dp99, ratio)
		if r.API.Errors > 0 {
			fmt.Fprintf(w, "%-16s %d errors\n", "", r.API.Errors)
		}
	}
}
