import { PageQuery, VolumeCreate, VolumeListQuery, VolumePatch } from "../../api/index.ts";
import type { ServerContext } from "../context.ts";
import { parseBody, parseQuery } from "../http/io.ts";
import { volumeCreated, volumeState, volumeView } from "../views.ts";

/** Volumes (spec 4.5): requests to VolumeService (volumes.ts). */
export function registerVolumeRoutes(ctx: ServerContext): void {
  const { router, lifecycle: lc } = ctx;
  const volumes = ctx.services.volumes;

  router.post("/orgs/:org/volumes", async (rc) => {
    const body = await parseBody(rc, VolumeCreate, { reason: "VOLUME_INVALID" });
    return { status: 201, body: volumeCreated(volumes.create(rc.org, body)) };
  });

  router.get("/orgs/:org/volumes", (rc) => {
    const page = volumes.list(rc.org, parseQuery(rc, VolumeListQuery));
    return {
      status: 200,
      body: { items: page.items.map((v) => volumeView(lc, v)), next_cursor: page.next_cursor },
    };
  });

  router.get("/orgs/:org/volumes/:uid", (rc) => ({
    status: 200,
    body: volumeView(lc, volumes.get(rc.org, rc.params.uid!)),
  }));
  router.get("/orgs/:org/volumes/:uid/state", (rc) => ({
    status: 200,
    body: volumeState(volumes.get(rc.org, rc.params.uid!)),
  }));

  router.get("/orgs/:org/volumes/:uid/events", (rc) => {
    const v = volumes.get(rc.org, rc.params.uid!);
    return { status: 200, body: volumes.events(v, parseQuery(rc, PageQuery)) };
  });

  router.patch("/orgs/:org/volumes/:uid", async (rc) => {
    const v = volumes.get(rc.org, rc.params.uid!);
    const body = await parseBody(rc, VolumePatch, { reason: "VOLUME_INVALID" });
    return { status: 200, body: volumeView(lc, volumes.update(v, body)) };
  });

  router.delete("/orgs/:org/volumes/:uid", (rc) => {
    volumes.delete(rc.org, rc.params.uid!);
    return { status: 204 };
  });
}
