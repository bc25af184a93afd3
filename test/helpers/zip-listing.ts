/**
 * A zip archive as Python's zipfile reads it (what pip and other tools use): every entry's name,
 * Unix mode, date and size, one line each, after zipfile's own integrity check of every entry.
 */
import { run } from "../../scripts/run.ts";

const LISTING = `import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
assert z.testzip() is None
for i in z.infolist(): print(i.filename, oct(i.external_attr >> 16), i.date_time, len(z.read(i)))`;

/** The listing of the zip at `file`; fails when Python cannot read it. */
export const pythonZipListing = (file: string): Promise<string> => run("python3", ["-c", LISTING, file]);
