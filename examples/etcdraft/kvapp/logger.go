package kvapp

import "fmt"

// Logger is the raft library's logger for an adapter: silent, but for
// Fatal and Panic, which panic as the library's default logger does, with
// a LibraryPanic. Its methods are those of the Logger interface of every
// release of etcd's raft (go.etcd.io/raft/v3, and github.com/coreos/etcd/raft
// of etcd v3.3), so one value serves them all.
type Logger struct{}

// LibraryPanic is what the library panics with through Logger: its
// violation's fingerprint is the format string (record.PanicFingerprinter),
// so the numbers in the message (indices, terms) do not make two runs of
// one bug different bugs.
type LibraryPanic struct{ Format, Text string }

func (p LibraryPanic) Error() string { return p.Text }

// PanicFingerprint names the panic by its format string.
func (p LibraryPanic) PanicFingerprint() string { return p.Format }

func (Logger) Debug(...any)              {}
func (Logger) Debugf(string, ...any)     {}
func (Logger) Info(...any)               {}
func (Logger) Infof(string, ...any)      {}
func (Logger) Warning(...any)            {}
func (Logger) Warningf(string, ...any)   {}
func (Logger) Error(...any)              {}
func (Logger) Errorf(string, ...any)     {}
func (Logger) Fatal(v ...any)            { panic(LibraryPanic{fmt.Sprint(v...), fmt.Sprint(v...)}) }
func (Logger) Fatalf(f string, v ...any) { panic(LibraryPanic{f, fmt.Sprintf(f, v...)}) }
func (Logger) Panic(v ...any)            { panic(LibraryPanic{fmt.Sprint(v...), fmt.Sprint(v...)}) }
func (Logger) Panicf(f string, v ...any) { panic(LibraryPanic{f, fmt.Sprintf(f, v...)}) }
