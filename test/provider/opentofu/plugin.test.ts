/**
 * The OpenTofu provider as OpenTofu meets it, over gRPC with go-plugin's mutual TLS: the
 * handshake, the schema derived from schema.json, validation naming the attribute, and the
 * object wire format (msgpack with unknown values).
 */
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { X509Certificate } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  UNKNOWN_VALUE,
  decodeMsgpack,
  encodeMsgpack,
  type MsgValue,
} from "../../../provider/opentofu/msgpack.ts";
import {
  MAGIC_COOKIE_KEY,
  MAGIC_COOKIE_VALUE,
  PROTO_OPTIONS,
  refusal,
  serve,
} from "../../../provider/opentofu/serve.ts";
import { pluginCertificate } from "../../../provider/opentofu/tls-cert.ts";
import { tofuProvider } from "./fixture.ts";

type Client = grpc.Client &
  Record<string, (req: unknown, cb: (e: grpc.ServiceError | null, res: unknown) => void) => void>;

interface Attr {
  name: string;
  type: Buffer;
  nested_type?: { nesting: string; attributes: Attr[] };
  description: string;
}
interface Block {
  attributes: Attr[];
  block_types: { type_name: string; nesting: string }[];
}
interface SchemaResponse {
  provider: { block: Block };
  resource_schemas: Record<string, { block: Block }>;
  data_source_schemas: Record<string, { block: Block }>;
}
interface Diag {
  severity: string;
  detail: string;
  attribute: { steps: { attribute_name?: string; element_key_int?: number }[] };
}

function tfClient(address: string, credentials: grpc.ChannelCredentials): Client {
  const def = protoLoader.loadSync("tfplugin6.proto", PROTO_OPTIONS);
  const pkg = grpc.loadPackageDefinition(def) as unknown as {
    tfplugin6: { Provider: grpc.ServiceClientConstructor };
  };
  return new pkg.tfplugin6.Provider(address, credentials, {
    "grpc.ssl_target_name_override": "localhost",
  }) as Client;
}

const rpc = <T = unknown>(c: Client, name: string, req: unknown = {}) =>
  new Promise<T>((resolve, reject) => c[name]!(req, (e, res) => (e ? reject(e) : resolve(res as T))));

/** The schema attribute named `name` of a block. */
const attr = (block: { attributes: Attr[] }, name: string): Attr => {
  const a = block.attributes.find((x) => x.name === name);
  if (!a) throw new Error(`no attribute ${name}`);
  return a;
};

describe("terraform-provider-cws over gRPC with mutual TLS", () => {
  let server: { forceShutdown(): void };
  let client: Client;
  const clientCert = pluginCertificate();

  beforeAll(async () => {
    const served = await serve(tofuProvider(), {
      PLUGIN_CLIENT_CERT: clientCert.certPem,
    });
    server = served.server;
    const [core, app, net, address, proto, cert] = served.handshake.split("|");
    expect([core, app, net, proto]).toEqual(["1", "6", "tcp", "grpc"]);
    const der = Buffer.from(cert!, "base64");
    const serverPem = `-----BEGIN CERTIFICATE-----\n${der.toString("base64")}\n-----END CERTIFICATE-----\n`;
    client = tfClient(
      address!,
      grpc.credentials.createSsl(
        Buffer.from(serverPem),
        Buffer.from(clientCert.keyPem),
        Buffer.from(clientCert.certPem),
      ),
    );
  });
  afterAll(() => {
    client?.close();
    server?.forceShutdown();
  });

  it("refuses a client without a certificate the plugin was told to trust", async () => {
    const served = await serve(tofuProvider(), {
      PLUGIN_CLIENT_CERT: clientCert.certPem,
    });
    const address = served.handshake.split("|")[3];
    const stranger = pluginCertificate();
    const other = tfClient(
      address!,
      grpc.credentials.createSsl(null, Buffer.from(stranger.keyPem), Buffer.from(stranger.certPem), {
        checkServerIdentity: () => undefined,
        rejectUnauthorized: false,
      }),
    );
    await expect(rpc(other, "GetMetadata")).rejects.toThrow();
    other.close();
    served.server.forceShutdown();
  });

  it("serves every resource and lookup, with sensitive secrets, nested inputs and timeouts", async () => {
    const res = await rpc<SchemaResponse>(client, "GetProviderSchema");
    expect(Object.keys(res.resource_schemas).sort()).toEqual([
      "cws_sandbox",
      "cws_sandbox_template",
      "cws_ssh_key",
      "cws_volume",
      "cws_workload",
      "cws_workload_template",
    ]);
    expect(Object.keys(res.data_source_schemas).sort()).toEqual([
      "cws_bm_images",
      "cws_regions",
      "cws_sandbox_templates",
      "cws_ssh_keys",
      "cws_vm_images",
      "cws_volumes",
      "cws_workload",
      "cws_workload_events",
      "cws_workload_logs",
      "cws_workload_templates",
    ]);
    expect(attr(res.provider.block, "api_token")).toMatchObject({ sensitive: true, optional: true });
    const workload = res.resource_schemas.cws_workload.block;
    expect(attr(workload, "name")).toMatchObject({ required: true });
    expect(attr(workload, "image").description).toMatch(/redeploys/);
    // The passwords are sensitive, not the objects that hold them (a registry's server and user).
    expect(attr(workload, "registry_auth")).toMatchObject({ sensitive: false, optional: true });
    expect(attr(workload, "vm_config")).toMatchObject({ sensitive: false });
    for (const holder of ["registry_auth", "vm_config"]) {
      const nested = attr(workload, holder).nested_type!;
      expect(attr(nested, "password"), holder).toMatchObject({ sensitive: true });
      expect(attr(nested, "password_wo"), holder).toMatchObject({ sensitive: true });
    }
    expect(attr(attr(workload, "registry_auth").nested_type!, "server")).toMatchObject({ sensitive: false });
    const ports = attr(workload, "ports");
    expect(ports.nested_type!.nesting).toBe("LIST");
    expect(attr(ports.nested_type!, "port")).toMatchObject({ required: true });
    expect(attr(ports.nested_type!, "protocol")).toMatchObject({ optional: true });
    expect(JSON.parse(attr(workload, "status").type.toString())).toBe("string");
    expect(attr(workload, "status")).toMatchObject({ computed: true, optional: false });
    expect(workload.block_types[0]).toMatchObject({ type_name: "timeouts", nesting: "SINGLE" });
    const template = res.resource_schemas.cws_workload_template.block;
    expect(attr(template, "manifest")).toMatchObject({ sensitive: true, required: true });
    expect(JSON.parse(attr(template, "manifest").type.toString())).toBe("string");
    const regions = res.data_source_schemas.cws_regions.block;
    expect(attr(regions, "active_only")).toMatchObject({ optional: true });
    expect(JSON.parse(attr(regions, "regions").type.toString())).toEqual([
      "list",
      ["object", { uid: "string", name: "string", active: "bool" }],
    ]);
    // A data source's argument that its result also has is one attribute: set, or read back.
    const one = res.data_source_schemas.cws_workload.block;
    for (const a of ["uid", "name"])
      expect(attr(one, a), a).toMatchObject({ optional: true, computed: true });
    expect(attr(one, "registry_auth")).toMatchObject({ sensitive: true, computed: true });
    const logs = res.data_source_schemas.cws_workload_logs.block;
    expect(attr(logs, "redact")).toMatchObject({ sensitive: true, optional: true });
    expect(JSON.parse(attr(logs, "lines").type.toString())).toEqual(["list", "string"]);
  });

  it("names the attribute of bad input, in HCL terms, when OpenTofu validates a configuration", async () => {
    const config = {
      ...Object.fromEntries(
        (
          await rpc<SchemaResponse>(client, "GetProviderSchema")
        ).resource_schemas.cws_workload!.block.attributes.map((a) => [a.name, null]),
      ),
      type: "RENTAL",
      name: "web",
      image: "nginx:1.27",
      resource_name: "gpu-rental-small",
      ports: [{ port: 80, protocol: null, routing: null }],
      ready_timeout_sec: 0,
      ssh_keys: UNKNOWN_VALUE,
      timeouts: { create: "soon", read: null, update: null, delete: null },
    } as Record<string, MsgValue>;
    const res = await rpc<{ diagnostics: Diag[] }>(client, "ValidateResourceConfig", {
      type_name: "cws_workload",
      config: { msgpack: encodeMsgpack(config) },
    });
    const byPath = Object.fromEntries(
      res.diagnostics.map((d) => [
        d.attribute.steps.map((s) => s.attribute_name ?? s.element_key_int).join("."),
        d,
      ]),
    );
    expect(Object.keys(byPath).sort()).toEqual(["ports.0.port", "ready_timeout_sec", "timeouts.create"]);
    expect(byPath["ready_timeout_sec"]!.detail).toMatch(/^ready_timeout_sec must be a positive integer/);
    expect(byPath["ports.0.port"]!.severity).toBe("ERROR");
    expect(byPath["timeouts.create"]!.detail).toMatch(/positive duration/);
  });
});

describe("go-plugin start-up", () => {
  it("makes a certificate OpenSSL and grpc-js accept whatever the random serial (a leading zero byte too)", () => {
    for (const serial of [
      Buffer.alloc(16),
      Buffer.alloc(16, 0xff),
      Buffer.from("00107f".padEnd(32, "0"), "hex"),
    ]) {
      const cert = pluginCertificate(new Date(), serial);
      expect(new X509Certificate(cert.certPem).subjectAltName).toBe("DNS:localhost");
      expect(() =>
        grpc.ServerCredentials.createSsl(
          null,
          [{ private_key: Buffer.from(cert.keyPem), cert_chain: Buffer.from(cert.certPem) }],
          false,
        ),
      ).not.toThrow();
    }
  });

  it("refuses to run without OpenTofu's magic cookie, and without protocol 6", () => {
    expect(refusal({})).toMatch(/This binary is a plugin/);
    expect(refusal({ [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE, PLUGIN_PROTOCOL_VERSIONS: "5" })).toMatch(
      /protocol 6/,
    );
    expect(
      refusal({ [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE, PLUGIN_PROTOCOL_VERSIONS: "5,6" }),
    ).toBeUndefined();
  });
});

describe("msgpack values", () => {
  it("round-trips OpenTofu objects, long strings and lists, numbers and unknowns", () => {
    const value: MsgValue = {
      name: "web",
      big: "x".repeat(70_000),
      list: Array.from({ length: 20 }, (_, i) => i * 1000 - 5),
      n: 2 ** 40 + 0.5,
      neg: -3,
      flag: true,
      none: null,
      later: UNKNOWN_VALUE,
    };
    expect(decodeMsgpack(encodeMsgpack(value))).toEqual(value);
  });

  it("reads OpenTofu's refined unknowns (extension 12) as unknown", () => {
    expect(decodeMsgpack(Buffer.from([0xc7, 0x02, 0x0c, 0x81, 0x01]))).toBe(UNKNOWN_VALUE);
  });
});
