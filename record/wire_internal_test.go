package record

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/vmihailenco/msgpack/v5"
)

// encodeWire must write exactly what msgpack's reflection writes for the
// wireEvent struct: traces already written stay byte for byte the same.
func TestEncodeWireMatchesReflection(t *testing.T) {
	events := []wireEvent{
		{Kind: Deliver, ID: 1, From: "a", To: "b", Type: "Ping", Payload: msgpack.RawMessage{0x81, 0xa1, 'N', 0x05}, Cause: 3},
		{Kind: Deliver, ID: 1 << 40, From: "a", To: "a", Type: "Tick", Payload: msgpack.RawMessage{0x80}, Timer: "t", Cause: 300000},
		{Kind: Deliver, ID: 2, From: "a", To: "a", Type: "Tick", Payload: msgpack.RawMessage{0x80}, Timer: "t", Cause: 1, At: 1 << 33},
		{Kind: Deliver, ID: 3, From: "a", To: "b", Type: "Ping", Payload: msgpack.RawMessage{0x80}, Cause: 1, At: 17},
		{Kind: Start, Actor: "n1", Cause: -1},
		{Kind: Partition, A: []ActorID{"a", "b"}, B: []ActorID{"c"}, Cause: -1},
		{Kind: Heal, A: []ActorID{}, B: nil, Cause: -1},
		{Kind: WaitCondition, Cond: "leader", Limit: 200, Cause: -1},
		{Kind: WaitQuiescence, Limit: -5, Cause: -129},
		{Kind: Send, ID: 7, From: External, To: "b", Type: "*Pong", Payload: msgpack.RawMessage{0xc0}, Cause: -1},
		{},
	}
	for _, w := range events {
		var want, got bytes.Buffer
		require.NoError(t, msgpack.NewEncoder(&want).Encode(&w))
		require.NoError(t, encodeWire(msgpack.NewEncoder(&got), &w))
		require.Equal(t, want.Bytes(), got.Bytes(), "%+v", w)
	}
}
