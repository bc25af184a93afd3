/**
 * The `cws` command: the reference server's commands (`serve`, `resources`, `reset`, `seed`,
 * ...: server/cli.ts) and `cws adopt` (provider/adopt/command.ts), which reads an org through the
 * provider's resource modules. The top layer: it is the one place that reaches both the server
 * and the provider. bin/cws runs it from the npm package (cli/cws.ts); the release executable
 * runs it under the name `cws` (cli/executable.ts).
 */

/** Runs `cws <argv>`; the exit status is set on `process.exitCode` (or the process exits). */
export async function cws(argv: string[]): Promise<void> {
  if (argv[0] === "adopt") {
    const { adoptCommand } = await import("../provider/adopt/command.ts");
    process.exitCode = await adoptCommand(argv.slice(1), {
      out: (t: string) => void process.stdout.write(t),
      err: (t: string) => void process.stderr.write(t),
    });
    return;
  }
  const { serverCommand } = await import("../server/cli.ts");
  await serverCommand(argv);
}
