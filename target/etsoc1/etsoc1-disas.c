/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ET-Minion (ET-SoC-1) vendor instructions and CSRs for QEMU's RISC-V
 * disassembler (etsoc1-disas.h).  The data comes from the project's
 * instruction table (tools/et-insns.tsv), generated into
 * disas/riscv-etsoc1.c.inc by scripts/build-qemu.sh: one table for the
 * project's assembler, its objdump filter and this disassembler.
 */

#include "qemu/osdep.h"
#include "qemu/bitops.h"
#include "qemu/cutils.h"
#include "target/riscv/etsoc1/etsoc1-disas.h"

typedef struct {
    uint32_t match;
    uint32_t mask;
    const char *name;
    const char *ops;        /* operand kinds, comma-separated */
} Etsoc1DisInsn;

typedef struct {
    uint16_t csrno;
    const char *name;
} Etsoc1DisCsr;

typedef struct {
    const char *name;
    char cls;               /* 'x', 'f', 'm' register, 'i' immediate, 'r' rm */
    bool sign;
    bool hex;
    uint8_t npieces;
    struct {
        uint8_t lsb, width, ilsb;
    } piece[2];
} Etsoc1DisKind;

#include "disas/riscv-etsoc1.c.inc"

const char *etsoc1_disas_csr_name(int csrno)
{
    size_t i;

    for (i = 0; i < ARRAY_SIZE(etsoc1_dis_csrs); i++) {
        if (etsoc1_dis_csrs[i].csrno == csrno) {
            return etsoc1_dis_csrs[i].name;
        }
    }
    return NULL;
}

/* 5 and 6 are reserved: etsoc1_disas_insn() takes those words for none */
static const char etsoc1_rm_name[8][4] = {
    "rne", "rtz", "rdn", "rup", "rmm", "", "", "dyn"
};

/* The operand kind named by @len bytes at @s (the table's own names) */
static const Etsoc1DisKind *etsoc1_kind(const char *s, size_t len)
{
    size_t i;

    for (i = 0; i < ARRAY_SIZE(etsoc1_dis_kinds); i++) {
        if (strlen(etsoc1_dis_kinds[i].name) == len &&
            !strncmp(etsoc1_dis_kinds[i].name, s, len)) {
            return &etsoc1_dis_kinds[i];
        }
    }
    g_assert_not_reached();     /* tools/etisa.py gen-c emits every kind */
}

static void etsoc1_operand(char *buf, size_t buflen, uint32_t inst,
                           const char *s, size_t len,
                           const char xreg[32][5])
{
    const Etsoc1DisKind *k = etsoc1_kind(s, len);
    uint32_t v = 0;
    unsigned bits = 0, i;
    char tmp[16];

    for (i = 0; i < k->npieces; i++) {
        v |= extract32(inst, k->piece[i].lsb, k->piece[i].width)
             << k->piece[i].ilsb;
        bits += k->piece[i].width;
    }
    switch (k->cls) {
    case 'x':
        pstrcat(buf, buflen, xreg[v]);
        return;
    case 'f':
    case 'm':
        snprintf(tmp, sizeof(tmp), "%c%u", k->cls, v);
        break;
    case 'r':
        snprintf(tmp, sizeof(tmp), "%s", etsoc1_rm_name[v]);
        break;
    default:
        if (k->hex) {
            snprintf(tmp, sizeof(tmp), "0x%x", v);
        } else if (k->sign) {
            snprintf(tmp, sizeof(tmp), "%d", sextract32(v, 0, bits));
        } else {
            snprintf(tmp, sizeof(tmp), "%u", v);
        }
    }
    pstrcat(buf, buflen, tmp);
}

bool etsoc1_disas_insn(char *buf, size_t buflen, size_t tab, uint32_t inst,
                       const char xreg[32][5])
{
    const Etsoc1DisInsn *best = NULL;
    const char *p;
    size_t i;
    bool first = true;

    /* no word matches two entries (tools/etisa.py checks the table) */
    for (i = 0; i < ARRAY_SIZE(etsoc1_dis_insns) && !best; i++) {
        if ((inst & etsoc1_dis_insns[i].mask) == etsoc1_dis_insns[i].match) {
            best = &etsoc1_dis_insns[i];
        }
    }
    if (!best) {
        return false;
    }
    if (strstr(best->ops, "rm") &&
        (extract32(inst, 12, 3) == 5 || extract32(inst, 12, 3) == 6)) {
        return false;           /* reserved rounding mode */
    }
    /*
     * An omitted rounding mode means dyn ("rm") or rne ("rm0"), as in the
     * project's assembler front end; that one is left out here too.
     */
    buf[0] = 0;
    pstrcat(buf, buflen, best->name);
    while (strlen(buf) < tab && strlen(buf) + 1 < buflen) {
        pstrcat(buf, buflen, " ");
    }
    for (p = best->ops; *p; ) {
        size_t len = strcspn(p, ",");
        const char *paren = memchr(p, '(', len);

        if (!(len == 2 && !strncmp(p, "rm", 2) &&
              extract32(inst, 12, 3) == 7) &&
            !(len == 3 && !strncmp(p, "rm0", 3) &&
              extract32(inst, 12, 3) == 0)) {
            if (!first) {
                pstrcat(buf, buflen, ",");
            }
            first = false;
            if (paren) {
                if (paren > p) {
                    etsoc1_operand(buf, buflen, inst, p, paren - p, xreg);
                }
                pstrcat(buf, buflen, "(");
                etsoc1_operand(buf, buflen, inst, paren + 1,
                               len - (paren - p) - 2, xreg);
                pstrcat(buf, buflen, ")");
            } else {
                etsoc1_operand(buf, buflen, inst, p, len, xreg);
            }
        }
        p += len + (p[len] == ',');
    }
    return true;
}
