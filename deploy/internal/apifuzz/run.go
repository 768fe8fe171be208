package apifuzz

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Verdict classes of an answer.
const (
	OK          = ""
	ServerError = "answer >= 500"
	NotEnvelope = "outside the envelope"
	Hung        = "hung"
)

// Classify returns the class of a's answer to req and, when it is not OK,
// what is wrong.
func Classify(req Request, a Answer) (class, problem string) {
	switch {
	case a.Hung:
		return Hung, "no answer before the client timeout: " + a.Err.Error()
	case a.Err != nil:
		return NotEnvelope, "no answer: " + a.Err.Error()
	case a.Status >= 500:
		return ServerError, "status " + strconv.Itoa(a.Status)
	case a.Status >= 400 && req.Method != "HEAD":
		if p := EnvelopeProblem(a); p != "" {
			return NotEnvelope, p
		}
	}
	return OK, ""
}

// Finding is one distinct failure (its mutation, class, status and
// problem): the first request that met it, the number of requests that
// did and the operations they went to.
type Finding struct {
	Class, Problem string
	Kind           string
	Op             string // the first request's operation
	Ops            []string
	Status         int
	Count          int
	First          uint64 // the request number (re-generate it with the seed)
	Method, Path   string
	Header         string // the request's headers other than Authorization and Accept
	Body, Answer   string // excerpts
}

// Key groups findings: the mutation, the class, the status and the
// problem, whatever the operation.
func (f Finding) Key() string {
	return fmt.Sprintf("%s|%s|%d|%s", f.Kind, f.Class, f.Status, f.Problem)
}

// Report is the outcome of a run.
type Report struct {
	Requests                        int
	ServerErrors, NotEnvelope, Hung int
	Findings                        []Finding
	// Bystander counts the other tenant's valid requests sent during the
	// run and those that did not succeed.
	BystanderSent, BystanderFailed int
	BystanderProblems              []string
}

// Line is the one-line summary make fuzz prints.
func (r Report) Line() string {
	return fmt.Sprintf("http fuzz: %d requests, %d answers >= 500, %d outside the envelope, %d hung",
		r.Requests, r.ServerErrors, r.NotEnvelope, r.Hung)
}

// Failed reports whether any request failed, or a bystander request.
func (r Report) Failed() bool {
	return r.ServerErrors+r.NotEnvelope+r.Hung+r.BystanderFailed > 0
}

// Summary lists the distinct findings, one per line.
func (r Report) Summary() string {
	var b strings.Builder
	for _, f := range r.Findings {
		ops := slices.Clone(f.Ops)
		sort.Strings(ops)
		if len(ops) > 8 {
			ops = append(ops[:8], fmt.Sprintf("and %d more", len(f.Ops)-8))
		}
		fmt.Fprintf(&b, "%s ×%d (%s): %s, %s: e.g. request #%d %s %s headers %q body %q → %q\n",
			f.Class, f.Count, strings.Join(ops, ", "), f.Kind, f.Problem, f.First, f.Method, f.Path, f.Header, f.Body, f.Answer)
	}
	for _, p := range r.BystanderProblems {
		fmt.Fprintf(&b, "bystander: %s\n", p)
	}
	return b.String()
}

// Options of a run.
type Options struct {
	Requests int
	Workers  int
	// Start is the number of the first request (requests Start ..
	// Start+Requests-1 are sent).
	Start uint64
	// Bystander, when set, is called in a loop while the run lasts (every
	// BystanderEvery); a non-nil error counts as a failed bystander
	// request.
	Bystander      func(ctx context.Context, n int) error
	BystanderEvery time.Duration
	// Progress, when set, receives a line every ProgressEvery requests.
	Progress      io.Writer
	ProgressEvery int
}

// Run sends the fuzzer's requests with c and classifies the answers.
func Run(ctx context.Context, c *Client, f *Fuzzer, o Options) Report {
	workers := max(o.Workers, 1)
	var next atomic.Int64
	var mu sync.Mutex
	rep := Report{}
	byKey := map[string]*Finding{}
	record := func(n uint64, req Request, a Answer) {
		class, problem := Classify(req, a)
		mu.Lock()
		defer mu.Unlock()
		rep.Requests++
		if o.Progress != nil && o.ProgressEvery > 0 && rep.Requests%o.ProgressEvery == 0 {
			fmt.Fprintf(o.Progress, "http fuzz: %d/%d requests sent, %d failing so far\n", rep.Requests, o.Requests,
				rep.ServerErrors+rep.NotEnvelope+rep.Hung)
		}
		switch class {
		case OK:
			return
		case ServerError:
			rep.ServerErrors++
		case NotEnvelope:
			rep.NotEnvelope++
		case Hung:
			rep.Hung++
		}
		if strings.HasPrefix(problem, "no answer") && len(problem) > 120 {
			problem = problem[:120]
		}
		fd := Finding{Class: class, Problem: problem, Kind: req.Kind, Status: a.Status}
		if prev := byKey[fd.Key()]; prev != nil {
			prev.Count++
			if !slices.Contains(prev.Ops, req.Op) {
				prev.Ops = append(prev.Ops, req.Op)
			}
			return
		}
		fd.Count, fd.First, fd.Method, fd.Op, fd.Ops = 1, n, req.Method, req.Op, []string{req.Op}
		fd.Path = excerpt(req.Path, 160)
		body := req.Body
		if req.Raw != nil {
			body = req.Raw
		}
		fd.Body = excerpt(string(body), 200)
		fd.Answer = excerpt(string(a.Body), 300)
		var hs []string
		for k, v := range req.Header {
			if k != "Authorization" && k != "Accept" {
				hs = append(hs, k+": "+excerpt(v, 60))
			}
		}
		sort.Strings(hs)
		fd.Header = strings.Join(hs, "; ")
		byKey[fd.Key()] = &fd
	}

	bctx, stopBystander := context.WithCancel(ctx)
	var bwg sync.WaitGroup
	if o.Bystander != nil {
		bwg.Add(1)
		go func() {
			defer bwg.Done()
			every := o.BystanderEvery
			if every <= 0 {
				every = 200 * time.Millisecond
			}
			for n := 0; ; n++ {
				select {
				case <-bctx.Done():
					return
				case <-time.After(every):
				}
				err := o.Bystander(bctx, n)
				if bctx.Err() != nil {
					return
				}
				mu.Lock()
				rep.BystanderSent++
				if err != nil {
					rep.BystanderFailed++
					if len(rep.BystanderProblems) < 10 {
						rep.BystanderProblems = append(rep.BystanderProblems, err.Error())
					}
				}
				mu.Unlock()
			}
		}()
	}

	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := next.Add(1) - 1
				if i >= int64(o.Requests) {
					return
				}
				n := o.Start + uint64(i)
				req := f.Request(n)
				record(n, req, c.Do(ctx, req))
			}
		}()
	}
	wg.Wait()
	stopBystander()
	bwg.Wait()

	for _, fd := range byKey {
		rep.Findings = append(rep.Findings, *fd)
	}
	sort.Slice(rep.Findings, func(i, j int) bool { return rep.Findings[i].Key() < rep.Findings[j].Key() })
	return rep
}

func excerpt(s string, n int) string {
	if len(s) > n {
		return s[:n] + fmt.Sprintf("…(%d bytes)", len(s))
	}
	return s
}
