// SPDX-License-Identifier: GPL-2.0-or-later
// Symbol visibility for the sw-sysemu replacement (docs/sysemu-layer.md).
#pragma once

// The library is built with default visibility; the macro exists because
// the device layer's headers name it.
#ifndef SW_SYSEMU_EXPORT
#define SW_SYSEMU_EXPORT __attribute__((visibility("default")))
#endif
