package chat

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const fixtureRoot = "../../../shared/fixtures"

func readFixture(tb testing.TB, rel string) []byte {
	tb.Helper()
	p := filepath.Join(fixtureRoot, rel)
	data, err := os.ReadFile(p)
	if err != nil {
		tb.Fatalf("fixture %s is missing (expected at shared/fixtures/%s relative to the repository root's parent): %v", p, rel, err)
	}
	return data
}

type goldenTemplate struct {
	Name     string  `json:"name"`
	Template string  `json:"template"`
	File     string  `json:"template_file"`
	BOS      *string `json:"bos_token"`
	EOS      *string `json:"eos_token"`
	Cases    []struct {
		ID                  string          `json:"id"`
		Messages            json.RawMessage `json:"messages"`
		AddGenerationPrompt bool            `json:"add_generation_prompt"`
		ExtraVars           map[string]any  `json:"extra_vars"`
		Rendered            *string         `json:"rendered"`
		Error               *string         `json:"error"`
		ErrorKind           string          `json:"error_kind"`
		Python              *struct {
			Rendered *string `json:"rendered"`
			Error    *string `json:"error"`
		} `json:"python_jinja2"`
	} `json:"cases"`
}

// TestGoldens renders every case of shared/fixtures/chat_templates and
// compares it byte for byte (preferring the Python Jinja2 result where the
// two references disagree); expected refusals must be refused with the
// template's message.
func TestGoldens(t *testing.T) {
	var g []goldenTemplate
	if err := json.Unmarshal(readFixture(t, "chat_templates/golden.json"), &g); err != nil {
		t.Fatal(err)
	}
	if len(g) < 7 {
		t.Fatalf("golden.json has %d templates, want 7", len(g))
	}
	total, pass := 0, 0
	for _, tc := range g {
		if file := string(readFixture(t, "chat_templates/"+tc.File)); file != tc.Template {
			t.Errorf("%s: %s differs from golden.json's template", tc.Name, tc.File)
		}
		tokens := map[string]string{}
		if tc.BOS != nil {
			tokens["bos_token"] = *tc.BOS
		}
		if tc.EOS != nil {
			tokens["eos_token"] = *tc.EOS
		}
		tmpl, err := Parse(tc.Template, tokens)
		if err != nil {
			t.Errorf("%s: %v", tc.Name, err)
			total += len(tc.Cases)
			continue
		}
		ok := 0
		for _, c := range tc.Cases {
			total++
			msgs, err := ParseMessages(c.Messages)
			if err != nil {
				t.Errorf("%s %s: %v", tc.Name, c.ID, err)
				continue
			}
			want, wantErr := c.Rendered, c.Error
			if c.Python != nil {
				want, wantErr = c.Python.Rendered, c.Python.Error
			}
			p, err := tmpl.Render(msgs, Options{AddGenerationPrompt: c.AddGenerationPrompt, Vars: c.ExtraVars})
			switch {
			case wantErr != nil:
				var re *RaiseError
				if err == nil {
					t.Errorf("%s %s: rendered %q, want refusal %q", tc.Name, c.ID, p.Text, *wantErr)
					continue
				}
				if c.ErrorKind == "raise_exception" && (!errors.As(err, &re) || re.Message != *wantErr) {
					t.Errorf("%s %s: error %v, want raise_exception %q", tc.Name, c.ID, err, *wantErr)
					continue
				}
				if !strings.Contains(err.Error(), *wantErr) {
					t.Errorf("%s %s: error %q does not carry %q", tc.Name, c.ID, err, *wantErr)
					continue
				}
			case err != nil:
				t.Errorf("%s %s: %v", tc.Name, c.ID, err)
				continue
			case want == nil:
				t.Errorf("%s %s: golden has neither rendering nor error", tc.Name, c.ID)
				continue
			case p.Text != *want:
				t.Errorf("%s %s:\n got  %q\n want %q", tc.Name, c.ID, p.Text, *want)
				continue
			}
			ok++
		}
		pass += ok
		t.Logf("%s: %d/%d", tc.Name, ok, len(tc.Cases))
	}
	t.Logf("chat templates: %d/%d cases exact", pass, total)
}
