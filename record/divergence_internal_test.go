package record

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEscape(t *testing.T) {
	assert.Equal(t, "plain → text", Escape("plain → text"))
	assert.Equal(t, `"a\nb"`, Escape("a\nb"))
	assert.Equal(t, `"\xff"`, Escape("\xff"))
	assert.Equal(t, "\uFFFD", Escape("\uFFFD"), "an encoded replacement character is valid UTF-8")
}
