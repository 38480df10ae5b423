/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1 mesh links (etsoc1-mesh.h).  The model times the
 * mesh by its hops (timing.md section 4: 12 cycles a round-trip hop at
 * 600 MHz) and its shires' ports; this unit adds when each link is next
 * free, for the TensorLoads and the tensor messages that take turns
 * there, and the messages on their way over the links.
 */

#include "qemu/osdep.h"
#include "migration/vmstate.h"
#include "hw/etsoc1/etsoc1-mesh.h"
#include "trace.h"

static void etsoc1_mesh_reset_enter(Object *obj, ResetType type)
{
    Etsoc1MeshState *s = ETSOC1_MESH(obj);

    trace_etsoc1_mesh_reset();
    memset(s->link_free, 0, sizeof(s->link_free));
    memset(s->msg_free, 0, sizeof(s->msg_free));
    s->nfly = 0;            /* the minions' records are reset too */
    s->fly_stale = false;
}

static int etsoc1_mesh_post_load(void *opaque, int version_id)
{
    Etsoc1MeshState *s = opaque;

    s->fly_stale = true;    /* the records say where the messages are */
    return 0;
}

static const VMStateDescription vmstate_etsoc1_mesh = {
    .name = TYPE_ETSOC1_MESH,
    .version_id = 1,
    .minimum_version_id = 1,
    .post_load = etsoc1_mesh_post_load,
    .fields = (VMStateField[]) {
        VMSTATE_UINT64_ARRAY(link_free, Etsoc1MeshState, ETSOC1_MESH_LINKS),
        VMSTATE_UINT64_ARRAY(msg_free, Etsoc1MeshState, ETSOC1_MESH_LINKS),
        VMSTATE_END_OF_LIST()
    }
};

static void etsoc1_mesh_class_init(ObjectClass *oc, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(oc);
    ResettableClass *rc = RESETTABLE_CLASS(oc);

    dc->desc = "ET-SoC-1 mesh links (timing)";
    dc->vmsd = &vmstate_etsoc1_mesh;
    dc->user_creatable = false;
    rc->phases.enter = etsoc1_mesh_reset_enter;
}

static const TypeInfo etsoc1_mesh_info = {
    .name = TYPE_ETSOC1_MESH,
    .parent = TYPE_SYS_BUS_DEVICE,
    .instance_size = sizeof(Etsoc1MeshState),
    .class_init = etsoc1_mesh_class_init,
};

static void etsoc1_mesh_register_types(void)
{
    type_register_static(&etsoc1_mesh_info);
}

type_init(etsoc1_mesh_register_types)
