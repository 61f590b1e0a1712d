package main

// The state file: what a later run needs to resume, and whether it may.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/examples/internal/demo"
)

// state is what a later run needs to resume. It is rewritten (atomically)
// after every page of messages.
type state struct {
	BaseURL   string    `json:"base_url,omitempty"` // a state is never resumed against another service
	Demo      bool      `json:"demo,omitempty"`     // written on the embedded demo fake: never resumed
	SinceFlag string    `json:"since_flag"`
	Since     time.Time `json:"since"`
	Done      []string  `json:"done"`              // a set: the list's order changes meanwhile
	Current   *current  `json:"current,omitempty"` // in progress, with the cursor of its next page
	OutBytes  int64     `json:"out_bytes"`         // what follows was written after the last checkpoint
	Lines     int       `json:"lines"`
	Files     int       `json:"files"` // lines with a media file
	Complete  bool      `json:"complete,omitempty"`
}

type current struct {
	ConversationID string        `json:"conversation_id"`
	ContactID      string        `json:"contact_id"`
	Channel        convo.Channel `json:"channel"`
	Cursor         string        `json:"cursor,omitempty"`
}

// demoService names the embedded demo fake in messages about a state.
const demoService = "the embedded demo fake"

// service names the service a state was written from.
func (st *state) service() string {
	if st.Demo {
		return demoService
	}
	return st.BaseURL
}

// loadState reads the state file, or starts a new state from the service's
// clock, and refuses a state this run cannot resume.
func (e *exporter) loadState(ctx context.Context, since string) error {
	path := filepath.Join(e.dir, "history.jsonl.state")
	here := state{BaseURL: e.c.BaseURL()}
	if demo.Embedded() {
		here = state{Demo: true}
	}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return e.newState(ctx, here, since)
	case err != nil:
		return err
	case json.Unmarshal(b, &e.st) != nil:
		return fmt.Errorf("%s is not a state file: delete it to start over", path)
	case e.st.service() != here.service():
		return fmt.Errorf("%s was written by an export from %s, not %s: use another --dir, or delete it to start over", path, e.st.service(), here.service())
	case e.st.Demo:
		fmt.Fprintf(e.progress, "export: %s was written on %s, whose data is new at every run: exporting again\n", path, demoService)
		if err := e.removeMediaFiles(); err != nil {
			return err
		}
		return e.newState(ctx, here, since)
	case e.st.SinceFlag != since:
		return fmt.Errorf("%s was written by an export with --since %s; use the same --since to resume, or delete it to start over", path, e.st.SinceFlag)
	}
	return nil
}

// newState starts an export from nothing, from here, since the time the
// --since flag names on the service's clock.
func (e *exporter) newState(ctx context.Context, here state, since string) error {
	e.st = here
	e.st.SinceFlag = since
	now, err := serviceTime(ctx, e.c)
	if err == nil {
		e.st.Since, err = parseSince(since, now)
	}
	return err
}

// removeMediaFiles removes the media files that the lines of the export
// (up to its last checkpoint) point to, before an export starts over.
func (e *exporter) removeMediaFiles() error {
	f, err := os.Open(filepath.Join(e.dir, "history.jsonl"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, e.st.OutBytes))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var l struct {
			MediaFile string `json:"media_file"`
		}
		if json.Unmarshal(sc.Bytes(), &l) == nil && l.MediaFile != "" && filepath.Dir(l.MediaFile) == filepath.Join(e.dir, "media") {
			if err := os.Remove(l.MediaFile); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
	}
	return sc.Err()
}

// checkpoint makes everything written so far durable, then records it.
func (e *exporter) checkpoint() error {
	if err := e.w.Flush(); err != nil {
		return err
	}
	if err := e.f.Sync(); err != nil {
		return err
	}
	e.st.OutBytes, e.st.Lines, e.st.Files = e.st.OutBytes+e.pending.bytes, e.st.Lines+e.pending.lines, e.st.Files+e.pending.files
	e.pending = counts{}
	b, err := json.MarshalIndent(e.st, "", " ")
	if err != nil {
		return err
	}
	path := filepath.Join(e.dir, "history.jsonl.state")
	if err := os.WriteFile(path+".tmp", b, 0o600); err != nil {
		return err
	}
	return os.Rename(path+".tmp", path)
}
