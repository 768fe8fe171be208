package supervisor

import (
	"bytes"
	"io"
	"sync"
)

// lineWriter passes whole lines to w, so the output of processes sharing a
// writer does not interleave within a line. out is the supervisor's lock
// around every process's writes (several may share one writer).
type lineWriter struct {
	mu  sync.Mutex
	out *sync.Mutex
	w   io.Writer
	buf []byte
}

func newLineWriter(w io.Writer, out *sync.Mutex) *lineWriter { return &lineWriter{w: w, out: out} }

func (l *lineWriter) emit(b []byte) error {
	l.out.Lock()
	defer l.out.Unlock()
	_, err := l.w.Write(b)
	return err
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	if i := bytes.LastIndexByte(l.buf, '\n'); i >= 0 {
		// A failing log sink must not stop the process: errors are dropped.
		_ = l.emit(l.buf[:i+1])
		l.buf = append(l.buf[:0], l.buf[i+1:]...)
	}
	// A line without end is kept until 64 KiB, then passed on as it is.
	if len(l.buf) > 64<<10 {
		_ = l.emit(l.buf)
		l.buf = l.buf[:0]
	}
	return len(p), nil
}

// Flush passes on a last line without a newline (the process exited).
func (l *lineWriter) Flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buf) > 0 {
		_ = l.emit(append(l.buf, '\n'))
		l.buf = l.buf[:0]
	}
}
