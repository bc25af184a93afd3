/**
 * The MessagePack subset of OpenTofu's DynamicValue wire format (docs/plugin-protocol/
 * object-wire-format.md in OpenTofu): nil, booleans, integers, floats, strings, arrays and maps,
 * plus the extension OpenTofu uses for a value not known until apply (type 0; type 12 carries
 * refinements of such a value, which this provider does not need). Numbers OpenTofu cannot fit in
 * a float64 arrive as strings and are read back with Number().
 */

/** A value not known until apply. */
export const UNKNOWN_VALUE: unique symbol = Symbol("unknown");
export type MsgValue =
  null | boolean | number | string | typeof UNKNOWN_VALUE | MsgValue[] | { [key: string]: MsgValue };
/** An OpenTofu object: its attributes by HCL name. */
export type TfObject = { [key: string]: MsgValue };

const UNKNOWN_EXTS = new Set([0, 12]);

/**
 * The encoder's output, grown as needed and kept between calls (each call copies its bytes out):
 * one buffer written in place instead of a small Buffer per tag.
 */
let out = Buffer.allocUnsafe(4096);
let at = 0;

function room(n: number): void {
  if (at + n <= out.length) return;
  const bigger = Buffer.allocUnsafe(Math.max(out.length * 2, at + n));
  out.copy(bigger, 0, 0, at);
  out = bigger;
}

/** A length as its one-byte form (`small` + len, when given and len < 16), else 16 or 32 bits after a tag. */
function writeLength(len: number, small: number | undefined, tag16: number, tag32: number): void {
  room(5);
  if (small !== undefined && len < 16) out[at++] = small + len;
  else if (len < 0x10000) {
    out[at++] = tag16;
    out[at++] = len >> 8;
    out[at++] = len & 0xff;
  } else {
    out[at++] = tag32;
    out.writeUInt32BE(len, at);
    at += 4;
  }
}

function writeString(v: string): void {
  // At most 3 bytes per UTF-16 unit: room for the longest encoding, written in place.
  room(5 + v.length * 3);
  if (v.length < 32 && writeShortAscii(v)) return;
  const len = Buffer.byteLength(v, "utf8");
  if (len < 32) out[at++] = 0xa0 + len;
  else if (len < 256) {
    out[at++] = 0xd9;
    out[at++] = len;
  } else writeLength(len, undefined, 0xda, 0xdb);
  at += out.write(v, at, len, "utf8");
}

/**
 * A string of fewer than 32 ASCII characters (most keys and values) with its one-byte header,
 * copied by hand (cheaper than a call into Buffer for a few bytes); false, nothing written, for
 * any other.
 */
function writeShortAscii(v: string): boolean {
  const start = at + 1;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c > 0x7f) return false;
    out[start + i] = c;
  }
  out[at] = 0xa0 + v.length;
  at = start + v.length;
  return true;
}

function writeValue(v: MsgValue): void {
  if (v === null) {
    room(1);
    out[at++] = 0xc0;
    return;
  }
  if (v === UNKNOWN_VALUE) {
    room(3);
    out[at++] = 0xd4;
    out[at++] = 0;
    out[at++] = 0;
    return;
  }
  if (typeof v === "boolean") {
    room(1);
    out[at++] = v ? 0xc3 : 0xc2;
    return;
  }
  if (typeof v === "number") {
    room(9);
    if (Number.isSafeInteger(v) && v >= -(2 ** 31) && v < 2 ** 31) {
      if (v >= 0 && v < 128) out[at++] = v;
      else {
        out[at++] = 0xd2;
        out.writeInt32BE(v, at);
        at += 4;
      }
      return;
    }
    out[at++] = 0xcb;
    out.writeDoubleBE(v, at);
    at += 8;
    return;
  }
  if (typeof v === "string") return writeString(v);
  if (Array.isArray(v)) {
    writeLength(v.length, 0x90, 0xdc, 0xdd);
    for (const x of v) writeValue(x);
    return;
  }
  const keys = Object.keys(v);
  writeLength(keys.length, 0x80, 0xde, 0xdf);
  for (const k of keys) {
    writeString(k);
    writeValue(v[k]!);
  }
}

export function encodeMsgpack(value: MsgValue): Buffer {
  at = 0;
  try {
    writeValue(value);
    return Buffer.from(out.subarray(0, at));
  } finally {
    // A rare large value does not keep its buffer.
    if (out.length > 1 << 20) out = Buffer.allocUnsafe(4096);
    at = 0;
  }
}

/** What the decoder reads, and where (one value at a time: decoding never waits). */
const NOTHING = Buffer.alloc(0);
let src: Buffer = NOTHING;
let pos = 0;

function need(n: number): void {
  if (pos + n > src.length) throw new Error("msgpack: value ends early");
}

/** A big-endian unsigned length of 1, 2 or 4 bytes. */
function length(bytes: 1 | 2 | 4): number {
  need(bytes);
  const v = bytes === 1 ? src[pos]! : bytes === 2 ? src.readUInt16BE(pos) : src.readUInt32BE(pos);
  pos += bytes;
  return v;
}

function readString(n: number): string {
  need(n);
  const s = src.toString("utf8", pos, pos + n);
  pos += n;
  return s;
}

function readNumber(n: number, signed: boolean): number {
  need(n);
  const v =
    n === 8
      ? Number(signed ? src.readBigInt64BE(pos) : src.readBigUInt64BE(pos))
      : signed
        ? src.readIntBE(pos, n)
        : src.readUIntBE(pos, n);
  pos += n;
  return v;
}

function readExt(n: number): MsgValue {
  need(1);
  const type = src.readInt8(pos++);
  need(n);
  pos += n;
  if (UNKNOWN_EXTS.has(type)) return UNKNOWN_VALUE;
  throw new Error(`msgpack: unexpected extension type ${type}`);
}

function readArray(n: number): MsgValue[] {
  const a = new Array<MsgValue>(n);
  for (let i = 0; i < n; i++) a[i] = read();
  return a;
}

function readMap(n: number): { [key: string]: MsgValue } {
  const o: { [key: string]: MsgValue } = {};
  for (let i = 0; i < n; i++) {
    const k = read();
    o[String(k)] = read();
  }
  return o;
}

const SIZES = [1, 2, 4] as const;

function read(): MsgValue {
  need(1);
  const t = src[pos++]!;
  if (t < 0x80) return t;
  if (t < 0x90) return readMap(t - 0x80);
  if (t < 0xa0) return readArray(t - 0x90);
  if (t < 0xc0) return readString(t - 0xa0);
  if (t >= 0xe0) return t - 0x100;
  if (t >= 0xc4 && t <= 0xc6) return readString(length(SIZES[t - 0xc4]!)); // bin 8/16/32, read as text
  if (t >= 0xc7 && t <= 0xc9) return readExt(length(SIZES[t - 0xc7]!)); // ext 8/16/32
  if (t >= 0xcc && t <= 0xcf) return readNumber(1 << (t - 0xcc), false); // uint 8/16/32/64
  if (t >= 0xd0 && t <= 0xd3) return readNumber(1 << (t - 0xd0), true); // int 8/16/32/64
  if (t >= 0xd4 && t <= 0xd8) return readExt(1 << (t - 0xd4)); // fixext 1/2/4/8/16
  if (t >= 0xd9 && t <= 0xdb) return readString(length(SIZES[t - 0xd9]!)); // str 8/16/32
  if (t >= 0xdc && t <= 0xdd) return readArray(length(SIZES[t - 0xdb]!)); // array 16/32
  if (t >= 0xde && t <= 0xdf) return readMap(length(SIZES[t - 0xdd]!)); // map 16/32
  if (t === 0xc0) return null;
  if (t === 0xc2) return false;
  if (t === 0xc3) return true;
  if (t === 0xca || t === 0xcb) {
    const n = t === 0xca ? 4 : 8;
    need(n);
    const v = n === 4 ? src.readFloatBE(pos) : src.readDoubleBE(pos);
    pos += n;
    return v;
  }
  throw new Error(`msgpack: unexpected byte 0x${t.toString(16)}`);
}

export function decodeMsgpack(buf: Buffer): MsgValue {
  src = buf;
  pos = 0;
  try {
    const v = read();
    if (pos !== buf.length) throw new Error("msgpack: trailing bytes after the value");
    return v;
  } finally {
    src = NOTHING;
  }
}
