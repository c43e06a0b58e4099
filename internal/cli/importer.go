package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
	"golang.org/x/term"
)

// Import limits.
const (
	importBatch     = 5000    // events per transaction: fewer, larger commits cost the search index fewer merges
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

func runEventImport(ctx context.Context, e *env) error {
	f := newFlags(e, "event import")
	org := f.String("org", "", "organization id")
	return withService(ctx, f, 1, func(svc *gatehouse.Service, args []string) error {
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
		return f.print(sum, "imported %d events, %d duplicates, %d rejected%s",
			sum.Imported, sum.Duplicates, sum.Rejected, listErrors(sum.Errors))
	})
}

func listErrors(errs []lineError) string {
	var b bytes.Buffer
	for _, le := range errs {
		fmt.Fprintf(&b, "\nline %d: %s", le.Line, le.Error)
	}
	return b.String()
}

// importer streams NDJSON into the service in batches, one transaction each.
type importer struct {
	svc          *gatehouse.Service
	org          uuid.UUID
	now          func() time.Time
	accessPoints map[uuid.UUID]bool
	progress     io.Writer // a terminal, or nil

	sum     importSummary
	lines   int
	batch   []gatehouse.NewEvent
	batchAt []int // line number of each batched event
	started time.Time
	shown   time.Time
}

func newImporter(ctx context.Context, svc *gatehouse.Service, org uuid.UUID, now func() time.Time) (*importer, error) {
	if _, err := svc.FindOrganization(ctx, org); err != nil {
		return nil, err
	}
	imp := &importer{svc: svc, org: org, now: now, accessPoints: make(map[uuid.UUID]bool), sum: importSummary{Errors: []lineError{}}}
	locs, err := svc.AllLocations(ctx, org)
	if err != nil {
		return nil, err
	}
	for _, l := range locs {
		for _, ap := range l.AccessPoints {
			imp.accessPoints[ap.ID] = true
		}
	}
	return imp, nil
}

// run reads every line of in, reporting bad lines and storing good ones.
func (imp *importer) run(ctx context.Context, in io.Reader) (importSummary, error) {
	imp.started = imp.now()
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, read, tooLong, err := readLine(r)
		if read {
			imp.lines++ // blank lines count, so numbers match the file
		}
		if len(line) > 0 || tooLong {
			if err := imp.take(ctx, line, tooLong); err != nil {
				return imp.sum, err
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return imp.sum, err
		}
	}
	if err := imp.flush(ctx); err != nil {
		return imp.sum, err
	}
	imp.showProgress(true)
	return imp.sum, nil
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

func (imp *importer) take(ctx context.Context, line []byte, tooLong bool) error {
	if tooLong {
		imp.reject(imp.lines, fmt.Sprintf("line longer than %d bytes", maxLineBytes))
		return nil
	}
	ev, err := imp.svc.DecodeEvent(line)
	if err == nil && !imp.accessPoints[ev.AccessPointID] {
		err = gatehouse.Invalid("accessPointId", "is not an access point of this organization")
	}
	if err != nil {
		imp.reject(imp.lines, err.Error())
		return nil
	}
	imp.batch = append(imp.batch, ev)
	imp.batchAt = append(imp.batchAt, imp.lines)
	if len(imp.batch) >= importBatch {
		return imp.flush(ctx)
	}
	imp.showProgress(false)
	return nil
}

func (imp *importer) reject(line int, msg string) {
	imp.sum.Rejected++
	if len(imp.sum.Errors) < maxListedErrors {
		imp.sum.Errors = append(imp.sum.Errors, lineError{Line: line, Error: msg})
	}
}

// flush stores the batch. Events the service rejects (a requester that
// is not the organization's, say) are reported by line and the rest stored.
func (imp *importer) flush(ctx context.Context) error {
	for len(imp.batch) > 0 {
		res, err := imp.svc.IngestEvents(ctx, imp.org, imp.batch)
		var ie *gatehouse.IngestError
		if errors.As(err, &ie) && imp.dropBad(ie) > 0 {
			continue
		}
		if err != nil {
			return fmt.Errorf("importing lines up to %d: %w", imp.batchAt[len(imp.batchAt)-1], err)
		}
		imp.sum.Imported += res.Accepted
		imp.sum.Duplicates += res.Duplicates
		imp.batch, imp.batchAt = imp.batch[:0], imp.batchAt[:0]
	}
	imp.showProgress(false)
	return nil
}

// dropBad reports the events of the batch that ie names, by their lines,
// keeps the others, and returns how many it dropped.
func (imp *importer) dropBad(ie *gatehouse.IngestError) int {
	keep, keepAt := imp.batch[:0], imp.batchAt[:0]
	for i, ev := range imp.batch {
		if bad, ok := ie.Events[i]; ok {
			imp.reject(imp.batchAt[i], bad.Error())
			continue
		}
		keep, keepAt = append(keep, ev), append(keepAt, imp.batchAt[i])
	}
	dropped := len(imp.batch) - len(keep)
	imp.batch, imp.batchAt = keep, keepAt
	return dropped
}

// showProgress rewrites one status line on a terminal, four times a second.
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
