/**
 * The executable formats of the release's platforms, read from their headers: which format and
 * machine a file is (ELF, Mach-O, PE), whether a Node single executable application's blob was
 * put into it, and the removal of a Node binary's code signature before the blob goes in
 * (macOS and Windows binaries of Node are signed; the signature would no longer match).
 */

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
