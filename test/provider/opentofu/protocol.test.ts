/**
 * The provider's service definitions (provider/opentofu/protocol.ts) from the descriptor the build
 * precompiles out of the vendored .proto files: the same methods as @grpc/proto-loader makes of
 * those files, and the same bytes and objects on the wire, whether read from the descriptor as the
 * build writes it (JSON) or parsed from the files at start.
 */
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { encodeMsgpack } from "../../../provider/opentofu/msgpack.ts";
import { TofuProvider } from "../../../provider/opentofu/adapter.ts";
import { loadServices, servicesOf, type Services } from "../../../provider/opentofu/protocol.ts";
import { PROTO_FILES, protocolDescriptor } from "../../../provider/opentofu/protocol-source.ts";
import { PROTO_OPTIONS } from "../../../provider/opentofu/serve.ts";
import type { PackageSchema } from "../../../provider/opentofu/tf-schema.ts";

const SCHEMA = JSON.parse(
  readFileSync(new URL("../../../schema.json", import.meta.url), "utf8"),
) as PackageSchema;

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
  const provider = new TofuProvider(SCHEMA, () => {});
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
    ["the .proto files parsed at start (sources)", loadServices],
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
