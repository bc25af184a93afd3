/**
 * The release's archives, written byte for byte by this file so that the same files always give
 * the same archive: no timestamps (every entry is dated the earliest time its format has: 1970 in
 * a tar, 1980 in a zip), no owner, the entries in the order given, a fixed gzip header.
 *
 * A file is deflated once (`deflated`) and its deflate stream used by every archive that holds it:
 * the zip entry, and the gzip member of a `.tar.gz`. A `.tar.gz` here is three gzip members one
 * after the other (RFC 1952 allows any number; gzip, tar, Go's and Python's readers read them as
 * one stream): the tar header, the file, the tar's padding and end. So a 100 MB executable is
 * compressed once per platform, not once per archive.
 */
import { createHash } from "node:crypto";
import { constants, crc32, deflateRawSync } from "node:zlib";

/** A file to archive, its contents deflated once. */
export interface DeflatedFile {
  /** Its path inside the archive, `/`-separated. */
  name: string;
  /** Unix permission bits (0o755 for an executable). */
  mode: number;
  size: number;
  crc: number;
  /** The raw deflate stream of the contents. */
  deflate: Buffer;
}

/** Deflates `data` once (zlib's best compression unless told), for `tarGz` and `zip`. */
export function deflated(
  name: string,
  data: Buffer,
  mode = 0o644,
  level: number = constants.Z_BEST_COMPRESSION,
): DeflatedFile {
  return { name, mode, size: data.length, crc: crc32(data), deflate: deflateRawSync(data, { level }) };
}

/** A gzip member around a raw deflate stream: no name, no time, OS "unknown" (255) on every host. */
function gzipMember(deflate: Buffer, crc: number, size: number): Buffer {
  const header = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 255]);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(size >>> 0, 4); // ISIZE: the size modulo 2^32
  return Buffer.concat([header, deflate, trailer]);
}

function gzip(data: Buffer): Buffer {
  return gzipMember(deflateRawSync(data, { level: constants.Z_BEST_COMPRESSION }), crc32(data), data.length);
}

/** A ustar header of a regular file: owner 0, time 0. */
export function tarHeader(name: string, mode: number, size: number): Buffer {
  const h = Buffer.alloc(512);
  const field = (text: string, at: number, length: number) => {
    const bytes = Buffer.from(text, "utf8");
    if (bytes.length > length) throw new Error(`tar: '${text}' does not fit in ${length} bytes`);
    bytes.copy(h, at);
  };
  const octal = (n: number, at: number, length: number) =>
    field(`${n.toString(8).padStart(length - 1, "0")}\0`, at, length);
  field(name, 0, 100);
  octal(mode, 100, 8);
  octal(0, 108, 8); // uid
  octal(0, 116, 8); // gid
  octal(size, 124, 12);
  octal(0, 136, 12); // mtime
  field("        ", 148, 8); // the checksum counts its own field as spaces
  field("0", 156, 1); // a regular file
  field("ustar\0", 257, 6);
  field("00", 263, 2);
  let sum = 0;
  for (const byte of h) sum += byte;
  field(`${sum.toString(8).padStart(6, "0")}\0 `, 148, 8);
  return h;
}

/** A `.tar.gz` of `files` (a file's tar record is its header, its contents, zeros to 512 bytes). */
export function tarGz(files: readonly DeflatedFile[]): Buffer {
  const parts: Buffer[] = [];
  let pad = 0;
  for (const f of files) {
    parts.push(gzip(Buffer.concat([Buffer.alloc(pad), tarHeader(f.name, f.mode, f.size)])));
    parts.push(gzipMember(f.deflate, f.crc, f.size));
    pad = (512 - (f.size % 512)) % 512;
  }
  parts.push(gzip(Buffer.alloc(pad + 1024))); // the padding of the last file, then the end: two zero records
  return Buffer.concat(parts);
}

/** DOS date of 1980-01-01, the earliest a zip can say; time 00:00. */
const DOS_DATE = (0 << 9) | (1 << 5) | 1;
/** Version 2.0 (deflate), made by Unix (3): readers take the mode from the external attributes. */
const VERSION_NEEDED = 20;
const MADE_BY = (3 << 8) | VERSION_NEEDED;
/** Flag bit 11: names are UTF-8. */
const UTF8 = 0x0800;

/** A zip of `files`, each deflated, with its Unix mode. */
export function zip(files: readonly DeflatedFile[]): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const f of files) {
    const name = Buffer.from(f.name, "utf8");
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(VERSION_NEEDED, 4);
    local.writeUInt16LE(UTF8, 6);
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt16LE(0, 10); // time
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt32LE(f.crc >>> 0, 14);
    local.writeUInt32LE(f.deflate.length, 18);
    local.writeUInt32LE(f.size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    locals.push(local, name, f.deflate);

    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(MADE_BY, 4);
    local.copy(entry, 6, 4, 30); // version needed to extra length: as in the local header
    entry.writeUInt16LE(0, 32); // comment length
    entry.writeUInt16LE(0, 34); // disk
    entry.writeUInt16LE(0, 36); // internal attributes
    entry.writeUInt32LE(((0o100000 | f.mode) << 16) >>> 0, 38); // a regular file and its mode
    entry.writeUInt32LE(offset, 42);
    central.push(entry, name);
    offset += local.length + name.length + f.deflate.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** The hex SHA-256 of `data`. */
export function sha256(data: Buffer | string): string {
  return createHash("sha256").update(data).digest("hex");
}
