import { PageQuery, VolumeCreate, VolumeListQuery } from "../../api/index.ts";
import type { ServerContext } from "../context.ts";
import { parseBody, parseQuery } from "../http/io.ts";
import { volumeCreated, volumeState, volumeView } from "../views.ts";
import { registerCollectionRoutes } from "./collection.ts";

/** Volumes (spec 4.5): requests to VolumeService (volumes/service.ts). */
export function registerVolumeRoutes(ctx: ServerContext): void {
  const { router, lifecycle: lc } = ctx;
  const volumes = ctx.services.volumes;

  router.post("/orgs/:org/volumes", async (rc) => {
    const body = await parseBody(rc, VolumeCreate, { reason: "VOLUME_INVALID" });
    return { status: 201, body: volumeCreated(volumes.create(rc.org, body)) };
  });
  registerCollectionRoutes(router, "volumes", volumes, (v) => volumeView(lc, v), VolumeListQuery);
  router.get("/orgs/:org/volumes/:uid/state", (rc) => ({
    status: 200,
    body: volumeState(volumes.get(rc.org, rc.params.uid!)),
  }));
  router.get("/orgs/:org/volumes/:uid/events", (rc) => {
    const v = volumes.get(rc.org, rc.params.uid!);
    return { status: 200, body: volumes.events(rc.org, v, parseQuery(rc, PageQuery)) };
  });
}
