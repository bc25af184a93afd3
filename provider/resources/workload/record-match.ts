/**
 * Whether a workload record is what a create request made: the request and the record in one
 * shape, with the defaults the service fills in, compared whole (a lost create is found by it).
 */
import type { Workload, WorkloadCreate } from "../../../api/index.ts";
import { canonical } from "../../core/diff.ts";
import type { Props } from "../../core/types.ts";

const ports = (
  list: readonly { port: number; protocol?: string; routing?: string }[] | undefined,
  sandbox: boolean,
) =>
  (list ?? [])
    .map((p) => ({
      port: p.port,
      protocol: p.protocol ?? "TCP",
      routing: sandbox ? undefined : (p.routing ?? "PROXIED"),
    }))
    .sort((a, b) => canonical(a).localeCompare(canonical(b)));

const volumes = (list: readonly { uid: string; mount_path: string; read_only?: boolean }[] | undefined) =>
  (list ?? [])
    .map((v) => ({ uid: v.uid, mount_path: v.mount_path, read_only: v.read_only ?? false }))
    .sort((a, b) => a.uid.localeCompare(b.uid));

/**
 * What a create body asks for, keyed by the body's own field names, with the defaults the
 * service fills in: recordView gives the same shape from a full workload record, and the two
 * are equal exactly when the record could be the result of that request. Passwords, which the
 * service never returns, are left out.
 */
export function requestedView(body: WorkloadCreate): Props {
  const sandbox = body.type === "SANDBOX";
  return {
    type: body.type,
    name: body.name,
    image: body.image,
    resource_name: body.resource_name,
    region: body.region,
    reservation_uid: body.reservation_uid,
    envs: body.envs ?? [],
    ports: ports(body.ports, sandbox),
    commands: body.commands ?? [],
    args: body.args ?? [],
    registry_auth: body.registry_auth
      ? { server: body.registry_auth.server, username: body.registry_auth.username }
      : null,
    ssh_keys: body.ssh_keys ?? [],
    volumes: volumes(body.volumes),
    bm_config: body.type === "BM" ? { hostname: body.bm_config?.hostname ?? body.name } : undefined,
    project_id: body.project_id || null,
    experiments: body.experiments ?? {},
    sandbox_config: sandbox
      ? {
          ttl_sec: body.sandbox_config?.ttl_sec ?? 0,
          idle_timeout_sec: body.sandbox_config?.idle_timeout_sec ?? 0,
        }
      : undefined,
  };
}

/**
 * The record in the shape of requestedView: each body field where the record keeps it (a
 * sandbox's image is its template, wire.ts), resource_name only when the request named one.
 */
export function recordView(w: Workload, body: WorkloadCreate): Props {
  const sandbox = w.type === "SANDBOX";
  return {
    type: w.type,
    name: w.name,
    image: sandbox ? w.sandbox_config?.template_uid : w.image,
    resource_name: body.resource_name === undefined ? undefined : w.resource.name,
    region: w.bm_config?.region,
    reservation_uid: w.reservation_uid,
    envs: w.envs,
    ports: ports(w.ports, sandbox),
    commands: w.commands,
    args: w.args,
    registry_auth: w.registry_auth
      ? { server: w.registry_auth.server, username: w.registry_auth.username }
      : null,
    ssh_keys: w.ssh_keys,
    volumes: volumes(w.volumes),
    bm_config: w.type === "BM" ? { hostname: w.bm_config?.hostname } : undefined,
    project_id: w.project_id || null,
    experiments: Object.fromEntries(Object.entries(w.experiments).filter(([, v]) => v !== undefined)),
    sandbox_config: sandbox
      ? {
          ttl_sec: w.sandbox_config?.ttl_sec,
          idle_timeout_sec: w.sandbox_config?.idle_timeout_sec,
        }
      : undefined,
  };
}

/** Whether `w` is what `body` would have made. */
export function madeBy(body: WorkloadCreate, w: Workload): boolean {
  return canonical(recordView(w, body)) === canonical(requestedView(body));
}
