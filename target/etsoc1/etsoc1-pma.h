/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1: the minion's physical memory attributes, the
 * DRAM checks its neighbourhood's mprot ESR controls (isa.md section 2,
 * docs/robustness.md "What protects the firmware").  target/riscv's
 * physical-address check asks this for every TLB fill of a minion
 * (qemu-patches/0013); no target/riscv type but CPURISCVState here.
 */

#ifndef TARGET_ETSOC1_PMA_H
#define TARGET_ETSOC1_PMA_H

/*
 * May minion hart @env make access @access_type (an MMUAccessType) at
 * physical address @pa at privilege @mode (the effective one, MPRV
 * included), by its neighbourhood's mprot?  *@prot: the PAGE_READ,
 * PAGE_WRITE and PAGE_EXEC it has on that page (all three outside DRAM
 * and for a hart that is not a minion).
 */
bool etsoc1_pma_check(CPURISCVState *env, hwaddr pa, int access_type,
                      int mode, int *prot);

#endif
