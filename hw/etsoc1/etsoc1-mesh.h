/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1 mesh links: the links between the cells of the 6x6
 * map (timing.md section 1), as units that pass TensorLoad data between
 * shires one load at a time (docs/timing.md, "Mesh links").  Timing
 * state only.
 */

#ifndef HW_ETSOC1_MESH_H
#define HW_ETSOC1_MESH_H

#include "hw/sysbus.h"
#include "hw/etsoc1/etsoc1-map.h"

/*
 * QEMU interface ("etsoc1-mesh", one, created by the machine as
 * /machine/mesh): no property.  Its links are indexed as etsoc1_route
 * gives them; their pace is the timing table's mesh.link.tload.
 * etsoc1_tload_out (fabric) takes them, after one pass of the read gate
 * for the load's out-port and every link of its route, under the
 * machine's port_lock.
 */
#define TYPE_ETSOC1_MESH "etsoc1-mesh"
OBJECT_DECLARE_SIMPLE_TYPE(Etsoc1MeshState, ETSOC1_MESH)

struct Etsoc1MeshState {
    SysBusDevice parent_obj;

    /* when each directed link can next pass data, in minion cycles */
    uint64_t link_free[ETSOC1_MESH_LINKS];
};

#endif
