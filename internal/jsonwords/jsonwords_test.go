package jsonwords

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestExplain(t *testing.T) {
	decode := func(data string, v any) error { return json.Unmarshal([]byte(data), v) }
	var st struct {
		Context string `json:"context"`
		N       int    `json:"n"`
	}
	var list []string
	for _, c := range []struct {
		err  error
		want string
	}{
		{decode(`{"context":5}`, &st), `the JSON field "context" holds a number where text belongs`},
		{decode(`{"n":"x"}`, &st), `the JSON field "n" holds text where a whole number belongs`},
		{decode(`{"a":1}`, &list), `the JSON holds an object where a list belongs`},
		{decode(`{"n":`, &st), `not valid JSON at byte`},
	} {
		words, ok := Explain(c.err)
		if !ok || !strings.Contains(words, c.want) || strings.Contains(words, "Go ") {
			t.Errorf("Explain(%v) = %q, %v; want %q", c.err, words, ok, c.want)
		}
	}
	if _, ok := Explain(errors.New("other")); ok {
		t.Error("Explain took an error that is not JSON's")
	}
	err := fmt.Errorf("cases.json: %w", decode(`{"context":5}`, &st))
	if got := Rewrite(err, err.Error()); got != `cases.json: the JSON field "context" holds a number where text belongs` {
		t.Errorf("Rewrite: %q", got)
	}
}
