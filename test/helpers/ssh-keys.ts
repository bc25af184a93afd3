/** Valid, distinct SSH public keys for tests and benchmarks (no test-runner imports). */

/** A distinct valid ed25519 public key per `n`, with `comment` as its comment. */
export function sshKey(n: number, comment = `key-${n}`): string {
  const raw = Buffer.alloc(51);
  raw.writeUInt32BE(11, 0);
  raw.write("ssh-ed25519", 4, "latin1");
  raw.writeUInt32BE(32, 15);
  raw.fill(n % 256, 19);
  raw.writeUInt32BE(n, 19);
  return `ssh-ed25519 ${raw.toString("base64")} ${comment}`;
}
