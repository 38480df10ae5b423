/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The naive 2D array: see grid.c. */
#define NAIVE
#include "grid.c"
