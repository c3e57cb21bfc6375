package record

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEscape(t *testing.T) {
	assert.Equal(t, "plain → text", escape("plain → text"))
	assert.Equal(t, `"a\nb"`, escape("a\nb"))
	assert.Equal(t, `"\xff"`, escape("\xff"))
	assert.Equal(t, "\uFFFD", escape("\uFFFD"), "an encoded replacement character is valid UTF-8")
}
