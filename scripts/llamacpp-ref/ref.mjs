#!/usr/bin/env node
// Reference outputs of llama.cpp, through @fugood/llama.node, for ISAGI's
// synthetic architecture fixtures (internal/testkit/archgen).
//
//   node ref.mjs golden DIR OUT.json   run every model listed in DIR/index.json
//                                      (written by `go run ./internal/testkit/archgen/gen
//                                      -out DIR [-set moe] -ablations`) and write the golden file
//   node ref.mjs check ARCHS_DIR       run the harness on the older fixtures in
//                                      ARCHS_DIR (gemma2, qwen3) and compare with
//                                      ARCHS_DIR/golden.json
//
// Every llama.cpp call uses a fresh context: llama.node keeps KV prefixes and
// sampler state between completions in one context. Each model file is run
// in a child process so that llama.cpp's load log (stderr) can be kept as
// evidence of what it read from the file (print_info lines, warnings).
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, basename } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gpt2ByteDecoder, readMeta } from './gguf.mjs'

const SELF = fileURLToPath(import.meta.url)
const PKG = JSON.parse(readFileSync(new URL('./node_modules/@fugood/llama.node/package.json', import.meta.url)))
const PINNED = JSON.parse(readFileSync(new URL('./package.json', import.meta.url))).dependencies['@fugood/llama.node']
if (PKG.version !== PINNED) {
  // The goldens name one llama.cpp build; a stale node_modules would
  // silently produce another's outputs.
  throw new Error(`node_modules has @fugood/llama.node ${PKG.version}, package.json pins ${PINNED}: run npm ci`)
}

// The prompts of shared/fixtures/archs/golden.json, so the two golden files
// can be read side by side.
export const PROMPTS = [
  'Hello world',
  'In 2024, 1000 people paid 3.14159 each.',
  'Wait... what?! (yes, no) -- "ok"; it\'s [done] {x: 1}',
  'The quick brown fox jumps over the lazy dog, and then it runs into the forest to find the other animals.',
]

export const N_PREDICT = 32

export const LOAD_OPTIONS = {
  n_ctx: 256,
  n_batch: 256,
  n_gpu_layers: 0,
  n_threads: 1,
  n_parallel: 1,
  // f32 KV and no flash attention: the closest llama.cpp gets to plain f32
  // arithmetic, which is what a Go engine does.
  cache_type_k: 'f32',
  cache_type_v: 'f32',
  flash_attn_type: 'off',
}

// llama.node's defaults turn DRY and XTC on and penalise repeats; every
// sampler but the argmax is switched off here.
const NO_SAMPLERS = {
  top_p: 1,
  min_p: 0,
  typical_p: 1,
  penalty_repeat: 1,
  penalty_last_n: 0,
  penalty_freq: 0,
  penalty_present: 0,
  dry_multiplier: 0,
  xtc_probability: 0,
  top_n_sigma: -1,
  mirostat: 0,
}

export const GREEDY_OPTIONS = { temperature: 0, top_k: 1, ...NO_SAMPLERS, ignore_eos: true, n_probs: 1, seed: 0 }

// A probe is a 1-token completion at temperature 1 with no truncation: the
// n_probs candidates it reports are then llama.cpp's softmax over the whole
// vocabulary. EOS is not ignored, because ignoring it biases the EOG logits
// to -inf and would renormalise the distribution.
export const PROBE_OPTIONS = { temperature: 1, top_k: 0, ...NO_SAMPLERS, ignore_eos: false, seed: 1 }

const TOP_N = 20

// ---------------------------------------------------------------------------
// Vocabulary: GPT-2 byte-level BPE, as every fixture uses (gguf.mjs's
// gpt2ByteDecoder maps its stand-in characters back to bytes).

// vocabOf reads what the harness needs from a GGUF: token bytes, the piece
// llama.node prints for each token (so its output can be mapped back to
// ids), and the BOS rule.
export function vocabOf(path) {
  const { kv, tensors } = readMeta(path)
  const model = kv.get('tokenizer.ggml.model')
  if (model !== 'gpt2') throw new Error(`${path}: tokenizer ${model}, this harness knows gpt2 only`)
  const tokens = kv.get('tokenizer.ggml.tokens')
  const types = kv.get('tokenizer.ggml.token_type')
  const dec = gpt2ByteDecoder()
  const bytes = []
  const pieceToId = new Map()
  tokens.forEach((t, id) => {
    let piece
    if (types[id] === 3) {
      bytes.push(null) // control tokens are text, not bytes
      piece = t
    } else {
      const b = Buffer.from([...t].map((c) => {
        const v = dec.get(c)
        if (v === undefined) throw new Error(`${path}: token ${id} ${JSON.stringify(t)} is not byte-level`)
        return v
      }))
      bytes.push(b)
      if (b.length === 1 && b[0] >= 0x80) {
        // llama.node's rendering of a lone non-UTF-8 byte.
        piece = `byte: \\x${b[0].toString(16).padStart(2, '0')}`
      } else {
        const s = new TextDecoder('utf-8', { fatal: false }).decode(b)
        if (s.includes('\ufffd')) throw new Error(`${path}: token ${id} is not valid UTF-8; its piece would be ambiguous`)
        piece = s
      }
    }
    if (pieceToId.has(piece)) throw new Error(`${path}: tokens ${pieceToId.get(piece)} and ${id} print the same piece`)
    pieceToId.set(piece, id)
  })
  const arch = kv.get('general.architecture')
  return {
    arch,
    kv,
    tensors,
    nVocab: tokens.length,
    bytes,
    pieceToId,
    addBos: kv.get('tokenizer.ggml.add_bos_token') === true,
    bosId: kv.get('tokenizer.ggml.bos_token_id'),
    eosId: kv.get('tokenizer.ggml.eos_token_id'),
    controlIds: types.flatMap((t, id) => (t === 3 ? [id] : [])),
  }
}

function idOf(vocab, piece) {
  const id = vocab.pieceToId.get(piece)
  if (id === undefined) throw new Error(`llama.node printed an unknown piece ${JSON.stringify(piece)}`)
  return id
}

// textOf is the UTF-8 text of ids, or null when their bytes are not valid
// UTF-8 (such a prefix cannot be passed to llama.node as a prompt).
function textOf(vocab, ids) {
  const parts = ids.map((id) => vocab.bytes[id])
  if (parts.some((b) => b === null)) return null
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(parts))
  } catch {
    return null
  }
}

const round = (x, q) => Math.round(x / q) * q
const r6 = (x) => Number(round(x, 1e-6).toFixed(6))

// ---------------------------------------------------------------------------
// Worker: everything llama.cpp does for one file, in its own process.

async function worker(file, jobPath, outPath) {
  const job = JSON.parse(readFileSync(jobPath, 'utf8'))
  const { loadModel } = await import('@fugood/llama.node')
  const vocab = vocabOf(file)
  const fresh = () => loadModel({ model: file, ...LOAD_OPTIONS })

  const tokenize = async (text) => {
    const ctx = await fresh()
    try {
      return Array.from((await ctx.tokenize(text)).tokens)
    } finally {
      await ctx.release()
    }
  }

  const complete = async (prompt, opts) => {
    const ctx = await fresh()
    try {
      const r = await ctx.completion({ prompt, ...opts })
      // llama.node hands each generated token's probabilities to JS through a
      // thread-safe callback that may still be queued when the completion's
      // promise resolves; releasing the context first makes that callback
      // read a freed vocabulary (SIGSEGV in llama_vocab token_to_piece).
      // Letting the event loop drain first avoids it.
      await new Promise((res) => setTimeout(res, 10))
      return r
    } finally {
      await ctx.release()
    }
  }

  // probe returns llama.cpp's whole next-token distribution after text, as
  // probabilities indexed by token id.
  const probe = async (text, nEvaluated) => {
    const r = await complete(text, { ...PROBE_OPTIONS, n_predict: 1, n_probs: vocab.nVocab })
    if (r.tokens_evaluated !== nEvaluated) {
      throw new Error(`${file}: probe evaluated ${r.tokens_evaluated} tokens, want ${nEvaluated}`)
    }
    const cands = r.completion_probabilities[0].probs
    if (cands.length !== vocab.nVocab) throw new Error(`${file}: probe returned ${cands.length} candidates, want ${vocab.nVocab}`)
    const p = new Array(vocab.nVocab).fill(null)
    for (const c of cands) p[idOf(vocab, c.tok_str)] = c.prob
    if (p.includes(null)) throw new Error(`${file}: probe missed a token`)
    return p
  }

  const ranked = (p) => p.map((x, id) => [id, x]).sort((a, b) => b[1] - a[1] || a[0] - b[0])

  const cases = []
  for (const prompt of job.prompts) {
    const textIds = await tokenize(prompt)
    const promptIds = vocab.addBos ? [vocab.bosId, ...textIds] : textIds

    const g = await complete(prompt, { ...GREEDY_OPTIONS, n_predict: job.n_predict })
    const greedy = g.completion_probabilities.map((c) => idOf(vocab, c.content))
    if (greedy.length !== job.n_predict) throw new Error(`${file}: ${greedy.length} greedy tokens, want ${job.n_predict}`)
    // llama.cpp evaluates the prompt and every generated token but the last:
    // this pins prompt_ids (BOS included) to what it really ran.
    if (g.tokens_evaluated !== promptIds.length + job.n_predict - 1) {
      throw new Error(`${file}: evaluated ${g.tokens_evaluated} tokens, want ${promptIds.length + job.n_predict - 1} (BOS rule?)`)
    }
    const c = { prompt, prompt_ids: promptIds, greedy_ids: greedy, greedy_text: g.text }
    if (!job.probe) {
      cases.push(c)
      continue
    }

    // Step 0, and every later step k whose text prefix re-tokenizes to
    // exactly prompt + greedy[0..k): there a text prompt reproduces the
    // greedy run's context, so a probe shows the distribution it sampled.
    const margins = new Array(job.n_predict).fill(null)
    for (let k = 0; k < job.n_predict; k++) {
      const gen = textOf(vocab, greedy.slice(0, k))
      if (gen === null) continue
      const text = prompt + gen
      if (k > 0) {
        const ids = await tokenize(text)
        const want = [...textIds, ...greedy.slice(0, k)]
        if (ids.length !== want.length || ids.some((x, i) => x !== want[i])) continue
      }
      const p = await probe(text, promptIds.length + k)
      const r = ranked(p)
      if (r[0][0] !== greedy[k]) {
        throw new Error(`${file}: probe at step ${k} ranks ${r[0][0]} first, the greedy run chose ${greedy[k]}`)
      }
      margins[k] = r6(Math.log(r[0][1] / r[1][1]))
      if (k === 0) {
        c.first_step_top = r.slice(0, TOP_N)
        c.first_step_logprobs = p.map((x) => (x > 0 ? r6(Math.log(x)) : null))
      }
    }
    c.top2_logit_margin = margins
    c.probed_steps = margins.flatMap((m, k) => (m === null ? [] : [k]))
    cases.push(c)
  }
  writeFileSync(outPath, JSON.stringify({ cases }))
}

// ---------------------------------------------------------------------------
// Parent side.

// runFile runs the worker on one file and returns its cases plus the lines
// of llama.cpp's load log that describe how it read the file.
function runFile(file, job, set) {
  const dir = mkdtempSync(join(tmpdir(), 'llamacpp-ref-'))
  try {
    const jobPath = join(dir, 'job.json')
    const outPath = join(dir, 'out.json')
    writeFileSync(jobPath, JSON.stringify(job))
    const r = spawnSync(process.execPath, [SELF, 'worker', file, jobPath, outPath], {
      encoding: 'utf8',
      maxBuffer: 1 << 30,
    })
    if (r.status !== 0) {
      const err = new Error(`worker for ${file} failed (status ${r.status}, signal ${r.signal}, error ${r.error}):\n${(r.stderr || '').slice(-4000)}`)
      err.stderr = r.stderr || ''
      throw err
    }
    const out = JSON.parse(readFileSync(outPath, 'utf8'))
    out.load_log = loadLog(r.stderr, set)
    return out
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

// loadLog keeps the first model load's hyper-parameter report, per-layer
// SWA flags and any warning about the architecture: the evidence of what
// llama.cpp made of the file's keys.
// The MoE set also keeps the expert and YaRN lines (the archs2 golden file
// predates them and stays byte-identical).
const MOE_LOG =
  /^print_info: (file type|n_ff_exp|n_expert|n_expert_used|expert_weights_scale|expert_weights_norm|expert_gating_func|n_ctx_orig_yarn|rope_yarn_log_mul)\s/

function loadLog(stderr, set) {
  const lines = stderr.split('\n')
  const out = []
  const seen = new Set()
  for (const line of lines) {
    const keep =
      (set === 'moe' && (MOE_LOG.test(line) || /yarn_attn_factor/.test(line))) ||
      /^print_info: (arch|n_ctx_train|n_layer|n_head|n_head_kv|n_rot|n_swa|is_swa_any|n_embd_head_k|n_embd_head_v|f_attn_scale|n_ff|rope type|rope scaling|freq_base_train|freq_scale_train|freq_base_swa|freq_scale_swa|n_rot_swa|n_ctx_orig_yarn|BOS token|EOS token|EOT token|EOG token)\s/.test(line) ||
      /^load_tensors: layer +\d+ .*is_swa/.test(line) ||
      /^llama_context: (n_ctx_seq|freq_base|freq_scale) /.test(line) ||
      /^llama_kv_cache_iswa: creating/.test(line) ||
      /^load_arch_hparams: /.test(line) ||
      /SWA is currently disabled/.test(line)
    if (keep && !seen.has(line)) {
      seen.add(line)
      out.push(line.trimEnd())
    }
  }
  return out
}

// llamaCppFacts states what llama.cpp did with the file's less obvious
// keys, from its own load log and its rule for LongRoPE.
function llamaCppFacts(v, log) {
  const facts = {}
  const nLayer = v.kv.get(`${v.arch}.block_count`)
  const swa = []
  for (const line of log) {
    const m = /^load_tensors: layer +(\d+) .*is_swa = 1/.exec(line)
    if (m && Number(m[1]) < nLayer) swa.push(Number(m[1]))
  }
  facts.llama_cpp_swa_layers = swa
  const n = (re) => {
    const line = log.find((l) => re.test(l))
    return line === undefined ? null : Number(line.split('=').pop().trim())
  }
  facts.llama_cpp_rope = {
    n_rot: n(/^print_info: n_rot  /),
    freq_base: n(/^llama_context: freq_base /),
    freq_scale: n(/^llama_context: freq_scale /),
    freq_base_swa: swa.length ? n(/^print_info: freq_base_swa /) : null,
    freq_scale_swa: swa.length ? n(/^print_info: freq_scale_swa /) : null,
  }
  if (v.kv.get(`${v.arch}.expert_count`) !== undefined) facts.llama_cpp_moe = moeFacts(v, log)
  if (v.kv.get(`${v.arch}.rope.scaling.type`) === 'yarn') facts.llama_cpp_yarn = yarnFacts(v, facts.llama_cpp_rope)
  if (v.tensors.some((t) => t.name === 'rope_factors_long.weight')) {
    // llama_model::get_rope_factors: the long factors when the context per
    // sequence exceeds rope.scaling.original_context_length (n_ctx_orig_yarn,
    // which defaults to context_length), else the short ones. The choice
    // depends on the context size, not on the position.
    const orig = v.kv.get(`${v.arch}.rope.scaling.original_context_length`) ?? v.kv.get(`${v.arch}.context_length`)
    const nCtxSeq = LOAD_OPTIONS.n_ctx / LOAD_OPTIONS.n_parallel
    facts.longrope = {
      n_ctx_seq: nCtxSeq,
      original_context_length: orig,
      factors_applied: nCtxSeq > orig ? 'long' : 'short',
      attn_factor: v.kv.get(`${v.arch}.rope.scaling.attn_factor`) ?? 1,
    }
  }
  return facts
}

// moeFacts states how llama.cpp routes tokens for the file's architecture
// (build_moe_ffn's arguments in src/models/*.cpp), with the counts its load
// log reports.
function moeFacts(v, log) {
  const n = (re) => {
    const line = log.find((l) => re.test(l))
    return line === undefined ? null : Number(line.split('=').pop().trim())
  }
  const gating = {
    qwen3moe: 'softmax over all experts, top k, weights renormalised to sum 1 (SOFTMAX, norm_w true); SwiGLU experts',
    llama: 'softmax over all experts, top k, weights renormalised to sum 1 (SOFTMAX, norm_w true); SwiGLU experts',
    'gpt-oss':
      'router logits + ffn_gate_inp.bias, top k of the logits, softmax over the k (SOFTMAX_WEIGHT, norm_w false); ' +
      'experts: g = gate·x + b_g, u = up·x + b_u, g = min(g, 7), u = clamp(u, -7, 7), y = g·sigmoid(1.702 g)·(u + 1), down·y + b_d',
  }[v.arch]
  return {
    n_expert: n(/^print_info: n_expert  /),
    n_expert_used: n(/^print_info: n_expert_used /),
    n_ff_exp: n(/^print_info: n_ff_exp /) ?? n(/^print_info: n_ff  /),
    gating: gating ?? null,
  }
}

// yarnFacts restates, for a YaRN file, what llama.cpp's context and ggml's
// CPU rope compute (llama-context.cpp, ggml-cpu/ops.cpp rope_yarn,
// ggml_rope_yarn_corr_dims): the ramp's pair range and the cos/sin scale.
function yarnFacts(v, rope) {
  const factor = v.kv.get(`${v.arch}.rope.scaling.factor`)
  const orig = v.kv.get(`${v.arch}.rope.scaling.original_context_length`) ?? v.kv.get(`${v.arch}.context_length`)
  const nDims = v.kv.get(`${v.arch}.rope.dimension_count`) ?? v.kv.get(`${v.arch}.attention.key_length`)
  const base = rope.freq_base
  const betaFast = 32
  const betaSlow = 1
  const corr = (nRot) => (nDims * Math.log(orig / (nRot * 2 * Math.PI))) / (2 * Math.log(base))
  const f32 = Math.fround
  return {
    factor,
    n_ctx_orig_yarn: orig,
    freq_scale: rope.freq_scale,
    ext_factor: 1,
    beta_fast: betaFast,
    beta_slow: betaSlow,
    // Pairs i (dims 2i, 2i+1 of NEOX's halves: i < n_rot/2) below corr_dims[0]
    // keep the unscaled angle, pairs at or above corr_dims[1] the angle ×
    // freq_scale, and a linear ramp in between.
    corr_dims: [Math.max(0, Math.floor(corr(betaFast))), Math.min(nDims - 1, Math.ceil(corr(betaSlow)))],
    // llama_context sets yarn_attn_factor = (1 + 0.1 ln s) / (1 + 0.1 ln s)
    // × rope.scaling.attn_factor (1 here) and ggml's rope_yarn multiplies it
    // by 1 + 0.1 ln s again: cos and sin are scaled by 1 + 0.1 ln s.
    cos_sin_scale: Number(f32(1 + f32(0.1) * f32(Math.log(factor))).toPrecision(8)),
    applies_to: 'every layer (sliding layers use the same freq_base and freq_scale)',
  }
}

function sha256(path) {
  return createHash('sha256').update(readFileSync(path)).digest('hex')
}

function llamaCppInfo() {
  const v = readFileSync(new URL('./node_modules/@fugood/llama.node/lib/version.js', import.meta.url), 'utf8')
  const num = /BUILD_NUMBER = '([^']+)'/.exec(v)
  const commit = /BUILD_COMMIT = '([^']+)'/.exec(v)
  return { build_number: num && num[1], commit: commit && commit[1] }
}

function firstDiff(a, b) {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return i
  return a.length === b.length ? null : Math.min(a.length, b.length)
}

function golden(dir, outPath) {
  const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8'))
  const set = index.set ?? 'archs2'
  const models = {}
  const ablations = {}
  const t0 = Date.now()
  for (const m of index.models) {
    const file = join(dir, m.file)
    const sum = sha256(file)
    if (sum !== m.sha256) throw new Error(`${file}: sha256 ${sum}, index.json says ${m.sha256}`)
    const v = vocabOf(file)
    const isAblation = m.ablation_of !== undefined
    const job = { prompts: PROMPTS, n_predict: N_PREDICT, probe: !isAblation }
    if (m.same_as !== undefined) {
      // The same weights as another fixture in a layout llama.cpp may no
      // longer read: its outputs must equal that fixture's.
      const base = models[m.same_as]
      if (!base) throw new Error(`${m.name}: same as ${m.same_as}, which index.json must list first`)
      const entry = { file: m.file, sha256: sum, bytes: readFileSync(file).length, arch: v.arch, ...m.info, same_as: m.same_as }
      try {
        const out = runFile(file, job, set)
        entry.llama_cpp_loads = true
        entry.cases = out.cases
        entry.same_outputs = out.cases.every((c, i) => JSON.stringify(c.greedy_ids) === JSON.stringify(base.cases[i].greedy_ids))
      } catch (e) {
        const line = (e.stderr ?? '').split('\n').find((l) => /error loading model/.test(l))
        if (line === undefined) throw e
        entry.llama_cpp_loads = false
        entry.llama_cpp_load_error = line.trim()
        entry.cases_from = m.same_as
        entry.cases = base.cases
      }
      process.stderr.write(`${m.name}: ${((Date.now() - t0) / 1000).toFixed(1)} s\n`)
      models[m.name] = entry
      continue
    }
    const out = runFile(file, job, set)
    process.stderr.write(`${m.name}: ${((Date.now() - t0) / 1000).toFixed(1)} s\n`)
    const entry = {
      file: m.file,
      sha256: sum,
      bytes: readFileSync(file).length,
      arch: v.arch,
      ...m.info,
      n_vocab: v.nVocab,
      add_bos: v.addBos,
      bos_id: v.bosId,
      eos_id: v.eosId,
      control_token_ids: v.controlIds,
      ...llamaCppFacts(v, out.load_log),
      llama_cpp_load_log: out.load_log,
    }
    if (!isAblation) {
      entry.cases = out.cases
      models[m.name] = entry
      continue
    }
    const base = models[m.ablation_of]
    if (!base) throw new Error(`${m.name}: ablation of ${m.ablation_of}, which index.json must list first`)
    entry.ablation_of = m.ablation_of
    entry.first_differing_step = out.cases.map((c, i) => firstDiff(c.greedy_ids, base.cases[i].greedy_ids))
    delete entry.llama_cpp_load_log
    ablations[m.name] = entry
  }
  const doc = {
    description:
      set === 'moe'
        ? 'Reference outputs of llama.cpp for the synthetic mixture-of-experts GGUF files (qwen3moe, Mixtral as llama, gpt-oss) that internal/testkit/archgen writes. See README.md.'
        : 'Reference outputs of llama.cpp for the synthetic gemma3/phi3 GGUF files that internal/testkit/archgen writes. See README.md.',
    llama_node: `${PKG.name}@${PKG.version}`,
    llama_cpp: llamaCppInfo(),
    generator: index.generator,
    load_options: LOAD_OPTIONS,
    greedy_options: GREEDY_OPTIONS,
    probe_options: { ...PROBE_OPTIONS, n_probs: 'n_vocab' },
    n_predict: N_PREDICT,
    prompts: PROMPTS,
    models,
    ablations,
  }
  writeFileSync(outPath, JSON.stringify(doc, null, 1) + '\n')
  process.stderr.write(`wrote ${outPath}\n`)
}

// check runs the harness on the older archs fixtures and compares prompt
// ids, greedy ids and first-step probabilities with their golden file.
function check(archsDir) {
  const g = JSON.parse(readFileSync(join(archsDir, 'golden.json'), 'utf8'))
  let agree = 0
  let total = 0
  const lines = []
  for (const variant of ['gemma2', 'qwen3']) {
    for (const kind of ['f32', 'f16']) {
      const spec = g.variants[variant]
      const file = join(archsDir, spec.files[kind])
      const out = runFile(file, { prompts: g.prompts, n_predict: g.n_predict, probe: true })
      out.cases.forEach((c, i) => {
        const want = spec.cases[i]
        const idsOK = JSON.stringify(c.prompt_ids) === JSON.stringify(want.prompt_ids)
        const greedyOK = JSON.stringify(c.greedy_ids) === JSON.stringify(want[kind].greedy_ids)
        let dp = 0
        for (const [id, p] of want[kind].first_step_top5) {
          const got = c.first_step_top.find((x) => x[0] === id)
          dp = Math.max(dp, got ? Math.abs(got[1] - p) : Infinity)
        }
        // Steps probed by both harnesses, and the largest margin difference.
        const wm = want[kind].top2_logit_margin_llamacpp
        let both = 0
        let dm = 0
        c.top2_logit_margin.forEach((m, k) => {
          if (m !== null && wm[k] !== null) {
            both++
            dm = Math.max(dm, Math.abs(m - wm[k]))
          }
        })
        const probedHere = c.probed_steps.length
        const probedThere = wm.filter((m) => m !== null).length
        const marginLine = (`  probed steps: ${probedHere} here, ${probedThere} in the golden, ${both} in both (max |Δmargin| ${dm.toExponential(2)})`)
        total++
        if (idsOK && greedyOK) agree++
        lines.push(`${basename(file)} prompt ${i}: prompt_ids ${idsOK ? 'equal' : 'DIFFER'}, greedy_ids ${greedyOK ? 'equal' : `DIFFER at ${firstDiff(c.greedy_ids, want[kind].greedy_ids)}`}, first-step top-5 max |Δp| ${dp.toExponential(2)}`, marginLine)
      })
    }
  }
  console.log(lines.join('\n'))
  console.log(`${agree}/${total} runs reproduce the archs golden (prompt ids and all ${g.n_predict} greedy ids)`)
  if (agree !== total) process.exitCode = 1
}

const [cmd, ...args] = process.argv.slice(2)
switch (cmd) {
  case 'worker':
    await worker(...args)
    break
  case 'golden':
    if (args.length !== 2) throw new Error('usage: ref.mjs golden DIR OUT.json')
    golden(...args)
    break
  case 'check':
    if (args.length !== 1) throw new Error('usage: ref.mjs check ARCHS_DIR')
    check(args[0])
    break
  default:
    console.error('usage: ref.mjs golden DIR OUT.json | ref.mjs check ARCHS_DIR')
    process.exitCode = 2
}
