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

export function encodeMsgpack(value: MsgValue): Buffer {
  const parts: Buffer[] = [];
  const byte = (...b: number[]) => parts.push(Buffer.from(b));
  const withLength = (len: number, small: number | undefined, tags: [number, number, number]) => {
    if (small !== undefined && len < 16) byte(small + len);
    else if (len < 0x10000) byte(tags[1], len >> 8, len & 0xff);
    else {
      const b = Buffer.alloc(5);
      b[0] = tags[2];
      b.writeUInt32BE(len, 1);
      parts.push(b);
    }
  };
  const write = (v: MsgValue): void => {
    if (v === null) return void byte(0xc0);
    if (v === UNKNOWN_VALUE) return void byte(0xd4, 0, 0);
    if (typeof v === "boolean") return void byte(v ? 0xc3 : 0xc2);
    if (typeof v === "number") {
      if (Number.isSafeInteger(v) && v >= -(2 ** 31) && v < 2 ** 31) {
        if (v >= 0 && v < 128) return void byte(v);
        const b = Buffer.alloc(5);
        b[0] = 0xd2;
        b.writeInt32BE(v, 1);
        return void parts.push(b);
      }
      const b = Buffer.alloc(9);
      b[0] = 0xcb;
      b.writeDoubleBE(v, 1);
      return void parts.push(b);
    }
    if (typeof v === "string") {
      const s = Buffer.from(v, "utf8");
      if (s.length < 32) byte(0xa0 + s.length);
      else if (s.length < 256) byte(0xd9, s.length);
      else withLength(s.length, undefined, [0, 0xda, 0xdb]);
      return void parts.push(s);
    }
    if (Array.isArray(v)) {
      withLength(v.length, 0x90, [0, 0xdc, 0xdd]);
      for (const x of v) write(x);
      return;
    }
    const entries = Object.entries(v);
    withLength(entries.length, 0x80, [0, 0xde, 0xdf]);
    for (const [k, x] of entries) {
      write(k);
      write(x);
    }
  };
  write(value);
  return Buffer.concat(parts);
}

export function decodeMsgpack(buf: Buffer): MsgValue {
  let pos = 0;
  const need = (n: number) => {
    if (pos + n > buf.length) throw new Error("msgpack: value ends early");
  };
  const take = (n: number) => {
    need(n);
    const b = buf.subarray(pos, pos + n);
    pos += n;
    return b;
  };
  const u8 = () => take(1)[0]!;
  const u16 = () => take(2).readUInt16BE(0);
  const u32 = () => take(4).readUInt32BE(0);
  const LENGTH = [u8, u16, u32];
  const uint = (n: number) => (n === 8 ? Number(take(8).readBigUInt64BE(0)) : take(n).readUIntBE(0, n));
  const int = (n: number) => (n === 8 ? Number(take(8).readBigInt64BE(0)) : take(n).readIntBE(0, n));
  const str = (n: number) => take(n).toString("utf8");
  const array = (n: number): MsgValue[] => Array.from({ length: n }, () => read());
  const map = (n: number) => {
    const out: { [key: string]: MsgValue } = {};
    for (let i = 0; i < n; i++) {
      const k = read();
      out[String(k)] = read();
    }
    return out;
  };
  const ext = (n: number): MsgValue => {
    const type = take(1).readInt8(0);
    take(n);
    if (UNKNOWN_EXTS.has(type)) return UNKNOWN_VALUE;
    throw new Error(`msgpack: unexpected extension type ${type}`);
  };
  function read(): MsgValue {
    const t = u8();
    if (t < 0x80) return t;
    if (t < 0x90) return map(t - 0x80);
    if (t < 0xa0) return array(t - 0x90);
    if (t < 0xc0) return str(t - 0xa0);
    if (t >= 0xe0) return t - 0x100;
    if (t >= 0xc4 && t <= 0xc6) return str(LENGTH[t - 0xc4]!()); // bin 8/16/32, read as text
    if (t >= 0xc7 && t <= 0xc9) return ext(LENGTH[t - 0xc7]!()); // ext 8/16/32
    if (t >= 0xcc && t <= 0xcf) return uint(1 << (t - 0xcc)); // uint 8/16/32/64
    if (t >= 0xd0 && t <= 0xd3) return int(1 << (t - 0xd0)); // int 8/16/32/64
    if (t >= 0xd4 && t <= 0xd8) return ext(1 << (t - 0xd4)); // fixext 1/2/4/8/16
    if (t >= 0xd9 && t <= 0xdb) return str(LENGTH[t - 0xd9]!()); // str 8/16/32
    if (t >= 0xdc && t <= 0xdd) return array(LENGTH[t - 0xdb]!()); // array 16/32
    if (t >= 0xde && t <= 0xdf) return map(LENGTH[t - 0xdd]!()); // map 16/32
    if (t === 0xc0) return null;
    if (t === 0xc2) return false;
    if (t === 0xc3) return true;
    if (t === 0xca) return take(4).readFloatBE(0);
    if (t === 0xcb) return take(8).readDoubleBE(0);
    throw new Error(`msgpack: unexpected byte 0x${t.toString(16)}`);
  }
  const v = read();
  if (pos !== buf.length) throw new Error("msgpack: trailing bytes after the value");
  return v;
}
