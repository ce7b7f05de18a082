// Drives the official `openai` npm SDK against a live `isagi serve`.
//
//   node client.mjs http://127.0.0.1:PORT/v1 [http://127.0.0.1:PORT2/v1]
//
// The first server runs the text demo (`serve --demo`); the second, when
// given, the chat demo (`serve --demo=chat`), for the tool-call checks,
// which need a chat template.
//
// Each check prints one `ok - <name>` line; the first failure prints
// `not ok - <name>` with the reason and exits 1. Observations where the
// server differs from OpenAI's API without breaking a check are printed as
// `# note: ...` lines.
import assert from 'node:assert/strict';
import OpenAI from 'openai';

const baseURL = process.argv[2];
if (!baseURL) {
  console.error('usage: node client.mjs BASE_URL   (e.g. http://127.0.0.1:8080/v1)');
  process.exit(2);
}

const client = new OpenAI({
  baseURL,
  apiKey: process.env.ISAGI_API_KEY || 'none',
  maxRetries: 0,
  timeout: 60000,
});

let passed = 0;
const notes = [];
function note(msg) {
  notes.push(msg);
  console.log(`# note: ${msg}`);
}

async function check(name, fn) {
  try {
    const detail = await fn();
    passed++;
    console.log(`ok - ${name}${detail ? ` (${detail})` : ''}`);
  } catch (err) {
    console.log(`not ok - ${name}`);
    console.error(`check "${name}" failed against ${baseURL}:`);
    if (err instanceof OpenAI.APIError) {
      console.error(`  ${err.constructor.name}: status=${err.status} message=${JSON.stringify(err.message)}`);
      if (err.error !== undefined) console.error(`  error body: ${JSON.stringify(err.error)}`);
    } else {
      console.error(`  ${err && err.stack ? err.stack : err}`);
    }
    process.exit(1);
  }
}

const show = (v) => JSON.stringify(v, null, 0);
const isNum = (v) => typeof v === 'number' && Number.isFinite(v);

let MODEL;

// a. models.list
await check('models.list returns at least one model', async () => {
  const page = await client.models.list();
  assert.ok(Array.isArray(page.data), `models.list data is not an array: ${show(page)}`);
  assert.ok(page.data.length > 0, 'models.list returned no models');
  const m = page.data[0];
  assert.equal(typeof m.id, 'string', `data[0].id is not a string: ${show(m)}`);
  assert.ok(m.id.length > 0, 'data[0].id is empty');
  if (m.object !== 'model') note(`models.list data[0].object is ${show(m.object)}, OpenAI sends "model"`);
  MODEL = m.id;
  return `MODEL=${MODEL}, ${page.data.length} model(s)`;
});

const chatReq = () => ({
  model: MODEL,
  messages: [{ role: 'user', content: 'And God said' }],
  max_tokens: 16,
  temperature: 0,
  seed: 1,
});

function checkUsage(usage, what) {
  assert.ok(usage && typeof usage === 'object', `${what}: usage missing: ${show(usage)}`);
  assert.ok(isNum(usage.prompt_tokens) && usage.prompt_tokens > 0, `${what}: usage.prompt_tokens not > 0: ${show(usage)}`);
  assert.ok(isNum(usage.completion_tokens) && usage.completion_tokens > 0, `${what}: usage.completion_tokens not > 0: ${show(usage)}`);
  assert.equal(usage.total_tokens, usage.prompt_tokens + usage.completion_tokens,
    `${what}: usage.total_tokens != prompt_tokens + completion_tokens: ${show(usage)}`);
}

// b. chat completion
let chat;
await check('chat.completions.create (non-streamed)', async () => {
  chat = await client.chat.completions.create(chatReq());
  assert.equal(chat.object, 'chat.completion', `object: ${show(chat.object)}`);
  assert.equal(typeof chat.id, 'string', `id is not a string: ${show(chat.id)}`);
  assert.ok(Array.isArray(chat.choices) && chat.choices.length >= 1, `choices: ${show(chat.choices)}`);
  const c = chat.choices[0];
  assert.equal(c.message?.role, 'assistant', `choices[0].message.role: ${show(c.message)}`);
  assert.equal(typeof c.message.content, 'string', `content is not a string: ${show(c.message)}`);
  assert.ok(c.message.content.length > 0, 'content is empty');
  assert.ok(['stop', 'length'].includes(c.finish_reason), `finish_reason: ${show(c.finish_reason)}`);
  checkUsage(chat.usage, 'chat');
  if (c.index !== 0) note(`chat choices[0].index is ${show(c.index)}, OpenAI sends 0`);
  if (!isNum(chat.created)) note(`chat created is ${show(chat.created)}, OpenAI sends a unix timestamp`);
  if (chat.model === undefined) note('chat response has no "model" field');
  return `${chat.usage.completion_tokens} tokens, finish_reason=${c.finish_reason}, content=${show(c.message.content)}`;
});

// c. streamed chat completion
await check('chat.completions.create (streamed, include_usage)', async () => {
  const stream = await client.chat.completions.create({
    ...chatReq(),
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = '';
  let finishes = [];
  let usageChunks = [];
  let n = 0;
  const ids = new Set();
  let last;
  for await (const chunk of stream) {
    n++;
    last = chunk;
    assert.equal(chunk.object, 'chat.completion.chunk', `chunk ${n} object: ${show(chunk)}`);
    ids.add(chunk.id);
    assert.ok(Array.isArray(chunk.choices), `chunk ${n} has no choices array: ${show(chunk)}`);
    const d = chunk.choices[0]?.delta?.content;
    if (typeof d === 'string') text += d;
    for (const ch of chunk.choices) {
      if (ch.finish_reason !== null && ch.finish_reason !== undefined) finishes.push(ch.finish_reason);
    }
    if (chunk.usage !== null && chunk.usage !== undefined) usageChunks.push(chunk);
  }
  assert.ok(n > 0, 'stream yielded no chunks');
  assert.equal(text, chat.choices[0].message.content, 'streamed text != non-streamed content (temperature 0)');
  assert.equal(finishes.length, 1, `expected exactly one chunk with a finish_reason, got ${show(finishes)}`);
  assert.equal(finishes[0], chat.choices[0].finish_reason, 'streamed finish_reason != non-streamed finish_reason');
  assert.equal(usageChunks.length, 1, `expected exactly one chunk with usage, got ${usageChunks.length}`);
  assert.equal(usageChunks[0], last, 'the usage chunk is not the last chunk');
  assert.equal(last.choices.length, 0, `final usage chunk has non-empty choices: ${show(last)}`);
  checkUsage(last.usage, 'stream usage chunk');
  assert.deepEqual(
    { p: last.usage.prompt_tokens, c: last.usage.completion_tokens, t: last.usage.total_tokens },
    { p: chat.usage.prompt_tokens, c: chat.usage.completion_tokens, t: chat.usage.total_tokens },
    'streamed usage != non-streamed usage');
  if (ids.size !== 1) note(`streamed chat chunks carry ${ids.size} distinct ids; OpenAI uses one id for all chunks`);
  return `${n} chunks`;
});

// d. logprobs
await check('chat.completions.create with logprobs/top_logprobs=3', async () => {
  const r = await client.chat.completions.create({ ...chatReq(), logprobs: true, top_logprobs: 3 });
  const c = r.choices[0];
  assert.equal(c.message.content, chat.choices[0].message.content, 'content with logprobs != content without (temperature 0)');
  const lp = c.logprobs?.content;
  assert.ok(Array.isArray(lp), `choices[0].logprobs.content is not an array: ${show(c.logprobs)}`);
  const ct = r.usage.completion_tokens;
  let mode;
  if (lp.length === ct) mode = 'one entry per completion token';
  else if (lp.length === ct - 1) mode = 'one entry per completion token except the end-of-generation token';
  else assert.fail(`logprobs.content has ${lp.length} entries, usage.completion_tokens=${ct} (want ${ct} or ${ct - 1})`);
  lp.forEach((e, i) => {
    const where = `logprobs.content[${i}]=${show(e)}`;
    assert.equal(typeof e.token, 'string', `${where}: token not a string`);
    assert.ok(isNum(e.logprob) && e.logprob <= 0, `${where}: logprob not a number <= 0`);
    assert.ok(Array.isArray(e.bytes) && e.bytes.every((b) => Number.isInteger(b) && b >= 0 && b <= 255),
      `${where}: bytes not an array of byte values`);
    assert.ok(Array.isArray(e.top_logprobs) && e.top_logprobs.length === 3, `${where}: top_logprobs length != 3`);
    for (let j = 0; j < 3; j++) {
      const t = e.top_logprobs[j];
      assert.equal(typeof t.token, 'string', `${where}: top_logprobs[${j}].token not a string`);
      assert.ok(isNum(t.logprob) && t.logprob <= 0, `${where}: top_logprobs[${j}].logprob not a number <= 0`);
      if (j > 0) assert.ok(e.top_logprobs[j - 1].logprob >= t.logprob, `${where}: top_logprobs not sorted by descending logprob`);
    }
    assert.equal(e.token, e.top_logprobs[0].token, `${where}: greedy token != top_logprobs[0].token`);
    assert.ok(Math.abs(e.logprob - e.top_logprobs[0].logprob) <= 1e-6, `${where}: logprob != top_logprobs[0].logprob`);
    if (Buffer.from(e.bytes).toString('latin1') !== Buffer.from(e.token, 'utf8').toString('latin1')) {
      note(`logprobs.content[${i}].bytes is not the UTF-8 of token ${show(e.token)} (bytes=${show(e.bytes)})`);
    }
  });
  const content = c.message.content;
  let joined = lp.map((e) => e.token).join('');
  let how = 'tokens joined';
  if (joined !== content) {
    const viaBytes = Buffer.concat(lp.map((e) => Buffer.from(e.bytes))).toString('utf8');
    if (viaBytes === content) {
      how = 'bytes joined (token strings differ: partial UTF-8)';
      joined = viaBytes;
    }
  }
  assert.equal(joined, content, 'joined logprobs tokens != content');
  return `${lp.length} entries, completion_tokens=${ct}: ${mode}; ${how} == content`;
});

// e. completions (legacy)
let compText;
await check('completions.create (non-streamed)', async () => {
  const r = await client.completions.create({ model: MODEL, prompt: 'In the beginning', max_tokens: 8, temperature: 0 });
  assert.equal(r.object, 'text_completion', `object: ${show(r.object)}`);
  assert.ok(Array.isArray(r.choices) && r.choices.length >= 1, `choices: ${show(r.choices)}`);
  compText = r.choices[0].text;
  assert.equal(typeof compText, 'string', `choices[0].text is not a string: ${show(r.choices[0])}`);
  assert.ok(compText.length > 0, 'choices[0].text is empty');
  checkUsage(r.usage, 'completions');
  if (!['stop', 'length'].includes(r.choices[0].finish_reason)) note(`completions finish_reason is ${show(r.choices[0].finish_reason)}`);
  return `text=${show(compText)}`;
});

await check('completions.create (streamed)', async () => {
  const stream = await client.completions.create({
    model: MODEL, prompt: 'In the beginning', max_tokens: 8, temperature: 0, stream: true,
  });
  let text = '';
  let n = 0;
  const objects = new Set();
  for await (const chunk of stream) {
    n++;
    objects.add(chunk.object);
    const t = chunk.choices?.[0]?.text;
    if (typeof t === 'string') text += t;
  }
  assert.ok(n > 0, 'stream yielded no chunks');
  assert.equal(text, compText, 'streamed completion text != non-streamed text');
  if (objects.size !== 1 || !objects.has('text_completion')) {
    note(`streamed completion chunks have object ${show([...objects])}; OpenAI sends "text_completion"`);
  }
  return `${n} chunks`;
});

// f. embeddings
const embInput = ['the LORD is my shepherd', 'and God said'];
let floatEmb;
await check('embeddings.create encoding_format=float', async () => {
  const r = await client.embeddings.create({ model: MODEL, input: embInput, encoding_format: 'float' });
  assert.ok(Array.isArray(r.data) && r.data.length === 2, `data: want 2 entries, got ${show(r.data?.length)}`);
  const dim = r.data[0]?.embedding?.length;
  r.data.forEach((d, i) => {
    assert.equal(d.index, i, `data[${i}].index = ${show(d.index)}`);
    assert.ok(Array.isArray(d.embedding), `data[${i}].embedding is not an array: ${show(typeof d.embedding)}`);
    assert.ok(d.embedding.length > 0, `data[${i}].embedding is empty`);
    assert.equal(d.embedding.length, dim, 'embeddings have different lengths');
    assert.ok(d.embedding.every(isNum), `data[${i}].embedding has non-numbers`);
    const norm = Math.sqrt(d.embedding.reduce((s, x) => s + x * x, 0));
    assert.ok(Math.abs(norm - 1) <= 1e-3, `data[${i}].embedding L2 norm ${norm} not within 1e-3 of 1`);
    if (d.object !== 'embedding') note(`embeddings data[${i}].object is ${show(d.object)}, OpenAI sends "embedding"`);
  });
  assert.notDeepEqual(r.data[0].embedding, r.data[1].embedding, 'the two embeddings are identical');
  if (r.object !== 'list') note(`embeddings response object is ${show(r.object)}, OpenAI sends "list"`);
  if (!r.usage || !isNum(r.usage.prompt_tokens)) note(`embeddings response usage is ${show(r.usage)}`);
  floatEmb = r.data.map((d) => d.embedding);
  return `dim=${dim}`;
});

await check('embeddings.create without encoding_format (SDK requests base64)', async () => {
  const r = await client.embeddings.create({ model: MODEL, input: embInput });
  assert.ok(Array.isArray(r.data) && r.data.length === 2, `data: want 2 entries, got ${show(r.data?.length)}`);
  let maxDiff = 0;
  r.data.forEach((d, i) => {
    assert.equal(d.index, i, `data[${i}].index = ${show(d.index)}`);
    assert.ok(Array.isArray(d.embedding), `data[${i}].embedding is not an array after SDK base64 decoding`);
    assert.equal(d.embedding.length, floatEmb[i].length,
      `data[${i}] base64-decoded length ${d.embedding.length} != float length ${floatEmb[i].length} (server ignored encoding_format=base64?)`);
    assert.ok(d.embedding.every(isNum), `data[${i}].embedding has non-finite values after base64 decoding`);
    for (let k = 0; k < d.embedding.length; k++) maxDiff = Math.max(maxDiff, Math.abs(d.embedding[k] - floatEmb[i][k]));
  });
  // float32 round trip: values must agree to float32 precision.
  assert.ok(maxDiff <= 1e-6, `base64 (float32) embedding differs from float embedding by up to ${maxDiff}`);
  return `max |base64 - float| = ${maxDiff.toExponential(2)}`;
});

// g. errors
await check('unknown model -> OpenAI.NotFoundError (404)', async () => {
  const err = await client.chat.completions
    .create({ ...chatReq(), model: 'no-such-model' })
    .then((r) => assert.fail(`request succeeded: ${show(r)}`), (e) => e);
  assert.ok(err instanceof OpenAI.NotFoundError,
    `want NotFoundError, got ${err?.constructor?.name} status=${err?.status}: ${err?.message}`);
  assert.equal(err.status, 404);
  assert.ok(typeof err.error?.message === 'string' && err.error.message.length > 0,
    `error body has no error.message (OpenAI shape is {"error":{"message",...}}): ${show(err.error)}`);
  assert.ok(err.message.length > 0);
  if (err.error.type === undefined) note('404 error body has no error.type');
  return `message=${show(err.error.message)}`;
});

await check('empty messages -> OpenAI.BadRequestError (400)', async () => {
  const err = await client.chat.completions
    .create({ ...chatReq(), messages: [] })
    .then((r) => assert.fail(`request succeeded: ${show(r)}`), (e) => e);
  assert.ok(err instanceof OpenAI.BadRequestError,
    `want BadRequestError, got ${err?.constructor?.name} status=${err?.status}: ${err?.message}`);
  assert.equal(err.status, 400);
  assert.ok(typeof err.error?.message === 'string' && err.error.message.length > 0,
    `error body has no error.message (OpenAI shape is {"error":{"message",...}}): ${show(err.error)}`);
  if (err.error.type === undefined) note('400 error body has no error.type');
  return `message=${show(err.error.message)}`;
});

// h. isagi extension: unknown body keys are forwarded by the SDK as-is.
await check('isagi extension: body {isagi:{}} -> response.isagi.tok_s', async () => {
  const r = await client.chat.completions.create({ ...chatReq(), isagi: {} });
  assert.equal(r.object, 'chat.completion', `object: ${show(r.object)}`);
  assert.ok(r.isagi && typeof r.isagi === 'object', `response has no isagi object: ${show(r)}`);
  assert.ok(isNum(r.isagi.tok_s), `isagi.tok_s is not a number: ${show(r.isagi)}`);
  return `isagi=${show(r.isagi)}`;
});

// i. OpenAI fields the server cannot honour are refused (400 with param),
// not answered in plain text; those that ask for nothing pass.
async function refused(promise, param) {
  const err = await promise.then((r) => assert.fail(`request succeeded: ${show(r)}`), (e) => e);
  assert.ok(err instanceof OpenAI.BadRequestError,
    `want BadRequestError, got ${err?.constructor?.name} status=${err?.status}: ${err?.message}`);
  assert.equal(err.error?.param, param, `param: ${show(err.error)}`);
  assert.ok(typeof err.error.message === 'string' && err.error.message.length > 0, `no message: ${show(err.error)}`);
  return `message=${show(err.error.message)}`;
}

await check('response_format text accepted', async () => {
  const r = await client.chat.completions.create({ ...chatReq(), response_format: { type: 'text' } });
  assert.equal(r.choices[0].message.content, chat.choices[0].message.content, 'content with response_format text != without');
});

// Bounded values only (a boolean, an integer, an enum, at most three
// enums), so that even the demo model finishes the document within its
// tokens: the grammar decides the form, the model the content.
const boundedSchema = {
  type: 'object',
  properties: {
    ok: { type: 'boolean' },
    n: { type: 'integer' },
    colour: { enum: ['red', 'green', 'blue'] },
    tags: { type: 'array', items: { enum: ['a', 'b'] }, maxItems: 3 },
  },
  required: ['ok', 'n', 'colour', 'tags'],
  additionalProperties: false,
};

await check('response_format json_object: the reply is a JSON object when it ends', async () => {
  const r = await client.chat.completions.create({ ...chatReq(), max_tokens: 200, response_format: { type: 'json_object' } });
  const text = r.choices[0].message.content.trim();
  if (r.choices[0].finish_reason === 'stop') {
    const v = JSON.parse(text);
    assert.ok(v !== null && typeof v === 'object' && !Array.isArray(v), `not an object: ${show(text)}`);
  } else {
    assert.ok(text.startsWith('{'), `cut at the limit, not an object's start: ${show(text)}`);
  }
  return `finish=${r.choices[0].finish_reason} content=${show(text.slice(0, 60))}`;
});

await check('chat.completions.parse with a strict json_schema: message.parsed follows the schema', async () => {
  const r = await client.chat.completions.parse({
    ...chatReq(),
    max_tokens: 200,
    temperature: 1,
    seed: 5,
    response_format: { type: 'json_schema', json_schema: { name: 'bounded', strict: true, schema: boundedSchema } },
  });
  const m = r.choices[0].message;
  assert.equal(r.choices[0].finish_reason, 'stop', `finish_reason: ${show(r.choices[0])}`);
  const v = m.parsed;
  assert.deepEqual(Object.keys(v).sort(), ['colour', 'n', 'ok', 'tags'], `members: ${show(v)}`);
  assert.equal(typeof v.ok, 'boolean');
  assert.ok(Number.isInteger(v.n), `n: ${show(v.n)}`);
  assert.ok(['red', 'green', 'blue'].includes(v.colour), `colour: ${show(v.colour)}`);
  assert.ok(Array.isArray(v.tags) && v.tags.length <= 3 && v.tags.every((t) => t === 'a' || t === 'b'), `tags: ${show(v.tags)}`);
  return `parsed=${show(v)}`;
});

await check('json_schema streamed: the deltas join into a document of the schema', async () => {
  const s = await client.chat.completions.create({
    ...chatReq(),
    max_tokens: 200,
    stream: true,
    response_format: { type: 'json_schema', json_schema: { name: 'bounded', schema: boundedSchema } },
  });
  let text = '';
  let finish = null;
  for await (const ch of s) {
    text += ch.choices[0]?.delta?.content ?? '';
    finish = ch.choices[0]?.finish_reason ?? finish;
  }
  assert.equal(finish, 'stop');
  const v = JSON.parse(text);
  assert.deepEqual(Object.keys(v).sort(), ['colour', 'n', 'ok', 'tags'], `members: ${show(v)}`);
  return `content=${show(text)}`;
});

await check('json_schema with a keyword the grammar cannot hold -> BadRequestError naming it', async () => {
  const detail = await refused(client.chat.completions.create({
    ...chatReq(),
    response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'string', pattern: 'a+' } } },
  }), 'response_format.json_schema.schema');
  assert.ok(detail.includes('pattern'), detail);
  return detail;
});

await check('tools on a model without a chat template -> BadRequestError (param tools)', () =>
  refused(client.chat.completions.create({
    ...chatReq(),
    tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } }],
    tool_choice: 'auto',
  }), 'tools'));

await check('tool_choice required without tools -> BadRequestError (param tool_choice)', () =>
  refused(client.chat.completions.create({ ...chatReq(), tool_choice: 'required' }), 'tool_choice'));

const compReq = () => ({ model: MODEL, prompt: 'In the beginning', max_tokens: 8, temperature: 0 });

await check('completions echo: the prompt comes back before the reply', async () => {
  const r = await client.completions.create({ ...compReq(), echo: true });
  assert.equal(r.choices[0].text, 'In the beginning' + compText, `echoed text: ${show(r.choices[0].text)}`);
  const stream = await client.completions.create({ ...compReq(), echo: true, stream: true });
  let text = '';
  for await (const chunk of stream) text += chunk.choices?.[0]?.text ?? '';
  assert.equal(text, 'In the beginning' + compText, `streamed echoed text: ${show(text)}`);
});

await check('completions echo + logprobs -> BadRequestError (param echo)', () =>
  refused(client.completions.create({ ...compReq(), echo: true, logprobs: 2 }), 'echo'));

await check('completions suffix -> BadRequestError (param suffix)', () =>
  refused(client.completions.create({ ...compReq(), suffix: ' and the earth' }), 'suffix'));

await check('completions best_of 2 -> BadRequestError (param best_of); best_of 1 accepted', async () => {
  const msg = await refused(client.completions.create({ ...compReq(), best_of: 2 }), 'best_of');
  const r = await client.completions.create({ ...compReq(), best_of: 1 });
  assert.equal(r.choices[0].text, compText, 'best_of 1 text != text without it');
  return msg;
});

await check('a wrong-typed field -> one sentence naming it and the value', async () => {
  const msg = await refused(client.chat.completions.create({ ...chatReq(), temperature: 'abc' }), 'temperature');
  assert.equal(msg, `message=${show('"temperature" must be a number, got "abc"')}`);
  return msg;
});

await check('max_tokens 4096 over the window is lowered, with isagi.notes', async () => {
  const r = await client.completions.create({ ...compReq(), max_tokens: 4096 });
  assert.ok(Array.isArray(r.isagi?.notes) && r.isagi.notes.some((n) => n.startsWith('max_tokens 4096 was lowered to ')),
    `isagi.notes: ${show(r.isagi?.notes)}`);
  checkUsage(r.usage, 'clamped completion');
  return `notes=${show(r.isagi.notes)}`;
});

await check('completions logprobs: streamed text_offset == non-streamed', async () => {
  const r = await client.completions.create({ ...compReq(), logprobs: 1 });
  const want = r.choices[0].logprobs.text_offset;
  assert.equal(want[0], 'In the beginning'.length, `first offset: ${show(want)}`);
  const stream = await client.completions.create({ ...compReq(), logprobs: 1, stream: true });
  const got = [];
  for await (const chunk of stream) got.push(...(chunk.choices?.[0]?.logprobs?.text_offset ?? []));
  assert.deepEqual(got, want, 'streamed text_offset != non-streamed');
  return `offsets=${show(want)}`;
});

await check('GET /health -> {"status":"ok"}', async () => {
  const r = await fetch(new URL('/health', baseURL));
  assert.equal(r.status, 200);
  assert.deepEqual(await r.json(), { status: 'ok' });
});

// j. Tool calls, on the chat demo. Its template shows no tools (the
// server describes them in the system message); the arguments are bounded
// (enums) so that the tiny model finishes a call: the grammar decides the
// form, the model the content.
const chatURL = process.argv[3];
if (chatURL) {
  const tc = new OpenAI({ baseURL: chatURL, apiKey: process.env.ISAGI_API_KEY || 'none', maxRetries: 0, timeout: 60000 });
  const chatModel = (await tc.models.list()).data[0].id;
  const weatherParams = {
    type: 'object',
    properties: { city: { enum: ['Paris', 'Oslo'] }, unit: { enum: ['c', 'f'] } },
    required: ['city', 'unit'],
    additionalProperties: false,
  };
  const tools = [
    { type: 'function', function: { name: 'get_weather', description: 'The weather in a city.', parameters: weatherParams, strict: true } },
    { type: 'function', function: { name: 'now', description: 'The time.', parameters: { type: 'object', properties: {}, required: [], additionalProperties: false }, strict: true } },
  ];
  const toolReq = (extra) => ({
    model: chatModel,
    messages: [{ role: 'user', content: 'What is the weather in Oslo?' }],
    max_tokens: 200,
    temperature: 0,
    tools,
    parallel_tool_calls: false,
    ...extra,
  });
  const checkWeather = (args, what) => {
    const v = typeof args === 'string' ? JSON.parse(args) : args;
    assert.deepEqual(Object.keys(v).sort(), ['city', 'unit'], `${what}: ${show(v)}`);
    assert.ok(['Paris', 'Oslo'].includes(v.city) && ['c', 'f'].includes(v.unit), `${what}: ${show(v)}`);
    return v;
  };

  await check('tools: tool_choice required -> message.tool_calls, finish_reason tool_calls', async () => {
    const r = await tc.chat.completions.create(toolReq({ tool_choice: 'required' }));
    const c = r.choices[0];
    assert.equal(c.finish_reason, 'tool_calls', `finish_reason ${show(c.finish_reason)}`);
    assert.equal(c.message.tool_calls.length, 1, show(c.message));
    const call = c.message.tool_calls[0];
    assert.equal(call.type, 'function');
    assert.ok(typeof call.id === 'string' && call.id.length > 0, show(call));
    assert.ok(['get_weather', 'now'].includes(call.function.name), show(call));
    if (call.function.name === 'get_weather') checkWeather(call.function.arguments, 'arguments');
    else assert.deepEqual(JSON.parse(call.function.arguments), {});
    return `${call.function.name}(${call.function.arguments})`;
  });

  await check('tools: a named tool_choice, streamed; the SDK assembles the deltas into the call', async () => {
    const stream = tc.chat.completions.stream(toolReq({ tool_choice: { type: 'function', function: { name: 'get_weather' } }, temperature: 1, seed: 3 }));
    let argDeltas = 0;
    let done = null;
    stream.on('tool_calls.function.arguments.delta', () => { argDeltas++; });
    stream.on('tool_calls.function.arguments.done', (e) => { done = e; });
    const r = await stream.finalChatCompletion();
    const c = r.choices[0];
    assert.equal(c.finish_reason, 'tool_calls', `finish_reason ${show(c.finish_reason)}`);
    const call = c.message.tool_calls[0];
    assert.equal(call.function.name, 'get_weather', show(call));
    checkWeather(call.function.arguments, 'streamed arguments');
    assert.ok(argDeltas > 1, `the arguments came in ${argDeltas} delta(s), not in pieces`);
    assert.ok(done && done.name === 'get_weather' && done.index === 0, `arguments.done: ${show(done)}`);
    return `${argDeltas} argument deltas: ${call.function.arguments}`;
  });

  await check('tools: chat.completions.parse gives a strict tool call parsed_arguments', async () => {
    const r = await tc.chat.completions.parse(toolReq({ tool_choice: { type: 'function', function: { name: 'get_weather' } } }));
    const call = r.choices[0].message.tool_calls[0];
    checkWeather(call.function.parsed_arguments, 'parsed_arguments');
    return show(call.function.parsed_arguments);
  });

  for (const streamed of [false, true]) {
  await check(`tools: runTools${streamed ? ' (streamed)' : ''} calls the named tool, and its result goes back through the template`, async () => {
    const seen = [];
    const runner = tc.chat.completions.runTools({
      ...toolReq({ tool_choice: { type: 'function', function: { name: 'get_weather' } }, stream: streamed, seed: streamed ? 5 : 1 }),
      tools: [{
        type: 'function',
        function: {
          name: 'get_weather', description: 'The weather in a city.', parameters: weatherParams,
          parse: JSON.parse,
          function: (args) => { seen.push(args); return { temperature: 3, sky: 'snow' }; },
        },
      }],
    });
    await runner.done();
    assert.equal(seen.length, 1, `the tool ran ${seen.length} times`);
    checkWeather(seen[0], 'the tool\'s arguments');
    const msgs = runner.messages;
    assert.ok(msgs.some((m) => m.role === 'tool' && m.content.includes('snow')), `no tool result in ${show(msgs)}`);
    const after = await tc.chat.completions.create({ model: chatModel, messages: msgs, max_tokens: 16, temperature: 0, tools });
    assert.equal(typeof after.choices[0].message.content === 'string' || after.choices[0].message.tool_calls?.length > 0, true, show(after.choices[0]));
    return `tool(${show(seen[0])}), then ${show(after.choices[0].finish_reason)}`;
  });
  }

  await check('tools: a tool_choice naming a tool not offered -> BadRequestError (param tool_choice)', () =>
    refused(tc.chat.completions.create(toolReq({ tool_choice: { type: 'function', function: { name: 'nope' } } })), 'tool_choice'));
}

console.log(`ok - all ${passed} checks${notes.length ? ` (${notes.length} note(s))` : ''}`);
process.exit(0);
