/**
 * The executable formats of the release's platforms, read from their headers: which format and
 * machine a file is (ELF, Mach-O, PE), whether a Node single executable application's blob was
 * put into it, the removal of a Node binary's code signature before the blob goes in (macOS and
 * Windows binaries of Node are signed; the signature would no longer match), and the check of the
 * ad hoc signature the macOS executables get after it.
 */
import { createHash } from "node:crypto";

export interface ExecutableFormat {
  format: "ELF" | "Mach-O" | "PE";
  /** The machine in the platforms' words: amd64, arm64. */
  arch: string;
}

const ELF_MACHINES: Record<number, string> = { 0x3e: "amd64", 0xb7: "arm64" };
const MACHO_CPUS: Record<number, string> = { 0x01000007: "amd64", 0x0100000c: "arm64" };
const PE_MACHINES: Record<number, string> = { 0x8664: "amd64", 0xaa64: "arm64" };

/** The format and machine of an executable, from its header; undefined when it is none of them. */
export function executableFormat(file: Buffer): ExecutableFormat | undefined {
  if (file.length >= 20 && file.readUInt32BE(0) === 0x7f454c46 && file[4] === 2 && file[5] === 1) {
    const arch = ELF_MACHINES[file.readUInt16LE(18)];
    const type = file.readUInt16LE(16); // ET_EXEC or ET_DYN (a position-independent executable)
    return arch && (type === 2 || type === 3) ? { format: "ELF", arch } : undefined;
  }
  if (file.length >= 16 && file.readUInt32LE(0) === 0xfeedfacf && file.readUInt32LE(12) === 2) {
    const arch = MACHO_CPUS[file.readUInt32LE(4)]; // filetype 2: MH_EXECUTE
    return arch ? { format: "Mach-O", arch } : undefined;
  }
  if (file.length >= 64 && file.toString("latin1", 0, 2) === "MZ") {
    const pe = file.readUInt32LE(0x3c);
    if (pe + 24 > file.length || file.readUInt32BE(pe) !== 0x50450000) return undefined;
    const arch = PE_MACHINES[file.readUInt16LE(pe + 4)];
    return arch ? { format: "PE", arch } : undefined;
  }
  return undefined;
}

/** The fuse Node looks for to know it carries a single executable application's blob. */
export const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

/** Whether the fuse is blown (`...:1`): postject put a blob in. */
export function hasSeaBlob(file: Buffer): boolean {
  return file.includes(`${SEA_FUSE}:1`);
}

const LC_SEGMENT_64 = 0x19;
const LC_CODE_SIGNATURE = 0x1d;

/**
 * A 64-bit Mach-O executable without its code signature, as `codesign --remove-signature` leaves
 * it: the LC_CODE_SIGNATURE command taken out, __LINKEDIT's file size and the file ending where the
 * signature began (its memory size, never smaller, left as it was). Unchanged when it has none.
 */
export function withoutMachOSignature(file: Buffer): Buffer {
  const out = Buffer.from(file);
  const ncmds = out.readUInt32LE(16);
  const sizeofcmds = out.readUInt32LE(20);
  const cmdsEnd = 32 + sizeofcmds;
  let at = 32;
  let signature: { at: number; size: number; dataoff: number } | undefined;
  let linkedit: number | undefined;
  for (let i = 0; i < ncmds; i++) {
    const cmd = out.readUInt32LE(at);
    const size = out.readUInt32LE(at + 4);
    if (cmd === LC_CODE_SIGNATURE) signature = { at, size, dataoff: out.readUInt32LE(at + 8) };
    if (cmd === LC_SEGMENT_64 && out.toString("latin1", at + 8, at + 24).replace(/\0+$/, "") === "__LINKEDIT")
      linkedit = at;
    at += size;
  }
  if (!signature) return out;
  if (linkedit === undefined) throw new Error("Mach-O: a code signature without a __LINKEDIT segment");
  const fileoff = Number(out.readBigUInt64LE(linkedit + 40));
  const filesize = signature.dataoff - fileoff;
  out.writeBigUInt64LE(BigInt(filesize), linkedit + 48);
  out.copy(out, signature.at, signature.at + signature.size, cmdsEnd);
  out.fill(0, cmdsEnd - signature.size, cmdsEnd);
  out.writeUInt32LE(ncmds - 1, 16);
  out.writeUInt32LE(sizeofcmds - signature.size, 20);
  return out.subarray(0, signature.dataoff);
}

/**
 * A PE executable without its Authenticode signature (as `signtool remove /s` leaves it): the
 * certificate table's directory entry cleared and the table, at the file's end, cut off.
 * Unchanged when it has none.
 */
export function withoutPeSignature(file: Buffer): Buffer {
  const out = Buffer.from(file);
  const pe = out.readUInt32LE(0x3c);
  const optional = pe + 24;
  const magic = out.readUInt16LE(optional);
  const directories = optional + (magic === 0x20b ? 112 : 96); // PE32+ or PE32
  const entry = directories + 4 * 8; // IMAGE_DIRECTORY_ENTRY_SECURITY
  const offset = out.readUInt32LE(entry);
  const size = out.readUInt32LE(entry + 4);
  if (offset === 0 || size === 0) return out;
  out.writeUInt32LE(0, entry);
  out.writeUInt32LE(0, entry + 4);
  out.writeUInt32LE(0, optional + 64); // the checksum, which covered the table
  return offset + size >= out.length ? out.subarray(0, offset) : out;
}

/**
 * The contents of section `section` of segment `segment` in a 64-bit Mach-O file (where postject
 * put a blob: segment NODE_SEA, section __NODE_SEA_BLOB), or undefined when it has none.
 */
export function machOSection(file: Buffer, segment: string, section: string): Buffer | undefined {
  if (file.length < 32 || file.readUInt32LE(0) !== 0xfeedfacf) return undefined;
  const name = (at: number) => file.toString("latin1", at, at + 16).replace(/\0+$/, "");
  const ncmds = file.readUInt32LE(16);
  let at = 32;
  for (let i = 0; i < ncmds; i++) {
    const cmd = file.readUInt32LE(at);
    if (cmd === LC_SEGMENT_64 && name(at + 8) === segment) {
      const nsects = file.readUInt32LE(at + 64);
      for (let s = 0; s < nsects; s++) {
        const sect = at + 72 + s * 80; // section_64: sectname, segname, addr, size, offset, ...
        if (name(sect) !== section) continue;
        const size = Number(file.readBigUInt64LE(sect + 40));
        const offset = file.readUInt32LE(sect + 48);
        return file.subarray(offset, offset + size);
      }
    }
    at += file.readUInt32LE(at + 4);
  }
  return undefined;
}

/** The Mach-O code signature's bytes (the LC_CODE_SIGNATURE data), or undefined when unsigned. */
export function machOSignature(file: Buffer): Buffer | undefined {
  if (file.length < 32 || file.readUInt32LE(0) !== 0xfeedfacf) return undefined;
  const ncmds = file.readUInt32LE(16);
  let at = 32;
  for (let i = 0; i < ncmds; i++) {
    if (file.readUInt32LE(at) === LC_CODE_SIGNATURE) {
      const dataoff = file.readUInt32LE(at + 8);
      return file.subarray(dataoff, dataoff + file.readUInt32LE(at + 12));
    }
    at += file.readUInt32LE(at + 4);
  }
  return undefined;
}

/** What an ad hoc signature says of its file, once every hash in it has been checked. */
export interface AdHocSignature {
  identifier: string;
  /** The pages of the file its code directory hashes (SHA-256 each). */
  pages: number;
  /** The file's length up to the signature, which the pages cover. */
  codeLimit: number;
}

const CS_SUPERBLOB = 0xfade0cc0;
const CS_CODEDIRECTORY = 0xfade0c02;
const CS_HASHTYPE_SHA256 = 2;
const CS_ADHOC = 0x2;

/**
 * Checks a 64-bit Mach-O file's ad hoc code signature as macOS does before it runs an arm64
 * program: the signature's code directory (SHA-256, flagged ad hoc) covers the file up to the
 * signature, each of its page hashes is the hash of that page of the file, and the requirement
 * set's hash is the one its special slot holds. An ad hoc signature holds no certificate and no
 * CMS signature: these hashes are all there is to check. Throws, naming what differs.
 */
export function verifyAdHocSignature(file: Buffer): AdHocSignature {
  const sig = machOSignature(file);
  if (!sig) throw new Error("Mach-O: no code signature");
  if (sig.readUInt32BE(0) !== CS_SUPERBLOB) throw new Error("Mach-O: the signature is not a superblob");
  const blobs = new Map<number, Buffer>();
  for (let i = 0; i < sig.readUInt32BE(8); i++) {
    const type = sig.readUInt32BE(12 + i * 8);
    const at = sig.readUInt32BE(16 + i * 8);
    blobs.set(type, sig.subarray(at, at + sig.readUInt32BE(at + 4)));
  }
  const cd = blobs.get(0);
  if (!cd || cd.readUInt32BE(0) !== CS_CODEDIRECTORY) throw new Error("Mach-O: no code directory");
  const flags = cd.readUInt32BE(12);
  const hashOffset = cd.readUInt32BE(16);
  const identifier = cd.toString("utf8", cd.readUInt32BE(20), cd.indexOf(0, cd.readUInt32BE(20)));
  const specialSlots = cd.readUInt32BE(24);
  const pages = cd.readUInt32BE(28);
  const codeLimit = cd.readUInt32BE(32);
  const [hashSize, hashType, pageShift] = [cd[36]!, cd[37]!, cd[39]!];
  if (hashType !== CS_HASHTYPE_SHA256 || hashSize !== 32)
    throw new Error("Mach-O: the code directory is not SHA-256");
  if (!(flags & CS_ADHOC)) throw new Error("Mach-O: the signature is not ad hoc");
  const signatureAt = file.indexOf(sig);
  if (codeLimit !== signatureAt)
    throw new Error(`Mach-O: the signature covers ${codeLimit} bytes, not the ${signatureAt} before it`);
  const pageSize = 2 ** pageShift;
  if (pages !== Math.ceil(codeLimit / pageSize))
    throw new Error(`Mach-O: ${pages} page hashes for ${codeLimit} bytes`);
  const sha = (b: Buffer) => createHash("sha256").update(b).digest();
  for (let i = 0; i < pages; i++) {
    const page = file.subarray(i * pageSize, Math.min((i + 1) * pageSize, codeLimit));
    const want = cd.subarray(hashOffset + i * 32, hashOffset + (i + 1) * 32);
    if (!sha(page).equals(want))
      throw new Error(`Mach-O: page ${i} (at ${i * pageSize}) is not the page that was signed`);
  }
  const requirements = blobs.get(2);
  if (
    requirements &&
    specialSlots >= 2 &&
    !sha(requirements).equals(cd.subarray(hashOffset - 64, hashOffset - 32))
  )
    throw new Error("Mach-O: the requirement set is not the one that was signed");
  return { identifier, pages, codeLimit };
}
