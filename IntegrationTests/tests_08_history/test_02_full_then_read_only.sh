#!/usr/bin/env bash
# The history database failing under a running exporter (tests_08_history/failures.sh: its data
# directory a tmpfs of the case's own, and what every failure must show): the disk full (a file
# takes every free block), then, while the writer is failing and must open the file again, the
# directory read-only (a read-only bind mount over it) as the disk is freed underneath; the
# history writes again once the mount is gone. About 25 s.
#
#   IntegrationTests/tests_08_history/test_02_full_then_read_only.sh
set -euo pipefail
# shellcheck source=IntegrationTests/tests_08_history/failures.sh
source "$(dirname "$0")/failures.sh"

# --- The disk full: a file takes every free block ----------------------------------------------
recovered_before=$(recoveries)
baseline
dd if=/dev/zero of="$work/rw/filler" bs=64k 2>/dev/null || true
break_check "a full disk" 'full'

# --- Then the directory read-only: a read-only bind mount over it while the writer, having
# failed, must open the file again; the disk freed underneath (through the writable view).
baseline
mount --bind "$work/rw" "$work/data"
mount -o remount,bind,ro "$work/data"
rm -f "$work/rw/filler"
break_check "a read-only directory" 'read.?only|unable to open'
umount -l "$work/data"
recovered "a read-only directory (after a full disk)" "$recovered_before"
echo "$name: passed"
