# SPDX-License-Identifier: GPL-2.0-or-later
"""The project's test groups and their harness (docs/testing.md)."""
