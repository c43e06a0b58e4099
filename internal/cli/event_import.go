package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
	"golang.org/x/term"
)

// Import limits.
const (
	importBatch     = 10000   // events decoded and handed to the store at once (service.Import commits several together)
	maxLineBytes    = 1 << 20 // longer lines are rejected, never buffered whole
	maxListedErrors = 1000    // line errors listed; Rejected counts them all
)

// importSummary is what event import prints.
type importSummary struct {
	Imported   int         `json:"imported"`
	Duplicates int         `json:"duplicates"`
	Rejected   int         `json:"rejected"`
	Errors     []lineError `json:"errors"`
}

type lineError struct {
	Line  int    `json:"line"`
	Error string `json:"error"`
}

// importHeapLimit is the soft limit of the Go heap while event import or
// bench seed runs, unless GOMEMLIMIT sets one: their live heap is some 40
// MB (the batch being decoded, the one being stored, the search terms
// known), and the collector otherwise lets the heap grow to twice that
// before it runs (a 1 M import into SQLite peaked at 167 MB of RSS
// instead of 139 MB, at the same speed).
const importHeapLimit = 64 << 20

// limitImportHeap sets importHeapLimit and returns the function that puts
// the limit of before back.
func limitImportHeap(e *env) (restore func()) {
	if e.getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	before := debug.SetMemoryLimit(importHeapLimit)
	return func() { debug.SetMemoryLimit(before) }
}

func runEventImport(ctx context.Context, e *env) error {
	defer limitImportHeap(e)()
	f := newFlags(e, "event import")
	org := f.String("org", "", "organization id")
	return withService(ctx, f, 1, func(svc *service.Service, args []string) error {
		orgID, err := parseID("org", *org)
		if err != nil {
			return err
		}
		in := e.stdin
		if len(args) == 1 && args[0] != "-" {
			file, err := os.Open(args[0])
			if err != nil {
				return err
			}
			defer file.Close()
			in = file
		}
		imp, err := newImporter(ctx, svc, orgID, e.now)
		if err != nil {
			return err
		}
		if out, ok := e.stderr.(*os.File); ok && term.IsTerminal(int(out.Fd())) {
			imp.progress = out
		}
		sum, err := imp.run(ctx, in)
		if err != nil {
			return err
		}
		if err := f.print(sum, "imported %d events, %d duplicates, %d rejected%s",
			sum.Imported, sum.Duplicates, sum.Rejected, listErrors(sum.Errors)); err != nil {
			return err
		}
		if sum.Imported == 0 && sum.Rejected > 0 {
			// A script must not read "nothing stored, lines refused" as
			// success; the summary above says which lines.
			return fmt.Errorf("imported nothing: %d lines rejected", sum.Rejected)
		}
		return nil
	})
}

func listErrors(errs []lineError) string {
	var b bytes.Buffer
	for _, le := range errs {
		fmt.Fprintf(&b, "\nline %d: %s", le.Line, le.Error)
	}
	return b.String()
}

// importer streams NDJSON into the service in batches, one transaction
// each. One goroutine reads and decodes lines while others store the
// batches before (as many as the store writes in parallel: one on
// SQLite): decoding and validating a batch costs about what storing it
// does, and they overlap.
type importer struct {
	svc      *service.Service
	org      uuid.UUID
	now      func() time.Time
	decoder  *service.ImportDecoder // used by the decoding goroutine alone
	progress io.Writer              // a terminal, or nil

	mu      sync.Mutex // guards what follows, shared by the decoder and the storers
	sum     importSummary
	lines   int // lines read by the decoder up to the batch stored last
	started time.Time
	shown   time.Time
}

// decoded is what the decoder hands over: a batch of events with their
// line numbers, and how many lines it has read.
type decoded struct {
	events []gatehouse.NewEvent
	lineOf []int // line number of each event
	lines  int
}

func newImporter(ctx context.Context, svc *service.Service, org uuid.UUID, now func() time.Time) (*importer, error) {
	decoder, err := svc.NewImportDecoder(ctx, org)
	if err != nil {
		return nil, err
	}
	return &importer{svc: svc, org: org, now: now, decoder: decoder, sum: importSummary{Errors: []lineError{}}}, nil
}

// run reads every line of in, reporting bad lines and storing good ones.
// At most one batch more than the storers is in memory: one being
// decoded, and one being stored by each.
func (imp *importer) run(ctx context.Context, in io.Reader) (importSummary, error) {
	imp.started = imp.now()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	batches := make(chan decoded)
	var (
		readErr error
		storing sync.WaitGroup
	)
	go func() {
		defer close(batches)
		readErr = imp.decode(ctx, in, batches)
	}()
	for range imp.svc.IngestWriters() {
		storing.Go(func() {
			bulk := imp.svc.BeginImport(imp.org)
			defer bulk.Rollback()
			for {
				b, ok, err := imp.next(ctx, batches, bulk)
				if err != nil {
					cancel(err)
				}
				if !ok {
					break
				}
				if ctx.Err() != nil {
					continue // stopped: drain, so that the decoder ends
				}
				if err := imp.store(ctx, bulk, b); err != nil {
					cancel(err) // the decoder and the other storers stop
				}
			}
			if ctx.Err() == nil {
				if err := bulk.Commit(); err != nil {
					cancel(fmt.Errorf("importing the last lines: %w", err))
				}
			}
		})
	}
	storing.Wait()
	if err := context.Cause(ctx); err != nil {
		return imp.sum, err
	}
	if readErr != nil {
		return imp.sum, readErr
	}
	slices.SortFunc(imp.sum.Errors, func(a, b lineError) int { return a.Line - b.Line })
	imp.showProgress(true)
	// The planner's statistics of before describe a table without this
	// file: the first queries on it would plan for that, the fold below
	// first (with none, its batch of 50,000 sorted all 15 M events of
	// the organization: 20 s, against 0.4 s). The player rollup is folded
	// behind ingest: folded now, in the import's time, the first rankings
	// read it rather than the events.
	if imp.sum.Imported > 0 {
		if err := imp.svc.RefreshStatistics(ctx); err != nil {
			return imp.sum, fmt.Errorf("imported; refreshing the statistics of events: %w", err)
		}
		// A fold of a large backlog on a loaded database can pass the
		// statement timeout; every batch folded before is kept, so
		// trying again goes on from there.
		err := imp.svc.RollInsights(ctx)
		for try := 1; errors.Is(err, gatehouse.ErrUnavailable) && try < 5; try++ {
			err = imp.svc.RollInsights(ctx)
		}
		if err != nil {
			return imp.sum, fmt.Errorf("imported; rolling up insights: %w", err)
		}
	}
	return imp.sum, nil
}

// next returns the next decoded batch, false once there are no more.
// When none is ready, the input is slow (a pipe a producer writes into):
// bulk commits what it holds before the wait, so that its transaction
// never holds SQLite's one writer, and the events it stored, while
// nothing arrives.
func (imp *importer) next(ctx context.Context, batches <-chan decoded, bulk *service.Import) (decoded, bool, error) {
	select {
	case b, ok := <-batches:
		return b, ok, nil
	default:
	}
	var err error
	if ctx.Err() == nil {
		if err = bulk.Commit(); err != nil {
			err = fmt.Errorf("importing: %w", err)
		}
	}
	b, ok := <-batches
	return b, ok, err
}

// decode reads and decodes in's lines into batches for out.
func (imp *importer) decode(ctx context.Context, in io.Reader, out chan<- decoded) error {
	r := bufio.NewReaderSize(in, 64<<10)
	var (
		b     decoded
		lines int
	)
	send := func() error {
		b.lines = lines
		select {
		case out <- b:
			b = decoded{}
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	for {
		line, read, tooLong, err := readLine(r)
		if read {
			lines++ // blank lines count, so numbers match the file
		}
		if len(line) > 0 || tooLong {
			if ev, bad := imp.decodeLine(line, tooLong); bad != "" {
				imp.reject(lines, bad) // in line order: the listed errors are the first ones
			} else {
				b.events, b.lineOf = append(b.events, ev), append(b.lineOf, lines)
			}
			if len(b.events) >= importBatch {
				if err := send(); err != nil {
					return err
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return send()
		}
		if err != nil {
			return err
		}
	}
}

// decodeLine decodes one line, or says what is wrong with it.
func (imp *importer) decodeLine(line []byte, tooLong bool) (gatehouse.NewEvent, string) {
	if tooLong {
		return gatehouse.NewEvent{}, fmt.Sprintf("line longer than %d bytes", maxLineBytes)
	}
	ev, err := imp.decoder.Decode(line)
	if err != nil {
		return gatehouse.NewEvent{}, err.Error()
	}
	return ev, ""
}

// readLine returns the next line, trimmed; read says whether there was a
// line at all, and tooLong whether it was over maxLineBytes (then its
// content is skipped, never held).
func readLine(r *bufio.Reader) (line []byte, read, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		read = read || len(chunk) > 0
		if len(line)+len(chunk) > maxLineBytes {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.ReadSlice('\n')
			}
			return nil, true, true, err
		}
		line = append(line, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return bytes.TrimSpace(line), read, false, err
		}
	}
}

func (imp *importer) reject(line int, msg string) {
	imp.mu.Lock()
	defer imp.mu.Unlock()
	imp.sum.Rejected++
	if len(imp.sum.Errors) < maxListedErrors {
		imp.sum.Errors = append(imp.sum.Errors, lineError{Line: line, Error: msg})
	}
}

// store reports the batch's rejected lines and stores its events. Events
// the service rejects (a requester that is not the organization's, say)
// are reported by line and the rest stored.
func (imp *importer) store(ctx context.Context, bulk *service.Import, b decoded) error {
	for len(b.events) > 0 {
		res, err := bulk.IngestEvents(ctx, b.events)
		var ie *gatehouse.IngestError
		if errors.As(err, &ie) && imp.dropBad(&b, ie) > 0 {
			continue
		}
		if err != nil {
			return fmt.Errorf("importing lines up to %d: %w", b.lineOf[len(b.lineOf)-1], err)
		}
		imp.mu.Lock()
		imp.sum.Imported += res.Accepted
		imp.sum.Duplicates += res.Duplicates
		imp.mu.Unlock()
		break
	}
	imp.mu.Lock()
	defer imp.mu.Unlock()
	imp.lines = max(imp.lines, b.lines)
	imp.showProgress(false)
	return nil
}

// dropBad reports the events of the batch that ie names, by their lines,
// keeps the others, and returns how many it dropped.
func (imp *importer) dropBad(b *decoded, ie *gatehouse.IngestError) int {
	keep, keepAt := b.events[:0], b.lineOf[:0]
	for i, ev := range b.events {
		if bad, ok := ie.Events[i]; ok {
			imp.reject(b.lineOf[i], bad.Error())
			continue
		}
		keep, keepAt = append(keep, ev), append(keepAt, b.lineOf[i])
	}
	dropped := len(b.events) - len(keep)
	b.events, b.lineOf = keep, keepAt
	return dropped
}

// showProgress rewrites one status line on a terminal, four times a
// second. Call it with mu held (or the storers done).
func (imp *importer) showProgress(final bool) {
	if imp.progress == nil {
		return
	}
	now := imp.now()
	if !final && now.Sub(imp.shown) < 250*time.Millisecond {
		return
	}
	imp.shown = now
	rate := float64(imp.sum.Imported+imp.sum.Duplicates) / max(now.Sub(imp.started).Seconds(), 0.001)
	fmt.Fprintf(imp.progress, "\r%d lines, %d imported, %d duplicates, %d rejected, %.0f events/s ",
		imp.lines, imp.sum.Imported, imp.sum.Duplicates, imp.sum.Rejected, rate)
	if final {
		fmt.Fprintln(imp.progress)
	}
}
