/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1: the minion's caches as its CSRs see them
 * (etsoc1-cache.c, docs/isa.md section 3): the L1 split and scratchpad
 * controls and the cache-maintenance CSRs.  The lines that evict_va,
 * flush_va and prefetch_va name are timed at the L3 (etsoc1-l3.c).
 */

#ifndef HW_ETSOC1_CACHE_H
#define HW_ETSOC1_CACHE_H

#include "hw/etsoc1/etsoc1-csr.h"

/* mcache_control / ucache_control [1:0] */
#define ETSOC1_CACHE_D1SPLIT    (1u << 0)
#define ETSOC1_CACHE_SCPENABLE  (1u << 1)

#endif
