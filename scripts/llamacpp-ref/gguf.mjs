// A minimal GGUF metadata reader: just enough to learn a fixture's
// vocabulary and tokenizer flags without trusting anything but the file.
// It reads the header and the key/value section only; tensor data is never
// touched.
import { openSync, readSync, closeSync, fstatSync } from 'node:fs'

const T = {
  UINT8: 0, INT8: 1, UINT16: 2, INT16: 3, UINT32: 4, INT32: 5, FLOAT32: 6,
  BOOL: 7, STRING: 8, ARRAY: 9, UINT64: 10, INT64: 11, FLOAT64: 12,
}

// Reader pulls bytes from a file descriptor in chunks, so that a metadata
// section larger than any guess still parses.
class Reader {
  constructor(fd, size) {
    this.fd = fd
    this.size = size
    this.pos = 0
    this.buf = Buffer.alloc(0)
    this.bufStart = 0
  }

  need(n) {
    const off = this.pos - this.bufStart
    if (off + n <= this.buf.length) return off
    const want = Math.max(n, 1 << 20)
    const b = Buffer.alloc(Math.min(want, this.size - this.pos))
    if (b.length < n) throw new Error(`gguf: truncated at byte ${this.pos}`)
    readSync(this.fd, b, 0, b.length, this.pos)
    this.buf = b
    this.bufStart = this.pos
    return 0
  }

  u8() { const o = this.need(1); this.pos += 1; return this.buf.readUInt8(o) }
  i8() { const o = this.need(1); this.pos += 1; return this.buf.readInt8(o) }
  u16() { const o = this.need(2); this.pos += 2; return this.buf.readUInt16LE(o) }
  i16() { const o = this.need(2); this.pos += 2; return this.buf.readInt16LE(o) }
  u32() { const o = this.need(4); this.pos += 4; return this.buf.readUInt32LE(o) }
  i32() { const o = this.need(4); this.pos += 4; return this.buf.readInt32LE(o) }
  f32() { const o = this.need(4); this.pos += 4; return this.buf.readFloatLE(o) }
  f64() { const o = this.need(8); this.pos += 8; return this.buf.readDoubleLE(o) }
  u64() { const o = this.need(8); this.pos += 8; return Number(this.buf.readBigUInt64LE(o)) }
  i64() { const o = this.need(8); this.pos += 8; return Number(this.buf.readBigInt64LE(o)) }

  bytes(n) { const o = this.need(n); this.pos += n; return Buffer.from(this.buf.subarray(o, o + n)) }
  str() { return this.bytes(this.u64()).toString('utf8') }

  value(type) {
    switch (type) {
      case T.UINT8: return this.u8()
      case T.INT8: return this.i8()
      case T.UINT16: return this.u16()
      case T.INT16: return this.i16()
      case T.UINT32: return this.u32()
      case T.INT32: return this.i32()
      case T.FLOAT32: return this.f32()
      case T.BOOL: return this.u8() !== 0
      case T.STRING: return this.str()
      case T.UINT64: return this.u64()
      case T.INT64: return this.i64()
      case T.FLOAT64: return this.f64()
      case T.ARRAY: {
        const et = this.u32()
        const n = this.u64()
        const out = new Array(n)
        for (let i = 0; i < n; i++) out[i] = this.value(et)
        return out
      }
      default: throw new Error(`gguf: unknown value type ${type} at byte ${this.pos}`)
    }
  }
}

// readMeta returns the file's metadata as an ordered Map (key → value) and
// its tensor infos [{name, dims, type}], in file order.
export function readMeta(path) {
  const fd = openSync(path, 'r')
  try {
    const r = new Reader(fd, fstatSync(fd).size)
    if (r.bytes(4).toString('latin1') !== 'GGUF') throw new Error(`${path}: not a GGUF file`)
    const version = r.u32()
    if (version !== 3) throw new Error(`${path}: GGUF version ${version}, want 3`)
    const nTensors = r.u64()
    const nKV = r.u64()
    const kv = new Map()
    for (let i = 0; i < nKV; i++) {
      const key = r.str()
      kv.set(key, r.value(r.u32()))
    }
    const tensors = []
    for (let i = 0; i < nTensors; i++) {
      const name = r.str()
      const nd = r.u32()
      const dims = []
      for (let d = 0; d < nd; d++) dims.push(r.u64())
      const type = r.u32()
      r.u64() // offset
      tensors.push({ name, dims, type })
    }
    return { kv, tensors }
  } finally {
    closeSync(fd)
  }
}

// gpt2ByteDecoder maps the printable stand-in characters of GPT-2's
// bytes_to_unicode back to bytes (the fixtures' byte-level BPE vocabularies).
export function gpt2ByteDecoder() {
  const bs = []
  for (let b = 0x21; b <= 0x7e; b++) bs.push(b)
  for (let b = 0xa1; b <= 0xac; b++) bs.push(b)
  for (let b = 0xae; b <= 0xff; b++) bs.push(b)
  const cs = [...bs]
  let n = 0
  for (let b = 0; b < 256; b++) {
    if (!bs.includes(b)) {
      bs.push(b)
      cs.push(256 + n)
      n++
    }
  }
  const dec = new Map()
  bs.forEach((b, i) => dec.set(String.fromCodePoint(cs[i]), b))
  return dec
}
