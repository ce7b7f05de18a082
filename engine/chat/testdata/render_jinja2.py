"""Regenerate gpt-oss.golden.json's expected renderings with Python Jinja2.

Usage (from this folder): python3 render_jinja2.py gpt-oss.jinja gpt-oss.golden.json

It renders each case the way transformers' apply_chat_template does
(ImmutableSandboxedEnvironment with trim_blocks, lstrip_blocks and
loopcontrols; transformers' tojson, raise_exception and strftime_now),
with the clock pinned to the instant the Go test pins, and writes the
"rendered" or "error" of every case back into the file. Made with
Jinja2 3.1.6.
"""
import datetime
import json
import sys

import jinja2
import jinja2.ext
from jinja2.exceptions import TemplateError
from jinja2.sandbox import ImmutableSandboxedEnvironment

NOW = datetime.datetime(2025, 8, 5, 14, 3, 9)


def raise_exception(message):
    raise TemplateError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def strftime_now(fmt):
    return NOW.strftime(fmt)


def main(template_path, golden_path):
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    with open(template_path) as f:
        tmpl = env.from_string(f.read())
    with open(golden_path) as f:
        cases = json.load(f)
    for c in cases:
        c.pop("rendered", None)
        c.pop("error", None)
        ctx = dict(messages=c["messages"], tools=c.get("tools"), documents=None,
                   add_generation_prompt=c["gen"], bos_token="<|startoftext|>",
                   eos_token="<|return|>", pad_token="<|endoftext|>")
        ctx.update(c.get("vars", {}))
        try:
            c["rendered"] = tmpl.render(**ctx)
        except TemplateError as e:
            c["error"] = str(e)
    with open(golden_path, "w") as f:
        json.dump(cases, f, indent=1, ensure_ascii=True)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
