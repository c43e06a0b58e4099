package service

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/gatehouse/gatehouse/internal/clock"
)

// WebhookSend sends one delivery: a POST of body with header to url. It
// returns the response's status and the start of its body, or the error
// that kept it from getting one (refused address, timeout).
type WebhookSend func(ctx context.Context, url string, header http.Header, body []byte) (status int, response []byte, err error)

// WebhookSettings configure the delivery of webhooks. Zero values are the
// defaults beside them; tests shorten the durations.
type WebhookSettings struct {
	// AllowPrivate admits http URLs and private, loopback and
	// link-local addresses (--webhooks-allow-private).
	AllowPrivate bool
	// Send sends a delivery; [Service.RunWebhooks] needs it.
	Send WebhookSend
	// Workers bounds the rounds one instance runs at once (16): it runs
	// one for each endpoint due, up to this many, not counting the
	// rounds that wait on a slow receiver.
	Workers int
	// Slow is how long a send may take before its receiver is slow (1 s).
	// Its round then ends after that send and, while it waits, gives its
	// worker back to the endpoints due: up to Waiting such rounds (256) an
	// instance.
	Slow    time.Duration
	Waiting int
	// Lease is how long a claim on an endpoint lasts (30 s): an instance
	// that dies holding one delays the endpoint that long, and loses
	// nothing. A round starts no send after half of its lease, and every
	// send ends by three quarters of it (or its own 10 s timeout), so
	// that no send outlives the lease.
	Lease time.Duration
	// Idle is how soon an endpoint that had nothing new is looked at
	// again (500 ms). An instance that found no endpoint due looks again
	// after an eighth of it: as often as the four workers of before did at
	// half of it each.
	Idle time.Duration
	// RetryBase and RetryMax bound the backoff between attempts at a
	// failing delivery (5 s doubling to 1 h, each with up to half of it
	// taken off at random); RetryFor is how long an endpoint may fail
	// before it is disabled (72 h).
	RetryBase, RetryMax, RetryFor time.Duration
}

func (w *WebhookSettings) defaults() {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	if w.Workers == 0 {
		w.Workers = 16
	}
	if w.Waiting == 0 {
		w.Waiting = 256
	}
	def(&w.Slow, time.Second)
	def(&w.Lease, 30*time.Second)
	def(&w.Idle, 500*time.Millisecond)
	def(&w.RetryBase, 5*time.Second)
	def(&w.RetryMax, time.Hour)
	def(&w.RetryFor, 72*time.Hour)
}

// webhookPage is how many events (or command changes) a round reads at
// once.
const webhookPage = 100

// RunWebhooks delivers the webhooks of every organization until ctx ends.
// Every instance runs it: holder names this instance (each round adds the
// number of its worker), and errors are reported and retried.
//
// It claims a due endpoint ([gatehouse.WebhookStore.ClaimWebhook], which
// shares the endpoints due between organizations), delivers to it for a
// round in a goroutine of its own, and claims the next at once:
//   - as many rounds run as endpoints are due, up to
//     [WebhookSettings.Workers];
//   - a round whose receiver is slow gives its worker back while it waits
//     (webhookPool);
//   - the leases keep two instances from sending to one endpoint at once.
func (s *Service) RunWebhooks(ctx context.Context, holder string, report func(error)) {
	p := newWebhookPool(s.webhooks.Workers, s.webhooks.Waiting)
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		if !p.acquire(ctx) {
			return
		}
		// Each round holds its lease by its own name: a claim renews its
		// holder's own lease, which two rounds at once must not share.
		n := p.name()
		r, err := s.claimWebhook(ctx, fmt.Sprintf("%s/webhooks-%d", holder, n))
		if r == nil {
			p.release(n, nil)
			wait := s.webhooks.Idle / 8
			if err != nil && ctx.Err() == nil {
				report(err)
				wait = s.webhooks.Idle / 2
			}
			clock.Sleep(ctx, wait)
			continue
		}
		r.pool = p
		wg.Go(func() {
			err := r.deliver(ctx)
			if err != nil && ctx.Err() == nil {
				report(err)
				clock.Sleep(ctx, s.webhooks.Idle/2)
			}
			p.release(n, r)
		})
	}
}

// webhookPool is what [Service.RunWebhooks] runs its rounds in: Workers of
// them at once, and up to Waiting more that wait on a slow receiver
// ([WebhookSettings]).
//
// A slow receiver (one send hanging up to its 10 s, answered after 9.5 s)
// keeps its round and its endpoint's lease, but not a worker that the
// others due need. The claim's sharing keeps any organization from taking
// more than its turn of the workers.
type webhookPool struct {
	workers chan struct{} // a token for each round holding a worker
	mu      sync.Mutex
	waiting int   // rounds that gave their worker back
	limit   int   // most waiting at once
	names   []int // free worker numbers
	next    int
}

func newWebhookPool(workers, waiting int) *webhookPool {
	return &webhookPool{workers: make(chan struct{}, workers), limit: waiting}
}

// acquire waits for a free worker; false when ctx ended first.
func (p *webhookPool) acquire(ctx context.Context) bool {
	select {
	case p.workers <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

// name returns a worker number no round running now has.
func (p *webhookPool) name() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if k := len(p.names); k > 0 {
		n := p.names[k-1]
		p.names = p.names[:k-1]
		return n
	}
	p.next++
	return p.next - 1
}

// wait gives r's worker back while r waits on a slow receiver, if fewer
// than limit rounds wait already.
func (p *webhookPool) wait(r *webhookRound) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r.waiting || r.ended || p.waiting >= p.limit {
		return
	}
	r.waiting = true
	p.waiting++
	<-p.workers
}

// release ends a round (r nil: a claim that found nothing): its worker,
// or its place among those waiting, and its name are free.
func (p *webhookPool) release(n int, r *webhookRound) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r != nil && r.waiting {
		p.waiting--
	} else {
		<-p.workers
	}
	if r != nil {
		r.ended = true
	}
	p.names = append(p.names, n)
}
