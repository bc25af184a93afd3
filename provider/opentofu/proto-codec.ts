/**
 * Protocol buffers (proto3) for the provider's protocol, read from a precompiled descriptor: what
 * a message's fields are, their numbers and types, with every type name already resolved (the
 * build makes it from the vendored .proto files: protocol-source.ts). No parser, no reflection
 * objects and no code generated at run time: a start of the provider pays for none of it.
 *
 * Messages are plain objects, as @grpc/proto-loader gives them with the provider's options (field
 * names as in the .proto files, enums by name, 64-bit integers as numbers, defaults filled in, the
 * name of the field set in each oneof), and written as protobuf.js writes them: fields by number,
 * each one the object sets (null and undefined are unset), maps and repeated fields in order,
 * numbers of repeated scalars packed. test/provider/opentofu/protocol.test.ts holds both to the
 * bytes and objects of @grpc/proto-loader.
 */

/** A field of a message, its type resolved: a scalar type's name, or the full name of an enum or message. */
export interface FieldDescriptor {
  name: string;
  id: number;
  kind: "scalar" | "enum" | "message";
  type: string;
  repeated?: boolean;
  packed?: boolean;
  /** A map field: the key's scalar type (the value is `kind`/`type`). */
  keyType?: string;
  /** The oneof it belongs to (proto3 `optional` fields are in a oneof of their own, `_<name>`). */
  oneof?: string;
}

/** A method of a service: its message types, and whether either side is a stream. */
export interface MethodDescriptor {
  request: string;
  response: string;
  requestStream?: boolean;
  responseStream?: boolean;
}

/** Messages and enums by full name (no leading dot), and services by full name: method → types. */
export interface ProtocolDescriptor {
  messages: Record<string, FieldDescriptor[]>;
  enums: Record<string, Record<string, number>>;
  services: Record<string, Record<string, MethodDescriptor>>;
}

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LEN = 2;
const WIRE_FIXED32 = 5;

const WIRE: Record<string, number> = {
  double: WIRE_FIXED64,
  float: WIRE_FIXED32,
  int32: WIRE_VARINT,
  uint32: WIRE_VARINT,
  sint32: WIRE_VARINT,
  fixed32: WIRE_FIXED32,
  sfixed32: WIRE_FIXED32,
  int64: WIRE_VARINT,
  uint64: WIRE_VARINT,
  sint64: WIRE_VARINT,
  fixed64: WIRE_FIXED64,
  sfixed64: WIRE_FIXED64,
  bool: WIRE_VARINT,
  string: WIRE_LEN,
  bytes: WIRE_LEN,
};

const TWO_32 = 4294967296;

/** The value a scalar field has when unset, as toObject gives it with defaults. */
function scalarDefault(type: string): unknown {
  if (type === "string") return "";
  if (type === "bool") return false;
  if (type === "bytes") return Buffer.alloc(0);
  return 0;
}

// --- writing ---------------------------------------------------------------------------------

class Writer {
  buf = Buffer.allocUnsafe(256);
  pos = 0;

  #room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(bigger, 0, 0, this.pos);
    this.buf = bigger;
  }

  /** A varint of a non-negative integer below 2^53. */
  varint(n: number): void {
    this.#room(10);
    while (n > 0x7f) {
      this.buf[this.pos++] = (n % 128) | 0x80;
      n = Math.floor(n / 128);
    }
    this.buf[this.pos++] = n;
  }

  /** A varint of a 64-bit value given as its two 32-bit halves. */
  varint64(lo: number, hi: number): void {
    this.#room(10);
    while (hi !== 0 || lo > 0x7f) {
      this.buf[this.pos++] = (lo & 0x7f) | 0x80;
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi >>>= 7;
    }
    this.buf[this.pos++] = lo;
  }

  tag(id: number, wire: number): void {
    this.varint(id * 8 + wire);
  }

  bytes(b: Uint8Array): void {
    this.varint(b.length);
    this.#room(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  string(s: string): void {
    const n = Buffer.byteLength(s);
    this.varint(n);
    this.#room(n);
    this.pos += this.buf.write(s, this.pos);
  }

  fixed32(n: number): void {
    this.#room(4);
    this.buf.writeUInt32LE(n >>> 0, this.pos);
    this.pos += 4;
  }

  fixed64(lo: number, hi: number): void {
    this.#room(8);
    this.buf.writeUInt32LE(lo >>> 0, this.pos);
    this.buf.writeUInt32LE(hi >>> 0, this.pos + 4);
    this.pos += 8;
  }

  double(n: number): void {
    this.#room(8);
    this.buf.writeDoubleLE(n, this.pos);
    this.pos += 8;
  }

  float(n: number): void {
    this.#room(4);
    this.buf.writeFloatLE(n, this.pos);
    this.pos += 4;
  }

  /**
   * A length-delimited field written in place: its tag, then what `write` writes, preceded by
   * its length (one byte is kept for it; a longer varint moves the bytes written after it).
   */
  delimited(id: number, write: () => void): void {
    this.tag(id, WIRE_LEN);
    this.#room(1);
    const start = ++this.pos;
    write();
    const len = this.pos - start;
    if (len < 0x80) {
      this.buf[start - 1] = len;
      return;
    }
    let size = 1;
    for (let n = len; n > 0x7f; n = Math.floor(n / 128)) size++;
    this.#room(size - 1);
    this.buf.copyWithin(start + size - 1, start, this.pos);
    let at = start - 1;
    let n = len;
    while (n > 0x7f) {
      this.buf[at++] = (n % 128) | 0x80;
      n = Math.floor(n / 128);
    }
    this.buf[at] = n;
    this.pos += size - 1;
  }

  finish(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}

/** A 64-bit integer (number, decimal string or bigint) as its two's complement 32-bit halves. */
function longBits(v: unknown): [number, number] {
  let n: bigint;
  if (typeof v === "bigint") n = v;
  else if (typeof v === "number") {
    if (Number.isSafeInteger(v)) {
      if (v >= 0) return [(v % TWO_32) >>> 0, Math.floor(v / TWO_32) >>> 0];
      n = BigInt(v);
    } else n = BigInt(Math.trunc(Number.isFinite(v) ? v : 0));
  } else if (typeof v === "string") n = BigInt(v);
  else if (v && typeof v === "object" && "low" in v && "high" in v)
    return [(v as { low: number }).low >>> 0, (v as { high: number }).high >>> 0];
  else n = BigInt(Number(v) || 0);
  const u = BigInt.asUintN(64, n);
  return [Number(u & 0xffffffffn), Number(u >> 32n)];
}

/** Bytes from a Buffer, an array of byte values or base64 text (as protobuf.js's fromObject takes them). */
function toBytes(v: unknown): Uint8Array {
  if (typeof v === "string") return Buffer.from(v, "base64");
  if (v instanceof Uint8Array) return v;
  return Buffer.from(v as ArrayLike<number>);
}

export class Codec {
  readonly #d: ProtocolDescriptor;
  /** Each message's fields ordered by number, as they are written. */
  readonly #byNumber = new Map<string, FieldDescriptor[]>();
  /** Each enum's names by number. */
  readonly #enumNames = new Map<string, Map<number, string>>();
  /** Each message's fields by number, for reading. */
  readonly #fieldOf = new Map<string, Map<number, FieldDescriptor>>();

  constructor(descriptor: ProtocolDescriptor) {
    this.#d = descriptor;
  }

  #fields(type: string): FieldDescriptor[] {
    let f = this.#byNumber.get(type);
    if (!f) {
      const fields = this.#d.messages[type];
      if (!fields) throw new Error(`no message type ${type} in the protocol`);
      f = [...fields].sort((a, b) => a.id - b.id);
      this.#byNumber.set(type, f);
    }
    return f;
  }

  #enumName(type: string, n: number): string | number {
    let names = this.#enumNames.get(type);
    if (!names) {
      names = new Map();
      for (const [k, v] of Object.entries(this.#d.enums[type] ?? {})) if (!names.has(v)) names.set(v, k);
      this.#enumNames.set(type, names);
    }
    return names.get(n) ?? n;
  }

  /** The message `type` with the values of `obj`, in protobuf's wire format. */
  encode(type: string, obj: unknown): Buffer {
    const w = new Writer();
    this.#writeMessage(w, type, obj, 0);
    return w.finish();
  }

  #writeMessage(w: Writer, type: string, obj: unknown, depth: number): void {
    if (depth > 100) throw new Error("max depth exceeded");
    const o = obj as Record<string, unknown>;
    for (const f of this.#fields(type)) {
      const v = o[f.name];
      if (v == null) continue;
      if (f.keyType) {
        if (typeof v !== "object") throw new TypeError(`${type}.${f.name}: object expected`);
        for (const k of Object.keys(v)) {
          w.delimited(f.id, () => {
            this.#writeValue(w, { name: "key", id: 1, kind: "scalar", type: f.keyType! }, k, depth);
            const value = (v as Record<string, unknown>)[k];
            if (value != null || f.kind !== "message")
              this.#writeValue(w, { ...f, keyType: undefined, id: 2 }, value ?? scalarDefault(f.type), depth);
          });
        }
      } else if (f.repeated) {
        if (!Array.isArray(v)) throw new TypeError(`${type}.${f.name}: array expected`);
        if (!v.length) continue;
        if (f.packed && f.kind !== "message" && WIRE[f.kind === "enum" ? "int32" : f.type] !== WIRE_LEN) {
          w.delimited(f.id, () => {
            for (const x of v) this.#writeScalar(w, f, x);
          });
        } else for (const x of v) this.#writeValue(w, f, x, depth);
      } else this.#writeValue(w, f, v, depth);
    }
  }

  /** One value of a field, with its tag (an enum name it does not know is left out, as protobuf.js does). */
  #writeValue(w: Writer, f: FieldDescriptor, v: unknown, depth: number): void {
    if (f.kind === "message") {
      if (typeof v !== "object" || v === null) throw new TypeError(`.${f.name}: object expected`);
      w.delimited(f.id, () => this.#writeMessage(w, f.type, v, depth + 1));
      return;
    }
    if (f.kind === "enum" && typeof v !== "number" && this.#d.enums[f.type]?.[String(v)] === undefined)
      return;
    w.tag(f.id, WIRE[f.kind === "enum" ? "int32" : f.type]!);
    this.#writeScalar(w, f, v);
  }

  /** A scalar or enum value, without a tag, converted as protobuf.js's fromObject converts it. */
  #writeScalar(w: Writer, f: FieldDescriptor, v: unknown): void {
    if (f.kind === "enum") {
      const n = typeof v === "number" ? v | 0 : (this.#d.enums[f.type]?.[String(v)] ?? 0);
      if (n < 0) w.varint64(n >>> 0, 0xffffffff);
      else w.varint(n);
      return;
    }
    switch (f.type) {
      case "string":
        return w.string(String(v));
      case "bytes":
        return w.bytes(toBytes(v));
      case "bool":
        return w.varint(v ? 1 : 0);
      case "double":
        return w.double(Number(v));
      case "float":
        return w.float(Number(v));
      case "int32": {
        const n = Number(v) | 0;
        return n < 0 ? w.varint64(n >>> 0, 0xffffffff) : w.varint(n);
      }
      case "uint32":
        return w.varint(Number(v) >>> 0);
      case "sint32": {
        const n = Number(v) | 0;
        return w.varint(((n << 1) ^ (n >> 31)) >>> 0);
      }
      case "fixed32":
      case "sfixed32":
        return w.fixed32(Number(v));
      case "sint64": {
        const [lo, hi] = longBits(v);
        const sign = hi >> 31;
        return w.varint64((((lo << 1) ^ sign) >>> 0) >>> 0, (((hi << 1) | (lo >>> 31)) ^ sign) >>> 0);
      }
      case "fixed64":
      case "sfixed64": {
        const [lo, hi] = longBits(v);
        return w.fixed64(lo, hi);
      }
      default: {
        // int64, uint64
        const [lo, hi] = longBits(v);
        return w.varint64(lo, hi);
      }
    }
  }

  // --- reading -------------------------------------------------------------------------------

  /** The message `type` read from `bytes`, as a plain object with every field (defaults filled in). */
  decode(type: string, bytes: Buffer): Record<string, unknown> {
    const r = { buf: bytes, pos: 0 };
    return this.#readMessage(r, type, bytes.length, 0);
  }

  #readMessage(r: Reader, type: string, end: number, depth: number): Record<string, unknown> {
    if (depth > 100) throw new Error("maximum nesting depth exceeded");
    const fields = this.#fields(type);
    const out: Record<string, unknown> = {};
    for (const f of fields) {
      if (f.oneof) continue;
      out[f.name] = f.keyType
        ? {}
        : f.repeated
          ? []
          : f.kind === "message"
            ? null
            : f.kind === "enum"
              ? this.#enumName(f.type, 0)
              : scalarDefault(f.type);
    }
    let byNumber = this.#fieldOf.get(type);
    if (!byNumber) {
      byNumber = new Map(fields.map((f) => [f.id, f]));
      this.#fieldOf.set(type, byNumber);
    }
    while (r.pos < end) {
      const tag = readVarint(r);
      const wire = tag & 7;
      const f = byNumber.get(Math.floor(tag / 8));
      if (!f) {
        skip(r, wire);
        continue;
      }
      if (f.keyType) {
        const entryEnd = readLength(r, end);
        let key: unknown = scalarDefault(f.keyType);
        let value: unknown =
          f.kind === "message" ? null : f.kind === "enum" ? this.#enumName(f.type, 0) : scalarDefault(f.type);
        while (r.pos < entryEnd) {
          const t = readVarint(r);
          if (t >>> 3 === 1)
            key = this.#readScalar(r, { name: "key", id: 1, kind: "scalar", type: f.keyType });
          else if (t >>> 3 === 2) value = this.#readOne(r, f, entryEnd, depth);
          else skip(r, t & 7);
        }
        (out[f.name] as Record<string, unknown>)[String(key)] = value;
      } else if (f.repeated) {
        const list = out[f.name] as unknown[];
        if (
          wire === WIRE_LEN &&
          f.kind !== "message" &&
          WIRE[f.kind === "enum" ? "int32" : f.type] !== WIRE_LEN
        ) {
          const packedEnd = readLength(r, end);
          while (r.pos < packedEnd) list.push(this.#readOne(r, f, packedEnd, depth));
        } else list.push(this.#readOne(r, f, end, depth));
      } else {
        out[f.name] = this.#readOne(r, f, end, depth);
        if (f.oneof) out[f.oneof] = f.name;
      }
    }
    if (r.pos !== end) throw new RangeError("index out of range");
    return out;
  }

  /** One value of a field: a message read whole, an enum by name, a scalar. */
  #readOne(r: Reader, f: FieldDescriptor, end: number, depth: number): unknown {
    if (f.kind === "message") {
      const subEnd = readLength(r, end);
      return this.#readMessage(r, f.type, subEnd, depth + 1);
    }
    if (f.kind === "enum") return this.#enumName(f.type, readVarint64(r)[0] | 0);
    return this.#readScalar(r, f);
  }

  #readScalar(r: Reader, f: FieldDescriptor): unknown {
    switch (f.type) {
      case "string": {
        const end = readLength(r, r.buf.length);
        const s = r.buf.toString("utf8", r.pos, end);
        r.pos = end;
        return s;
      }
      case "bytes": {
        const end = readLength(r, r.buf.length);
        const b = r.buf.subarray(r.pos, end);
        r.pos = end;
        return b;
      }
      case "bool": {
        const [lo, hi] = readVarint64(r);
        return lo !== 0 || hi !== 0;
      }
      case "double": {
        const n = r.buf.readDoubleLE(r.pos);
        r.pos += 8;
        return n;
      }
      case "float": {
        const n = r.buf.readFloatLE(r.pos);
        r.pos += 4;
        return n;
      }
      case "int32":
        return readVarint64(r)[0] | 0;
      case "uint32":
        return readVarint64(r)[0] >>> 0;
      case "sint32": {
        const n = readVarint64(r)[0] >>> 0;
        return (n >>> 1) ^ -(n & 1);
      }
      case "fixed32": {
        const n = r.buf.readUInt32LE(r.pos);
        r.pos += 4;
        return n;
      }
      case "sfixed32": {
        const n = r.buf.readInt32LE(r.pos);
        r.pos += 4;
        return n;
      }
      default: {
        let lo: number;
        let hi: number;
        if (f.type === "fixed64" || f.type === "sfixed64") {
          lo = r.buf.readUInt32LE(r.pos);
          hi = r.buf.readUInt32LE(r.pos + 4);
          r.pos += 8;
        } else [lo, hi] = readVarint64(r);
        if (f.type === "sint64") {
          const sign = -(lo & 1);
          lo = (((lo >>> 1) | (hi << 31)) ^ sign) >>> 0;
          hi = ((hi >>> 1) ^ sign) >>> 0;
          return toNumber(lo, hi, false);
        }
        return toNumber(lo, hi, f.type === "uint64" || f.type === "fixed64");
      }
    }
  }

  /** The methods of a service. */
  service(name: string): Record<string, MethodDescriptor> {
    const s = this.#d.services[name];
    if (!s) throw new Error(`no service ${name} in the protocol`);
    return s;
  }
}

// --- wire primitives ---------------------------------------------------------------------------

interface Reader {
  buf: Buffer;
  pos: number;
}

/** A varint below 2^53, as a number (tags and lengths). */
function readVarint(r: Reader): number {
  let n = 0;
  let mul = 1;
  for (let i = 0; i < 10; i++) {
    if (r.pos >= r.buf.length) throw new RangeError("index out of range");
    const b = r.buf[r.pos++]!;
    n += (b & 0x7f) * mul;
    if (b < 0x80) return n;
    mul *= 128;
  }
  throw new Error("invalid varint encoding");
}

/** A varint of up to 64 bits, as its two 32-bit halves. */
function readVarint64(r: Reader): [number, number] {
  let lo = 0;
  let hi = 0;
  let shift = 0;
  for (let i = 0; i < 10; i++) {
    if (r.pos >= r.buf.length) throw new RangeError("index out of range");
    const b = r.buf[r.pos++]!;
    if (shift < 28) lo |= (b & 0x7f) << shift;
    else if (shift === 28) {
      lo |= (b & 0x0f) << 28;
      hi |= (b & 0x7f) >> 4;
    } else hi |= (b & 0x7f) << (shift - 32);
    shift += 7;
    if (b < 0x80) return [lo >>> 0, hi >>> 0];
  }
  throw new Error("invalid varint encoding");
}

/** Reads the length of a length-delimited value; returns where the value ends. */
function readLength(r: Reader, limit: number): number {
  const length = readVarint(r);
  const end = r.pos + length;
  if (end > limit) throw new RangeError("index out of range");
  return end;
}

function skip(r: Reader, wire: number): void {
  if (wire === WIRE_VARINT) readVarint64(r);
  else if (wire === WIRE_FIXED64) r.pos += 8;
  else if (wire === WIRE_FIXED32) r.pos += 4;
  else if (wire === WIRE_LEN) r.pos = readLength(r, r.buf.length);
  else throw new Error(`invalid wire type ${wire}`);
}

/** A 64-bit value as a number (exact below 2^53), signed unless `unsigned`. */
function toNumber(lo: number, hi: number, unsigned: boolean): number {
  if (!unsigned && hi >>> 31) {
    const l = (~lo + 1) >>> 0;
    let h = ~hi >>> 0;
    if (!l) h = (h + 1) >>> 0;
    return -(l + h * TWO_32);
  }
  return lo + hi * TWO_32;
}
