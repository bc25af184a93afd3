/**
 * The provider's service definitions (provider/opentofu/protocol.ts) from the descriptor the build
 * precompiles out of the vendored .proto files: the same methods as @grpc/proto-loader makes of
 * those files, and the same bytes and objects on the wire, whether read from the descriptor as the
 * build writes it (JSON) or compiled from the files at start; and the codec (proto-codec.ts) writes
 * and reads every message type of the files as protobuf.js does, for random values.
 */
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { describe, expect, it } from "vitest";
import { encodeMsgpack } from "../../../provider/opentofu/msgpack.ts";
import {
  Codec,
  type FieldDescriptor,
  type ProtocolDescriptor,
} from "../../../provider/opentofu/proto-codec.ts";
import { loadServices, servicesOf, type Services } from "../../../provider/opentofu/protocol.ts";
import { PROTO_FILES, protocolDescriptor, protocolRoot } from "../../../provider/opentofu/protocol-source.ts";
import { PROTO_OPTIONS } from "../../../provider/opentofu/serve.ts";
import { tofuProvider } from "./fixture.ts";

type Def = grpc.MethodDefinition<unknown, unknown>;

function protoLoaderServices(): Services {
  const pkg = grpc.loadPackageDefinition(protoLoader.loadSync(PROTO_FILES, PROTO_OPTIONS)) as unknown as {
    tfplugin6: { Provider: { service: grpc.ServiceDefinition } };
    plugin: { GRPCController: { service: grpc.ServiceDefinition } };
    grpc: { health: { v1: { Health: { service: grpc.ServiceDefinition } } } };
  };
  return {
    provider: pkg.tfplugin6.Provider.service,
    controller: pkg.plugin.GRPCController.service,
    health: pkg.grpc.health.v1.Health.service,
  };
}

/** Messages of each direction, as the adapter answers them and as OpenTofu sends them. */
function samples(): { rpc: string; request: unknown; response: unknown }[] {
  const provider = tofuProvider();
  const volume = { name: "v", size_in_mb: 512, resource_name: "gpu-rental-small", id: null };
  return [
    { rpc: "GetMetadata", request: {}, response: provider.getMetadata() },
    { rpc: "GetProviderSchema", request: {}, response: provider.getProviderSchema() },
    {
      rpc: "PlanResourceChange",
      request: {
        type_name: "cws_volume",
        prior_state: { msgpack: encodeMsgpack(volume) },
        proposed_new_state: { msgpack: encodeMsgpack({ ...volume, size_in_mb: 1024 }) },
        config: { msgpack: encodeMsgpack(volume) },
        prior_private: Buffer.alloc(0),
        client_capabilities: { deferral_allowed: true },
      },
      response: {
        planned_state: { msgpack: encodeMsgpack({ ...volume, size_in_mb: 1024 }) },
        requires_replace: [{ steps: [{ attribute_name: "size_in_mb" }, { element_key_int: 3 }] }],
        diagnostics: [
          {
            severity: "WARNING",
            summary: "s",
            detail: "d",
            attribute: { steps: [{ element_key_string: "k" }] },
          },
        ],
      },
    },
  ];
}

function sameMethods(ours: grpc.ServiceDefinition, theirs: grpc.ServiceDefinition): void {
  expect(Object.keys(ours).sort()).toEqual(Object.keys(theirs).sort());
  for (const [name, d] of Object.entries(theirs) as [string, Def][]) {
    const o = ours[name] as Def;
    expect({ path: o.path, req: o.requestStream, res: o.responseStream, name: o.originalName }).toEqual({
      path: d.path,
      req: d.requestStream,
      res: d.responseStream,
      name: d.originalName,
    });
  }
}

describe("the OpenTofu provider's protocol, precompiled", () => {
  const reference = protoLoaderServices();
  const variants: [string, () => Services | Promise<Services>][] = [
    [
      "the descriptor the build writes (JSON)",
      () => servicesOf(JSON.parse(JSON.stringify(protocolDescriptor()))),
    ],
    ["the .proto files compiled at start (sources)", loadServices],
  ];

  for (const [label, load] of variants) {
    it(`${label}: the methods @grpc/proto-loader makes of the vendored files`, async () => {
      const ours = await load();
      sameMethods(ours.provider, reference.provider);
      sameMethods(ours.controller, reference.controller);
      sameMethods(ours.health, reference.health);
    });

    it(`${label}: the same bytes and objects on the wire`, async () => {
      const ours = (await load()).provider;
      for (const { rpc, request, response } of samples()) {
        const o = ours[rpc] as Def;
        const r = reference.provider[rpc] as Def;
        const resBytes = o.responseSerialize(response);
        expect(Buffer.from(resBytes).equals(Buffer.from(r.responseSerialize(response))), rpc).toBe(true);
        expect(o.responseDeserialize(resBytes)).toEqual(r.responseDeserialize(resBytes));
        const reqBytes = r.requestSerialize(request);
        expect(Buffer.from(o.requestSerialize(request)).equals(Buffer.from(reqBytes)), rpc).toBe(true);
        expect(o.requestDeserialize(reqBytes)).toEqual(r.requestDeserialize(reqBytes));
      }
    });
  }
});

/** A pseudo-random source with a seed, so that a failure shows again. */
function random(seed: number) {
  let x = seed >>> 0 || 1;
  const next = () => ((x ^= x << 13), (x ^= x >>> 17), (x ^= x << 5), (x >>> 0) / 2 ** 32);
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!,
  };
}

type Rnd = ReturnType<typeof random>;

function scalarValue(type: string, rnd: Rnd): unknown {
  switch (type) {
    case "string":
      return rnd.pick(["", "a", "cws_volume", "ünïcødé ✓", "x".repeat(200)]);
    case "bytes":
      return Buffer.from(Array.from({ length: rnd.int(40) }, () => rnd.int(256)));
    case "bool":
      return rnd.next() < 0.5;
    case "double":
    case "float":
      return rnd.pick([0, 1.5, -2.25, 1e10]);
    case "int32":
    case "sint32":
    case "sfixed32":
      return rnd.pick([0, 1, -1, 300, -2147483648, 2147483647]);
    case "uint32":
    case "fixed32":
      return rnd.pick([0, 1, 300, 4294967295]);
    case "uint64":
    case "fixed64":
      return rnd.pick([0, 1, 300, 2 ** 40, Number.MAX_SAFE_INTEGER]);
    default:
      return rnd.pick([0, 1, -1, 300, -(2 ** 40), 2 ** 52, Number.MIN_SAFE_INTEGER]);
  }
}

function randomMessage(
  d: ProtocolDescriptor,
  type: string,
  rnd: Rnd,
  depth: number,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const oneofsSet = new Set<string>();
  const value = (f: FieldDescriptor): unknown =>
    f.kind === "message"
      ? randomMessage(d, f.type, rnd, depth + 1)
      : f.kind === "enum"
        ? rnd.pick(Object.keys(d.enums[f.type]!))
        : scalarValue(f.type, rnd);
  for (const f of d.messages[type]!) {
    if (rnd.next() < 0.4) continue;
    if (f.kind === "message" && depth > 3) continue;
    if (f.oneof) {
      if (oneofsSet.has(f.oneof)) continue;
      oneofsSet.add(f.oneof);
    }
    if (f.keyType)
      out[f.name] = Object.fromEntries(Array.from({ length: rnd.int(3) }, (_, i) => [`k${i}`, value(f)]));
    else if (f.repeated) out[f.name] = Array.from({ length: rnd.int(4) }, () => value(f));
    else out[f.name] = value(f);
  }
  return out;
}

describe("the protocol's codec", () => {
  it("writes and reads every message type of the vendored files as protobuf.js does, for random values", () => {
    const d = protocolDescriptor();
    const root = protocolRoot();
    const codec = new Codec(JSON.parse(JSON.stringify(d)) as ProtocolDescriptor);
    const options = { longs: Number, enums: String, defaults: true, oneofs: true };
    const rnd = random(20261125);
    let checked = 0;
    for (const type of Object.keys(d.messages)) {
      const t = root.lookupType(type);
      for (let i = 0; i < 20; i++) {
        const value = randomMessage(d, type, rnd, 0);
        const theirs = Buffer.from(t.encode(t.fromObject(value)).finish());
        const ours = codec.encode(type, value);
        expect(ours.equals(theirs), `${type}: ${JSON.stringify(value)}`).toBe(true);
        expect(codec.decode(type, theirs), type).toEqual(t.toObject(t.decode(theirs), options));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(1000);
  });
});
