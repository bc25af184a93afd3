/**
 * The plugin's own TLS certificate for go-plugin's automatic mutual TLS: a self-signed ECDSA
 * P-256 certificate for `localhost` made fresh at every start (as go-plugin's servers do), and
 * never written to disk. OpenTofu learns it from the handshake line and trusts only it; the
 * plugin trusts only the client certificate OpenTofu passes in PLUGIN_CLIENT_CERT.
 */
import { generateKeyPairSync, randomBytes, sign } from "node:crypto";

function der(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  const n = body.length;
  const len =
    n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), len, body]);
}

const seq = (...c: Buffer[]) => der(0x30, ...c);
const set = (...c: Buffer[]) => der(0x31, ...c);

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split(".").map(Number) as [number, number, ...number[]];
  const bytes = [a * 40 + b];
  for (const n of rest) {
    const chunk = [n & 0x7f];
    for (let v = n >> 7; v > 0; v >>= 7) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return der(0x06, Buffer.from(bytes));
}

function utcTime(d: Date): Buffer {
  const s = d.toISOString().replace(/[-:T]/g, "").slice(2, 14);
  return der(0x17, Buffer.from(`${s}Z`, "ascii"));
}

const extension = (id: string, value: Buffer, critical = false) =>
  seq(oid(id), ...(critical ? [der(0x01, Buffer.from([0xff]))] : []), der(0x04, value));

export interface PluginCertificate {
  /** PEM certificate and key, for the gRPC server. */
  certPem: string;
  keyPem: string;
  /** DER certificate, for the handshake line. */
  der: Buffer;
}

/** `serial`: 16 random bytes unless given; made a positive DER integer without a leading zero. */
export function pluginCertificate(now = new Date(), serial: Buffer = randomBytes(16)): PluginCertificate {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const ecdsaSha256 = seq(oid("1.2.840.10045.4.3.2"));
  const name = seq(set(seq(oid("2.5.4.3"), der(0x0c, Buffer.from("localhost")))));
  // A leading 0x00 before a byte below 0x80 is not minimal DER: OpenSSL refuses the certificate.
  serial = Buffer.from(serial);
  serial[0] = (serial[0]! & 0x3f) | 0x40;
  const tbs = seq(
    der(0xa0, der(0x02, Buffer.from([2]))), // v3
    der(0x02, serial),
    ecdsaSha256,
    name,
    seq(utcTime(new Date(now.getTime() - 30_000)), utcTime(new Date(now.getTime() + 365 * 86_400_000))),
    name,
    publicKey.export({ type: "spki", format: "der" }),
    der(
      0xa3,
      seq(
        extension("2.5.29.19", seq(der(0x01, Buffer.from([0xff]))), true), // CA (go-plugin's client pools it as a root)
        extension("2.5.29.15", der(0x03, Buffer.from([0x02, 0xa4])), true), // digitalSignature, keyEncipherment, keyCertSign
        extension("2.5.29.37", seq(oid("1.3.6.1.5.5.7.3.1"), oid("1.3.6.1.5.5.7.3.2"))), // server + client auth
        extension("2.5.29.17", seq(der(0x82, Buffer.from("localhost")))), // DNS name the client verifies
      ),
    ),
  );
  const signature = sign("sha256", tbs, privateKey);
  const cert = seq(tbs, ecdsaSha256, der(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const b64 = cert.toString("base64").replace(/(.{64})/g, "$1\n");
  return {
    der: cert,
    certPem: `-----BEGIN CERTIFICATE-----\n${b64}\n-----END CERTIFICATE-----\n`.replace(/\n\n/g, "\n"),
    keyPem: privateKey.export({ type: "pkcs8", format: "pem" }) as string,
  };
}
