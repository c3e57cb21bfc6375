package step

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/demi-project/demi/record"
)

// ParseExternal reads an external event written as
//
//	start ACTOR | kill ACTOR | restart ACTOR
//	send ACTOR TYPE [JSON]      (an external message: a registered type, its fields as JSON)
//	partition A,B C,D | heal A,B C,D
func ParseExternal(sys *record.System, members []record.ActorID, text string) (record.Event, error) {
	f := strings.Fields(text)
	if len(f) == 0 {
		return record.Event{}, fmt.Errorf("want an external event: start|kill|restart ACTOR, send ACTOR TYPE {json}, partition|heal A,B C,D")
	}
	actor := func(s string) (record.ActorID, error) {
		id := record.ActorID(s)
		if !slices.Contains(members, id) {
			return "", fmt.Errorf("no actor %q (actors: %s)", s, joinActors(members))
		}
		return id, nil
	}
	side := func(s string) ([]record.ActorID, error) {
		var out []record.ActorID
		for _, p := range strings.Split(s, ",") {
			id, err := actor(p)
			if err != nil {
				return nil, err
			}
			out = append(out, id)
		}
		return out, nil
	}
	switch f[0] {
	case "start", "kill", "restart":
		if len(f) != 2 {
			return record.Event{}, fmt.Errorf("%s: want %s ACTOR", f[0], f[0])
		}
		id, err := actor(f[1])
		if err != nil {
			return record.Event{}, err
		}
		return map[string]func(record.ActorID) record.Event{
			"start": record.StartEvent, "kill": record.KillEvent, "restart": record.RestartEvent,
		}[f[0]](id), nil
	case "partition", "heal":
		if len(f) != 3 {
			return record.Event{}, fmt.Errorf("%s: want %s A,B C,D (the two sides)", f[0], f[0])
		}
		a, err := side(f[1])
		if err != nil {
			return record.Event{}, err
		}
		b, err := side(f[2])
		if err != nil {
			return record.Event{}, err
		}
		if f[0] == "partition" {
			return record.PartitionEvent(a, b), nil
		}
		return record.HealEvent(a, b), nil
	case "send":
		if len(f) < 3 {
			return record.Event{}, fmt.Errorf("send: want send ACTOR TYPE [{json fields}]")
		}
		to, err := actor(f[1])
		if err != nil {
			return record.Event{}, err
		}
		// The JSON is the rest of the line after the type, spaces kept.
		rest := strings.TrimSpace(text[strings.Index(text, f[1])+len(f[1]):])
		rest = strings.TrimSpace(strings.TrimPrefix(rest, f[2]))
		msg, err := parseMessage(sys, f[2], rest)
		if err != nil {
			return record.Event{}, fmt.Errorf("send: %w", err)
		}
		return record.SendEvent(to, msg), nil
	}
	return record.Event{}, fmt.Errorf("unknown external event %q (start, kill, restart, send, partition, heal)", f[0])
}

// parseMessage builds a message of the registered type named name from its
// fields in JSON (empty: the zero value).
func parseMessage(sys *record.System, name, fields string) (record.Message, error) {
	types, err := sys.Types()
	if err != nil {
		return nil, err
	}
	name = strings.TrimPrefix(name, "*")
	t, ok := types.Lookup(name)
	if !ok {
		t, ok = types.Lookup("*" + name)
	}
	if !ok {
		var names []string
		for _, m := range sys.Messages {
			names = append(names, strings.TrimPrefix(record.TypeName(m), "*"))
		}
		return nil, fmt.Errorf("%s has no message type %q (types: %s)", sys.Name, name, strings.Join(names, ", "))
	}
	ptr := t.Kind() == reflect.Pointer
	base := t
	if ptr {
		base = t.Elem()
	}
	v := reflect.New(base)
	if fields != "" {
		dec := json.NewDecoder(strings.NewReader(fields))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v.Interface()); err != nil {
			return nil, fmt.Errorf("%s fields %s: %w", name, fields, err)
		}
		if dec.More() {
			return nil, fmt.Errorf("%s fields %s: trailing text after the JSON object", name, fields)
		}
	}
	if ptr {
		return v.Interface(), nil
	}
	return v.Elem().Interface(), nil
}
