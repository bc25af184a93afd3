import { PageQuery, VolumeCreate, VolumeListQuery, VolumePatch, type VolumeEvent } from "../../api/index.ts";
import type { ServerContext } from "../context.ts";
import { ApiError } from "../http/errors.ts";
import { paginate, parseBody, parseQuery } from "../http/io.ts";
import type { VolumeRecord } from "../records.ts";
import { newUid } from "../util.ts";
import { volumeState, volumeView } from "../views.ts";
import { isLive } from "../workloads.ts";
import { inventoryItem } from "../capacity.ts";

/** Volumes (spec 4.5). Delete is a hard delete; a volume attached to a live workload is refused (409). */
export function registerVolumeRoutes(ctx: ServerContext): void {
  const { router, store, lifecycle: lc } = ctx;
  const get = (org: string, uid: string): VolumeRecord => {
    const v = store.volumes.getIn(org, uid);
    if (!v) throw new ApiError("VOLUME_NOT_FOUND", `volume ${uid} not found`);
    return v;
  };

  router.post("/orgs/:org/volumes", async (rc) => {
    const body = await parseBody(rc, VolumeCreate, { reason: "VOLUME_INVALID" });
    const item = inventoryItem(lc.store, body.resource_name);
    if (!item)
      throw new ApiError(
        "VOLUME_INVALID",
        `resource_name ${body.resource_name} is not an inventory resource`,
      );
    if (item.type !== "rental") {
      throw new ApiError(
        "VOLUME_INVALID",
        `resource_name ${body.resource_name} is a ${item.type} resource; volumes are mounted on RENTAL workloads and need a rental resource`,
      );
    }
    const now = lc.now();
    const uid = newUid("vol");
    const v: VolumeRecord = {
      uid,
      org: rc.org,
      name: body.name,
      size: body.size_in_mb,
      resource_name: body.resource_name,
      status: "registered",
      message: "registered, provisioned when its workload deploys",
      state_updated_at: now,
      pvc_name: `pvc-${uid}`,
      resource_version: 0,
      created_at: now,
      updated_at: now,
    };
    store.transaction(() => {
      store.volumes.put(v);
      lc.volumes.recordVolumeEvent(v, {
        event_type: "CREATED",
        old_status: null,
        new_status: "registered",
        reason: "Registered",
      });
      store.volumes.put(v);
    });
    return {
      status: 201,
      body: { uid: v.uid, state: { status: v.status, message: v.message, updated_at: v.state_updated_at } },
    };
  });

  router.get("/orgs/:org/volumes", (rc) => {
    const q = parseQuery(rc, VolumeListQuery);
    const page = paginate(
      store.volumes.list(rc.org),
      q,
      (v) => q.workload_uid === undefined || v.workload_uid === q.workload_uid,
      undefined,
      (uid) => store.volumes.seqOf(uid),
    );
    return {
      status: 200,
      body: { items: page.items.map((v) => volumeView(lc, v)), next_cursor: page.next_cursor },
    };
  });

  router.get("/orgs/:org/volumes/:uid", (rc) => ({
    status: 200,
    body: volumeView(lc, get(rc.org, rc.params.uid!)),
  }));
  router.get("/orgs/:org/volumes/:uid/state", (rc) => ({
    status: 200,
    body: volumeState(get(rc.org, rc.params.uid!)),
  }));

  router.get("/orgs/:org/volumes/:uid/events", (rc) => {
    const v = get(rc.org, rc.params.uid!);
    const q = parseQuery(rc, PageQuery);
    let after = 0;
    if (q.cursor !== undefined) {
      after = /^\d+$/.test(q.cursor) ? Number(q.cursor) : -1;
      if (after <= 0 || !store.eventExists("volume", v.uid, after))
        throw new ApiError("INVALID_QUERY", `cursor ${q.cursor} is not an event cursor of this volume`);
    }
    const limit = q.limit ?? 1000;
    const rows = store.events<VolumeEvent>("volume", v.uid, after, limit + 1);
    const page = rows.slice(0, limit);
    return {
      status: 200,
      body: {
        items: page.map((r) => r.record),
        next_cursor: rows.length > limit ? String(page[page.length - 1]!.id) : null,
      },
    };
  });

  router.patch("/orgs/:org/volumes/:uid", async (rc) => {
    const v = get(rc.org, rc.params.uid!);
    const body = await parseBody(rc, VolumePatch, { reason: "VOLUME_INVALID" });
    if (body.name !== v.name) {
      v.name = body.name;
      v.updated_at = lc.now();
      store.volumes.put(v);
    }
    return { status: 200, body: volumeView(lc, v) };
  });

  router.delete("/orgs/:org/volumes/:uid", (rc) => {
    const v = get(rc.org, rc.params.uid!);
    if (v.workload_uid && isLive(store.workloads.get(v.workload_uid))) {
      throw new ApiError(
        "VOLUME_IN_USE",
        `volume ${v.uid} is attached to workload ${v.workload_uid}: detach it or delete the workload first`,
      );
    }
    store.transaction(() => {
      lc.volumes.recordVolumeEvent(v, {
        event_type: "DELETED",
        old_status: v.status,
        new_status: "deleted",
        reason: "USER",
      });
      store.volumes.remove(v.uid);
    });
    return { status: 204 };
  });
}
