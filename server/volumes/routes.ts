import { VOLUMES } from "../../api/endpoints/index.ts";
import type { ServerContext } from "../context.ts";
import { serve } from "../http/endpoints.ts";
import { volumeCreated, volumeState, volumeView } from "./views.ts";
import { serveResource } from "../common/resource-routes.ts";

/** Volumes (spec 4.5): requests to VolumeService (volumes/service.ts). */
export function registerVolumeRoutes(ctx: ServerContext): void {
  const { store } = ctx;
  const volumes = ctx.services.volumes;

  serve(ctx, VOLUMES.create, async (rc) => ({
    status: 201,
    body: volumeCreated(volumes.create(rc.org, await rc.body())),
  }));
  serveResource(ctx, VOLUMES, volumes, (v) => volumeView(store, v));
  serve(ctx, VOLUMES.state, (rc) => ({
    status: 200,
    body: volumeState(volumes.get(rc.org, rc.params.uid!)),
  }));
  serve(ctx, VOLUMES.events, (rc) => {
    const v = volumes.get(rc.org, rc.params.uid!);
    return { status: 200, body: volumes.events(rc.org, v, rc.parsedQuery()) };
  });
}
