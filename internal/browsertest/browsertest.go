// Package browsertest drives a headless Chromium for the tests of demi's
// bug-report outputs: it checks that a Mermaid diagram parses with the
// mermaid package itself, and loads an HTML page while recording console
// errors and every network request, then takes a screenshot.
//
// It needs Debian's chromium (/usr/bin/chromium, or $DEMI_CHROMIUM) and,
// for Mermaid, the mermaid npm package's browser bundle ($DEMI_MERMAID_JS,
// or ~/.cache/demi-ci/npm/node_modules/mermaid/dist/mermaid.min.js), both
// installed by .ci/run. Tests call Require, which skips when they are
// missing on a developer's machine and fails when $CI is set, so that CI
// never passes by skipping.
//
// Chromium runs with the flags this machine needs (no sandbox as root, no
// background networking, a fresh profile directory per browser).
package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// ChromiumPath returns the Chromium binary to use, or "" when there is none.
func ChromiumPath() string {
	for _, p := range []string{os.Getenv("DEMI_CHROMIUM"), "/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if p != "" {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	return ""
}

// MermaidPath returns mermaid's browser bundle, or "" when there is none.
func MermaidPath() string {
	cands := []string{os.Getenv("DEMI_MERMAID_JS")}
	if home, err := os.UserHomeDir(); err == nil {
		cands = append(cands, filepath.Join(home, ".cache/demi-ci/npm/node_modules/mermaid/dist/mermaid.min.js"))
	}
	for _, p := range cands {
		if p != "" {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	return ""
}

// Require skips the test when Chromium (and, with mermaid set, the mermaid
// bundle) is missing, or fails it when running in CI.
func Require(t testing.TB, mermaid bool) {
	t.Helper()
	var missing []string
	if ChromiumPath() == "" {
		missing = append(missing, "chromium (apt-get install chromium)")
	}
	if mermaid && MermaidPath() == "" {
		missing = append(missing, "the mermaid npm package (set DEMI_MERMAID_JS)")
	}
	if len(missing) == 0 {
		return
	}
	msg := "needs " + strings.Join(missing, " and ") + "; .ci/run installs them"
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// Browser is one headless Chromium with one tab. It records, for the page
// being loaded, every request and every console error.
type Browser struct {
	ctx context.Context
	mu  sync.Mutex
	cur *Load // what the current page recorded
	url string
}

// New starts a headless Chromium; it stops when the test ends.
func New(t testing.TB) *Browser {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(ChromiumPath()),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("allow-file-access-from-files", true),
		chromedp.WindowSize(1280, 900),
	}
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	b := &Browser{cur: &Load{}}
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(b.record))
	t.Cleanup(func() { cancel(); acancel() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	b.ctx = ctx
	return b
}

// record notes a request or an error of the current page.
func (b *Browser) record(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ld := b.cur
	switch e := ev.(type) {
	case *network.EventRequestWillBeSent:
		if e.Request.URL != b.url {
			ld.Requests = append(ld.Requests, e.Request.URL)
		}
	case *runtime.EventConsoleAPICalled:
		if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeAssert {
			var parts []string
			for _, a := range e.Args {
				parts = append(parts, string(a.Value)+a.Description)
			}
			ld.Errors = append(ld.Errors, "console."+string(e.Type)+": "+strings.Join(parts, " "))
		}
	case *runtime.EventExceptionThrown:
		d := e.ExceptionDetails
		msg := d.Text
		if d.Exception != nil {
			msg += " " + d.Exception.Description
		}
		ld.Errors = append(ld.Errors, "exception: "+msg)
	case *log.EventEntryAdded:
		if e.Entry.Level == log.EntryLevelError {
			ld.Errors = append(ld.Errors, "log: "+e.Entry.Text+" "+e.Entry.URL)
		}
	}
}

// run runs an action with a time limit.
func run[T any](b *Browser, a chromedp.Action[T]) (T, error) {
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	return chromedp.Run(ctx, a)
}

// MermaidParser loads mermaid's bundle into a blank page and returns a
// function that parses one diagram with mermaid.parse: nil when it parses
// as a sequence diagram, mermaid's error otherwise.
func (b *Browser) MermaidParser(t testing.TB) func(diagram string) error {
	t.Helper()
	page := filepath.Join(t.TempDir(), "mermaid.html")
	js, err := filepath.Abs(MermaidPath())
	if err != nil {
		t.Fatal(err)
	}
	html := `<!doctype html><html><head><meta charset="utf-8"><script src="file://` + js + `"></script></head><body></body></html>`
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := run(b, chromedp.Navigate("file://"+page)); err != nil {
		t.Fatalf("load mermaid: %v", err)
	}
	ok, err := run(b, chromedp.Evaluate[bool](`typeof mermaid === "object" && typeof mermaid.parse === "function"`))
	if err != nil || !ok {
		t.Fatalf("mermaid did not load from %s: %v", js, err)
	}
	return func(diagram string) error {
		arg, _ := json.Marshal(diagram)
		expr := `mermaid.parse(` + string(arg) + `).then(r => r ? "ok " + r.diagramType : "false", e => "error: " + (e && e.message || String(e)))`
		res, err := run(b, chromedp.Evaluate[string](expr, chromedp.EvalAwaitPromise))
		if err != nil {
			return fmt.Errorf("evaluate mermaid.parse: %w", err)
		}
		if res != "ok sequence" {
			return fmt.Errorf("mermaid.parse: %s", res)
		}
		return nil
	}
}

// Load is what loading a page recorded.
type Load struct {
	// Requests are the URLs the page requested, the page itself excluded.
	Requests []string
	// Errors are console errors, uncaught exceptions and browser log errors.
	Errors []string
	// Screenshot is a PNG of the element LoadPage was asked to capture.
	Screenshot []byte
}

// LoadPage opens the HTML file path, waits for it to load, and takes a
// screenshot of the first element matching the CSS selector shot. Eval
// and Click then work on the loaded page, until the next LoadPage.
func (b *Browser) LoadPage(t testing.TB, path, shot string) (*Load, *Page) {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	url := "file://" + abs
	if _, err := run(b, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("blank the tab: %v", err)
	}
	b.mu.Lock()
	b.cur, b.url = &Load{}, url
	b.mu.Unlock()
	if _, err := run(b, chromedp.Steps(chromedp.Navigate(url), chromedp.WaitReady("body"))); err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	var png []byte
	if shot != "" {
		if png, err = run(b, chromedp.Screenshot(chromedp.CSS(shot), chromedp.NodeVisible)); err != nil {
			t.Fatalf("screenshot of %s: %v", shot, err)
		}
	}
	// Let late events (a request a script starts after load) arrive.
	if _, err := run(b, chromedp.Sleep(100*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return &Load{Requests: append([]string(nil), b.cur.Requests...), Errors: append([]string(nil), b.cur.Errors...),
		Screenshot: png}, &Page{b: b}
}

// Page is a loaded page.
type Page struct{ b *Browser }

// Eval evaluates a JavaScript expression on the page and decodes its JSON
// value into T.
func Eval[T any](p *Page, expr string) (T, error) {
	return run(p.b, chromedp.Evaluate[T](expr))
}

// Click dispatches a click event to the first element matching the CSS
// selector (an SVG arrow's bounding box is mostly other things, so a
// mouse click at its center would not test its handler).
func (p *Page) Click(sel string) error {
	arg, _ := json.Marshal(sel)
	ok, err := run(p.b, chromedp.Evaluate[bool](`(function () { var el = document.querySelector(`+string(arg)+
		`); if (!el) { return false; } el.dispatchEvent(new MouseEvent("click", {bubbles: true})); return true; })()`))
	if err == nil && !ok {
		err = fmt.Errorf("no element matches %s", sel)
	}
	return err
}
