/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1 memory shires (etsoc1-memshire.h).  Eight of them
 * sit off the mesh's top and bottom edges, each with an LPDDR4x
 * controller; the line at PA is in memory shire PA[8:6].  Only what the
 * contention model needs lives here: when each one's DRAM is next free.
 * Its MS and DDRC ESRs stay unimplemented (etsoc1.c).
 */

#include "qemu/osdep.h"
#include <math.h>
#include "qapi/error.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "hw/etsoc1/etsoc1-memshire.h"
#include "hw/etsoc1/etsoc1-map.h"
#include "trace.h"

uint64_t etsoc1_memshire_take(Etsoc1MemShireState *s, uint64_t at,
                              unsigned lines, double line)
{
    uint64_t go = MAX(at * ETSOC1_MEMSHIRE_FX, s->dram_free);

    s->dram_free = go + llround(lines * line * ETSOC1_MEMSHIRE_FX);
    trace_etsoc1_memshire_take(s->index, at, lines,
                               go / ETSOC1_MEMSHIRE_FX);
    return DIV_ROUND_UP(go - at * ETSOC1_MEMSHIRE_FX, ETSOC1_MEMSHIRE_FX);
}

static void etsoc1_memshire_reset_enter(Object *obj, ResetType type)
{
    Etsoc1MemShireState *s = ETSOC1_MEMSHIRE(obj);

    trace_etsoc1_memshire_reset(s->index);
    s->dram_free = 0;
}

static void etsoc1_memshire_realize(DeviceState *dev, Error **errp)
{
    Etsoc1MemShireState *s = ETSOC1_MEMSHIRE(dev);

    if (s->index >= ETSOC1_MEMSHIRES) {
        error_setg(errp, "etsoc1-memshire: index %u is not below %u",
                   s->index, ETSOC1_MEMSHIRES);
    }
}

static const VMStateDescription vmstate_etsoc1_memshire = {
    .name = TYPE_ETSOC1_MEMSHIRE,
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_UINT64(dram_free, Etsoc1MemShireState),
        VMSTATE_END_OF_LIST()
    }
};

static Property etsoc1_memshire_props[] = {
    DEFINE_PROP_UINT32("index", Etsoc1MemShireState, index, 0),
    DEFINE_PROP_END_OF_LIST(),
};

static void etsoc1_memshire_class_init(ObjectClass *oc, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(oc);
    ResettableClass *rc = RESETTABLE_CLASS(oc);

    dc->desc = "ET-SoC-1 memory shire (DRAM timing)";
    dc->realize = etsoc1_memshire_realize;
    dc->vmsd = &vmstate_etsoc1_memshire;
    dc->user_creatable = false;
    device_class_set_props(dc, etsoc1_memshire_props);
    rc->phases.enter = etsoc1_memshire_reset_enter;
}

static const TypeInfo etsoc1_memshire_info = {
    .name = TYPE_ETSOC1_MEMSHIRE,
    .parent = TYPE_SYS_BUS_DEVICE,
    .instance_size = sizeof(Etsoc1MemShireState),
    .class_init = etsoc1_memshire_class_init,
};

static void etsoc1_memshire_register_types(void)
{
    type_register_static(&etsoc1_memshire_info);
}

type_init(etsoc1_memshire_register_types)
