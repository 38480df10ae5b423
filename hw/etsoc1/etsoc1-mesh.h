/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1 mesh links: the links between the cells of the 6x6
 * map (timing.md section 1), as units that pass TensorLoad data and
 * tensor messages between shires one at a time (docs/timing.md, "Mesh
 * links").  Timing state only.
 */

#ifndef HW_ETSOC1_MESH_H
#define HW_ETSOC1_MESH_H

#include "hw/sysbus.h"
#include "hw/etsoc1/etsoc1-map.h"

/*
 * QEMU interface ("etsoc1-mesh", one, created by the machine as
 * /machine/mesh): no property.  Its links are indexed as etsoc1_route
 * gives them; their pace is the timing table's mesh.link.tload and
 * mesh.link.reg.  etsoc1_tload_out (fabric) takes them for a TensorLoad,
 * after one pass of the read gate for the load's out-port and every link
 * of its route, and etsoc1_port_links for the messages when a receiver
 * settles; both under the machine's port_lock.
 */
#define TYPE_ETSOC1_MESH "etsoc1-mesh"
OBJECT_DECLARE_SIMPLE_TYPE(Etsoc1MeshState, ETSOC1_MESH)

/* A message on its way over the links: when it reaches the next one */
typedef struct Etsoc1MeshEvent {
    uint64_t t;
    uint32_t gid;           /* its receiver (etsoc1_gid) */
} Etsoc1MeshEvent;

struct Etsoc1MeshState {
    SysBusDevice parent_obj;

    /*
     * When each directed link can next pass TensorLoad data, and message
     * registers, in minion cycles.  The two are served at different
     * points (a load at its gate pass, a message when its receiver
     * settles), with no fixed host order between them, so each has its
     * own clock: they do not delay each other (docs/timing.md, "Mesh
     * links").
     */
    uint64_t link_free[ETSOC1_MESH_LINKS];
    uint64_t msg_free[ETSOC1_MESH_LINKS];
    /*
     * The messages on the links, a min-heap in (time, receiver) order
     * (etsoc1_port_links), at most one per receiving minion.  Not
     * migrated: each message's place is in its receiver's record, and
     * the heap is built again from those after a load (@fly_stale).
     */
    Etsoc1MeshEvent fly[ETSOC1_MAX_SHIRES * ETSOC1_MINIONS_PER_SHIRE];
    unsigned nfly;
    bool fly_stale;
};

#endif
