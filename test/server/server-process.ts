/** A reference server in a child process (for measuring its memory): `node server-process.ts ROOT`. */
import { startServer } from "../../server/index.ts";

const s = await startServer({ port: 0, provisionDelayMs: 20, sandboxRoot: process.argv[2] });
process.send!({ port: s.port });
process.on("message", (m: unknown) => {
  if (m === "exit") void s.close().then(() => process.exit(0));
});
